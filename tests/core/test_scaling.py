"""What keeps the bot fast and lossless as it grows (on both backends): a poisoned timer backs
off instead of blocking the others; lanes take turns, so one game's backlog does not hold
another's first notice; each delivery is recorded at once, so a crash repeats at most the
notice in flight; retention prunes only what may go; per-player totals always equal the
results recomputed from scratch."""

from __future__ import annotations

import asyncio
import logging
import random
from collections import defaultdict
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import lobby, queries
from bot.core.clock import FakeClock, to_ms
from bot.core.kernel import Kernel
from bot.core.manager import Manager, ManagerConfig
from bot.core.models import GameStatus
from bot.core.notices import Notice, NoticeKind
from bot.core.outbox import DeliveryError, Receipt
from bot.core.storage import GameWrite, NoticeDraft, ResultRow
from tests.core.conftest import ANN, BOB, CAT, DAN, RecordingDelivery, new_game, seeds, step


async def raw_sql(m: Manager, sql: str) -> None:
    """A statement straight to the database (to break things the manager never would)."""
    store = m.store
    if store.backend == "sqlite":
        await store.db.run(lambda c: c.execute(sql))  # type: ignore[attr-defined]
    else:
        await store.pool.execute(sql)  # type: ignore[attr-defined]


async def sqlite_pragma(m: Manager, name: str) -> int | None:
    """A SQLite pragma's value (None on PostgreSQL)."""
    store = m.store
    if store.backend != "sqlite":
        return None
    return int(await store.db.run(  # type: ignore[attr-defined]
        lambda c: c.execute(f"PRAGMA {name}").fetchone()[0]))


async def poison(m: Manager, game_id: int) -> None:
    """Make a game unloadable (its stored state is not JSON any more)."""
    await raw_sql(m, f"UPDATE games SET state = '{{broken' WHERE id = {game_id}")
    m.kernel.forget(game_id)


