"""Load benchmark of the game manager: many concurrent games played to the end through
``play_turn``/``choose_goals`` exactly as the Discord layer calls them, with the outbox
dispatcher draining notices to a no-op delivery at the same time.

    .venv/bin/python benchmarks/bench_manager.py              # 1,000 games
    .venv/bin/python benchmarks/bench_manager.py --games 50   # a quick run

Every game has two human seats and is driven by its own coroutine, which picks a random legal
move for whoever must act and waits for the result. ``--concurrency`` caps the moves in flight
at once (the interactions a busy bot handles together); by Little's law the mean latency is
about concurrency / throughput. The default, 8, already saturates the manager (4 give the same
throughput), so the latency printed is the latency at full throughput: at a lower arrival rate
(such as the 300 moves/s target) it can only be lower. Latency is the time
of one manager call (lock, checks, engine, one committed transaction), measured per move.

Printed: the machine, moves/s, p50/p90/p99/max latency of a move, database size per finished
game, and the process's peak RSS. Targets on the 2-core reference machine: >= 300 moves/s,
p99 <= 50 ms, peak RSS <= 200 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.manager import Manager, ManagerConfig
from bot.core.models import GameInfo, GameStatus, LobbyOptions, UserRef
from bot.core.outbox import NullDelivery
from engine.rules import legal_moves


def machine_line() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        load = "load ?"
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} "
            f"CPUs ({cpu}), {load}; Python {platform.python_version()}, SQLite "
            f"{sqlite3.sqlite_version}, aiosqlite {metadata.version('aiosqlite')}")


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024 / 1024 if sys.platform == "darwin" else rss / 1024


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play_game(m: Manager, game: GameInfo, rng: random.Random, gate: asyncio.Semaphore,
                    latencies: list[float]) -> None:
    g = game
    while g.status.active:
        assert g.state is not None
        if g.status is GameStatus.DRAFT:
            user = rng.choice(g.drafting_user_ids)
        else:
            current = g.current_user_id
            assert current is not None
            user = current
        seat = g.seat_of(user)
        assert seat is not None
        move = rng.choice(legal_moves(g.state, seat)).text()
        async with gate:
            t0 = time.perf_counter()
            if g.status is GameStatus.DRAFT:
                result = await m.choose_goals(g.id, user, g.ply, move[6:].split(","))
            else:
                result = await m.play_turn(g.id, user, g.ply, move)
            latencies.append(time.perf_counter() - t0)
        g = result.game


async def run(games: int, concurrency: int, seed: int, db: Path) -> None:
    print(f"machine: {machine_line()}")
    print(f"games: {games} (2 people each, standard setup), moves in flight <= {concurrency}, "
          f"db: {db}")
    rng = random.Random(seed)
    seeds = iter(range(seed * 1_000_003, seed * 1_000_003 + games + 1))
    m = await Manager.open(db, config=ManagerConfig(cache_size=games + 16),
                           seed_source=lambda: next(seeds))
    delivery = NullDelivery()
    dispatcher = m.dispatcher(delivery, batch=500)
    dispatching = asyncio.create_task(dispatcher.run_forever())

    t0 = time.perf_counter()
    started: list[GameInfo] = []
    opts = LobbyOptions(players=2)
    for i in range(games):
        host, guest = UserRef(2 * i + 1, f"host{i}"), UserRef(2 * i + 2, f"guest{i}")
        g = await m.create_game(host, guild_id=1 + i % 20, channel_id=100 + i % 50, options=opts)
        await m.attach_thread(g.id, 10_000 + i, 20_000 + i)
        await m.join(g.id, guest)
        started.append(await m.start(g.id, host.id))
    setup = time.perf_counter() - t0
    print(f"setup: {games} lobbies created, joined and started in {setup:.2f} s "
          f"({4 * games / setup:.0f} calls/s)")

    gc.collect()
    gc.freeze()  # the long-lived objects made so far need no more GC passes
    latencies: list[float] = []
    gate = asyncio.Semaphore(concurrency)
    t1 = time.perf_counter()
    await asyncio.gather(*(play_game(m, g, random.Random(rng.random()), gate, latencies)
                           for g in started))
    elapsed = time.perf_counter() - t1
    # Let the dispatcher finish what the last moves queued.
    t2 = time.perf_counter()
    while await m.store.due_notices(m.clock.now(), 1):
        await asyncio.sleep(0.01)
    drain = time.perf_counter() - t2
    dispatcher.stop()
    await dispatching

    finished = 0
    for g in started:
        finished += (await m.get_game(g.id)).status is GameStatus.OVER
    await m.store.checkpoint()
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
    # What stays once delivered notices are pruned (the sweep does it after 7 days).
    await m.store.prune_outbox(int(time.time() * 1000) + 1)
    await m.store.vacuum()
    kept = sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))
    await m.close()

    ms = [x * 1000 for x in latencies]
    print(f"moves: {len(ms)} in {elapsed:.2f} s = {len(ms) / elapsed:.0f} moves/s "
          f"(target >= 300)")
    print(f"latency of one move: p50 {pct(ms, 0.50):.2f} ms, p90 {pct(ms, 0.90):.2f} ms, "
          f"p99 {pct(ms, 0.99):.2f} ms (target <= 50), max {max(ms):.1f} ms, "
          f"mean {statistics.fmean(ms):.2f} ms")
    print(f"outbox: {delivery.count} notices delivered ({delivery.count / len(ms):.2f} per move),"
          f" last ones {drain * 1000:.0f} ms after the last move")
    print(f"finished games: {finished}/{games}; database {size / 1e6:.1f} MB = "
          f"{size / max(1, finished) / 1024:.1f} KiB per finished game with its delivered "
          f"notices, {kept / max(1, finished) / 1024:.1f} KiB once they are pruned")
    print(f"peak RSS: {peak_rss_mb():.0f} MB (target <= 200)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8,
                        help="moves in flight at once (default 8: already enough to saturate "
                             "the manager, so latency is measured at full throughput)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, default=None,
                        help="database file (default: a new file in a temporary folder)")
    args = parser.parse_args()
    if args.db is not None:
        asyncio.run(run(args.games, args.concurrency, args.seed, args.db))
        return
    with tempfile.TemporaryDirectory(prefix="calico-bench-") as tmp:
        asyncio.run(run(args.games, args.concurrency, args.seed, Path(tmp) / "bench.db"))


if __name__ == "__main__":
    main()
