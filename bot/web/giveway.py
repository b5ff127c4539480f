"""The site giving its CPU back to the players' clicks, often: :func:`giving_way` runs a piece
of work (a picture) offering the CPU to any other runnable thread every half millisecond, and
:func:`give_way` offers it once (the site, at each request).

Why: on a kernel that does not preempt on wake-up (Linux 6.18 with ``Dynamic Preempt: none``,
this project's test machines), a woken bot thread that finds the site running on its CPU waits
for the next scheduler tick (4 ms at 250 Hz) whatever the two priorities are; a click crosses
several such wake-ups. ``sched_yield`` is the one way a running thread can hand the CPU over at
once. ``benchmarks/bench_wakeup.py`` (mode ``giveway``): a round trip's p99 behind nice-19 work
on every CPU went from 2.9 ms to about 0.5 ms. When nothing else waits, a yield returns at once
(about a microsecond), so the site loses nothing when the bot is idle.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

R = TypeVar("R")

EVERY = 0.0005  # seconds of work between offers: a woken click waits at most about this long

_yields = 0
_sched_yield: Callable[[], None] = getattr(os, "sched_yield", lambda: None)  # not on Windows


def give_way() -> None:
    """Offer this thread's CPU to any other thread waiting for it (no-op where unsupported)."""
    global _yields
    _yields += 1
    _sched_yield()


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    give_way()


def yields_made() -> int:
    """How many times this process offered its CPU (tests read it)."""
    return _yields


def giving_way(func: Callable[[], R], every: float = EVERY) -> R:
    """``func()``, with the CPU offered every ``every`` seconds while it runs: an interval timer
    (``SIGALRM``; Python runs the handler between bytecodes, so a long C call such as a PNG's
    deflate finishes first). Only in a process's main thread, where signals are handled; in any
    other thread, and where there is no such timer, simply ``func()``. The handler and the
    timer are put back as they were (an alarm already set, as a test's time limit is, goes off
    when it would have, or at the end if it fell due meanwhile), so an idle process is never
    woken by them."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "setitimer"):
        return func()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.siginterrupt(signal.SIGALRM, False)  # a system call the alarm meets carries on
    started = time.monotonic()
    pending, repeat = signal.setitimer(signal.ITIMER_REAL, every, every)
    try:
        return func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # None: a handler not installed from Python, which cannot be put back; the default.
        signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)
        if pending > 0:  # someone's alarm (a test's time limit) was set: it goes on, late or not
            left = pending - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), repeat)
