"""Static game facts (boards, tiles, cats, goals, scenarios, the achievements chart) and their
validated loader."""

from data.catalog import (
    AchievementChart,
    AchievementDef,
    BoardDef,
    Catalog,
    CatDef,
    CatTileDef,
    ColorDef,
    GoalDef,
    NormalCondition,
    PatternDef,
    ScenarioDef,
    ScenarioNeeds,
    TrackLevel,
    load_catalog,
)

__all__ = [
    "AchievementChart",
    "AchievementDef",
    "BoardDef",
    "CatDef",
    "CatTileDef",
    "Catalog",
    "ColorDef",
    "GoalDef",
    "NormalCondition",
    "PatternDef",
    "ScenarioDef",
    "ScenarioNeeds",
    "TrackLevel",
    "load_catalog",
]
