"""The weekly challenge's own storage: its rows, statements and transactions, on the storage's
small generic contract (:class:`~bot.core.storage.Database`).

One row a week (the deal: seed and options), one entry a person and week. A person's entry is
written in the transaction that creates their game (:func:`enter`, a
:data:`~bot.core.storage.GameStep`: a second attempt undoes the whole creation with
:class:`DuplicateEntryError`), and their score in the transaction that ends it (:func:`score`).
A week is closed once across processes, with its summaries queued in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.challenge.model import ChallengeRow, EntryRow
from bot.core.storage import Database, GameStep, NoticeDraft, StorageError
from bot.core.storage.plans import queue_notices
from bot.core.storage.sql import prefixed
from bot.core.storage.steps import ConflictError, Plan, Row, execute, fetch_one


class DuplicateEntryError(StorageError):
    """This person already has an attempt at this week's challenge (nothing was written)."""


# --------------------------------------------------------------------------- statements

FIELDS = "week, seed, options, starts_at, ends_at, closed_at"
ENTRY_FIELDS = "week, user_id, game_id, guild_id, score, finished_at"
INSERT = (f"INSERT INTO challenges ({FIELDS}) VALUES (?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (week) DO NOTHING")
ONE = f"SELECT {FIELDS} FROM challenges WHERE week = ?"
TO_CLOSE = (f"SELECT {FIELDS} FROM challenges WHERE closed_at IS NULL AND ends_at <= ? "
            "ORDER BY ends_at")
CLOSE = "UPDATE challenges SET closed_at = ? WHERE week = ? AND closed_at IS NULL"
ENTRY = f"SELECT {ENTRY_FIELDS} FROM challenge_entries WHERE week = ? AND user_id = ?"
INSERT_ENTRY = (f"INSERT INTO challenge_entries ({ENTRY_FIELDS}) "
                "VALUES (?, ?, ?, ?, NULL, NULL)")
SCORE_ENTRY = ("UPDATE challenge_entries SET score = ?, finished_at = ? "
               "WHERE week = ? AND user_id = ? AND score IS NULL")
GUILDS = (
    "SELECT guild_id, count(*) FROM challenge_entries WHERE week = ? AND score IS NOT NULL "
    "GROUP BY guild_id ORDER BY guild_id")


def board_query(week: str, guild_id: int | None, limit: int) -> tuple[str, tuple[Any, ...]]:
    """Finished attempts of a week, best first, in one server (or everywhere)."""
    guild = "" if guild_id is None else " AND e.guild_id = ?"
    args = (week, limit) if guild_id is None else (week, guild_id, limit)
    return (f"SELECT {prefixed('e', ENTRY_FIELDS)}, coalesce(u.name, '') "
            "FROM challenge_entries e LEFT JOIN users u ON u.user_id = e.user_id "
            f"WHERE e.week = ? AND e.score IS NOT NULL{guild} "
            "ORDER BY e.score DESC, e.finished_at, e.user_id LIMIT ?"), args


def rank_query(week: str, guild_id: int | None, score: int) -> tuple[str, tuple[Any, ...]]:
    """(better scores, finished attempts) of a week, in one server (or everywhere)."""
    guild = "" if guild_id is None else " AND guild_id = ?"
    args = (score, week) if guild_id is None else (score, week, guild_id)
    return ("SELECT count(*) FILTER (WHERE score > ?), count(*) FROM challenge_entries "
            f"WHERE week = ? AND score IS NOT NULL{guild}"), args


def challenge_row(r: Row) -> ChallengeRow:
    return ChallengeRow(r[0], r[1], r[2], r[3], r[4], r[5])


def entry_row(r: Row) -> EntryRow:
    return EntryRow(r[0], r[1], r[2], r[3], r[4], r[5])


# --------------------------------------------------------------------------- game steps


def enter(week: str, user_id: int, guild_id: int) -> GameStep:
    """The person's attempt, stored with their new game (DuplicateEntryError, and no game,
    when they have one this week)."""
    def step(game_id: int) -> Plan[None]:
        try:
            yield from execute(INSERT_ENTRY, week, user_id, game_id, guild_id)
        except ConflictError:
            raise DuplicateEntryError(f"{user_id} already played {week}") from None

    return step


def score(week: str, user_id: int, points: int, now: int) -> GameStep:
    """The attempt's score, stored with the game's end."""
    def step(_game_id: int) -> Plan[None]:
        yield from execute(SCORE_ENTRY, points, now, week, user_id)

    return step


# --------------------------------------------------------------------------- transactions


def _ensure_plan(c: ChallengeRow) -> Plan[ChallengeRow]:
    yield from execute(INSERT, c.week, c.seed, c.options, c.starts_at, c.ends_at, c.closed_at)
    r = yield from fetch_one(ONE, c.week)
    assert r is not None
    return challenge_row(r)


def _close_plan(week: str, now: int, notices: Sequence[NoticeDraft]) -> Plan[bool]:
    if (yield from execute(CLOSE, now, week)) != 1:
        return False
    yield from queue_notices(notices, now)
    return True


# --------------------------------------------------------------------------- reads and writes


async def ensure(db: Database, row: ChallengeRow) -> ChallengeRow:
    """The week's challenge: ``row`` if none existed, else the stored one (so processes
    racing to create it agree on one deal)."""
    return await db.transact(_ensure_plan(row))


async def challenge(db: Database, week: str) -> ChallengeRow | None:
    rows = await db.fetch(ONE, (week,))
    return challenge_row(rows[0]) if rows else None


async def entry(db: Database, week: str, user_id: int) -> EntryRow | None:
    rows = await db.fetch(ENTRY, (week, user_id))
    return entry_row(rows[0]) if rows else None


async def board(db: Database, week: str, guild_id: int | None,
                limit: int) -> list[tuple[EntryRow, str]]:
    """Finished attempts of the week, best score first (in one server, or everywhere)."""
    statement, args = board_query(week, guild_id, limit)
    return [(entry_row(r), str(r[6])) for r in await db.fetch(statement, args)]


async def rank(db: Database, week: str, guild_id: int | None, points: int) -> tuple[int, int]:
    """(rank of ``points``, finished attempts) in the week's board (one server, or
    everywhere): the rank is one more than the number of better scores."""
    statement, args = rank_query(week, guild_id, points)
    better, total = (await db.fetch(statement, args))[0]
    return int(better) + 1, int(total)


async def guilds(db: Database, week: str) -> dict[int, int]:
    """Finished attempts of the week by server."""
    return {int(g): int(n) for g, n in await db.fetch(GUILDS, (week,))}


async def to_close(db: Database, now: int) -> list[ChallengeRow]:
    return [challenge_row(r) for r in await db.fetch(TO_CLOSE, (now,))]


async def close(db: Database, week: str, now: int, notices: Sequence[NoticeDraft]) -> bool:
    """Close the week once (False if it was closed already, by anyone) and queue its
    summaries in the same transaction."""
    closed = await db.transact(_close_plan(week, now, notices))
    if closed and notices:
        db.notices_added.set()
    return closed