async def test_poisoned_timers_back_off_and_never_block_the_others(
        manager: Manager, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    m = Manager(Kernel(manager.store, clock=clock, seed_source=seeds(100),
                config=ManagerConfig(sweep_batch=5, reminder_gap=timedelta(0))))
    broken = [await new_game(m, people=(BOB,), setup="beginner", timeout_action="remind",
                             turn_hours=1) for _ in range(12)]
    clock.advance(minutes=1)  # the healthy games' timers come due after the broken ones'
    healthy = [await new_game(m, host=CAT, people=(DAN,), setup="beginner",
                              timeout_action="remind", turn_hours=1) for _ in range(3)]
    for g in broken:
        await poison(m, g.id)
    clock.advance(minutes=30)
    with caplog.at_level(logging.ERROR, logger="calico.manager"):
        report = await m.sweep()
    # Every healthy timer fired in this very sweep, behind a dozen failing ones.
    assert report.failed == 12
    assert {d.split(" seat")[0] for d in report.details} == {f"game {g.id}" for g in healthy}
    assert len([r for r in caplog.records if "failed; retried" in r.getMessage()]) == 12
    # Failing timers back off: the next sweep leaves them alone.
    caplog.clear()
    again = await m.sweep()
    assert again.failed == 0 and again.reminders == 0
    assert m.kernel.timer_failures == 12
    # Later they are tried again, counted again, logged no more.
    clock.advance(minutes=2)
    with caplog.at_level(logging.ERROR, logger="calico.manager"):
        later = await m.sweep()
    assert later.failed == 12 and not caplog.records
    timers = [t for g in broken for t in await m.store.timers(g.id)]
    assert {t.failures for t in timers if t.kind == "turn"} == {2}


async def test_a_long_lane_does_not_hold_another_games_first_notice(manager: Manager) -> None:
    busy = await new_game(manager, computers=1, setup="beginner")
    row = await manager.store.load_game(busy.id)
    assert row is not None
    backlog = [NoticeDraft(NoticeKind.ENDED.value, None, row.ply, '{"reason":"test"}')
               for _ in range(300)]
    await manager.store.commit(GameWrite(game_id=busy.id, expect_version=row.version,
                                         now=to_ms(manager.kernel.now()), notices=backlog))
    manager.kernel.forget(busy.id)
    other = await new_game(manager, host=CAT, computers=1, setup="beginner")
    order: list[int] = []

    class Slow(RecordingDelivery):
        async def deliver(self, notice: Notice) -> Receipt | None:
            await asyncio.sleep(0)
            order.append(notice.game_id)
            return await super().deliver(notice)

    d = manager.dispatcher(Slow(), concurrency=2, per_lane=8)
    task = asyncio.create_task(d.run_forever())
    try:
        for _ in range(500):
            if other.id in order:
                break
            await asyncio.sleep(0.01)
    finally:
        d.stop()
        await task
    first = order.index(other.id)
    assert first < 40, first  # within the first round of lanes, not after 300 of busy's
    assert order.count(busy.id) < 300


async def test_each_delivery_is_recorded_at_once(manager: Manager) -> None:
    """A dispatcher stopped in the middle of a lane: what Discord accepted is recorded; only
    the notice in flight is delivered again."""
    g = await new_game(manager, people=(BOB,), setup="beginner")
    for _ in range(4):
        g = await step(manager, g, g.current_user_id)  # type: ignore[arg-type]
    hung = asyncio.Event()

    class Hangs(RecordingDelivery):
        async def deliver(self, notice: Notice) -> Receipt | None:
            if len(self.shown) == 3:
                hung.set()
                await asyncio.Event().wait()
            return await super().deliver(notice)

    first = Hangs()
    d = manager.dispatcher(first, concurrency=1, per_lane=50)
    task = asyncio.create_task(d.run_once())
    await hung.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    done = {n.key for n in await manager.store.notices() if n.status == "done"}
    assert done == {n.key for n in first.shown} and len(done) == 3
    second = RecordingDelivery()
    d2 = manager.dispatcher(second)
    while await d2.run_once():
        pass
    assert not done & set(second.calls)  # nothing delivered before is delivered again
    assert sorted(first.calls[:3] + second.calls) == sorted(
        n.key for n in await manager.store.notices())


async def test_retention_prunes_only_what_may_be_pruned(manager: Manager,
                                                        clock: FakeClock) -> None:
    over = await new_game(manager, people=(BOB,), setup="beginner")
    rng = random.Random(4)
    from tests.core.conftest import play_out

    over = await play_out(manager, over, rng)
    playing = await new_game(manager, host=CAT, people=(DAN,), setup="beginner")
    d = manager.dispatcher(RecordingDelivery())
    while await d.run_once():
        pass
    # One notice that keeps failing stays pending all along.
    stuck_game = await new_game(manager, host=ANN, computers=1, setup="beginner")
    stuck = next(n for n in await manager.store.notices(stuck_game.id)
                 if n.kind == NoticeKind.STARTED)
    failing = RecordingDelivery(fail={stuck.key: [DeliveryError("503")] * 1000})
    d = manager.dispatcher(failing, max_delay=3600, ttl=timedelta(days=30))
    await d.run_once()
    moves_before = len(await manager.store.moves(over.id))
    clock.advance(days=13)
    assert (await manager.sweep()).pruned == 0  # younger than the 14 days kept
    clock.advance(days=2)
    pages_before = await sqlite_pragma(manager, "page_count")
    report = await manager.sweep()
    remaining = await manager.store.notices()
    assert report.pruned > 0
    if pages_before is not None:  # SQLite: the pages pruning freed went back to the disk
        assert await sqlite_pragma(manager, "freelist_count") == 0
        pages_after = await sqlite_pragma(manager, "page_count")
        assert pages_after is not None and pages_after < pages_before - 1
    assert {n.key for n in remaining} == {n.key for n in remaining if n.status == "pending"}
    assert stuck.key in {n.key for n in remaining}  # pending: never pruned
    # What a finished game needs for stats, replays and reviews stays.
    assert len(await manager.store.moves(over.id)) == moves_before
    assert len(await manager.store.results(over.id)) == 2
    assert (await queries.game(manager.kernel, over.id)).status is GameStatus.OVER
    assert (await queries.game(manager.kernel, playing.id)).status.active


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.tuples(st.sampled_from([11, 12, 13]),  # server
                               st.integers(min_value=1, max_value=4),  # seats
                               st.lists(st.integers(min_value=0, max_value=90), min_size=4,
                                        max_size=4),  # totals
                               st.lists(st.booleans(), min_size=4, max_size=4),  # counted
                               st.lists(st.sampled_from([ANN.id, BOB.id, CAT.id, DAN.id]),
                                        min_size=4, max_size=4)),
                     min_size=1, max_size=12))
