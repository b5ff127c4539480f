"""What one trip from the event loop to the SQLite thread costs, three ways (issue #14 part 6).

    .venv/bin/python benchmarks/bench_sqlite_hops.py [--n 2000]

A move is one transaction of about eight statements. Run as:

- ``executor`` (today): the whole transaction as one function on the store's own writer
  thread (``loop.run_in_executor`` on a one-thread pool; public APIs only): one hop;
- ``aiosqlite-private`` (before): the same function through aiosqlite's private
  ``Connection._execute`` (what the store used, pinned below aiosqlite 0.23): one hop;
- ``aiosqlite-public``: every statement through aiosqlite's public ``execute``: one hop each.

Printed: the machine, then per way the median and p99 time of one transaction (µs) and
transactions per second, in CPU time and wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiosqlite

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import Stopwatch, pct, print_machine

SCHEMA = """
CREATE TABLE g (id INTEGER PRIMARY KEY, version INTEGER, state TEXT);
CREATE TABLE m (game INTEGER, ply INTEGER, move TEXT, PRIMARY KEY (game, ply));
CREATE TABLE o (id INTEGER PRIMARY KEY, game INTEGER, payload TEXT);
CREATE TABLE t (game INTEGER, kind TEXT, due INTEGER, PRIMARY KEY (game, kind));
INSERT INTO g (id, version, state) VALUES (1, 0, '');
"""
STATE = "x" * 3000


def statements(ply: int) -> list[tuple[str, tuple[Any, ...]]]:
    return [
        ("UPDATE g SET version = version + 1, state = ? WHERE id = 1", (STATE,)),
        ("INSERT INTO m VALUES (1, ?, 'h0@C3>m2')", (ply,)),
        ("DELETE FROM t WHERE game = 1 AND kind = 'turn'", ()),
        ("INSERT INTO t VALUES (1, 'turn', ?)", (ply,)),
        ("INSERT INTO o (game, payload) VALUES (1, ?)", ('{"k":"table"}',)),
        ("INSERT INTO o (game, payload) VALUES (1, ?)", ('{"k":"turn_prompt"}',)),
    ]


def transaction(conn: sqlite3.Connection, ply: int) -> None:
    conn.execute("BEGIN IMMEDIATE")
    for sql, args in statements(ply):
        conn.execute(sql, args)
    conn.execute("COMMIT")


def connect(path: str) -> sqlite3.Connection:
    # As the bot's writer: WAL, synchronous=NORMAL (per connection), autocommit mode.
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


async def run_executor(path: str, n: int) -> list[float]:
    pool = ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()
    conn = await loop.run_in_executor(pool, connect, path)
    times = []
    for ply in range(n):
        t0 = time.perf_counter()
        await loop.run_in_executor(pool, transaction, conn, ply)
        times.append(time.perf_counter() - t0)
    await loop.run_in_executor(pool, conn.close)
    pool.shutdown()
    return times


async def run_private(path: str, n: int) -> list[float] | None:
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA synchronous = NORMAL")
    submit = getattr(conn, "_execute", None)
    raw = getattr(conn, "_conn", None)
    if submit is None or raw is None:
        await conn.close()
        return None  # a version without the private hook
    times = []
    for ply in range(n):
        t0 = time.perf_counter()
        await submit(transaction, raw, ply)
        times.append(time.perf_counter() - t0)
    await conn.close()
    return times


async def run_public(path: str, n: int) -> list[float]:
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA synchronous = NORMAL")
    times = []
    for ply in range(n):
        t0 = time.perf_counter()
        await conn.execute("BEGIN IMMEDIATE")
        for sql, args in statements(ply):
            await conn.execute(sql, args)
        await conn.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    await conn.close()
    return times


def fresh(folder: str, name: str) -> str:
    path = os.path.join(folder, f"{name}.db")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(SCHEMA)
    conn.close()
    return path


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="transactions per way")
    args = parser.parse_args()
    print_machine()
    print(f"{args.n} transactions of {len(statements(0)) + 2} statements each\n")
    print(f"{'way':<20} {'median µs':>10} {'p99 µs':>9} {'tx/s wall':>10} {'CPU s':>7}")
    with tempfile.TemporaryDirectory() as folder:
        for name, way in (("executor", run_executor), ("aiosqlite-private", run_private),
                          ("aiosqlite-public", run_public)):
            path = fresh(folder, name)
            with Stopwatch() as sw:
                times = await way(path, args.n)
            if times is None:
                print(f"{name:<20} (not available in this aiosqlite)")
                continue
            p99 = pct(times, 0.99, "below")
            print(f"{name:<20} {statistics.median(times) * 1e6:>10.0f} {p99 * 1e6:>9.0f} "
                  f"{args.n / sw.wall:>10.0f} {sw.cpu:>7.2f}")


if __name__ == "__main__":
    asyncio.run(main())
