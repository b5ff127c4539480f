"""The PostgreSQL :class:`~bot.core.storage.base.Store` (asyncpg): several bot processes on one
database, with the same tables, statements and transactions as the SQLite store (the shared
:mod:`bot.core.storage.sql` and :mod:`bot.core.storage.plans`, spelled by
:mod:`bot.core.storage.dialect`). This module connects, migrates, runs a plan's steps on one
pooled connection, listens, and holds what only PostgreSQL has (advisory locks, cluster slots,
``COPY``).

What makes several processes correct is PostgreSQL's own machinery, nothing home-made:

- a move's write checks ``version`` (``UPDATE ... WHERE version = old``), so two clicks on two
  processes make one move and the other learns it is stale;
- lanes and timers are claimed with ``FOR UPDATE SKIP LOCKED`` and a lease in the row, so each
  is served by one process and reclaimed when a dead process's lease runs out;
- ``release_lane`` locks the lane row before it looks for pending notices, and queuing a notice
  upserts the lane row (locking it): whichever commits first, the other sees it;
- every commit sends ``NOTIFY calico`` (game id and version, whether notices were queued), so
  other processes drop a cached game at once and their dispatchers wake up;
- advisory locks for the one-at-a-time jobs (migrations, command sync, cluster slots).

Connection strings are ``postgresql://user:password@host:port/database`` (asyncpg's format);
the password never appears in logs (:attr:`PostgresStore.location`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import zlib
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import Any, TypeAlias, TypeVar

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.core.storage import dialect, sql
from bot.core.storage.base import TABLES, StorageError
from bot.core.storage.dialect import CHANNEL
from bot.core.storage.secrets import redact
from bot.core.storage.sqlstore import SqlStore
from bot.core.storage.steps import (
    Claim,
    ConflictError,
    Execute,
    ExecuteMany,
    Fetch,
    Insert,
    Lock,
    Notify,
    Plan,
    Runners,
    drive_async,
)

T = TypeVar("T")

log = logging.getLogger("calico.storage")

SCHEMA_TABLE = "calico_schema"
# Advisory lock keys (one namespace per use; the second number is the slot or hashed name).
LOCK_MIGRATE = 0x6361_6C69  # "cali"
LOCK_NAMED = 0x636F_0001
LOCK_SLOT = 0x636F_0002
LOCK_ROW = 0x636F_0003  # transaction locks of plans (ratings)
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str]]:
    folder = resources.files("bot.core.storage.postgres").joinpath("migrations")
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


def _count(status: str) -> int:
    """Rows touched, from asyncpg's command status (``UPDATE 3``, ``INSERT 0 2``)."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def name_key(name: str) -> int:
    """A stable 31-bit key for an advisory lock named ``name``."""
    return zlib.crc32(name.encode()) & 0x7FFF_FFFF


async def _schema_version(conn: asyncpg.Connection) -> int:
    """The schema version of the database (0: empty); refuses a foreign or newer one."""
    has_schema = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", SCHEMA_TABLE)
    if not has_schema:
        others = await conn.fetch(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name LIMIT 5")
        if others:
            names = ", ".join(r[0] for r in others)
            raise StorageError(
                f"the database already holds tables that are not calico-bot's ({names}); "
                "refusing to touch it: use an empty database")
        return 0
    version = int(await conn.fetchval(f"SELECT version FROM {SCHEMA_TABLE}") or 0)
    latest = latest_version()
    if version > latest:
        raise StorageError(
            f"the database has schema version {version}, newer than this bot knows "
            f"({latest}): it was written by a newer calico-bot; upgrade the bot")
    return version


async def _migrate(conn: asyncpg.Connection) -> int:
    """Apply pending migrations in one transaction, one process at a time."""
    await conn.execute("SELECT pg_advisory_lock($1)", LOCK_MIGRATE)
    try:
        current = await _schema_version(conn)
        pending = [(v, sql) for v, sql in migrations() if v > current]
        if not pending:
            return current
        async with conn.transaction():
            if current == 0:
                await conn.execute(f"CREATE TABLE {SCHEMA_TABLE} (version integer NOT NULL)")
                await conn.execute(f"INSERT INTO {SCHEMA_TABLE} VALUES (0)")
            for version, sql in pending:
                await conn.execute(sql)
                await conn.execute(f"UPDATE {SCHEMA_TABLE} SET version = $1", version)
        log.info("database migrated to schema version %d", pending[-1][0])
        return pending[-1][0]
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_MIGRATE)


