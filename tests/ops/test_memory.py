"""Freed heap memory goes back to the system (bot.ops.memory), and the render pool's size is a
setting (CALICO_RENDER_THREADS, one by default): what a host sees as the bot's memory."""

from __future__ import annotations

import asyncio
import ctypes
import sys
import threading
import time

import pytest

from bot.ops import memory
from bot.settings import Settings

glibc = pytest.mark.skipif(not sys.platform.startswith("linux") or not memory.available(),
                           reason="malloc_trim is glibc's")


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

    async def run() -> None:
        task = asyncio.create_task(memory.release_periodically(every=0.01))
        deadline = time.monotonic() + 5
        while len(calls) < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(run())
    assert len(calls) >= 3
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
