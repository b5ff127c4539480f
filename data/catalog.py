"""Pydantic models for the JSON files in this folder, and the one function that reads them.

The engine never reads files: callers load a :class:`Catalog` here and hand it over. The
catalogue also carries the rulebook's achievements chart (:class:`AchievementChart`, from
``achievements.json``), which :mod:`engine.achievements` evaluates.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DATA_DIR = Path(__file__).resolve().parent


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ColorDef(_Frozen):
    id: str
    symbol: str
    rgb: tuple[int, int, int]


class PatternDef(_Frozen):
    id: str


class PatchDef(_Frozen):
    color: str
    pattern: str


class BoardDef(_Frozen):
    """A quilt board: its printed border patches keyed by (row, col)."""

    id: str
    border: dict[tuple[int, int], PatchDef]


class CatDef(_Frozen):
    id: str
    points: int
    dots: int = Field(ge=1, le=3)
    need: Literal["size", "shape"]
    min_size: int | None = None
    shape: tuple[tuple[int, int], ...] | None = None
    # The cat's own colour (its face on tokens and cards): the same cat looks the same in
    # every game and every picture, whichever slot it is dealt to.
    fur: tuple[int, int, int] = Field(default=(150, 156, 166))

    @model_validator(mode="after")
    def _need_matches(self) -> CatDef:
        if self.need == "size" and not self.min_size:
            raise ValueError(f"cat {self.id}: a size cat needs min_size")
        if self.need == "shape" and not self.shape:
            raise ValueError(f"cat {self.id}: a shape cat needs shape")
        return self


class CatTileDef(_Frozen):
    """One double-sided cat scoring tile: a cat on each side. Only one side is ever in play,
    so a game never holds both of its cats."""

    id: str
    sides: tuple[str, str]


class GoalDef(_Frozen):
    id: str
    symbol: str
    counts: tuple[int, ...]
    one_way: int
    both_ways: int

    @model_validator(mode="after")
    def _six_neighbours(self) -> GoalDef:
        if sum(self.counts) != 6:
            raise ValueError(f"goal {self.id}: counts must add up to 6")
        return self


class ScenarioNeeds(_Frozen):
    goals_met: int = 0
    goals_both: int = 0
    rainbow: bool = False
    cat_tokens: int = 0
    each_cat: bool = False
    same_cat: int = 0
    buttons_one_color: int = 0


class ScenarioDef(_Frozen):
    number: int
    goals: tuple[str, str, str]
    cats: tuple[str, str, str]
    needs: ScenarioNeeds
    min_score: int


# --------------------------------------------------------------------------- achievements

AchievementMode = Literal["scenario", "normal", "restriction"]
TrackShape = Literal["hex", "button", "diamond", "heart", "spool", "star"]
RulebookLang = Literal["en", "fr", "pl"]


class TrackLevel(_Frozen):
    """A stretch of the progress track under one title: ``shapes`` shapes of one kind."""

    id: str
    shapes: int = Field(ge=1)
    shape: TrackShape


class NormalCondition(_Frozen):
    """What the winner's quilt must show for a normal-game row (every field set must hold)."""

    min_score: int | None = None  # total points at least
    rainbow: bool = False  # the rainbow button sewn
    max_buttons: int | None = None  # button tokens, the rainbow included, at most
    max_cats: int | None = None  # cat tokens at most
    max_goals_met: int | None = None  # goal tiles met by colours or by patterns, at most
    min_each_cat: int | None = None  # tokens of every one of the three cats, at least

    @model_validator(mode="after")
    def _something(self) -> NormalCondition:
        if not self.rainbow and all(v is None for v in (
                self.min_score, self.max_buttons, self.max_cats, self.max_goals_met,
                self.min_each_cat)):
            raise ValueError("a normal-game condition needs at least one requirement")
        return self