# Generic in the type stubs only: spelled as a string so nothing subscripts them at run time.
Conn: TypeAlias = "asyncpg.Connection[Any] | PoolConnectionProxy[Any]"


async def _execute(conn: Conn, step: Execute) -> int:
    try:
        return _count(await conn.execute(dialect.postgres(step.sql), *step.args))
    except asyncpg.UniqueViolationError as e:
        raise ConflictError(str(e)) from e


async def _fetch(conn: Conn, step: Fetch) -> list[Any]:
    return await conn.fetch(dialect.postgres(step.sql), *step.args)


async def _execute_many(conn: Conn, step: ExecuteMany) -> None:
    await conn.executemany(dialect.postgres(step.sql), step.rows)


async def _insert(conn: Conn, step: Insert) -> int:
    # Many rows in one statement (one round trip); the count comes back in the status.
    columns = [[row[i] for row in step.rows] for i in range(len(step.batch.types))]
    return _count(await conn.execute(dialect.postgres_batch(step.batch), *columns))


async def _claim(conn: Conn, step: Claim) -> list[Any]:
    return await conn.fetch(dialect.postgres_claim(step), *step.set_args, *step.where_args)


async def _notify(conn: Conn, step: Notify) -> None:
    await conn.execute(dialect.NOTIFY, CHANNEL, step.payload)


async def _lock(conn: Conn, step: Lock) -> None:
    await conn.execute(dialect.LOCK, LOCK_ROW, name_key(step.key))


RUNNERS: Runners[Conn] = {
    Execute: _execute, Fetch: _fetch, ExecuteMany: _execute_many, Insert: _insert,
    Claim: _claim, Notify: _notify, Lock: _lock,
}


