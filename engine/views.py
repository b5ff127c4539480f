"""What players may see: a public view for everyone and a private view per seat (adds the hand
and the goal tiles offered in the draft). Neither holds the seed, the generator state or the bag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.config import GameConfig
from engine.progress import tiles_gone
from engine.scoring import breakdown
from engine.state import GameState, Phase


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    board: str
    quilt: tuple[int, ...]  # 49 cells: tile code, EMPTY (-1) or GOAL (-2)
    goals: tuple[str, str, str] | None  # None: still drafting, or face down (family)
    drafting: bool  # still choosing goal tiles
    placed: tuple[int, ...]
    buttons: tuple[tuple[int, int], ...]  # (cell, colour)
    cats: tuple[tuple[int, int], ...]  # (cell, cat index)
    rainbow: int | None
    hand_size: int
    score: dict[str, Any]  # the breakdown as it stands (goals count once surrounded)
    # Copies of each tile (by code) gone from play outside this quilt, as everyone sees them:
    # on the other quilts or discarded (engine.progress.tiles_gone). Empty: not known, only
    # this quilt's own tiles count (engine.progress.goal_progress).
    elsewhere: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PublicView:
    config: GameConfig
    phase: Phase
    turn: int
    ply: int
    current_seat: int | None
    first_seat: int
    market: tuple[int | None, ...]
    bag_count: int
    discards: tuple[int, ...]
    seats: tuple[SeatView, ...]


@dataclass(frozen=True, slots=True)
class PrivateView:
    public: PublicView
    seat: int
    hand: tuple[int, ...]
    goal_offer: tuple[str, ...]


def public_view(state: GameState) -> PublicView:
    cfg = state.config
    gone = [tiles_gone([s.quilt]) for s in state.seats]
    everywhere = [sum(col) for col in zip(*gone, tiles_gone((), state.discards), strict=True)]
    seats = tuple(
        SeatView(i, s.board, s.quilt, s.goals, bool(s.goal_offer), s.placed, s.buttons, s.cats,
                 s.rainbow, len(s.hand), breakdown(cfg, s),
                 tuple(a - b for a, b in zip(everywhere, gone[i], strict=True)))
        for i, s in enumerate(state.seats)
    )
    return PublicView(cfg, state.phase, state.turn, state.ply, state.current_seat,
                      state.first_seat, state.market, state.bag_count, state.discards, seats)


def private_view(state: GameState, seat: int) -> PrivateView:
    s = state.seats[seat]
    return PrivateView(public_view(state), seat, s.hand, s.goal_offer)
