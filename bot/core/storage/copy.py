"""``calico-bot migrate-db FROM TO``: copy every row of one database into another (SQLite to
PostgreSQL when a server outgrows one process, or back), then check the row counts.

The target must be empty (a new file, or a database with no tables): it is created at the
current schema version first, like any fresh database; an older source is migrated to that
version first (as the bot does at start), and otherwise only read. Tables are copied parents
first, in batches, columns matched by name. Run it while the bot is stopped: a copy of a moving
database would miss what changes meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.storage import StorageError, open_store
from bot.core.storage.base import TABLES


async def copy_database(source: str, target: str,
                        progress: Callable[[str], object] | None = None
                        ) -> dict[str, tuple[int, int]]:
    """Copy ``source`` into ``target``; returns, per table, (rows copied, rows in target)."""
    say = progress or (lambda _: None)
    src = await open_store(source, exclusive=False)
    try:
        dst = await open_store(target)
        try:
            for table in TABLES:
                if await dst.count_rows(table):
                    raise StorageError(f"the target already holds {table} rows: it must be "
                                       "an empty database")
            report: dict[str, tuple[int, int]] = {}
            for table in TABLES:
                wanted = await src.table_columns(table)
                have = set(await dst.table_columns(table))
                missing = [c for c in wanted if c not in have]
                if missing:
                    raise StorageError(f"{table}: the target lacks columns {missing} (are "
                                       "both at the same schema version?)")
                copied = 0
                async for rows in src.export_rows(table, wanted):
                    await dst.import_rows(table, wanted, rows)
                    copied += len(rows)
                counted = await dst.count_rows(table)
                expected = await src.count_rows(table)
                if counted != expected or copied != expected:
                    raise StorageError(f"{table}: {expected} rows in the source, {copied} "
                                       f"copied, {counted} in the target")
                report[table] = (copied, counted)
                say(f"{table}: {copied} rows")
            await dst.after_import()
            return report
        finally:
            await dst.close()
    finally:
        await src.close()
