"""Component custom ids: every kind declared once, in one table, with its wire format.

A custom id holds everything needed to act on a click (the game, the ply the button was made for,
and the choices so far), so any button from any message works after a restart: nothing is kept
in memory between clicks. All fit in Discord's 100 characters by construction (ids are short
numbers and cell names).

Each kind is one declaration below: a frozen dataclass (the typed value a handler receives)
under ``@declare(tag, *parts, widget=...)``, which gives its wire form
``calico:<tag>:<part>:<part>...``. From that one entry come the regular expression (the
``DynamicItem`` template, :attr:`Kind.template`), the encoder (:meth:`CustomId.encode`), the
parser (:func:`parse`) and, in :mod:`bot.adapter.ui.items`, the ``DynamicItem`` class with the
widget's default look. A new button is one entry here plus its handler in
:data:`bot.adapter.ui.flows.ROUTES`.

The wire format must never change for a kind already posted (buttons on old messages must keep
working): ``tests/adapter/ui/test_custom_id_table.py`` pins every kind's encoding and regex.

=========================================  ===============================================
``calico:l:<action>:<game>``               lobby buttons (join, leave, cpu, start, cancel, pet)
``calico:lr:<game>``                       lobby: the host's "remove computer" select (value: seat)
``calico:g:<game>:<ply>``                  goal draft: the arrangement select
``calico:gc:<game>:<ply>:<abc>``           goal draft: confirm goals ``a, b, c`` (offer indices)
``calico:gb:<game>:<ply>``                 goal draft: back to the select
``calico:c:<game>:<ply>:<src>``            turn: the cell select for source ``h0``/``h1``/``m0``..
``calico:t:<game>:<ply>:<src>:<cell>:<k>`` turn: take market slot ``k`` (``x``: place only) = commit
``calico:u:<game>:<ply>``                  turn: undo the placement preview
``calico:hand:<game>``                     show my hand (ephemeral), from a thread post
``calico:replay:<game>``                   score sheet: the game's replay GIF (ephemeral)
``calico:rematch:<game>``                  score sheet: open a rematch lobby
``calico:pick:<game>:<seat>``              score sheet: the winner fills another normal row
``calico:hint:<game>:<ply>[:y]``           turn: hints (``y``: confirmed, the game gets marked)
``calico:rv:<game>``                       score sheet: review my game (ephemeral)
``calico:tj:<tournament>``                 tournament sign-up: join
``calico:tl:<tournament>``                 tournament sign-up: leave (withdraw once it runs)
=========================================  ===============================================
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Final, Literal, TypeAlias, TypeVar

PREFIX: Final = "calico"
MAX_LEN: Final = 100

LobbyAction = Literal["join", "leave", "cpu", "start", "cancel", "pet"]
LOBBY_ACTIONS: Final[tuple[LobbyAction, ...]] = ("join", "leave", "cpu", "start", "cancel", "pet")


# --------------------------------------------------------------------------- parts


@dataclass(frozen=True, slots=True)
class Part:
    """One field of a custom id on the wire: ``:<text>`` after the kind's tag (or, for a flag,
    ``:<pattern>`` when true and nothing when false)."""

    attr: str  # the id value's field
    pattern: str  # what its text may be (a regex without groups)
    group: str = ""  # the regex group's name, when not ``attr`` (kept as first written)
    read: Callable[[str], Any] = int
    write: Callable[[Any], str] = str
    flag: bool = False

    @property
    def name(self) -> str:
        return self.group or self.attr

    @property
    def regex(self) -> str:
        if self.flag:
            return f"(?::(?P<{self.name}>{self.pattern}))?"
        return f":(?P<{self.name}>{self.pattern})"

    def encode(self, value: Any) -> str:
        if self.flag:
            return f":{self.pattern}" if value else ""
        return ":" + self.write(value)

    def decode(self, match: re.Match[str]) -> Any:
        text = match[self.name]
        if self.flag:
            return text is not None
        return self.read(text)


def _lobby_action(text: str) -> LobbyAction:
    for action in LOBBY_ACTIONS:  # the regex admits only these
        if action == text:
            return action
    raise ValueError(f"not a lobby action: {text!r}")


def _order(text: str) -> tuple[int, int, int]:
    return int(text[0]), int(text[1]), int(text[2])


def _write_order(order: tuple[int, int, int]) -> str:
    a, b, c = order
    return f"{a}{b}{c}"


def _slot(text: str) -> int | None:
    return None if text == "x" else int(text)


def _write_slot(slot: int | None) -> str:
    return "x" if slot is None else str(slot)


GAME: Final = Part("game", "[0-9]{1,20}")
PLY: Final = Part("ply", "[0-9]{1,4}")
ACTION: Final = Part("action", "|".join(LOBBY_ACTIONS), read=_lobby_action)
ORDER: Final = Part("order", "[0-9]{3}", read=_order, write=_write_order)
SOURCE: Final = Part("source", "[hm][0-9]", group="src", read=str)
CELL: Final = Part("cell", "[A-E][1-5]", read=str)
SLOT: Final = Part("slot", "[0-9x]", read=_slot, write=_write_slot)
SEAT: Final = Part("seat", "[0-3]")
CONFIRMED: Final = Part("confirmed", "y", group="ok", flag=True)
TOURNAMENT: Final = Part("tournament", "[0-9]{1,20}")


# --------------------------------------------------------------------------- widgets

ButtonStyleName = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True, slots=True)
class Button:
    """A button's default look (callers pass their translated label). ``label`` may name the
    id's fields: ``"{action}"``."""

    label: str
    style: ButtonStyleName = "secondary"
    emoji: str | None = None


