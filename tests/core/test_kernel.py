"""The kernel's promises: a change is stored only at the version it read (else nothing is
stored and ``mutate`` redoes it on the fresh game), ``versioned`` gives up with ``stale``, the
changes of one game run one at a time, ``wait_for``/``wait_until`` return as soon as a change
makes them true (this process's commit, a feature's topic, another process's notification) or
with the value as it stands at the timeout, the cache holds what its bounds allow, and user
rows are cached and refreshed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import leaving, lobby, queries, turns
from bot.core.clock import FakeClock
from bot.core.game import LiveGame
from bot.core.kernel import StaleError
from bot.core.manager import Manager, ManagerConfig
from bot.core.models import ErrorCode, GameStatus, ManagerError
from bot.core.notices import Ended, NoticeKind
from bot.core.storage import GameWrite, StaleWriteError
from bot.core.storage.steps import Plan, notify
from engine.moves import PlaceTile
from engine.rules import legal_moves
from tests.core.conftest import ANN, BOB, CAT, new_game, seeds, snapshot, step


def has(user_id: int):  # type: ignore[no-untyped-def]
    return lambda g: any(s.user_id == user_id for s in g.seats)


async def test_a_write_whose_version_moved_raises_and_stores_nothing(manager: Manager) -> None:
    k = manager.kernel
    g = await new_game(manager, players=3, start=False)
    tx = await k.begin(await k.load(g.id))
    tx.set(thread_id=4242)
    tx.thread(Ended(reason="from an old read"))
    joined = await lobby.join(k, g.id, BOB)  # another change commits first
    before = await snapshot(manager, g.id)
    with pytest.raises(StaleError):
        await k.commit(tx)
    assert await snapshot(manager, g.id) == before
    now = await queries.game(k, g.id)
    assert now.thread_id == g.thread_id and now.version == joined.version
    assert now.seats == joined.seats


async def test_mutate_redoes_the_change_on_the_fresh_game(manager: Manager) -> None:
    """The first attempt reads the cached game; another writer moves it on meanwhile; the
    change is run again on the stored game and stored once, keeping the other's write."""
    k = manager.kernel
    g = await new_game(manager, players=3, start=False)
    seen: list[tuple[int, int | None]] = []

    async def change(live: LiveGame) -> LiveGame:
        seen.append((live.version, live.lobby_message_id))
        if len(seen) == 1:  # someone else writes between this read and its commit
            await manager.store.commit(GameWrite(live.id, live.version, k.now_ms(),
                                                 columns={"lobby_message_id": 555}))
        tx = await k.begin(live)
        tx.set(thread_id=900 + len(seen))
        tx.thread(Ended(reason=f"attempt {len(seen)}"))
        return await k.commit(tx)

    done = await k.mutate(g.id, change)
    assert seen == [(g.version, g.lobby_message_id), (g.version + 1, 555)]
    stored = await queries.game(k, g.id, fresh=True)
    assert (stored.thread_id, stored.lobby_message_id) == (902, 555)
    assert stored.version == done.version == g.version + 2
    said = [n.body for n in await manager.store.notices(g.id) if n.kind == NoticeKind.ENDED]
    assert said == [Ended(reason="attempt 2")]


async def test_versioned_gives_up_with_stale_after_its_attempts(
        sqlite_manager: Manager) -> None:
    k = sqlite_manager.kernel
    reads = 0

    async def read() -> int:
        nonlocal reads
        reads += 1
        return reads

    async def always_behind(n: int) -> None:
        raise StaleError() if n % 2 else StaleWriteError("moved")

    with pytest.raises(ManagerError) as refused:
        await k.versioned(read, always_behind, attempts=4, what="the cup")
    assert refused.value.code == ErrorCode.STALE and reads == 4

    async def third_time(n: int) -> str:
        if n < 7:
            raise StaleError()
        return f"done at read {n}"

    assert await k.versioned(read, third_time) == "done at read 7"

    async def broken(_n: int) -> None:
        raise ValueError("not a version problem")

    with pytest.raises(ValueError):
        await k.versioned(read, broken)
    assert reads == 8  # anything else is raised at once, never retried


async def test_the_changes_of_one_game_run_one_at_a_time(sqlite_manager: Manager) -> None:
    m = sqlite_manager
    k = m.kernel
    a = await new_game(m, players=3, start=False)
    b = await new_game(m, host=CAT, players=3, start=False)
    log: list[tuple[str, int]] = []

    def slow_change(name: str):  # type: ignore[no-untyped-def]
        async def change(live: LiveGame) -> LiveGame:
            log.append((f"{name} in", live.version))
            await asyncio.sleep(0.05)
            tx = await k.begin(live)
            tx.set(lobby_message_id=len(log))
            new = await k.commit(tx)
            log.append((f"{name} out", new.version))
            return new

        return change

    await asyncio.gather(k.mutate(a.id, slow_change("a1")), k.mutate(a.id, slow_change("a2")),
                         k.mutate(b.id, slow_change("b")))
    mine = [e for e in log if e[0].startswith("a")]
    v = a.version
    assert mine == [("a1 in", v), ("a1 out", v + 1), ("a2 in", v + 1), ("a2 out", v + 2)]
    # Another game's change is not held by this game's lock.
    assert log.index(("b in", b.version)) < log.index(("a1 out", v + 1))


