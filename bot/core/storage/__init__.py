"""Persistence: one storage contract in roles (:mod:`bot.core.storage.base`), one SQL
(:mod:`bot.core.storage.sql`, run by :mod:`bot.core.storage.sqlstore`), two backends.

- SQLite (:mod:`bot.core.storage.sqlite`): the embedded default, a file in the working
  directory, nothing to install, one bot process.
- PostgreSQL (:mod:`bot.core.storage.postgres`): several bot processes sharing the games.

:func:`open_store` picks one from the ``CALICO_DB`` setting: a ``postgresql://`` URL, or a path.
Nothing outside this package writes SQL.
"""

from __future__ import annotations

from pathlib import Path

from bot.core.storage.base import (
    THREAD,
    Database,
    GameRow,
    GameStep,
    GameStore,
    GameWrite,
    Lane,
    MaintenanceStore,
    MoveRow,
    NewGame,
    NoticeDraft,
    NoticeStatus,
    OutboxStats,
    OutboxStore,
    PlayerStore,
    ResultRow,
    SeatRow,
    ServerStore,
    StaleWriteError,
    StorageError,
    Store,
    TimerRow,
    TimerStore,
    TotalsRow,
    UserRow,
)

__all__ = [
    "THREAD",
    "Database",
    "GameRow",
    "GameStep",
    "GameStore",
    "GameWrite",
    "Lane",
    "MaintenanceStore",
    "MoveRow",
    "NewGame",
    "NoticeDraft",
    "NoticeStatus",
    "OutboxStats",
    "OutboxStore",
    "PlayerStore",
    "ResultRow",
    "SeatRow",
    "ServerStore",
    "StaleWriteError",
    "StorageError",
    "Store",
    "TimerRow",
    "TimerStore",
    "TotalsRow",
    "UserRow",
    "is_postgres",
    "open_store",
    "require_postgres_driver",
]


def is_postgres(location: str | Path) -> bool:
    return str(location).startswith(("postgresql://", "postgres://"))


POSTGRES_EXTRA = "pip install 'calico-bot[postgres]'"


def require_postgres_driver() -> None:
    """Raise :class:`StorageError` saying how to install it when the PostgreSQL driver is
    missing: asyncpg is an optional extra (``calico-bot[postgres]``), so a SQLite-only host
    never installs it, and a host that points ``CALICO_DB`` at PostgreSQL without it is told
    what to do in one line rather than shown an import traceback."""
    try:
        import asyncpg  # noqa: F401
    except ModuleNotFoundError as e:
        raise StorageError(
            f"CALICO_DB is a PostgreSQL URL but its driver (asyncpg) is not installed: "
            f"{POSTGRES_EXTRA}") from e


async def open_store(location: str | Path, *, exclusive: bool = True) -> Store:
    """The store at ``location``: a PostgreSQL URL, or a SQLite file path (created and migrated
    when needed). ``exclusive`` (SQLite): take the one-process lock, as the bot does."""
    if is_postgres(location):
        require_postgres_driver()
        from bot.core.storage.postgres.store import PostgresStore

        return await PostgresStore.open(str(location))
    from bot.core.storage.sqlite.store import SqliteStore

    return await SqliteStore.open(location, exclusive=exclusive)
