"""Helpers of the tournament suite (the fixtures ``manager``, ``clock``, ``db_path`` and
``pg_db`` come from ``tests/core/conftest.py``): a tournament's spec, entrants signed up, its
start, a second process on its database, a round's tables and games played out with random
moves, the posts it queued, and a manager on SQLite alone for the longer runs (the store suite
runs on both backends)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.core import queries
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import GameInfo, ManagerError, UserRef
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.core.tournament.model import Post
from tests.core.conftest import CHANNEL, GUILD, opts, play_out, seeds

ORGANISER = UserRef(2900, "Olive")
PEOPLE = [UserRef(3000 + i, f"P{i}") for i in range(10)]
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
async def second(db_path: str, clock: FakeClock, manager: Manager) -> AsyncIterator[Manager]:
    """A second process on the manager's database."""
    m = await Manager.open(db_path, clock=clock, seed_source=seeds(50), exclusive=False)
    try:
        yield m
    finally:
        await m.close()


def spec(clock: FakeClock, fmt: str = tour.SWISS, rounds: int = 3, size: int = 2, *,
         name: str = "Spring Cup", round_hours: float = 24.0, **options: Any) -> tour.Spec:
    """Sign-up for a day, round 1 a day later, rounds of ``round_hours``; beginner games
    against random computers (fast)."""
    now = to_ms(clock.now())
    options.setdefault("setup", "beginner")
    return tour.Spec(name, fmt, rounds, size, opts(**options), now + 86_400_000,
                     now + 2 * 86_400_000, round_hours)


async def create(m: Manager, clock: FakeClock, **kw: Any) -> tour.TournamentInfo:
    return await signup.create(m.kernel, ORGANISER, GUILD, CHANNEL, spec(clock, **kw))


async def signed_up(m: Manager, clock: FakeClock, count: int,
                    **kw: Any) -> tour.TournamentInfo:
    """A tournament with the first ``count`` of :data:`PEOPLE` signed up."""
    t = await create(m, clock, **kw)
    for p in PEOPLE[:count]:
        t = await signup.join(m.kernel, t.id, p)
    return t


async def started(m: Manager, clock: FakeClock, count: int,
                  **kw: Any) -> tour.TournamentInfo:
    """Signed up, its start time come and the sweep run: round 1 paired, its games open."""
    t = await signed_up(m, clock, count, **kw)
    clock.advance(2 * DAY)
    await m.sweep()
    return await records.get(m.kernel, t.id)


async def round_tables(m: Manager, tid: int, round_no: int) -> list[tour.Table]:
    return [x for x in await records.tables(m.kernel, tid) if x.round == round_no]


async def round_games(m: Manager, tid: int, round_no: int) -> list[GameInfo]:
    return [await queries.game(m.kernel, x.game_id, fresh=True)
            for x in await round_tables(m, tid, round_no) if x.game_id is not None]


async def play_round(m: Manager, tid: int, round_no: int, rng: random.Random,
                     skip: frozenset[int] = frozenset()) -> None:
    """Every open game of the round played to its end with random moves (but ``skip``)."""
    for g in await round_games(m, tid, round_no):
        if g.id not in skip and g.status.active:
            await play_out(m, g, rng)


async def until(m: Manager, ready: Callable[[], Awaitable[bool]], tries: int = 20) -> None:
    """Sweep (and let what the sweep started run) until ``ready``."""
    for _ in range(tries):
        if await ready():
            return
        await m.sweep()
        await asyncio.sleep(0.01)
    assert await ready(), "the sweep never got there"


async def at_round(m: Manager, tid: int, round_no: int) -> bool:
    return (await records.get(m.kernel, tid)).round >= round_no


async def run_to_end(m: Manager, tid: int, rng: random.Random, limit: int = 25) -> None:
    """Play each round's games and sweep until the tournament is over."""
    for _ in range(limit):
        t = await records.get(m.kernel, tid)
        if t.status != tour.RUNNING:
            return
        await play_round(m, tid, t.round, rng)
        await m.sweep()
    raise AssertionError("the tournament never ended")


async def posts(m: Manager) -> list[tuple[str, int | None]]:
    """The tournament posts queued (their kind and round), oldest first."""
    return [(n.body.what.value, n.body.round) for n in await m.store.notices(0)
            if n.kind == Post.kind]


def kinds(found: list[tuple[str, int | None]]) -> list[str]:
    return [what for what, _ in found]


async def refused(call: Awaitable[object], code: str) -> None:
    with pytest.raises(ManagerError) as caught:
        await call
    assert caught.value.code == code


@pytest.fixture
async def sqlite_manager(tmp_path: Path, clock: FakeClock) -> AsyncIterator[Manager]:
    """A manager on SQLite only: for whole tournaments played out (the suite of the store
    runs both backends)."""
    m = await Manager.open(tmp_path / "calico.db", clock=clock, seed_source=seeds(),
                           exclusive=False)
    try:
        yield m
    finally:
        await m.close()
