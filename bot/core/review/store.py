"""Computed reviews as stored, once per seat, on the storage's small generic contract
(:class:`~bot.core.storage.Database`): the first review stored wins, also across processes."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.storage import Database
from bot.core.storage.steps import Plan, Row, execute, fetch_one


@dataclass(frozen=True, slots=True)
class ReviewRow:
    game_id: int
    seat: int
    user_id: int | None
    accuracy: float
    data: str
    created_at: int


FIELDS = "game_id, seat, user_id, accuracy, data, created_at"
INSERT = (f"INSERT INTO reviews ({FIELDS}) VALUES (?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (game_id, seat) DO NOTHING")
ONE = f"SELECT {FIELDS} FROM reviews WHERE game_id = ? AND seat = ?"
ACCURACY = ("SELECT count(*), avg(r.accuracy) FROM reviews r JOIN games g "
            "ON g.id = r.game_id WHERE r.user_id = ? AND (g.flags & ?) = 0")


def review_row(r: Row) -> ReviewRow:
    return ReviewRow(r[0], r[1], r[2], float(r[3]), r[4], r[5])


def _save_plan(r: ReviewRow) -> Plan[ReviewRow]:
    yield from execute(INSERT, r.game_id, r.seat, r.user_id, r.accuracy, r.data, r.created_at)
    row = yield from fetch_one(ONE, r.game_id, r.seat)
    assert row is not None
    return review_row(row)


async def review(db: Database, game_id: int, seat: int) -> ReviewRow | None:
    rows = await db.fetch(ONE, (game_id, seat))
    return review_row(rows[0]) if rows else None


async def save(db: Database, row: ReviewRow) -> ReviewRow:
    """Keep a computed review (the first one stored wins; returns the stored one)."""
    return await db.transact(_save_plan(row))


async def accuracy(db: Database, user_id: int, without_flags: int = 0) -> tuple[int, float | None]:
    """(reviewed games, mean accuracy) of a person, leaving out the games whose flags have any
    of ``without_flags``."""
    count, average = (await db.fetch(ACCURACY, (user_id, without_flags)))[0]
    return int(count), None if average is None else float(average)
