"""Edges of the dispatcher, the timers and leaving that a mutation probe found untested (each
test fails for a change no other test noticed): delivered counts, a retry's due time, a first
pass that fails, no busy polling, a backlog drained without waiting, deadlines and turn timers
after moves, leaving, and sweeps that must do nothing."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from bot.core import leaving, queries
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus
from bot.core.notices import Notice, NoticeKind
from bot.core.outbox import DeliveryError, NullDelivery, Receipt
from bot.core.storage import Lane, Store
from tests.core.conftest import ANN, BOB, CAT, DAN, RecordingDelivery, new_game, play_out, step


async def test_delivered_counts_are_kept(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    null = NullDelivery()
    d = manager.dispatcher(null)
    while await d.run_once():
        pass
    stored = await manager.store.notices(g.id)
    assert null.count == len(stored) == d.delivered > 0
    assert d.counts["done"] == len(stored) and d.failed == 0


async def test_a_retry_comes_due_after_its_backoff(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, computers=1, setup="beginner")
    target = next(n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.STARTED)
    out = RecordingDelivery(fail={target.key: [DeliveryError("503")]})
    d = manager.dispatcher(out, base_delay=7)
    await d.run_once()
    now = to_ms(clock.now())
    row = next(n for n in await manager.store.notices(g.id) if n.key == target.key)
    assert row.status == "pending" and row.attempts == 1
    stats = await manager.store.outbox_stats(now)
    assert stats.lanes_due == 0 and stats.pending >= 1  # the thread lane waits 7 s
    clock.advance(seconds=6)
    assert await d.run_once() == 0 and out.calls.count(target.key) == 1
    clock.advance(seconds=1)
    assert await d.run_once() > 0 and out.calls.count(target.key) == 2


class FlakyStore:
    """A store whose first lane claim fails (a database hiccup)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int,
                          express: bool = False) -> list[Lane]:
        if not self.failed:
            self.failed = True
            raise ConnectionError("the database blinked")
        return await self._store.claim_lanes(owner, now, lease_ms, limit, express)


async def test_run_forever_survives_a_failing_pass_and_never_busy_polls(
        manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    out = RecordingDelivery()
    from bot.core.outbox import Dispatcher

    flaky = FlakyStore(manager.store)
    d = Dispatcher(flaky, out, manager.kernel.clock, poll_interval=0.2)  # type: ignore[arg-type]
    task = asyncio.create_task(d.run_forever())
    try:
        for _ in range(200):
            if len(out.shown) == len(await manager.store.notices(g.id)):
                break
            await asyncio.sleep(0.02)
        assert flaky.failed and len(out.shown) == len(await manager.store.notices(g.id))
        # Idle now: over a second, a handful of polls (one per poll interval), no spinning.
        before = d.passes
        await asyncio.sleep(1.0)
        assert 1 <= d.passes - before <= 8
    finally:
        d.stop()
        await asyncio.wait_for(task, 5)


async def test_a_backlog_larger_than_one_round_drains_without_waiting_a_poll(
        manager: Manager) -> None:
    for host in (ANN, BOB, CAT):
        await new_game(manager, host=host, computers=1, setup="beginner")
    total = len(await manager.store.notices())
    out = RecordingDelivery()
    d = manager.dispatcher(out, concurrency=1, per_lane=1, poll_interval=30)
    task = asyncio.create_task(d.run_forever())
    try:
        for _ in range(300):
            if len(out.shown) == total:
                break
            await asyncio.sleep(0.01)
        assert len(out.shown) == total  # long before a 30 s poll could have helped
    finally:
        d.stop()
        await asyncio.wait_for(task, 5)


async def test_game_over_clears_the_deadline_and_every_timer(manager: Manager) -> None:
    import random

    g = await new_game(manager, people=(BOB,), setup="beginner")
    assert g.deadline_at is not None
    g = await play_out(manager, g, random.Random(1))
    assert g.status is GameStatus.OVER and g.deadline_at is None
    assert await manager.store.timers(g.id) == []


async def test_after_a_move_only_the_next_seats_turn_timer_exists(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB, CAT), setup="beginner")
    for _ in range(4):
        g = await step(manager, g, g.current_user_id)  # type: ignore[arg-type]
        turns = [t for t in await manager.store.timers(g.id) if t.kind == "turn"]
        assert [t.seat for t in turns] == [g.current_seat]
        assert turns[0].deadline_at == to_ms(g.deadline_at)  # type: ignore[arg-type]


async def test_leaving_returns_the_game_and_the_last_person_ends_it(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    left = await leaving.leave_game(manager.kernel, g.id, BOB.id)
    assert isinstance(left, GameInfo) and left.id == g.id
    assert left.seats[g.seat_of(BOB.id) or 0].ai_level is not None and left.status.active
    over = await leaving.leave_game(manager.kernel, g.id, ANN.id)
    assert over.status is GameStatus.ABANDONED and over.end_reason == "everyone_left"
    ended = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.ENDED]
    assert [n.body.reason for n in ended] == ["everyone_left"]


