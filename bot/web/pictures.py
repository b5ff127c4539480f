"""The site's pictures: the bot's own renderers (:mod:`render`), drawn in a thread of the
site's own (never on the event loop, never in the adapter's render pool, so page views do not
queue before players' pictures), kept in a small LRU cache and served with ETags: a browser
that has the picture gets a 304 without anything being drawn. A step of a game never changes,
so its tag is the game, the step, the language and the names shown."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence

import render
from bot.words.catalogue import Text
from engine.views import PublicView

RENDER_VERSION = "1"  # bump when the pictures change, so browsers fetch them again


def etag(*parts: object) -> str:
    text = "\x1f".join(str(p) for p in (RENDER_VERSION, *parts))
    return '"' + hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest() + '"'


def labels(tr: Text) -> dict[str, str]:
    return {key: tr(f"render.{key}") for key in render.DEFAULT_LABELS}


class Pictures:
    """Draws and caches PNGs (``size`` pictures kept)."""

    def __init__(self, *, threads: int = 1, size: int = 256) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, "calico-web-render")
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._size = size
        self.drawn = 0  # pictures drawn (not served from the cache)

    async def get(self, tag: str, draw: Callable[[], bytes]) -> bytes:
        png = self._cache.get(tag)
        if png is None:
            png = await asyncio.get_running_loop().run_in_executor(self._pool, draw)
            self.drawn += 1
            self._cache[tag] = png
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(tag)
        return png

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def table(tr: Text, view: PublicView, names: Sequence[str]) -> Callable[[], bytes]:
    return functools.partial(render.render_table, view, list(names), labels=labels(tr))


def scores(tr: Text, view: PublicView, names: Sequence[str]) -> Callable[[], bytes]:
    return functools.partial(render.render_scoresheet, view, list(names), labels=labels(tr))
