"""Edges a mutation probe found untested: ``preview`` refuses what ``apply`` would (an occupied
cell, a restricted one), a goal choice moves the ply on, and a seat's score in the goal draft
shows three empty goal spots worth nothing."""

from __future__ import annotations

import pytest

from data import load_catalog
from engine import errors
from engine.config import GameOptions, Restriction, Setup
from engine.moves import ChooseGoals
from engine.rules import apply, legal_moves, placements, preview
from engine.setup import new_game
from engine.state import Phase
from engine.views import public_view


def test_preview_refuses_an_occupied_cell() -> None:
    state = new_game(load_catalog(), GameOptions(players=1, setup=Setup.BEGINNER), 3)
    move = legal_moves(state)[0]
    state, _ = apply(state, move)
    taken = move.cell  # type: ignore[attr-defined]
    with pytest.raises(errors.CellTakenError):
        preview(state, 0, 0, taken)


def test_preview_refuses_a_cell_the_restriction_forbids() -> None:
    state = new_game(load_catalog(), GameOptions(players=1, setup=Setup.BEGINNER,
                                                 restriction=Restriction.ADJACENT), 5)
    state, _ = apply(state, legal_moves(state)[0])  # the first tile goes anywhere
    allowed = {cell for _, cell in placements(state, 0)}
    empty = [c for c, t in enumerate(state.seats[0].quilt) if t == -1 and c not in allowed
             and c not in state.config.goal_spots]
    assert empty, "some empty cell touches no placed tile"
    with pytest.raises(errors.RestrictionError):
        preview(state, 0, 0, empty[0])
    assert preview(state, 0, 0, next(iter(allowed))) is not None


def test_a_goal_choice_moves_the_ply_on_and_the_draft_score_shows_empty_goals() -> None:
    state = new_game(load_catalog(), GameOptions(players=2), 7)
    assert state.phase is Phase.DRAFT
    for seat in public_view(state).seats:
        goals = seat.score["goals"]
        assert len(goals) == 3 and all(g["goal"] is None and g["points"] == 0 for g in goals)
        assert seat.score["goal_points"] == 0
    choice = next(m for m in legal_moves(state, 0) if isinstance(m, ChooseGoals))
    after, _ = apply(state, choice)
    assert after.ply == state.ply + 1
