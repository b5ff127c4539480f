"""The turns service: what a person does on their turn.

The goal draft, a whole turn, a hint taken (the game marked), and the read-only preview of a
placement. Each checks the person's right to act with the kernel's guards, applies the move
through the flow (:func:`bot.core.flow.apply_move`) and then lets the computer seats that follow
play (:func:`bot.core.flow.computers_after`): a computer that thinks is only queued, so a
person's click is answered as soon as their own move is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import flow, guards
from bot.core.game import LiveGame, hint_flags, hints_allowed
from bot.core.kernel import Kernel
from bot.core.models import ErrorCode, GameInfo, GameStatus, ManagerError, MoveResult
from engine.errors import BadGoalsError, NoSuchCellError
from engine.events import Event
from engine.hexgrid import parse_cell
from engine.moves import ChooseGoals, parse_move
from engine.rules import preview as engine_preview
from engine.views import PrivateView, private_view


@dataclass(frozen=True, slots=True)
class HintGrant:
    """What :func:`take_hint` returns: the game (marked) and the seat's private view."""

    game: GameInfo
    seat: int
    view: PrivateView  # the person's own view: all a hint may read
    seed: int  # the hints' (and reviews') seed: the game's id
    first: bool  # this call marked the seat (its first hint in this game)


async def choose_goals(k: Kernel, game_id: int, user_id: int, ply: int,
                       goals: Sequence[str]) -> MoveResult:
    """A goal draft choice (B3, C4, D2 order). Drafts are simultaneous, so the button's
    ``ply`` is accepted as long as this person has not chosen yet (``stale`` after)."""
    async def change(g: LiveGame) -> tuple[LiveGame, list[Event]]:
        state = guards.require_started(g)
        seat = guards.require_person(g, user_id).seat
        if g.status is not GameStatus.DRAFT or not state.seats[seat].goal_offer \
                or ply > g.ply:
            raise ManagerError(ErrorCode.STALE, "your goal tiles are already chosen")
        if len(goals) != 3:
            raise BadGoalsError("choose three goal tiles")
        move = ChooseGoals(seat, (goals[0], goals[1], goals[2]))
        return await flow.apply_move(k, g, seat, move, "user")

    return await _after_move(k, game_id, await k.mutate(game_id, change))


async def play_turn(k: Kernel, game_id: int, user_id: int, ply: int,
                    move_text: str) -> MoveResult:
    """One whole turn in engine notation (``h0@C3>m2``), returned once it is stored. A
    random computer that follows moves before this returns; one that thinks is queued for a
    worker (:mod:`bot.core.thinking`) and its move is posted when it comes."""
    async def change(g: LiveGame) -> tuple[LiveGame, list[Event]]:
        _, seat = guards.require_turn(g, user_id, ply)
        move = parse_move(seat, move_text)
        return await flow.apply_move(k, g, seat, move, "user")

    return await _after_move(k, game_id, await k.mutate(game_id, change))


async def take_hint(k: Kernel, game_id: int, user_id: int, ply: int) -> HintGrant:
    """A person takes a hint on their turn (from a button made for ``ply``), in a game that
    allows hints (:func:`bot.core.game.hints_allowed`, else ``hints_off``). The game and the
    seat are marked (:func:`bot.core.game.hint_flags`) in a committed change (once per seat;
    later hints change nothing): the game counts for no rating or leaderboard, and that seat
    for no achievement. Returns the person's private view, all the hints may read (they are
    worked out by :mod:`bot.core.review`)."""
    async def change(g: LiveGame) -> HintGrant:
        state, seat = guards.require_turn(g, user_id, ply)
        if not hints_allowed(g):
            raise ManagerError("hints_off", "hints are not allowed in this game")
        mark = hint_flags(seat)
        first = g.flags & mark != mark
        if first:
            tx = await k.begin(g)
            tx.set(flags=g.flags | mark)
            g = await k.commit(tx)
        return HintGrant(g.info(), seat, private_view(state, seat), g.id, first)

    return await k.mutate(game_id, change)


async def _after_move(k: Kernel, game_id: int,
                      done: tuple[LiveGame, list[Event]]) -> MoveResult:
    g, events = done
    g = await flow.computers_after(k, game_id, g)
    return MoveResult(g.info(), events)


async def preview(k: Kernel, game_id: int, user_id: int, ply: int, source: int,
                  cell: int | str) -> list[Event]:
    """What placing hand tile ``source`` (market slot, without a hand) on ``cell`` would
    earn. Read only."""
    if isinstance(cell, str):
        try:
            cell = parse_cell(cell)
        except ValueError as e:
            raise NoSuchCellError(str(e)) from None
    index = cell

    def read(g: LiveGame) -> list[Event]:
        state, seat = guards.require_turn(g, user_id, ply)
        return engine_preview(state, seat, source, index)

    return await k.checked_read(game_id, read)
