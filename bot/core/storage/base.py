"""The storage interface the manager, the outbox and the timers see, and the rows it speaks in.

Two backends implement :class:`Store`: SQLite (``bot.core.storage.sqlite``: the embedded
default, one process) and PostgreSQL (``bot.core.storage.postgres``: several processes on one
database). Callers never learn which one they have, except through :attr:`Store.shared`
(other processes may write too, so a cached game must be checked before a click is refused).

What crosses processes is kept in the database, never in process memory:

- a game's ``version`` is checked on every write (:class:`StaleWriteError` when it moved);
- outbox *lanes* (one game and one recipient: its thread, or one person's DMs) are claimed
  with a lease (:meth:`Store.claim_lanes`), so two dispatchers never serve one lane at once,
  and a lane whose claimer died is reclaimed when the lease runs out;
- due timers are claimed the same way (:meth:`Store.claim_timers`); a timer that keeps failing
  is pushed back (:meth:`Store.timer_failed`) so that it never starves the others.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from bot.core.models import Notice

ACTIVE_STATUSES = ("lobby", "draft", "play")

# Columns a GameWrite may set: names are interpolated into SQL, so only these are accepted.
GAME_COLUMNS = frozenset({
    "status", "thread_id", "lobby_message_id", "host_id", "first_user_id", "engine_options",
    "state", "ply", "deadline_at", "end_reason", "flags",
})
NEW_GAME_COLUMNS = GAME_COLUMNS | {"guild_id", "channel_id", "options", "rematch_of",
                                   "challenge_week"}
USER_COLUMNS = frozenset({"reminders", "dm_closed_at", "last_reminder_at", "describe"})
THREAD = 0  # the recipient of a lane that posts in the game's thread (user ids are never 0)


class StorageError(Exception):
    """The database cannot be used (corrupt, foreign, in use, or from a newer bot)."""


class StaleWriteError(StorageError):
    """The optimistic version check failed: the game changed since it was read."""


class DuplicateEntryError(StorageError):
    """This person already has an attempt at this week's challenge (nothing was written)."""


class NoticeStatus(StrEnum):
    """Where a notice ended up. Only ``done`` means Discord accepted it."""

    PENDING = "pending"
    DONE = "done"  # delivered (``message_id`` says which message, when there is one)
    SKIPPED = "skipped"  # no longer worth showing (superseded, or its game's channel is gone)
    FAILED = "failed"  # refused for good (DMs closed, no access): a follow-up handled it
    UNDELIVERABLE = "undeliverable"  # nowhere to go (the game has no thread): counted
    EXPIRED = "expired"  # transient failures until it stopped meaning anything


