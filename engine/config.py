"""Game options (what players choose) and the resolved configuration a game is played with.

:class:`GameOptions` is what the lobby collects; :func:`engine.setup.new_game` resolves it with
the catalogue and a seed into a :class:`GameConfig` that carries every fact the rules need
(cats with their patterns, goal values, boards), so a stored game never needs the catalogue again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from engine.errors import BadOptionsError


class Setup(StrEnum):
    BEGINNER = "beginner"
    STANDARD = "standard"


class Restriction(StrEnum):
    """The rulebook's five rule restrictions (achievement mode)."""

    ADJACENT = "adjacent"  # place only next to a placed patch tile (first tile: anywhere)
    BOTH_WAYS = "both-ways"  # goals score only when met by colours and patterns
    NO_HAND = "no-hand"  # no hand: take a market tile and place it at once
    SAME_COLOR = "same-color"  # touch a tile or border patch of the same colour
    SAME_PATTERN = "same-pattern"  # touch a tile or border patch of the same pattern


#: Validation context for options read back from storage or a game record:
#: ``GameOptions.model_validate(data, context=STORED)``. A rule about options added after a game
#: was created (family needs the standard setup) must not make that game unreadable; new games
#: are validated without it.
STORED: Final[Mapping[str, bool]] = MappingProxyType({"stored": True})


def is_stored(info: ValidationInfo) -> bool:
    """Whether a model is being validated with the :data:`STORED` context."""
    ctx = info.context
    return isinstance(ctx, Mapping) and bool(ctx.get("stored"))


class GameOptions(BaseModel):
    """What the players asked for. ``None`` means "deal it at random".

    Inconsistent choices are refused here with :class:`~engine.errors.BadOptionsError` (code
    ``bad_options``), which pydantic hands on inside its ``ValidationError`` (itself a
    ``ValueError``); :func:`engine.errors.engine_error` digs it out. The checks that need the
    catalogue (boards, cats, scenario numbers) are made by :func:`engine.setup.new_game`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: int = Field(default=2, ge=1, le=4)
    setup: Setup = Setup.STANDARD
    family: bool = False
    lower_variance: bool = False
    restriction: Restriction | None = None
    scenario: int | None = Field(default=None, ge=1, le=10)
    cats: tuple[str, str, str] | None = None
    boards: tuple[str, ...] | None = None
    first_seat: int | None = None

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> GameOptions:
        # The rulebook's family variant starts from the standard setup (cats drawn, goals
        # dealt, then turned face down); the beginner setup is a different starting point.
        if self.family and self.setup is Setup.BEGINNER and not is_stored(info):
            raise BadOptionsError("the family variant is played with the standard setup, "
                                  "not the beginner setup")
        return self


@dataclass(frozen=True, slots=True)
class CatRule:
    """A cat in play: what it needs and which two patterns (indices) it likes."""

    id: str
    points: int
    min_size: int  # 0 for shape cats
    shape: tuple[tuple[int, int], ...]  # empty for size cats
    patterns: tuple[int, int]


@dataclass(frozen=True, slots=True)
class GoalRule:
    id: str
    counts: tuple[int, ...]  # sorted, largest first
    one_way: int
    both_ways: int


@dataclass(frozen=True, slots=True)
class ScenarioRule:
    number: int
    min_score: int
    goals_met: int
    goals_both: int
    rainbow: bool
    cat_tokens: int
    each_cat: bool
    same_cat: int
    buttons_one_color: int


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything fixed for the whole game once setup is done."""

    players: int
    setup: Setup
    family: bool
    lower_variance: bool
    restriction: Restriction | None
    colors: tuple[str, ...]
    patterns: tuple[str, ...]
    cats: tuple[CatRule, CatRule, CatRule]
    goals: tuple[GoalRule, ...]  # all six goal tiles, catalogue order
    goal_spots: tuple[int, int, int]  # cells of B3, C4, D2
    boards: tuple[str, ...]  # per seat
    scenario: ScenarioRule | None
    bag_size: int

    @property
    def solo(self) -> bool:
        return self.players == 1

    @property
    def no_hand(self) -> bool:
        return self.restriction is Restriction.NO_HAND

    def goal(self, goal_id: str) -> GoalRule:
        for g in self.goals:
            if g.id == goal_id:
                return g
        raise KeyError(goal_id)

    def cat_index(self, cat_id: str) -> int:
        for i, c in enumerate(self.cats):
            if c.id == cat_id:
                return i
        raise KeyError(cat_id)

    def pattern_cat(self, pattern: int) -> int:
        """Index of the cat that likes ``pattern``."""
        for i, c in enumerate(self.cats):
            if pattern in c.patterns:
                return i
        raise KeyError(pattern)
