"""Load benchmark of the game manager: many concurrent games played through
``play_turn``/``choose_goals`` exactly as the Discord layer calls them, with the outbox
dispatcher draining notices to a no-op delivery at the same time, on SQLite (one process) or on
PostgreSQL shared by several OS processes.

    .venv/bin/python benchmarks/bench_manager.py                 # the table (about 12 minutes)
    .venv/bin/python benchmarks/bench_manager.py --quick         # a small table (about 1 minute)
    .venv/bin/python benchmarks/bench_manager.py --games 1000    # one run on SQLite
    .venv/bin/python benchmarks/bench_manager.py --games 1000 --db postgres --processes 2
    .venv/bin/python benchmarks/bench_manager.py --games 1000 --db postgresql://u@h/db --processes 4

``--db postgres`` starts a throwaway PostgreSQL server (``tests/pgserver.py``, real fsync) for
the run; ``--async-commit`` runs PostgreSQL with ``synchronous_commit = off`` (commits do not
wait for the WAL flush: a crash of the server may lose the last few hundred milliseconds of
moves, never corrupt anything) to show what the flush costs.

Every game has two human seats and is driven by its own coroutine, which picks a random legal
move for whoever must act and waits for the result. Each OS process (a Manager with its own
dispatcher, as one bot process would run) creates and drives its share of the games (games are
split by guild, as shards split them); ``--concurrency`` caps the moves in flight at once *in
each process* (the interactions a busy bot process handles together; by Little's law the mean
latency is about concurrency / throughput per process). The default, 8, saturates one manager,
so the latency printed is the latency at full throughput: at a lower arrival rate it can only be
lower. Latency is the time of one manager call (lock, checks, engine, one committed transaction,
and any follow-up computer turn: none here), measured per move; percentiles merge every process.

``--moves-per-game K`` plays only the first K moves of each game (the goal draft is the first
two); 0 plays every game to the end (46 moves for two players).

Printed: the machine (with the load average), and per run moves/s, p50/p90/p99/max latency,
CPU seconds of the benchmark processes and of the PostgreSQL server during the timed phase (two
cores give at most 2 CPU-seconds per second), notices delivered, database size per finished
game, peak RSS per process. Targets on the 2-core reference machine: SQLite >= 300 moves/s,
p99 <= 50 ms, peak RSS <= 200 MB (README: 878 moves/s, p99 23.4 ms at 1,000 games); PostgreSQL
with 2 processes >= 500 moves/s and p99 <= 50 ms at 10,000 concurrent games.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import random
import sys
import tempfile
import time
from array import array
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bot.core import queries
from bot.core.kernel import Kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import (
    PgServer,
    dispatching,
    drained,
    load1,
    load_text,
    numbered_game,
    pct,
    peak_rss_mb,
    pg_size,
    play_random_move,
    postgres_server,
    print_machine,
    sqlite_size,
    table,
)

# --------------------------------------------------------------------------- one process


GUILDS = 80  # games are spread over 80 guilds; process p of N serves guilds with g % N == p


@dataclass
class Job:
    location: str  # a SQLite path or a PostgreSQL URL
    index: int  # this process among the others
    processes: int
    games: int  # in all processes together
    moves_per_game: int  # 0: to the end
    concurrency: int
    seed: int
    existing: bool = False  # the games are in the database already (a cloned template)
    store: str = "as is"  # "no listen": the bot's PostgreSQL store without its LISTEN


async def play_game(m: Any, game: Any, rng: random.Random, gate: asyncio.Semaphore,
                    latencies: array[float], limit: int) -> int:
    g = game
    played = 0
    while g.status.active and (limit == 0 or played < limit):
        g = await play_random_move(m, g, rng, gate=gate, latencies=latencies)
        played += 1
    return played


async def _recv(conn: Connection) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, conn.recv)


async def child_main(job: Job, conn: Connection) -> None:
    from bot.core.manager import Manager, ManagerConfig
    from bot.core.models import GameStatus
    from bot.core.outbox import NullDelivery

    rng = random.Random(job.seed * 7919 + job.index)
    # Games split by guild, as shards split them: game i is in guild 1 + i % GUILDS.
    mine = [i for i in range(job.games) if i % job.processes == job.index]
    base = job.seed * 1_000_003 + job.index * 100_000_000
    seeds = iter(range(base, base + len(mine) + 1))
    config = ManagerConfig(cache_size=len(mine) + 16)
    if job.store == "no listen":
        from bot.core.storage.postgres.store import PostgresStore

        # No LISTEN connection: what the change notifications cost (an experiment only:
        # other processes' writes then reach this cache only through the version checks).
        m = Manager(Kernel(await PostgresStore.open(job.location, listen=False), config=config,
                    seed_source=lambda: next(seeds)))
    else:
        m = await Manager.open(job.location, config=config, seed_source=lambda: next(seeds))
    delivery = NullDelivery()
    gate = asyncio.Semaphore(job.concurrency)

    async def setup_one(i: int) -> Any:
        async with gate:
            return await numbered_game(m, i, guild_id=1 + i % GUILDS)

    async def load_one(game_id: int) -> Any:
        async with gate:
            return await queries.game(m.kernel, game_id)

    async with dispatching(m, delivery) as dispatcher:
        t0 = time.perf_counter()
        if job.existing:
            # This process's guilds, its games loaded (and cached) as a running bot would have.
            ids: list[int] = []
            for guild in range(1 + job.index, GUILDS + 1, job.processes):
                ids += await m.store.game_ids(guild_id=guild, active_only=True)
            started = list(await asyncio.gather(*(load_one(i) for i in ids)))
            calls = len(ids)
        else:
            started = list(await asyncio.gather(*(setup_one(i) for i in mine)))
            calls = 4 * len(mine)
        setup = time.perf_counter() - t0
        await drained(m.store)
        conn.send(("ready", setup, calls))

        go = await _recv(conn) == "go"  # else building a template: the games are made
        if go:
            gc.collect()
            gc.freeze()  # the long-lived objects made so far need no more GC passes
            latencies: array[float] = array("d")
            delivered0 = delivery.count
            c0, t1 = time.process_time(), time.perf_counter()
            counts = await asyncio.gather(*(
                play_game(m, g, random.Random(rng.random()), gate, latencies,
                          job.moves_per_game)
                for g in started))
            elapsed, cpu = time.perf_counter() - t1, time.process_time() - c0
            t_end = time.monotonic()
            delivered_during = delivery.count - delivered0
            conn.send(("played", sum(counts), elapsed, cpu, t_end, latencies.tobytes(),
                       delivered_during))

            t2 = time.perf_counter()
            await drained(m.store)
            drain = time.perf_counter() - t2
    if not go:
        await m.close()
        conn.send(("done", 0.0, delivery.count, 0, None, peak_rss_mb(), dispatcher.passes))
        return
    finished = 0
    for g in started:
        finished += (await queries.game(m.kernel, g.id)).status is GameStatus.OVER
    sizes: tuple[float, float] | None = None
    if job.processes == 1 and not job.location.startswith("postgres"):
        path = Path(job.location)
        await m.store.checkpoint()  # type: ignore[attr-defined]
        size = sqlite_size(path)
        # What stays once delivered notices are pruned (the sweep does it after outbox_keep).
        await m.store.prune_outbox(int(time.time() * 1000) + 1)
        await m.store.vacuum()  # type: ignore[attr-defined]
        sizes = (size, sqlite_size(path))
    await m.close()
    conn.send(("done", drain, delivery.count, finished, sizes, peak_rss_mb(),
               dispatcher.passes))


def child_entry(job: Job, conn: Connection) -> None:
    try:
        asyncio.run(child_main(job, conn))
    except BaseException as e:
        conn.send(("error", f"{type(e).__name__}: {e}"))
        raise


# --------------------------------------------------------------------------- one run


@dataclass
class RunResult:
    label: str
    games: int
    processes: int
    moves_per_game: int
    moves: int = 0
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)
    setup: float = 0.0
    setup_calls: int = 0
    bench_cpu: float = 0.0
    server_cpu: float = float("nan")
    delivered: int = 0
    delivered_during: int = 0
    drain: float = 0.0
    finished: int = 0
    sizes: tuple[float, float] | None = None
    db_bytes: int | None = None
    rss: list[float] = field(default_factory=list)
    load_end: float = 0.0
    passes: int = 0
    error: str | None = None

    @property
    def rate(self) -> float:
        return self.moves / self.elapsed if self.elapsed else 0.0


def _expect(conn: Connection, tag: str) -> tuple[Any, ...]:
    msg = conn.recv()
    if msg[0] == "error":
        raise RuntimeError(msg[1])
    if msg[0] != tag:
        raise RuntimeError(f"expected {tag}, got {msg[0]}")
    return tuple(msg[1:])


def run_once(location: str, label: str, games: int, processes: int, moves_per_game: int,
             concurrency: int, seed: int, server: PgServer | None, *, existing: bool = False,
             store: str = "as is", build: bool = False) -> RunResult:
    """Drive ``games`` games from ``processes`` OS processes on one database (``existing``:
    they are there already; ``build``: only create them, for a template)."""
    ctx = multiprocessing.get_context("spawn")
    res = RunResult(label, games, processes, moves_per_game)
    pipes: list[Connection] = []
    procs = []
    for i in range(processes):
        parent, child = ctx.Pipe()
        job = Job(location, i, processes, games, moves_per_game, concurrency, seed,
                  existing, store)
        p = ctx.Process(target=child_entry, args=(job, child), daemon=True)
        p.start()
        pipes.append(parent)
        procs.append(p)
    try:
        for conn in pipes:
            setup, calls = _expect(conn, "ready")
            res.setup = max(res.setup, setup)
            res.setup_calls += calls
        if build:
            for conn in pipes:
                conn.send("quit")
            for conn in pipes:
                _expect(conn, "done")
            return res
        server_cpu0 = server.cpu() if server is not None else float("nan")
        start = time.monotonic()
        for conn in pipes:
            conn.send("go")
        end = start
        for conn in pipes:
            moves, _elapsed, cpu, t_end, lat, during = _expect(conn, "played")
            res.moves += moves
            res.bench_cpu += cpu
            end = max(end, t_end)
            res.latencies.extend(array("d", lat))
            res.delivered_during += during
        res.elapsed = end - start
        if server is not None:
            res.server_cpu = server.cpu() - server_cpu0
        res.load_end = load1()
        for conn in pipes:
            drain, delivered, finished, sizes, rss, passes = _expect(conn, "done")
            res.drain = max(res.drain, drain)
            res.delivered += delivered
            res.finished += finished
            res.sizes = sizes or res.sizes
            res.rss.append(rss)
            res.passes += passes
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    return res


def describe(res: RunResult, concurrency: int) -> None:
    """The long report of one run (the single-run mode)."""
    lat = [x * 1000 for x in res.latencies]
    per = "to the end" if res.moves_per_game == 0 else f"{res.moves_per_game} moves each"
    print(f"{res.label}: {res.games} games (2 people each, standard setup, {per}), "
          f"{res.processes} process(es), moves in flight <= {concurrency} per process")
    print(f"setup: {res.setup_calls} calls (create, attach, join, start) in {res.setup:.1f} s "
          f"({res.setup_calls / max(res.setup, 1e-9):.0f} calls/s)")
    print(f"moves: {res.moves} in {res.elapsed:.2f} s = {res.rate:.0f} moves/s")
    print(f"latency of one move: p50 {pct(lat, 0.5):.2f} ms, p90 {pct(lat, 0.9):.2f} ms, "
          f"p99 {pct(lat, 0.99):.2f} ms (target <= 50), max {max(lat):.1f} ms")
    server = "" if res.server_cpu != res.server_cpu else \
        f", PostgreSQL server {res.server_cpu:.1f} s"
    print(f"CPU during the timed phase: benchmark processes {res.bench_cpu:.1f} s{server} "
          f"(wall {res.elapsed:.1f} s x 2 cores = {2 * res.elapsed:.1f} CPU-s available)")
    print(f"outbox: {res.delivered} notices delivered ({res.delivered / max(1, res.moves):.2f} "
          f"per move; {res.delivered_during} while the moves were played), the last ones "
          f"{res.drain * 1000:.0f} ms after the last move; {res.passes} lane claims")
    if res.sizes is not None and res.finished:
        size, kept = res.sizes
        print(f"finished games: {res.finished}/{res.games}; database {size / 1e6:.1f} MB = "
              f"{size / res.finished / 1024:.1f} KiB per finished game with its delivered "
              f"notices, {kept / res.finished / 1024:.1f} KiB once they are pruned")
    elif res.db_bytes is not None:
        print(f"finished games: {res.finished}/{res.games}; database "
              f"{res.db_bytes / 1e6:.1f} MB")
    print(f"peak RSS per process: {', '.join(f'{r:.0f}' for r in res.rss)} MB "
          f"(target <= 200); {load_text()}")


def cpu_per_move(res: RunResult) -> float:
    server = 0.0 if res.server_cpu != res.server_cpu else res.server_cpu
    return (res.bench_cpu + server) / max(1, res.moves) * 1000


def row(res: RunResult) -> list[object]:
    lat = [x * 1000 for x in res.latencies]
    per = "all (46)" if res.moves_per_game == 0 else str(res.moves_per_game)
    cpu = f"{res.bench_cpu:.0f}"
    if res.server_cpu == res.server_cpu:
        cpu += f" + {res.server_cpu:.0f}"
    return [res.label, res.processes, f"{res.games:,}", per, f"{res.moves:,}",
            f"{res.elapsed:.1f}", f"{res.rate:.0f}", f"{pct(lat, 0.5):.1f}",
            f"{pct(lat, 0.99):.1f}", f"{max(lat):.0f}", cpu, f"{cpu_per_move(res):.2f}",
            f"{max(res.rss):.0f}", f"{res.setup:.0f}", f"{res.load_end:.2f}"]


HEADERS = ["backend", "procs", "games", "moves/game", "moves", "wall s", "moves/s", "p50 ms",
           "p99 ms", "max ms", "CPU s bench + pg", "CPU ms/move", "RSS MB", "setup s", "load"]


# --------------------------------------------------------------------------- modes


async def replicate_pg(url: str, base: int, copies: int) -> None:
    """Grow a template of ``base`` started games (ids 1..base, users 1..2*base) to
    ``base * copies`` games by copying rows with shifted ids (same guilds, new users and
    threads): seconds instead of minutes of manager calls."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            n, u = base, 2 * base
            await conn.execute(
                "INSERT INTO games (id, status, guild_id, channel_id, thread_id, "
                "lobby_message_id, host_id, options, first_user_id, engine_options, state, "
                "version, ply, deadline_at, end_reason, created_at, updated_at, flags) "
                "SELECT g.id + k * $1, status, guild_id, channel_id, thread_id + k * $1, "
                "lobby_message_id + k * $1, host_id + k * $2, options, first_user_id + k * $2, "
                "engine_options, state, version, ply, deadline_at, end_reason, created_at, "
                "updated_at, flags FROM games g, generate_series(1, $3) k "
                "WHERE g.id <= $1", n, u, copies - 1)
            await conn.execute(
                "INSERT INTO seats (game_id, seat, user_id, name, ai_level, left_game, "
                "fallback_sent) SELECT game_id + k * $1, seat, user_id + k * $2, name, "
                "ai_level, left_game, fallback_sent FROM seats, generate_series(1, $3) k "
                "WHERE game_id <= $1", n, u, copies - 1)
            await conn.execute(
                "INSERT INTO timers (game_id, kind, seat, due_at, deadline_at, reminders) "
                "SELECT game_id + k * $1, kind, seat, due_at, deadline_at, reminders "
                "FROM timers, generate_series(1, $2) k WHERE game_id <= $1", n, copies - 1)
            await conn.execute(
                "INSERT INTO users (user_id, name, locale, reminders, dm_closed_at, "
                "last_reminder_at, describe) SELECT user_id + k * $1, name, locale, "
                "reminders, dm_closed_at, last_reminder_at, describe FROM users, "
                "generate_series(1, $2) k WHERE user_id <= $1", u, copies - 1)
            await conn.execute("SELECT setval(pg_get_serial_sequence('games', 'id'), "
                               "(SELECT max(id) FROM games))")
        await conn.execute("VACUUM ANALYZE")
    finally:
        await conn.close()


