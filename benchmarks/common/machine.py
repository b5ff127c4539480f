"""The machine a benchmark ran on, time and memory readings, percentiles, tables, and a
process pool with progress."""

from __future__ import annotations

import asyncio
import os
import platform
import resource
import sqlite3
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

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


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def machine_line() -> str:
    """System, CPUs, load average, Python and the versions of what the figures depend on."""
    libs = ", ".join(f"{name} {_version(name.lower())}"
                     for name in ("aiosqlite", "asyncpg", "Pillow", "discord.py"))
    return (f"{platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} "
            f"CPUs ({cpu_model()}), {load_text()}; Python {platform.python_version()} "
            f"({platform.python_implementation()}), SQLite {sqlite3.sqlite_version}, {libs}")


def print_machine() -> None:
    """The first line of every benchmark's output."""
    print(f"machine: {machine_line()}", flush=True)


# --------------------------------------------------------------------------- time and memory


def rss_mb(pid: int | None = None) -> float:
    """The current resident set size (MB) of this process, or of process ``pid`` (NaN when it
    is gone)."""
    try:
        status = Path(f"/proc/{pid or 'self'}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mb() if pid is None else float("nan")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, seconds) of process ``pid`` and every process below it that is
    alive now (0 for what is gone)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return total


def pids_running(marker: str) -> list[int]:
    """The processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in line:
                found.append(int(entry.name))
    return found


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1024 / 1024 if sys.platform == "darwin" else rss / 1024


def pct(values: Sequence[float], q: float,
        method: Literal["above", "below", "nearest"] = "above") -> float:
    """The ``q`` quantile (0..1) of ``values``, one of them (NaN when there are none), at the
    index ``int(q * n)`` ("above"), ``int(q * (n - 1))`` ("below") or ``round(q * (n - 1))``
    ("nearest") of the sorted values. Each benchmark keeps the rule its figures were printed
    with; on hundreds of values they agree."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    n = len(ordered)
    k = {"above": int(q * n), "below": int(q * (n - 1)), "nearest": round(q * (n - 1))}[method]
    return ordered[max(0, min(n - 1, k))]


def timed_calls(fn: Callable[[], Any], repeat: int) -> tuple[list[float], Any]:
    """Wall seconds of each of ``repeat`` calls of ``fn``, and what the last one returned."""
    out = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        out.append(time.perf_counter() - t)
    return out, result


async def atimed_calls(fn: Callable[[], Awaitable[Any]], repeat: int) -> tuple[list[float], Any]:
    """``timed_calls`` of a coroutine function."""
    out = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = await fn()
        out.append(time.perf_counter() - t)
    return out, result


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


async def cancel(tasks: Sequence[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until they are all done (whatever they ended with)."""
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def lag_monitor(samples: list[float], stop: asyncio.Event, interval: float = 0.01) -> None:
    """Event-loop lag: how late a ``sleep(interval)`` wakes up, appended to ``samples`` (s)."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t0 = loop.time()
        await asyncio.sleep(interval)
        samples.append(max(0.0, loop.time() - t0 - interval))


# --------------------------------------------------------------------------- processes


def pool_results(fn: Callable[[Any], Any], tasks: Sequence[Any], workers: int,
                 label: str) -> Iterator[Any]:
    """``fn`` of each task in a pool of ``workers`` processes, results as they come, with a
    progress line on standard error when it is a terminal."""
    from multiprocessing import Pool

    shown = sys.stderr.isatty()
    t0 = time.time()
    with Pool(workers) as pool:
        for i, res in enumerate(pool.imap_unordered(fn, tasks, chunksize=1), 1):
            yield res
            if shown:
                print(f"\r  {label}: {i}/{len(tasks)} games, {time.time() - t0:.0f}s",
                      end="", file=sys.stderr, flush=True)
    if shown:
        print(file=sys.stderr)
