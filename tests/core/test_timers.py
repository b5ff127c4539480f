"""Time, driven by the FakeClock: half-time reminders, each timeout action at the deadline,
the stall cut-off, the per-user reminder rate limit across games, the reminders setting, the
goal draft running out, and games ending as idle."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from bot.core import flow, leaving, lobby, queries
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, TimeoutAction
from bot.core.notices import Ended, NoticeKind
from bot.core.storage import TimerRow
from bot.core.timers import Step, decide
from tests.core.conftest import ANN, BOB, CAT, DAN, new_game, step


async def notices(m: Manager, game_id: int | None, kind: NoticeKind) -> list:  # type: ignore[type-arg]
    return [n for n in await m.store.notices(game_id) if n.kind == kind]


async def test_half_time_reminder_then_remind_until_the_cut_off(manager: Manager,
                                                                clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="remind")
    who = g.current_user_id
    assert g.deadline_at == clock.now() + timedelta(hours=24)
    clock.advance(hours=11, minutes=59)
    assert (await manager.sweep()).reminders == 0
    clock.advance(minutes=1)
    report = await manager.sweep()
    assert report.reminders == 1
    [r] = await notices(manager, g.id, NoticeKind.REMINDER)
    assert r.user_id == who and r.body.final is False and r.body.waiting == (g.id,)
    assert r.body.action == "remind" and r.body.deadline_at == g.deadline_at.isoformat()
    assert (await manager.sweep()).reminders == 0  # nothing more is due
    sent = 1
    for _ in range(10):
        clock.advance(hours=12)
        report = await manager.sweep()
        sent += report.reminders
        if report.stalled:
            break
    assert sent == manager.kernel.config.max_reminders
    assert report.stalled == 1
    reminders = await notices(manager, g.id, NoticeKind.REMINDER)
    assert [n.body.final for n in reminders] == [False] * (sent - 1) + [True]
    after = await queries.game(manager.kernel, g.id)
    assert after.ply == g.ply and after.status is GameStatus.PLAY  # nobody played for them
    clock.advance(days=3)
    assert (await manager.sweep()).reminders == 0  # stalled: silence until the idle limit


async def test_autopilot_plays_one_move_and_keeps_the_seat(manager: Manager,
                                                           clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="autopilot")
    who = g.current_user_id
    clock.advance(hours=12)
    [_] = [(await manager.sweep()).reminders]
    [r] = await notices(manager, g.id, NoticeKind.REMINDER)
    assert r.body.final is True  # the next thing is the autopilot move
    clock.advance(hours=12)
    report = await manager.sweep()
    assert report.autoplayed == 1
    after = await queries.game(manager.kernel, g.id)
    assert after.ply == g.ply + 1 and all(s.ai_level is None for s in after.seats)
    assert after.current_user_id != who
    [move] = await manager.store.moves(g.id)
    assert move.played_by == "autopilot"
    table = (await notices(manager, g.id, NoticeKind.TABLE))[-1]
    assert table.body.autoplayed is True and table.body.by == "autopilot"
    prompts = await notices(manager, g.id, NoticeKind.TURN_PROMPT)
    assert prompts[-1].user_id == after.current_user_id
    # The absent player is still a player: their next turn is theirs again.
    assert after.seat_of(who) is not None  # type: ignore[arg-type]


async def test_a_thinking_autopilot_plays_from_the_computers_queue(
        manager: Manager, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #28: at a level that searches, the timed-out turn is played by the computers'
    queue, never inside the sweep (forty tables timing out at once held it for minutes): the
    sweep comes back while the computer still thinks; the queue then plays it, once."""
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="autopilot",
                       ai_level="easy")
    who = g.current_user_id
    thinking = asyncio.Event()
    choose = flow.choose

    async def slow(*args: Any) -> Any:
        await thinking.wait()  # a long search
        return await choose(*args)

    monkeypatch.setattr(flow, "choose", slow)
    clock.advance(hours=24)
    report = await asyncio.wait_for(manager.sweep(), 10)
    assert report.autoplayed == 1
    assert (await queries.game(manager.kernel, g.id, fresh=True)).ply == g.ply  # not yet
    queue = manager.kernel.computer_turns
    assert queue is not None and queue.busy_with(g.id)
    thinking.set()
    await manager.kernel.computers_idle(g.id)
    after = await queries.game(manager.kernel, g.id, fresh=True)
    assert after.ply == g.ply + 1 and after.seat_of(who or 0) is not None  # still theirs
    [move] = await manager.store.moves(g.id)
    assert move.played_by == "autopilot"
    # A sweep meanwhile (the timer still claimed) plays nothing twice.
    await manager.sweep()
    await manager.kernel.computers_idle(g.id)
    assert len(await manager.store.moves(g.id)) == 1


