"""Persistence: the SQLite file (checks, pragmas, migrations) and every SQL statement of the bot.

Nothing outside this package writes SQL. See :mod:`bot.storage.db` and :mod:`bot.storage.repo`.
"""

from bot.storage.db import Database, StaleWriteError, StorageError, latest_version
from bot.storage.repo import (
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
