"""Turn clocks and the periodic sweep.

Nothing here sleeps for hours: every timer is a row (``timers`` table) with a due time, written
in the same transaction as the move that starts the turn, and :func:`bot.core.sweep.sweep`
(``Manager.sweep``) acts on the due ones. This module holds the policy as pure functions (what
a due turn timer means, given the game's timeout action) and :class:`SweepLoop`, the one
periodic task that calls the sweep.

A person's turn (or goal draft) of ``turn_hours``:

- at half time: a reminder (``final`` when nothing but the deadline action follows);
- at the deadline, by the game's ``timeout_action``:
  ``remind`` - another reminder every half period, until ``max_reminders`` have been counted
  (the stall cut-off: then the game waits silently, and ends as idle after ``idle_days``);
  ``autopilot`` - a computer plays this one move, the seat stays the person's;
  ``computer`` - the seat becomes a computer player for the rest of the game.
- A goal draft that runs out always gets the computer's choice (the game then starts).

Only games with at least two people have turn clocks (a person alone holds nobody up).
A computer seat's timer is due after a short grace (``computer_grace``): the flow plays computer
turns right after the move that leads to them (those that think through the computers' queue,
:mod:`bot.core.thinking`), and the sweep picks up any that a crash or restart interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.core.models import SweepReport, TimeoutAction
from bot.core.storage import TimerRow

log = logging.getLogger("calico.timers")

HOUR_MS = 3_600_000


class Step(StrEnum):
    COMPUTER_MOVE = "computer_move"
    REMIND = "remind"
    AUTOPILOT = "autopilot"
    CONVERT = "convert"
    STALL = "stall"


@dataclass(frozen=True, slots=True)
class Decision:
    step: Step
    final: bool = False  # REMIND: no further reminder will come for this turn
    next_due: int | None = None  # REMIND: when this timer fires next


def turn_ms(turn_hours: float) -> int:
    return max(1, round(turn_hours * HOUR_MS))


def turn_timer(game_id: int, seat: int, now: int, turn_hours: float, computer: bool) -> TimerRow:
    """The timer of a turn (or goal draft) that starts ``now``."""
    if computer:
        return TimerRow(game_id, "turn", seat, now, now, 0)
    length = turn_ms(turn_hours)
    return TimerRow(game_id, "turn", seat, now + length // 2, now + length, 0)


def decide(timer: TimerRow, now: int, *, action: TimeoutAction, draft: bool, computer: bool,
           turn_hours: float, max_reminders: int) -> Decision:
    """What a due turn timer means now."""
    if computer:
        return Decision(Step.COMPUTER_MOVE)
    half = turn_ms(turn_hours) // 2
    deadline = timer.deadline_at if timer.deadline_at is not None else now
    count = timer.reminders + 1
    if now < deadline:
        # The half-time reminder. It is the last one unless the game keeps reminding.
        keeps_reminding = action is TimeoutAction.REMIND and not draft
        return Decision(Step.REMIND, final=not keeps_reminding or count >= max_reminders,
                        next_due=deadline)
    if draft or action is TimeoutAction.AUTOPILOT:
        return Decision(Step.AUTOPILOT)
    if action is TimeoutAction.COMPUTER:
        return Decision(Step.CONVERT)
    if timer.reminders >= max_reminders:
        return Decision(Step.STALL)
    return Decision(Step.REMIND, final=count >= max_reminders, next_due=now + half)


class Sweeper(Protocol):
    async def sweep(self) -> SweepReport: ...


class SweepLoop:
    """Calls ``sweep()`` every ``interval`` seconds until stopped (the bot runs one of these)."""

    def __init__(self, sweeper: Sweeper, interval: float = 60.0) -> None:
        self._sweeper = sweeper
        self.interval = interval
        self._stop = asyncio.Event()

    async def run_forever(self) -> None:
        self._stop.clear()
        while not self._stop.is_set():
            try:
                report = await self._sweeper.sweep()
                if report.details:
                    log.info("sweep: %s", "; ".join(report.details))
            except Exception:
                # One bad game must not stop reminders for all the others.
                log.exception("sweep failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=self.interval)

    def stop(self) -> None:
        self._stop.set()