@dataclass(frozen=True, slots=True)
class Select:
    """A one-choice select (its options and placeholder come from the caller)."""


Widget: TypeAlias = Button | Select


# --------------------------------------------------------------------------- kinds


@dataclass(frozen=True, slots=True)
class Kind:
    """One custom-id kind: its tag, its parts in order, its widget, and its value class."""

    tag: str
    parts: tuple[Part, ...]
    widget: Widget
    cls: type[CustomId]
    template: str = field(init=False)  # the regex, also the DynamicItem template
    rx: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        template = f"{PREFIX}:{self.tag}" + "".join(p.regex for p in self.parts)
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "rx", re.compile(template))

    def encode(self, value: CustomId) -> str:
        return f"{PREFIX}:{self.tag}" + "".join(p.encode(getattr(value, p.attr))
                                                 for p in self.parts)

    def read(self, match: re.Match[str]) -> CustomId:
        """The id value of a regex ``match`` of :attr:`template`."""
        return self.cls(*(p.decode(match) for p in self.parts))


class CustomId:
    """What every custom-id value has: its :class:`Kind` (set by :func:`declare`) and
    :meth:`encode`."""

    __slots__ = ()
    kind: ClassVar[Kind]

    def encode(self) -> str:
        return _check(type(self).kind.encode(self))


_KINDS: dict[type[CustomId], Kind] = {}
_C = TypeVar("_C", bound=CustomId)


def declare(tag: str, *parts: Part, widget: Widget) -> Callable[[type[_C]], type[_C]]:
    """Register a custom-id value class (put it above ``@dataclass``): its wire form is
    ``calico:<tag>`` then ``parts``, which name its fields in order."""

    def register(cls: type[_C]) -> type[_C]:
        names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
        if names != tuple(p.attr for p in parts):
            raise TypeError(f"{cls.__name__}: parts {[p.attr for p in parts]} != {names}")
        if any(k.tag == tag for k in _KINDS.values()):
            raise ValueError(f"custom-id tag {tag!r} declared twice")
        kind = Kind(tag, parts, widget, cls)
        cls.kind = kind
        _KINDS[cls] = kind
        return cls

    return register


def _check(custom_id: str) -> str:
    if len(custom_id) > MAX_LEN:  # cannot happen with the parts above; kept as a guard
        raise ValueError(f"custom id longer than {MAX_LEN}: {custom_id!r}")
    return custom_id


# --------------------------------------------------------------------------- the table


@declare("l", ACTION, GAME, widget=Button("{action}"))
@dataclass(frozen=True, slots=True)
class LobbyId(CustomId):
    action: LobbyAction
    game: int