class AchievementDef(_Frozen):
    """One row (circle) of the achievements chart: one achievement point."""

    id: str
    mode: AchievementMode
    scenario: int | None = None  # mode scenario: its number
    restriction: str | None = None  # mode restriction: the engine's Restriction value
    condition: NormalCondition | None = None  # mode normal
    printed: str | None = None  # what the chart prints for the row, where the text kept it
    sources: tuple[RulebookLang, ...]  # rulebooks whose text names the row
    enabled: bool = True  # False: the texts do not say what the row asks; never awarded

    @model_validator(mode="after")
    def _fields_fit_mode(self) -> AchievementDef:
        need = {"scenario": self.scenario is not None,
                "restriction": self.restriction is not None,
                "normal": self.condition is not None}
        for mode, present in need.items():
            if present and mode != self.mode:
                raise ValueError(f"achievement {self.id}: {mode} field on a {self.mode} row")
        if self.enabled and not need[self.mode]:
            raise ValueError(f"achievement {self.id}: a {self.mode} row needs its "
                             f"{ {'normal': 'condition'}.get(self.mode, self.mode)}")
        if not self.sources:
            raise ValueError(f"achievement {self.id}: name the rulebooks it comes from")
        return self


class AchievementChart(_Frozen):
    """The chart: the progress track, every row, and the normal rows' rarity order."""

    track: tuple[TrackLevel, ...]
    achievements: tuple[AchievementDef, ...]
    normal_rarity: tuple[str, ...]  # enabled normal rows, rarest first

    @property
    def enabled(self) -> tuple[AchievementDef, ...]:
        """The rows that can be earned, in chart order."""
        return tuple(a for a in self.achievements if a.enabled)

    @property
    def track_length(self) -> int:
        """How many shapes the progress track has (achievement points to fill it)."""
        return sum(level.shapes for level in self.track)

    def get(self, achievement_id: str) -> AchievementDef:
        """The row ``achievement_id`` (KeyError if the chart has none)."""
        for a in self.achievements:
            if a.id == achievement_id:
                return a
        raise KeyError(achievement_id)

    def of_mode(self, mode: AchievementMode) -> tuple[AchievementDef, ...]:
        """The enabled rows of ``mode``, in chart order."""
        return tuple(a for a in self.achievements if a.enabled and a.mode == mode)

    @model_validator(mode="after")
    def _consistent(self) -> AchievementChart:
        ids = [a.id for a in self.achievements]
        if len(set(ids)) != len(ids):
            raise ValueError("achievement ids must be unique")
        for key in ("scenario", "restriction"):
            values = [getattr(a, key) for a in self.achievements if a.enabled and a.mode == key]
            if len(set(values)) != len(values):
                raise ValueError(f"two {key} achievements for the same {key}")
        normal = {a.id for a in self.of_mode("normal")}
        if len(set(self.normal_rarity)) != len(self.normal_rarity) or (
                set(self.normal_rarity) != normal):
            raise ValueError("normal_rarity must list every enabled normal row once")
        if len({lv.id for lv in self.track}) != len(self.track) or not self.track:
            raise ValueError("the track needs levels with distinct ids")
        if self.track_length != len(self.enabled):
            raise ValueError(f"the track has {self.track_length} shapes for "
                             f"{len(self.enabled)} achievements: earning all must fill it")
        return self


