"""The game manager: owns every game from lobby to final score (``docs/manager-api.md``).

It imports nothing from discord. Callers (the Discord layer, the offline demo, tests, the load
generator) call its async methods; it checks who may do what, runs the engine, stores each
change in one transaction through a :class:`~bot.core.storage.Store` (SQLite or PostgreSQL, it
does not know which), and queues what the Discord layer should say as outbox notices in that
same transaction (delivered by :mod:`bot.core.outbox`).

Concurrency: one ``asyncio.Lock`` per game serialises this process's changes to a game (a fast
path, never the only guard): every write carries an optimistic ``version`` check, so a write
based on an old read fails instead of overwriting. Hot games are cached in memory, parsed; when
other processes share the database (``store.shared``) a cached game may be behind, so it only
ever serves reads: a refusal (stale button, not your turn...) is checked against the stored game
first, and a write that finds the version moved is redone on the fresh game. Other processes'
commits also drop cached games at once (the store's change notifications).

Time: the injected :class:`~bot.core.clock.Clock` stamps every change; turn clocks and idle
limits are rows in the ``timers`` table, claimed with a lease and acted on by
:meth:`Manager.sweep` (policy in :mod:`bot.core.timers`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from bot.core import challenge, progress
from bot.core import limits as game_limits
from bot.core.clock import Clock, SystemClock, from_ms, to_ms
from bot.core.computers import ComputerPool, ComputersBusyError
from bot.core.game import FLAG_HINTS, LiveGame, Tx, evolve, renumbered
from bot.core.models import (
    AI_LEVELS,
    ErrorCode,
    FirstPlayer,
    GameInfo,
    GameStatus,
    LeaderboardEntry,
    LobbyOptions,
    ManagerError,
    MoveResult,
    NoticeKind,
    SeatInfo,
    SweepReport,
    UserRef,
    UserSettings,
    UserStats,
)
from bot.core.outbox import Delivery, Dispatcher, process_owner
from bot.core.review import HintGrant, hints_allowed
from bot.core.servers import ServerSettings, ServerSettingsCache
from bot.core.storage import (
    GameWrite,
    MoveRow,
    NewGame,
    NoticeDraft,
    ResultRow,
    SeatRow,
    StaleWriteError,
    Store,
    TimerRow,
    UserRow,
    open_store,
)
from bot.core.storage.base import EntryRow
from bot.core.storage.codec import dumps, encode_config, encode_state, event_dict, splice
from bot.core.timers import Step, decide, turn_timer
from data import Catalog, load_catalog
from engine.ai import LEVELS, Player, make_player
from engine.errors import BadGoalsError, EngineError, NoSuchCellError
from engine.events import Event, GameOver, ScenarioResult
from engine.hexgrid import parse_cell
from engine.moves import ChooseGoals, Move, parse_move
from engine.rules import apply, legal_moves
from engine.rules import preview as engine_preview
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view

log = logging.getLogger("calico.manager")

T = TypeVar("T")

_END_KINDS = frozenset({"goal_scored", "scenario_result", "game_over"})
_SEED_BITS = 63
# Refusals worth checking against the stored game before answering them: a cached game that is
# behind another process's write would refuse a click that is valid now.
_RECHECK = frozenset({ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN, ErrorCode.LOBBY_ONLY,
                      ErrorCode.GAME_OVER, ErrorCode.GAME_FULL, ErrorCode.NOT_A_PLAYER,
                      ErrorCode.ALREADY_JOINED, ErrorCode.NOT_ALLOWED, ErrorCode.HOST_ONLY})


class _StaleError(Exception):
    """A write found the stored version moved: redo the change on the fresh game."""


@dataclass(frozen=True, slots=True)
class ManagerConfig:
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


_DEFAULT_USER = UserRow(0, "", None, True, None, None)


def _iso(ms: int | None) -> str | None:
    return None if ms is None else from_ms(ms).isoformat()


def _ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)


class Manager:
    """See the module docstring and ``docs/manager-api.md``."""

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
        self.owner = owner or process_owner()  # this process in claims and leases
        # The engine seed of each game; secret (it decides the bag), so from `secrets`.
        self._seed_source = seed_source or (lambda: secrets.randbits(_SEED_BITS))
        self._cache: OrderedDict[int, LiveGame] = OrderedDict()
        self._ended: OrderedDict[int, None] = OrderedDict()  # ended games in the cache
        self._users: OrderedDict[int, UserRow] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        store.on_game_changed(self._changed_elsewhere)
        store.on_user_changed(self._forget_user)
        self.last_sweep_at: datetime | None = None
        self.timer_failures = 0  # failed firings since start (each poisoned timer backs off)
        self.moves_committed = 0
        self.servers = ServerSettingsCache(store, self._now)  # /calico admin's choices
        self._user_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    @classmethod
    async def open(cls, location: str | Path, **kwargs: Any) -> Manager:
        """Open (creating or migrating) the database at ``location`` (a SQLite path or a
        PostgreSQL URL) and a manager on it."""
        exclusive = kwargs.pop("exclusive", True)
        return cls(await open_store(location, exclusive=exclusive), **kwargs)

    async def close(self) -> None:
        await self.store.close()

    def dispatcher(self, delivery: Delivery, **kwargs: Any) -> Dispatcher:
        """A dispatcher on this manager's store and clock, with the DM fallback wired in."""
        kwargs.setdefault("owner", self.owner)
        return Dispatcher(self.store, delivery, self.clock, on_dm_failed=self.dm_failed, **kwargs)

    # ------------------------------------------------------------------ plumbing

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def _now(self) -> int:
        return to_ms(self.clock.now())

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

    async def _load(self, game_id: int) -> LiveGame:
        g = self._cache.get(game_id)
        if g is not None:
            self._cache.move_to_end(game_id)
            return g
        return await self._reload(game_id)

    async def _reload(self, game_id: int) -> LiveGame:
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

    async def _mutate(self, game_id: int, change: Callable[[LiveGame], Awaitable[T]]) -> T:
        """Run ``change`` on the game under its lock. When the cached game may be behind another
        process's write, a refusal is checked against the stored game, and a write that found the
        version moved is redone on the fresh game (twice at most)."""
        async with self._lock(game_id):
            g = await self._load(game_id)
            for _ in range(3):
                try:
                    return await change(g)
                except _StaleError:
                    pass
                except (ManagerError, EngineError) as e:
                    code = getattr(e, "code", "")
                    if not self.store.shared or (isinstance(e, ManagerError)
                                                 and code not in _RECHECK):
                        raise
                    version = await self.store.game_version(game_id)
                    if version is None or version == g.version:
                        raise
                g = await self._reload(game_id)
            raise ManagerError(ErrorCode.STALE, "the game changed meanwhile")

    async def _checked_read(self, game_id: int, read: Callable[[LiveGame], T]) -> T:
        """A read-only check on the cached game; a refusal is confirmed on the stored one."""
        g = await self._load(game_id)
        try:
            return read(g)
        except (ManagerError, EngineError):
            if not self.store.shared:
                raise
            version = await self.store.game_version(game_id)
            if version is None or version == g.version:
                raise
        return read(await self._reload(game_id))

    async def _user(self, user_id: int) -> UserRow:
        u = self._users.get(user_id)
        if u is None:
            u = await self.store.get_user(user_id) or replace(_DEFAULT_USER, user_id=user_id)
            self._users[user_id] = u
            while len(self._users) > self.config.cache_size * 4:
                self._users.popitem(last=False)
        return u

    def _remember_user(self, user_id: int, name: str, locale: str | None) -> None:
        """Keep a cached user row in step with a name and locale just stored."""
        u = self._users.get(user_id)
        if u is not None:
            self._users[user_id] = replace(u, name=name, locale=locale or u.locale)

    def _dm_closed(self, user_id: int) -> bool:
        u = self._users.get(user_id)
        if u is None or u.dm_closed_at is None:
            return False
        return self._now() - u.dm_closed_at < _ms(self.config.dm_retry_after)

    async def _begin(self, g: LiveGame) -> Tx:
        for s in g.seats:
            if s.user_id is not None and s.ai_level is None:
                await self._user(s.user_id)
        return Tx(old=g, g=g, now=self._now(), dm_closed=self._dm_closed)

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

    async def _commit(self, tx: Tx) -> LiveGame:
        """Store ``tx`` in one transaction; returns the new cached game."""
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
            raise _StaleError() from None
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
            self._users[user_id] = replace(await self._user(user_id), **changes)
        return new

    async def _commit_new(self, tx: Tx, challenge_entry: EntryRow | None = None) -> LiveGame:
        """Store a game that does not exist yet (``tx.g.id`` is 0) with everything ``tx``
        prepared for it, in one transaction; returns it with its id. ``challenge_entry``: the
        person's attempt at the weekly challenge (DuplicateEntryError: they have one)."""
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
            challenge_entry=challenge_entry))
        new = evolve(g, {"id": game_id, "version": 0, "created_at": tx.now,
                         "updated_at": tx.now})
        self._remember(new)
        for user_id, name, locale in tx.user_names:
            self._remember_user(user_id, name, locale)
        return new

    def _info(self, g: LiveGame) -> GameInfo:
        return GameInfo(
            id=g.id, status=g.status, guild_id=g.guild_id, channel_id=g.channel_id,
            thread_id=g.thread_id, lobby_message_id=g.lobby_message_id, host_id=g.host_id,
            options=g.options,
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name, s.ai_level, s.left) for s in g.seats),
            ply=g.ply, state=g.state,
            deadline_at=None if g.deadline_at is None else from_ms(g.deadline_at),
            created_at=from_ms(g.created_at), updated_at=from_ms(g.updated_at),
            version=g.version, end_reason=g.end_reason, first_user_id=g.first_user_id,
            hints_used=bool(g.flags & FLAG_HINTS), rematch_of=g.rematch_of,
            challenge_week=g.challenge_week,
            hints_allowed=hints_allowed(g),
        )

    @staticmethod
    def _require_lobby(g: LiveGame) -> None:
        if g.status is GameStatus.LOBBY:
            return
        if g.status.active:
            raise ManagerError(ErrorCode.LOBBY_ONLY, "the game has already started")
        raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")

    @staticmethod
    def _require_host(g: LiveGame, user_id: int) -> None:
        if g.host_id != user_id:
            raise ManagerError(ErrorCode.HOST_ONLY, "only the host can do that")

    @staticmethod
    def _require_started(g: LiveGame) -> GameState:
        if g.status is GameStatus.LOBBY:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "the game has not started yet")
        if not g.status.active or g.state is None:
            raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
        return g.state

    @staticmethod
    def _require_person(g: LiveGame, user_id: int) -> SeatRow:
        seat = g.person(user_id)
        if seat is None:
            raise ManagerError(ErrorCode.NOT_A_PLAYER, "you are not playing in this game")
        return seat

    @classmethod
    def _require_turn(cls, g: LiveGame, user_id: int, ply: int) -> tuple[GameState, int]:
        """The state and the seat of a person acting on their turn from a button made for
        ``ply``; in this order: not started / ended, not a player, stale, not their turn."""
        state = cls._require_started(g)
        seat = cls._require_person(g, user_id).seat
        if ply != g.ply:
            raise ManagerError(ErrorCode.STALE, "that button is out of date")
        if g.status is not GameStatus.PLAY or state.current_seat != seat:
            raise ManagerError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
        return state, seat

    # ------------------------------------------------------------------ lobby

    async def check_limits(self, user_id: int, *, hosting: bool) -> None:
        """Refuse (``LimitError``) a person who holds as many games, or hosts as many open
        lobbies, as the configuration allows."""
        config = self.config
        if config.max_lobbies is None and config.max_active_games is None:
            return

        async def game_host(game_id: int) -> tuple[str, int]:
            g = await self._load(game_id)
            return g.status.value, g.host_id

        await game_limits.check_new_game(
            self.store, user_id,
            game_limits.GameLimits(config.max_lobbies, config.max_active_games),
            hosting=hosting, game_host=game_host)

    async def server_settings(self, guild_id: int | None) -> ServerSettings:
        """A server's ``/calico admin`` choices (cached for a few seconds)."""
        return await self.servers.get(guild_id)

    async def set_server_settings(self, guild_id: int, changes: dict[str, Any],
                                  reset: tuple[str, ...] = ()) -> ServerSettings:
        """Change a server's settings (field names of :class:`ServerSettings`; ``reset``: the
        options to put back to their defaults) and return them as stored."""
        return await self.servers.update(guild_id, changes, reset)

    def _check_level(self, level: str) -> None:
        if level not in AI_LEVELS and level not in LEVELS:
            raise ManagerError(ErrorCode.NOT_ALLOWED, f"no computer level {level!r}")

    async def create_game(self, host: UserRef, guild_id: int, channel_id: int,
                          options: LobbyOptions | None = None, *,
                          computers: Sequence[str] = (), open_thread: bool = False,
                          start: bool = False, rematch_of: int | None = None) -> GameInfo:
        """A new lobby with the host in seat 0 (and ``computers``, levels, after it), written in
        one transaction with everything it starts with.

        ``open_thread``: the outbox creates (or, after a crash, adopts) the game's thread and
        posts the lobby message there (``open_thread`` then ``lobby`` notices, first in the
        thread's lane); otherwise the caller posts and calls :meth:`attach_thread`.
        ``start``: deal at once (a solo game): there is no moment where a crash could leave the
        game in its lobby. ``rematch_of``: the finished game this lobby replays.
        """
        options = options or LobbyOptions()
        for level in computers:
            self._check_level(level)
        if 1 + len(computers) > options.players:
            raise ManagerError(ErrorCode.GAME_FULL, "more seats than players")
        lock = self._user_locks.get(host.id) or asyncio.Lock()
        self._user_locks[host.id] = lock
        async with lock:  # one new game at a time per person: the limits hold in a burst
            await self.check_limits(host.id, hosting=not start)
            return await self._create_game(host, guild_id, channel_id, options, computers,
                                           open_thread, start, rematch_of)

    async def _create_game(self, host: UserRef, guild_id: int, channel_id: int,
                           options: LobbyOptions, computers: Sequence[str], open_thread: bool,
                           start: bool, rematch_of: int | None) -> GameInfo:
        now = self._now()
        seats = (SeatRow(0, host.id, host.name),
                 *(SeatRow(i + 1, None, f"Computer ({lv})", lv) for i, lv in enumerate(computers)))
        g = LiveGame(id=0, status=GameStatus.LOBBY, guild_id=guild_id, channel_id=channel_id,
                     thread_id=None, lobby_message_id=None, host_id=host.id, options=options,
                     first_user_id=None, engine_options=None, state=None, config_json=None,
                     version=0, ply=0, deadline_at=None, end_reason=None, created_at=now,
                     updated_at=now, seats=seats, rematch_of=rematch_of)
        tx = Tx(old=g, g=g, now=now, dm_closed=self._dm_closed)
        tx.activity = True
        tx.user_names.append((host.id, host.name, host.locale))
        await self._user(host.id)
        if open_thread:
            tx.thread(NoticeKind.OPEN_THREAD)
            if not start:
                tx.thread(NoticeKind.LOBBY)
        if start:
            self._deal(tx)
        new = await self._commit_new(tx)
        if start:
            new = await self._run_computers(new)
        return self._info(new)

    async def attach_thread(self, game_id: int, thread_id: int | None,
                            lobby_message_id: int | None = None) -> GameInfo:
        """Record the game's thread (and its lobby message). Repeating it is harmless."""
        async def change(g: LiveGame) -> GameInfo:
            lobby = lobby_message_id if lobby_message_id is not None else g.lobby_message_id
            if g.thread_id == thread_id and g.lobby_message_id == lobby:
                return self._info(g)
            tx = await self._begin(g)
            tx.set(thread_id=thread_id, lobby_message_id=lobby)
            return self._info(await self._commit(tx))

        return await self._mutate(game_id, change)

    async def setup_failed(self, game_id: int, reason: str) -> GameInfo:
        """The game's thread could not be opened (no permission, the channel is gone): the
        game is cancelled and its host told by DM."""
        async def change(g: LiveGame) -> GameInfo:
            if not g.status.active:
                return self._info(g)
            tx = await self._begin(g)
            tx.set(status=GameStatus.CANCELLED, end_reason="no_thread", deadline_at=None)
            tx.skip_pending = True  # nothing queued for the thread can go anywhere
            tx.dm_user(g.host_id, NoticeKind.SETUP_FAILED, reason=reason)
            return self._info(await self._commit(tx))

        return await self._mutate(game_id, change)

    async def join(self, game_id: int, user: UserRef) -> GameInfo:
        async def change(g: LiveGame) -> GameInfo:
            self._require_lobby(g)
            if g.person(user.id) is not None:
                raise ManagerError(ErrorCode.ALREADY_JOINED, "you are already in this game")
            if len(g.seats) >= g.options.players:
                raise ManagerError(ErrorCode.GAME_FULL, "every seat is taken")
            await self.check_limits(user.id, hosting=False)
            tx = await self._begin(g)
            tx.set(seats=(*g.seats, SeatRow(len(g.seats), user.id, user.name)))
            tx.user_names.append((user.id, user.name, user.locale))
            return await self._lobby_changed(tx)

        return await self._mutate(game_id, change)

    async def _lobby_changed(self, tx: Tx) -> GameInfo:
        """Commit a change someone made in the lobby: it counts as activity, and the lobby
        message is refreshed."""
        tx.activity = True
        tx.thread(NoticeKind.LOBBY)
        return self._info(await self._commit(tx))

    async def leave_lobby(self, game_id: int, user_id: int) -> GameInfo:
        async def change(g: LiveGame) -> GameInfo:
            self._require_lobby(g)
            return self._info(await self._leave_lobby(g, user_id))

        return await self._mutate(game_id, change)

    async def _leave_lobby(self, g: LiveGame, user_id: int) -> LiveGame:
        seat = self._require_person(g, user_id)
        rest = [s for s in g.seats if s.seat != seat.seat]
        tx = await self._begin(g)
        tx.activity = True
        people = [s for s in rest if s.ai_level is None]
        if not people:
            tx.set(seats=renumbered(rest),
                   status=GameStatus.CANCELLED, end_reason="cancelled")
            tx.thread(NoticeKind.LOBBY)
            tx.thread(NoticeKind.ENDED, reason="cancelled")
            return await self._commit(tx)
        host = g.host_id if g.host_id != user_id else people[0].user_id
        assert host is not None
        tx.set(seats=renumbered(rest), host_id=host,
               first_user_id=None if g.first_user_id == user_id else g.first_user_id)
        tx.thread(NoticeKind.LOBBY)
        return await self._commit(tx)

    async def add_computer(self, game_id: int, by_user_id: int,
                           level: str | None = None) -> GameInfo:
        async def change(g: LiveGame) -> GameInfo:
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            chosen = level or g.options.ai_level
            self._check_level(chosen)
            if len(g.seats) >= g.options.players:
                raise ManagerError(ErrorCode.GAME_FULL, "every seat is taken")
            tx = await self._begin(g)
            tx.set(seats=(*g.seats, SeatRow(len(g.seats), None, f"Computer ({chosen})",
                                            chosen)))
            return await self._lobby_changed(tx)

        return await self._mutate(game_id, change)

    async def remove_computer(self, game_id: int, by_user_id: int, seat: int) -> GameInfo:
        async def change(g: LiveGame) -> GameInfo:
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            if not 0 <= seat < len(g.seats) or g.seats[seat].ai_level is None:
                raise ManagerError(ErrorCode.NOT_ALLOWED, f"seat {seat} is not a computer")
            rest = [s for s in g.seats if s.seat != seat]
            tx = await self._begin(g)
            tx.set(seats=renumbered(rest))
            return await self._lobby_changed(tx)

        return await self._mutate(game_id, change)

    async def claim_first(self, game_id: int, user_id: int) -> GameInfo:
        """The "who most recently pet a cat" race: the first seated person to click goes first.
        A later click by someone else is refused with ``not_allowed``."""
        async def change(g: LiveGame) -> GameInfo:
            self._require_lobby(g)
            if g.options.first is not FirstPlayer.PET:
                raise ManagerError(ErrorCode.NOT_ALLOWED, "the first player is drawn at random")
            self._require_person(g, user_id)
            if g.first_user_id == user_id:
                return self._info(g)
            if g.first_user_id is not None:
                raise ManagerError(ErrorCode.NOT_ALLOWED, "someone else pet the cat first")
            tx = await self._begin(g)
            tx.set(first_user_id=user_id)
            return await self._lobby_changed(tx)

        return await self._mutate(game_id, change)

    async def cancel(self, game_id: int, by_user_id: int) -> GameInfo:
        async def change(g: LiveGame) -> GameInfo:
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            return self._info(await self._end(g, GameStatus.CANCELLED, "cancelled"))

        return await self._mutate(game_id, change)

    async def start(self, game_id: int, by_user_id: int) -> GameInfo:
        """Deal the game with the seats filled so far (at least one person)."""
        async def change(g: LiveGame) -> LiveGame:
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            if not g.people:
                raise ManagerError(ErrorCode.NOT_ENOUGH_PLAYERS, "a person must play")
            tx = await self._begin(g)
            tx.thread(NoticeKind.LOBBY)
            self._deal(tx)
            return await self._commit(tx)

        g = await self._mutate(game_id, change)
        async with self._lock(game_id):
            g = await self._run_computers(await self._load(game_id))
        return self._info(g)

    def _deal(self, tx: Tx, seed: int | None = None) -> None:
        """Deal the lobby of ``tx`` and queue its start (notices, timers, first prompts).
        ``seed``: a given deal (the weekly challenge's) instead of a fresh secret one."""
        g = tx.g
        first_seat = None
        if g.options.first is FirstPlayer.PET and g.first_user_id is not None:
            claimed = g.person(g.first_user_id)
            first_seat = None if claimed is None else claimed.seat
        engine_options = g.options.engine_options(len(g.seats), first_seat)
        state = new_game(self.catalog, engine_options,
                         self._seed_source() if seed is None else seed)
        status = GameStatus.DRAFT if state.phase is Phase.DRAFT else GameStatus.PLAY
        tx.set(status=status, state=state, config_json=encode_config(state),
               engine_options=engine_options, ply=state.ply)
        tx.activity = True
        tx.thread(NoticeKind.STARTED, first_seat=state.first_seat, phase=status.value,
                  players=len(g.seats))
        if status is GameStatus.DRAFT:
            deadline = None
            for i, s in enumerate(state.seats):
                if not s.goal_offer:
                    continue
                computer = g.seats[i].ai_level is not None
                timer = self._turn_timer(g.id, i, tx.now, g.options.turn_hours, computer)
                if computer or g.clocked:
                    tx.upsert_timers.append(timer)
                if not computer:
                    deadline = timer.deadline_at if g.clocked else None
                    tx.dm(i, NoticeKind.DRAFT_PROMPT, seat=i, deadline_at=_iso(deadline))
            tx.set(deadline_at=deadline)
        else:
            self._next_turn(tx)

    def _turn_timer(self, game_id: int, seat: int, now: int, turn_hours: float,
                    computer: bool) -> TimerRow:
        timer = turn_timer(game_id, seat, now, turn_hours, computer)
        if computer:
            due = now + _ms(self.config.computer_grace)
            return replace(timer, due_at=due, deadline_at=due)
        return timer

    # ------------------------------------------------------------------ play

    async def choose_goals(self, game_id: int, user_id: int, ply: int,
                           goals: Sequence[str]) -> MoveResult:
        """A goal draft choice (B3, C4, D2 order). Drafts are simultaneous, so the button's
        ``ply`` is accepted as long as this person has not chosen yet (``stale`` after)."""
        async def change(g: LiveGame) -> tuple[LiveGame, list[Event]]:
            state = self._require_started(g)
            seat = self._require_person(g, user_id).seat
            if g.status is not GameStatus.DRAFT or not state.seats[seat].goal_offer \
                    or ply > g.ply:
                raise ManagerError(ErrorCode.STALE, "your goal tiles are already chosen")
            if len(goals) != 3:
                raise BadGoalsError("choose three goal tiles")
            move = ChooseGoals(seat, (goals[0], goals[1], goals[2]))
            return await self._apply(g, seat, move, "user")

        return await self._after_move(game_id, await self._mutate(game_id, change))

    async def play_turn(self, game_id: int, user_id: int, ply: int,
                        move_text: str) -> MoveResult:
        """One whole turn in engine notation (``h0@C3>m2``); computer turns that follow are
        played before this returns, each committed on its own."""
        async def change(g: LiveGame) -> tuple[LiveGame, list[Event]]:
            _, seat = self._require_turn(g, user_id, ply)
            move = parse_move(seat, move_text)
            return await self._apply(g, seat, move, "user")

        return await self._after_move(game_id, await self._mutate(game_id, change))

    async def take_hint(self, game_id: int, user_id: int, ply: int) -> HintGrant:
        """A person takes a hint on their turn (from a button made for ``ply``), in a game that
        allows hints (:func:`bot.core.review.hints_allowed`, else ``hints_off``). The game is
        marked ``FLAG_HINTS`` in a committed change (once; later hints change nothing), so it
        counts for no rating, achievement or leaderboard. Returns the person's private view,
        all the hints may read (they are worked out by :mod:`bot.core.review`)."""
        async def change(g: LiveGame) -> HintGrant:
            state, seat = self._require_turn(g, user_id, ply)
            if not hints_allowed(g):
                raise ManagerError("hints_off", "hints are not allowed in this game")
            first = not g.flags & FLAG_HINTS
            if first:
                tx = await self._begin(g)
                tx.set(flags=g.flags | FLAG_HINTS)
                g = await self._commit(tx)
            return HintGrant(self._info(g), seat, private_view(state, seat), g.id, first)

        return await self._mutate(game_id, change)

    async def _after_move(self, game_id: int, done: tuple[LiveGame, list[Event]]) -> MoveResult:
        g, events = done
        if self._computer_to_move(g) is not None:
            async with self._lock(game_id):
                g = await self._run_computers(await self._load(game_id))
        return MoveResult(self._info(g), events)

    async def preview(self, game_id: int, user_id: int, ply: int, source: int,
                      cell: int | str) -> list[Event]:
        """What placing hand tile ``source`` (market slot, without a hand) on ``cell`` would
        earn. Read only."""
        if isinstance(cell, str):
            try:
                cell = parse_cell(cell)
            except ValueError as e:
                raise NoSuchCellError(str(e)) from None
        index = cell

        def read(g: LiveGame) -> list[Event]:
            state, seat = self._require_turn(g, user_id, ply)
            return engine_preview(state, seat, source, index)

        return await self._checked_read(game_id, read)

    async def _apply(self, g: LiveGame, seat: int, move: Move,
                     by: str) -> tuple[LiveGame, list[Event]]:
        """Apply one move and commit it with its log entry, notices, timers and results."""
        assert g.state is not None
        state, events = apply(g.state, move)  # raises EngineError if illegal
        tx = await self._begin(g)
        status = {Phase.OVER: GameStatus.OVER, Phase.DRAFT: GameStatus.DRAFT}.get(
            state.phase, GameStatus.PLAY)
        tx.set(state=state, ply=state.ply, status=status)
        tx.activity = True
        dicts = [event_dict(e) for e in events]
        played = [d for d in dicts if d["kind"] not in _END_KINDS]
        # The events go to the move log and the table notice: encode them once.
        events_json = dumps(dicts)
        tx.move = MoveRow(g.id, g.state.ply, seat, move.text(), by, events_json, tx.now)
        tx.thread(NoticeKind.TABLE, {"events": events_json if len(played) == len(dicts)
                                     else dumps(played)},
                  seat=seat, move=move.text(), by=by, autoplayed=by == "autopilot",
                  next_seat=state.current_seat)
        if by == "autopilot":
            # The absent player hears of it where they play: what was played, and their hand.
            tx.dm(seat, NoticeKind.AUTOPLAYED, {"events": dumps(played)}, seat=seat,
                  move=move.text())
        if status is GameStatus.OVER:
            over = events[-1]
            assert isinstance(over, GameOver)
            tx.set(deadline_at=None)
            tx.results = self._results(g, events, over, tx.now)
            # Achievements, ratings, the challenge's score: stored with the result.
            extra = await progress.game_over(self, tx, events, over)
            tx.thread(NoticeKind.GAME_OVER, totals=list(over.totals), places=list(over.places),
                      winners=list(over.winners), decided_by=over.decided_by,
                      events=[d for d in dicts if d["kind"] in _END_KINDS], **extra)
        elif status is GameStatus.DRAFT:
            tx.delete_timers.append(("turn", seat))
        else:
            self._next_turn(tx)
        return await self._commit(tx), events

    def _next_turn(self, tx: Tx) -> None:
        """Start the clock of the seat to play next, and prompt its player."""
        g = tx.g
        assert g.state is not None
        seat = g.state.current_seat
        assert seat is not None
        computer = g.seats[seat].ai_level is not None
        timer = self._turn_timer(g.id, seat, tx.now, g.options.turn_hours, computer)
        tx.clear_turn_timers = True
        if computer or g.clocked:
            tx.upsert_timers.append(timer)
        deadline = timer.deadline_at if g.clocked and not computer else None
        tx.set(deadline_at=deadline)
        if not computer:
            tx.dm(seat, NoticeKind.TURN_PROMPT, seat=seat, deadline_at=_iso(deadline))

    def _results(self, g: LiveGame, events: list[Event], over: GameOver,
                 now: int) -> list[ResultRow]:
        passed = {e.seat: e.passed for e in events if isinstance(e, ScenarioResult)}
        solo = len(g.seats) == 1
        hints = bool(g.flags & FLAG_HINTS)
        rows = []
        for i, s in enumerate(g.seats):
            # Solo: a "win" is passing the scenario. A seat a computer finished is not counted,
            # nor is any seat of a game in which someone took a hint.
            win = passed.get(i, False) if solo else over.places[i] == 1
            rows.append(ResultRow(
                game_id=g.id, seat=i, user_id=s.user_id, guild_id=g.guild_id,
                total=over.totals[i], place=over.places[i], win=win,
                counted=s.ai_level is None and s.user_id is not None and not hints,
                breakdown=json.dumps(over.scores[i] if i < len(over.scores) else {}),
                finished_at=now))
        return rows

    # ------------------------------------------------------------------ computers

    def _player_seed(self, state: GameState, seat: int) -> int:
        # A per-move generator derived one-way from the game seed: reproducible for a stored
        # game, and revealing nothing about the seed.
        digest = hashlib.blake2b(f"{state.seed}:{state.ply}:{seat}".encode(),
                                 digest_size=8).digest()
        return int.from_bytes(digest, "big") >> 1

    def _player(self, level: str, seed: int) -> Player:
        try:
            return make_player(level, seed)
        except ValueError:
            return make_player("random", seed)

    async def _choose(self, state: GameState, seat: int, level: str) -> Move:
        legal = legal_moves(state, seat)
        seed = self._player_seed(state, seat)
        view = private_view(state, seat)
        if level == "random" or level not in LEVELS:
            return self._player(level, seed).choose(view, legal)
        if self.computers is not None:
            # A thinking player runs in another process (see bot.core.computers).
            return await self.computers.choose(level, seed, view, legal)
        return await asyncio.to_thread(self._player(level, seed).choose, view, legal)

    def _computer_to_move(self, g: LiveGame) -> int | None:
        st = g.state
        if st is None:
            return None
        if g.status is GameStatus.DRAFT:
            for i, s in enumerate(st.seats):
                if s.goal_offer and g.seats[i].ai_level is not None:
                    return i
            return None
        if g.status is GameStatus.PLAY:
            seat = st.current_seat
            if seat is not None and g.seats[seat].ai_level is not None:
                return seat
        return None

    async def _run_computers(self, g: LiveGame, *, strict: bool = False) -> LiveGame:
        """Play every computer move now due, each committed on its own. A failure (or a full
        computer queue) leaves the move to its timer; it is raised only when ``strict`` (the
        sweep counts it), never to a caller whose own move is already stored."""
        try:
            for _ in range(4 * 23 + 8):
                seat = self._computer_to_move(g)
                if seat is None:
                    break
                level = g.seats[seat].ai_level
                assert g.state is not None and level is not None
                move = await self._choose(g.state, seat, level)
                g, _ = await self._apply(g, seat, move, "computer")
        except ComputersBusyError:
            log.info("computers busy: game %s's computer turn is left to its timer", g.id)
        except _StaleError:
            pass  # another process moved this game on (and plays its computers)
        except Exception:
            if strict:
                raise
            log.exception("computer move failed in game %s", g.id)
        return g

    # ------------------------------------------------------------------ leaving and ending

    async def leave_game(self, game_id: int, user_id: int) -> GameInfo:
        """Leave a started game: the seat becomes a computer player and the game goes on (in
        the lobby this is :meth:`leave_lobby`)."""
        async def change(g: LiveGame) -> LiveGame:
            if g.status is GameStatus.LOBBY:
                return await self._leave_lobby(g, user_id)
            self._require_started(g)
            seat = self._require_person(g, user_id).seat
            g = await self._convert(g, seat, "left")
            return await self._run_computers(g)

        return self._info(await self._mutate(game_id, change))

    async def _convert(self, g: LiveGame, seat: int, reason: str) -> LiveGame:
        """Turn a person's seat into a computer player (the game ends if nobody is left)."""
        tx = await self._begin(g)
        level = g.options.ai_level
        tx.set_seat(seat, ai_level=level, left=True)
        tx.activity = reason != "timeout"
        tx.thread(NoticeKind.SEAT_CHANGED, seat=seat, reason=reason, level=level)
        people = tx.g.people
        if not people:
            tx.set(status=GameStatus.ABANDONED, end_reason="everyone_left", deadline_at=None)
            tx.thread(NoticeKind.ENDED, reason="everyone_left")
            return await self._commit(tx)
        if g.host_id == g.seats[seat].user_id and people[0].user_id is not None:
            tx.set(host_id=people[0].user_id)
        if not tx.g.clocked:
            # One person left: their clock stops (see LiveGame.clocked).
            tx.clear_turn_timers = True
            tx.set(deadline_at=None)
        for i, row in enumerate(tx.g.seats):
            if row.ai_level is not None and g.must_act(i):
                # Due after the grace: played right after this commit, or by the sweep.
                tx.upsert_timers.append(
                    self._turn_timer(g.id, i, tx.now, g.options.turn_hours, True))
        if g.status is GameStatus.PLAY and g.must_act(seat):
            tx.set(deadline_at=None)
        return await self._commit(tx)

    async def abandon(self, game_id: int, by_user_id: int, is_admin: bool = False) -> GameInfo:
        """End a game early (the host, or a server admin). A lobby is cancelled instead."""
        async def change(g: LiveGame) -> GameInfo:
            if not g.status.active:
                raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
            if not is_admin:
                self._require_host(g, by_user_id)
            if g.status is GameStatus.LOBBY:
                return self._info(await self._end(g, GameStatus.CANCELLED, "cancelled"))
            return self._info(await self._end(g, GameStatus.ABANDONED, "abandoned"))

        return await self._mutate(game_id, change)

    async def _end(self, g: LiveGame, status: GameStatus, reason: str, *,
                   notify: bool = True) -> LiveGame:
        tx = await self._begin(g)
        was_lobby = g.status is GameStatus.LOBBY
        tx.set(status=status, end_reason=reason, deadline_at=None)
        if notify:
            if was_lobby:
                tx.thread(NoticeKind.LOBBY)
            tx.thread(NoticeKind.ENDED, reason=reason)
        else:
            # The place to post is gone: drop what was still queued for this game.
            tx.skip_pending = True
        return await self._commit(tx)

    # ------------------------------------------------------------------ Discord life

    async def _end_silently(self, game_id: int, reason: str) -> bool:
        async def change(g: LiveGame) -> bool:
            if g.status.active:
                status = GameStatus.CANCELLED if g.status is GameStatus.LOBBY \
                    else GameStatus.ABANDONED
                await self._end(g, status, reason, notify=False)
                return True
            tx = await self._begin(g)
            tx.skip_pending = True
            await self._commit(tx)
            return False

        try:
            return await self._mutate(game_id, change)
        except ManagerError:
            return False

    async def channel_gone(self, channel_id: int) -> list[int]:
        """A thread or channel was deleted: its games end (no post: there is nowhere to post).
        Returns the ids of the games that ended."""
        ended = []
        for game_id in await self.store.game_ids(channel_id=channel_id):
            if await self._end_silently(game_id, "channel_gone"):
                ended.append(game_id)
        return ended

    async def guild_gone(self, guild_id: int) -> list[int]:
        """The bot left (or lost) a server: all its games end."""
        ended = []
        for game_id in await self.store.game_ids(guild_id=guild_id):
            if await self._end_silently(game_id, "guild_gone"):
                ended.append(game_id)
        return ended

    async def member_left(self, guild_id: int, user_id: int) -> list[int]:
        """A member left the server: they leave its lobbies, and their seats in its started
        games become computer players. Returns the games touched."""
        touched = []
        for game_id in await self.store.game_ids(guild_id=guild_id, user_id=user_id,
                                                 active_only=True):
            async def change(g: LiveGame) -> bool:
                seat = g.person(user_id)
                if seat is None or not g.status.active:
                    return False
                if g.status is GameStatus.LOBBY:
                    await self._leave_lobby(g, user_id)
                else:
                    g = await self._convert(g, seat.seat, "member_left")
                    await self._run_computers(g)
                return True

            if await self._mutate(game_id, change):
                touched.append(game_id)
        return sorted(touched)

    async def dm_failed(self, game_id: int, user_id: int) -> None:
        """A DM to this user failed for good (called by the dispatcher). Their DMs count as
        closed for ``dm_retry_after``: queued DMs are dropped, and each game they play gets one
        fallback post in its thread ("use /calico hand")."""
        now = self._now()
        await self._user(user_id)
        others = await self.store.skip_pending_dms(user_id, now)
        playing = await self.store.game_ids(user_id=user_id, active_only=True)
        for gid in dict.fromkeys([game_id, *others, *playing]):
            async def change(g: LiveGame, gid: int = gid) -> None:
                tx = await self._begin(g)
                if gid == game_id:
                    tx.user_updates.append((user_id, {"dm_closed_at": now}))
                seat = g.person(user_id)
                if seat is not None and g.status.active:
                    tx.fallback(seat.seat)
                if tx.notices or tx.user_updates:
                    await self._commit(tx)

            try:
                await self._mutate(gid, change)
            except ManagerError:
                continue
        if self._users.get(user_id, _DEFAULT_USER).dm_closed_at != now:
            # The game itself was gone: still remember the closed DMs.
            row = await self.store.set_user(user_id, dm_closed_at=now)
            self._users[user_id] = row

    # ------------------------------------------------------------------ time

    async def sweep(self) -> SweepReport:
        """Act on every due timer (claimed, so that several processes never fire one twice):
        reminders, turn deadlines, computer turns left pending, idle games; then close the
        weekly challenges whose week ended (once across processes: see
        :mod:`bot.core.challenge`) and delete notices that ended more than ``outbox_keep``
        ago. A timer that fails is pushed back (doubling each time, up to
        ``timer_backoff_max``), counted, logged once, and never holds the others."""
        now = self._now()
        lease = _ms(self.config.timer_lease)
        counts: dict[str, int] = {}
        details: list[str] = []
        seen: set[tuple[int, str, int]] = set()
        for _ in range(1000):
            due = await self.store.claim_timers(self.owner, now, lease, self.config.sweep_batch)
            fresh = [t for t in due if t.key not in seen]
            for t in due:
                if t.key in seen:
                    await self.store.release_timer(t, self.owner)
                    continue
                seen.add(t.key)
                try:
                    step = await self._fire(t, now)
                except Exception as e:
                    await self._timer_failed(t, now, e)
                    counts["failed"] = counts.get("failed", 0) + 1
                    continue
                if step:
                    counts[step] = counts.get(step, 0) + 1
                    details.append(f"game {t.game_id} seat {t.seat}: {step}")
            if len(due) < self.config.sweep_batch or not fresh:
                break
        closed = await challenge.close_due(self, now)
        pruned = await self.store.prune_outbox(now - _ms(self.config.outbox_keep))
        if pruned:
            await self.store.after_prune()
        self.last_sweep_at = from_ms(now)
        return SweepReport(
            reminders=counts.get("reminder", 0) + counts.get("reminder_thread", 0),
            reminders_in_thread=counts.get("reminder_thread", 0),
            reminders_skipped=counts.get("skipped", 0),
            autoplayed=counts.get(Step.AUTOPILOT, 0), converted=counts.get(Step.CONVERT, 0),
            computer_moves=counts.get(Step.COMPUTER_MOVE, 0), stalled=counts.get(Step.STALL, 0),
            ended=counts.get("idle", 0), pruned=pruned, failed=counts.get("failed", 0),
            busy=counts.get("busy", 0), challenges_closed=closed, details=details)

    async def _timer_failed(self, t: TimerRow, now: int, error: Exception) -> None:
        failures = t.failures + 1
        delay = min(_ms(self.config.timer_backoff_max),
                    _ms(self.config.timer_backoff) * 2 ** min(failures - 1, 20))
        counted = await self.store.timer_failed(t, self.owner, now + delay, repr(error)[:500])
        self.timer_failures += 1
        if counted <= 1:
            # Logged once: a timer that keeps failing backs off and stays quiet.
            log.error("timer %s of game %s failed; retried with backoff", t.kind, t.game_id,
                      exc_info=error)
        else:
            log.debug("timer %s of game %s failed again (%d times)", t.kind, t.game_id, counted)

    async def _fire(self, t: TimerRow, now: int) -> str | None:
        async with self._lock(t.game_id):
            current = [x for x in await self.store.timers(t.game_id) if x.key == t.key]
            if not current or current[0].due_at > now:
                return None  # moved on since the claim (rewritten by a move)
            timer = current[0]
            try:
                g = await self._load(t.game_id)
            except ManagerError:
                return None  # the game is gone (its timers went with it)
            if g.version != (await self.store.game_version(g.id)):
                g = await self._reload(g.id)
            if timer.kind == "idle":
                if not g.status.active:
                    return None
                status = GameStatus.CANCELLED if g.status is GameStatus.LOBBY \
                    else GameStatus.ABANDONED
                await self._end(g, status, "idle")
                return "idle"
            if not g.status.started or not g.must_act(timer.seat):
                tx = await self._begin(g)
                tx.delete_timers.append((timer.kind, timer.seat))
                await self._commit(tx)
                return None
            seat = timer.seat
            decision = decide(
                timer, now, action=g.options.timeout_action, draft=g.status is GameStatus.DRAFT,
                computer=g.seats[seat].ai_level is not None, turn_hours=g.options.turn_hours,
                max_reminders=self.config.max_reminders)
            try:
                if decision.step is Step.COMPUTER_MOVE:
                    after = await self._run_computers(g, strict=True)
                    if after.version == g.version:
                        await self.store.release_timer(timer, self.owner)
                        return "busy"
                elif decision.step is Step.AUTOPILOT:
                    assert g.state is not None
                    move = await self._choose(g.state, seat, g.options.ai_level)
                    g, _ = await self._apply(g, seat, move, "autopilot")
                    await self._run_computers(g)
                elif decision.step is Step.CONVERT:
                    g = await self._convert(g, seat, "timeout")
                    await self._run_computers(g)
                elif decision.step is Step.STALL:
                    tx = await self._begin(g)
                    tx.delete_timers.append(("turn", seat))
                    await self._commit(tx)
                else:
                    return await self._remind(g, timer, decision.final, decision.next_due, now)
            except ComputersBusyError:
                await self.store.release_timer(timer, self.owner)
                return "busy"
            except _StaleError:
                return None  # another process acted on this game meanwhile
            return decision.step.value

    async def _remind(self, g: LiveGame, timer: TimerRow, final: bool, next_due: int | None,
                      now: int) -> str:
        """A reminder for the seat of ``timer``: a DM, or, while their DMs are closed, a post in
        the game's thread that pings them. Either way at most one per ``reminder_gap`` per
        person, and none at all for someone who turned reminders off."""
        row = g.seats[timer.seat]
        assert row.user_id is not None
        user = await self._user(row.user_id)
        gap = _ms(self.config.reminder_gap)
        send = user.reminders and (user.last_reminder_at is None
                                   or now - user.last_reminder_at >= gap)
        in_thread = send and self._dm_closed(row.user_id)
        # One reminder names every game waiting for them, so the rate limit loses nothing
        # they were not told about within the last gap.
        waiting = await self.store.waiting_games(row.user_id) if send else []
        tx = await self._begin(g)
        tx.upsert_timers.append(replace(timer, due_at=next_due or now,
                                        reminders=timer.reminders + 1))
        if send:
            deadline = timer.deadline_at
            payload: dict[str, Any] = {
                "seat": timer.seat, "deadline_at": _iso(deadline), "final": final,
                "action": g.options.timeout_action.value, "phase": g.status.value,
                "waiting": waiting, "overdue": deadline is not None and now >= deadline,
                "next_at": _iso(next_due) if not final else None,
                "idle_days": self.config.idle_days}
            if in_thread:
                tx.thread(NoticeKind.REMINDER, user_id=row.user_id, in_thread=True, **payload)
            else:
                tx.dm(timer.seat, NoticeKind.REMINDER, **payload)
            tx.user_updates.append((row.user_id, {"last_reminder_at": now}))
        await self._commit(tx)
        if not send:
            return "skipped"
        return "reminder_thread" if in_thread else "reminder"

    # ------------------------------------------------------------------ queries

    async def get_game(self, game_id: int, *, fresh: bool = False) -> GameInfo:
        """A game; ``fresh``: read from the database, not the cache."""
        return self._info(await (self._reload(game_id) if fresh else self._load(game_id)))

    async def state_at(self, game_id: int, ply: int) -> GameState:
        """The state after ``ply`` moves (its ``.ply == ply``), replayed from the move log."""
        g = await self._load(game_id)
        if g.state is None or g.engine_options is None:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "the game has not started")
        if not 0 <= ply <= g.ply:
            raise ManagerError(ErrorCode.NOT_ALLOWED, f"ply is between 0 and {g.ply}")
        state = new_game(self.catalog, g.engine_options, g.state.seed)
        for m in await self.store.moves(game_id, before_ply=ply):
            state, _ = apply(state, parse_move(m.seat, m.move))
        return state

    async def moves(self, game_id: int) -> list[MoveRow]:
        """The move log (for /calico log and replays)."""
        await self._load(game_id)
        return await self.store.moves(game_id)

    async def games_for_user(self, user_id: int, active_only: bool = True,
                             limit: int = 25) -> list[GameInfo]:
        """Games this person plays (most recently changed first)."""
        ids = await self.store.game_ids(user_id=user_id, active_only=active_only, limit=limit)
        return [self._info(await self._load(i)) for i in ids]

    async def game_for_thread(self, thread_id: int) -> GameInfo | None:
        ids = await self.store.game_ids(thread_id=thread_id)
        return None if not ids else self._info(await self._load(ids[0]))

    async def user_stats(self, user_id: int, guild_id: int | None = None) -> UserStats:
        row = await self.store.totals(user_id, guild_id or 0)
        if row is None:
            return UserStats(user_id, 0, 0, None, None)
        return UserStats(user_id, row.games, row.wins, row.average, row.best)

    async def leaderboard(self, guild_id: int, limit: int = 10,
                          min_games: int = 1) -> list[LeaderboardEntry]:
        rows = await self.store.leaderboard(guild_id, limit, min_games)
        return [LeaderboardEntry(r.user_id, r.name, r.games, r.wins, r.average, r.best)
                for r in rows]

    async def get_settings(self, user_id: int) -> UserSettings:
        u = await self._user(user_id)
        return UserSettings(user_id, u.reminders,
                            None if u.dm_closed_at is None else from_ms(u.dm_closed_at),
                            describe=u.describe)

    async def user_locale(self, user_id: int, default: str = "en-US") -> str:
        """The Discord locale stored with this person (from their last lobby, join or game
        start), else ``default``: the language of their DMs."""
        return (await self._user(user_id)).locale or default

    async def set_settings(self, user_id: int, reminders: bool | None = None,
                           describe: bool | None = None) -> UserSettings:
        cols: dict[str, Any] = {}
        if reminders is not None:
            cols["reminders"] = int(reminders)
        if describe is not None:
            cols["describe"] = int(describe)
        row = await self.store.set_user(user_id, **cols)
        self._users[user_id] = row
        return await self.get_settings(user_id)

    def now(self) -> datetime:
        return self.clock.now()

