"""Shared helpers of the growth benchmarks (bench_manager, bench_growth, bench_soak): the machine
line with its load average, CPU and memory readings, percentiles, a throwaway PostgreSQL server
with its CPU time, and plain-text tables.

Nothing here is imported by the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import resource
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# --------------------------------------------------------------------------- the machine


def load_text() -> str:
    try:
        return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        return "load ?"


def cpu_model() -> str:
    """The processor's name (``/proc/cpuinfo`` where ``platform`` only knows the architecture)."""
    name = platform.processor()
    if name and name not in ("x86_64", "aarch64", "arm", "i386"):
        return name
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return name or "unknown"


def load1() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def machine_line() -> str:
    cpu = cpu_model()
    try:
        pg = metadata.version("asyncpg")
    except metadata.PackageNotFoundError:
        pg = "?"
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} "
            f"CPUs ({cpu}), {load_text()}; Python {platform.python_version()}, SQLite "
            f"{sqlite3.sqlite_version}, aiosqlite {metadata.version('aiosqlite')}, asyncpg {pg}")


def print_machine(title: str) -> None:
    print(f"== {title}")
    print(f"machine: {machine_line()}", flush=True)


# --------------------------------------------------------------------------- time and memory


def cpu_seconds() -> float:
    """CPU time (user + system) of this process so far, all threads."""
    return time.process_time()


def rss_mb() -> float:
    """The current resident set size of this process (MB)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024 / 1024 if sys.platform == "darwin" else rss / 1024


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stopwatch:
    """Wall and CPU time of a block: ``with Stopwatch() as sw: ...; sw.wall, sw.cpu``."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self._w = 0.0
        self._c = 0.0

    def __enter__(self) -> Stopwatch:
        self._w = time.perf_counter()
        self._c = time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._w
        self.cpu = time.process_time() - self._c


# --------------------------------------------------------------------------- PostgreSQL


def _proc_stat(pid: int, *, reaped: bool = False) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process from /proc, or None when it is gone; with
    ``reaped``, plus the CPU of its children that have ended (and been waited for)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces: split after the last ')'.
    rest = text[text.rindex(")") + 2:].split()
    ppid = int(rest[1])
    utime, stime = int(rest[11]), int(rest[12])
    if reaped:
        utime, stime = utime + int(rest[13]), stime + int(rest[14])
    return ppid, (utime + stime) / CLOCK_TICKS


@dataclass
class PgServer:
    """A throwaway PostgreSQL server (``tests/pgserver.py``) with real fsync, and its CPU."""

    admin_url: str
    postmaster: int
    _server: object

    @classmethod
    def start(cls) -> PgServer:
        from tests.pgserver import ThrowawayPostgres

        server = ThrowawayPostgres(fast=False)
        try:
            url = server.start()
        except BaseException:
            server.stop()
            raise
        assert server.dir is not None
        pid_file = server.dir / "data" / "postmaster.pid"
        pid = int(pid_file.read_text().split()[0])
        return cls(url, pid, server)

    def stop(self) -> None:
        self._server.stop()  # type: ignore[attr-defined]

    def cpu(self) -> float:
        """CPU seconds used so far by the postmaster and its children (the backends serving
        our connections, the WAL writer, the checkpointer): the live ones, and those that
        ended (the postmaster waits for them, so their time is in its own counters; without
        it a backend closing during a run made the figure fall, even below zero)."""
        total = 0.0
        try:
            pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
        except OSError:
            return float("nan")
        for pid in pids:
            st = _proc_stat(pid, reaped=pid == self.postmaster)
            if st is not None and (pid == self.postmaster or st[0] == self.postmaster):
                total += st[1]
        return total

    async def new_database(self, prefix: str = "calico_bench", *,
                           synchronous_commit: bool = True) -> str:
        from tests.pgserver import create_database

        url = await create_database(self.admin_url, prefix)
        if not synchronous_commit:
            import asyncpg

            conn = await asyncpg.connect(self.admin_url)
            try:
                name = url.rsplit("/", 1)[1]
                await conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
            finally:
                await conn.close()
        return url

    async def drop_database(self, url: str) -> None:
        from tests.pgserver import drop_database

        with contextlib.suppress(Exception):
            await drop_database(self.admin_url, url)

    async def clone(self, template_url: str, prefix: str = "calico_clone", *,
                    synchronous_commit: bool = True) -> str:
        """A new database copied from ``template_url`` (no connection may be open on it)."""
        import asyncpg

        name = f"{prefix}_{os.getpid()}_{int(time.time() * 1000) % 10**9}"
        template = template_url.rsplit("/", 1)[1]
        conn = await asyncpg.connect(self.admin_url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            if not synchronous_commit:
                await conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
        finally:
            await conn.close()
        return self.admin_url.rsplit("/", 1)[0] + f"/{name}"


@contextlib.contextmanager
def postgres_server() -> Iterator[PgServer | None]:
    """A throwaway server for the block, or None (with the reason printed) when it cannot
    start."""
    try:
        server = PgServer.start()
    except (RuntimeError, OSError) as e:
        print(f"PostgreSQL: not measured ({e})")
        yield None
        return
    try:
        yield server
    finally:
        server.stop()


async def pg_size(url: str) -> int:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT pg_database_size(current_database())"))
    finally:
        await conn.close()


# --------------------------------------------------------------------------- output


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table, columns aligned (numbers right, text left)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: Sequence[str]) -> str:
        out = []
        for i, c in enumerate(r):
            numeric = c[:1].isdigit() or (c[:1] in "-+." and c[1:2].isdigit())
            out.append(c.rjust(widths[i]) if numeric else c.ljust(widths[i]))
        return " | ".join(out).rstrip()

    sep = "-+-".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep, *(line(r) for r in cells[1:])])


def ms(x: float) -> str:
    return f"{x * 1000:.1f}" if x == x else "-"


async def lag_monitor(samples: list[float], stop: asyncio.Event, interval: float = 0.01) -> None:
    """Event-loop lag: how late a ``sleep(interval)`` wakes up, appended to ``samples`` (s)."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t0 = loop.time()
        await asyncio.sleep(interval)
        samples.append(max(0.0, loop.time() - t0 - interval))
