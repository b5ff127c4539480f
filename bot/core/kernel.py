"""The kernel: the plumbing every game change goes through, as a public API.

It owns the configuration, the clock, one ``asyncio.Lock`` per game, the caches of parsed games
and of people's rows (:mod:`bot.core.cache`), loading and committing with versions (one
versioned-write loop, :meth:`Kernel.versioned`, for games and any feature's versioned row),
waiting for a game or a feature's topic to change (:meth:`Kernel.wait_until`), and the hooks
features register (:attr:`Kernel.hooks`, :mod:`bot.core.hooks`). It knows nothing of lobbies,
turns, timers or any feature: the game flow (:mod:`bot.core.flow`) and the services are built
on this API, and the composition root (:class:`bot.core.manager.Manager`) registers the
features. The adapter holds the kernel as a handle it passes to the services.

Concurrency: one lock per game serialises this process's changes to a game (a fast path, never
the only guard): every write carries an optimistic ``version`` check, so a write based on an old
read fails instead of overwriting. When other processes share the database (``store.shared``) a
cached game may be behind, so it only ever serves reads: a refusal (stale button, not your
turn...) is checked against the stored game first, and a write that finds the version moved is
redone on the fresh game (:meth:`Kernel.mutate`). Other processes' commits also drop cached
games at once (the store's change notifications).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import weakref
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from bot.core.cache import GameCache, UserCache
from bot.core.clock import Clock, SystemClock, span_ms, to_ms
from bot.core.computers import ComputerPool
from bot.core.config import ManagerConfig
from bot.core.game import LiveGame, Tx, evolve
from bot.core.hooks import Hooks
from bot.core.limits import LobbyAllowance
from bot.core.models import ErrorCode, GameInfo, ManagerError
from bot.core.notices import encode
from bot.core.outbox import process_owner
from bot.core.servers import ServerSettingsCache
from bot.core.storage import (
    GameWrite,
    NewGame,
    NoticeDraft,
    StaleWriteError,
    Store,
    TimerRow,
    UserRow,
)
from bot.core.storage.codec import encode_config, encode_state
from bot.core.thinking import TurnQueue
from bot.core.timers import turn_timer
from data import Catalog, load_catalog
from engine.errors import EngineError

T = TypeVar("T")
R = TypeVar("R")

SEED_BITS = 63
# Refusals worth checking against the stored game before answering them: a cached game that is
# behind another process's write would refuse a click that is valid now.
_RECHECK = frozenset({ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN, ErrorCode.LOBBY_ONLY,
                      ErrorCode.GAME_OVER, ErrorCode.GAME_FULL, ErrorCode.NOT_A_PLAYER,
                      ErrorCode.ALREADY_JOINED, ErrorCode.NOT_ALLOWED, ErrorCode.HOST_ONLY})
_DEFAULT_USER = UserRow(0, "", None, True, None, None)


class StaleError(Exception):
    """A write found the stored version moved: redo the change on the fresh game."""


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
        # Turns whose deadline passed, waiting in that queue for their autopilot move (game ->
        # (seat, ply)); the timer stays claimed meanwhile, so a process that dies leaves it
        # to be fired again (bot.core.sweep).
        self.overdue: dict[int, tuple[int, int]] = {}
        self.owner = owner or process_owner()  # this process in claims and leases
        # The engine seed of each game; secret (it decides the bag), so from `secrets`.
        self.seed_source: Callable[[], int] = seed_source or (
            lambda: secrets.randbits(SEED_BITS))
        self.games = GameCache(self.config.cache_size, self.config.ended_cache_size)
        self.users = UserCache(self.config.cache_size * 4)
        self._locks: weakref.WeakValueDictionary[Hashable, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self._user_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        store.on_game_changed(self.games.changed_elsewhere)
        store.on_changed(self.games.touch)  # a feature's topic, changed by another process
        store.on_user_changed(self.users.forget)
        self.last_sweep_at: datetime | None = None
        self.timer_failures = 0  # failed firings since start (each poisoned timer backs off)
        self.moves_committed = 0
        self.servers = ServerSettingsCache(store, self.now_ms)  # /calico admin's choices
        self.new_lobbies = LobbyAllowance(self.config.new_lobbies_per_hour,
                                                      clock=lambda: self.now_ms() / 1000)
        # What features add to a game's end and to the sweep (bot.core.hooks): registered by
        # the composition root (bot.core.manager), called by the flow and the sweep.
        self.hooks: Hooks[Kernel] = Hooks()

    # ------------------------------------------------------------------ clock and locks

    def now(self) -> datetime:
        return self.clock.now()

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    def lock(self, key: Hashable) -> asyncio.Lock:
        """This process's lock of one game (its id), or of a feature's versioned row (its
        topic, such as a tournament's): changes to it run one at a time."""
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
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

    def forget(self, game_id: int) -> None:
        """Drop a game from the cache (the next read loads it)."""
        self.games.forget(game_id)

    def cached(self, game_id: int) -> LiveGame | None:
        """The cached game, if any (no load)."""
        return self.games.peek(game_id)

    def cached_games(self) -> list[LiveGame]:
        """Every cached game, least recently used first."""
        return self.games.games()

    # ------------------------------------------------------------------ load and commit

    async def load(self, game_id: int) -> LiveGame:
        """The game, from the cache when there (may be behind another process: reads only)."""
        g = self.games.get(game_id)
        return g if g is not None else await self.reload(game_id)

    async def reload(self, game_id: int) -> LiveGame:
        """The stored game (the cache refreshed with it)."""
        if not 0 < game_id < 1 << 63:
            # A forged button can carry any number; the database's integers stop here.
            raise ManagerError(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        row = await self.store.load_game(game_id)
        if row is None:
            self.games.forget(game_id)
            raise ManagerError(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        g = LiveGame.from_row(row)
        self.games.forget(game_id)
        self.games.remember(g)
        return g

    async def current(self, game_id: int, version: int | None = None) -> LiveGame:
        """The game as stored now: the cached copy while the stored ``version`` (read here
        unless given; every write bumps it) is its own, else :meth:`reload`."""
        g = self.games.get(game_id)
        if g is not None and g.version == (version if version is not None
                                           else await self.store.game_version(game_id)):
            return g
        return await self.reload(game_id)

    async def get_game(self, game_id: int, *, fresh: bool = False) -> GameInfo:
        """A game; ``fresh``: as stored now (:meth:`current`), not as this process last saw it."""
        return (await (self.current(game_id) if fresh else self.load(game_id))).info()

    async def versioned(self, read: Callable[[], Awaitable[R]],
                        change: Callable[[R], Awaitable[T]], *, attempts: int = 5,
                        what: str = "it") -> T:
        """The one versioned-write loop (games, tournaments, any versioned row of a feature):
        ``read`` the row, run ``change`` on it, which writes it at the version read; when that
        write finds the version moved (:class:`StaleError`, :class:`StaleWriteError`: another
        process wrote first), read again and redo the change, ``attempts`` times at most."""
        for _ in range(attempts):
            row = await read()
            try:
                return await change(row)
            except (StaleError, StaleWriteError):
                continue
        raise ManagerError(ErrorCode.STALE, f"{what} changed meanwhile")

    async def wait_for(self, game_id: int, ready: Callable[[LiveGame], bool],
                       timeout: float) -> LiveGame:
        """The game once ``ready`` says so, or as it stands after ``timeout`` seconds (see
        :meth:`wait_until`: woken by the game's changes, never by polling)."""
        async def read(fresh: bool) -> LiveGame:
            return await (self.reload(game_id) if fresh else self.load(game_id))

        # A reload caches the game, which wakes this very wait: that is not a change.
        return await self.wait_until(game_id, read, ready, timeout,
                                     own=lambda g: self.games.peek(game_id) is g)

    async def wait_until(self, topic: Hashable, read: Callable[[bool], Awaitable[R]],
                         ready: Callable[[R], bool], timeout: float, *,
                         own: Callable[[R], bool] = lambda _: False,
                         recheck: float = 2.0) -> R:
        """``read()`` again each time ``topic`` changes (a game id, or a feature's topic such as
        ``"tournament:7"``), until ``ready`` says so or ``timeout`` seconds passed; returns
        the last value read. Woken by this process's commits and by other processes' change
        notifications (:class:`~bot.core.cache.GameCache`); read afresh (``read(True)``) at
        least every ``recheck`` seconds, so a notification that never came costs that long."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        with self.games.watch(topic) as changed:
            value = await read(self.store.shared)
            while not ready(value) and (left := end - loop.time()) > 0:
                if own(value):
                    changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), min(left, recheck))
                woken = changed.is_set()
                changed.clear()
                value = await read(not woken)
        return value

    def changed(self, topic: Hashable) -> None:
        """A feature's ``topic`` changed in this process (its storage notifies the others with
        ``notify("x:<topic>")``): wake whoever waits on it (:meth:`wait_until`)."""
        self.games.touch(topic)

    async def mutate(self, game_id: int, change: Callable[[LiveGame], Awaitable[T]]) -> T:
        """Run ``change`` on the game under its lock (:meth:`versioned`: the cached game first,
        the stored one after a write found the version moved). When the cached game may be
        behind another process's write, a refusal is checked against the stored game first."""
        reads = 0

        async def read() -> LiveGame:
            nonlocal reads
            reads += 1
            return await (self.load(game_id) if reads == 1 else self.reload(game_id))

        async def checked(g: LiveGame) -> T:
            try:
                return await change(g)
            except (ManagerError, EngineError) as e:
                if await self._behind(g, e):
                    raise StaleError() from e
                raise

        async with self.lock(game_id):
            return await self.versioned(read, checked, attempts=3, what="the game")

    async def _behind(self, g: LiveGame, refusal: ManagerError | EngineError) -> bool:
        """Whether a refusal may come from a cached game that another process moved on."""
        if not self.store.shared or (isinstance(refusal, ManagerError)
                                     and refusal.code not in _RECHECK):
            return False
        version = await self.store.game_version(g.id)
        return version is not None and version != g.version

    async def checked_read(self, game_id: int, read: Callable[[LiveGame], T]) -> T:
        """A read-only check on the cached game; a refusal is confirmed on the stored one."""
        g = await self.load(game_id)
        try:
            return read(g)
        except (ManagerError, EngineError) as e:
            if not await self._behind(g, e):
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
            NoticeDraft(body.kind, user, g.ply, encode(body),
                        None if key_prefix is None else f"{key_prefix}.{i}",
                        express=body.express)
            for i, (body, user) in enumerate(tx.notices)
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
            steps=tx.steps,
        )
        try:
            await self.store.commit(write)
        except StaleWriteError:
            self.games.forget(g.id)
            raise StaleError() from None
        except BaseException:
            # Cancelled while the database may still commit it, or a database error: either
            # way the cached game can no longer be trusted; the next call reloads it.
            self.games.forget(g.id)
            raise
        if tx.move is not None:
            self.moves_committed += 1
        new = evolve(g, {"version": version, "updated_at": tx.now})
        self.games.keep(new)
        for user_id, name, locale in tx.user_names:
            self.users.named(user_id, name, locale)
        for user_id, changes in tx.user_updates:
            self.users.keep(replace(await self.user(user_id), **changes))
        return new

    async def commit_new(self, tx: Tx) -> LiveGame:
        """Store a game that does not exist yet (``tx.g.id`` is 0) with everything ``tx``
        prepared for it, in one transaction (the steps of features too: a step that raises
        stores nothing); returns it with its id."""
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
            timers=[*tx.upsert_timers, *self._idle_timer(tx)], steps=tx.steps))
        new = evolve(g, {"id": game_id, "version": 0, "created_at": tx.now,
                         "updated_at": tx.now})
        self.games.remember(new)
        for user_id, name, locale in tx.user_names:
            self.users.named(user_id, name, locale)
        return new

    # ------------------------------------------------------------------ users

    async def user(self, user_id: int) -> UserRow:
        """A person's stored row (cached; a default row for someone never stored)."""
        u = self.users.get(user_id)
        if u is None:
            u = await self.store.get_user(user_id) or replace(_DEFAULT_USER, user_id=user_id)
            self.users.keep(u)
        return u

    def dm_closed(self, user_id: int) -> bool:
        """Whether this person's DMs are known to be closed (within ``dm_retry_after``)."""
        u = self.users.get(user_id)
        if u is None or u.dm_closed_at is None:
            return False
        return self.now_ms() - u.dm_closed_at < span_ms(self.config.dm_retry_after)

    # ------------------------------------------------------------------ timers

    def turn_timer(self, game_id: int, seat: int, now: int, turn_hours: float,
                   computer: bool) -> TimerRow:
        """The clock of one seat's turn (a computer's comes due after ``computer_grace``)."""
        timer = turn_timer(game_id, seat, now, turn_hours, computer)
        if computer:
            due = now + span_ms(self.config.computer_grace)
            return replace(timer, due_at=due, deadline_at=due)
        return timer

