"""Giving freed memory back to the system, so a long-running bot's RSS tracks what it uses.

Pictures are drawn into buffers of a few hundred KB to a few MB, in a render thread and on
the event loop's thread. glibc's allocator keeps such freed buffers inside its heaps, and only
returns the pages at the very top of a heap on its own: under steady play about 8-10 MB of free
heap sat in the bot's RSS at any time (measured by ``benchmarks/bench_soak.py --malloc-trim``).
``malloc_trim`` hands every whole free page back (``MADV_DONTNEED``), which is cheap (a few
milliseconds) and is done from a thread, every 30 seconds, by the client.

On a C library without ``malloc_trim`` (musl, macOS, Windows) this does nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up once (None, said once, where the C library lacks it)."""
    try:
        func = ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
    except (OSError, AttributeError, TypeError):
        log.info("malloc_trim is not available: freed memory stays with the process")
        return None
    func.argtypes = [ctypes.c_size_t]
    func.restype = ctypes.c_int
    return func


def available() -> bool:
    """Whether this C library can give free heap pages back."""
    return _malloc_trim() is not None


def release_free_memory() -> bool:
    """Give the free pages of every malloc heap back to the system. Blocking (ctypes lets
    other Python threads run meanwhile): call it from a thread. True when something was
    released."""
    trim = _malloc_trim()
    if trim is None:
        return False
    return bool(trim(0))


async def release_periodically(every: float = 30.0) -> None:
    """Forever: every ``every`` seconds, :func:`release_free_memory` in a worker thread."""
    if not available():
        return
    while True:
        await asyncio.sleep(every)
        await asyncio.to_thread(release_free_memory)
