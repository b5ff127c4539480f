"""The kernel: the plumbing every game change goes through, as a public API.

It owns the configuration, the clock, one ``asyncio.Lock`` per game, the cache of parsed games
(and of user rows), loading and committing with versions, the guards (``require_*``) and the
limits. It knows nothing of lobbies, turns or timers: the game flow (:mod:`bot.core.flow`) and
the services (lobby, turns, leaving, sweep, challenge, progress, replays, review) are built on
this API only, and :class:`bot.core.manager.Manager` (the facade the adapter calls) is a kernel
with one entry point per service call. The kernel imports no service; what must happen at a
game's end beyond the flow (achievements, ratings, the challenge's score) is the method
:meth:`Kernel.game_over`, which the facade overrides.

Concurrency: one lock per game serialises this process's changes to a game (a fast path, never
the only guard): every write carries an optimistic ``version`` check, so a write based on an old
read fails instead of overwriting. Hot games are cached in memory, parsed; when other processes
share the database (``store.shared``) a cached game may be behind, so it only ever serves reads:
a refusal (stale button, not your turn...) is checked against the stored game first, and a write
that finds the version moved is redone on the fresh game (:meth:`Kernel.mutate`). Other
processes' commits also drop cached games at once (the store's change notifications).
"""

from __future__ import annotations

import asyncio
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot.core import limits as game_limits
from bot.core.clock import Clock, SystemClock, from_ms, to_ms
from bot.core.computers import ComputerPool
from bot.core.game import LiveGame, Tx, evolve
from bot.core.models import AI_LEVELS, ErrorCode, GameInfo, GameStatus, ManagerError
from bot.core.outbox import process_owner
from bot.core.servers import ServerSettingsCache
from bot.core.storage import (
    GameWrite,
    NewGame,
    NoticeDraft,
    SeatRow,
    StaleWriteError,
    Store,
    TimerRow,
    UserRow,
)
from bot.core.storage.base import EntryRow
from bot.core.storage.codec import encode_config, encode_state, splice
from bot.core.thinking import TurnQueue
from bot.core.timers import turn_timer
from data import Catalog, load_catalog
from engine.ai import LEVELS
from engine.errors import EngineError
from engine.events import Event, GameOver
from engine.state import GameState

T = TypeVar("T")

SEED_BITS = 63
# Refusals worth checking against the stored game before answering them: a cached game that is
# behind another process's write would refuse a click that is valid now.
_RECHECK = frozenset({ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN, ErrorCode.LOBBY_ONLY,
                      ErrorCode.GAME_OVER, ErrorCode.GAME_FULL, ErrorCode.NOT_A_PLAYER,
                      ErrorCode.ALREADY_JOINED, ErrorCode.NOT_ALLOWED, ErrorCode.HOST_ONLY})
_DEFAULT_USER = UserRow(0, "", None, True, None, None)


class StaleError(Exception):
    """A write found the stored version moved: redo the change on the fresh game."""


@dataclass(frozen=True, slots=True)
class ManagerConfig:
    """The core's limits and timings (one per process; the bot reads them from its settings)."""

    idle_days: float = 30.0  # an active game (or lobby) with no move for this long ends
    max_reminders: int = 5  # stall cut-off for timeout_action "remind"
    reminder_gap: timedelta = timedelta(hours=1)  # at most one reminder DM per user per gap
    dm_retry_after: timedelta = timedelta(hours=24)  # closed DMs are tried again after this
    outbox_keep: timedelta = timedelta(days=14)  # notices that ended are deleted after this
    cache_size: int = 4096  # games kept parsed in memory
    # Of those, ended games: only the most recent few (their score sheet, replay and review
    # are drawn soon after the end; later ones load from storage). Kept without this bound,
    # every finished game stayed parsed until 4,096 of them: steady memory growth under play.
    ended_cache_size: int = 64
    sweep_batch: int = 200
    timer_lease: timedelta = timedelta(minutes=5)  # a claimed timer's lease
    # A computer's turn is played right after the move that leads to it; its timer comes due
    # this much later, so that another process (or this one after a restart) finishes a computer
    # turn that was started and not completed.
    computer_grace: timedelta = timedelta(seconds=30)
    timer_backoff: timedelta = timedelta(minutes=1)  # first retry of a failing timer
    timer_backoff_max: timedelta = timedelta(hours=6)
    # Per person (None: no limit): open lobbies hosted, and games in at once (bot.core.limits).
    max_lobbies: int | None = None
    max_active_games: int | None = None
    # New lobbies a person may open (cancelled ones included): this many at once, then one
    # more every 60/N minutes (None: no limit; bot.core.limits.LobbyAllowance).
    new_lobbies_per_hour: int | None = None


