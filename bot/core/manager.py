"""The game manager: owns every game from lobby to final score (``docs/manager-api.md``).

It imports nothing from discord. Callers (the Discord layer, the offline demo, tests, the load
generator) call its async methods; it checks who may do what, runs the engine, stores each
change in one transaction through :class:`bot.core.storage.Store`, and queues what the Discord layer
should say as outbox notices in that same transaction (delivered by :mod:`bot.core.outbox`).

Concurrency: one ``asyncio.Lock`` per game serialises changes to a game; every write also
carries an optimistic ``version`` check, so a second writer (a bug, another process) makes the
write fail as ``stale`` instead of overwriting. Hot games are cached in memory, parsed, keyed by
version; only this manager writes games, so the cache is refreshed by its own commits.

Time: the injected :class:`~bot.core.clock.Clock` stamps every change; turn clocks and idle
limits are rows in the ``timers`` table acted on by :meth:`Manager.sweep` (policy in
:mod:`bot.core.timers`)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bot.core.clock import Clock, SystemClock, from_ms, to_ms
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
from bot.core.outbox import Delivery, Dispatcher
from bot.core.storage.codec import (
    decode_state,
    dumps,
    encode_config,
    encode_state,
    event_dict,
    splice,
)
from bot.core.storage.db import StaleWriteError
from bot.core.storage.repo import (
    GameRow,
    GameWrite,
    MoveRow,
    NewGame,
    NoticeDraft,
    ResultRow,
    SeatRow,
    Store,
    TimerRow,
    UserRow,
)
from bot.core.timers import Step, decide, turn_timer
from data import Catalog, load_catalog
from engine.ai import LEVELS, Player, make_player
from engine.config import GameOptions
from engine.errors import BadGoalsError, NoSuchCellError
from engine.events import Event, GameOver, ScenarioResult
from engine.hexgrid import parse_cell
from engine.moves import ChooseGoals, Move, parse_move
from engine.rules import apply, legal_moves
from engine.rules import preview as engine_preview
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view

log = logging.getLogger("calico.manager")

_END_KINDS = frozenset({"goal_scored", "scenario_result", "game_over"})
_SEED_BITS = 63


@dataclass(frozen=True, slots=True)
class ManagerConfig:
    idle_days: float = 30.0  # an active game (or lobby) with no move for this long ends
    max_reminders: int = 5  # stall cut-off for timeout_action "remind"
    reminder_gap: timedelta = timedelta(hours=1)  # at most one reminder DM per user per gap
    dm_retry_after: timedelta = timedelta(hours=24)  # closed DMs are tried again after this
    outbox_keep: timedelta = timedelta(days=7)  # delivered notices are deleted after this
    cache_size: int = 4096  # games kept parsed in memory
    sweep_batch: int = 200


@dataclass(frozen=True, slots=True)
class _Game:
    """A game as the manager holds it: the stored row, parsed."""

    id: int
    status: GameStatus
    guild_id: int
    channel_id: int
    thread_id: int | None
    lobby_message_id: int | None
    host_id: int
    options: LobbyOptions
    first_user_id: int | None
    engine_options: GameOptions | None
    state: GameState | None
    config_json: str | None  # the state's constant config part, encoded once
    version: int
    ply: int
    deadline_at: int | None
    end_reason: str | None
    created_at: int
    updated_at: int
    seats: tuple[SeatRow, ...]

    @classmethod
    def from_row(cls, row: GameRow) -> _Game:
        state = None if row.state is None else decode_state(row.state)
        return cls(
            id=row.id, status=GameStatus(row.status), guild_id=row.guild_id,
            channel_id=row.channel_id, thread_id=row.thread_id,
            lobby_message_id=row.lobby_message_id, host_id=row.host_id,
            options=LobbyOptions.model_validate_json(row.options),
            first_user_id=row.first_user_id,
            engine_options=None if row.engine_options is None
            else GameOptions.model_validate_json(row.engine_options),
            state=state, config_json=None if state is None else encode_config(state),
            version=row.version, ply=row.ply, deadline_at=row.deadline_at,
            end_reason=row.end_reason, created_at=row.created_at, updated_at=row.updated_at,
            seats=row.seats,
        )

    def person(self, user_id: int) -> SeatRow | None:
        """The seat this person still plays themself."""
        for s in self.seats:
            if s.user_id == user_id and s.ai_level is None:
                return s
        return None

    @property
    def people(self) -> list[SeatRow]:
        return [s for s in self.seats if s.ai_level is None]

    @property
    def clocked(self) -> bool:
        """Turn clocks keep a shared game moving; a person alone (with or without computer
        opponents) holds nobody up, so their game has no deadline, only the idle limit."""
        return len(self.people) >= 2

    def must_act(self, seat: int) -> bool:
        """Whether the game is waiting for ``seat`` (its turn, or its goal draft)."""
        st = self.state
        if st is None:
            return False
        if self.status is GameStatus.DRAFT:
            return bool(st.seats[seat].goal_offer)
        return self.status is GameStatus.PLAY and st.current_seat == seat


_GAME_FIELDS = tuple(f.name for f in fields(_Game))


def _evolve(g: _Game, changes: dict[str, Any]) -> _Game:
    """``dataclasses.replace`` for the hot path (it re-runs ``__init__`` with introspection,
    about 30 us a call; this is a plain copy)."""
    new = object.__new__(_Game)
    for name in _GAME_FIELDS:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(g, name))
    return new


_DEFAULT_USER = UserRow(0, "", None, True, None, None)


@dataclass
class _Tx:
    """One change being prepared: the new in-memory game plus what else to store with it."""

    old: _Game
    g: _Game
    now: int
    dm_closed: Callable[[int], bool]
    # (kind, DM user or None, payload, payload members already encoded as JSON)
    notices: list[tuple[str, int | None, dict[str, Any], dict[str, str]]] = field(
        default_factory=list)
    move: MoveRow | None = None
    activity: bool = False  # a player did something: restart the idle clock
    clear_turn_timers: bool = False
    delete_timers: list[tuple[str, int]] = field(default_factory=list)
    upsert_timers: list[TimerRow] = field(default_factory=list)
    results: list[ResultRow] = field(default_factory=list)
    user_names: list[tuple[int, str, str | None]] = field(default_factory=list)
    user_updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    skip_pending: bool = False

    def set(self, **changes: Any) -> None:
        self.g = _evolve(self.g, changes)

    def set_seat(self, seat: int, **changes: Any) -> None:
        seats = list(self.g.seats)
        seats[seat] = replace(seats[seat], **changes)
        self.g = _evolve(self.g, {"seats": tuple(seats)})

    def thread(self, kind: NoticeKind, raw: dict[str, str] | None = None,
               **payload: Any) -> None:
        self.notices.append((kind.value, None, payload, raw or {}))

    def dm(self, to_seat: int, kind: NoticeKind, /, **payload: Any) -> None:
        """A DM to the person in ``to_seat``; while their DMs are closed, the thread fallback."""
        row = self.g.seats[to_seat]
        if row.user_id is None or row.ai_level is not None:
            return
        if self.dm_closed(row.user_id):
            self.fallback(to_seat)
            return
        self.notices.append((kind.value, row.user_id, payload, {}))

    def fallback(self, seat: int) -> None:
        """Tell the thread once per game and person that their DMs are closed."""
        row = self.g.seats[seat]
        if row.user_id is None or row.fallback_sent:
            return
        self.set_seat(seat, fallback_sent=True)
        self.thread(NoticeKind.DM_FALLBACK, user_id=row.user_id, seat=seat)


def _renumbered(seats: Sequence[SeatRow]) -> tuple[SeatRow, ...]:
    """The seats left in a lobby, numbered 0..n-1 again."""
    return tuple(replace(s, seat=i) for i, s in enumerate(seats))


def _iso(ms: int | None) -> str | None:
    return None if ms is None else from_ms(ms).isoformat()


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
    ) -> None:
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self.catalog = catalog or load_catalog()
        self.config = config or ManagerConfig()
        # The engine seed of each game; secret (it decides the bag), so from `secrets`.
        self._seed_source = seed_source or (lambda: secrets.randbits(_SEED_BITS))
        self._cache: OrderedDict[int, _Game] = OrderedDict()
        self._users: OrderedDict[int, UserRow] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    @classmethod
    async def open(cls, path: str | Path, **kwargs: Any) -> Manager:
        """Open (creating or migrating) the database at ``path`` and a manager on it."""
        return cls(await Store.open(path), **kwargs)

    async def close(self) -> None:
        await self.store.close()

    def dispatcher(self, delivery: Delivery, **kwargs: Any) -> Dispatcher:
        """A dispatcher on this manager's store and clock, with the DM fallback wired in."""
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

    def _remember(self, g: _Game) -> None:
        have = self._cache.get(g.id)
        if have is not None and have.version > g.version:
            return  # a load that raced a commit: keep the newer game
        self._cache[g.id] = g
        self._cache.move_to_end(g.id)
        while len(self._cache) > self.config.cache_size:
            self._cache.popitem(last=False)

    async def _load(self, game_id: int) -> _Game:
        g = self._cache.get(game_id)
        if g is not None:
            self._cache.move_to_end(game_id)
            return g
        row = await self.store.load_game(game_id)
        if row is None:
            raise ManagerError(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        g = _Game.from_row(row)
        self._remember(g)
        return self._cache.get(game_id, g)

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
        retry = int(self.config.dm_retry_after.total_seconds() * 1000)
        return self._now() - u.dm_closed_at < retry

    async def _begin(self, g: _Game) -> _Tx:
        for s in g.seats:
            if s.user_id is not None and s.ai_level is None:
                await self._user(s.user_id)
        return _Tx(old=g, g=g, now=self._now(), dm_closed=self._dm_closed)

    async def _commit(self, tx: _Tx) -> _Game:
        """Store ``tx`` in one transaction; returns the new cached game."""
        old, g = tx.old, tx.g
        cols: dict[str, Any] = {}
        for name in ("thread_id", "lobby_message_id", "host_id", "first_user_id", "ply",
                     "deadline_at", "end_reason"):
            if getattr(g, name) != getattr(old, name):
                cols[name] = getattr(g, name)
        if g.status is not old.status:
            cols["status"] = g.status.value
        if g.engine_options is not old.engine_options and g.engine_options is not None:
            cols["engine_options"] = g.engine_options.model_dump_json()
        state = g.state
        if state is not old.state and state is not None:
            if g.config_json is None:
                g = _evolve(g, {"config_json": encode_config(state)})
            cols["state"] = encode_state(state, g.config_json)
        version = old.version + 1
        upserts = list(tx.upsert_timers)
        if g.status.active and tx.activity:
            idle_ms = int(self.config.idle_days * 86_400_000)
            upserts.append(TimerRow(g.id, "idle", -1, tx.now + idle_ms))
        write = GameWrite(
            game_id=g.id,
            expect_version=old.version,
            now=tx.now,
            columns=cols,
            seats=g.seats if g.seats != old.seats else None,
            move=tx.move,
            notices=[
                NoticeDraft(kind, user, g.ply, splice(payload, raw), f"{g.id}.{version}.{i}")
                for i, (kind, user, payload, raw) in enumerate(tx.notices)
            ],
            clear_timers=not g.status.active,
            clear_turn_timers=tx.clear_turn_timers,
            delete_timers=tx.delete_timers,
            upsert_timers=upserts if g.status.active else [],
            results=tx.results,
            user_names=tx.user_names,
            user_updates=tx.user_updates,
            skip_pending=tx.skip_pending,
        )
        try:
            await self.store.commit(write)
        except StaleWriteError:
            self._cache.pop(g.id, None)
            raise ManagerError(ErrorCode.STALE, "the game changed meanwhile") from None
        except BaseException:
            # Cancelled while the database thread may still commit it, or a database error:
            # either way the cached game can no longer be trusted; the next call reloads it.
            self._cache.pop(g.id, None)
            raise
        new = _evolve(g, {"version": version, "updated_at": tx.now})
        self._cache[g.id] = new
        self._cache.move_to_end(g.id)
        for user_id, name, locale in tx.user_names:
            self._remember_user(user_id, name, locale)
        for user_id, changes in tx.user_updates:
            self._users[user_id] = replace(await self._user(user_id), **changes)
        return new

    def _info(self, g: _Game) -> GameInfo:
        return GameInfo(
            id=g.id, status=g.status, guild_id=g.guild_id, channel_id=g.channel_id,
            thread_id=g.thread_id, lobby_message_id=g.lobby_message_id, host_id=g.host_id,
            options=g.options,
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name, s.ai_level, s.left) for s in g.seats),
            ply=g.ply, state=g.state,
            deadline_at=None if g.deadline_at is None else from_ms(g.deadline_at),
            created_at=from_ms(g.created_at), updated_at=from_ms(g.updated_at),
            version=g.version, end_reason=g.end_reason, first_user_id=g.first_user_id,
        )

    @staticmethod
    def _require_lobby(g: _Game) -> None:
        if g.status is GameStatus.LOBBY:
            return
        if g.status.active:
            raise ManagerError(ErrorCode.LOBBY_ONLY, "the game has already started")
        raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")

    @staticmethod
    def _require_host(g: _Game, user_id: int) -> None:
        if g.host_id != user_id:
            raise ManagerError(ErrorCode.HOST_ONLY, "only the host can do that")

    @staticmethod
    def _require_started(g: _Game) -> GameState:
        if g.status is GameStatus.LOBBY:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "the game has not started yet")
        if not g.status.active or g.state is None:
            raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
        return g.state

    @staticmethod
    def _require_person(g: _Game, user_id: int) -> SeatRow:
        seat = g.person(user_id)
        if seat is None:
            raise ManagerError(ErrorCode.NOT_A_PLAYER, "you are not playing in this game")
        return seat

    @classmethod
    def _require_turn(cls, g: _Game, user_id: int, ply: int) -> tuple[GameState, int]:
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

    async def create_game(self, host: UserRef, guild_id: int, channel_id: int,
                          options: LobbyOptions | None = None) -> GameInfo:
        """A new lobby with the host in seat 0. Nothing is posted: the caller shows the lobby
        message and then calls :meth:`attach_thread`."""
        options = options or LobbyOptions()
        now = self._now()
        seats = (SeatRow(0, host.id, host.name),)
        idle_ms = int(self.config.idle_days * 86_400_000)
        game_id = await self.store.create_game(NewGame(
            status=GameStatus.LOBBY.value, guild_id=guild_id, channel_id=channel_id,
            host_id=host.id, options=options.model_dump_json(), seats=seats,
            user_names=[(host.id, host.name, host.locale)], now=now, idle_due=now + idle_ms))
        g = _Game(id=game_id, status=GameStatus.LOBBY, guild_id=guild_id, channel_id=channel_id,
                  thread_id=None, lobby_message_id=None, host_id=host.id, options=options,
                  first_user_id=None, engine_options=None, state=None, config_json=None,
                  version=0, ply=0, deadline_at=None, end_reason=None, created_at=now,
                  updated_at=now, seats=seats)
        self._remember(g)
        self._remember_user(host.id, host.name, host.locale)
        return self._info(g)

    async def attach_thread(self, game_id: int, thread_id: int | None,
                            lobby_message_id: int | None = None) -> GameInfo:
        async with self._lock(game_id):
            g = await self._load(game_id)
            tx = await self._begin(g)
            tx.set(thread_id=thread_id,
                   lobby_message_id=lobby_message_id if lobby_message_id is not None
                   else g.lobby_message_id)
            return self._info(await self._commit(tx))

    async def join(self, game_id: int, user: UserRef) -> GameInfo:
        async with self._lock(game_id):
            g = await self._load(game_id)
            self._require_lobby(g)
            if g.person(user.id) is not None:
                raise ManagerError(ErrorCode.ALREADY_JOINED, "you are already in this game")
            if len(g.seats) >= g.options.players:
                raise ManagerError(ErrorCode.GAME_FULL, "every seat is taken")
            tx = await self._begin(g)
            tx.set(seats=(*g.seats, SeatRow(len(g.seats), user.id, user.name)))
            tx.user_names.append((user.id, user.name, user.locale))
            return await self._lobby_changed(tx)

    async def _lobby_changed(self, tx: _Tx) -> GameInfo:
        """Commit a change someone made in the lobby: it counts as activity, and the lobby
        message is refreshed."""
        tx.activity = True
        tx.thread(NoticeKind.LOBBY)
        return self._info(await self._commit(tx))

    async def leave_lobby(self, game_id: int, user_id: int) -> GameInfo:
        async with self._lock(game_id):
            g = await self._load(game_id)
            self._require_lobby(g)
            return self._info(await self._leave_lobby(g, user_id))

    async def _leave_lobby(self, g: _Game, user_id: int) -> _Game:
        seat = self._require_person(g, user_id)
        rest = [s for s in g.seats if s.seat != seat.seat]
        tx = await self._begin(g)
        tx.activity = True
        people = [s for s in rest if s.ai_level is None]
        if not people:
            tx.set(seats=_renumbered(rest),
                   status=GameStatus.CANCELLED, end_reason="cancelled")
            tx.thread(NoticeKind.LOBBY)
            tx.thread(NoticeKind.ENDED, reason="cancelled")
            return await self._commit(tx)
        host = g.host_id if g.host_id != user_id else people[0].user_id
        assert host is not None
        tx.set(seats=_renumbered(rest), host_id=host,
               first_user_id=None if g.first_user_id == user_id else g.first_user_id)
        tx.thread(NoticeKind.LOBBY)
        return await self._commit(tx)

    async def add_computer(self, game_id: int, by_user_id: int,
                           level: str | None = None) -> GameInfo:
        async with self._lock(game_id):
            g = await self._load(game_id)
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            level = level or g.options.ai_level
            if level not in AI_LEVELS and level not in LEVELS:
                raise ManagerError(ErrorCode.NOT_ALLOWED, f"no computer level {level!r}")
            if len(g.seats) >= g.options.players:
                raise ManagerError(ErrorCode.GAME_FULL, "every seat is taken")
            tx = await self._begin(g)
            tx.set(seats=(*g.seats, SeatRow(len(g.seats), None, f"Computer ({level})", level)))
            return await self._lobby_changed(tx)

    async def remove_computer(self, game_id: int, by_user_id: int, seat: int) -> GameInfo:
        async with self._lock(game_id):
            g = await self._load(game_id)
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            if not 0 <= seat < len(g.seats) or g.seats[seat].ai_level is None:
                raise ManagerError(ErrorCode.NOT_ALLOWED, f"seat {seat} is not a computer")
            rest = [s for s in g.seats if s.seat != seat]
            tx = await self._begin(g)
            tx.set(seats=_renumbered(rest))
            return await self._lobby_changed(tx)

    async def claim_first(self, game_id: int, user_id: int) -> GameInfo:
        """The "who most recently pet a cat" race: the first seated person to click goes first.
        A later click by someone else is refused with ``not_allowed``."""
        async with self._lock(game_id):
            g = await self._load(game_id)
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

    async def cancel(self, game_id: int, by_user_id: int) -> GameInfo:
        async with self._lock(game_id):
            g = await self._load(game_id)
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            return self._info(await self._end(g, GameStatus.CANCELLED, "cancelled"))

    async def start(self, game_id: int, by_user_id: int) -> GameInfo:
        """Deal the game with the seats filled so far (at least one person)."""
        async with self._lock(game_id):
            g = await self._load(game_id)
            self._require_lobby(g)
            self._require_host(g, by_user_id)
            if not g.people:
                raise ManagerError(ErrorCode.NOT_ENOUGH_PLAYERS, "a person must play")
            first_seat = None
            if g.options.first is FirstPlayer.PET and g.first_user_id is not None:
                claimed = g.person(g.first_user_id)
                first_seat = None if claimed is None else claimed.seat
            engine_options = g.options.engine_options(len(g.seats), first_seat)
            state = new_game(self.catalog, engine_options, self._seed_source())
            tx = await self._begin(g)
            status = GameStatus.DRAFT if state.phase is Phase.DRAFT else GameStatus.PLAY
            tx.set(status=status, state=state, config_json=encode_config(state),
                   engine_options=engine_options, ply=state.ply)
            tx.activity = True
            tx.thread(NoticeKind.LOBBY)
            tx.thread(NoticeKind.STARTED, first_seat=state.first_seat, phase=status.value,
                      players=len(g.seats))
            if status is GameStatus.DRAFT:
                deadline = None
                for i, s in enumerate(state.seats):
                    if not s.goal_offer:
                        continue
                    computer = g.seats[i].ai_level is not None
                    timer = turn_timer(g.id, i, tx.now, g.options.turn_hours, computer)
                    if computer or g.clocked:
                        tx.upsert_timers.append(timer)
                    if not computer:
                        deadline = timer.deadline_at if g.clocked else None
                        tx.dm(i, NoticeKind.DRAFT_PROMPT, seat=i, deadline_at=_iso(deadline))
                tx.set(deadline_at=deadline)
            else:
                self._next_turn(tx)
            g = await self._commit(tx)
            g = await self._run_computers(g)
            return self._info(g)

    # ------------------------------------------------------------------ play

    async def choose_goals(self, game_id: int, user_id: int, ply: int,
                           goals: Sequence[str]) -> MoveResult:
        """A goal draft choice (B3, C4, D2 order). Drafts are simultaneous, so the button's
        ``ply`` is accepted as long as this person has not chosen yet (``stale`` after)."""
        async with self._lock(game_id):
            g = await self._load(game_id)
            state = self._require_started(g)
            seat = self._require_person(g, user_id).seat
            if g.status is not GameStatus.DRAFT or not state.seats[seat].goal_offer \
                    or ply > g.ply:
                raise ManagerError(ErrorCode.STALE, "your goal tiles are already chosen")
            if len(goals) != 3:
                raise BadGoalsError("choose three goal tiles")
            move = ChooseGoals(seat, (goals[0], goals[1], goals[2]))
            g, events = await self._apply(g, seat, move, "user")
            g = await self._run_computers(g)
            return MoveResult(self._info(g), events)

    async def play_turn(self, game_id: int, user_id: int, ply: int,
                        move_text: str) -> MoveResult:
        """One whole turn in engine notation (``h0@C3>m2``); computer turns that follow are
        played before this returns, each committed on its own."""
        async with self._lock(game_id):
            g = await self._load(game_id)
            _, seat = self._require_turn(g, user_id, ply)
            move = parse_move(seat, move_text)
            g, events = await self._apply(g, seat, move, "user")
            g = await self._run_computers(g)
            return MoveResult(self._info(g), events)

    async def preview(self, game_id: int, user_id: int, ply: int, source: int,
                      cell: int | str) -> list[Event]:
        """What placing hand tile ``source`` (market slot, without a hand) on ``cell`` would
        earn. Read only."""
        g = await self._load(game_id)
        state, seat = self._require_turn(g, user_id, ply)
        if isinstance(cell, str):
            try:
                cell = parse_cell(cell)
            except ValueError as e:
                raise NoSuchCellError(str(e)) from None
        return engine_preview(state, seat, source, cell)

    async def _apply(self, g: _Game, seat: int, move: Move, by: str) -> tuple[_Game, list[Event]]:
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
        if status is GameStatus.OVER:
            over = events[-1]
            assert isinstance(over, GameOver)
            tx.set(deadline_at=None)
            tx.results = self._results(g, events, over, tx.now)
            tx.thread(NoticeKind.GAME_OVER, totals=list(over.totals), places=list(over.places),
                      winners=list(over.winners), decided_by=over.decided_by,
                      events=[d for d in dicts if d["kind"] in _END_KINDS])
        elif status is GameStatus.DRAFT:
            tx.delete_timers.append(("turn", seat))
        else:
            self._next_turn(tx)
        return await self._commit(tx), events

    def _next_turn(self, tx: _Tx) -> None:
        """Start the clock of the seat to play next, and prompt its player."""
        g = tx.g
        assert g.state is not None
        seat = g.state.current_seat
        assert seat is not None
        computer = g.seats[seat].ai_level is not None
        timer = turn_timer(g.id, seat, tx.now, g.options.turn_hours, computer)
        tx.clear_turn_timers = True
        if computer or g.clocked:
            tx.upsert_timers.append(timer)
        deadline = timer.deadline_at if g.clocked and not computer else None
        tx.set(deadline_at=deadline)
        if not computer:
            tx.dm(seat, NoticeKind.TURN_PROMPT, seat=seat, deadline_at=_iso(deadline))

    def _results(self, g: _Game, events: list[Event], over: GameOver,
                 now: int) -> list[ResultRow]:
        passed = {e.seat: e.passed for e in events if isinstance(e, ScenarioResult)}
        solo = len(g.seats) == 1
        rows = []
        for i, s in enumerate(g.seats):
            # Solo: a "win" is passing the scenario; a seat a computer finished is not counted.
            win = passed.get(i, False) if solo else over.places[i] == 1
            rows.append(ResultRow(
                game_id=g.id, seat=i, user_id=s.user_id, guild_id=g.guild_id,
                total=over.totals[i], place=over.places[i], win=win,
                counted=s.ai_level is None and s.user_id is not None,
                breakdown=json.dumps(over.scores[i] if i < len(over.scores) else {}),
                finished_at=now))
        return rows

    # ------------------------------------------------------------------ computers

    def _player(self, level: str, state: GameState, seat: int) -> Player:
        # A per-move generator derived one-way from the game seed: reproducible for a stored
        # game, and revealing nothing about the seed.
        digest = hashlib.blake2b(f"{state.seed}:{state.ply}:{seat}".encode(),
                                 digest_size=8).digest()
        seed = int.from_bytes(digest, "big") >> 1
        try:
            return make_player(level, seed)
        except ValueError:
            # Levels other than "random" are being added to the engine; until then, random.
            return make_player("random", seed)

    async def _choose(self, state: GameState, seat: int, level: str) -> Move:
        legal = legal_moves(state, seat)
        player = self._player(level, state, seat)
        view = private_view(state, seat)
        if player.level == "random":
            return player.choose(view, legal)
        # A thinking player may take a while: keep the event loop serving other games.
        return await asyncio.to_thread(player.choose, view, legal)

    def _computer_to_move(self, g: _Game) -> int | None:
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

    async def _run_computers(self, g: _Game) -> _Game:
        """Play every computer move now due, each committed on its own. A failure is logged
        and left to the sweep (the computer's timer stays due), never raised to the caller
        whose own move is already stored."""
        try:
            for _ in range(4 * 23 + 8):
                seat = self._computer_to_move(g)
                if seat is None:
                    break
                level = g.seats[seat].ai_level
                assert g.state is not None and level is not None
                move = await self._choose(g.state, seat, level)
                g, _ = await self._apply(g, seat, move, "computer")
        except Exception:
            log.exception("computer move failed in game %s", g.id)
        return g

    # ------------------------------------------------------------------ leaving and ending

    async def leave_game(self, game_id: int, user_id: int) -> GameInfo:
        """Leave a started game: the seat becomes a computer player and the game goes on (in
        the lobby this is :meth:`leave_lobby`)."""
        async with self._lock(game_id):
            g = await self._load(game_id)
            if g.status is GameStatus.LOBBY:
                return self._info(await self._leave_lobby(g, user_id))
            self._require_started(g)
            seat = self._require_person(g, user_id).seat
            g = await self._convert(g, seat, "left")
            return self._info(await self._run_computers(g))

    async def _convert(self, g: _Game, seat: int, reason: str) -> _Game:
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
            # One person left: their clock stops (see _Game.clocked).
            tx.clear_turn_timers = True
            tx.set(deadline_at=None)
        for i, row in enumerate(tx.g.seats):
            if row.ai_level is not None and g.must_act(i):
                # Due at once: played right after this commit, or by the sweep after a crash.
                tx.upsert_timers.append(turn_timer(g.id, i, tx.now, g.options.turn_hours, True))
        if g.status is GameStatus.PLAY and g.must_act(seat):
            tx.set(deadline_at=None)
        return await self._commit(tx)

    async def abandon(self, game_id: int, by_user_id: int, is_admin: bool = False) -> GameInfo:
        """End a game early (the host, or a server admin). A lobby is cancelled instead."""
        async with self._lock(game_id):
            g = await self._load(game_id)
            if not g.status.active:
                raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
            if not is_admin:
                self._require_host(g, by_user_id)
            if g.status is GameStatus.LOBBY:
                return self._info(await self._end(g, GameStatus.CANCELLED, "cancelled"))
            return self._info(await self._end(g, GameStatus.ABANDONED, "abandoned"))

    async def _end(self, g: _Game, status: GameStatus, reason: str, *,
                   notify: bool = True) -> _Game:
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
        async with self._lock(game_id):
            try:
                g = await self._load(game_id)
            except ManagerError:
                return False
            if g.status.active:
                status = GameStatus.CANCELLED if g.status is GameStatus.LOBBY \
                    else GameStatus.ABANDONED
                await self._end(g, status, reason, notify=False)
                return True
            tx = await self._begin(g)
            tx.skip_pending = True
            await self._commit(tx)
            return False

    async def channel_gone(self, channel_id: int) -> list[int]:
        """A thread or channel was deleted: its games end (no post: there is nowhere to post).
        Returns the ids of the games that ended."""
        ended = []
        for game_id in await self.store.game_ids_in_channel(channel_id):
            if await self._end_silently(game_id, "channel_gone"):
                ended.append(game_id)
        return ended

    async def guild_gone(self, guild_id: int) -> list[int]:
        """The bot left (or lost) a server: all its games end."""
        ended = []
        for game_id in await self.store.game_ids_in_guild(guild_id):
            if await self._end_silently(game_id, "guild_gone"):
                ended.append(game_id)
        return ended

    async def member_left(self, guild_id: int, user_id: int) -> list[int]:
        """A member left the server: they leave its lobbies, and their seats in its started
        games become computer players. Returns the games touched."""
        touched = []
        for game_id in await self.store.game_ids_of_member(guild_id, user_id):
            async with self._lock(game_id):
                g = await self._load(game_id)
                seat = g.person(user_id)
                if seat is None or not g.status.active:
                    continue
                if g.status is GameStatus.LOBBY:
                    await self._leave_lobby(g, user_id)
                else:
                    g = await self._convert(g, seat.seat, "member_left")
                    await self._run_computers(g)
                touched.append(game_id)
        return touched

    async def dm_failed(self, game_id: int, user_id: int) -> None:
        """A DM to this user failed for good (called by the dispatcher). Their DMs count as
        closed for ``dm_retry_after``: queued DMs are dropped, and each game they play gets one
        fallback post in its thread ("use /calico hand")."""
        now = self._now()
        await self._user(user_id)
        others = await self.store.skip_pending_dms(user_id, now)
        for gid in dict.fromkeys([game_id, *others]):
            async with self._lock(gid):
                try:
                    g = await self._load(gid)
                except ManagerError:
                    continue
                tx = await self._begin(g)
                if gid == game_id:
                    tx.user_updates.append((user_id, {"dm_closed_at": now}))
                seat = g.person(user_id)
                if seat is not None and g.status.active:
                    tx.fallback(seat.seat)
                if tx.notices or tx.user_updates:
                    await self._commit(tx)
        if self._users.get(user_id, _DEFAULT_USER).dm_closed_at != now:
            # The game itself was gone: still remember the closed DMs.
            row = await self.store.set_user(user_id, dm_closed_at=now)
            self._users[user_id] = row

    # ------------------------------------------------------------------ time

    async def sweep(self) -> SweepReport:
        """Act on every due timer: reminders, turn deadlines, computer turns left pending,
        idle games; then delete old delivered notices."""
        now = self._now()
        counts: dict[str, int] = {}
        details: list[str] = []
        seen: set[tuple[int, str, int]] = set()
        for _ in range(1000):
            due = await self.store.due_timers(now, self.config.sweep_batch)
            fresh = [t for t in due if (t.game_id, t.kind, t.seat) not in seen]
            for t in fresh:
                seen.add((t.game_id, t.kind, t.seat))
                try:
                    step = await self._fire(t, now)
                except Exception:
                    log.exception("timer %s failed", t)
                    continue
                if step:
                    counts[step] = counts.get(step, 0) + 1
                    details.append(f"game {t.game_id} seat {t.seat}: {step}")
            if len(due) < self.config.sweep_batch or not fresh:
                break
        keep = int(self.config.outbox_keep.total_seconds() * 1000)
        pruned = await self.store.prune_outbox(now - keep)
        return SweepReport(
            reminders=counts.get("reminder", 0) + counts.get("reminder_thread", 0),
            reminders_in_thread=counts.get("reminder_thread", 0),
            reminders_skipped=counts.get("skipped", 0),
            autoplayed=counts.get(Step.AUTOPILOT, 0), converted=counts.get(Step.CONVERT, 0),
            computer_moves=counts.get(Step.COMPUTER_MOVE, 0), stalled=counts.get(Step.STALL, 0),
            ended=counts.get("idle", 0), pruned=pruned, details=details)

    async def _fire(self, t: TimerRow, now: int) -> str | None:
        async with self._lock(t.game_id):
            current = [x for x in await self.store.timers(t.game_id)
                       if x.kind == t.kind and x.seat == t.seat]
            if not current or current[0].due_at > now:
                return None  # moved on since the scan
            timer = current[0]
            try:
                g = await self._load(t.game_id)
            except ManagerError:
                return None
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
            if decision.step is Step.COMPUTER_MOVE:
                await self._run_computers(g)
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
            return decision.step.value

    async def _remind(self, g: _Game, timer: TimerRow, final: bool, next_due: int | None,
                      now: int) -> str:
        """A reminder for the seat of ``timer``: a DM, or, while their DMs are closed, a post in
        the game's thread that pings them. Either way at most one per ``reminder_gap`` per
        person, and none at all for someone who turned reminders off."""
        row = g.seats[timer.seat]
        assert row.user_id is not None
        user = await self._user(row.user_id)
        gap = int(self.config.reminder_gap.total_seconds() * 1000)
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
            payload: dict[str, Any] = {
                "seat": timer.seat, "deadline_at": _iso(timer.deadline_at), "final": final,
                "action": g.options.timeout_action.value, "phase": g.status.value,
                "waiting": waiting}
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

    async def get_game(self, game_id: int) -> GameInfo:
        return self._info(await self._load(game_id))

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
        ids = await self.store.game_ids_for_user(user_id, active_only, limit)
        return [self._info(await self._load(i)) for i in ids]

    async def game_for_thread(self, thread_id: int) -> GameInfo | None:
        ids = await self.store.game_ids_for_thread(thread_id)
        return None if not ids else self._info(await self._load(ids[0]))

    async def user_stats(self, user_id: int, guild_id: int | None = None) -> UserStats:
        games, wins, average, best = await self.store.user_stats(user_id, guild_id)
        return UserStats(user_id, games, wins, average, best)

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[LeaderboardEntry]:
        return [LeaderboardEntry(*row) for row in await self.store.leaderboard(guild_id, limit)]

    async def get_settings(self, user_id: int) -> UserSettings:
        u = await self._user(user_id)
        return UserSettings(user_id, u.reminders,
                            None if u.dm_closed_at is None else from_ms(u.dm_closed_at))

    async def user_locale(self, user_id: int, default: str = "en-US") -> str:
        """The Discord locale stored with this person (from their last lobby, join or game
        start), else ``default``: the language of their DMs."""
        return (await self._user(user_id)).locale or default

    async def set_settings(self, user_id: int, reminders: bool) -> UserSettings:
        row = await self.store.set_user(user_id, reminders=int(reminders))
        self._users[user_id] = row
        return await self.get_settings(user_id)

    def now(self) -> datetime:
        return self.clock.now()
