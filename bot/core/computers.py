"""Where computer players think: a pool of worker processes.

A strong computer searches for hundreds of milliseconds in pure Python. In a thread that would
still hold the interpreter lock and freeze the event loop (every click of every game waits), so
computer moves run in separate processes, sized to the machine. Computer moves come from the
computers' queue (:mod:`bot.core.thinking`: one runner per worker, first come first served) and
the sweep (one at a time), which bound them, so :meth:`ComputerPool.choose` never refuses one.
Hints share the pool through :meth:`ComputerPool.run`: at most ``max_waiting`` jobs wait for a
free worker, past that :class:`ComputersBusyError` is raised at once ("try again in a
minute"), so a burst can never pile up unbounded work or memory.

Workers see exactly what a computer player may see: the seat's private view and the legal moves
(never the bag, the seed or another hand), and a seed derived one-way from the game's.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.core.workers import WorkerPool, keep_recent
from engine.ai import make_player
from engine.moves import Move
from engine.views import PrivateView


class ComputersBusyError(Exception):
    """Every worker is busy and the queue is full: try this hint later."""


def _choose(level: str, seed: int, view: PrivateView, legal: list[Move]) -> tuple[Move, float]:
    """In a worker process: the move, and the CPU seconds it took."""
    started = time.process_time()
    move = make_player(level, seed).choose(view, legal)
    return move, time.process_time() - started


def _warm() -> None:
    # Import and build the tables once per worker, before the first real move needs them.
    import engine.ai.players  # noqa: F401


@dataclass
class ComputerStats:
    moves: int = 0
    busy: int = 0  # jobs (hints) refused because the queue was full
    seconds: list[float] = field(default_factory=list)  # recent CPU seconds per move


class ComputerPool(WorkerPool):
    """Computer moves in ``workers`` processes (default: one per CPU)."""

    def __init__(self, workers: int | None = None, max_waiting: int | None = None, *,
                 on_move: Callable[[str, float], object] | None = None) -> None:
        count = max(1, workers or os.cpu_count() or 1)
        super().__init__(count, count * 4 if max_waiting is None else max_waiting, _warm)
        self.stats = ComputerStats()
        self.on_move = on_move  # (level, CPU seconds) after each move: the metrics

    def _busy(self) -> Exception:
        self.stats.busy += 1
        return ComputersBusyError(f"{self._in_flight} computer jobs in flight")

    async def choose(self, level: str, seed: int, view: PrivateView,
                     legal: list[Move]) -> Move:
        move, seconds = await self.run(_choose, level, seed, view, legal, bounded=False)
        self.stats.moves += 1
        self.stats.seconds.append(seconds)
        if self.on_move is not None:
            self.on_move(level, seconds)
        keep_recent(self.stats.seconds)
        return move
