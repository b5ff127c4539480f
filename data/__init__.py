"""Static game facts (boards, tiles, cats, goals, scenarios) and their validated loader."""

from data.catalog import (
    BoardDef,
    Catalog,
    CatDef,
    CatTileDef,
    ColorDef,
    GoalDef,
    PatternDef,
    ScenarioDef,
    ScenarioNeeds,
    load_catalog,
)

__all__ = [
    "BoardDef",
    "CatDef",
    "CatTileDef",
    "Catalog",
    "ColorDef",
    "GoalDef",
    "PatternDef",
    "ScenarioDef",
    "ScenarioNeeds",
    "load_catalog",
]
