"""Where computer players think: a pool of worker processes, with a bounded queue.

A strong computer searches for hundreds of milliseconds in pure Python. In a thread that would
still hold the interpreter lock and freeze the event loop (every click of every game waits), so
computer moves run in separate processes, sized to the machine. At most ``max_waiting`` moves
wait for a free worker; past that :meth:`ComputerPool.choose` raises :class:`ComputersBusyError` at
once and the manager leaves the move to its timer (the sweep plays it a little later), so a
burst of computer games can never pile up unbounded work or memory.

Workers see exactly what a computer player may see: the seat's private view and the legal moves
(never the bag, the seed or another hand), and a seed derived one-way from the game's.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.ai import make_player
from engine.moves import Move
from engine.views import PrivateView

log = logging.getLogger("calico.computers")

T = TypeVar("T")


class ComputersBusyError(Exception):
    """Every worker is busy and the queue is full: try this move later."""


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
    busy: int = 0  # moves refused because the queue was full
    seconds: list[float] = field(default_factory=list)  # recent CPU seconds per move


class ComputerPool:
    """Computer moves in ``workers`` processes (default: one per CPU)."""

    def __init__(self, workers: int | None = None, max_waiting: int | None = None, *,
                 on_move: Callable[[str, float], object] | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.max_waiting = self.workers * 4 if max_waiting is None else max_waiting
        # spawn: a fresh interpreter, not a fork of a process with an event loop and threads.
        self._executor = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_warm)
        self._in_flight = 0
        self.stats = ComputerStats()
        self.on_move = on_move  # (level, CPU seconds) after each move: the metrics

    @property
    def in_flight(self) -> int:
        return self._in_flight

    async def choose(self, level: str, seed: int, view: PrivateView,
                     legal: list[Move]) -> Move:
        if self._in_flight >= self.workers + self.max_waiting:
            self.stats.busy += 1
            raise ComputersBusyError(f"{self._in_flight} computer moves in flight")
        self._in_flight += 1
        try:
            loop = asyncio.get_running_loop()
            move, seconds = await loop.run_in_executor(self._executor, _choose, level, seed,
                                                       view, legal)
        finally:
            self._in_flight -= 1
        self.stats.moves += 1
        self.stats.seconds.append(seconds)
        if self.on_move is not None:
            self.on_move(level, seconds)
        if len(self.stats.seconds) > 1000:
            del self.stats.seconds[:500]
        return move

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Another short job of the same kind in these processes (a hint: bot.core.review),
        under the same bound: :class:`ComputersBusyError` at once when the queue is full.
        ``fn`` must be a module-level function and its arguments picklable."""
        if self._in_flight >= self.workers + self.max_waiting:
            self.stats.busy += 1
            raise ComputersBusyError(f"{self._in_flight} computer jobs in flight")
        self._in_flight += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, fn, *args)
        finally:
            self._in_flight -= 1

    def has_room(self) -> bool:
        """Whether a job would be accepted now."""
        return self._in_flight < self.workers + self.max_waiting

    async def warm_up(self) -> None:
        """Start every worker now (each takes a moment to import the engine)."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self._executor, _warm)
                               for _ in range(self.workers)))

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
