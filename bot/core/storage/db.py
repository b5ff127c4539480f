"""The database file: refusing files we must not touch, pragmas, forward migrations, and the
runner that executes a whole transaction in one trip to aiosqlite's worker thread.

Opening is careful: an existing file is first inspected read-only (SQLite header, ``PRAGMA
user_version``, ``PRAGMA quick_check``). A file that is not a SQLite database, fails the check,
or carries a schema version newer than this code knows is refused with :class:`StorageError`
before anything could write to it. Only then is it opened for writing, switched to WAL and
migrated (all pending numbered ``migrations/NNNN_*.sql`` files in one transaction).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sqlite3
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

T = TypeVar("T")

log = logging.getLogger("calico.storage")

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
CHECKPOINT_SECONDS = 1.0
# The writer checkpoints only as a backstop; normally a second connection does it off the
# write path (see Database).
WRITER_AUTOCHECKPOINT_PAGES = 20_000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class StorageError(Exception):
    """The database cannot be used (corrupt, foreign, or from a newer version of the bot)."""


class StaleWriteError(StorageError):
    """The optimistic version check failed: the game changed since it was read."""


def migrations() -> list[tuple[int, str]]:
    """``(version, sql)`` for every migration file, in order; numbering must be 1, 2, 3..."""
    folder = resources.files("bot.core.storage").joinpath("migrations")
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
    writing anything. Raises StorageError for a file we must refuse."""
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
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise StorageError(f"{path} failed its integrity check: {'; '.join(problems[:3])}")
        return version
    except sqlite3.DatabaseError as e:
        raise StorageError(f"{path} is damaged or not a database: {e}") from e
    finally:
        conn.close()


def _migrate(conn: sqlite3.Connection, current: int) -> int:
    pending = [(v, sql) for v, sql in migrations() if v > current]
    if not pending:
        return current
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
    return pending[-1][0]


def _configure(conn: sqlite3.Connection) -> None:
    # WAL: readers never block the writer; synchronous=NORMAL is durable across application
    # crashes (a power cut may lose the last commits, never corrupt the file).
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute(f"PRAGMA wal_autocheckpoint = {WRITER_AUTOCHECKPOINT_PAGES}")


class Database:
    """One aiosqlite connection (the single writer) and a way to run transactions on it.

    :meth:`run` hands a plain function to aiosqlite's worker thread, which executes it with the
    ``sqlite3.Connection``. Each hop between the event loop and that thread costs 0.25-0.4 ms
    on the 2-core target machine, so a move that needs six statements is one hop, not seven.
    Because the worker runs jobs one after another, a transaction run this way can never
    interleave with another coroutine's statements: no asyncio lock is needed around it.

    WAL checkpoints (copying the log back into the file, with an fsync) would otherwise run
    inside whichever commit crosses the threshold and stall every write behind it for tens of
    milliseconds; a second connection runs them every second on its own thread instead.
    """

    def __init__(self, conn: aiosqlite.Connection, path: str, version: int) -> None:
        self._conn = conn
        self.path = path
        self.version = version
        self._checkpointer: asyncio.Task[None] | None = None
        self._checkpoint_conn: aiosqlite.Connection | None = None
        # aiosqlite has no public "run this callable on the connection's thread"; its private
        # _execute is the primitive every public method is built on (present since 0.1).
        self._submit: Callable[..., Awaitable[Any]] = conn._execute
        self._raw: sqlite3.Connection = conn._conn

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        name = str(path)
        memory = name == ":memory:"
        current = 0 if memory else await asyncio.to_thread(inspect_file, Path(name))
        conn = await aiosqlite.connect(name, isolation_level=None)
        try:
            db = cls(conn, name, current)
            await db.run(_configure)
            db.version = await db.run(_migrate, current)
        except BaseException:
            await conn.close()
            raise
        if not memory:
            # Opened here, not inside the task: a task cancelled while its connection is still
            # opening would leave a thread touching the files after close() returned.
            ckpt = await aiosqlite.connect(name, isolation_level=None)
            await ckpt.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            db._checkpoint_conn = ckpt
            db._checkpointer = asyncio.create_task(db._checkpoint_loop(ckpt))
        return db

    @staticmethod
    async def _checkpoint_loop(conn: aiosqlite.Connection) -> None:
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as e:
                log.warning("WAL checkpoint failed: %s", e)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(connection, *args)`` on the worker thread; its result or exception comes back."""
        result: T = await self._submit(fn, self._raw, *args)
        return result

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointer
            self._checkpointer = None
        if self._checkpoint_conn is not None:
            await self._checkpoint_conn.close()
            self._checkpoint_conn = None
        await self._conn.close()


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
