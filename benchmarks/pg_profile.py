"""Where a move's time goes on PostgreSQL: round trips per store call, CPU of the bot process
and of the server per move, with ``synchronous_commit`` on and off.

    .venv/bin/python benchmarks/pg_profile.py            # about 3 minutes
    .venv/bin/python benchmarks/pg_profile.py --quick

One process, a throwaway PostgreSQL server with fsync on. Each variant plays the same games
(2 people, random legal moves, 8 moves in flight) through the Manager with the outbox
dispatcher delivering to a no-op, on a fresh database. Round trips are counted by wrapping
asyncpg's Connection methods (each execute/fetch/executemany is one round trip; BEGIN, COMMIT
and the pool's reset query are executes too), attributed to the store method that made them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import cProfile
import functools
import io
import pstats
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.core.kernel import Kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg

from benchmarks.common import (
    PgServer,
    dispatching,
    drained,
    load_text,
    pct,
    play_random_move,
    print_machine,
    table,
    two_player_game,
)

OP: contextvars.ContextVar[str] = contextvars.ContextVar("op", default="other")
TRIPS: Counter[str] = Counter()
CALLS: Counter[str] = Counter()
SQL: Counter[tuple[str, str]] = Counter()


def _instrument() -> None:
    """Count every round trip by the store method it serves."""
    conn_cls = asyncpg.connection.Connection
    for name in ("execute", "executemany", "fetch", "fetchrow", "fetchval"):
        original = getattr(conn_cls, name)

        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(original)
            async def wrapped(self: Any, query: str, *args: Any, **kw: Any) -> Any:
                op = OP.get()
                TRIPS[op] += 1
                SQL[(op, " ".join(query.split())[:60])] += 1
                return await original(self, query, *args, **kw)

            return wrapped

        setattr(conn_cls, name, make(original))


POOL_WAIT = [0.0]


def _instrument_pool() -> None:
    """Time spent waiting for a free pooled connection (and connecting a new one): the entry
    of ``async with pool.acquire()``, the only way the store and the pool's own
    ``execute``/``fetch`` take a connection."""
    context = asyncpg.pool.PoolAcquireContext
    original = context.__aenter__

    async def timed(self: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return await original(self)
        finally:
            POOL_WAIT[0] += time.perf_counter() - t0

    context.__aenter__ = timed  # type: ignore[method-assign]


STORE_OPS = ("commit", "create_game", "load_game", "game_version", "claim_lanes",
             "lane_notices", "finish_notice", "release_lane", "outbox_stats", "get_user",
             "claim_timers", "prune_outbox")


def _label(store: Any) -> None:
    """Attribute the round trips made inside each store method to it."""
    for name in STORE_OPS:
        original = getattr(store, name)

        def make(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
            async def wrapped(*args: Any, **kw: Any) -> Any:
                token = OP.set(name)
                CALLS[name] += 1
                try:
                    return await original(*args, **kw)
                finally:
                    OP.reset(token)

            return wrapped

        setattr(store, name, make(name, original))


async def _open(variant: str, url: str) -> Any:
    from bot.core.storage.postgres.store import PostgresStore

    # One variant since the prototype store (fewer round trips) was retired: its pool without
    # a reset query is the store's own; the rest asked for a schema change (a PL/pgSQL
    # function) or a second commit sequence.
    assert variant == "as is", variant
    return await PostgresStore.open(url)


async def drive(variant: str, url: str, server: PgServer, games: int, moves: int,
                profile: bool) -> dict[str, Any]:
    from bot.core.manager import Manager, ManagerConfig
    from bot.core.models import UserRef
    from bot.core.outbox import NullDelivery

    store = await _open(variant, url)
    _label(store)
    seeds = iter(range(10**6, 10**6 + games + 1))
    m = Manager(Kernel(store, config=ManagerConfig(cache_size=games + 16),
                seed_source=lambda: next(seeds)))
    delivery = NullDelivery()
    gate = asyncio.Semaphore(8)

    async def setup(i: int) -> Any:
        async with gate:
            return await two_player_game(m, UserRef(2 * i + 1, f"h{i}"),
                                         UserRef(2 * i + 2, f"g{i}"), guild_id=1,
                                         channel_id=2, thread_id=10**7 + i)

    async with dispatching(m, delivery):
        started = await asyncio.gather(*(setup(i) for i in range(games)))
        await drained(store, lambda: 0)
        out = await _timed_play(m, server, store, started, gate, delivery, moves, profile)
    await m.close()
    out["variant"] = variant
    return out


async def _timed_play(m: Any, server: PgServer, store: Any, started: list[Any],
                      gate: asyncio.Semaphore, delivery: Any, moves: int, profile: bool
                      ) -> dict[str, Any]:
    """The moves of ``started`` games, timed, with their round trips counted."""
    TRIPS.clear()
    CALLS.clear()
    SQL.clear()
    POOL_WAIT[0] = 0.0
    lat: list[float] = []
    rng = random.Random(5)

    async def play(g: Any, r: random.Random) -> None:
        for _ in range(moves):
            if not g.status.active:
                return
            g = await play_random_move(m, g, r, gate=gate, latencies=lat)

    prof = cProfile.Profile() if profile else None
    d0 = delivery.count
    s0 = server.cpu()
    c0, t0 = time.process_time(), time.perf_counter()
    if prof:
        prof.enable()
    await asyncio.gather(*(play(g, random.Random(rng.random())) for g in started))
    await drained(store, lambda: 0, every=0.01)  # the notices of these moves, delivered
    if prof:
        prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    scpu = server.cpu() - s0
    notices = delivery.count - d0
    n = len(lat)
    out: dict[str, Any] = {
        "moves": n, "wall": wall, "rate": n / wall,
        "p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "cpu_ms": cpu / n * 1000,
        "server_ms": scpu / n * 1000, "notices": notices,
        "trips_move": TRIPS["commit"] / max(1, CALLS["commit"]),
        "trips_notice": sum(TRIPS[k] for k in ("claim_lanes", "lane_notices", "finish_notice",
                                               "release_lane")) / max(1, notices),
        "trips": dict(TRIPS), "calls": dict(CALLS), "sql": dict(SQL),
        "pool_wait_ms": POOL_WAIT[0] / n * 1000,
    }
    if prof:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
        out["profile"] = s.getvalue()
    return out


async def commit_latency(url: str, variant: str, n: int) -> tuple[float, float]:
    """One commit at a time (nothing else running): p50 and p99 of a plain move's commit,
    taken from the manager's real writes (the game row, move log, timers, notices)."""
    from bot.core.manager import Manager
    from bot.core.models import UserRef

    store = await _open(variant, url)
    m = Manager(Kernel(store, seed_source=lambda: 42))

    async def new_game() -> Any:
        return await two_player_game(m, UserRef(1, "a"), UserRef(2, "b"), guild_id=1,
                                     channel_id=2, thread_id=5)

    g = await new_game()
    times: list[float] = []
    original = store.commit

    async def timed(write: Any) -> int:
        t0 = time.perf_counter()
        try:
            return await original(write)
        finally:
            times.append(time.perf_counter() - t0)

    store.commit = timed  # type: ignore[method-assign]
    rng = random.Random(1)
    while len(times) < n:
        if not g.status.active:
            g = await new_game()
            times.clear() if len(times) < 4 else None
            continue
        g = await play_random_move(m, g, rng)
    await m.close()
    return pct(times, 0.5), pct(times, 0.99)


