"""The site's pictures: the bot's own renderers (:mod:`render`), drawn in a worker process of
the site's own at the lowest CPU priority (never on the event loop and never in a thread of the
bot's process: a thread drawing holds the interpreter's lock against the loop that answers the
players' clicks, which cost them 60-100 % at p99 with 100 page views a second; see
docs/performance.md), kept in a small LRU cache and served with ETags: a browser that has the
picture gets a 304 without anything being drawn. The same picture asked again while it is being
drawn waits for that drawing. A step of a game never changes, so its tag is the game, the step,
the language and the names shown."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

import render
import render.table
from bot.web.cache import Lru
from bot.web.giveway import giving_way
from bot.web.process import lower_priority
from bot.words.catalogue import Text
from engine.views import PublicView
from render.palette import game_palette

RENDER_VERSION = "1"  # bump when the pictures change, so browsers fetch them again
R = TypeVar("R")


def etag(*parts: object) -> str:
    text = "\x1f".join(str(p) for p in (RENDER_VERSION, *parts))
    return '"' + hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest() + '"'


def labels(tr: Text) -> dict[str, str]:
    return {key: tr(f"render.{key}") for key in render.DEFAULT_LABELS}


CACHE_MB = 128  # CALICO_WEB_PICTURE_CACHE_MB: about a thousand two-player tables


CAT_ROWS = 32  # games whose cards the worker keeps drawn: each step of a game shows them


def _start_worker() -> None:
    lower_priority()  # page views wait behind the players' clicks
    game_palette()  # drawn from sample games, whose cards need not be kept
    render.table.keep_cat_rows(CAT_ROWS)  # visitors step through the same games


class Pictures:
    """Draws (in ``processes`` worker processes, started at the first picture) and caches PNGs
    (``cache_mb`` megabytes of them kept). A picture never changes once drawn, and drawing one
    is the dearest thing the site does (a two-player table: 3-4 ms to draw, about 2 more to
    map onto the palette and encode), so the cache is sized in bytes, not in pictures: with
    256 kept, visitors stepping through the steps of 30 games found a third of them there."""

    def __init__(self, *, processes: int = 1, cache_mb: int = CACHE_MB) -> None:
        self._processes = processes
        self._pool = self._new_pool()
        self._cache: Lru[bytes] = Lru(cache_mb << 20, weigh=len)
        self._drawing: dict[str, asyncio.Future[bytes]] = {}
        self.drawn = 0  # pictures drawn (not served from the cache)

    def _new_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        # spawn: the bot's process has threads (the database's, the render pool's); forking it
        # could copy a lock held by one of them.
        return concurrent.futures.ProcessPoolExecutor(
            self._processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker)

    async def _draw(self, draw: Callable[[], R]) -> R:
        pool = self._pool
        try:
            # giving_way: the worker offers its CPU to the bot's threads every half millisecond.
            return await asyncio.get_running_loop().run_in_executor(
                pool, functools.partial(giving_way, draw))
        except concurrent.futures.process.BrokenProcessPool:
            # The worker died (killed, out of memory): this picture fails, the next ones are
            # drawn by a new worker.
            if self._pool is pool:
                pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            raise

    def cached(self, tag: str) -> bytes | None:
        """The picture tagged ``tag`` if drawn lately (None: ask :meth:`get`)."""
        return self._cache.get(tag)

    async def get(self, tag: str, draw: Callable[[], bytes]) -> bytes:
        png = self._cache.get(tag)
        if png is not None:
            return png
        pending = self._drawing.get(tag)
        if pending is not None:  # someone asked for it a moment ago: one drawing for both
            return await asyncio.shield(pending)
        pending = asyncio.ensure_future(self._draw(draw))
        self._drawing[tag] = pending
        try:
            png = await asyncio.shield(pending)
        finally:
            self._drawing.pop(tag, None)
        self.drawn += 1
        self._cache.put(tag, png)
        return png

    async def worker(self) -> int:
        """The process id of a worker drawing the pictures (not the bot's own)."""
        return await self.in_worker(os.getpid)

    async def in_worker(self, func: Callable[[], R]) -> R:
        """``func()`` called in a worker drawing the pictures (what it holds, what it runs as)."""
        return await self._draw(func)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def table(tr: Text, view: PublicView, names: Sequence[str]) -> Callable[[], bytes]:
    return functools.partial(render.render_table, view, list(names), labels=labels(tr))


def scores(tr: Text, view: PublicView, names: Sequence[str]) -> Callable[[], bytes]:
    return functools.partial(render.render_scoresheet, view, list(names), labels=labels(tr))
