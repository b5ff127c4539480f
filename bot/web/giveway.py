"""The site giving its CPU back to the players' clicks: :func:`giving_way` runs a piece of work
(a picture) offering the CPU to any other runnable thread every half millisecond,
:func:`give_way` offers it once (the site, at each request), and :func:`loop_giving_way` is an
event loop whose thread does the same whenever it has work. A process of the site that
:func:`defers <defer_when_full>` also pauses at each offer while every CPU of the machine is
wanted by other threads.

Why: on a kernel that does not preempt on wake-up (Linux 6.18 with ``Dynamic Preempt: none``,
this project's test machines), a woken bot thread that finds the site running on its CPU waits
for the next scheduler tick (4 ms at 250 Hz) whatever the two priorities are; a click crosses
several such wake-ups. ``sched_yield`` is the one way a running thread can hand the CPU over at
once (``benchmarks/bench_wakeup.py``, mode ``giveway``: a round trip's p99 behind nice-19 work
on every CPU went from 2.9 ms to about 0.5 ms). A yield only helps a thread waiting on the
same CPU, though: one queued behind the bot's other work on another CPU waits for the kernel to
move it, which it does at once when a CPU goes idle. So while the machine is full (more threads
running or waiting than it has CPUs, ``/proc/loadavg``) the site sleeps instead, up to
:data:`PAUSE_MAX` at a time so that it always makes some progress: its CPU is then only what
nobody else wants, the idle class the kernel does not deliver promptly. When nothing else
waits, a yield returns at once (about a microsecond), so the site loses nothing when the bot
is idle.
"""

from __future__ import annotations

import asyncio
import os
import selectors
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar, TypeVarTuple

R = TypeVar("R")
Ts = TypeVarTuple("Ts")

EVERY = 0.0005  # seconds of work between offers: a woken click waits at most about this long
# The longest pause at a time: however full the machine, the site keeps about EVERY of work per
# PAUSE_MAX (some 5 % of a CPU), so its pages are late, never dead.
PAUSE_MAX = 0.010

_yields = 0
_pauses = 0
_deferring = False
# An offer under way. Python runs a signal's handler again inside itself when the signal comes
# again before it returned: a starved process (every yield longer than EVERY) would nest offers
# until its stack ran out.
_offering = False
_sched_yield: Callable[[], None] = getattr(os, "sched_yield", lambda: None)  # not on Windows
_CPUS = os.cpu_count() or 1
_loadavg: int | None = None  # /proc/loadavg, kept open: read 2,000 times a second at most


def _timer_here() -> bool:
    """Whether this thread can use the interval timer: Python handles signals in a process's
    main thread only, and not every system has ``setitimer``."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


def _take_alarm() -> Any:
    """Make :func:`_on_alarm` the handler of ``SIGALRM``; the handler it replaces."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.siginterrupt(signal.SIGALRM, False)  # a system call the alarm meets carries on
    return previous


def runnable_now() -> int | None:
    """How many threads of the whole machine are running or waiting for a CPU at this instant,
    this one included (``/proc/loadavg``'s fourth field); None where it cannot be read."""
    global _loadavg
    try:
        if _loadavg is None:
            _loadavg = os.open("/proc/loadavg", os.O_RDONLY)
        return int(os.pread(_loadavg, 128, 0).split()[3].split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return None


def machine_full() -> bool:
    """Whether other threads want every CPU of the machine right now (so one waits)."""
    running = runnable_now()
    return running is not None and running - 1 > _CPUS


def defer_when_full(on: bool = True) -> None:
    """From now on this process's offers pause while :func:`machine_full` (the site's child and
    its pictures' worker: :func:`bot.web.process.lower_priority`). Never the bot's own process,
    whose loop must not sleep."""
    global _deferring
    _deferring = on


def deferring() -> bool:
    """Whether this process pauses while the machine is full."""
    return _deferring


def give_way() -> None:
    """Offer this thread's CPU to any other thread waiting for it (no-op where unsupported)
    and, in a deferring process, pause while the machine is full."""
    global _yields, _offering
    if _offering:  # the alarm came again during an offer: this one is still under way
        return
    _offering = True
    try:
        _yields += 1
        _sched_yield()
        if _deferring and machine_full():
            _pause()
    finally:
        _offering = False


def _pause() -> None:
    """Sleep while the machine is full, up to PAUSE_MAX. In the main thread the interval timer
    is stopped meanwhile (its alarms would only interrupt the sleeps) and set again after."""
    global _pauses
    _pauses += 1
    timer = signal.setitimer(signal.ITIMER_REAL, 0) if _timer_here() else (0.0, 0.0)
    try:
        deadline = time.monotonic() + PAUSE_MAX
        time.sleep(EVERY)
        while time.monotonic() < deadline and machine_full():
            time.sleep(EVERY)
    finally:
        if timer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *timer)


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    give_way()