async def test_computer_takes_over_the_seat(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="computer")
    absent = g.current_user_id
    present = BOB.id if absent == ANN.id else ANN.id
    clock.advance(hours=24)
    report = await manager.sweep()
    assert report.converted == 1
    after = await queries.game(manager.kernel, g.id)
    assert after.seat_of(absent) is None and after.current_user_id == present  # type: ignore[arg-type]
    [changed] = await notices(manager, g.id, NoticeKind.SEAT_CHANGED)
    assert changed.body.reason == "timeout"
    # From now on the computer answers at once.
    after = await step(manager, after, present)
    assert after.current_user_id == present


async def test_draft_running_out_gets_the_default_choice(manager: Manager,
                                                         clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), timeout_action="remind")
    assert g.status is GameStatus.DRAFT
    g = await step(manager, g, ANN.id)
    assert g.drafting_user_ids == (BOB.id,)
    clock.advance(hours=12)
    assert (await manager.sweep()).reminders == 1
    [r] = await notices(manager, g.id, NoticeKind.REMINDER)
    assert r.user_id == BOB.id and r.body.phase == "draft" and r.body.final is True
    clock.advance(hours=12)
    assert (await manager.sweep()).autoplayed == 1
    after = await queries.game(manager.kernel, g.id)
    assert after.status is GameStatus.PLAY and after.seat_of(BOB.id) is not None
    assert after.deadline_at == clock.now() + timedelta(hours=24)


async def test_reminders_are_rate_limited_per_user_across_games(manager: Manager,
                                                                 clock: FakeClock) -> None:
    games = []
    for host in (BOB, CAT, DAN):
        g = await new_game(manager, host=host, people=(ANN,), setup="beginner", first="pet",
                           start=False, timeout_action="remind")
        await lobby.claim_first(manager.kernel, g.id, ANN.id)
        games.append(await lobby.start(manager.kernel, g.id, host.id))
    assert all(g.current_user_id == ANN.id for g in games)
    clock.advance(hours=12)
    report = await manager.sweep()
    assert (report.reminders, report.reminders_skipped) == (1, 2)
    [r] = await notices(manager, None, NoticeKind.REMINDER)
    assert sorted(r.body.waiting) == sorted(g.id for g in games)  # one DM names all
    clock.advance(hours=12)  # the deadline: another reminder, again one for all games
    report = await manager.sweep()
    assert (report.reminders, report.reminders_skipped) == (1, 2)


async def test_reminders_off_still_applies_the_deadline(manager: Manager,
                                                        clock: FakeClock) -> None:
    await queries.set_settings(manager.kernel, BOB.id, reminders=False)
    g = await new_game(manager, people=(BOB,), setup="beginner", first="pet", start=False)
    await lobby.claim_first(manager.kernel, g.id, BOB.id)
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    clock.advance(hours=12)
    report = await manager.sweep()
    assert (report.reminders, report.reminders_skipped) == (0, 1)
    clock.advance(hours=12)
    assert (await manager.sweep()).autoplayed == 1
    assert await notices(manager, g.id, NoticeKind.REMINDER) == []


