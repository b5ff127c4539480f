"""The outbox: every committed notice delivered once, in order per lane, after crashes too;
retries with backoff; permanent failures and the DM fallback; no secret in any payload."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections import Counter
from datetime import timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import leaving, queries
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager, ManagerConfig
from bot.core.models import GameStatus
from bot.core.notices import Notice, NoticeKind
from bot.core.outbox import DeliveryError, Dispatcher, Later, Receipt
from tests.core.conftest import (
    ANN,
    BOB,
    CAT,
    RecordingDelivery,
    json_keys,
    new_game,
    play_out,
    seeds,
    step,
)


async def pending(d: Dispatcher) -> list[Notice]:
    return [n for n in await d.store.notices() if n.status == "pending"]


async def drain(d: Dispatcher, clock: FakeClock | None = None, rounds: int = 200) -> None:
    """Run the dispatcher until nothing is pending (advancing ``clock`` past backoffs and
    leases when nothing is due)."""
    for _ in range(rounds):
        if await d.run_once():
            continue
        if not await pending(d):
            return
        if (await d.store.outbox_stats(to_ms(d.clock.now()))).lanes_due:
            continue
        if clock is None:
            return
        clock.advance(minutes=15)  # let backed-off retries (and leases) come due


async def test_each_notice_is_delivered_once(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), computers=1)
    for _ in range(6):
        who = g.drafting_user_ids[0] if g.status is GameStatus.DRAFT else g.current_user_id
        g = await step(manager, g, who)  # type: ignore[arg-type]
    out = RecordingDelivery()
    d = manager.dispatcher(out, per_lane=4)
    first = await d.run_once()
    # One pass serves every lane, each at most per_lane notices.
    lanes = {(n.game_id, n.user_id) for n in await manager.store.notices(g.id)}
    assert {(n.game_id, n.user_id) for n in out.shown} == lanes
    assert first == len(out.shown) <= 4 * len(lanes) and d.delivered == first
    while await d.run_once():
        pass
    assert await d.run_once() == 0
    stored = await manager.store.notices(g.id)
    assert d.delivered == len(stored) == len(out.shown)
    assert all(n.status == "done" for n in stored)
    assert sorted(out.calls) == sorted(n.key for n in stored)
    assert len(set(out.calls)) == len(out.calls)
    assert all(len(n.key) <= 25 for n in stored)
    # Thread notices carry where to post.
    assert all(n.thread_id == g.thread_id for n in out.shown if n.user_id is None)


async def test_crash_before_delivery_then_exactly_once(db_path: str, clock: FakeClock) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    g = await new_game(m, people=(BOB,), setup="beginner")
    for _ in range(4):
        g = await step(m, g, g.current_user_id)  # type: ignore[arg-type]
    committed = [n.key for n in await m.store.notices()]
    await m.close()  # "crash": nothing was delivered

    m2 = await Manager.open(db_path, clock=clock)
    out = RecordingDelivery()
    d = m2.dispatcher(out)
    await drain(d)
    assert sorted(out.calls) == sorted(committed)
    await m2.close()
    m3 = await Manager.open(db_path, clock=clock)
    await drain(m3.dispatcher(out))
    assert len(out.calls) == len(committed)  # nothing delivered twice
    await m3.close()


class HangingDelivery(RecordingDelivery):
    """Shows notices until the n-th, then hangs (the process is killed during delivery)."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after
        self.hung = asyncio.Event()

    async def deliver(self, notice: Notice) -> Receipt | None:
        if len(self.shown) >= self.after:
            self.hung.set()
            await asyncio.Event().wait()
        return await super().deliver(notice)


async def test_dispatcher_stopped_mid_delivery_redelivers_only_the_rest(
        db_path: str, clock: FakeClock) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    g = await new_game(m, people=(BOB,), setup="beginner")
    for _ in range(6):
        g = await step(m, g, g.current_user_id)  # type: ignore[arg-type]
    committed = sorted(n.key for n in await m.store.notices())
    first = HangingDelivery(after=5)
    d = Dispatcher(m.store, first, clock, concurrency=1)
    task = asyncio.create_task(d.run_once())
    await first.hung.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await m.close()

    m2 = await Manager.open(db_path, clock=clock)
    second = RecordingDelivery()
    await drain(m2.dispatcher(second))
    shown = [n.key for n in first.shown] + [n.key for n in second.shown]
    assert sorted(shown) == committed  # every notice once, none twice
    await m2.close()


