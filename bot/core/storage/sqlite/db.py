"""The SQLite file: refusing files we must not touch, the one-process lock, pragmas, forward
migrations, and the writer thread that runs a whole transaction in one hop.

Opening is careful and cheap: an existing file is inspected read-only (SQLite header, ``PRAGMA
user_version``) and refused with :class:`StorageError` when it is not a SQLite database or
carries a schema newer than this code knows, before anything could write to it. Nothing at open
reads the whole file, so start-up does not grow with history; the full integrity check is
:meth:`Database.integrity_check` (``calico-bot check``, and every backup).

One process at a time: the file is SQLite's, and the guarantees across processes (claims with
leases, change notifications) are PostgreSQL's. A second bot process on the same file is
refused at start (an exclusive ``flock`` on ``<file>.lock``, released by the kernel when the
holder dies) with a message that says to use PostgreSQL. Tools that only read (``backup``,
``check``) do not take the lock; ``migrate-db`` holds it while it copies (:func:`held_apart`):
a copy of a database a bot is changing would miss what changes meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import IO, Any, TypeVar

import aiosqlite

from bot.core.storage.base import StorageError

T = TypeVar("T")

log = logging.getLogger("calico.storage")

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
CHECKPOINT_SECONDS = 1.0
# The writer checkpoints only as a backstop; normally a second connection does it off the
# write path (see Database).
WRITER_AUTOCHECKPOINT_PAGES = 20_000
INCREMENTAL = 2  # PRAGMA auto_vacuum value
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class SecondProcessError(StorageError):
    """Another bot process already uses this SQLite file."""


def migrations() -> list[tuple[int, str]]:
    """``(version, sql)`` for every migration file, in order; numbering must be 1, 2, 3..."""
    folder = resources.files("bot.core.storage.sqlite").joinpath("migrations")
    found: list[tuple[int, str]] = []
    for entry in folder.iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            found.append((int(m[1]), entry.read_text(encoding="utf-8")))
    found.sort()
    if [v for v, _ in found] != list(range(1, len(found) + 1)):
        raise StorageError("migration files must be numbered 0001, 0002, ... without gaps")
    return found


def latest_version() -> int:
    return len(migrations())


def inspect_file(path: Path) -> int:
    """The schema version of the file at ``path`` (0 for a missing or empty file), read without
    writing anything and without reading more than its first page. Raises StorageError for a
    file we must refuse."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    with path.open("rb") as f:
        header = f.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise StorageError(f"{path} is not a SQLite database; refusing to use it")
    try:
        # mode=ro: nothing this connection does can modify the file.
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise StorageError(f"cannot open {path}: {e}") from e
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        latest = latest_version()
        if version > latest:
            raise StorageError(
                f"{path} has schema version {version}, newer than this bot knows ({latest}): "
                "it was written by a newer calico-bot; upgrade the bot or use another file"
            )
        # The schema itself (one small table) must be readable: a file whose first pages are
        # damaged fails here, before anything writes to it.
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name LIMIT 5")]
        if version == 0 and tables:
            raise StorageError(
                f"{path} holds tables that are not calico-bot's ({', '.join(tables)}); "
                "refusing to touch it: use another file")
        return version
    except sqlite3.DatabaseError as e:
        raise StorageError(f"{path} is damaged or not a database: {e}") from e
    finally:
        conn.close()


def integrity_problems(conn: sqlite3.Connection) -> list[str]:
    """``PRAGMA integrity_check`` (reads every page): the problems found, or nothing."""
    rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
    return [] if rows == ["ok"] else rows


def _migrate(conn: sqlite3.Connection, current: int) -> int:
    pending = [(v, sql) for v, sql in migrations() if v > current]
    if pending:
        script = ["BEGIN IMMEDIATE;"]
        for version, sql in pending:
            script.append(sql)
            script.append(f";\nPRAGMA user_version = {version};")
        script.append("COMMIT;")
        try:
            conn.executescript("\n".join(script))
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
        current = pending[-1][0]
    if int(conn.execute("PRAGMA auto_vacuum").fetchone()[0]) != INCREMENTAL:
        # Space freed by pruning is given back with ``incremental_vacuum``; switching an existing
        # file over needs one full VACUUM (a one-time cost of this upgrade, outside any
        # transaction).
        log.info("switching the database to incremental vacuum (one-time rebuild)")
        conn.execute(f"PRAGMA auto_vacuum = {INCREMENTAL}")
        conn.execute("VACUUM")
    return current


