"""The computers' queue: games whose computer player must think, first come, first served.

A person's click is answered once their own move is stored; a computer seat that thinks (a
level that searches, in a worker process) is then played from here, never inside the click.
The queue holds game ids only, one entry per game (however many of its seats are computers),
so its memory is bounded by the number of games, never by their states. ``runners`` tasks (one
per computer worker) take the oldest entry, play ONE move of that game (the ``play``
callable, :func:`bot.core.flow.play_queued`), and when the game has another computer turn due
it goes to the back of the queue: a game with three computer seats in a row takes its turns
between the other games' instead of holding a worker for all three.

The queue never refuses (there is no "busy, try later"): a turn waits its place. Its timer
(:meth:`bot.core.kernel.Kernel.turn_timer`, due after the computer grace) stays in the
database as crash recovery only: when this process dies, or stops with turns still queued
(:meth:`TurnQueue.stop`), the sweep of the next process to look plays them.

It knows nothing of games: what one turn is, is the ``play`` callable's business.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

log = logging.getLogger("calico.computers")

MAX_FAILURES = 3  # a game whose computer turn fails this often in a row is left to its timer


class TurnQueue:
    """Game ids waiting for a computer worker (see the module docstring)."""

    def __init__(self, runners: int, play: Callable[[int], Awaitable[bool]]) -> None:
        """``play(game_id)`` plays one computer turn of the game and returns whether another
        is due (the game then queues again, at the back)."""
        self.runners = max(1, runners)
        self._play = play
        self._queued: OrderedDict[int, None] = OrderedDict()
        self._running: set[int] = set()
        self._again: set[int] = set()  # pushed while running: look at it once more
        self._failures: dict[int, int] = {}
        self._work = asyncio.Event()  # set while something is queued
        self._changed = asyncio.Event()  # set (and replaced) whenever a turn is done
        self._tasks: list[asyncio.Task[None]] = []
        self._stopped = False
        self.played = 0  # turns played since start
        self.failed = 0  # turns that raised (each retried, up to MAX_FAILURES in a row)

    # ------------------------------------------------------------------ what is waiting

    def __len__(self) -> int:
        """Games waiting (not counting those a runner is on)."""
        return len(self._queued)

    def waiting(self) -> list[int]:
        """The queued game ids, next first."""
        return list(self._queued)

    def busy_with(self, game_id: int) -> bool:
        """Whether this game is queued or being played."""
        return game_id in self._queued or game_id in self._running

    @property
    def idle(self) -> bool:
        return not self._queued and not self._running

    # ------------------------------------------------------------------ in and out

    def push(self, game_id: int) -> None:
        """Queue this game's computer turn (at the back; nothing changes if it is queued
        already; once more after the current one if a runner is on it)."""
        if self._stopped:
            return  # shutting down: the turn's timer plays it at the next start
        if game_id in self._running:
            self._again.add(game_id)
            return
        if game_id in self._queued:
            return
        self._queued[game_id] = None
        self._work.set()
        self._start()

    def _start(self) -> None:
        # Started on first use (a running loop is needed); a runner that ended for any reason
        # is replaced, so the queue never stalls with fewer runners than workers.
        self._tasks = [t for t in self._tasks if not t.done()]
        for i in range(len(self._tasks), self.runners):
            self._tasks.append(asyncio.create_task(self._run(), name=f"calico-computer-{i}"))

    def _done(self) -> None:
        # Wake whoever waits in settled(), with a fresh event for the next wait.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _next(self) -> int:
        while not self._queued:
            self._work.clear()
            await self._work.wait()
        game_id, _ = self._queued.popitem(last=False)
        self._running.add(game_id)
        return game_id

    async def _run(self) -> None:
        while True:
            game_id = await self._next()
            more = False
            try:
                more = await self._play(game_id)
                self._failures.pop(game_id, None)
                self.played += 1
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._stopped or task is None or task.cancelling():
                    raise
                # The job's future was cancelled under it (its pool shut down), not this
                # runner: count it as a failed turn and go on.
                more = self._failed(game_id)
            except Exception:
                more = self._failed(game_id)
            finally:
                self._running.discard(game_id)
                again = game_id in self._again
                self._again.discard(game_id)
            if (more or again) and not self._stopped:
                self._queued[game_id] = None
                self._work.set()
            self._done()

    def _failed(self, game_id: int) -> bool:
        """Count a failed turn (logged with the exception being handled); whether to try it
        again (after the games queued meanwhile) or leave it to its timer."""
        self.failed += 1
        failures = self._failures.get(game_id, 0) + 1
        if failures < MAX_FAILURES:
            self._failures[game_id] = failures
            log.warning("computer turn of game %s failed (%d); queued again", game_id,
                        failures, exc_info=True)
            return True
        self._failures.pop(game_id, None)
        log.exception("computer turn of game %s failed %d times: left to its timer", game_id,
                      failures)
        return False

    # ------------------------------------------------------------------ waiting for it

    async def settled(self, game_id: int | None = None) -> None:
        """Back once this game (None: every game) has no computer turn queued or playing."""
        def done() -> bool:
            return self.idle if game_id is None else not self.busy_with(game_id)

        while not done():
            await self._changed.wait()

    async def stop(self) -> list[int]:
        """Stop playing: a move being stored is finished or dropped with its transaction, the
        rest is left to the turns' timers. Returns the game ids that were still queued or
        playing."""
        self._stopped = True
        left = [*self._running, *self._queued]
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._queued.clear()
        self._running.clear()
        self._again.clear()
        self._done()
        return left