async def test_idle_games_end_and_say_so(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="remind")
    lobby = await new_game(manager, host=CAT, players=2, start=False)
    clock.advance(days=29, hours=23)
    await manager.sweep()
    assert (await queries.game(manager.kernel, g.id)).status is GameStatus.PLAY
    clock.advance(hours=1)
    report = await manager.sweep()
    assert report.ended == 2
    after = await queries.game(manager.kernel, g.id)
    assert after.status is GameStatus.ABANDONED and after.end_reason == "idle"
    assert (await queries.game(manager.kernel, lobby.id)).status is GameStatus.CANCELLED
    [ended] = await notices(manager, g.id, NoticeKind.ENDED)
    assert ended.body == Ended(reason="idle")
    assert await manager.store.timers(g.id) == []


async def test_a_move_restarts_the_idle_clock(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="remind")
    clock.advance(days=20)
    g = await step(manager, g, g.current_user_id)  # type: ignore[arg-type]
    clock.advance(days=20)
    await manager.sweep()
    assert (await queries.game(manager.kernel, g.id)).status is GameStatus.PLAY


async def test_timer_of_a_finished_turn_does_nothing(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="remind")
    clock.advance(hours=11)
    g = await step(manager, g, g.current_user_id)  # type: ignore[arg-type]
    clock.advance(hours=2)  # the first player's half time passes: their clock is gone
    assert (await manager.sweep()).reminders == 0
    clock.advance(hours=10)  # the second player's half time
    assert (await manager.sweep()).reminders == 1


def test_decide_policy() -> None:
    t = TimerRow(1, "turn", 0, due_at=50, deadline_at=100, reminders=0)
    kw = {"draft": False, "computer": False, "turn_hours": 1.0, "max_reminders": 3}
    assert decide(t, 60, action=TimeoutAction.REMIND, **kw).step is Step.REMIND  # type: ignore[arg-type]
    assert decide(t, 100, action=TimeoutAction.AUTOPILOT, **kw).step is Step.AUTOPILOT  # type: ignore[arg-type]
    assert decide(t, 100, action=TimeoutAction.COMPUTER, **kw).step is Step.CONVERT  # type: ignore[arg-type]
    late = TimerRow(1, "turn", 0, due_at=100, deadline_at=100, reminders=3)
    assert decide(late, 200, action=TimeoutAction.REMIND, **kw).step is Step.STALL  # type: ignore[arg-type]
    d = decide(TimerRow(1, "turn", 0, 100, 100, 1), 100, action=TimeoutAction.REMIND, **kw)  # type: ignore[arg-type]
    assert d.step is Step.REMIND and d.next_due == 100 + 1_800_000 and not d.final
    assert decide(t, 0, action=TimeoutAction.REMIND, draft=False, computer=True, turn_hours=1,
                  max_reminders=3).step is Step.COMPUTER_MOVE


async def test_sweep_loop_runs_until_stopped(manager: Manager, clock: FakeClock) -> None:
    import asyncio

    from bot.core.timers import SweepLoop

    g = await new_game(manager, people=(BOB,), setup="beginner", timeout_action="remind")
    clock.advance(hours=12)
    loop = SweepLoop(manager, interval=0.01)
    task = asyncio.create_task(loop.run_forever())
    for _ in range(200):
        if await notices(manager, g.id, NoticeKind.REMINDER):
            break
        await asyncio.sleep(0.01)
    loop.stop()
    await asyncio.wait_for(task, 2)
    assert len(await notices(manager, g.id, NoticeKind.REMINDER)) == 1


def test_fake_clock() -> None:
    import pytest

    from bot.core.clock import from_ms, to_ms

    clock = FakeClock()
    start = clock.now()
    assert clock.advance(hours=1, minutes=30) == start + timedelta(hours=1, minutes=30)
    assert clock.advance(60) == start + timedelta(hours=1, minutes=31)
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert from_ms(to_ms(start)) == start and start.tzinfo is not None