async def test_the_deadline_clears_only_when_the_seat_to_act_leaves(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB, CAT), setup="beginner")
    waiting = next(s for s in g.seats if s.user_id != g.current_user_id)
    assert waiting.user_id is not None
    after = await leaving.leave_game(manager.kernel, g.id, waiting.user_id)
    assert after.deadline_at == g.deadline_at  # the one to act is still on the clock
    acting = g.current_user_id
    assert acting is not None
    after = await leaving.leave_game(manager.kernel, g.id, acting)
    assert after.deadline_at is None  # now a computer acts (or one person alone: no clock)


async def test_a_timer_for_a_seat_that_no_longer_must_act_only_goes_away(
        manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", turn_hours=1)
    from bot.core.storage import GameWrite, TimerRow

    row = await manager.store.load_game(g.id)
    assert row is not None
    other = 1 - (g.current_seat or 0)
    stale = TimerRow(g.id, "turn", other, to_ms(clock.now()), to_ms(clock.now()))
    await manager.store.commit(GameWrite(game_id=g.id, expect_version=row.version,
                                         now=to_ms(clock.now()), upsert_timers=[stale]))
    manager.kernel.forget(g.id)
    before = len(await manager.store.notices(g.id))
    report = await manager.sweep()
    assert report.details == [] and report.reminders == 0 and report.autoplayed == 0
    assert [t.seat for t in await manager.store.timers(g.id) if t.kind == "turn"] == [
        g.current_seat]
    assert len(await manager.store.notices(g.id)) == before


async def test_after_the_stall_a_second_sweep_does_nothing(manager: Manager,
                                                           clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="remind",
                       turn_hours=1)
    stalled = 0
    for _ in range(20):
        clock.advance(minutes=31)
        stalled += (await manager.sweep()).stalled
        if stalled:
            break
    assert stalled == 1
    notices = len(await manager.store.notices(g.id))
    clock.advance(hours=3)
    again = await manager.sweep()
    assert (again.reminders, again.stalled, again.autoplayed) == (0, 0, 0)
    assert len(await manager.store.notices(g.id)) == notices
    assert (await queries.game(manager.kernel, g.id)).ply == g.ply  # it waits for the person


async def test_the_sweep_keeps_its_report_of_failures_at_zero_when_all_is_well(
        manager: Manager, clock: FakeClock) -> None:
    await new_game(manager, people=(BOB,), setup="beginner", turn_hours=1)
    clock.advance(timedelta(minutes=31))
    report = await manager.sweep()
    assert report.failed == 0 and report.reminders == 1 and manager.kernel.timer_failures == 0


class Gate(RecordingDelivery):
    """Holds every notice of ``held`` games that is not express (a busy lane: a slow picture,
    a rate limit) until ``go``; the rest shows at once."""

    def __init__(self, held: set[int]) -> None:
        super().__init__()
        self.held = held
        self.go = asyncio.Event()
        self.holding = 0

    async def deliver(self, notice: Notice) -> Receipt | None:
        if notice.game_id in self.held and not notice.body.express:
            self.holding += 1
            await self.go.wait()
        return await super().deliver(notice)


async def test_a_new_games_lobby_shows_while_every_slot_is_busy(manager: Manager) -> None:
    busy = [await new_game(manager, host=h, people=(p,), setup="beginner")
            for h, p in ((ANN, BOB), (CAT, DAN))]
    gate = Gate({g.id for g in busy})
    d = manager.dispatcher(gate, concurrency=1, express=1, poll_interval=30)
    task = asyncio.create_task(d.run_forever())
    try:
        async def until(done: Any) -> None:
            for _ in range(500):
                if done():
                    return
                await asyncio.sleep(0.01)

        def opened(g: GameInfo) -> bool:  # its lobby is in its thread
            return any(n.game_id == g.id and n.kind == NoticeKind.LOBBY for n in gate.shown)

        # The one slot is held by a busy lane; the kept slot showed the other game's lobby
        # and gave its lane back at the first notice that is not express.
        await until(lambda: gate.holding and all(opened(g) for g in busy))
        assert gate.holding == 1 and all(opened(g) for g in busy)
        new = await new_game(manager, host=ANN, people=(CAT,), start=False)  # someone joined
        await until(lambda: opened(new))
        assert opened(new) and gate.holding == 1  # the busy lanes still wait
        assert not any(n.game_id in gate.held and not n.body.express for n in gate.shown)
    finally:
        gate.go.set()
        d.stop()
        await asyncio.wait_for(task, 5)