def _configure(conn: sqlite3.Connection) -> None:
    # WAL: readers never block the writer; synchronous=NORMAL is durable across application
    # crashes (a power cut may lose the last commits, never corrupt the file).
    # Effective at once on a new file; an existing one is rebuilt once by _migrate.
    conn.execute(f"PRAGMA auto_vacuum = {INCREMENTAL}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute(f"PRAGMA wal_autocheckpoint = {WRITER_AUTOCHECKPOINT_PAGES}")


def _drop_claims(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE lanes SET owner = NULL, lease_until = NULL, next_due = 0 "
                 "WHERE owner IS NOT NULL")
    conn.execute("UPDATE timers SET owner = NULL, lease_until = NULL WHERE owner IS NOT NULL")


def _lock_file(path: Path) -> IO[str]:
    """Hold ``<file>.lock`` exclusively for this process's life (SecondProcessError if taken)."""
    lock_path = path.with_name(path.name + ".lock")
    handle = lock_path.open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise SecondProcessError(
            f"{path} is already used by a running calico-bot ({holder}). SQLite serves one "
            "process; to run several bot processes, point CALICO_DB at a PostgreSQL database "
            "(see 'Running at scale' in the README)") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle


@contextlib.contextmanager
def held_apart(path: Path) -> Iterator[None]:
    """Hold the one-process lock of ``path`` while a tool reads it whole (``migrate-db``): a
    running bot refuses it (SecondProcessError), and no bot starts on it meanwhile."""
    handle = _lock_file(path)
    try:
        yield
    finally:
        handle.close()


class Database:
    """The writer connection on its own thread, and a way to run transactions on it.

    :meth:`run` hands a plain function to the writer thread, which executes it with the
    ``sqlite3.Connection``. Each hop between the event loop and that thread costs 0.25-0.4 ms on
    the 2-core target machine, so a move that needs eight statements is one hop, not nine. The
    thread runs jobs one after another, so a transaction run this way never interleaves with
    another coroutine's statements: no asyncio lock is needed around it.

    WAL checkpoints (copying the log back into the file, with an fsync) would otherwise run
    inside whichever commit crosses the threshold and stall every write behind it for tens of
    milliseconds; a second connection (aiosqlite) runs them every second instead.
    """

    def __init__(self, conn: sqlite3.Connection, executor: ThreadPoolExecutor, path: str,
                 version: int) -> None:
        self._conn = conn
        self._executor = executor
        self.path = path
        self.version = version
        self._checkpointer: asyncio.Task[None] | None = None
        self._checkpoint_conn: aiosqlite.Connection | None = None
        self._lock: IO[str] | None = None

    @classmethod
    async def open(cls, path: str | Path, *, exclusive: bool = True) -> Database:
        """Open (creating or migrating) the file. ``exclusive``: take the one-process lock (the
        bot does; read-only tools and tests that open a file twice do not)."""
        name = str(path)
        memory = name == ":memory:"
        lock = None if memory or not exclusive else _lock_file(Path(name))
        try:
            current = 0 if memory else await asyncio.to_thread(inspect_file, Path(name))
            executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="calico-sqlite")
            loop = asyncio.get_running_loop()
            conn = await loop.run_in_executor(executor, _connect, name)
            db = cls(conn, executor, name, current)
            db._lock = lock
            lock = None
            try:
                await db.run(_configure)
                db.version = await db.run(_migrate, current)
                if db._lock is not None:
                    # Only this process uses the file (the lock): claims left by a process that
                    # died are void, so its lanes and timers are picked up at once.
                    await db.run(_drop_claims)
                if not memory:
                    # Opened here, not inside the task: a task cancelled while its connection is
                    # still opening would leave a thread touching the files after close().
                    ckpt = await aiosqlite.connect(name, isolation_level=None)
                    await ckpt.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                    db._checkpoint_conn = ckpt
                    db._checkpointer = asyncio.create_task(db._checkpoint_loop(ckpt))
            except BaseException:
                await db.close()
                raise
            return db
        finally:
            if lock is not None:
                lock.close()

    @staticmethod
    async def _checkpoint_loop(conn: aiosqlite.Connection) -> None:
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as e:
                log.warning("WAL checkpoint failed: %s", e)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(connection, *args)`` on the writer thread; its result or exception comes back."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, self._conn, *args)

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointer
            self._checkpointer = None
        if self._checkpoint_conn is not None:
            await self._checkpoint_conn.close()
            self._checkpoint_conn = None
        if self._executor is not None:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._executor, self._conn.close)
            self._executor.shutdown(wait=True)
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def _connect(name: str) -> sqlite3.Connection:
    # Autocommit mode (isolation_level=None): transactions are explicit BEGIN ... COMMIT.
    return sqlite3.connect(name, isolation_level=None, check_same_thread=False)


def transaction(fn: Callable[..., T]) -> Callable[..., T]:
    """Wrap a function of (connection, ...) in BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error).

    IMMEDIATE takes the write lock up front, so a transaction never fails half-way on lock
    upgrade; the busy timeout covers another process (a backup, the sqlite3 shell) holding it.
    """

    def wrapped(conn: sqlite3.Connection, *args: Any) -> T:
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(conn, *args)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    wrapped.__name__ = getattr(fn, "__name__", "transaction")
    wrapped.__doc__ = fn.__doc__
    return wrapped


async def backup(source: str | Path, target: str | Path) -> list[str]:
    """A consistent copy of a live database (SQLite's online backup API, through aiosqlite),
    then the full integrity check of the copy; returns the problems found (empty: good)."""
    target = Path(target)
    if target.exists():
        raise StorageError(f"{target} exists; refusing to overwrite it")
    inspect_file(Path(source))
    async with aiosqlite.connect(str(source)) as src:
        await src.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        async with aiosqlite.connect(str(target)) as dst:
            # Pages are copied in steps so that the live bot's commits go on meanwhile.
            await src.backup(dst, pages=1024)
    async with aiosqlite.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True) as copy:
        rows = [str(r[0]) for r in await copy.execute_fetchall("PRAGMA integrity_check")]
    return [] if rows == ["ok"] else rows


async def check(path: str | Path) -> list[str]:
    """The full integrity check of a database file (read-only; works while the bot runs)."""
    inspect_file(Path(path))
    async with aiosqlite.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True) as conn:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        rows = [str(r[0]) for r in await conn.execute_fetchall("PRAGMA integrity_check")]
    return [] if rows == ["ok"] else rows