FINAL_STATUSES = frozenset(s for s in NoticeStatus if s is not NoticeStatus.PENDING)


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
class AchievementRow:
    user_id: int
    achievement: str
    game_id: int
    guild_id: int
    earned_at: int


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player's skill rating in one scope (a server id, 0: every server). ``player`` is
    ``u:<user id>`` or ``ai:<level>``; ``ordinal`` the conservative figure ranks use."""

    scope: int
    player: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    updated_at: int


RatingKey = tuple[int, str]  # (scope, player)


@dataclass(slots=True)
class RatingUpdate:
    """Ratings to change with a result, in the same transaction: the store reads ``keys``
    (locked against other processes), calls ``rate`` with what it found (None: unrated yet)
    and writes back what it returns."""

    keys: list[RatingKey]
    rate: Callable[[dict[RatingKey, RatingRow | None]], list[RatingRow]]


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    week: str
    seed: int
    options: str
    starts_at: int
    ends_at: int
    closed_at: int | None = None


@dataclass(frozen=True, slots=True)
class EntryRow:
    week: str
    user_id: int
    game_id: int
    guild_id: int
    score: int | None = None
    finished_at: int | None = None


@dataclass(frozen=True, slots=True)
class ReviewRow:
    game_id: int
    seat: int
    user_id: int | None
    accuracy: float
    data: str
    created_at: int


@dataclass(frozen=True, slots=True)
class Lane:
    """A claimed outbox lane: one game and one recipient (:data:`THREAD` or a user id)."""

    game_id: int
    recipient: int


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
    achievements: list[AchievementRow] = field(default_factory=list)  # kept if new
    ratings: RatingUpdate | None = None
    challenge_score: tuple[str, int, int] | None = None  # (week, user, score) at the end


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
    # The person's attempt at this week's challenge (DuplicateEntryError if they have one).
    challenge_entry: EntryRow | None = None


# --------------------------------------------------------------------------- the interface


GameChanged = Callable[[int, int], None]  # (game id, version) written by another process


class Store(abc.ABC):
    """Async access to the database. Each method is one transaction (or one read)."""

    backend: ClassVar[str]
    #: Other processes may write the same database: caches must be checked before refusing.
    shared: bool = False

    def __init__(self) -> None:
        # Set when notices were queued (by this process, or another one through the database),
        # so the dispatcher wakes at once instead of waiting for its next poll.
        self.notices_added = asyncio.Event()
        self._game_listeners: list[GameChanged] = []
        self._user_listeners: list[Callable[[int], None]] = []

    # -- change notifications (other processes' writes)
    def on_game_changed(self, callback: GameChanged) -> None:
        self._game_listeners.append(callback)

    def on_user_changed(self, callback: Callable[[int], None]) -> None:
        self._user_listeners.append(callback)

    def _game_changed(self, game_id: int, version: int) -> None:
        for cb in self._game_listeners:
            cb(game_id, version)

    def _user_changed(self, user_id: int) -> None:
        for cb in self._user_listeners:
            cb(user_id)

    @property
    @abc.abstractmethod
    def location(self) -> str:
        """Where the data lives, for logs (a path, or a URL without its password)."""

    @property
    @abc.abstractmethod
    def schema_version(self) -> int: ...

    @abc.abstractmethod
    async def close(self) -> None: ...

    # -- games
    @abc.abstractmethod
    async def create_game(self, new: NewGame) -> int: ...

    @abc.abstractmethod
    async def load_game(self, game_id: int) -> GameRow | None: ...

    @abc.abstractmethod
    async def game_version(self, game_id: int) -> int | None:
        """The stored version alone (a cheap freshness check)."""

    @abc.abstractmethod
    async def commit(self, write: GameWrite) -> int:
        """Apply ``write`` in one transaction (StaleWriteError if the version moved); returns
        the number of notices queued."""

    @abc.abstractmethod
    async def moves(self, game_id: int, before_ply: int | None = None) -> list[MoveRow]: ...

    @abc.abstractmethod
    async def results(self, game_id: int) -> list[ResultRow]: ...

    @abc.abstractmethod
    async def game_ids(self, *, user_id: int | None = None, thread_id: int | None = None,
                       channel_id: int | None = None, guild_id: int | None = None,
                       active_only: bool = False, limit: int | None = None) -> list[int]:
        """Games matching every filter given: ``user_id`` (seats a person plays, most recently
        changed first), ``thread_id`` (newest first), ``channel_id`` (its thread or channel),
        ``guild_id``; others by id."""

    @abc.abstractmethod
    async def rematches(self, game_id: int) -> list[int]:
        """The games opened as rematches of ``game_id``, oldest first."""

    @abc.abstractmethod
    async def waiting_games(self, user_id: int) -> list[int]:
        """Games waiting for this person to act (their turn or their goal draft)."""

    @abc.abstractmethod
    async def active_games(self) -> dict[str, int]:
        """How many games are in each active status (lobby, draft, play)."""

    @abc.abstractmethod
    async def count_games(self, user_id: int, statuses: Sequence[str]) -> int:
        """How many games in ``statuses`` this person hosts or plays."""

    # -- outbox
    @abc.abstractmethod
    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int) -> list[Lane]:
        """Up to ``limit`` lanes with work due, longest-waiting first, leased to ``owner`` until
        ``now + lease_ms``; a lane leased to someone else is taken only once its lease ran out."""

    @abc.abstractmethod
    async def lane_notices(self, lane: Lane, limit: int) -> list[Notice]:
        """The lane's pending notices in order (at most ``limit``)."""

    @abc.abstractmethod
    async def finish_notice(self, notice_id: int, status: NoticeStatus, now: int, *,
                            message_id: int | None = None, error: str | None = None) -> bool:
        """Record where a pending notice ended up (at once, one by one: a crash repeats at most
        the notice in flight). False if it was no longer pending."""

    @abc.abstractmethod
    async def retry_notice(self, notice_id: int, due: int, error: str) -> None:
        """One more failed attempt; the notice (and its lane) wait until ``due``."""

    @abc.abstractmethod
    async def release_lane(self, lane: Lane, owner: str, due: int) -> None:
        """Give a claimed lane back: due again at ``due`` if it still has pending notices."""

    @abc.abstractmethod
    async def notices(self, game_id: int | None = None) -> list[Notice]:
        """Every notice still stored (any status), oldest first: for tests and tools."""

    @abc.abstractmethod
    async def skip_pending_dms(self, user_id: int, now: int) -> list[int]:
        """Drop this user's undelivered DMs; returns the games they were about."""

    @abc.abstractmethod
    async def outbox_stats(self, now: int) -> OutboxStats: ...

    @abc.abstractmethod
    async def prune_outbox(self, before: int) -> int:
        """Delete notices that ended before ``before`` (and idle lanes of ended games)."""

    # -- timers
    @abc.abstractmethod
    async def claim_timers(self, owner: str, now: int, lease_ms: int,
                           limit: int) -> list[TimerRow]:
        """Up to ``limit`` due timers, oldest first, leased to ``owner``."""

    @abc.abstractmethod
    async def timers(self, game_id: int) -> list[TimerRow]: ...

    @abc.abstractmethod
    async def timer_failed(self, timer: TimerRow, owner: str, due: int, error: str) -> int:
        """A firing failed: count it, push the timer back to ``due`` and release it; returns
        the consecutive failure count."""

    @abc.abstractmethod
    async def release_timer(self, timer: TimerRow, owner: str) -> None:
        """Give back a claimed timer that was not rewritten (due again at once)."""

    # -- users, stats
    @abc.abstractmethod
    async def get_user(self, user_id: int) -> UserRow | None: ...

    @abc.abstractmethod
    async def set_user(self, user_id: int, **cols: Any) -> UserRow: ...

    @abc.abstractmethod
    async def totals(self, user_id: int, guild_id: int) -> TotalsRow | None: ...

    @abc.abstractmethod
    async def leaderboard(self, guild_id: int, limit: int, min_games: int = 1
                          ) -> list[TotalsRow]: ...

    @abc.abstractmethod
    async def achievements(self, user_id: int) -> list[AchievementRow]: ...

    @abc.abstractmethod
    async def swap_achievement(self, user_id: int, game_id: int, old: str, new: str,
                               now: int) -> bool:
        """Replace the achievement ``old`` that game ``game_id`` earned this person with
        ``new`` (a normal-game winner picking another row), in one transaction. False, and
        nothing changed, when ``old`` is no longer that game's or ``new`` is already held."""

    @abc.abstractmethod
    async def rating(self, scope: int, player: str) -> RatingRow | None: ...

    @abc.abstractmethod
    async def rating_board(self, scope: int, limit: int, min_games: int
                           ) -> list[tuple[RatingRow, str]]:
        """The best ``limit`` players of a scope with at least ``min_games`` rated games, by
        ordinal, each with their name (people's from the users table)."""

    @abc.abstractmethod
    async def rating_rank(self, scope: int, player: str, min_games: int
                          ) -> tuple[int | None, int]:
        """(rank, players ranked): the players of the scope with at least ``min_games`` rated
        games, and the place of ``player`` among them in :meth:`rating_board` order (None
        when they are not among them)."""

    # -- the weekly challenge
    @abc.abstractmethod
    async def ensure_challenge(self, row: ChallengeRow) -> ChallengeRow:
        """The week's challenge: ``row`` if none existed, else the stored one (so processes
        racing to create it agree on one deal)."""

    @abc.abstractmethod
    async def challenge(self, week: str) -> ChallengeRow | None: ...

    @abc.abstractmethod
    async def challenge_entry(self, week: str, user_id: int) -> EntryRow | None: ...

    @abc.abstractmethod
    async def challenge_board(self, week: str, guild_id: int | None, limit: int
                              ) -> list[tuple[EntryRow, str]]:
        """Finished attempts of the week, best score first (in one server, or everywhere)."""

    @abc.abstractmethod
    async def challenge_rank(self, week: str, guild_id: int | None, score: int
                             ) -> tuple[int, int]:
        """(rank of ``score``, finished attempts) in the week's board (one server, or
        everywhere): the rank is one more than the number of better scores."""

    @abc.abstractmethod
    async def challenge_guilds(self, week: str) -> dict[int, int]:
        """Finished attempts of the week by server."""

    @abc.abstractmethod
    async def challenges_to_close(self, now: int) -> list[ChallengeRow]: ...

    @abc.abstractmethod
    async def close_challenge(self, week: str, now: int, notices: Sequence[NoticeDraft]) -> bool:
        """Close the week once (False if it was closed already, by anyone) and queue its
        summaries in the same transaction."""

    # -- reviews
    @abc.abstractmethod
    async def review(self, game_id: int, seat: int) -> ReviewRow | None: ...

    @abc.abstractmethod
    async def save_review(self, row: ReviewRow) -> ReviewRow:
        """Keep a computed review (the first one stored wins; returns the stored one)."""

    @abc.abstractmethod
    async def review_accuracy(self, user_id: int,
                              without_flags: int = 0) -> tuple[int, float | None]:
        """(reviewed games, mean accuracy) of a person, leaving out the games whose flags
        have any of ``without_flags``."""

    # -- servers
    @abc.abstractmethod
    async def guild_settings(self, guild_id: int) -> str | None: ...

    @abc.abstractmethod
    async def set_guild_settings(self, guild_id: int, data: str, now: int) -> None: ...

    # -- small shared state (command sync fingerprints, cluster settings)
    @abc.abstractmethod
    async def get_state(self, key: str) -> str | None: ...

    @abc.abstractmethod
    async def set_state(self, key: str, value: str, now: int) -> None: ...

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Run a block in one process at a time across the deployment (yields True when this
        process holds it). One process on SQLite: always held."""
        yield True

    # -- maintenance
    @abc.abstractmethod
    async def ping(self) -> None:
        """Raise if the database does not answer."""

    @abc.abstractmethod
    async def integrity_check(self) -> list[str]:
        """Problems found by the database's full check (empty: healthy)."""

    async def after_prune(self) -> None:  # noqa: B027 - optional hook, nothing by default
        """Give freed space back (SQLite's incremental vacuum); nothing elsewhere."""

    # -- copying between backends (calico-bot migrate-db)
    @abc.abstractmethod
    async def table_columns(self, table: str) -> list[str]: ...

    @abc.abstractmethod
    async def export_rows(self, table: str, columns: Sequence[str],
                          batch: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        """The rows of ``table`` in primary key order, ``batch`` at a time."""
        yield []  # pragma: no cover - abstract

    @abc.abstractmethod
    async def import_rows(self, table: str, columns: Sequence[str],
                          rows: Sequence[tuple[Any, ...]]) -> None: ...

    @abc.abstractmethod
    async def count_rows(self, table: str) -> int: ...

    async def after_import(self) -> None:  # noqa: B027 - optional hook, nothing by default
        """Fix what a bulk copy leaves behind (sequences)."""


# The tables a copy moves, parents first (foreign keys hold at every step).
TABLES = ("games", "seats", "moves", "outbox", "lanes", "timers", "users", "results",
          "player_totals", "app_state", "achievements", "ratings", "challenges",
          "challenge_entries", "reviews", "guild_settings")
