"""Hints: the engine's choice first, then other placements by value, all legal, fair and
repeatable."""

from __future__ import annotations

import json

import pytest

from data import Catalog
from engine.ai.hints import Hint, hints, hints_for_state
from engine.ai.review import engine_move
from engine.config import GameOptions, Restriction
from engine.rules import legal_moves
from engine.state import Phase
from engine.views import private_view
from tests.engine.ai.conftest import random_state, seat_to_move
from tests.engine.ai.test_fair_play import _hidden_twin

FAST = {"samples": 3, "depth": 3}


@pytest.mark.parametrize("options,moves", [
    (GameOptions(players=1), 6),
    (GameOptions(players=2), 25),
    (GameOptions(players=3), 40),
    (GameOptions(players=1, restriction=Restriction.NO_HAND), 4),
    (GameOptions(players=2, restriction=Restriction.ADJACENT), 12),
])
def test_three_legal_hints_engine_first(catalog: Catalog, options: GameOptions,
                                        moves: int) -> None:
    state = random_state(catalog, options, 8, moves)
    assert state.phase is Phase.PLAY
    seat = seat_to_move(state)
    view = private_view(state, seat)
    got = hints(view, seed=4, **FAST)
    assert len(got) == 3
    legal = legal_moves(state, seat)
    assert got[0].engine and not any(h.engine for h in got[1:])
    # Valued on the same futures, best first: the engine's choice is never below a hint.
    values = [h.value for h in got]
    assert values == sorted(values, reverse=True)
    strong = engine_move(view, legal, seed=4)
    moves = [h.to_move(seat) for h in got]
    if strong in moves:  # the strong player's move is first unless a hint did better
        assert all(v > got[moves.index(strong)].value for v in values[:moves.index(strong)])
    assert len({(h.tile, h.cell) for h in got}) == 3  # three different placements
    for h in got:
        move = h.to_move(seat)
        assert move in legal
        assert h.move == move.text()
        assert isinstance(h.value, float) and 0 < h.value < 200


def test_last_turn_hints_take_nothing(catalog: Catalog) -> None:
    state = random_state(catalog, GameOptions(players=1), 2, 21 + 1)
    assert state.phase is Phase.PLAY and len(state.seats[0].placed) == 21
    for h in hints(private_view(state, 0), **FAST):
        assert h.market is None and h.pick is None and ">" not in h.move


def test_hints_are_repeatable_and_fair(catalog: Catalog) -> None:
    state = random_state(catalog, GameOptions(players=2), 12, 14)
    seat = seat_to_move(state)
    a = hints(private_view(state, seat), seed=1, **FAST)
    assert hints(private_view(state, seat), seed=1, **FAST) == a
    twin = _hidden_twin(state, seat)
    assert twin.bag != state.bag
    assert hints(private_view(twin, seat), seed=1, **FAST) == a
    assert hints_for_state(twin, seat, seed=1, **FAST) == a


def test_no_hints_out_of_turn(catalog: Catalog) -> None:
    state = random_state(catalog, GameOptions(players=2), 12, 14)
    seat = seat_to_move(state)
    assert hints(private_view(state, 1 - seat), **FAST) == []
    draft = random_state(catalog, GameOptions(players=2), 12, 0)
    assert draft.phase is Phase.DRAFT
    assert hints(private_view(draft, 0), **FAST) == []
    assert hints(private_view(state, seat), count=1, **FAST)[0].engine


def test_json_round_trip(catalog: Catalog) -> None:
    state = random_state(catalog, GameOptions(players=1), 3, 9)
    for h in hints(private_view(state, 0), **FAST):
        assert Hint.from_json(json.loads(json.dumps(h.to_json()))) == h
