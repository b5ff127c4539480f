"""The rows the storage speaks in, its errors, and the column lists it accepts.

Plain frozen values shared by every role of :mod:`bot.core.storage.base`, both backends and
their callers. Field names and order are part of the contract (positional construction from
result rows relies on them).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

ACTIVE_STATUSES = ("lobby", "draft", "play")

# Columns a GameWrite may set: names are interpolated into SQL, so only these are accepted.
GAME_COLUMNS = frozenset({
    "status", "thread_id", "lobby_message_id", "host_id", "first_user_id", "engine_options",
    "state", "ply", "deadline_at", "end_reason", "flags", "options",
})
NEW_GAME_COLUMNS = GAME_COLUMNS | {"guild_id", "channel_id", "options", "rematch_of",
                                   "challenge_week"}
USER_COLUMNS = frozenset({"reminders", "dm_closed_at", "last_reminder_at", "describe"})
THREAD = 0  # the recipient of a lane that posts in the game's thread (user ids are never 0)


class StorageError(Exception):
    """The database cannot be used (corrupt, foreign, in use, or from a newer bot)."""


class StaleWriteError(StorageError):
    """The optimistic version check failed: the game changed since it was read."""


class NoticeStatus(StrEnum):
    """Where a notice ended up. Only ``done`` means Discord accepted it."""

    PENDING = "pending"
    DONE = "done"  # delivered (``message_id`` says which message, when there is one)
    SKIPPED = "skipped"  # no longer worth showing (superseded, or its game's channel is gone)
    FAILED = "failed"  # refused for good (DMs closed, no access): a follow-up handled it
    UNDELIVERABLE = "undeliverable"  # nowhere to go (the game has no thread): counted
    EXPIRED = "expired"  # transient failures until it stopped meaning anything


FINAL_STATUSES = frozenset(s for s in NoticeStatus if s is not NoticeStatus.PENDING)


#: What a feature adds to a game's own transaction (the commit of a move, or the creation of a
#: game), so that it is stored with the game or not at all: given the game's id, a plan
#: (:data:`bot.core.storage.steps.Plan`) whose steps run after the core's. A step may raise
#: (:class:`StaleWriteError`, or a feature's own error) to undo the whole transaction.
GameStep = Callable[[int], Generator[Any, Any, Any]]


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int | None
    name: str
    ai_level: str | None = None
    left: bool = False
    fallback_sent: bool = False


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    status: str
    guild_id: int
    channel_id: int
    thread_id: int | None
    lobby_message_id: int | None
    host_id: int
    options: str
    first_user_id: int | None
    engine_options: str | None
    state: str | None
    version: int
    ply: int
    deadline_at: int | None
    end_reason: str | None
    created_at: int
    updated_at: int
    seats: tuple[SeatRow, ...]
    flags: int = 0
    rematch_of: int | None = None
    challenge_week: str | None = None


@dataclass(frozen=True, slots=True)
class MoveRow:
    game_id: int
    ply: int
    seat: int
    move: str
    played_by: str
    events: str
    created_at: int


@dataclass(frozen=True, slots=True)
class TimerRow:
    game_id: int
    kind: str  # "turn" | "idle"
    seat: int  # -1 for whole-game timers
    due_at: int
    deadline_at: int | None = None
    reminders: int = 0
    failures: int = 0  # consecutive failed firings (reset by any write of the timer)

    @property
    def key(self) -> tuple[int, str, int]:
        return (self.game_id, self.kind, self.seat)


@dataclass(frozen=True, slots=True)
class NoticeDraft:
    kind: str
    user_id: int | None
    ply: int
    payload: str
    key: str | None = None  # None: the store names it "<game>.<version>.<index>"
    channel_id: int | None = None  # a notice without a game: the channel it goes to
    express: bool = False  # its lane goes first (bot.core.notices.Body.express)

    @property
    def recipient(self) -> int:
        """The lane: a person's DMs, a channel (no game), or the game's thread (0)."""
        return self.user_id or self.channel_id or THREAD


@dataclass(frozen=True, slots=True)
class ResultRow:
    game_id: int
    seat: int
    user_id: int | None
    guild_id: int
    total: int
    place: int
    win: bool
    counted: bool
    breakdown: str
    finished_at: int


@dataclass(frozen=True, slots=True)
class UserRow:
    user_id: int
    name: str
    locale: str | None
    reminders: bool
    dm_closed_at: int | None
    last_reminder_at: int | None
    describe: bool = False  # "describe pictures in text"


@dataclass(frozen=True, slots=True)
class TotalsRow:
    """A person's finished games in one server (``guild_id`` 0: every server)."""

    guild_id: int
    user_id: int
    name: str
    games: int
    wins: int
    score_sum: int
    best: int

    @property
    def average(self) -> float:
        return self.score_sum / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class Lane:
    """A claimed outbox lane: one game and one recipient (:data:`THREAD` or a user id).

    ``since`` (ms, not part of the lane's identity): set when the claim found the lane's last
    serve never ended (its process died), and when that serve began; its first pending notice
    may then be in Discord already."""

    game_id: int
    recipient: int
    since: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class OutboxStats:
    pending: int
    oldest_pending_at: int | None  # created_at of the oldest pending notice (ms)
    by_status: dict[str, int]
    lanes_due: int  # lanes with work due now


@dataclass(slots=True)
class GameWrite:
    """One committed change of one game, applied as a single transaction: the game row with
    ``version = version + 1 WHERE version = old`` (the optimistic check), the seats, the move log
    entry, the outbox notices (and their lanes), the timers, results, totals and user rows."""

    game_id: int
    expect_version: int
    now: int
    columns: dict[str, Any] = field(default_factory=dict)
    seats: tuple[SeatRow, ...] | None = None  # replace all seats
    move: MoveRow | None = None
    notices: list[NoticeDraft] = field(default_factory=list)
    clear_timers: bool = False  # every timer of the game
    clear_turn_timers: bool = False
    delete_timers: list[tuple[str, int]] = field(default_factory=list)
    upsert_timers: list[TimerRow] = field(default_factory=list)
    results: list[ResultRow] = field(default_factory=list)
    user_names: list[tuple[int, str, str | None]] = field(default_factory=list)
    user_updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    skip_pending: bool = False  # drop the game's undelivered notices (its channel is gone)
    steps: list[GameStep] = field(default_factory=list)  # what features add (see GameStep)


@dataclass(slots=True)
class NewGame:
    """A game written in one transaction with everything it starts with. The store assigns
    the id: notices without a key and timers with ``game_id`` 0 are completed with it."""

    columns: dict[str, Any]  # guild_id, channel_id, host_id, options, status... (NEW_GAME_COLUMNS)
    seats: tuple[SeatRow, ...]
    now: int
    user_names: list[tuple[int, str, str | None]] = field(default_factory=list)
    notices: list[NoticeDraft] = field(default_factory=list)
    timers: list[TimerRow] = field(default_factory=list)
    steps: list[GameStep] = field(default_factory=list)  # what features add (see GameStep)


# The tables a copy moves, parents first (foreign keys hold at every step).
TABLES = ("games", "seats", "moves", "outbox", "lanes", "timers", "users", "results",
          "player_totals", "app_state", "achievements", "ratings", "challenges",
          "challenge_entries", "reviews", "guild_settings", "tournaments",
          "tournament_entrants", "tournament_tables", "site_hidden", "rating_history")
