"""Notices: what a committed change tells people, as typed values.

Every notice kind is one frozen dataclass, declared once with :func:`declare` (as the custom
ids are): its ``kind`` (the stored name) and its fields are the payload. A change builds them
(``tx.thread(Table(...))``, ``tx.dm(seat, TurnPrompt(...))``); the outbox stores each as its
kind and the JSON of its fields (:func:`encode`), in the change's own transaction; the
delivery gets it back typed (:attr:`Notice.body`, :func:`decode`) and routes it by its type
through one table. A feature declares its own kinds beside its model (the weekly challenge's
DM and summary, a tournament's posts) and its own score-sheet :class:`Part` (what it adds to
a game's :class:`GameOver` notice, stored under the part's ``key``).

Stored names and fields are a contract with the rows already queued: a field may be added
(with a default), never renamed. A payload that cannot be read (a kind no longer declared, a
field of the wrong type) decodes to :class:`Unreadable`, which the delivery skips.

Nothing here reads the seed or the bag: the bodies carry what the thread or the DM shows.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any, ClassVar, TypeVar

from pydantic import GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import core_schema

from engine.events import Event, event_from_dict

log = logging.getLogger("calico.notices")

C = TypeVar("C")
P = TypeVar("P", bound="Part")
_COMPACT = (",", ":")


class Events:
    """A move's events in a notice: the JSON text as written (encoded once for the move log
    and every notice of the move), engine events when read (:meth:`decoded`)."""

    __slots__ = ("json",)

    def __init__(self, text: str = "[]") -> None:
        self.json = text

    @classmethod
    def of(cls, dicts: list[dict[str, Any]]) -> Events:
        return cls(json.dumps(dicts, separators=_COMPACT))

    def decoded(self) -> list[Event]:
        """The engine events (an entry that no longer reads as one is left out)."""
        out: list[Event] = []
        for item in json.loads(self.json):
            try:
                out.append(event_from_dict(item))
            except (KeyError, TypeError, ValueError):
                continue
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Events) and other.json == self.json

    def __hash__(self) -> int:
        return hash(self.json)

    def __repr__(self) -> str:
        return f"Events({self.json!r})"

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> core_schema.CoreSchema:
        def read(value: Any) -> Events:
            if isinstance(value, Events):
                return value
            if isinstance(value, str):
                # JSON text of a list, or it would only fail later, when the notice is shown.
                if not isinstance(json.loads(value), list):
                    raise ValueError("events are a list")
                return cls(value)
            if isinstance(value, list):
                return cls(json.dumps(value, separators=_COMPACT))
            raise ValueError("events are a list")

        return core_schema.no_info_plain_validator_function(read)


class Body:
    """A notice kind's payload (subclasses are frozen dataclasses, declared with
    :func:`declare`). ``express``: cheap to show and waited for by a person who just clicked
    (opening a new game's thread, its lobby): its lane goes before the others, and the outbox
    keeps a few slots for such lanes, so it never waits behind other games' pictures."""

    kind: ClassVar[str]
    express: ClassVar[bool] = False


class Part:
    """What one feature adds to a game's score sheet (:attr:`GameOver.parts`), declared with
    :func:`declare_part`; stored under its ``key`` in the notice's payload."""

    key: ClassVar[str]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        if cls is not Part:
            return handler(source)  # a part decodes as the dataclass it is
        # A GameOver only holds its parts: each is decoded by its own class (see decode).
        return core_schema.is_instance_schema(Part)


_KINDS: dict[str, type[Body]] = {}
_PARTS: dict[str, type[Part]] = {}


def _registrar(table: dict[str, type[Any]], attr: str, what: str
               ) -> Callable[[str], Callable[[type[C]], type[C]]]:
    def declare_as(key: str) -> Callable[[type[C]], type[C]]:
        name = str(key)  # a plain string, as stored (the core's kinds are NoticeKind members)

        def register(cls: type[C]) -> type[C]:
            if table.get(name, cls) is not cls:
                raise ValueError(f"{what} {name!r} is declared twice")
            setattr(cls, attr, name)
            table[name] = cls
            return cls

        return register

    return declare_as


#: Register a body class under its stored ``kind`` (once): ``@declare("table")``.
declare = _registrar(_KINDS, "kind", "notice kind")
#: Register a score-sheet part class under its ``key`` (once): ``@declare_part("progress")``.
declare_part = _registrar(_PARTS, "key", "score-sheet part")


def kinds() -> dict[str, type[Body]]:
    """Every declared kind (for the delivery's routing test)."""
    return dict(_KINDS)


# --------------------------------------------------------------------------- the core's kinds


class NoticeKind(StrEnum):
    """The core's notice kinds (a feature's are its bodies' ``kind``)."""

    LOBBY = "lobby"
    OPEN_THREAD = "open_thread"
    STARTED = "started"
    DRAFT_PROMPT = "draft_prompt"
    TURN_PROMPT = "turn_prompt"
    TABLE = "table"
    AUTOPLAYED = "autoplayed"
    REMINDER = "reminder"
    SEAT_CHANGED = "seat_changed"
    GAME_OVER = "game_over"
    ENDED = "ended"
    DM_FALLBACK = "dm_fallback"
    SETUP_FAILED = "setup_failed"


@declare(NoticeKind.OPEN_THREAD)
@dataclass(frozen=True, slots=True)
class OpenThread(Body):
    """Create (or, after a crash, adopt) the game's thread: first in its lane."""

    express = True


@declare(NoticeKind.LOBBY)
@dataclass(frozen=True, slots=True)
class Lobby(Body):
    """Post the lobby message in the thread, then edit it in place."""

    express = True


@declare(NoticeKind.STARTED)
@dataclass(frozen=True, slots=True)
class Started(Body):
    first_seat: int | None
    phase: str  # "draft" | "play"
    players: int


@declare(NoticeKind.DRAFT_PROMPT)
@dataclass(frozen=True, slots=True)
class DraftPrompt(Body):
    """DM: choose your goal tiles."""

    seat: int
    deadline_at: str | None = None  # ISO 8601


@declare(NoticeKind.TURN_PROMPT)
@dataclass(frozen=True, slots=True)
class TurnPrompt(Body):
    """DM: your turn (your hand, the market, the buttons)."""

    seat: int
    deadline_at: str | None = None


@declare(NoticeKind.TABLE)
@dataclass(frozen=True, slots=True)
class Table(Body):
    """Thread: a move was played (the quilt, what it earned, who is next)."""

    seat: int
    move: str
    by: str  # "user" | "computer" | "autopilot"
    autoplayed: bool = False
    next_seat: int | None = None
    events: Events = dataclasses.field(default_factory=Events)


@declare(NoticeKind.AUTOPLAYED)
@dataclass(frozen=True, slots=True)
class Autoplayed(Body):
    """DM: a move was played for you (what, and your new hand)."""

    seat: int
    move: str
    events: Events = dataclasses.field(default_factory=Events)


@declare(NoticeKind.REMINDER)
@dataclass(frozen=True, slots=True)
class Reminder(Body):
    """DM (or, DMs closed, the thread naming ``user_id``): the game waits for you."""

    seat: int
    deadline_at: str | None
    final: bool
    action: str  # the game's timeout action
    phase: str
    waiting: tuple[int, ...] = ()  # every game waiting for this person
    overdue: bool = False
    next_at: str | None = None
    idle_days: float = 30.0
    user_id: int | None = None  # a thread reminder: whom it pings
    in_thread: bool = False

    def next_time(self) -> datetime | None:
        return datetime.fromisoformat(self.next_at) if self.next_at else None


@declare(NoticeKind.SEAT_CHANGED)
@dataclass(frozen=True, slots=True)
class SeatChanged(Body):
    """Thread: a person's seat is now a computer player."""

    seat: int
    reason: str  # "left" | "timeout" | "member_left" ...
    level: str | None = None


@declare(NoticeKind.GAME_OVER)
@dataclass(frozen=True, slots=True)
class GameOver(Body):
    """Thread: the score sheet. ``parts``: what features add to it (achievements and
    ratings, a tournament's round...), each stored under its key."""

    totals: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]
    decided_by: str | None = None
    events: Events = dataclasses.field(default_factory=Events)
    parts: tuple[Part, ...] = ()  # each stored under its key

    def part(self, cls: type[P]) -> P | None:
        """The part of one feature (None: it added none)."""
        return next((p for p in self.parts if isinstance(p, cls)), None)


