"""What happened: the events ``apply`` returns, rich enough to narrate a turn without the rules.

Every event is public (nothing in them reveals a hand drawn from the bag or the bag itself).
``event_to_dict`` gives the JSON form stored in the move log.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True)
class GoalsChosen(Event):
    kind: ClassVar[str] = "goals_chosen"
    seat: int
    goals: tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    kind: ClassVar[str] = "game_started"
    first_seat: int


@dataclass(frozen=True, slots=True)
class TilePlaced(Event):
    kind: ClassVar[str] = "tile_placed"
    seat: int
    cell: str
    color: str
    pattern: str
    from_market: bool  # no-hand mode places straight from the market
    number: int  # 1..22: how many tiles this quilt now has


@dataclass(frozen=True, slots=True)
class ButtonSewn(Event):
    kind: ClassVar[str] = "button_sewn"
    seat: int
    color: str
    cell: str
    group: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CatAttracted(Event):
    kind: ClassVar[str] = "cat_attracted"
    seat: int
    cat: str
    pattern: str
    cell: str
    group: tuple[str, ...]
    points: int


@dataclass(frozen=True, slots=True)
class RainbowSewn(Event):
    kind: ClassVar[str] = "rainbow_sewn"
    seat: int
    cell: str


@dataclass(frozen=True, slots=True)
class TileTaken(Event):
    kind: ClassVar[str] = "tile_taken"
    seat: int
    slot: int
    color: str
    pattern: str


@dataclass(frozen=True, slots=True)
class MarketDiscarded(Event):
    kind: ClassVar[str] = "market_discarded"
    slot: int
    color: str
    pattern: str


@dataclass(frozen=True, slots=True)
class MarketSlid(Event):
    kind: ClassVar[str] = "market_slid"
    from_slot: int
    to_slot: int


@dataclass(frozen=True, slots=True)
class MarketRefilled(Event):
    kind: ClassVar[str] = "market_refilled"
    slot: int
    color: str | None  # None when the bag is empty
    pattern: str | None


@dataclass(frozen=True, slots=True)
class TurnPassed(Event):
    kind: ClassVar[str] = "turn_passed"
    seat: int  # whose turn it is now
    turn: int  # turns played so far


@dataclass(frozen=True, slots=True)
class GoalScored(Event):
    kind: ClassVar[str] = "goal_scored"
    seat: int
    spot: str
    goal: str
    colors: bool
    patterns: bool
    points: int


@dataclass(frozen=True, slots=True)
class ScenarioResult(Event):
    kind: ClassVar[str] = "scenario_result"
    seat: int
    number: int
    passed: bool
    conditions: tuple[tuple[str, int, int, bool], ...]  # (name, needed, reached, met)


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    kind: ClassVar[str] = "game_over"
    totals: tuple[int, ...]
    places: tuple[int, ...]  # 1 = first; equal places share
    winners: tuple[int, ...]
    decided_by: str  # "score", "cats", "buttons" or "shared"
    scores: tuple[dict[str, Any], ...] = field(default=())  # per seat, the scorer's breakdown


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        GoalsChosen, GameStarted, TilePlaced, ButtonSewn, CatAttracted, RainbowSewn, TileTaken,
        MarketDiscarded, MarketSlid, MarketRefilled, TurnPassed, GoalScored, ScenarioResult,
        GameOver,
    )
}


def event_to_dict(event: Event) -> dict[str, Any]:
    return {"kind": event.kind, **asdict(event)}


def event_from_dict(data: dict[str, Any]) -> Event:
    cls = EVENT_TYPES[data["kind"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        v = data[f.name]
        if isinstance(v, list):
            v = tuple(tuple(x) if isinstance(x, list) else x for x in v)
        kwargs[f.name] = v
    return cls(**kwargs)