class PostgresStore(SqlStore):
    """Several processes on one PostgreSQL database (see the module docstring)."""

    backend = "postgresql"
    shared = True

    def __init__(self, pool: asyncpg.Pool, url: str, version: int) -> None:
        super().__init__()
        self.pool = pool
        self.url = url
        self._version = version
        self._listener: asyncpg.Connection | None = None
        self._closed = False

    @classmethod
    async def open(cls, url: str, *, min_size: int = 2, max_size: int = 10,
                   listen: bool = True) -> PostgresStore:
        try:
            conn = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError) as e:
            raise StorageError(f"cannot connect to {redact(url)}: {e}") from e
        try:
            version = await _migrate(conn)
        finally:
            await conn.close()
        # No reset query when a connection goes back to the pool (asyncpg's default sends four
        # statements each time: a round trip and server work on every store call, about a
        # fifth of the server's CPU per move). asyncpg still rolls back an open transaction;
        # the only other session state the store ever leaves is ``exclusive``'s advisory lock,
        # which that method releases itself (or closes the connection).
        pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size,
                                         reset=_no_reset)
        assert pool is not None
        store = cls(pool, url, version)
        if listen:
            await store._listen()
        return store

    async def _listen(self) -> None:
        conn = await asyncpg.connect(self.url)
        await conn.add_listener(CHANNEL, self._notified)
        self._listener = conn

    def _notified(self, _conn: Conn, _pid: int, _channel: str, payload: object) -> None:
        # "g:<id>:<version>[:n]" after a game commit, "n" when notices were queued,
        # "u:<id>" after a user row changed, "x:<topic>" after a feature's (tournament:7).
        parts = str(payload).split(":")
        if parts[0] == "g" and len(parts) >= 3:
            self._game_changed(int(parts[1]), int(parts[2]))
            if len(parts) > 3:
                self.notices_added.set()
        elif parts[0] == "u" and len(parts) == 2:
            self._user_changed(int(parts[1]))
        elif parts[0] == "n":
            self.notices_added.set()
        elif parts[0] == "x" and len(parts) > 1:
            self._topic_changed(str(payload)[2:])

    @property
    def location(self) -> str:
        return redact(self.url)

    @property
    def schema_version(self) -> int:
        return self._version

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()
            self._listener = None
        await self.pool.close()

    async def run(self, plan: Plan[T], *, atomic: bool = False) -> T:
        async with self.pool.acquire() as conn:
            if not atomic:
                return await drive_async(plan, RUNNERS, conn)
            async with conn.transaction():
                return await drive_async(plan, RUNNERS, conn)

    async def fetch(self, statement: str, args: tuple[Any, ...]) -> list[Any]:
        return await self.pool.fetch(dialect.postgres(statement), *args)

    async def execute(self, statement: str, args: tuple[Any, ...]) -> int:
        return _count(await self.pool.execute(dialect.postgres(statement), *args))

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """An advisory lock named ``name`` held on one connection for the block (yields False,
        at once, when another process holds it)."""
        async with self.pool.acquire() as conn:
            got = bool(await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LOCK_NAMED,
                                           name_key(name)))
            try:
                yield got
            finally:
                if got:
                    try:
                        await conn.execute("SELECT pg_advisory_unlock($1, $2)", LOCK_NAMED,
                                           name_key(name))
                    except BaseException:
                        # Never back in the pool holding the lock (pooled connections are
                        # not reset): closing the session frees it.
                        conn.terminate()
                        raise

    # -- maintenance
    async def ping(self) -> None:
        await super().ping()
        if self._listener is not None and self._listener.is_closed() and not self._closed:
            log.warning("the LISTEN connection was lost: reconnecting")
            await self._listen()

    async def integrity_check(self) -> list[str]:
        # PostgreSQL checks its pages itself; what we can check cheaply is that every table
        # reads to the end (amcheck needs superuser rights).
        problems = []
        for table in TABLES:
            try:
                await self.pool.fetchval(sql.count_rows(table))
            except asyncpg.PostgresError as e:
                problems.append(f"{table}: {e}")
        return problems

    # -- copying
    async def table_columns(self, table: str) -> list[str]:
        rows = await self.pool.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = $1 ORDER BY ordinal_position",
            sql.known_table(table))
        return [str(r[0]) for r in rows]

    async def export_rows(self, table: str, columns: Sequence[str],
                          batch: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        async with self.pool.acquire() as conn, conn.transaction():
            cursor = conn.cursor(sql.export_rows(table, columns))
            chunk: list[tuple[Any, ...]] = []
            async for r in cursor:
                chunk.append(tuple(r))
                if len(chunk) >= batch:
                    yield chunk
                    chunk = []
            if chunk:
                yield chunk

    async def import_rows(self, table: str, columns: Sequence[str],
                          rows: Sequence[tuple[Any, ...]]) -> None:
        async with self.pool.acquire() as conn:
            await conn.copy_records_to_table(table, records=rows, columns=list(columns))

    async def after_import(self) -> None:
        for table in ("games", "outbox", "tournaments"):
            await self.pool.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)")


async def _no_reset(_conn: asyncpg.Connection) -> None:
    """The pool's reset: nothing beyond asyncpg's own rollback (see ``PostgresStore.open``)."""


async def hold_slot(url: str, slots: int) -> tuple[int, asyncpg.Connection] | None:
    """Claim a free cluster slot: the first of ``0..slots-1`` whose advisory lock is free.
    The lock lives as long as the returned connection (a process that dies frees its slot)."""
    conn = await asyncpg.connect(url)
    for slot in range(slots):
        if await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LOCK_SLOT, slot):
            return slot, conn
    await conn.close()
    return None


async def wait_for_slot(url: str, slots: int, poll: float = 5.0
                        ) -> tuple[int, asyncpg.Connection]:
    """:func:`hold_slot`, waiting as a standby until one is free."""
    announced = False
    while True:
        got = await hold_slot(url, slots)
        if got is not None:
            return got
        if not announced:
            log.info("every cluster slot (%d) is taken: standing by for a free one", slots)
            announced = True
        await asyncio.sleep(poll)