async def test_wait_for_returns_as_soon_as_a_commit_makes_it_true(manager: Manager) -> None:
    k = manager.kernel
    g = await new_game(manager, players=3, start=False)
    waiting = asyncio.create_task(queries.wait_for(k, g.id, has(BOB.id), timeout=30))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await lobby.join(k, g.id, CAT)  # a change that does not make it true
    await asyncio.sleep(0.05)
    assert not waiting.done()
    loop = asyncio.get_running_loop()
    joined_at = loop.time()
    await lobby.join(k, g.id, BOB)
    got = await asyncio.wait_for(waiting, 5)
    # Woken by the commit: well before the wait's own look at the stored game (every 2 s).
    assert loop.time() - joined_at < 1.0
    assert [s.user_id for s in got.seats] == [ANN.id, CAT.id, BOB.id]


async def test_wait_for_gives_the_game_as_it_stands_at_the_timeout(manager: Manager) -> None:
    k = manager.kernel
    g = await new_game(manager, players=3, start=False)
    loop = asyncio.get_running_loop()
    start = loop.time()
    got = await queries.wait_for(k, g.id, has(BOB.id), timeout=0.3)
    assert 0.3 <= loop.time() - start < 1.5
    assert got == await queries.game(k, g.id)
    with pytest.raises(ManagerError) as missing:
        await queries.wait_for(k, g.id + 100, has(BOB.id), timeout=0.1)
    assert missing.value.code == ErrorCode.UNKNOWN_GAME


async def test_a_changed_topic_wakes_wait_until(sqlite_manager: Manager) -> None:
    k = sqlite_manager.kernel
    box = {"tables": 0}
    reads: list[bool] = []

    async def read(fresh: bool) -> int:
        reads.append(fresh)
        return box["tables"]

    waiting = asyncio.create_task(k.wait_until("tournament:5", read, lambda n: n >= 2, 30))
    await asyncio.sleep(0.05)
    k.changed("tournament:6")  # someone else's topic
    box["tables"] = 1
    k.changed("tournament:5")  # not enough yet: read again, wait on
    await asyncio.sleep(0.05)
    assert len(reads) == 2 and not waiting.done()
    box["tables"] = 2
    k.changed("tournament:5")
    assert await asyncio.wait_for(waiting, 1) == 2
    assert len(reads) == 3


def _notify(payload: str) -> Plan[None]:
    yield from notify(payload)


async def test_another_process_wakes_waits_and_refreshes_user_rows(pg_db: str,
                                                                    clock: FakeClock) -> None:
    """Two processes on one PostgreSQL database: one's commit wakes the other's wait_for, a
    feature's topic it changes wakes the other's wait_until, and a user row it writes is
    read afresh by the other."""
    a = await Manager.open(pg_db, clock=clock, seed_source=seeds())
    b = await Manager.open(pg_db, clock=clock, seed_source=seeds(1000))
    try:
        g = await new_game(a, players=3, start=False)
        loop = asyncio.get_running_loop()
        waiting = asyncio.create_task(queries.wait_for(b.kernel, g.id, has(BOB.id), 30))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        joined_at = loop.time()
        await lobby.join(a.kernel, g.id, BOB)
        got = await asyncio.wait_for(waiting, 5)
        assert loop.time() - joined_at < 1.5  # the notification, not the 2 s look
        assert has(BOB.id)(got)

        box = {"round": 1}

        async def read(_fresh: bool) -> int:
            return box["round"]

        topic = asyncio.create_task(b.kernel.wait_until("tournament:9", read,
                                                        lambda r: r == 2, 30))
        await asyncio.sleep(0.2)
        box["round"] = 2  # what b would read in the database once told
        told_at = loop.time()
        await a.store.transact(_notify("x:tournament:9"))
        assert await asyncio.wait_for(topic, 5) == 2
        assert loop.time() - told_at < 1.5

        assert (await b.kernel.user(BOB.id)).reminders
        await queries.set_settings(a.kernel, BOB.id, reminders=False)
        for _ in range(100):  # the notification is on its way
            if not (await b.kernel.user(BOB.id)).reminders:
                break
            await asyncio.sleep(0.02)
        assert not (await b.kernel.user(BOB.id)).reminders
    finally:
        await b.close()
        await a.close()


