"""The storage contract: one small protocol per role of the core, :class:`Database` (the
generic contract features build their own storage on), and :class:`Store`, all of them at once.

Each caller is typed against the roles it uses (the outbox dispatcher sees :class:`OutboxStore`
alone); :class:`Store` composes every role, and the backends implement it: SQLite
(``bot.core.storage.sqlite``: the embedded default, one process) and PostgreSQL
(``bot.core.storage.postgres``: several processes on one database), both running the SQL of
:mod:`bot.core.storage.sql` through :mod:`bot.core.storage.sqlstore`. Callers never learn which
backend they have, except through :attr:`GameStore.shared` (other processes may write too, so a
cached game must be checked before a click is refused).

What crosses processes is kept in the database, never in process memory:

- a game's ``version`` is checked on every write (:class:`StaleWriteError` when it moved);
- outbox *lanes* (one game and one recipient: its thread, or one person's DMs) are claimed
  with a lease (:meth:`OutboxStore.claim_lanes`), so two dispatchers never serve one lane at
  once, and a lane whose claimer died is reclaimed when the lease runs out;
- due timers are claimed the same way (:meth:`TimerStore.claim_timers`); a timer that keeps
  failing is pushed back (:meth:`TimerStore.timer_failed`) so that it never starves the others.

The rows, errors and column lists live in :mod:`bot.core.storage.rows` and are re-exported here.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from bot.core.notices import Notice
from bot.core.storage.rows import (
    ACTIVE_STATUSES,
    FINAL_STATUSES,
    GAME_COLUMNS,
    NEW_GAME_COLUMNS,
    TABLES,
    THREAD,
    USER_COLUMNS,
    GameRow,
    GameStep,
    GameWrite,
    Lane,
    MoveRow,
    NewGame,
    NoticeDraft,
    NoticeStatus,
    OutboxStats,
    ResultRow,
    SeatRow,
    StaleWriteError,
    StorageError,
    TimerRow,
    TotalsRow,
    UserRow,
)
from bot.core.storage.steps import Plan

__all__ = [
    "ACTIVE_STATUSES",
    "FINAL_STATUSES",
    "GAME_COLUMNS",
    "NEW_GAME_COLUMNS",
    "TABLES",
    "THREAD",
    "USER_COLUMNS",
    "Database",
    "GameChanged",
    "GameRow",
    "GameStep",
    "GameStore",
    "GameWrite",
    "Lane",
    "MaintenanceStore",
    "MoveRow",
    "NewGame",
    "NoticeDraft",
    "NoticeStatus",
    "OutboxStats",
    "OutboxStore",
    "PlayerStore",
    "ResultRow",
    "SeatRow",
    "ServerStore",
    "StaleWriteError",
    "StorageError",
    "Store",
    "TimerRow",
    "TimerStore",
    "TotalsRow",
    "UserRow",
]

T = TypeVar("T")
GameChanged = Callable[[int, int], None]  # (game id, version) written by another process


class Database(Protocol):
    """The small generic contract a feature's own statements run on (``bot/core/<feature>/
    store.py``): a plan in one transaction, one read, one write. Statements are written with
    ``?`` placeholders, as :mod:`bot.core.storage.sql`'s (the dialect spells them per backend);
    a feature that queues notices sets :attr:`notices_added` after its transaction."""

    #: Other processes may write the same database.
    shared: bool
    #: Set when notices were queued, so the outbox dispatcher wakes at once.
    notices_added: asyncio.Event

    @abc.abstractmethod
    def on_changed(self, callback: Callable[[str], None]) -> None:
        """Call ``callback`` with a feature's topic another process changed (a plan's
        ``notify("x:<topic>")``)."""

    @abc.abstractmethod
    async def transact(self, plan: Plan[T]) -> T:
        """Run ``plan`` in one transaction (a plan that raises
        :class:`~bot.core.storage.steps.Rollback` has its writes undone and returns its value)."""

    @abc.abstractmethod
    async def fetch(self, statement: str, args: tuple[Any, ...]) -> list[Any]:
        """One read (or one write returning rows, each indexable by position), outside any
        transaction."""

    @abc.abstractmethod
    async def execute(self, statement: str, args: tuple[Any, ...]) -> int:
        """One write, atomic by itself; returns the rows changed."""


class GameStore(Protocol):
    """Games and their moves and results: create, load, the version-checked commit, queries."""

    #: Other processes may write the same database: caches must be checked before refusing.
    shared: bool

    @abc.abstractmethod
    def on_game_changed(self, callback: GameChanged) -> None:
        """Call ``callback`` when another process commits a game."""

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


class OutboxStore(Protocol):
    """The notices waiting to be posted: lanes claimed with a lease, and what became of each."""

    #: Set when notices were queued (by this process, or another one through the database),
    #: so the dispatcher wakes at once instead of waiting for its next poll.
    notices_added: asyncio.Event

    @abc.abstractmethod
    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int,
                          express: bool = False) -> list[Lane]:
        """Up to ``limit`` lanes with work due, longest-waiting first, leased to ``owner`` until
        ``now + lease_ms``; a lane leased to someone else is taken only once its lease ran out.
        A lane whose last serve never gave it back (its process died) comes with ``since``.
        ``express``: only lanes queued with an express notice (a new game's thread)."""

    @abc.abstractmethod
    async def lane_notices(self, lane: Lane, limit: int) -> list[Notice]:
        """The lane's pending notices in order (at most ``limit``)."""

    @abc.abstractmethod
    async def finish_notice(self, notice_id: int, status: NoticeStatus, now: int, *,
                            message_id: int | None = None, error: str | None = None) -> bool:
        """Record where a pending notice ended up (at once, one by one: a crash repeats at most
        the notice in flight). False if it was no longer pending."""

    @abc.abstractmethod
    async def finish_notices(self, notice_ids: Sequence[int], status: NoticeStatus, now: int, *,
                             message_id: int | None = None, error: str | None = None) -> int:
        """:meth:`finish_notice` for several notices shown in one post (a run: issue 29), in
        one transaction; how many were still pending."""

    @abc.abstractmethod
    async def retry_notice(self, notice_id: int, due: int, error: str, *,
                           sent_at: int | None = None) -> None:
        """One more failed attempt; the notice (and its lane) wait until ``due``. ``sent_at``:
        when that attempt began (kept if an earlier one is: it may have reached Discord)."""

    @abc.abstractmethod
    async def mark_sent(self, notice_id: int, at: int) -> None:
        """The notice may be in Discord since ``at`` without being recorded (kept if earlier)."""

    @abc.abstractmethod
    async def renew_lane(self, lane: Lane, owner: str, now: int, lease_ms: int) -> bool:
        """Extend ``owner``'s lease on a lane it is serving to ``now + lease_ms`` (a live
        process slow over a post keeps its lane). False if ``owner`` no longer holds it."""

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


class TimerStore(Protocol):
    """Due timers (turn clocks, idle games), claimed with a lease like outbox lanes."""

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


class PlayerStore(Protocol):
    """People: their settings, and their results' totals and leaderboards."""

    @abc.abstractmethod
    def on_user_changed(self, callback: Callable[[int], None]) -> None:
        """Call ``callback`` when another process changes a user row."""

    @abc.abstractmethod
    async def get_user(self, user_id: int) -> UserRow | None: ...

    @abc.abstractmethod
    async def set_user(self, user_id: int, **cols: Any) -> UserRow: ...

    @abc.abstractmethod
    async def totals(self, user_id: int, guild_id: int) -> TotalsRow | None: ...

    @abc.abstractmethod
    async def leaderboard(self, guild_id: int, limit: int, min_games: int = 1
                          ) -> list[TotalsRow]:
        """The most wins (then the best average) in one server (0: every server), leaving out
        the games of weekly challenges whose week is still open (issue #20)."""

    @abc.abstractmethod
    async def best_without(self, user_id: int, guild_id: int, game_id: int) -> int | None:
        """A person's best counted score in one server (0: every server), leaving out one
        game (None if no other game counts)."""

class ServerStore(Protocol):
    """Server settings, small shared state (command sync fingerprints, cluster settings) and
    the deployment-wide exclusive locks."""

    @abc.abstractmethod
    async def guild_settings(self, guild_id: int) -> str | None: ...

    @abc.abstractmethod
    async def set_guild_settings(self, guild_id: int, data: str, now: int) -> None: ...

    @abc.abstractmethod
    async def get_state(self, key: str) -> str | None: ...

    @abc.abstractmethod
    async def set_state(self, key: str, value: str, now: int) -> None: ...

    @abc.abstractmethod
    def exclusive(self, name: str) -> contextlib.AbstractAsyncContextManager[bool]:
        """Run a block in one process at a time across the deployment (yields True when this
        process holds it). One process on SQLite: always held."""


class MaintenanceStore(Protocol):
    """Health, clean-up hooks and bulk copying between backends (``calico-bot migrate-db``)."""

    backend: ClassVar[str]

    @property
    @abc.abstractmethod
    def location(self) -> str:
        """Where the data lives, for logs (a path, or a URL without its password)."""

    @property
    @abc.abstractmethod
    def schema_version(self) -> int: ...

    @abc.abstractmethod
    async def close(self) -> None: ...

    @abc.abstractmethod
    async def ping(self) -> None:
        """Raise if the database does not answer."""

    @abc.abstractmethod
    async def integrity_check(self) -> list[str]:
        """Problems found by the database's full check (empty: healthy)."""

    @abc.abstractmethod
    async def after_prune(self) -> None:
        """Give freed space back (SQLite's incremental vacuum); nothing elsewhere."""

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

    @abc.abstractmethod
    async def after_import(self) -> None:
        """Fix what a bulk copy leaves behind (sequences)."""


class Store(Database, GameStore, OutboxStore, TimerStore, PlayerStore, ServerStore,
            MaintenanceStore, abc.ABC):
    """Every role of the core at once, and the :class:`Database` the features' own storage
    runs on: what a backend implements. Each method is one transaction (or one read)."""

    backend: ClassVar[str]
    shared: bool = False

    def __init__(self) -> None:
        self.notices_added = asyncio.Event()
        self._game_listeners: list[GameChanged] = []
        self._user_listeners: list[Callable[[int], None]] = []
        self._topic_listeners: list[Callable[[str], None]] = []

    # -- change notifications (other processes' writes)
    def on_game_changed(self, callback: GameChanged) -> None:
        self._game_listeners.append(callback)

    def on_user_changed(self, callback: Callable[[int], None]) -> None:
        self._user_listeners.append(callback)

    def on_changed(self, callback: Callable[[str], None]) -> None:
        """Call ``callback`` with a feature's topic another process changed (a plan's
        ``notify("x:<topic>")``)."""
        self._topic_listeners.append(callback)

    def _game_changed(self, game_id: int, version: int) -> None:
        for cb in self._game_listeners:
            cb(game_id, version)

    def _user_changed(self, user_id: int) -> None:
        for cb in self._user_listeners:
            cb(user_id)

    def _topic_changed(self, topic: str) -> None:
        for cb in self._topic_listeners:
            cb(topic)

    # -- defaults for what one process on one file does not need
    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Run a block in one process at a time across the deployment (yields True when this
        process holds it). One process on SQLite: always held."""
        yield True

    async def after_prune(self) -> None:
        """Give freed space back (SQLite's incremental vacuum); nothing elsewhere."""

    async def after_import(self) -> None:
        """Fix what a bulk copy leaves behind (sequences)."""