@declare(NoticeKind.ENDED)
@dataclass(frozen=True, slots=True)
class Ended(Body):
    """Thread: the game ended early (cancelled, abandoned, idle, everyone left...)."""

    reason: str | None = None


@declare(NoticeKind.DM_FALLBACK)
@dataclass(frozen=True, slots=True)
class DmFallback(Body):
    """Thread: this person's DMs are closed; they play through ``/calico hand``."""

    user_id: int
    seat: int


@declare(NoticeKind.SETUP_FAILED)
@dataclass(frozen=True, slots=True)
class SetupFailed(Body):
    """DM to the host: the table could not be opened."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class Unreadable(Body):
    """A stored payload that no longer reads as its kind (never written by the bot)."""

    stored_kind: str
    problem: str


Unreadable.kind = "unreadable"


# --------------------------------------------------------------------------- encoding


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


_FIELDS: dict[type, tuple[str, ...]] = {}
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _members(body: Body | Part) -> Iterator[tuple[str, str]]:
    """(name, JSON text) of each member of a body's or part's payload."""
    for name in _fields(type(body)):
        value = getattr(body, name)
        if isinstance(value, Events):
            yield name, value.json
        elif name == "parts" and isinstance(body, GameOver):
            for part in value:
                yield part.key, encode(part)
        else:
            yield name, json.dumps(_plain(value), separators=_COMPACT)


def encode(body: Body | Part) -> str:
    """The stored JSON of a body's (or a part's) fields; a move's events are spliced in as
    written."""
    return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in _members(body)) + "}"


def _adapter(cls: type) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def decode(kind: str, text: str) -> Body:
    """The body of a stored notice (:class:`Unreadable` when it no longer reads)."""
    cls = _KINDS.get(kind)
    if cls is None:
        return Unreadable(kind, "no such kind")
    try:
        data = json.loads(text) if text else {}
        if not isinstance(data, dict):
            raise ValueError("not an object")
        if cls is GameOver:
            data["parts"] = tuple(_adapter(_PARTS[name]).validate_python(data.pop(name))
                                  for name in list(data) if name in _PARTS)
        known = set(_fields(cls))
        body: Body = _adapter(cls).validate_python({k: v for k, v in data.items()
                                                    if k in known})
        return body
    except (ValueError, ValidationError) as e:
        log.warning("a %s notice does not read: %s", kind, str(e)[:200])
        return Unreadable(kind, str(e)[:200])


# --------------------------------------------------------------------------- the outbox's rows


@dataclass(frozen=True)
class Notice:
    """One outbox row as the dispatcher hands it to a Delivery.

    ``user_id`` set: a DM to that user; None: a post to the game's thread (or, for a notice
    about no game, ``game_id`` 0, to ``channel_id``). ``key`` is unique, at most 25
    characters (fit for a Discord message nonce). ``ply`` is the game's ply once the change
    that caused the notice was committed (what buttons in the message must carry).
    ``guild_id``/``channel_id``/``thread_id`` are the game's at delivery time.
    """

    id: int
    game_id: int
    kind: str
    user_id: int | None
    ply: int
    payload: str  # the stored JSON (read it as :attr:`body`)
    key: str
    attempts: int
    created_at: datetime
    guild_id: int
    channel_id: int
    thread_id: int | None
    status: str = "pending"  # see storage.NoticeStatus (tools and tests read it)
    message_id: int | None = None  # the Discord message a delivery created
    # When it may first have reached Discord unrecorded (a failed attempt, or a process that
    # died while posting it); None: never tried, or recorded.
    sent_at: datetime | None = None
    # Set by the dispatcher when ``sent_at`` is set (and older than its nonce window, 0 by
    # default): the delivery first looks for the post in the channel from ``sent_at`` on.
    look_first: bool = False
    # The notices the dispatcher shows in one post with this one, this one first (a run of
    # computer moves: :mod:`bot.core.folding`); empty: this one alone.
    run: tuple[Notice, ...] = ()

    @functools.cached_property
    def body(self) -> Body:
        """The typed payload (decoded once, when first read: every kind is declared by then,
        a feature's with its package)."""
        return decode(self.kind, self.payload)

    @property
    def is_dm(self) -> bool:
        return self.user_id is not None