async def test_the_cache_holds_what_its_bounds_allow(sqlite_path: Path,
                                                     clock: FakeClock) -> None:
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds(),
                           config=ManagerConfig(cache_size=3, ended_cache_size=1))
    try:
        k = m.kernel
        games = [await new_game(m, host=host, players=2, start=False)
                 for host in (ANN, BOB, CAT, ANN, BOB)]
        assert {g.id for g in k.cached_games()} == {g.id for g in games[2:]}
        for g in games[3:]:
            await lobby.cancel(k, g.id, g.host_id)
        ended = [g for g in k.cached_games() if not g.status.active]
        assert [g.id for g in ended] == [games[4].id]  # the newest ended game only
        # A game that left the cache reads back whole.
        first = await queries.game(k, games[0].id)
        assert first == games[0]
        assert k.cached(games[0].id) is not None
    finally:
        await m.close()


async def test_user_rows_are_cached_and_refreshed_by_what_this_process_stores(
        sqlite_manager: Manager) -> None:
    m = sqlite_manager
    k = m.kernel
    nobody = await k.user(4321)
    assert (nobody.user_id, nobody.name, nobody.reminders) == (4321, "", True)
    await new_game(m, players=2, start=False)  # stores Ann's name with her lobby
    assert (await k.user(ANN.id)).name == ANN.name
    await m.store.set_user(ANN.id, reminders=0)  # behind the kernel's back
    assert (await k.user(ANN.id)).reminders  # the cached row
    settings = await queries.set_settings(k, ANN.id, describe=True)
    assert not settings.reminders and settings.describe  # stored through it: read afresh
    assert (await k.user(ANN.id)).describe


@pytest.fixture
async def two_processes(sqlite_path: Path,
                        clock: FakeClock) -> AsyncIterator[tuple[Manager, Manager]]:
    """``here`` and ``there`` on one database, ``here``'s store taken as shared with other
    processes (as PostgreSQL's is). SQLite tells nobody of a commit, so ``here``'s cached copy
    stays behind ``there``'s writes for as long as the test needs."""
    here = await Manager.open(sqlite_path, clock=clock, seed_source=seeds(), exclusive=False)
    there = await Manager.open(sqlite_path, clock=clock, seed_source=seeds(50), exclusive=False)
    here.store.shared = True
    try:
        yield here, there
    finally:
        await there.close()
        await here.close()


async def test_a_refusal_from_a_copy_another_process_moved_on_is_redone_on_the_stored_game(
        two_processes: tuple[Manager, Manager]) -> None:
    here, there = two_processes
    g = await new_game(here, players=3, start=False)
    await lobby.join(there.kernel, g.id, BOB)  # here's copy: Bob has not joined
    left = await leaving.leave_game(here.kernel, g.id, BOB.id)
    assert [s.user_id for s in left.seats] == [ANN.id]
    with pytest.raises(ManagerError) as refused:  # a refusal the stored game confirms stays
        await leaving.leave_game(here.kernel, g.id, CAT.id)
    assert refused.value.code == ErrorCode.NOT_A_PLAYER


async def test_a_read_refused_by_a_copy_another_process_moved_on_is_read_again(
        two_processes: tuple[Manager, Manager]) -> None:
    here, there = two_processes
    g = await new_game(here, people=(BOB,), setup="beginner")
    assert g.status is GameStatus.PLAY and g.current_user_id is not None
    first = g.current_user_id
    g = await step(there, g, first)  # a turn played through the other process
    assert g.current_user_id not in (None, first)
    user = g.current_user_id
    assert user is not None and g.state is not None
    move = legal_moves(g.state, g.state.current_seat or 0)[0]
    assert isinstance(move, PlaceTile) and move.hand is not None
    events = await turns.preview(here.kernel, g.id, user, g.ply, move.hand, move.cell)
    assert events  # here's copy still had the first player to move


async def test_a_fresh_read_is_the_stored_game_and_decodes_only_what_moved(
        two_processes: tuple[Manager, Manager]) -> None:
    """``queries.game(fresh=True)`` (what the site reads ~100 times a second): the game as
    stored now, from this process's copy while the stored version is still that copy's, read
    and decoded again once another process moved it on."""
    here, there = two_processes
    g = await new_game(here, people=(BOB,), setup="beginner")
    copy = await here.kernel.load(g.id)
    assert await here.kernel.current(g.id) is copy  # unchanged: nothing read but the version
    assert (await queries.game(here.kernel, g.id, fresh=True)).version == copy.version
    assert g.current_user_id is not None
    moved = await step(there, g, g.current_user_id)
    fresh = await queries.game(here.kernel, g.id, fresh=True)
    assert fresh.version == moved.version > copy.version
    assert fresh.ply == moved.ply and fresh.current_user_id == moved.current_user_id
    # A version already read (with a list of games) is taken as it is: no second read.
    again = await here.kernel.load(g.id)
    assert await here.kernel.current(g.id, again.version) is again
    assert (await here.kernel.current(g.id, again.version - 1)).version == again.version