async def _new_pg_db(server: PgServer, async_commit: bool) -> str:
    return await server.new_database("calico_bench", synchronous_commit=not async_commit)


def single(args: argparse.Namespace) -> None:
    print_machine()
    db: str | None = args.db
    if db is None or not db.startswith("postgres"):
        if args.processes != 1:
            raise SystemExit("SQLite serves one process: use --db postgres for --processes > 1")
        with tempfile.TemporaryDirectory(prefix="calico-bench-") as tmp:
            location = db or str(Path(tmp) / "bench.db")
            res = run_once(location, "SQLite", args.games, 1, args.moves_per_game,
                           args.concurrency, args.seed, None)
            describe(res, args.concurrency)
        return
    server: PgServer | None = None
    try:
        if db == "postgres":
            server = PgServer.start()
            location = asyncio.run(_new_pg_db(server, args.async_commit))
        else:
            location = db
        label = "PostgreSQL" + (" (synchronous_commit=off)" if args.async_commit else "")
        if args.store != "as is":
            label += f" ({args.store} store)"
        res = run_once(location, label, args.games, args.processes, args.moves_per_game,
                       args.concurrency, args.seed, server, store=args.store)
        res.db_bytes = asyncio.run(pg_size(location))
        describe(res, args.concurrency)
    finally:
        if server is not None:
            server.stop()


