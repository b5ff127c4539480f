"""The query service: read-only answers about games and people, and the people's settings.

Games by id, thread or person, a past state replayed from the move log, the move log itself,
stats and the leaderboard, a person's settings and locale. Built on the kernel's public API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.core.challenge import play as challenge
from bot.core.clock import from_ms
from bot.core.kernel import Kernel
from bot.core.models import (
    ErrorCode,
    GameInfo,
    LeaderboardEntry,
    ManagerError,
    UserSettings,
    UserStats,
)
from bot.core.storage import MoveRow
from engine.moves import parse_move
from engine.rules import apply
from engine.setup import new_game
from engine.state import GameState


async def game(k: Kernel, game_id: int, *, fresh: bool = False) -> GameInfo:
    """A game (ManagerError ``unknown_game`` if there is none); ``fresh``: as stored now, not
    as this process last saw it (another process may have moved it on)."""
    return await k.get_game(game_id, fresh=fresh)


async def wait_for(k: Kernel, game_id: int, ready: Callable[[GameInfo], bool],
                   timeout: float) -> GameInfo:
    """The game once ``ready(game)`` holds, or as it stands after ``timeout`` seconds: woken
    by the game's changes (this process's commits, other processes' notifications), never by
    polling (:meth:`bot.core.kernel.Kernel.wait_for`)."""
    return (await k.wait_for(game_id, lambda g: ready(g.info()), timeout)).info()


async def state_at(k: Kernel, game_id: int, ply: int) -> GameState:
    """The state after ``ply`` moves (its ``.ply == ply``), replayed from the move log."""
    g = await k.load(game_id)
    if g.state is None or g.engine_options is None:
        raise ManagerError(ErrorCode.NOT_ALLOWED, "the game has not started")
    if not 0 <= ply <= g.ply:
        raise ManagerError(ErrorCode.NOT_ALLOWED, f"ply is between 0 and {g.ply}")
    state = new_game(k.catalog, g.engine_options, g.state.seed)
    for m in await k.store.moves(game_id, before_ply=ply):
        state, _ = apply(state, parse_move(m.seat, m.move))
    return state


async def moves(k: Kernel, game_id: int) -> list[MoveRow]:
    """The move log (for /calico log and replays)."""
    await k.load(game_id)
    return await k.store.moves(game_id)


async def games_for_user(k: Kernel, user_id: int, active_only: bool = True,
                         limit: int = 25, *, fresh: bool = False) -> list[GameInfo]:
    """Games this person plays (most recently changed first); ``fresh``: each as stored now,
    not as this process last saw it."""
    ids = await k.store.game_ids(user_id=user_id, active_only=active_only, limit=limit)
    return [(await (k.current(i) if fresh else k.load(i))).info() for i in ids]


async def game_for_thread(k: Kernel, thread_id: int) -> GameInfo | None:
    ids = await k.store.game_ids(thread_id=thread_id)
    return None if not ids else (await k.load(ids[0])).info()


async def user_stats(k: Kernel, user_id: int, guild_id: int | None = None,
                     viewer_id: int | None = None) -> UserStats:
    """A person's finished games, wins, average and best (one server, or every server).

    Read by someone else (``viewer_id`` given and not ``user_id``) while a weekly challenge
    week is open, the person's challenge game of that week is left out, so that its score is
    not learnt before the week closes (issue #20); once the week closes, it counts for
    everyone. The person's own stats always include it: they know their score."""
    scope = guild_id or 0
    row = await k.store.totals(user_id, scope)
    if row is None:
        return UserStats(user_id, 0, 0, None, None)
    hidden = None
    if viewer_id is not None and viewer_id != user_id:
        hidden = await challenge.hidden_result(k, user_id, scope)
    if hidden is None:
        return UserStats(user_id, row.games, row.wins, row.average, row.best)
    games = row.games - 1
    if games <= 0:
        return UserStats(user_id, 0, 0, None, None)
    best = await k.store.best_without(user_id, scope, hidden.game_id)
    return UserStats(user_id, games, row.wins - int(hidden.win),
                     (row.score_sum - hidden.total) / games, best)


async def leaderboard(k: Kernel, guild_id: int, limit: int = 10,
                      min_games: int = 1) -> list[LeaderboardEntry]:
    rows = await k.store.leaderboard(guild_id, limit, min_games)
    return [LeaderboardEntry(r.user_id, r.name, r.games, r.wins, r.average, r.best)
            for r in rows]


async def get_settings(k: Kernel, user_id: int) -> UserSettings:
    u = await k.user(user_id)
    return UserSettings(user_id, u.reminders,
                        None if u.dm_closed_at is None else from_ms(u.dm_closed_at),
                        describe=u.describe)


async def user_locale(k: Kernel, user_id: int, default: str = "en-US") -> str:
    """The Discord locale stored with this person (from their last lobby, join or game
    start), else ``default``: the language of their DMs."""
    return (await k.user(user_id)).locale or default


async def set_settings(k: Kernel, user_id: int, reminders: bool | None = None,
                       describe: bool | None = None) -> UserSettings:
    cols: dict[str, Any] = {}
    if reminders is not None:
        cols["reminders"] = int(reminders)
    if describe is not None:
        cols["describe"] = int(describe)
    k.users.keep(await k.store.set_user(user_id, **cols))
    return await get_settings(k, user_id)
