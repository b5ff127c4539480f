"""Freed heap memory goes back to the system (bot.ops.memory), and the render pool's size is a
setting (CALICO_RENDER_THREADS, one by default): what a host sees as the bot's memory."""

from __future__ import annotations

import asyncio
import ctypes
import platform
import sys
import threading
import time

import pytest

from bot.ops import memory
from bot.settings import Settings

# Decided by the platform, not by bot.ops.memory: on glibc the bot must find malloc_trim.
glibc = pytest.mark.skipif(not sys.platform.startswith("linux")
                           or platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")


def rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@glibc
def test_free_heap_pages_in_the_middle_of_the_heap_go_back() -> None:
    # 24 MB in 64 KB blocks (below the mmap threshold, so from the heap), each followed by a
    # small block that stays: freeing the big ones leaves holes inside the heap, which glibc
    # keeps (it gives back only the top of a heap by itself).
    libc = ctypes.CDLL(None)
    malloc, free = libc.malloc, libc.free
    malloc.restype, malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    free.argtypes = [ctypes.c_void_p]
    assert memory.available()
    blocks, pins = [], []
    for _ in range(384):
        p = malloc(64 * 1024)
        ctypes.memset(p, 1, 64 * 1024)  # touched: resident
        blocks.append(p)
        pins.append(malloc(8 * 1024))
    try:
        for p in blocks:
            free(p)
        before = rss_kb()
        assert memory.release_free_memory()
        released = before - rss_kb()
        assert released > 16 * 1024, f"only {released} KB given back"
    finally:
        for p in pins:
            free(p)


def test_release_runs_periodically_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(memory, "available", lambda: True)
    monkeypatch.setattr(memory, "release_free_memory",
                        lambda: bool(calls.append(threading.current_thread().name)))

    every = 0.05

    async def run() -> float:
        started = time.monotonic()
        task = asyncio.create_task(memory.release_periodically(every=every))
        while len(calls) < 3 and time.monotonic() < started + 5:
            await asyncio.sleep(0.01)
        task.cancel()
        return time.monotonic() - started

    took = asyncio.run(run())
    assert len(calls) >= 3
    assert len(calls) <= took / every + 1  # once per interval, not in a busy loop
    assert threading.main_thread().name not in calls  # never blocks the loop's thread


def test_no_malloc_trim_means_no_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "available", lambda: False)
    asyncio.run(asyncio.wait_for(memory.release_periodically(every=0.01), 1))  # returns


def test_render_threads_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(_env_file=None).render_threads == 1  # type: ignore[call-arg]
    monkeypatch.setenv("CALICO_RENDER_THREADS", "2")
    assert Settings(_env_file=None).render_threads == 2  # type: ignore[call-arg]
    monkeypatch.setenv("CALICO_RENDER_THREADS", "0")
    with pytest.raises(ValueError):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_without_malloc_trim_nothing_is_released(monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    def no_such_library(name: object) -> object:
        raise OSError("musl has no malloc_trim")

    memory._malloc_trim.cache_clear()
    monkeypatch.setattr(memory.ctypes, "CDLL", no_such_library)
    with caplog.at_level("INFO", logger="bot.ops.memory"):
        assert not memory.available()
        assert memory.release_free_memory() is False
        assert not memory.available()
    assert [r.message for r in caplog.records].count(
        "malloc_trim is not available: freed memory stays with the process") == 1  # said once
    memory._malloc_trim.cache_clear()  # the real C library again, for the tests after this