def yields_made() -> int:
    """How many times this process offered its CPU (tests read it)."""
    return _yields


def pauses_made() -> int:
    """How many times this process paused because the machine was full (tests read it)."""
    return _pauses


def giving_way(func: Callable[[], R], every: float = EVERY) -> R:
    """``func()``, with the CPU offered every ``every`` seconds while it runs: an interval timer
    (``SIGALRM``; Python runs the handler between bytecodes, so a long C call such as a PNG's
    deflate finishes first). Only in a process's main thread, where signals are handled; in any
    other thread, and where there is no such timer, simply ``func()``. The handler and the
    timer are put back as they were (an alarm already set, as a test's time limit is, goes off
    when it would have, or at the end if it fell due meanwhile), so an idle process is never
    woken by them."""
    if not _timer_here():
        return func()
    previous = _take_alarm()
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


class _BusySelector(selectors.DefaultSelector):
    """The loop's selector: the interval timer runs while the loop works, stops while it waits
    (an idle site is never woken by it)."""

    def select(self, timeout: float | None = None) -> Any:
        if timeout == 0:  # work is waiting: no pause here, the timer runs on
            return super().select(timeout)
        left = signal.setitimer(signal.ITIMER_REAL, 0)[0]
        started = time.monotonic()
        try:
            return super().select(timeout)
        finally:
            # A real wait (the CPU was free meanwhile) starts a new period; a select that found
            # work at once keeps what was left of it, so a loop busy with short turns still
            # offers the CPU every EVERY seconds.
            waited = time.monotonic() - started
            signal.setitimer(signal.ITIMER_REAL,
                             left if left > 0 and waited < EVERY else EVERY, EVERY)


class _Loop(asyncio.SelectorEventLoop):
    """The giving-way loop: it hears its own signals without the wake-up pipe, and stops the
    timer when it closes."""

    def add_signal_handler(self, sig: int, callback: Callable[[*Ts], object],
                           *args: *Ts) -> None:
        # asyncio passes signals to its loop through a wake-up pipe that every signal writes
        # to, the alarm too: a long turn of work (a thousand alarms) fills it, and a stop
        # signal arriving then would be lost. This handler hands it to the loop directly.
        signal.signal(sig, lambda signum, frame: self.call_soon_threadsafe(callback, *args))

    def close(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)  # an alarm after the handler is gone would kill
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        super().close()


def loop_giving_way() -> asyncio.AbstractEventLoop:
    """An event loop for a process's main thread that offers the CPU every :data:`EVERY`
    seconds while it has work (the site's child: its pages are 1-4 ms of CPU each, and a
    hundred a second). It owns the process's ``SIGALRM``: only for a process that sets no alarm
    of its own. Elsewhere than in a main thread with interval timers, a plain loop."""
    if not _timer_here():
        return asyncio.new_event_loop()
    _take_alarm()
    loop = _Loop(_BusySelector())
    signal.setitimer(signal.ITIMER_REAL, EVERY, EVERY)  # its first turn is work: the timer runs
    return loop