class Catalog(_Frozen):
    """Every fact about the physical game that the rules need."""

    colors: tuple[ColorDef, ...]
    patterns: tuple[PatternDef, ...]
    copies: int
    lower_variance_copies: int
    goal_spots: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    boards: dict[str, BoardDef]
    cats: dict[str, CatDef]
    cat_tiles: tuple[CatTileDef, ...]
    beginner_cats: tuple[str, str, str]
    goals: dict[str, GoalDef]
    beginner_goals: tuple[str, str, str]
    scenarios: dict[int, ScenarioDef]
    achievements: AchievementChart

    @property
    def color_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.colors)

    @property
    def pattern_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.patterns)

    def cat_tile(self, cat_id: str) -> CatTileDef:
        """The scoring tile ``cat_id`` is printed on (KeyError for an unknown cat)."""
        for t in self.cat_tiles:
            if cat_id in t.sides:
                return t
        raise KeyError(cat_id)

    def back_of(self, cat_id: str) -> str:
        """The cat on the other side of ``cat_id``'s scoring tile."""
        a, b = self.cat_tile(cat_id).sides
        return b if a == cat_id else a

    def same_tile(self, cats: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
        """Two of ``cats`` printed on one tile (they cannot be in one game), or None."""
        seen: dict[str, str] = {}
        for c in cats:
            tile = self.cat_tile(c).id
            if tile in seen and seen[tile] != c:
                return seen[tile], c
            seen[tile] = c
        return None

    @model_validator(mode="after")
    def _consistent(self) -> Catalog:
        colors, patterns = set(self.color_ids), set(self.pattern_ids)
        if len(colors) != 6 or len(patterns) != 6:
            raise ValueError("need six distinct colours and six distinct patterns")
        for board in self.boards.values():
            if len(board.border) != 24:
                raise ValueError(f"board {board.id}: 24 border patches expected")
            for patch in board.border.values():
                if patch.color not in colors or patch.pattern not in patterns:
                    raise ValueError(f"board {board.id}: unknown colour or pattern {patch}")
        for cat_id in self.beginner_cats:
            if cat_id not in self.cats:
                raise ValueError(f"unknown cat {cat_id}")
        sides = [c for t in self.cat_tiles for c in t.sides]
        if sorted(sides) != sorted(self.cats):
            raise ValueError("every cat must be on exactly one side of one cat scoring tile")
        for t in self.cat_tiles:
            a, b = (self.cats[c] for c in t.sides)
            # The standard setup draws one tile per dot group, and the rulebook lets a player
            # who runs out of a cat's tokens use the back's: both sides share dots and points.
            if a.id == b.id or (a.dots, a.points) != (b.dots, b.points):
                raise ValueError(f"cat tile {t.id}: two different cats, same dots and points")
        pair = self.same_tile(list(self.beginner_cats))
        if pair:
            raise ValueError(f"beginner cats {pair} share a scoring tile")
        for sc in self.scenarios.values():
            for g in sc.goals:
                if g not in self.goals:
                    raise ValueError(f"scenario {sc.number}: unknown goal {g}")
            for c in sc.cats:
                if c not in self.cats:
                    raise ValueError(f"scenario {sc.number}: unknown cat {c}")
            pair = self.same_tile(list(sc.cats))
            if pair:
                raise ValueError(f"scenario {sc.number}: cats {pair} share a scoring tile")
        charted = {a.scenario for a in self.achievements.of_mode("scenario")}
        if charted != set(self.scenarios):
            raise ValueError("the achievements chart needs one row per scenario")
        return self


def _cell(key: str) -> tuple[int, int]:
    r, c = key.split(",")
    return int(r), int(c)


def _read(name: str, base: Path) -> dict[str, object]:
    with (base / name).open(encoding="utf-8") as f:
        data: dict[str, object] = json.load(f)
    return data


def parse_catalog(base: Path = DATA_DIR) -> Catalog:
    """Read and validate the JSON files under ``base`` (uncached)."""
    tiles = _read("tiles.json", base)
    boards = _read("boards.json", base)
    cats = _read("cats.json", base)
    goals = _read("goals.json", base)
    scenarios = _read("scenarios.json", base)
    achievements = _read("achievements.json", base)
    raw_boards = boards["boards"]
    assert isinstance(raw_boards, dict)
    raw_cats = cats["cats"]
    raw_goals = goals["goals"]
    raw_scen = scenarios["scenarios"]
    assert isinstance(raw_cats, list) and isinstance(raw_goals, list)
    assert isinstance(raw_scen, list)
    raw_spots = boards["goal_spots"]
    assert isinstance(raw_spots, list)
    return Catalog.model_validate(
        {
            "colors": tiles["colors"],
            "patterns": tiles["patterns"],
            "copies": tiles["copies"],
            "lower_variance_copies": tiles["lower_variance_copies"],
            "goal_spots": [_cell(s) for s in raw_spots],
            "boards": {
                name: {
                    "id": name,
                    "border": {
                        _cell(k): {"color": v[0], "pattern": v[1]}
                        for k, v in b["border"].items()
                    },
                }
                for name, b in raw_boards.items()
            },
            "cats": {c["id"]: c for c in raw_cats},
            "cat_tiles": cats["tiles"],
            "beginner_cats": cats["beginner"],
            "goals": {g["id"]: g for g in raw_goals},
            "beginner_goals": goals["beginner"],
            "scenarios": {s["number"]: s for s in raw_scen},
            "achievements": {k: v for k, v in achievements.items() if not k.startswith("_")},
        }
    )


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The game's catalogue, read once per process."""
    return parse_catalog()
