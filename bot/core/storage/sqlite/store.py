"""The SQLite :class:`~bot.core.storage.base.Store`: the shared SQL (:mod:`bot.core.storage.sql`,
:mod:`bot.core.storage.plans`) run on the writer thread, a whole plan in one hop (see
:class:`~bot.core.storage.sqlite.db.Database`).

One process owns the file (the lock in ``db.py``), so claims and leases are kept exactly as on
PostgreSQL (the same rows, the same statements) but never contended; the same test suites run
against both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bot.core.storage import dialect, sql
from bot.core.storage.sqlite.db import Database, integrity_problems, transaction
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
    drive,
)

T = TypeVar("T")

_UNIQUE = frozenset({"SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"})


def _unique(e: sqlite3.IntegrityError) -> BaseException:
    """A unique constraint's refusal as the plans know it; any other integrity error as is."""
    if getattr(e, "sqlite_errorname", "") not in _UNIQUE:
        return e
    conflict = ConflictError(str(e))
    conflict.__cause__ = e
    return conflict


def _execute(conn: sqlite3.Connection, step: Execute) -> int:
    try:
        return conn.execute(dialect.sqlite(step.sql), step.args).rowcount
    except sqlite3.IntegrityError as e:
        raise _unique(e)  # noqa: B904 - chained in _unique


def _fetch(conn: sqlite3.Connection, step: Fetch) -> list[Any]:
    try:
        return conn.execute(dialect.sqlite(step.sql), step.args).fetchall()
    except sqlite3.IntegrityError as e:
        raise _unique(e)  # noqa: B904 - chained in _unique


def _execute_many(conn: sqlite3.Connection, step: ExecuteMany) -> None:
    try:
        conn.executemany(dialect.sqlite(step.sql), step.rows)
    except sqlite3.IntegrityError as e:
        raise _unique(e)  # noqa: B904 - chained in _unique


def _insert(conn: sqlite3.Connection, step: Insert) -> int:
    before = conn.total_changes
    try:
        conn.executemany(dialect.sqlite_batch(step.batch), step.rows)
    except sqlite3.IntegrityError as e:
        raise _unique(e)  # noqa: B904 - chained in _unique
    return conn.total_changes - before


def _claim(conn: sqlite3.Connection, step: Claim) -> list[Any]:
    if not conn.in_transaction:
        return _claim_atomic(conn, step)
    return _claim_rows(conn, step)


def _claim_rows(conn: sqlite3.Connection, step: Claim) -> list[Any]:
    rows = conn.execute(dialect.sqlite(dialect.claim_pick(step)), step.where_args).fetchall()
    keys = len(step.keys)
    conn.executemany(dialect.claim_lease(step), [(*step.set_args, *r[:keys]) for r in rows])
    return rows


_claim_atomic = transaction(_claim_rows)


def _nothing(_conn: sqlite3.Connection, _step: Notify | Lock) -> None:
    """Notifications and transaction locks: one process, its writers serialized by the file."""


RUNNERS: Runners[sqlite3.Connection] = {
    Execute: _execute, Fetch: _fetch, ExecuteMany: _execute_many, Insert: _insert,
    Claim: _claim, Notify: _nothing, Lock: _nothing,
}


def _run(conn: sqlite3.Connection, plan: Plan[T]) -> T:
    return drive(plan, RUNNERS, conn)


_run_atomic = transaction(_run)


def _fetch_rows(conn: sqlite3.Connection, statement: str, args: tuple[Any, ...]) -> list[Any]:
    return conn.execute(dialect.sqlite(statement), args).fetchall()


def _execute_one(conn: sqlite3.Connection, statement: str, args: tuple[Any, ...]) -> int:
    return conn.execute(dialect.sqlite(statement), args).rowcount


def _pragma(conn: sqlite3.Connection, statement: str) -> None:
    conn.execute(statement)


def _incremental_vacuum(conn: sqlite3.Connection, pages: int) -> int:
    """Free up to ``pages`` pages; returns how many were free before. The pragma frees one page
    per step of its statement, and ``execute`` steps a statement without result columns only
    once (one page freed, whatever the count): ``executescript`` steps it to the end."""
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    conn.executescript(f"PRAGMA incremental_vacuum({int(pages)});")
    return free


@transaction
def _insert_many(conn: sqlite3.Connection, statement: str,
                 rows: Sequence[tuple[Any, ...]]) -> None:
    conn.executemany(statement, rows)


class SqliteStore(SqlStore):
    """The embedded default: one file, one process (see the module docstring)."""

    backend = "sqlite"

    def __init__(self, db: Database) -> None:
        super().__init__()
        self.db = db

    @classmethod
    async def open(cls, path: str | Path, *, exclusive: bool = True) -> SqliteStore:
        return cls(await Database.open(path, exclusive=exclusive))

    async def run(self, plan: Plan[T], *, atomic: bool = False) -> T:
        return await self.db.run(_run_atomic if atomic else _run, plan)

    async def fetch(self, statement: str, args: tuple[Any, ...]) -> list[Any]:
        return await self.db.run(_fetch_rows, statement, args)

    async def execute(self, statement: str, args: tuple[Any, ...]) -> int:
        return await self.db.run(_execute_one, statement, args)

    @property
    def location(self) -> str:
        return self.db.path

    @property
    def path(self) -> str:
        return self.db.path

    @property
    def schema_version(self) -> int:
        return self.db.version

    async def close(self) -> None:
        await self.db.close()

    async def after_prune(self) -> None:
        # Hand the pages freed by pruning back to the file system, a bounded amount at a time.
        await self.db.run(_incremental_vacuum, 2000)

    # -- maintenance
    async def integrity_check(self) -> list[str]:
        return await self.db.run(integrity_problems)

    async def checkpoint(self) -> None:
        """Fold the WAL into the main file (tools and benchmarks measuring the file size)."""
        await self.db.run(_pragma, "PRAGMA wal_checkpoint(TRUNCATE)")

    async def vacuum(self) -> None:
        """Rebuild the file without its free pages (maintenance; blocks writes meanwhile)."""
        await self.db.run(_pragma, "VACUUM")
        await self.checkpoint()

    # -- copying
    async def table_columns(self, table: str) -> list[str]:
        rows = await self._rows(f"PRAGMA table_info({sql.known_table(table)})")
        return [str(r[1]) for r in rows]

    async def export_rows(self, table: str, columns: Sequence[str],
                          batch: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        statement = sql.export_rows(table, columns) + " LIMIT ? OFFSET ?"
        offset = 0
        while True:
            rows = [tuple(r) for r in await self._rows(statement, batch, offset)]
            if not rows:
                return
            yield rows
            offset += len(rows)

    async def import_rows(self, table: str, columns: Sequence[str],
                          rows: Sequence[tuple[Any, ...]]) -> None:
        await self.db.run(_insert_many, sql.import_rows(table, columns), rows)
