"""The site's work offering its CPU to the bot's threads (bot.web.giveway): a piece of work
yields every half millisecond while it runs, and leaves no timer or handler behind."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from bot.web import giveway


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


def test_give_way_counts_each_offer() -> None:
    before = giveway.yields_made()
    giveway.give_way()
    giveway.give_way()
    assert giveway.yields_made() == before + 2