@declare("lr", GAME, widget=Select())
@dataclass(frozen=True, slots=True)
class LobbyRemoveId(CustomId):
    """The host's select of computer seats to remove; the chosen option's value is the seat."""

    game: int


@declare("g", GAME, PLY, widget=Select())
@dataclass(frozen=True, slots=True)
class DraftId(CustomId):
    game: int
    ply: int


@declare("gc", GAME, PLY, ORDER, widget=Button("OK", "success"))
@dataclass(frozen=True, slots=True)
class DraftConfirmId(CustomId):
    game: int
    ply: int
    order: tuple[int, int, int]  # indices into the goal offer, for B3, C4, D2


@declare("gb", GAME, PLY, widget=Button("Back"))
@dataclass(frozen=True, slots=True)
class DraftBackId(CustomId):
    game: int
    ply: int


@declare("c", GAME, PLY, SOURCE, widget=Select())
@dataclass(frozen=True, slots=True)
class CellId(CustomId):
    game: int
    ply: int
    source: str  # "h0", "h1" (hand) or "m0".."m2" (no-hand: the market tile placed)


@declare("t", GAME, PLY, SOURCE, CELL, SLOT, widget=Button("OK", "primary"))
@dataclass(frozen=True, slots=True)
class TakeId(CustomId):
    game: int
    ply: int
    source: str
    cell: str
    slot: int | None  # market slot taken; None: the placement alone ends the turn

    def move_text(self) -> str:
        """The engine's move notation for this click: ``h0@C3>m2``, ``h1@E5`` or ``m2@C3``."""
        if self.source.startswith("m"):
            return f"{self.source}@{self.cell}"
        pick = "" if self.slot is None else f">m{self.slot}"
        return f"{self.source}@{self.cell}{pick}"


@declare("u", GAME, PLY, widget=Button("Undo", emoji="↩️"))
@dataclass(frozen=True, slots=True)
class UndoId(CustomId):
    game: int
    ply: int


@declare("hand", GAME, widget=Button("Hand", emoji="🧵"))
@dataclass(frozen=True, slots=True)
class HandId(CustomId):
    game: int


@declare("replay", GAME, widget=Button("Replay", emoji="🎞️"))
@dataclass(frozen=True, slots=True)
class ReplayId(CustomId):
    game: int


@declare("rematch", GAME, widget=Button("Rematch", "primary", emoji="🔁"))
@dataclass(frozen=True, slots=True)
class RematchId(CustomId):
    game: int


@declare("pick", GAME, SEAT, widget=Select())
@dataclass(frozen=True, slots=True)
class PickId(CustomId):
    """The winner of ``seat`` picks which normal-game row the win fills (value: its id)."""

    game: int
    seat: int


@declare("hint", GAME, PLY, CONFIRMED, widget=Button("Hint", emoji="💡"))
@dataclass(frozen=True, slots=True)
class HintId(CustomId):
    game: int
    ply: int
    confirmed: bool = False  # the player agreed that the game gets marked


@declare("rv", GAME, widget=Button("Review my game", emoji="🔎"))
@dataclass(frozen=True, slots=True)
class ReviewId(CustomId):
    game: int


@declare("tj", TOURNAMENT, widget=Button("Join", "success"))
@dataclass(frozen=True, slots=True)
class TournamentJoinId(CustomId):
    tournament: int


@declare("tl", TOURNAMENT, widget=Button("Leave"))
@dataclass(frozen=True, slots=True)
class TournamentLeaveId(CustomId):
    tournament: int


# --------------------------------------------------------------------------- derived

KINDS: Final[tuple[Kind, ...]] = tuple(_KINDS.values())
TEMPLATES: Final[tuple[str, ...]] = tuple(k.template for k in KINDS)
# Any of the kinds above (each is a CustomId subclass).
ParsedId: TypeAlias = CustomId


def kind_of(cls: type[CustomId]) -> Kind:
    return _KINDS[cls]


def parse(custom_id: str) -> CustomId | None:
    """The id value for ``custom_id``, or None when it is not one of ours."""
    for kind in KINDS:
        m = kind.rx.fullmatch(custom_id)
        if m is not None:
            return kind.read(m)
    return None
