"""The game state: frozen, slotted dataclasses of ints and tuples, cheap to copy and compare.

``GameState`` holds secrets (the seed, the generator state, the bag); only
:mod:`engine.views` decides what of it a player may see.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.config import GameConfig

SCHEMA_VERSION = 1
TURNS_PER_PLAYER = 22


class Phase(StrEnum):
    DRAFT = "draft"  # players choose and arrange their goal tiles
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class SeatState:
    """One player's quilt, hand and tokens."""

    board: str
    quilt: tuple[int, ...]  # 49 cells: tile code, EMPTY or GOAL
    goals: tuple[str, str, str] | None  # on B3, C4, D2; None while drafting or face down
    goal_offer: tuple[str, ...]  # the goal tiles revealed for the draft (empty once chosen)
    hand: tuple[int, ...]
    placed: tuple[int, ...]  # cells in the order tiles were placed
    buttons: tuple[tuple[int, int], ...]  # (cell, colour) of each button sewn
    cats: tuple[tuple[int, int], ...]  # (cell, cat index) of each cat attracted
    rainbow: int | None  # cell of the rainbow button, once earned
    button_mask: int  # cells carrying a button token, as a bit mask
    cat_mask: int  # cells carrying a cat token, as a bit mask

    @property
    def placed_mask(self) -> int:
        m = 0
        for c in self.placed:
            m |= 1 << c
        return m

    @property
    def full(self) -> bool:
        return len(self.placed) >= TURNS_PER_PLAYER


@dataclass(frozen=True, slots=True)
class GameState:
    schema: int
    config: GameConfig
    seed: int  # secret
    rng: int  # secret: the generator state
    phase: Phase
    seats: tuple[SeatState, ...]
    market: tuple[int | None, ...]  # three slots; solo: slot 0 is furthest from the bag
    bag: tuple[int, ...]  # secret: how many of each of the 36 tiles are still in the bag
    discards: tuple[int, ...]  # tiles discarded from the solo market, in order
    first_seat: int
    turn: int  # turns played so far (all seats)
    ply: int  # moves applied so far, goal choices included: changes with every move

    @property
    def current_seat(self) -> int | None:
        """Whose turn it is, or None outside the play phase."""
        if self.phase is not Phase.PLAY:
            return None
        return (self.first_seat + self.turn) % self.config.players

    @property
    def deciding_seat(self) -> int | None:
        """The seat a move is awaited from: in the goal draft (which seats play in any order)
        the first seat still choosing, in play the current seat, None once the game is over."""
        if self.phase is Phase.DRAFT:
            return next(i for i, s in enumerate(self.seats) if s.goal_offer)
        return self.current_seat

    @property
    def bag_count(self) -> int:
        return sum(self.bag)

    def seat(self, i: int) -> SeatState:
        return self.seats[i]
