"""Memory of the pictures alone: the soak's mix of pictures (turn prompts, quilts, 2-player and
solo tables, score sheets and replays of seeded games) drawn in one thread, the process's RSS
read after glibc's ``malloc_trim`` (freed heap given back), and what each cache of drawn
pieces holds at the end (images' pixel bytes, counted from the caches themselves).

Run: .venv/bin/python benchmarks/bench_render_memory.py [--games 40] [--scripts]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import importlib
import pkgutil
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image

import render
from benchmarks.common import print_machine
from benchmarks.common.machine import rss_mb
from data import load_catalog
from engine.config import GameOptions
from engine.serialize import replay_views
from engine.state import Phase
from engine.views import private_view, public_view
from render import render_quilt, render_replay, render_scoresheet, render_table, render_turn
from render.samples import play_record, play_until

LATIN = ["Marguerite", "Zbigniew"]
SCRIPTS = ["Αλέξανδρος", "李小龙", "محمد علي", "🐱Mia🎲"]


def trimmed_rss() -> float:
    gc.collect()
    with contextlib.suppress(OSError):  # not glibc: the RSS as it is
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_mb()


def _images(obj: object) -> Iterator[Image.Image]:
    if isinstance(obj, Image.Image):
        yield obj
    elif isinstance(obj, tuple | list):
        for o in obj:
            yield from _images(o)


Seen = dict[str, dict[int, "weakref.ref[Image.Image]"]]


def watch_caches() -> Seen:
    """Wrap every ``lru_cache`` of ``render`` so that each picture it returns is remembered
    (weakly): at the end, the pictures still alive are the ones the caches hold."""
    seen: Seen = {}
    for info in pkgutil.iter_modules(render.__path__):
        mod = importlib.import_module(f"render.{info.name}")
        for name, fn in list(vars(mod).items()):
            if not hasattr(fn, "cache_info") or getattr(fn, "__module__", "") != mod.__name__:
                continue
            refs: dict[int, weakref.ref[Image.Image]] = {}
            seen[f"{info.name}.{name}"] = refs

            def spy(*a: Any, _fn: Any = fn, _refs: Any = refs, **k: Any) -> Any:
                res = _fn(*a, **k)
                for img in _images(res):
                    _refs[id(img)] = weakref.ref(img)
                return res

            setattr(mod, name, spy)
    return seen


def cache_bytes(seen: Seen, detail: bool = False) -> list[tuple[str, int, int]]:
    """(cache, pictures it holds, their pixel bytes), biggest first."""
    gc.collect()
    out = []
    for name, refs in seen.items():
        alive = [img for r in refs.values() if (img := r()) is not None]
        total = sum(i.width * i.height * len(i.getbands()) for i in alive)
        if total:
            out.append((name, len(alive), total))
            if detail:
                sizes: dict[tuple[int, int], list[int]] = {}
                for i in alive:
                    e = sizes.setdefault(i.size, [0, 0])
                    e[0] += 1
                    e[1] += i.width * i.height * len(i.getbands())
                for (w, h), (n, b) in sorted(sizes.items(), key=lambda t: -t[1][1])[:4]:
                    out.append((f"  {w}x{h}", n, b))
    return out if detail else sorted(out, key=lambda t: -t[2])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--sizes", action="store_true", help="each cache by picture size")
    parser.add_argument("--scripts", action="store_true", help="names in other scripts")
    args = parser.parse_args()
    print_machine()
    catalog = load_catalog()
    seen = watch_caches()
    print(f"RSS at start: {trimmed_rss():.1f} MB")
    for g in range(args.games):
        solo = g % 5 == 0
        opts = GameOptions(players=1 if solo else 2)
        names = (SCRIPTS[g % 4:g % 4 + 2] if args.scripts else LATIN)[:opts.players]
        for moves in (3, 12, 25, 40):
            state = play_until(opts, 100 + g, moves)
            if state.phase is Phase.OVER:
                break
            seat = state.current_seat if state.current_seat is not None else 0
            render_turn(private_view(state, seat), name=names[seat])
            render_table(public_view(state), names)
        end = play_until(opts, 100 + g, None)
        pub = public_view(end)
        render_quilt(pub.seats[0], end.config, name=names[0])
        render_table(pub, names)
        render_scoresheet(pub, names)
        if g % 2 == 0:
            render_replay(replay_views(catalog, play_record(opts, 100 + g)), names)
        if (g + 1) % 10 == 0:
            print(f"after {g + 1} games: {trimmed_rss():.1f} MB")
    caches = cache_bytes(seen, args.sizes)
    print(f"RSS at the end: {trimmed_rss():.1f} MB; images in caches "
          f"{sum(c[2] for c in caches if c[0][0] != ' ') / 1e6:.1f} MB:")
    for name, n, size in caches:
        print(f"  {name:<32}{n:>5} images {size / 1e6:>7.2f} MB")


if __name__ == "__main__":
    main()