# What the facade registers for a game's end: it adds to the last move's change (achievements,
# ratings, the challenge's score) and returns what the score sheet says about them.
def iso_at(ms: int | None) -> str | None:
    """A stored time (ms) as ISO 8601, for notice payloads."""
    return None if ms is None else from_ms(ms).isoformat()


def span_ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)


class Kernel:
    """Config, clock, locks, cache, load and commit, guards and limits (module docstring)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        catalog: Catalog | None = None,
        config: ManagerConfig | None = None,
        seed_source: Callable[[], int] | None = None,
        computers: ComputerPool | None = None,
        owner: str | None = None,
    ) -> None:
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self.catalog = catalog or load_catalog()
        self.config = config or ManagerConfig()
        self.computers = computers
        # Games whose computer must think, waiting for a worker (bot.core.thinking); made by
        # the flow on first use (flow.turn_queue), stopped by stop_computers.
        self.computer_turns: TurnQueue | None = None
        self.owner = owner or process_owner()  # this process in claims and leases
        # The engine seed of each game; secret (it decides the bag), so from `secrets`.
        self.seed_source: Callable[[], int] = seed_source or (
            lambda: secrets.randbits(SEED_BITS))
        self._cache: OrderedDict[int, LiveGame] = OrderedDict()
        self._ended: OrderedDict[int, None] = OrderedDict()  # ended games in the cache
        self._users: OrderedDict[int, UserRow] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self._user_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        store.on_game_changed(self._changed_elsewhere)
        store.on_user_changed(self._forget_user)
        self.last_sweep_at: datetime | None = None
        self.timer_failures = 0  # failed firings since start (each poisoned timer backs off)
        self.moves_committed = 0
        self.servers = ServerSettingsCache(store, self.now_ms)  # /calico admin's choices
        self.new_lobbies = game_limits.LobbyAllowance(self.config.new_lobbies_per_hour,
                                                      clock=lambda: self.now_ms() / 1000)

    # ------------------------------------------------------------------ clock and locks

    async def game_over(self, tx: Tx, events: Sequence[Event],
                        over: GameOver) -> dict[str, Any]:
        """What a game's end adds to its last commit beyond the result (the facade adds
        achievements, ratings and the challenge's score); returns what the score sheet says
        about it. The flow calls it; a bare kernel adds nothing."""
        return {}

    def now(self) -> datetime:
        return self.clock.now()

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    def lock(self, game_id: int) -> asyncio.Lock:
        """This process's lock of one game (changes to it run one at a time)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def user_lock(self, user_id: int) -> asyncio.Lock:
        """This process's lock of one person's new games (the limits hold in a burst)."""
        lock = self._user_locks.get(user_id) or asyncio.Lock()
        self._user_locks[user_id] = lock
        return lock

    # ------------------------------------------------------------------ the computers' queue

    async def computers_idle(self, game_id: int | None = None) -> None:
        """Back once no computer turn is queued or being played (of ``game_id`` only, when
        given): a person's move is answered before the computer that follows has thought,
        so a test, the demo or a benchmark that wants the computer's reply waits here."""
        if self.computer_turns is not None:
            await self.computer_turns.settled(game_id)

    async def stop_computers(self) -> None:
        """Stop the computers' queue (at shutdown, before the pool and the store close): the
        turns still queued are left to their timers, which the next process's sweep plays;
        the ones this process's sweep had claimed are given back at once."""
        queue = self.computer_turns
        if queue is None:
            return
        for game_id in await queue.stop():
            for t in await self.store.timers(game_id):
                if t.kind == "turn":
                    await self.store.release_timer(t, self.owner)

    # ------------------------------------------------------------------ the cache

    def _forget_user(self, user_id: int) -> None:
        self._users.pop(user_id, None)

    def _changed_elsewhere(self, game_id: int, version: int) -> None:
        have = self._cache.get(game_id)
        if have is not None and have.version != version:
            del self._cache[game_id]

    def _remember(self, g: LiveGame) -> None:
        have = self._cache.get(g.id)
        if have is not None and have.version > g.version:
            return  # a load that raced a commit: keep the newer game
        self._keep(g)

    def _keep(self, g: LiveGame) -> None:
        """Cache ``g`` (the most recent games first to stay; ended ones only a few)."""
        self._cache[g.id] = g
        self._cache.move_to_end(g.id)
        if not g.status.active:
            self._ended[g.id] = None
            self._ended.move_to_end(g.id)
            while len(self._ended) > self.config.ended_cache_size:
                self._cache.pop(self._ended.popitem(last=False)[0], None)
        while len(self._cache) > self.config.cache_size:
            gone, _ = self._cache.popitem(last=False)
            self._ended.pop(gone, None)

    def forget(self, game_id: int) -> None:
        """Drop a game from the cache (the next read loads it)."""
        self._cache.pop(game_id, None)

    def cached(self, game_id: int) -> LiveGame | None:
        """The cached game, if any (no load)."""
        return self._cache.get(game_id)

    def cached_games(self) -> list[LiveGame]:
        """Every cached game, least recently used first."""
        return list(self._cache.values())

    # ------------------------------------------------------------------ load and commit

    async def load(self, game_id: int) -> LiveGame:
        """The game, from the cache when there (may be behind another process: reads only)."""
        g = self._cache.get(game_id)
        if g is not None:
            self._cache.move_to_end(game_id)
            return g
        return await self.reload(game_id)

    async def reload(self, game_id: int) -> LiveGame:
        """The stored game (the cache refreshed with it)."""
        if not 0 < game_id < 1 << 63:
            # A forged button can carry any number; the database's integers stop here.
            raise ManagerError(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        row = await self.store.load_game(game_id)
        if row is None:
            self._cache.pop(game_id, None)
            raise ManagerError(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        g = LiveGame.from_row(row)
        self._cache.pop(game_id, None)
        self._remember(g)
        return g

    async def get_game(self, game_id: int, *, fresh: bool = False) -> GameInfo:
        """A game; ``fresh``: read from the database, not the cache."""
        return (await (self.reload(game_id) if fresh else self.load(game_id))).info()

    async def mutate(self, game_id: int, change: Callable[[LiveGame], Awaitable[T]]) -> T:
        """Run ``change`` on the game under its lock. When the cached game may be behind another
        process's write, a refusal is checked against the stored game, and a write that found the
        version moved is redone on the fresh game (twice at most)."""
        async with self.lock(game_id):
            g = await self.load(game_id)
            for _ in range(3):
                try:
                    return await change(g)
                except StaleError:
                    pass
                except (ManagerError, EngineError) as e:
                    code = getattr(e, "code", "")
                    if not self.store.shared or (isinstance(e, ManagerError)
                                                 and code not in _RECHECK):
                        raise
                    version = await self.store.game_version(game_id)
                    if version is None or version == g.version:
                        raise
                g = await self.reload(game_id)
            raise ManagerError(ErrorCode.STALE, "the game changed meanwhile")

    async def checked_read(self, game_id: int, read: Callable[[LiveGame], T]) -> T:
        """A read-only check on the cached game; a refusal is confirmed on the stored one."""
        g = await self.load(game_id)
        try:
            return read(g)
        except (ManagerError, EngineError):
            if not self.store.shared:
                raise
            version = await self.store.game_version(game_id)
            if version is None or version == g.version:
                raise
        return read(await self.reload(game_id))

    async def begin(self, g: LiveGame) -> Tx:
        """A change of ``g`` (its people's user rows loaded, for the closed-DM check)."""
        for s in g.seats:
            if s.user_id is not None and s.ai_level is None:
                await self.user(s.user_id)
        return Tx(old=g, g=g, now=self.now_ms(), dm_closed=self.dm_closed)

    def _columns(self, tx: Tx) -> tuple[LiveGame, dict[str, Any]]:
        """The game row's columns that changed (the state encoded)."""
        old, g = tx.old, tx.g
        cols: dict[str, Any] = {}
        for name in ("thread_id", "lobby_message_id", "host_id", "first_user_id", "ply",
                     "deadline_at", "end_reason", "flags"):
            if getattr(g, name) != getattr(old, name):
                cols[name] = getattr(g, name)
        if g.status is not old.status:
            cols["status"] = g.status.value
        if g.options != old.options:  # in the lobby: who the host removed (options.barred)
            cols["options"] = g.options.model_dump_json()
        if g.engine_options is not old.engine_options and g.engine_options is not None:
            cols["engine_options"] = g.engine_options.model_dump_json()
        state = g.state
        if state is not old.state and state is not None:
            if g.config_json is None:
                g = evolve(g, {"config_json": encode_config(state)})
            cols["state"] = encode_state(state, g.config_json)
        return g, cols

    def _idle_timer(self, tx: Tx) -> list[TimerRow]:
        if tx.g.status.active and tx.activity:
            idle_ms = int(self.config.idle_days * 86_400_000)
            return [TimerRow(tx.g.id, "idle", -1, tx.now + idle_ms)]
        return []

    @staticmethod
    def _drafts(tx: Tx, key_prefix: str | None) -> list[NoticeDraft]:
        g = tx.g
        # A weekly challenge game has no thread (its deal stays private): DMs only.
        threadless = g.challenge_week is not None
        return [
            NoticeDraft(kind, user, g.ply, splice(payload, raw),
                        None if key_prefix is None else f"{key_prefix}.{i}")
            for i, (kind, user, payload, raw) in enumerate(tx.notices)
            if user is not None or not threadless
        ]

    async def commit(self, tx: Tx) -> LiveGame:
        """Store ``tx`` in one transaction; returns the new cached game. Raises
        :class:`StaleError` when the stored version moved meanwhile."""
        old = tx.old
        g, cols = self._columns(tx)
        version = old.version + 1
        write = GameWrite(
            game_id=g.id,
            expect_version=old.version,
            now=tx.now,
            columns=cols,
            seats=g.seats if g.seats != old.seats else None,
            move=tx.move,
            notices=self._drafts(tx, f"{g.id}.{version}"),
            clear_timers=not g.status.active,
            clear_turn_timers=tx.clear_turn_timers,
            delete_timers=tx.delete_timers,
            upsert_timers=[*tx.upsert_timers, *self._idle_timer(tx)] if g.status.active else [],
            results=tx.results,
            user_names=tx.user_names,
            user_updates=tx.user_updates,
            skip_pending=tx.skip_pending,
            achievements=tx.achievements,
            ratings=tx.ratings,
            challenge_score=tx.challenge_score,
        )
        try:
            await self.store.commit(write)
        except StaleWriteError:
            self._cache.pop(g.id, None)
            raise StaleError() from None
        except BaseException:
            # Cancelled while the database may still commit it, or a database error: either
            # way the cached game can no longer be trusted; the next call reloads it.
            self._cache.pop(g.id, None)
            raise
        if tx.move is not None:
            self.moves_committed += 1
        new = evolve(g, {"version": version, "updated_at": tx.now})
        self._keep(new)
        for user_id, name, locale in tx.user_names:
            self._remember_user(user_id, name, locale)
        for user_id, changes in tx.user_updates:
            self._users[user_id] = replace(await self.user(user_id), **changes)
        return new

    async def commit_new(self, tx: Tx, challenge_entry: EntryRow | None = None,
                         tournament_table: tuple[int, int, int] | None = None) -> LiveGame:
        """Store a game that does not exist yet (``tx.g.id`` is 0) with everything ``tx``
        prepared for it, in one transaction; returns it with its id. ``challenge_entry``: the
        person's attempt at the weekly challenge (DuplicateEntryError: they have one).
        ``tournament_table``: (tournament, round, table) the game is played at, linked in the
        same transaction (StaleWriteError, nothing stored: that table has its game)."""
        g, cols = self._columns(tx)
        cols.update(guild_id=g.guild_id, channel_id=g.channel_id, host_id=g.host_id,
                    options=g.options.model_dump_json(), status=g.status.value)
        if g.rematch_of is not None:
            cols["rematch_of"] = g.rematch_of
        if g.challenge_week is not None:
            cols["challenge_week"] = g.challenge_week
        game_id = await self.store.create_game(NewGame(
            columns=cols, seats=g.seats, now=tx.now, user_names=tx.user_names,
            notices=self._drafts(tx, None),
            timers=[*tx.upsert_timers, *self._idle_timer(tx)],
            challenge_entry=challenge_entry, tournament_table=tournament_table))
        new = evolve(g, {"id": game_id, "version": 0, "created_at": tx.now,
                         "updated_at": tx.now})
        self._remember(new)
        for user_id, name, locale in tx.user_names:
            self._remember_user(user_id, name, locale)
        return new

    # ------------------------------------------------------------------ users

    async def user(self, user_id: int) -> UserRow:
        """A person's stored row (cached; a default row for someone never stored)."""
        u = self._users.get(user_id)
        if u is None:
            u = await self.store.get_user(user_id) or replace(_DEFAULT_USER, user_id=user_id)
            self._users[user_id] = u
            while len(self._users) > self.config.cache_size * 4:
                self._users.popitem(last=False)
        return u

    def cached_user(self, user_id: int) -> UserRow | None:
        return self._users.get(user_id)

    def keep_user(self, user_id: int, row: UserRow) -> None:
        """Cache a user row just stored."""
        self._users[user_id] = row

    def _remember_user(self, user_id: int, name: str, locale: str | None) -> None:
        """Keep a cached user row in step with a name and locale just stored."""
        u = self._users.get(user_id)
        if u is not None:
            self._users[user_id] = replace(u, name=name, locale=locale or u.locale)

    def dm_closed(self, user_id: int) -> bool:
        """Whether this person's DMs are known to be closed (within ``dm_retry_after``)."""
        u = self._users.get(user_id)
        if u is None or u.dm_closed_at is None:
            return False
        return self.now_ms() - u.dm_closed_at < span_ms(self.config.dm_retry_after)

    # ------------------------------------------------------------------ guards and limits

    @staticmethod
    def require_lobby(g: LiveGame) -> None:
        if g.status is GameStatus.LOBBY:
            return
        if g.status.active:
            raise ManagerError(ErrorCode.LOBBY_ONLY, "the game has already started")
        raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")

    @staticmethod
    def require_host(g: LiveGame, user_id: int) -> None:
        if g.host_id != user_id:
            raise ManagerError(ErrorCode.HOST_ONLY, "only the host can do that")

    @staticmethod
    def require_started(g: LiveGame) -> GameState:
        if g.status is GameStatus.LOBBY:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "the game has not started yet")
        if not g.status.active or g.state is None:
            raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
        return g.state

    @staticmethod
    def require_person(g: LiveGame, user_id: int) -> SeatRow:
        seat = g.person(user_id)
        if seat is None:
            raise ManagerError(ErrorCode.NOT_A_PLAYER, "you are not playing in this game")
        return seat

    @classmethod
    def require_turn(cls, g: LiveGame, user_id: int, ply: int) -> tuple[GameState, int]:
        """The state and the seat of a person acting on their turn from a button made for
        ``ply``; in this order: not started / ended, not a player, stale, not their turn."""
        state = cls.require_started(g)
        seat = cls.require_person(g, user_id).seat
        if ply != g.ply:
            raise ManagerError(ErrorCode.STALE, "that button is out of date")
        if g.status is not GameStatus.PLAY or state.current_seat != seat:
            raise ManagerError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
        return state, seat

    @staticmethod
    def check_level(level: str) -> None:
        if level not in AI_LEVELS and level not in LEVELS:
            raise ManagerError(ErrorCode.NOT_ALLOWED, f"no computer level {level!r}")

    async def check_limits(self, user_id: int, *, hosting: bool) -> None:
        """Refuse (``LimitError``) a person who holds as many games, or hosts as many open
        lobbies, as the configuration allows, or (``hosting``) who has opened as many new
        lobbies lately as the hourly allowance lets them."""
        config = self.config
        if hosting:
            self.new_lobbies.check(user_id)
        if config.max_lobbies is None and config.max_active_games is None:
            return

        async def game_host(game_id: int) -> tuple[str, int]:
            g = await self.load(game_id)
            return g.status.value, g.host_id

        await game_limits.check_new_game(
            self.store, user_id,
            game_limits.GameLimits(config.max_lobbies, config.max_active_games),
            hosting=hosting, game_host=game_host)

    def turn_timer(self, game_id: int, seat: int, now: int, turn_hours: float,
                   computer: bool) -> TimerRow:
        """The clock of one seat's turn (a computer's comes due after ``computer_grace``)."""
        timer = turn_timer(game_id, seat, now, turn_hours, computer)
        if computer:
            due = now + span_ms(self.config.computer_grace)
            return replace(timer, due_at=due, deadline_at=due)
        return timer

