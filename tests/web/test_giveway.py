"""The site's work offering its CPU to the bot's threads (bot.web.giveway): a piece of work
yields every half millisecond while it runs, and leaves no timer or handler behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.web import giveway

ROOT = Path(__file__).resolve().parents[2]


def spin(seconds: float) -> str:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    return "done"


def test_work_offers_the_cpu_while_it_runs() -> None:
    before = giveway.yields_made()
    assert giveway.giving_way(lambda: spin(0.03)) == "done"
    # Every 0.5 ms of 30 ms: about 60 (fewer only if the machine took the CPU away meanwhile).
    assert giveway.yields_made() - before >= 10


def test_short_work_is_not_interrupted() -> None:
    before = giveway.yields_made()
    assert giveway.giving_way(lambda: 7, every=10.0) == 7
    assert giveway.yields_made() == before


def test_the_timer_and_the_handler_are_put_back_even_after_an_error() -> None:
    def handler(signum: int, frame: object) -> None:
        raise AssertionError("the alarm reached the old handler")

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        with pytest.raises(ZeroDivisionError):
            giveway.giving_way(lambda: (spin(0.005), 1 / 0))
        assert signal.getitimer(signal.ITIMER_REAL)[1] == 0.0  # no repeating alarm left
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.signal(signal.SIGALRM, previous)
    giveway.giving_way(lambda: spin(0.002))
    assert signal.getsignal(signal.SIGALRM) is previous


def test_no_alarm_is_left_where_none_was_set() -> None:
    saved = signal.setitimer(signal.ITIMER_REAL, 0)  # this test's own time limit, put back below
    try:
        giveway.giving_way(lambda: spin(0.005))
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # an idle worker sleeps
    finally:
        signal.setitimer(signal.ITIMER_REAL, *saved)


def test_an_alarm_already_set_goes_off_as_it_would_have() -> None:
    fired: list[float] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(time.monotonic()))
    try:
        saved = signal.setitimer(signal.ITIMER_REAL, 0.2)
        start = time.monotonic()
        giveway.giving_way(lambda: spin(0.05))
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < left <= 0.15 and not fired  # 0.2 s, less the work's 0.05 at least
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        giveway.giving_way(lambda: spin(0.05))  # it fell due during the work: right after it
        spin(0.01)
        assert len(fired) == 1 and fired[0] - start >= 0.1
    finally:
        signal.setitimer(signal.ITIMER_REAL, *saved)
        signal.signal(signal.SIGALRM, previous)


def test_off_the_main_thread_work_simply_runs() -> None:
    before = giveway.yields_made()
    timer = signal.getitimer(signal.ITIMER_REAL)
    out: list[str] = []
    worker = threading.Thread(target=lambda: out.append(giveway.giving_way(lambda: spin(0.01))))
    worker.start()
    worker.join(5)
    assert out == ["done"] and giveway.yields_made() == before
    assert signal.getitimer(signal.ITIMER_REAL)[0] <= timer[0]  # left alone, as it was


def test_an_offer_longer_than_the_period_is_not_entered_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A starved process: each yield gets the CPU back only after several periods, and the
    # alarm comes again meanwhile. Offers nested inside offers would run the stack out.
    depth: list[int] = []
    inside = [0]

    def slow_yield() -> None:
        inside[0] += 1
        depth.append(inside[0])
        spin(0.002)
        inside[0] -= 1

    monkeypatch.setattr(giveway, "_sched_yield", slow_yield)
    assert giveway.giving_way(lambda: spin(0.05)) == "done"
    assert len(depth) >= 5 and max(depth) == 1


def test_give_way_counts_each_offer() -> None:
    before = giveway.yields_made()
    giveway.give_way()
    giveway.give_way()
    assert giveway.yields_made() == before + 2


def cpu_spin(seconds: float) -> str:
    """Work that needs ``seconds`` of this process's CPU, however long that takes to get."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "done"


@pytest.fixture
def deferring() -> Iterator[None]:
    giveway.defer_when_full()
    try:
        yield
    finally:
        giveway.defer_when_full(False)