def matrix(args: argparse.Namespace) -> None:
    """SQLite and PostgreSQL with 1, 2 and 4 processes, at two sizes, in one table."""
    print_machine()
    if args.quick:
        sizes = [(200, 0), (2000, 4)]
    else:
        sizes = [(1000, 0), (10_000, args.big_moves)]
    print(f"moves in flight <= {args.concurrency} per process. SQLite: a new file, games set "
          "up by the process (setup s: create, attach, join, start). PostgreSQL: a throwaway "
          "server with fsync on (synchronous_commit on unless said); the games are set up "
          "once in a template database, each run plays on a fresh copy whose processes first "
          "load their games (setup s: that load). CPU = seconds used during the timed phase "
          "by the benchmark processes + the PostgreSQL server (2 cores: at most 2 per wall "
          "second, shared with whatever else runs)", flush=True)
    results: list[RunResult] = []
    with postgres_server() as server, tempfile.TemporaryDirectory(prefix="calico-bench-") as tmp:
        for games, per in sizes:
            # (label, processes, synchronous_commit off, store)
            plan: list[tuple[str, int, bool, str]] = [("SQLite", 1, False, "as is")]
            template = None
            if server is not None:
                plan += [("PostgreSQL", n, False, "as is") for n in (1, 2, 4)]
                if games == sizes[-1][0] and args.async_commit:
                    plan.append(("PostgreSQL sync_commit=off", 2, True, "as is"))
                template = asyncio.run(server.new_database("calico_tpl"))
                t0 = time.perf_counter()
                base = min(games, 1000)
                run_once(template, "template", base, 2, per, args.concurrency, args.seed,
                         None, build=True)
                if games > base:
                    asyncio.run(replicate_pg(template, base, games // base))
                print(f"  template of {games:,} started games built in "
                      f"{time.perf_counter() - t0:.0f} s ({base:,} through the manager, "
                      f"the rest copied)", flush=True)
            for label, procs, async_commit, store in plan:
                if label == "SQLite":
                    location = str(Path(tmp) / f"bench-{games}.db")
                else:
                    assert server is not None and template is not None
                    location = asyncio.run(server.clone(
                        template, synchronous_commit=not async_commit))
                try:
                    res = run_once(location, label, games, procs, per, args.concurrency,
                                   args.seed, server if label != "SQLite" else None,
                                   existing=label != "SQLite", store=store)
                except RuntimeError as e:
                    print(f"{label} x{procs}, {games} games: failed: {e}", flush=True)
                    continue
                finally:
                    if label != "SQLite" and server is not None:
                        asyncio.run(server.drop_database(location))
                    else:
                        for p in Path(tmp).glob(f"bench-{games}.db*"):
                            p.unlink()
                results.append(res)
                print("  " + " | ".join(str(c) for c in row(res)), flush=True)
            if template is not None and server is not None:
                asyncio.run(server.drop_database(template))
    print()
    print(table(HEADERS, [row(r) for r in results]))
    print(f"\nafter the runs: {load_text()}")
    print("CPU ms/move = (benchmark + server CPU) / moves: the capacity on 2 free cores is about "
          "2000 / that moves/s. The benchmark processes' CPU includes the driver's own work "
          "(picking random legal moves) and the dispatcher.")
    print("targets: PostgreSQL x2 at 10,000 games >= 500 moves/s and p99 <= 50 ms; SQLite "
          "not worse than 878 moves/s, p99 23.4 ms at 1,000 games (README)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None,
                        help="one run with this many games (default: the table)")
    parser.add_argument("--db", default=None,
                        help="a SQLite file, 'postgres' (a throwaway server), or a "
                             "postgresql:// URL (default: a new SQLite file)")
    parser.add_argument("--processes", type=int, default=1,
                        help="OS processes sharing the PostgreSQL database")
    parser.add_argument("--moves-per-game", type=int, default=0,
                        help="moves played in each game (0: to the end)")
    parser.add_argument("--big-moves", type=int, default=4,
                        help="moves per game at 10,000 games in the table (default 4: the "
                             "goal draft and two turns)")
    parser.add_argument("--concurrency", type=int, default=8,
                        help="moves in flight at once per process (default 8: already enough "
                             "to saturate one manager, so latency is measured at full "
                             "throughput)")
    parser.add_argument("--async-commit", action="store_true",
                        help="PostgreSQL with synchronous_commit = off (single run), or one "
                             "more row in the table")
    parser.add_argument("--quick", action="store_true", help="a small table (smoke run)")
    parser.add_argument("--store", choices=("as is", "no listen"), default="as is",
                        help="PostgreSQL store: the bot's, or the bot's without its LISTEN "
                             "connection (what change notifications cost)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games is not None:
        single(args)
    else:
        matrix(args)


if __name__ == "__main__":
    main()
