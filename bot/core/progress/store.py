"""Achievements and ratings as stored: their rows, statements and the steps a game's end adds
to its own transaction, on the storage's small generic contract
(:class:`~bot.core.storage.Database`).

Both are written with the result that earns them (:func:`add_achievements` and
:func:`apply_ratings` are :data:`~bot.core.storage.GameStep` s), so a crash never keeps one
without the other and nothing is counted twice. Ratings are read and written inside that
transaction with their rows locked: concurrent games never lose an update.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.core.progress.model import AchievementRow, RatingRow
from bot.core.storage import Database, GameStep
from bot.core.storage.sql import prefixed
from bot.core.storage.steps import Plan, Rollback, Row, execute, execute_many, fetch_one, lock

RatingKey = tuple[int, str]  # (scope, player)


@dataclass(slots=True)
class RatingUpdate:
    """Ratings to change with a result, in the same transaction: the step reads ``keys``
    (locked against other processes), calls ``rate`` with what it found (None: unrated yet)
    and writes back what it returns."""

    keys: list[RatingKey]
    rate: Callable[[dict[RatingKey, RatingRow | None]], list[RatingRow]]


# --------------------------------------------------------------------------- statements

ACHIEVEMENT_FIELDS = "user_id, achievement, game_id, guild_id, earned_at"
RATING_FIELDS = "scope, player, mu, sigma, ordinal, games, updated_at"
ACHIEVEMENTS = (f"SELECT {ACHIEVEMENT_FIELDS} FROM achievements "
                "WHERE user_id = ? ORDER BY earned_at, achievement")
INSERT_ACHIEVEMENT = (
    f"INSERT INTO achievements ({ACHIEVEMENT_FIELDS}) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (user_id, achievement) DO NOTHING")
SWAP_DELETE = ("DELETE FROM achievements WHERE user_id = ? AND achievement = ? AND game_id = ? "
               "RETURNING guild_id")
RATING = f"SELECT {RATING_FIELDS} FROM ratings WHERE scope = ? AND player = ?"
ORDINALS = "SELECT player, ordinal FROM ratings WHERE scope = ?"
# Locked to the end of the transaction: two games rating one player apply in turn.
RATING_FOR_UPDATE = RATING + " FOR UPDATE"
UPSERT_RATING = (
    f"INSERT INTO ratings ({RATING_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (scope, player) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
    "ordinal = excluded.ordinal, games = excluded.games, updated_at = excluded.updated_at")
# A person's rating row names them "u:<id>": the user is found by that id (an index lookup),
# computer levels ("ai:<level>") find no user.
RATING_USER = "CASE WHEN r.player LIKE 'u:%' THEN CAST(substr(r.player, 3) AS BIGINT) END"
RATING_BOARD = (
    f"SELECT {prefixed('r', RATING_FIELDS)}, coalesce(u.name, '') "
    f"FROM ratings r LEFT JOIN users u ON u.user_id = {RATING_USER} "
    "WHERE r.scope = ? AND r.games >= ? ORDER BY r.ordinal DESC, r.player LIMIT ?")
# (players ranked, players ranked above this one, whether this one is ranked)
RATING_RANK = (
    "SELECT count(*), coalesce(sum(CASE WHEN o.ordinal > me.ordinal OR (o.ordinal = me.ordinal "
    "AND o.player < me.player) THEN 1 ELSE 0 END), 0), "
    "coalesce(max(CASE WHEN me.games >= ? THEN 1 ELSE 0 END), 0) "
    "FROM ratings o LEFT JOIN ratings me ON me.scope = o.scope AND me.player = ? "
    "WHERE o.scope = ? AND o.games >= ?")


def rating_row(r: Row) -> RatingRow:
    return RatingRow(r[0], r[1], float(r[2]), float(r[3]), float(r[4]), r[5], r[6])


# --------------------------------------------------------------------------- game steps


def add_achievements(rows: Sequence[AchievementRow]) -> GameStep:
    """The achievements a game earned (each kept only if new), stored with its result."""
    def step(_game_id: int) -> Plan[None]:
        yield from execute_many(INSERT_ACHIEVEMENT, [
            (a.user_id, a.achievement, a.game_id, a.guild_id, a.earned_at) for a in rows])

    return step


def apply_ratings(update: RatingUpdate) -> GameStep:
    """Read the ratings ``update`` needs, locked, and write back what it makes of them, in
    the transaction of the result."""
    def step(_game_id: int) -> Plan[None]:
        before: dict[RatingKey, RatingRow | None] = {}
        # Sorted, so that two processes rating overlapping players lock in one order. A row
        # that does not exist yet cannot be locked: a lock on its key keeps a second game
        # from rating the same new player at once.
        for scope, player in sorted(update.keys):
            yield from lock(f"{scope}:{player}")
            r = yield from fetch_one(RATING_FOR_UPDATE, scope, player)
            before[(scope, player)] = None if r is None else rating_row(r)
        yield from execute_many(UPSERT_RATING, [
            (r.scope, r.player, r.mu, r.sigma, r.ordinal, r.games, r.updated_at)
            for r in update.rate(before)])

    return step


def _swap_plan(user_id: int, game_id: int, old: str, new: str, now: int) -> Plan[bool]:
    row = yield from fetch_one(SWAP_DELETE, user_id, old, game_id)
    if row is None:
        return False
    if (yield from execute(INSERT_ACHIEVEMENT, user_id, new, game_id, row[0], now)) != 1:
        raise Rollback(False)  # the new one is already held: keep the old one
    return True


# --------------------------------------------------------------------------- reads and writes


async def achievements(db: Database, user_id: int) -> list[AchievementRow]:
    """A person's achievements, oldest first."""
    return [AchievementRow(*r) for r in await db.fetch(ACHIEVEMENTS, (user_id,))]


async def swap_achievement(db: Database, user_id: int, game_id: int, old: str, new: str,
                           now: int) -> bool:
    """Replace the achievement ``old`` that game ``game_id`` earned this person with ``new``
    (a normal-game winner picking another row), in one transaction. False, and nothing
    changed, when ``old`` is no longer that game's or ``new`` is already held."""
    return await db.transact(_swap_plan(user_id, game_id, old, new, now))


async def rating(db: Database, scope: int, player: str) -> RatingRow | None:
    rows = await db.fetch(RATING, (scope, player))
    return rating_row(rows[0]) if rows else None


async def ordinals(db: Database, scope: int) -> dict[str, float]:
    """Every rated player of a scope and their ordinal (a tournament's pairing reads them all
    at once)."""
    return {str(r[0]): float(r[1]) for r in await db.fetch(ORDINALS, (scope,))}


async def rating_board(db: Database, scope: int, limit: int,
                       min_games: int) -> list[tuple[RatingRow, str]]:
    """The best ``limit`` players of a scope with at least ``min_games`` rated games, by
    ordinal, each with their name (people's from the users table)."""
    rows = await db.fetch(RATING_BOARD, (scope, min_games, limit))
    return [(rating_row(r), str(r[7])) for r in rows]


async def rating_rank(db: Database, scope: int, player: str,
                      min_games: int) -> tuple[int | None, int]:
    """(rank, players ranked): the players of the scope with at least ``min_games`` rated
    games, and the place of ``player`` among them in :func:`rating_board` order (None when
    they are not among them)."""
    r = (await db.fetch(RATING_RANK, (min_games, player, scope, min_games)))[0]
    ranked, above, mine = int(r[0]), int(r[1]), int(r[2])
    return (above + 1 if mine else None), ranked
