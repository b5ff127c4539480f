"""A throwaway PostgreSQL server (``tests/pgserver.py``) with its CPU time, and database
sizes."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


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


def sqlite_size(path: Path) -> int:
    """Bytes of a SQLite database with its WAL and shared-memory files."""
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")
               if not p.name.endswith(".lock"))


async def pg_size(url: str) -> int:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT pg_database_size(current_database())"))
    finally:
        await conn.close()
