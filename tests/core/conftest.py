"""Fixtures for the manager tests: a fake clock, a manager on a temporary file, a recording
Delivery, and helpers to play moves and to compare what is stored before and after a call."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.core import lobby, queries, turns
from bot.core.clock import FakeClock
from bot.core.manager import Manager, ManagerConfig
from bot.core.models import GameInfo, GameStatus, LobbyOptions, UserRef
from bot.core.notices import Notice
from bot.core.outbox import DeliveryError, Receipt
from engine.rules import apply, legal_moves
from engine.state import Phase
from tests.pgserver import fresh_database

ANN = UserRef(1001, "Ann")
BOB = UserRef(1002, "Bob")
CAT = UserRef(1003, "Cat")
DAN = UserRef(1004, "Dan")
GUILD = 500
CHANNEL = 600
THREAD = 700


def seeds(start: int = 1) -> Any:
    """A deterministic engine seed source for reproducible games."""
    counter = iter(range(start, 1 << 30))
    return lambda: next(counter)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


BACKENDS = ("sqlite", "postgresql")


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "calico.db"


@pytest.fixture(params=BACKENDS)
async def db_path(request: pytest.FixtureRequest, tmp_path: Path,
                  pg_admin: tuple[str | None, str]) -> AsyncIterator[str]:
    """Where a test's database lives: a fresh SQLite file, or a fresh PostgreSQL database (the
    manager, storage and outbox suites run against both backends)."""
    if request.param == "sqlite":
        yield str(tmp_path / "calico.db")
        return
    async with fresh_database(pg_admin) as url:
        yield url


@pytest.fixture
async def manager(db_path: str, clock: FakeClock) -> AsyncIterator[Manager]:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds(), exclusive=False)
    try:
        yield m
    finally:
        await m.close()


@pytest.fixture
async def sqlite_manager(sqlite_path: Path, clock: FakeClock) -> AsyncIterator[Manager]:
    """A manager on SQLite only, for what does not depend on the backend (the flow, the
    hooks, this process's locks and cache)."""
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    try:
        yield m
    finally:
        await m.close()


def opts(**kw: Any) -> LobbyOptions:
    kw.setdefault("ai_level", "random")
    return LobbyOptions(**kw)


async def new_game(m: Manager, host: UserRef = ANN, *, people: tuple[UserRef, ...] = (),
                   computers: int = 0, start: bool = True, **options: Any) -> GameInfo:
    options.setdefault("players", 1 + len(people) + computers)
    g = await lobby.create_game(m.kernel, host, GUILD, CHANNEL, opts(**options))
    g = await lobby.attach_thread(m.kernel, g.id, THREAD + g.id, 9000 + g.id)
    for p in people:
        g = await lobby.join(m.kernel, g.id, p)
    for _ in range(computers):
        g = await lobby.add_computer(m.kernel, g.id, host.id, "random")
    if start:
        g = await lobby.start(m.kernel, g.id, host.id)
    return g


def any_move(g: GameInfo, user_id: int, rng: random.Random | None = None) -> str:
    """A legal move text for ``user_id`` in ``g`` (goals or a turn)."""
    assert g.state is not None
    seat = g.seat_of(user_id)
    assert seat is not None
    legal = legal_moves(g.state, seat)
    assert legal, "no legal move"
    return (rng or random).choice(legal).text()


async def step(m: Manager, g: GameInfo, user_id: int, rng: random.Random | None = None) -> GameInfo:
    """One move by ``user_id`` (their goal choice in the draft, their turn in play), and the
    game once the computers that think and follow have moved (they are queued)."""
    text = any_move(g, user_id, rng)
    if g.status is GameStatus.DRAFT:
        r = await turns.choose_goals(m.kernel, g.id, user_id, g.ply, text[6:].split(","))
    else:
        r = await turns.play_turn(m.kernel, g.id, user_id, g.ply, text)
    return await settled(m, r.game)


async def settled(m: Manager, g: GameInfo) -> GameInfo:
    """The game once no computer turn of it is queued or being played."""
    await m.kernel.computers_idle(g.id)
    return await queries.game(m.kernel, g.id)


async def play_out(m: Manager, g: GameInfo, rng: random.Random | None = None,
                   limit: int = 500) -> GameInfo:
    """Play every person's moves at random until the game ends."""
    g = await settled(m, g)
    for _ in range(limit):
        if not g.status.active:
            return g
        if g.status is GameStatus.DRAFT:
            who = g.drafting_user_ids[0]
        else:
            who = g.current_user_id  # type: ignore[assignment]
            assert who is not None
        g = await step(m, g, who, rng)
    raise AssertionError("game did not end")


async def to_last_move(m: Manager, g: GameInfo, seed: int = 0) -> GameInfo:
    """``g`` moved on, straight in the engine, to one move before its end, stored as one
    change (without its moves in the log): a quick way to a game's end for the tests of it."""
    k = m.kernel
    live = await k.load(g.id)
    assert live.state is not None
    rng = random.Random(seed)
    state = live.state
    while True:
        after, _ = apply(state, rng.choice(legal_moves(state)))
        if after.phase is Phase.OVER:
            break
        state = after
    tx = await k.begin(live)
    tx.set(state=state, ply=state.ply)
    return (await k.commit(tx)).info()


async def snapshot(m: Manager, game_id: int) -> tuple[Any, ...]:
    """Everything stored about a game, to check a refused call changed nothing."""
    row = await m.store.load_game(game_id)
    moves = await m.store.moves(game_id)
    notices = await m.store.notices(game_id)
    timers = await m.store.timers(game_id)
    return row, len(moves), [(n.id, n.status) for n in notices], timers


@dataclass
class RecordingDelivery:
    """A Delivery that records keys like Discord's nonce check: a key seen again is not shown
    twice (``shown``), but every call is counted (``calls``)."""

    fail: dict[str, list[DeliveryError]] = field(default_factory=dict)  # key -> errors to raise
    fail_dm_users: set[int] = field(default_factory=set)  # permanent 50007 for these users
    calls: list[str] = field(default_factory=list)
    shown: list[Notice] = field(default_factory=list)

    async def deliver(self, notice: Notice) -> Receipt | None:
        self.calls.append(notice.key)
        errors = self.fail.get(notice.key)
        if errors:
            raise errors.pop(0)
        if notice.user_id is not None and notice.user_id in self.fail_dm_users:
            raise DeliveryError("50007 cannot send messages to this user", permanent=True)
        self.shown.append(notice)
        return None

    def kinds(self) -> list[str]:
        return [n.kind for n in self.shown]

    def thread_kinds(self) -> list[str]:
        return [n.kind for n in self.shown if n.user_id is None]


def fast_config(**kw: Any) -> ManagerConfig:
    return ManagerConfig(**kw)


def json_keys(value: object) -> set[str]:
    """Every key at any depth of a JSON value: to check that a secret's name never appears."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in json_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in json_keys(v)}
    return set()