async def main_async(args: argparse.Namespace) -> None:
    _instrument()
    _instrument_pool()
    server = PgServer.start()
    try:
        variants = ["as is"]
        rows = []
        detail: dict[str, Any] = {}
        for sync in (True, False):
            for v in variants:
                url = await server.new_database("calico_prof", synchronous_commit=sync)
                r = await drive(v, url, server, args.games, args.moves,
                                profile=args.profile and v == "as is" and sync)
                await server.drop_database(url)
                detail.setdefault(v, r)
                url = await server.new_database("calico_lat", synchronous_commit=sync)
                c50, c99 = await commit_latency(url, v, 300 if not args.quick else 60)
                await server.drop_database(url)
                rows.append([v, "on" if sync else "off", f"{r['rate']:.0f}",
                             f"{r['p50'] * 1000:.1f}", f"{r['p99'] * 1000:.1f}",
                             f"{r['cpu_ms']:.2f}", f"{r['server_ms']:.2f}",
                             f"{r['trips_move']:.1f}", f"{r['trips_notice']:.1f}",
                             f"{c50 * 1000:.2f}", f"{c99 * 1000:.2f}",
                             f"{r['pool_wait_ms']:.2f}", f"{load_text()[5:9]}"])
                print("  " + " | ".join(rows[-1]), flush=True)
        print()
        print(table(["store", "sync commit", "moves/s", "p50 ms", "p99 ms",
                     "bot CPU ms/move", "server CPU ms/move", "round trips/commit",
                     "round trips/notice", "lone commit p50 ms", "lone commit p99 ms",
                     "pool wait ms/move", "load"], rows))
        base = detail["as is"]
        print(f"\nround trips by store call ('as is', synchronous_commit on; "
              f"{base['moves']} moves, {base['notices']} notices):")
        for op, trips in sorted(base["trips"].items(), key=lambda kv: -kv[1]):
            calls = base["calls"].get(op, 0)
            print(f"  {op:14s} {calls:6d} calls {trips:7d} round trips "
                  f"({trips / max(1, calls):.1f} per call)")
        print("\nstatements of one 'as is' commit (per commit):")
        ncommit = max(1, base["calls"].get("commit", 1))
        for (op, sql), count in sorted(base["sql"].items(), key=lambda kv: -kv[1]):
            if op in ("commit", "release_lane"):
                print(f"  {op:12s} {count / base['calls'][op]:5.2f}  {sql}")
        del ncommit
        if "profile" in base:
            print("\nPython profile of the bot process ('as is'), top 25 by own time:")
            print(base["profile"])
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--moves", type=int, default=12, help="moves per game")
    parser.add_argument("--profile", action="store_true", help="cProfile the 'as is' run")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.games, args.moves = 60, 6
    print_machine()
    print(f"{args.games} games x {args.moves} moves, 8 in flight, one process; throwaway "
          "PostgreSQL with fsync on; CPU per move includes the dispatcher's work for its "
          "notices", flush=True)
    asyncio.run(main_async(args))
    print(f"after: {load_text()}")


if __name__ == "__main__":
    main()
