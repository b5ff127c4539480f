"""The web site's storage: who hid their name (``site_hidden``), ratings after each rated game
(``rating_history``, one row per scope, player and game, written in the game's own transaction
right after the ratings), and the reads the pages need."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.site.model import RatingPoint, RecentGame
from bot.core.storage import Database, GameStep
from bot.core.storage.steps import Plan, execute

# Copies the rating rows this very game moved (their updated_at is the game's end), so a game
# that was not rated (a hint taken) adds no point.
KEEP_RATINGS = (
    "INSERT INTO rating_history (scope, player, game_id, ordinal, at) "
    "SELECT scope, player, ?, ordinal, updated_at FROM ratings "
    "WHERE scope = ? AND player = ? AND updated_at = ? "
    "ON CONFLICT (scope, player, game_id) DO NOTHING")
HISTORY = ("SELECT game_id, at, ordinal FROM rating_history WHERE scope = ? AND player = ? "
           "ORDER BY at, game_id")
HIDDEN = "SELECT user_id FROM site_hidden"
HIDE = "INSERT INTO site_hidden (user_id, hidden_at) VALUES (?, ?) ON CONFLICT DO NOTHING"
SHOW = "DELETE FROM site_hidden WHERE user_id = ?"
RECENT = ("SELECT id, status, updated_at, version FROM games WHERE guild_id = ? AND status = ? "
          "ORDER BY updated_at DESC, id DESC LIMIT ?")


def keep_ratings(keys: Sequence[tuple[int, str]], now: int) -> GameStep:
    """A step after the ratings' own: each (scope, player) rating this game moved, kept."""
    def step(game_id: int) -> Plan[None]:
        for scope, player in keys:
            yield from execute(KEEP_RATINGS, game_id, scope, player, now)

    return step


async def history(db: Database, scope: int, player: str) -> list[RatingPoint]:
    rows = await db.fetch(HISTORY, (scope, player))
    return [RatingPoint(int(r[0]), int(r[1]), float(r[2])) for r in rows]


async def hidden(db: Database, user_ids: Sequence[int]) -> set[int]:
    if not user_ids:
        return set()
    marks = ", ".join("?" for _ in user_ids)
    rows = await db.fetch(f"{HIDDEN} WHERE user_id IN ({marks})", tuple(user_ids))
    return {int(r[0]) for r in rows}


async def set_hidden(db: Database, user_id: int, hide: bool, now: int) -> None:
    if hide:
        await db.execute(HIDE, (user_id, now))
    else:
        await db.execute(SHOW, (user_id,))


async def recent(db: Database, guild_id: int, status: str, limit: int) -> list[RecentGame]:
    rows = await db.fetch(RECENT, (guild_id, status, limit))
    return [RecentGame(int(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]
