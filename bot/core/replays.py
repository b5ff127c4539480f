"""A finished game, looked back at (issue #12): its public views for the replay GIF, and its
record as a file for the people who played it. Discord-free.

Secrets: a game's seed decides its bag, so it is used here only to rebuild the game
(:func:`engine.serialize.replay_views` turns it into public views at once) and never leaves
this module: the record holds the options, each quilt in the scorer's format and the move
list, never the seed nor the bag order. A weekly challenge game is shown only once its week
has closed (others are still playing the same tiles).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.core.challenge import play as challenge
from bot.core.challenge.model import NOT_YET
from bot.core.clock import from_ms
from bot.core.kernel import Kernel
from bot.core.models import ErrorCode, GameInfo, GameStatus, ManagerError
from engine.moves import parse_move
from engine.quilt_record import quilt_record
from engine.scoring import breakdown, rank
from engine.serialize import game_record, replay_views
from engine.views import PublicView

RECORD_SCHEMA = 1


def played_in(game: GameInfo, user_id: int) -> bool:
    """Whether this person had a seat in the game (also if a computer finished it)."""
    return any(s.user_id == user_id for s in game.seats)


async def _checked(kernel: Kernel, game_id: int) -> GameInfo:
    game = await kernel.get_game(game_id)
    if game.status is not GameStatus.OVER or game.state is None:
        raise ManagerError("not_finished", f"game {game_id} is not finished")
    if not await challenge.may_show(kernel, game):
        raise ManagerError(NOT_YET, "the week's challenge is still open")
    return game


@dataclass(frozen=True, slots=True)
class Replay:
    game: GameInfo
    views: list[PublicView]  # the start of play, then one per placement (the last: the end)


async def replay(kernel: Kernel, game_id: int) -> Replay:
    """The public views of a finished game, start to end (ManagerError ``not_finished``,
    ``challenge_not_yet``)."""
    game = await _checked(kernel, game_id)
    g = await kernel.load(game_id)
    assert g.engine_options is not None and g.state is not None
    moves = await kernel.store.moves(game_id)
    record = game_record(g.engine_options, g.state.seed,
                         [parse_move(m.seat, m.move) for m in moves])
    return Replay(game, replay_views(kernel.catalog, record))


async def record(kernel: Kernel, game_id: int, user_id: int) -> dict[str, Any]:
    """The game's record for someone who played it (``not_a_player`` otherwise): options,
    players with places and score breakdowns, each quilt as a quilt record (the scorer's
    format: ``python -m engine score`` reads it), and the move list. No seed, no bag."""
    game = await _checked(kernel, game_id)
    if not played_in(game, user_id):
        raise ManagerError(ErrorCode.NOT_A_PLAYER, "only its players get a game's record")
    g = await kernel.load(game_id)
    assert g.engine_options is not None and g.state is not None
    state = g.state
    scores = [breakdown(state.config, s) for s in state.seats]
    places, winners, decided = rank(scores)
    moves = await kernel.store.moves(game_id)
    return {
        "schema": RECORD_SCHEMA,
        "game": game.id,
        "finished_at": game.updated_at.isoformat(),
        "started_at": from_ms(g.created_at).isoformat(),
        "options": g.engine_options.model_dump(mode="json"),
        "challenge_week": game.challenge_week,
        "players": [
            {"seat": s.seat, "name": s.name, "user_id": s.user_id,
             "computer": s.ai_level if not s.left else None,
             "finished_by_computer": s.left, "place": places[s.seat],
             "winner": s.seat in winners, "score": scores[s.seat]}
            for s in game.seats],
        "decided_by": decided,
        "quilts": [quilt_record(state, i) for i in range(len(state.seats))],
        "moves": [{"ply": m.ply, "seat": m.seat, "move": m.move, "by": m.played_by}
                  for m in moves],
    }
