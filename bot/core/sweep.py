"""The sweep service: time passing.

Claims the due timers (with a lease, so several processes never fire one twice) and acts on
each: reminders, turn deadlines (autopilot, a computer takes over, stall), computer turns left
pending by a crash or a shutdown (queued again: :mod:`bot.core.thinking`), idle games; then
runs the features' periodic work (:mod:`bot.core.hooks`) and deletes old notices. The policy
(what a timer does when) is :mod:`bot.core.timers`; the moves go through the flow.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.core import flow
from bot.core.clock import from_ms, iso_at, span_ms
from bot.core.game import LiveGame
from bot.core.kernel import Kernel, StaleError
from bot.core.models import GameStatus, ManagerError, SweepReport
from bot.core.notices import Reminder
from bot.core.storage import TimerRow
from bot.core.timers import Step, decide

log = logging.getLogger("calico.manager")


async def sweep(k: Kernel) -> SweepReport:
    """Act on every due timer (claimed, so that several processes never fire one twice):
    reminders, turn deadlines, computer turns left pending, idle games; then the features'
    periodic work (:mod:`bot.core.hooks`: a week of the challenge to close, a tournament round
    to start) and delete notices that ended more than ``outbox_keep`` ago. A timer that
    fails is pushed back (doubling each time, up to ``timer_backoff_max``), counted, logged
    once, and never holds the others."""
    now = k.now_ms()
    lease = span_ms(k.config.timer_lease)
    counts: dict[str, int] = {}
    details: list[str] = []
    seen: set[tuple[int, str, int]] = set()
    for _ in range(1000):
        due = await k.store.claim_timers(k.owner, now, lease, k.config.sweep_batch)
        fresh = [t for t in due if t.key not in seen]
        for t in due:
            if t.key in seen:
                await k.store.release_timer(t, k.owner)
                continue
            seen.add(t.key)
            try:
                step = await _fire(k, t, now)
            except Exception as e:
                await _timer_failed(k, t, now, e)
                counts["failed"] = counts.get("failed", 0) + 1
                continue
            if step:
                counts[step] = counts.get(step, 0) + 1
                details.append(f"game {t.game_id} seat {t.seat}: {step}")
        if len(due) < k.config.sweep_batch or not fresh:
            break
    features = await k.hooks.sweep(k, now)  # a week to close, a round to start...
    pruned = await k.store.prune_outbox(now - span_ms(k.config.outbox_keep))
    if pruned:
        await k.store.after_prune()
    k.last_sweep_at = from_ms(now)
    return SweepReport(
        reminders=counts.get("reminder", 0) + counts.get("reminder_thread", 0),
        reminders_in_thread=counts.get("reminder_thread", 0),
        reminders_skipped=counts.get("skipped", 0),
        autoplayed=counts.get(Step.AUTOPILOT, 0), converted=counts.get(Step.CONVERT, 0),
        computer_moves=counts.get(Step.COMPUTER_MOVE, 0), stalled=counts.get(Step.STALL, 0),
        ended=counts.get("idle", 0), pruned=pruned, failed=counts.get("failed", 0),
        features=features, details=details)


async def _timer_failed(k: Kernel, t: TimerRow, now: int, error: Exception) -> None:
    failures = t.failures + 1
    delay = min(span_ms(k.config.timer_backoff_max),
                span_ms(k.config.timer_backoff) * 2 ** min(failures - 1, 20))
    counted = await k.store.timer_failed(t, k.owner, now + delay, repr(error)[:500])
    k.timer_failures += 1
    if counted <= 1:
        # Logged once: a timer that keeps failing backs off and stays quiet.
        log.error("timer %s of game %s failed; retried with backoff", t.kind, t.game_id,
                  exc_info=error)
    else:
        log.debug("timer %s of game %s failed again (%d times)", t.kind, t.game_id, counted)


async def _fire(k: Kernel, t: TimerRow, now: int) -> str | None:
    async with k.lock(t.game_id):
        current = [x for x in await k.store.timers(t.game_id) if x.key == t.key]
        if not current or current[0].due_at > now:
            return None  # moved on since the claim (rewritten by a move)
        timer = current[0]
        try:
            g = await k.load(t.game_id)
        except ManagerError:
            return None  # the game is gone (its timers went with it)
        if g.version != (await k.store.game_version(g.id)):
            g = await k.reload(g.id)
        if timer.kind == "idle":
            if not g.status.active:
                return None
            status = GameStatus.CANCELLED if g.status is GameStatus.LOBBY \
                else GameStatus.ABANDONED
            await flow.end(k, g, status, "idle")
            return "idle"
        if not g.status.started or not g.must_act(timer.seat):
            tx = await k.begin(g)
            tx.delete_timers.append((timer.kind, timer.seat))
            await k.commit(tx)
            return None
        return await _act(k, g, timer, now)


async def _act(k: Kernel, g: LiveGame, timer: TimerRow, now: int) -> str | None:
    """What a due turn timer does (under the game's lock): see :func:`bot.core.timers.decide`."""
    seat = timer.seat
    decision = decide(
        timer, now, action=g.options.timeout_action, draft=g.status is GameStatus.DRAFT,
        computer=flow.mover_level(g, seat) is not None, turn_hours=g.options.turn_hours,
        max_reminders=k.config.max_reminders)
    try:
        if decision.step is Step.COMPUTER_MOVE:
            # A random computer moves now; one that thinks joins the computers' queue and
            # the claim is kept: the move's commit deletes the timer, and if this process
            # dies first the lease runs out and another process (or the next start) plays it.
            await flow.run_computers(k, g, strict=True)
        elif decision.step is Step.AUTOPILOT:
            assert g.state is not None
            if flow.thinks(g.options.ai_level):
                # A level that searches plays the turn from the computers' queue, never
                # inside the sweep (forty tables timing out at once would hold it for
                # minutes); the claim is kept, as for a computer's turn above.
                flow.autopilot_later(k, g, seat)
                return decision.step.value
            move = await flow.choose(k, g.state, seat, g.options.ai_level)
            g, _ = await flow.apply_move(k, g, seat, move, "autopilot")
            await flow.run_computers(k, g)
        elif decision.step is Step.CONVERT:
            g = await flow.convert(k, g, seat, "timeout")
            await flow.run_computers(k, g)
        elif decision.step is Step.STALL:
            tx = await k.begin(g)
            tx.delete_timers.append(("turn", seat))
            await k.commit(tx)
        else:
            return await _remind(k, g, timer, decision.final, decision.next_due, now)
    except StaleError:
        return None  # another process acted on this game meanwhile
    return decision.step.value


async def _remind(k: Kernel, g: LiveGame, timer: TimerRow, final: bool, next_due: int | None,
                  now: int) -> str:
    """A reminder for the seat of ``timer``: a DM, or, while their DMs are closed, a post in
    the game's thread that pings them. Either way at most one per ``reminder_gap`` per
    person, and none at all for someone who turned reminders off."""
    row = g.seats[timer.seat]
    assert row.user_id is not None
    user = await k.user(row.user_id)
    gap = span_ms(k.config.reminder_gap)
    send = user.reminders and (user.last_reminder_at is None
                               or now - user.last_reminder_at >= gap)
    in_thread = send and k.dm_closed(row.user_id)
    # One reminder names every game waiting for them, so the rate limit loses nothing
    # they were not told about within the last gap.
    waiting = await k.store.waiting_games(row.user_id) if send else []
    tx = await k.begin(g)
    tx.upsert_timers.append(replace(timer, due_at=next_due or now,
                                    reminders=timer.reminders + 1))
    if send:
        deadline = timer.deadline_at
        reminder = Reminder(
            seat=timer.seat, deadline_at=iso_at(deadline), final=final,
            action=g.options.timeout_action.value, phase=g.status.value,
            waiting=tuple(waiting), overdue=deadline is not None and now >= deadline,
            next_at=iso_at(next_due) if not final else None, idle_days=k.config.idle_days)
        if in_thread:
            tx.thread(replace(reminder, user_id=row.user_id, in_thread=True))
        else:
            tx.dm(timer.seat, reminder)
        tx.user_updates.append((row.user_id, {"last_reminder_at": now}))
    await k.commit(tx)
    if not send:
        return "skipped"
    return "reminder_thread" if in_thread else "reminder"