async def test_leaderboard_totals_equal_the_results_recomputed(
        manager: Manager, data: list[tuple[int, int, list[int], list[bool], list[int]]]) -> None:
    m = manager
    await raw_sql(m, "DELETE FROM player_totals")
    await raw_sql(m, "DELETE FROM results")
    expected: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for guild, seats, totals, counted, users in data:
        g = await lobby.create_game(m.kernel, ANN, guild, 1)
        best = max(totals[:seats])
        rows = [ResultRow(g.id, s, users[s], guild, totals[s], 1 if totals[s] == best else 2,
                          totals[s] == best, counted[s], "{}", 0) for s in range(seats)]
        row = await m.store.load_game(g.id)
        assert row is not None
        await m.store.commit(GameWrite(game_id=g.id, expect_version=row.version, now=0,
                                       results=rows))
        for r in rows:
            if r.counted:
                for scope in (guild, 0):
                    e = expected[(scope, users[r.seat])]
                    e[0] += 1
                    e[1] += int(r.win)
                    e[2] += r.total
                    e[3] = max(e[3], r.total)
    for (scope, user), (games, wins, total, best) in expected.items():
        row = await m.store.totals(user, scope)
        assert row is not None and (row.games, row.wins, row.score_sum, row.best) == (
            games, wins, total, best)
    for scope in (0, 11, 12, 13):
        board = await queries.leaderboard(m.kernel, scope, limit=10)
        want = sorted(((u, *v) for (s, u), v in expected.items() if s == scope),
                      key=lambda t: (-t[2], -t[3] / t[1], -t[1], t[0]))
        assert [e.user_id for e in board] == [w[0] for w in want]


async def test_only_a_few_ended_games_stay_parsed_in_memory(db_path: str,
                                                            clock: FakeClock) -> None:
    """Ended games leave the cache beyond the newest few (memory stays flat under steady
    play), and a game that left it still reads back whole from storage."""
    from tests.core.conftest import play_out

    m = await Manager.open(db_path, clock=clock, seed_source=seeds(), exclusive=False,
                           config=ManagerConfig(ended_cache_size=2))
    try:
        rng = random.Random(7)
        ended = []
        for host in (ANN, BOB, CAT, DAN):
            g = await new_game(m, host=host, setup="beginner")
            g = await play_out(m, g, rng)
            assert g.status is GameStatus.OVER
            ended.append(g)
        playing = await new_game(m, host=ANN, people=(BOB,), setup="beginner")
        cached = {g.id for g in m.kernel.cached_games() if not g.status.active}
        assert cached == {ended[2].id, ended[3].id}  # the newest two
        assert m.kernel.cached(playing.id) is not None  # games in play stay
        first = await queries.game(m.kernel, ended[0].id)
        assert first.status is GameStatus.OVER and first.state == ended[0].state
    finally:
        await m.close()


async def test_nowhere_to_go_is_its_own_end_and_the_lane_goes_on(
        manager: Manager, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    """A thread notice with nowhere to go ends as "undeliverable" (counted apart from done
    and failed, never retried) and the rest of its lane still goes out in the same pass; a bug
    in the Discord layer is retried like a 5xx (counted, logged with its traceback once)."""
    g = await new_game(manager, host=ANN, computers=1, setup="beginner")
    lane = [n for n in await manager.store.notices(g.id)
            if n.user_id is None and n.status == "pending"]
    assert len(lane) >= 2
    nowhere, after = lane[0], lane[1]
    delivery = RecordingDelivery(fail={nowhere.key: [
        DeliveryError("no thread", undeliverable=True)]})
    d = manager.dispatcher(delivery)
    await d.run_once()
    status = {n.key: n.status for n in await manager.store.notices(g.id)}
    assert status[nowhere.key] == "undeliverable" and status[after.key] == "done"
    assert d.counts["undeliverable"] == 1 and d.counts["failed"] == 0
    assert d.counts["done"] == len(delivery.shown) and after in delivery.shown
    assert d.serving == 0  # every claimed lane given back
    while await d.run_once():
        pass
    assert delivery.calls.count(nowhere.key) == 1  # never tried again

    # A delivery that raises something unexpected: retried with backoff, traceback once.
    other = await new_game(manager, host=BOB, computers=1, setup="beginner")
    [first, *_] = [n for n in await manager.store.notices(other.id)
                   if n.user_id is None and n.status == "pending"]
    buggy = RecordingDelivery(fail={first.key: [
        RuntimeError("bug"), RuntimeError("bug")]})  # type: ignore[list-item]
    d = manager.dispatcher(buggy, base_delay=1.0)

    def tracebacks() -> int:
        return len([r for r in caplog.records if r.exc_info
                    and r.getMessage().startswith(f"delivery of notice {first.id} ")])

    with caplog.at_level(logging.INFO, logger="calico.outbox"):
        await d.run_once()
        assert tracebacks() == 1  # the first failure, with its traceback
        clock.advance(seconds=5)
        await d.run_once()
        clock.advance(seconds=10)
        await d.run_once()
    assert d.counts["retried"] == 2
    assert {n.key: n.status for n in await manager.store.notices(other.id)}[first.key] == "done"
    assert tracebacks() == 1  # then a line per attempt, no traceback