async def test_transient_failures_are_retried_with_backoff(manager: Manager,
                                                           clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    notices = await manager.store.notices(g.id)
    target = next(n for n in notices if n.kind == NoticeKind.STARTED)
    out = RecordingDelivery(fail={target.key: [DeliveryError("503"), DeliveryError("503")]})
    d = manager.dispatcher(out, base_delay=10)
    await d.run_once()
    # The failed thread notice holds back the rest of its lane (order), not the DMs.
    assert target.key not in [n.key for n in out.shown]
    assert out.thread_kinds() == ["lobby", "lobby"]  # join, start
    assert "turn_prompt" in out.kinds()
    assert await d.run_once() == 0  # not due yet
    clock.advance(seconds=10)
    await d.run_once()  # second failure: 20 s now
    clock.advance(seconds=19)
    assert await d.run_once() == 0
    clock.advance(seconds=1)
    await d.run_once()
    assert out.thread_kinds() == ["lobby", "lobby", "started"]
    assert out.calls.count(target.key) == 3 and len({n.key for n in out.shown}) == len(out.shown)
    assert all(n.status == "done" for n in await manager.store.notices(g.id))


class Paced(RecordingDelivery):
    """Says "later" (a rate limit's wait, issue 29) for the keys in ``later``, once each."""

    def __init__(self, later: dict[str, float]) -> None:
        super().__init__()
        self.later = dict(later)

    async def deliver(self, notice: Notice) -> Receipt | None:
        wait = self.later.pop(notice.key, None)
        if wait is not None:
            self.calls.append(notice.key)
            raise Later(wait, "rate limited")
        return await super().deliver(notice)


async def test_a_paced_post_is_no_attempt_and_frees_its_slot(manager: Manager,
                                                             clock: FakeClock) -> None:
    """Issue 29, finding 4: a post that would wait for a rate limit is put off, not waited for:
    its lane comes back after the wait, in order, with no attempt counted and nothing in
    doubt (no look, no backoff), and the other lanes are served meanwhile."""
    g = await new_game(manager, people=(BOB,), setup="beginner")
    target = next(n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.STARTED)
    out = Paced({target.key: 4.0})
    d = manager.dispatcher(out, concurrency=1, express=0)
    while await d.run_once():
        pass
    assert "turn_prompt" in out.kinds()  # the DM lane was served meanwhile, in the one slot
    assert target.key not in [n.key for n in out.shown]
    stored = {n.key: n for n in await manager.store.notices(g.id)}
    assert stored[target.key].attempts == 0 and stored[target.key].sent_at is None
    assert await d.run_once() == 0  # not before the wait is over
    clock.advance(seconds=4)
    while await d.run_once():
        pass
    kinds = out.thread_kinds()
    assert kinds.index("started") == len([k for k in kinds if k == "lobby"])  # order kept
    assert d.counts["paced"] == 1 and d.counts["looked"] == 0 and d.counts["retried"] == 0
    assert all(n.status == "done" for n in await manager.store.notices(g.id))


async def test_an_outage_loses_no_turn_prompt_and_posts_none_twice(
        manager: Manager, clock: FakeClock) -> None:
    """Discord answers 503 to everything for 30 minutes (on the fake clock): every notice
    waits, backing off up to the cap, and goes out once when Discord is back."""
    g = await new_game(manager, people=(BOB,), setup="beginner")
    for _ in range(3):
        g = await step(manager, g, g.current_user_id)  # type: ignore[arg-type]
    stored = await manager.store.notices()

    class Outage(RecordingDelivery):
        down = True

        async def deliver(self, notice: Notice) -> Receipt | None:
            self.calls.append(notice.key)
            if self.down:
                raise DeliveryError("503 service unavailable")
            self.shown.append(notice)
            return None

    out = Outage()
    d = manager.dispatcher(out, base_delay=2, max_delay=300)
    start = clock.now()
    while clock.now() - start < timedelta(minutes=30):
        await d.run_once()
        clock.advance(seconds=20)
    assert out.shown == [] and d.delivered == 0
    assert all(n.status == "pending" for n in await manager.store.notices())
    # Backoff is capped: nothing waits longer than max_delay for its next try.
    assert max(n.attempts for n in await manager.store.notices()) >= 6
    out.down = False
    await drain(d, clock)
    assert sorted(n.key for n in out.shown) == sorted(n.key for n in stored)
    prompts = [n for n in out.shown if n.kind == NoticeKind.TURN_PROMPT]
    assert prompts and len({n.key for n in out.shown}) == len(out.shown)
    assert all(n.status == "done" for n in await manager.store.notices())


async def test_a_notice_older_than_its_ttl_expires_instead_of_retrying_forever(
        manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, computers=1, setup="beginner")
    target = next(n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.STARTED)
    out = RecordingDelivery(fail={target.key: [DeliveryError("503")] * 1000})
    d = manager.dispatcher(out, base_delay=60, max_delay=3600, ttl=timedelta(hours=6))
    await drain(d, clock)
    status = {n.key: n.status for n in await manager.store.notices(g.id)}
    assert status[target.key] == "expired"
    assert 4 <= out.calls.count(target.key) <= 12
    stored = await manager.store.notices(g.id)
    assert not [n for n in stored if n.status == "pending"]
    # what waited behind it in its lane is as old: expired too; other lanes were not held
    expired = [n for n in stored if n.status == "expired"]
    assert all(n.user_id is None and n.id >= target.id for n in expired)
    assert d.counts["expired"] == len(expired)
    assert all(n.status == "done" for n in stored if n.user_id is not None)


async def test_unexpected_exception_is_retried(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, computers=1, setup="beginner")

    class Buggy(RecordingDelivery):
        async def deliver(self, notice: Notice) -> Receipt | None:
            if not self.calls:
                self.calls.append("boom")
                raise KeyError("a bug in the Discord layer")
            return await super().deliver(notice)

    out = Buggy()
    await drain(manager.dispatcher(out), clock)
    assert all(n.status == "done" for n in await manager.store.notices(g.id))


async def test_closed_dms_fall_back_once_per_game(db_path: str, clock: FakeClock) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    g1 = await new_game(m, people=(BOB,), setup="beginner")
    g2 = await new_game(m, host=CAT, people=(BOB,), setup="beginner")
    out = RecordingDelivery(fail_dm_users={BOB.id})
    d = m.dispatcher(out)
    # Play until Bob has had turn prompts queued in both games.
    for g in (g1, g2):
        while g.current_user_id != BOB.id:
            g = await step(m, g, g.current_user_id)  # type: ignore[arg-type]
    await drain(d)
    assert (await queries.get_settings(m.kernel, BOB.id)).dm_closed_at is not None
    fallbacks = [n for n in out.shown if n.kind == NoticeKind.DM_FALLBACK]
    assert sorted(n.game_id for n in fallbacks) == sorted([g1.id, g2.id])
    assert all(n.body.user_id == BOB.id for n in fallbacks)
    calls_to_bob = len([k for k in out.calls if k not in {n.key for n in out.shown}])
    assert calls_to_bob == 1  # one failed DM; the rest went straight to the fallback

    # Later DMs for Bob are not even queued, and no second fallback is posted.
    g = await queries.game(m.kernel, g1.id)
    for _ in range(4):
        g = await step(m, g, g.current_user_id)  # type: ignore[arg-type]
    await drain(d)
    assert not [n for n in await m.store.notices() if n.user_id == BOB.id
                and n.status == "pending"]
    assert len([n for n in out.shown if n.kind == NoticeKind.DM_FALLBACK]) == 2
    assert len(out.calls) == len(out.shown) + 1
    ann_prompts = [n for n in out.shown if n.user_id == ANN.id]
    assert ann_prompts  # other people's DMs are unaffected

    # A day later his DMs are tried again.
    clock.advance(hours=25)
    out.fail_dm_users.clear()
    g = await queries.game(m.kernel, g1.id)
    while g.current_user_id != BOB.id:
        g = await step(m, g, g.current_user_id)  # type: ignore[arg-type]
    g = await step(m, g, BOB.id)
    while g.current_user_id != BOB.id:
        g = await step(m, g, g.current_user_id)  # type: ignore[arg-type]
    await drain(d)
    assert any(n.user_id == BOB.id and n.kind == NoticeKind.TURN_PROMPT for n in out.shown)
    await m.close()


async def test_permanent_thread_failure_is_recorded(manager: Manager) -> None:
    g = await new_game(manager, computers=1, setup="beginner")
    keys = {n.key for n in await manager.store.notices(g.id) if n.user_id is None}
    out = RecordingDelivery(fail={k: [DeliveryError("10003 unknown channel", permanent=True)]
                                  for k in keys})
    d = manager.dispatcher(out)
    await drain(d)
    status = {n.key: n.status for n in await manager.store.notices(g.id)}
    assert all(status[k] == "failed" for k in keys)
    assert d.failed == len(keys)
    # A permanent failure does not hold its lane: everything was tried in one pass.
    assert sorted(out.calls) == sorted(n.key for n in await manager.store.notices(g.id))


async def test_run_forever_wakes_on_commit_and_stops(manager: Manager) -> None:
    out = RecordingDelivery()
    d = manager.dispatcher(out, poll_interval=30)
    task = asyncio.create_task(d.run_forever())
    g = await new_game(manager, people=(BOB,), setup="beginner")
    for _ in range(100):
        if not [n for n in await manager.store.notices(g.id) if n.status == "pending"]:
            break
        await asyncio.sleep(0.01)
    assert out.shown and all(n.status == "done" for n in await manager.store.notices(g.id))
    d.stop()
    await asyncio.wait_for(task, 2)


async def test_delivered_notices_are_pruned(manager: Manager, clock: FakeClock) -> None:
    await new_game(manager, computers=1, setup="beginner")
    await drain(manager.dispatcher(RecordingDelivery()))
    clock.advance(days=8)
    assert (await manager.sweep()).pruned == 0  # kept for the retention period (14 days)
    clock.advance(days=7)
    report = await manager.sweep()
    assert report.pruned > 0


async def test_no_secret_in_any_notice(db_path: str, clock: FakeClock) -> None:
    config = ManagerConfig(reminder_gap=timedelta(0))
    m = await Manager.open(db_path, clock=clock, config=config,
                           seed_source=lambda: random.Random(9).getrandbits(63))
    g = await new_game(m, people=(BOB,), computers=1, turn_hours=1, timeout_action="computer")
    clock.advance(minutes=31)
    await m.sweep()  # reminders
    clock.advance(minutes=31)
    await m.sweep()  # the draft runs out: computer choices
    g = await queries.game(m.kernel, g.id)
    g = await play_out(m, g, random.Random(6))
    g2 = await new_game(m, people=(CAT,))
    await leaving.dm_failed(m.kernel, g2.id, ANN.id)
    await leaving.leave_game(m.kernel, g2.id, CAT.id)
    await leaving.abandon(m.kernel, g2.id, ANN.id)
    assert g.state is not None
    secrets_ = {str(g.state.seed)}
    for ply in range(g.ply + 1):
        secrets_.add(str((await queries.state_at(m.kernel, g.id, ply)).rng))
    g2 = await queries.game(m.kernel, g2.id)
    assert g2.state is not None
    secrets_ |= {str(g2.state.seed), str(g2.state.rng)}
    notices = await m.store.notices()
    kinds = {n.kind for n in notices}
    assert {NoticeKind.TABLE, NoticeKind.GAME_OVER, NoticeKind.REMINDER, NoticeKind.STARTED,
            NoticeKind.SEAT_CHANGED, NoticeKind.ENDED, NoticeKind.DM_FALLBACK} <= kinds

    for n in notices:
        text = n.payload
        assert not {"seed", "rng", "bag"} & json_keys(json.loads(n.payload)), n.kind
        assert not any(s in text for s in secrets_), n.kind
    await m.close()


@settings(max_examples=12, deadline=None)
@given(plan=st.lists(st.integers(min_value=0, max_value=3), min_size=40, max_size=40),
       crash_after=st.integers(min_value=0, max_value=30))
async def test_random_failures_and_a_crash_still_deliver_each_notice_once_in_order(
        plan: list[int], crash_after: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock()
        path = Path(tmp) / "p.db"
        m = await Manager.open(path, clock=clock, seed_source=seeds())
        g = await new_game(m, people=(BOB,), setup="beginner")
        for _ in range(6):
            g = await step(m, g, g.current_user_id, random.Random(1))  # type: ignore[arg-type]
        stored = await m.store.notices()
        fail = {n.key: [DeliveryError("503")] * plan[i % len(plan)] for i, n in enumerate(stored)}
        first = HangingDelivery(after=crash_after)
        first.fail = fail
        task = asyncio.create_task(drain(m.dispatcher(first, base_delay=1), clock))
        hung = asyncio.create_task(first.hung.wait())
        await asyncio.wait([task, hung], return_when=asyncio.FIRST_COMPLETED)
        for t in (task, hung):  # the "crash": stop wherever delivery was
            t.cancel()
        await asyncio.gather(task, hung, return_exceptions=True)
        await m.close()

        m2 = await Manager.open(path, clock=clock)
        second = RecordingDelivery(fail=fail)
        await drain(m2.dispatcher(second, base_delay=1), clock)
        shown = first.shown + second.shown
        assert sorted(n.key for n in shown) == sorted(n.key for n in stored)
        lanes: dict[tuple[int, int | None], list[int]] = {}
        for n in shown:
            lanes.setdefault((n.game_id, n.user_id), []).append(n.id)
        assert all(ids == sorted(ids) for ids in lanes.values())
        await m2.close()


async def test_a_claimed_lane_or_timer_waits_for_its_lease_then_another_takes_it(
        manager: Manager, clock: FakeClock) -> None:
    """Two processes: what one claimed is not the other's until the lease has run out (a
    process that died leaves its work to be taken over then, not sooner, not never)."""
    g = await new_game(manager, people=(BOB,), setup="beginner")
    store = manager.store
    now = to_ms(clock.now())
    lease = 60_000
    lanes = await store.claim_lanes("first", now, lease, 100)
    assert lanes and {lane.game_id for lane in lanes} == {g.id}
    assert await store.claim_lanes("second", now + lease - 1, lease, 100) == []
    taken = await store.claim_lanes("second", now + lease + 1, lease, 100)
    assert sorted(taken, key=str) == sorted(lanes, key=str)
    # The first process, back, cannot hand back (or reclaim) what is now the second's.
    await store.release_lane(lanes[0], "first", now)
    assert await store.claim_lanes("first", now + lease + 2, lease, 100) == []

    later = max(t.due_at for t in await store.timers(g.id)) + 1
    timers = await store.claim_timers("first", later, lease, 100)
    assert timers and all(t.game_id == g.id for t in timers)
    assert await store.claim_timers("second", later + lease - 1, lease, 100) == []
    again = await store.claim_timers("second", later + lease + 1, lease, 100)
    assert {t.key for t in again} == {t.key for t in timers}


async def test_a_stuck_process_lanes_go_to_another_after_the_lease(
        manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    stuck = HangingDelivery(after=0)  # stuck (or dead) in its first delivery
    first = manager.dispatcher(stuck, owner="first", lease=60)
    hung = asyncio.create_task(first.run_once())
    await asyncio.wait_for(stuck.hung.wait(), 10)
    try:
        out = RecordingDelivery()
        second = manager.dispatcher(out, owner="second", lease=60)
        clock.advance(seconds=59)
        assert await second.run_once() == 0 and out.shown == []  # still the first's
        clock.advance(seconds=2)
        await drain(second)
        waiting = {n.key for n in await manager.store.notices(g.id)}
        assert {n.key for n in out.shown} == waiting and out.shown
    finally:
        hung.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await hung


class SlowDelivery(RecordingDelivery):
    """Takes its time over one notice (a busy process: its pictures queued behind the answers
    to clicks), then shows it; every call lands in ``discord`` (what Discord saw, both
    processes together)."""

    def __init__(self, discord: list[str], slow_key: str = "") -> None:
        super().__init__()
        self.discord = discord
        self.slow_key = slow_key
        self.started = asyncio.Event()
        self.go = asyncio.Event()

    async def deliver(self, notice: Notice) -> Receipt | None:
        if notice.key == self.slow_key:
            self.started.set()
            await self.go.wait()
        self.discord.append(notice.key)
        return await super().deliver(notice)


async def test_a_live_process_keeps_its_lane_through_a_delivery_longer_than_the_lease(
        db_path: str, clock: FakeClock) -> None:
    """Two processes: the first is slow over one post, past its lease, but alive. The second
    must not take its lane and post that notice again (the three-process run saw notices
    posted twice, a second or so apart, by two live processes)."""
    m = await Manager.open(db_path, clock=clock, seed_source=seeds(), exclusive=False)
    other = await Manager.open(db_path, clock=clock, exclusive=False)  # a second process
    first_task: asyncio.Task[int] | None = None
    try:
        g = await new_game(m, people=(BOB,), setup="beginner")
        thread = [n for n in await m.store.notices(g.id) if n.user_id is None]
        assert thread
        discord: list[str] = []
        slow = SlowDelivery(discord, slow_key=thread[0].key)
        lease = 0.3  # seconds of the (fake) clock; the process renews it as it goes
        first = m.dispatcher(slow, owner="first", lease=lease)
        first_task = asyncio.create_task(first.run_once())
        await asyncio.wait_for(slow.started.wait(), 10)
        # Time passes, three leases, while the first process (alive) still posts.
        for _ in range(12):
            clock.advance(seconds=lease / 4)
            await asyncio.sleep(lease / 3)
        second = other.dispatcher(SlowDelivery(discord), owner="second", lease=lease)
        await second.run_once()
        slow.go.set()
        await asyncio.wait_for(first_task, 10)
        await drain(second, clock)
        stored = await m.store.notices(g.id)
        assert all(n.status == "done" for n in stored)
        twice = sorted(k for k, count in Counter(discord).items() if count > 1)
        assert twice == [], f"posted twice: {twice}"
        assert sorted(discord) == sorted(n.key for n in stored)
    finally:
        if first_task is not None and not first_task.done():
            first_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await first_task
        await other.close()
        await m.close()


async def test_a_process_never_serves_one_lane_twice_at_once(manager: Manager,
                                                             clock: FakeClock) -> None:
    """When a lane's lease runs out all the same while its post is slow (renewals failed), the
    same process claiming it again leaves it to the serve in progress instead of posting its
    notices a second time (the three-process run saw one process post a notice twice)."""
    g = await new_game(manager, people=(BOB,), setup="beginner")
    thread = [n for n in await manager.store.notices(g.id) if n.user_id is None]
    discord: list[str] = []
    slow = SlowDelivery(discord, slow_key=thread[0].key)
    d = manager.dispatcher(slow, owner="only", lease=60)  # renewed every 20 s: not in this test
    task = asyncio.create_task(d.run_once())
    try:
        await asyncio.wait_for(slow.started.wait(), 10)
        clock.advance(seconds=61)  # the lease ran out (no renewal came in time)
        again = asyncio.create_task(d.run_once())
        await asyncio.sleep(0.1)
        slow.go.set()
        await asyncio.wait_for(asyncio.gather(task, again), 10)
        await drain(d, clock)
        twice = sorted(k for k, count in Counter(discord).items() if count > 1)
        assert twice == [], f"posted twice: {twice}"
        stored = await manager.store.notices(g.id)
        assert sorted(discord) == sorted(n.key for n in stored)
        assert all(n.status == "done" for n in stored)
    finally:
        for t in (task,):
            if not t.done():
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await t


async def test_only_the_owner_renews_a_lease_and_a_renewed_lane_is_not_taken(
        manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    store = manager.store
    now = to_ms(clock.now())
    lease = 60_000
    lanes = await store.claim_lanes("first", now, lease, 100)
    assert lanes and {lane.game_id for lane in lanes} == {g.id}
    lane = lanes[0]
    assert await store.renew_lane(lane, "first", now + lease - 1, lease)
    assert not await store.renew_lane(lane, "second", now + lease - 1, lease)
    # Past the first lease, but renewed: still the first's.
    assert lane not in await store.claim_lanes("second", now + lease + 1, lease, 100)
    taken = await store.claim_lanes("second", now + 2 * lease, lease, 100)
    assert lane in taken
    assert not await store.renew_lane(lane, "first", now + 2 * lease, lease)  # lost: stop
