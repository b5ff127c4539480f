"""A throwaway PostgreSQL server for tests and benchmarks: ``initdb`` into a temporary folder,
``pg_ctl start`` on a loopback port, ``pg_ctl stop`` at the end.

``.ci/run`` starts one itself and passes its URL as ``CALICO_TEST_PG`` (an admin URL: each test
gets a fresh database made from it). Without that variable the test session starts its own
here, from the machine's packages (``initdb`` on the PATH or under ``/usr/lib/postgresql``).
When PostgreSQL cannot start, :func:`server_url` says why, and the PostgreSQL tests are
skipped with that reason: never passed silently.

PostgreSQL refuses to run as root: as root the server runs as the ``postgres`` user (created by
the Debian package) through ``runuser``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

ENV = "CALICO_TEST_PG"


def find_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl (the PATH first, then Debian's layout)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(folder, "initdb")):
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayPostgres:
    """One PostgreSQL server in a temporary folder (see the module docstring)."""

    def __init__(self, *, fast: bool = True) -> None:
        self.fast = fast  # fsync off: for tests only (benchmarks pass fast=False)
        self.dir: Path | None = None
        self.port = 0
        # PostgreSQL refuses root: as root, its commands run as the postgres user.
        self._run_as: list[str] = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 \
            else []

    @property
    def url(self) -> str:
        return f"postgresql://calico@127.0.0.1:{self.port}/postgres"

    def start(self) -> str:
        binaries = find_binaries()
        if binaries is None:
            raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) not found: install "
                               "the Debian package 'postgresql'")
        self.dir = Path(tempfile.mkdtemp(prefix="calico-pg-"))
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no 'postgres' user to run "
                                   "the server as") from None
            os.chown(self.dir, user.pw_uid, user.pw_gid)
        data = self.dir / "data"
        self._run([str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "calico",
                   "-E", "UTF8", "--no-sync", "--no-instructions"])
        self.port = _free_port()
        settings = [f"-p {self.port}", f"-k {self.dir}", "-c listen_addresses=127.0.0.1",
                    "-c max_connections=200", "-c shared_buffers=128MB"]
        if self.fast:
            settings += ["-c fsync=off", "-c synchronous_commit=off",
                         "-c full_page_writes=off"]
        self._run([str(binaries / "pg_ctl"), "-D", str(data), "-l", str(self.dir / "log"),
                   "-o", " ".join(settings), "-w", "-t", "60", "start"])
        return self.url

    def stop(self) -> None:
        binaries = find_binaries()
        if self.dir is None or binaries is None:
            return
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run([str(binaries / "pg_ctl"), "-D", str(self.dir / "data"), "-m",
                       "immediate", "-w", "stop"])
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def _run(self, args: list[str]) -> None:
        result = subprocess.run([*self._run_as, *args], capture_output=True, text=True,
                                cwd=self.dir, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:1])} failed: {result.stderr.strip()[-500:]}")


@contextlib.contextmanager
def server_url() -> Iterator[tuple[str | None, str]]:
    """``(admin URL or None, why not)``: ``CALICO_TEST_PG`` when set, else a throwaway server
    for the duration of the block."""
    given = os.environ.get(ENV)
    if given:
        yield given, ""
        return
    server = ThrowawayPostgres()
    try:
        url = server.start()
    except (RuntimeError, OSError) as e:
        server.stop()
        yield None, f"PostgreSQL could not start: {e}"
        return
    try:
        yield url, ""
    finally:
        server.stop()


async def create_database(admin_url: str, prefix: str = "calico_test") -> str:
    """A new empty database on the server of ``admin_url``; returns its URL."""
    import asyncpg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


async def drop_database(admin_url: str, url: str) -> None:
    import asyncpg

    name = url.rsplit("/", 1)[1]
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def main(argv: list[str]) -> int:
    """``python -m tests.pgserver start DIR`` (prints the admin URL; the server's files live in
    DIR) / ``python -m tests.pgserver stop DIR``: for ``.ci/run``."""
    import sys

    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.pgserver start|stop DIR", file=sys.stderr)
        return 2
    state = Path(argv[1])
    state.mkdir(parents=True, exist_ok=True)
    if argv[0] == "start":
        server = ThrowawayPostgres()
        try:
            url = server.start()
        except (RuntimeError, OSError) as e:
            server.stop()
            print(f"PostgreSQL could not start: {e}", file=sys.stderr)
            return 1
        assert server.dir is not None
        (state / "server").write_text(str(server.dir))
        print(url)
        return 0
    saved = state / "server"
    if saved.exists():
        server = ThrowawayPostgres()
        server.dir = Path(saved.read_text().strip())
        server.stop()
        saved.unlink()
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))


@contextlib.asynccontextmanager
async def fresh_database(admin: tuple[str | None, str]) -> AsyncIterator[str]:
    """A new empty database for one test, dropped after it; ``admin`` is the ``pg_admin``
    fixture's value. Without a server the test is skipped with the reason (never passed)."""
    import pytest

    admin_url, reason = admin
    if admin_url is None:
        pytest.skip(reason)
    url = await create_database(admin_url)
    try:
        yield url
    finally:
        await drop_database(admin_url, url)