async def test_a_person_alone_has_no_turn_clock(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, computers=2)  # one person and two computers
    assert g.deadline_at is None
    [prompt] = await notices(manager, g.id, NoticeKind.DRAFT_PROMPT)
    assert prompt.body.deadline_at is None
    clock.advance(days=10)
    report = await manager.sweep()
    assert (report.reminders, report.autoplayed, report.reminders_skipped) == (0, 0, 0)
    assert (await queries.game(manager.kernel, g.id)).ply == g.ply
    clock.advance(days=21)
    assert (await manager.sweep()).ended == 1  # the idle limit still applies


async def test_the_clock_stops_when_only_one_person_is_left(manager: Manager,
                                                            clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", first="pet", start=False)
    await lobby.claim_first(manager.kernel, g.id, ANN.id)
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    assert g.deadline_at is not None
    g = await leaving.leave_game(manager.kernel, g.id, BOB.id)
    assert g.deadline_at is None and g.current_user_id == ANN.id
    assert [t.kind for t in await manager.store.timers(g.id)] == ["idle"]
    clock.advance(days=2)
    assert (await manager.sweep()).autoplayed == 0


async def _closed_dms_game(manager: Manager, **options: object) -> GameInfo:
    """Ann and Bob; Bob plays first and his DMs are known to be closed."""
    g = await new_game(manager, people=(BOB,), setup="beginner", first="pet", start=False,
                       **options)
    await lobby.claim_first(manager.kernel, g.id, BOB.id)
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    await leaving.dm_failed(manager.kernel, g.id, BOB.id)
    return g


async def test_closed_dms_get_the_reminder_in_the_thread(manager: Manager,
                                                        clock: FakeClock) -> None:
    g = await _closed_dms_game(manager, timeout_action="remind")
    clock.advance(hours=12)
    report = await manager.sweep()
    assert (report.reminders, report.reminders_in_thread, report.reminders_skipped) == (1, 1, 0)
    [r] = await notices(manager, g.id, NoticeKind.REMINDER)
    assert r.user_id is None  # a thread post, not a DM
    assert r.body.user_id == BOB.id and r.body.in_thread is True
    assert r.body.final is False and r.body.waiting == (g.id,)


async def test_thread_reminders_are_rate_limited_per_user(manager: Manager,
                                                          clock: FakeClock) -> None:
    games = []
    for host in (BOB, CAT):
        g = await new_game(manager, host=host, people=(ANN,), setup="beginner", first="pet",
                           start=False, timeout_action="remind")
        await lobby.claim_first(manager.kernel, g.id, ANN.id)
        games.append(await lobby.start(manager.kernel, g.id, host.id))
    await leaving.dm_failed(manager.kernel, games[0].id, ANN.id)
    clock.advance(hours=12)
    report = await manager.sweep()
    assert (report.reminders, report.reminders_in_thread, report.reminders_skipped) == (1, 1, 1)
    [r] = await notices(manager, None, NoticeKind.REMINDER)
    assert r.user_id is None and r.body.user_id == ANN.id
    assert sorted(r.body.waiting) == sorted(g.id for g in games)  # one post names both


async def test_reminders_off_means_none_in_the_thread_either(manager: Manager,
                                                             clock: FakeClock) -> None:
    await queries.set_settings(manager.kernel, BOB.id, reminders=False)
    g = await _closed_dms_game(manager, timeout_action="remind")
    clock.advance(hours=12)
    report = await manager.sweep()
    assert (report.reminders, report.reminders_skipped) == (0, 1)
    assert await notices(manager, g.id, NoticeKind.REMINDER) == []


async def test_reminders_go_back_to_dms_once_they_are_retried(manager: Manager,
                                                              clock: FakeClock) -> None:
    g = await _closed_dms_game(manager, timeout_action="remind", turn_hours=72)
    clock.advance(hours=36)  # half time, and past the 24 h after which DMs are tried again
    report = await manager.sweep()
    assert (report.reminders, report.reminders_in_thread) == (1, 0)
    [r] = await notices(manager, g.id, NoticeKind.REMINDER)
    assert r.user_id == BOB.id
