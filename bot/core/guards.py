"""The checks a change makes before it touches a game: is it in its lobby, started, is this
the host, a player, their turn at the ply the button was made for. Each raises the
:class:`~bot.core.models.ManagerError` whose stable code the adapter words."""

from __future__ import annotations

from bot.core.game import LiveGame
from bot.core.models import AI_LEVELS, ErrorCode, GameStatus, ManagerError
from bot.core.storage import SeatRow
from engine.ai import LEVELS
from engine.state import GameState


def require_lobby(g: LiveGame) -> None:
    if g.status is GameStatus.LOBBY:
        return
    if g.status.active:
        raise ManagerError(ErrorCode.LOBBY_ONLY, "the game has already started")
    raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")


def require_host(g: LiveGame, user_id: int) -> None:
    if g.host_id != user_id:
        raise ManagerError(ErrorCode.HOST_ONLY, "only the host can do that")


def require_started(g: LiveGame) -> GameState:
    if g.status is GameStatus.LOBBY:
        raise ManagerError(ErrorCode.NOT_ALLOWED, "the game has not started yet")
    if not g.status.active or g.state is None:
        raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
    return g.state


def require_person(g: LiveGame, user_id: int) -> SeatRow:
    seat = g.person(user_id)
    if seat is None:
        raise ManagerError(ErrorCode.NOT_A_PLAYER, "you are not playing in this game")
    return seat


def require_turn(g: LiveGame, user_id: int, ply: int) -> tuple[GameState, int]:
    """The state and the seat of a person acting on their turn from a button made for
    ``ply``; in this order: not started / ended, not a player, stale, not their turn."""
    state = require_started(g)
    seat = require_person(g, user_id).seat
    if ply != g.ply:
        raise ManagerError(ErrorCode.STALE, "that button is out of date")
    if g.status is not GameStatus.PLAY or state.current_seat != seat:
        raise ManagerError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
    return state, seat


def check_level(level: str) -> None:
    if level not in AI_LEVELS and level not in LEVELS:
        raise ManagerError(ErrorCode.NOT_ALLOWED, f"no computer level {level!r}")
