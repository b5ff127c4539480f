"""The web site's own CPU time per page view (issue #32), without the soak: what the site's
processes (the child the bot starts, ``python -m bot web --parent``, and its pictures' worker)
spend on each kind of view. On a machine of two CPUs every millisecond the site runs is a
millisecond in which a woken bot may find both CPUs busy, whatever the site's priority (on
these kernels a woken task can wait a tick behind even an idle-class one: see
docs/performance.md, "The web site"), so this is the figure page views cost the players.

A database of ``--games`` two-person games (a third finished, the rest part-played; moves go
on being played in them at ``--moves`` a second while the visitors ask, so versions change
as in the soak), the site started as the bot starts it, and visitors at ``--rate`` views a
second for ``--seconds`` per kind: the bench_web mix, then each kind alone, then the
stylesheet (a request with no page's work: what serving alone costs).

    .venv/bin/python benchmarks/bench_site.py
    .venv/bin/python benchmarks/bench_site.py --games 30 --seconds 20 --rate 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_web import Visitors, free_port
from benchmarks.common import cpu_seconds, load_text, pct, print_machine, rss_mb, table
from benchmarks.common.games import numbered_game, play_random_move
from bot.web import links

GUILD = 1
# "mix": bench_web's own; "/static/site.css": a request with no page's work (what serving
# alone costs).
KINDS = ("mix", "page", "picture", "server", "player", "/static/site.css")


async def build(m: Any, games: int, rng: random.Random) -> list[Any]:
    from bot.core.site import service as site

    await site.set_enabled(m.kernel, GUILD, True)
    out = []
    for i in range(games):
        g = await numbered_game(m, i, GUILD)
        moves = 200 if i % 3 == 0 else rng.randint(4, 40)
        for _ in range(moves):
            if not g.status.active:
                break
            g = await play_random_move(m, g, rng)
        out.append(g)
    return out


async def keep_playing(m: Any, games: list[Any], rate: float, rng: random.Random,
                       stop: asyncio.Event) -> int:
    """Random moves in the games still in play, ``rate`` a second, until ``stop``."""
    played = 0
    while not stop.is_set():
        live = [i for i, g in enumerate(games) if g.status.active]
        if not live:
            break
        i = rng.choice(live)
        games[i] = await play_random_move(m, games[i], rng)
        played += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1 / rate)
    return played


async def main_async(args: argparse.Namespace) -> None:
    from bot.core.manager import Manager
    from bot.web.process import SiteProcess

    rng = random.Random(args.seed)
    db = Path(tempfile.mkdtemp(prefix="calico-site-")) / "site.sqlite3"
    m = await Manager.open(db)
    secret = secrets.token_urlsafe(24)
    child = SiteProcess({"CALICO_DB": str(db), "CALICO_WEB_PORT": str(free_port()),
                         "CALICO_WEB_SECRET": secret,
                         "CALICO_WEB_RATE_PER_MINUTE": "100000000"})
    rows = []
    try:
        games = await build(m, args.games, rng)
        await child.start()
        assert child.pid is not None
        for kind in args.kinds.split(","):
            v = Visitors(child.url, links.Signer(secret), args.rate,
                         only="" if kind == "mix" else kind)
            stop = asyncio.Event()
            writer = asyncio.create_task(keep_playing(m, games, args.moves, rng, stop))
            cpu0, t0 = cpu_seconds(child.pid), time.monotonic()
            task = asyncio.create_task(v.run(GUILD))
            await asyncio.sleep(args.seconds)
            v.stop.set()
            await task
            cpu, wall = cpu_seconds(child.pid) - cpu0, time.monotonic() - t0
            stop.set()
            played = await writer
            ok = v.statuses.get("200", 0)
            rows.append([kind, len(v.times), ok, v.skipped, played,
                         f"{cpu / max(1, len(v.times)) * 1000:.2f}", f"{cpu / wall:.2f}",
                         f"{pct(v.times, 0.5) * 1000:.1f}", f"{pct(v.times, 0.99) * 1000:.1f}",
                         f"{rss_mb(child.pid):.0f}"])
            print(f"{kind}: {len(v.times)} views, statuses {v.statuses}", flush=True)
    finally:
        await child.stop()
        await m.close()
    print(table(["views", "served", "200", "not sent", "moves played", "site CPU ms/view",
                 "site CPUs busy", "p50 ms", "p99 ms", "site MB"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20.0, help="per kind of view")
    parser.add_argument("--rate", type=float, default=100.0, help="views a second")
    parser.add_argument("--moves", type=float, default=5.0,
                        help="moves a second played meanwhile")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print_machine()
    asyncio.run(main_async(args))
    print(load_text())


if __name__ == "__main__":
    main()
