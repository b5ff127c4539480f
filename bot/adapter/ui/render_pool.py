"""The threads that draw pictures, answers to clicks before posts.

Two kinds of picture wait for the render threads: the answer to someone's click (a preview, a
hand, a board), which that person is looking at a spinner for, and the posts the outbox sends
after a move (the thread's table, the next player's turn), which nobody is waiting on to the
millisecond. With one render thread (the default: each thread costs about 20 MB, see
``bot.settings``) and first-come first-served, a preview asked just after a move waited behind
the table and the turn pictures of that move: 60 ms at p99 and up to 250 ms instead of 37 ms
with two threads (``benchmarks/bench_bot.py``). Here urgent work goes first; a picture already
being drawn is never interrupted.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

URGENT = 0  # someone is waiting for this answer
BACKGROUND = 1  # a post from the outbox
_STOP = 2  # after everything queued

_Job = tuple[Callable[[], Any], "concurrent.futures.Future[Any]"]


class RenderPool:
    """``threads`` worker threads taking jobs from one queue, by priority then in order."""

    def __init__(self, threads: int, name: str = "calico-render") -> None:
        self._queue: queue.PriorityQueue[tuple[int, int, _Job | None]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._closed = False
        self.threads = [threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
                        for i in range(max(1, threads))]
        for thread in self.threads:
            thread.start()

    def submit(self, fn: Callable[[], R], priority: int = URGENT
               ) -> concurrent.futures.Future[R]:
        if self._closed:
            raise RuntimeError("the render pool is shut down")
        future: concurrent.futures.Future[R] = concurrent.futures.Future()
        self._queue.put((priority, next(self._order), (fn, future)))
        return future

    def shutdown(self) -> None:
        """No new work; the threads finish what is queued, then end."""
        self._closed = True
        for _ in self.threads:
            self._queue.put((_STOP, next(self._order), None))

    def _work(self) -> None:
        while True:
            _, _, job = self._queue.get()
            if job is None:
                return
            fn, future = job
            if not future.set_running_or_notify_cancel():
                continue  # the caller gave up waiting: nothing to draw
            try:
                result = fn()
            except BaseException as e:  # handed to the caller, like an executor would
                future.set_exception(e)
            else:
                future.set_result(result)
