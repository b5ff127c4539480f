"""Persistence: the SQLite file (checks, pragmas, migrations) and every SQL statement of the bot.

Nothing outside this package writes SQL. See :mod:`bot.core.storage.db` and
:mod:`bot.core.storage.repo`."""

from bot.core.storage.db import Database, StaleWriteError, StorageError, latest_version
from bot.core.storage.repo import (
    GameRow,
    GameWrite,
    MoveRow,
    NewGame,
    NoticeDraft,
    ResultRow,
    SeatRow,
    Store,
    TimerRow,
    UserRow,
)

__all__ = [
    "Database",
    "GameRow",
    "GameWrite",
    "MoveRow",
    "NewGame",
    "NoticeDraft",
    "ResultRow",
    "SeatRow",
    "StaleWriteError",
    "StorageError",
    "Store",
    "TimerRow",
    "UserRow",
    "latest_version",
]
