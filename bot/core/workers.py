"""Worker processes with a bounded queue: what computer moves (:mod:`bot.core.computers`) and game
reviews (:mod:`bot.core.review`) both run in.

The work is pure-Python search, so a thread would hold the interpreter lock and freeze the event
loop: it runs in separate processes instead. At most ``workers + max_waiting`` jobs are in
flight; past that :meth:`WorkerPool.run` refuses at once (each kind of pool says how, with its
own error), so a burst of work can never pile up unbounded time or memory.

Workers die with the bot: however the bot process ends (SIGKILL, the OOM killer, a crash), its
workers follow within a second (:func:`follow_parent`), and with them the multiprocessing
resource tracker they share (it exits when the last process holding its pipe is gone). Without
that, every crash under a restart loop would leave another set of idle processes behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger("calico.workers")

RECENT = 1000  # timings kept for the figures: the newest, between 500 and 1,000 of them


def keep_recent(seconds: list[float]) -> None:
    """Drop the older half of a list of timings once it holds :data:`RECENT`."""
    if len(seconds) > RECENT:
        del seconds[:RECENT // 2]


PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_CHECK_SECONDS = 1.0


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def follow_parent(parent: int) -> None:
    """In a worker process: end it when ``parent`` (the bot) is gone. On Linux the kernel sends
    SIGKILL the moment the parent dies (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon
    thread checks every second that the parent is still ``parent`` (a child is handed to
    another process when its parent dies) and exits otherwise."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # gone before the line above took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="calico-parent-watch",
                     daemon=True).start()


def _start_worker(parent: int, warm: Callable[[], None]) -> None:
    """Each worker's initializer: follow the parent, then warm up."""
    follow_parent(parent)
    warm()


class WorkerPool:
    """``workers`` processes, started on first use, each running ``warm`` once when it starts."""

    def __init__(self, workers: int, max_waiting: int, warm: Callable[[], None]) -> None:
        self.workers = max(1, workers)
        self.max_waiting = max_waiting
        self._warm = warm
        self._executor = self._new_executor()
        self._in_flight = 0
        self.restarts = 0  # times a dead worker broke the pool and it was replaced

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn: a fresh interpreter, not a fork of a process with an event loop and threads.
        # The kernel's parent of a worker is the thread that started it (the event loop's,
        # through run): the pool lives no longer than that loop anyway.
        return ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker, initargs=(os.getpid(), self._warm))

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """A worker died (killed, out of memory...): the executor refuses every job after that,
        so start a new one (once, whoever of the jobs it failed notices first)."""
        if self._executor is not broken:
            return
        broken.shutdown(wait=False, cancel_futures=True)
        self._executor = self._new_executor()
        self.restarts += 1
        log.warning("a worker process died: its pool was replaced (%d times since start)",
                    self.restarts)

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def has_room(self) -> bool:
        """Whether a job would be accepted now."""
        return self._in_flight < self.workers + self.max_waiting

    def _busy(self) -> Exception:
        """Count a refusal; the error to raise for it."""
        return RuntimeError(f"{self._in_flight} jobs in flight")

    def _finished(self, seconds: float) -> None:
        """After each accepted job, with its wall seconds (nothing by default)."""

    async def run(self, fn: Callable[..., T], *args: Any, bounded: bool = True) -> T:
        """``fn(*args)`` in a worker process, or :meth:`_busy`'s error at once when the queue
        is full (unless not ``bounded``: the caller bounds its own jobs). ``fn`` must be a
        module-level function and its arguments picklable. A job lost with a worker that
        died is run once more on the replaced pool."""
        if bounded and not self.has_room():
            raise self._busy()
        self._in_flight += 1
        started = time.perf_counter()
        try:
            loop = asyncio.get_running_loop()
            for attempt in (1, 2):
                executor = self._executor
                try:
                    return await loop.run_in_executor(executor, fn, *args)
                except BrokenProcessPool:
                    self._replace(executor)
                    if attempt == 2:
                        raise
            raise AssertionError("unreachable")
        finally:
            self._in_flight -= 1
            self._finished(time.perf_counter() - started)

    async def warm_up(self) -> None:
        """Start every worker now (each takes a moment to import the engine)."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self._executor, self._warm)
                               for _ in range(self.workers)))

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