def test_the_machine_s_running_threads_are_counted(full_machine: None) -> None:
    cpus = os.cpu_count() or 1
    # Each busy process is running or waiting for a CPU all the time; this thread too.
    assert max(giveway.runnable_now() or 0 for _ in range(20)) >= cpus + 2
    assert giveway.machine_full()


def test_a_deferring_process_pauses_while_the_machine_is_full(
        full_machine: None, deferring: None) -> None:
    before = giveway.pauses_made()
    assert giveway.giving_way(lambda: cpu_spin(0.02)) == "done"
    # Each pause ends by PAUSE_MAX at the latest, and the timer goes on after it: the work
    # finishes (no hang) and pauses again and again while the machine stays full. A pause
    # sleeps (no CPU of its own): 20 ms of work is about 40 half-milliseconds between pauses.
    assert giveway.pauses_made() - before >= 10
    assert signal.getitimer(signal.ITIMER_REAL)[1] == 0.0  # no repeating alarm left


def test_a_process_that_does_not_defer_never_pauses(full_machine: None) -> None:
    assert not giveway.deferring()
    before, offered = giveway.pauses_made(), giveway.yields_made()
    assert giveway.giving_way(lambda: cpu_spin(0.01)) == "done"
    giveway.give_way()
    assert giveway.pauses_made() == before and giveway.yields_made() - offered >= 2


def test_a_deferring_process_goes_on_when_the_machine_has_room(deferring: None) -> None:
    # No busy processes here: other tests beside may fill the machine for moments, never for
    # all of fifty offers a few milliseconds apart.
    before = giveway.pauses_made()
    for _ in range(50):
        giveway.give_way()
        time.sleep(0.002)
    assert giveway.pauses_made() - before < 50


LOOP = """
import asyncio, time
from bot.web import giveway

def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

async def main():
    a = giveway.yields_made()
    spin(0.03)  # one long turn of the loop
    b = giveway.yields_made()
    await asyncio.sleep(0.2)  # waiting: no alarm
    c = giveway.yields_made()
    for _ in range(200):  # busy with short turns
        spin(0.0003)
        await asyncio.sleep(0)
    d = giveway.yields_made()
    print(b - a, c - b, d - c)

with asyncio.Runner(loop_factory=giveway.loop_giving_way) as runner:
    runner.run(main())
"""


def test_the_site_s_loop_offers_the_cpu_while_it_works_and_never_while_it_waits() -> None:
    # In a process of its own, as the site's child runs it: the loop owns the process's alarm.
    done = subprocess.run([sys.executable, "-c", LOOP], capture_output=True, text=True,
                          timeout=60, check=True, cwd=ROOT)
    working, waiting, short_turns = map(int, done.stdout.split())
    assert working >= 10  # 30 ms of work: about 60
    # A timer left running would give about 400 in the 0.2 s wait; at most an alarm already on
    # its way when the wait began and one as the loop wakes (2 seen once on a loaded machine).
    assert waiting <= 3
    assert short_turns >= 10  # 60 ms of turns of 0.3 ms each: the timer runs on between them


STOP = """
import asyncio, os, signal, time
from bot.web import giveway

async def main():
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:  # one long turn: a thousand alarms
        pass
    os.kill(os.getpid(), signal.SIGTERM)
    try:
        await asyncio.wait_for(stop.wait(), 10)
        print("stopped")
    except TimeoutError:
        print("lost")

with asyncio.Runner(loop_factory=giveway.loop_giving_way) as runner:
    runner.run(main())
"""


def test_the_site_s_loop_still_hears_its_stop_signal_after_a_long_turn() -> None:
    # The bot ends its site's child with SIGTERM; the alarms of a long turn of work must not
    # crowd it out.
    done = subprocess.run([sys.executable, "-c", STOP], capture_output=True, text=True,
                          timeout=60, check=True, cwd=ROOT)
    assert done.stdout.split() == ["stopped"]
    assert "wakeup fd" not in done.stderr
