"""Shared helpers for the computer-player tests: games played to a given point."""

from __future__ import annotations

import random

import pytest

from data import Catalog, load_catalog
from engine.config import GameOptions
from engine.rules import apply, legal_moves
from engine.state import GameState, Phase


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


def seat_to_move(state: GameState) -> int:
    """Whose decision it is: the first seat still drafting, else the current seat."""
    seat = state.deciding_seat
    assert seat is not None
    return seat


def random_state(catalog: Catalog, options: GameOptions, seed: int, moves: int) -> GameState:
    """The game after ``moves`` uniformly random legal moves (goal choices included)."""
    from engine.setup import new_game

    rng = random.Random(seed)
    state = new_game(catalog, options, seed)
    for _ in range(moves):
        if state.phase is Phase.OVER:
            break
        state, _ = apply(state, rng.choice(legal_moves(state, seat_to_move(state))))
    return state
