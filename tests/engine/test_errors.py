"""Illegal moves raise typed errors with stable codes and leave the state unchanged."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engine import errors
from engine.config import GameOptions, Restriction, Setup
from engine.moves import ChooseGoals, PlaceTile, parse_move
from engine.quilt_record import replay_quilt
from engine.rules import apply, legal_moves
from engine.serialize import state_to_json
from engine.setup import new_game
from engine.state import GameState
from tests.engine.helpers import CATALOG, play_random, rc, solo_beginner, started, tile_of

A1 = 8  # cell index of A1
B3 = rc("B3")[0] * 7 + rc("B3")[1]


def snapshot(state: GameState) -> str:
    return json.dumps(state_to_json(state), sort_keys=True)


def playing() -> GameState:
    """Two players, seat 0 to play, one tile already on A1 of seat 0."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=0), 1)
    state, _ = apply(state, PlaceTile(0, A1, 0, 0))
    state, _ = apply(state, PlaceTile(1, A1, 0, 0))
    return state


def last_turn() -> GameState:
    rng = random.Random(2)
    state = started(solo_beginner(), 2)
    while len(state.seats[0].placed) < 21:
        state, _ = apply(state, rng.choice(legal_moves(state)))
    return state


def restricted() -> GameState:
    state = started(solo_beginner(restriction=Restriction.SAME_COLOR, boards=("blue",)), 1)
    seat = replace(state.seats[0], hand=(tile_of("light-blue", "dots"),
                                         tile_of("light-blue", "ferns")))
    return replace(state, seats=(seat,))


def drafting() -> GameState:
    return new_game(CATALOG, GameOptions(players=2, first_seat=0), 3)


def finished() -> GameState:
    return play_random(solo_beginner(), 1, 1)[0]


def empty_market_slot() -> GameState:
    state = playing()
    return replace(state, market=(state.market[0], None, state.market[2]))


CASES = [
    ("not_your_turn", errors.NotYourTurnError, playing, lambda s: PlaceTile(1, A1 + 1, 0, 0)),
    ("cell_taken", errors.CellTakenError, playing, lambda s: PlaceTile(0, A1, 0, 0)),
    ("goal_spot", errors.GoalSpotError, playing, lambda s: PlaceTile(0, B3, 0, 0)),
    ("no_such_cell (border)", errors.NoSuchCellError, playing, lambda s: PlaceTile(0, 0, 0, 0)),
    ("no_such_cell (off the board)", errors.NoSuchCellError, playing,
     lambda s: PlaceTile(0, 49, 0, 0)),
    ("no_such_cell (negative)", errors.NoSuchCellError, playing,
     lambda s: PlaceTile(0, -1, 0, 0)),
    ("no_such_hand_tile", errors.NoSuchHandTileError, playing,
     lambda s: PlaceTile(0, A1 + 1, 2, 0)),
    ("no_such_hand_tile (negative)", errors.NoSuchHandTileError, playing,
     lambda s: PlaceTile(0, A1 + 1, -1, 0)),
    ("no_such_hand_tile (none)", errors.NoSuchHandTileError, playing,
     lambda s: PlaceTile(0, A1 + 1, None, 0)),
    ("no_such_market_slot", errors.NoSuchMarketSlotError, playing,
     lambda s: PlaceTile(0, A1 + 1, 0, 3)),
    ("no_such_market_slot (negative)", errors.NoSuchMarketSlotError, playing,
     lambda s: PlaceTile(0, A1 + 1, 0, -1)),
    ("no_such_market_slot (empty slot)", errors.NoSuchMarketSlotError, empty_market_slot,
     lambda s: PlaceTile(0, A1 + 1, 0, 1)),
    ("market_pick (missing)", errors.MarketPickError, playing,
     lambda s: PlaceTile(0, A1 + 1, 0, None)),
    ("market_pick (22nd turn)", errors.MarketPickError, last_turn,
     lambda s: replace(legal_moves(s)[0], market=0)),
    ("restriction", errors.RestrictionError, restricted,
     lambda s: PlaceTile(0, rc("C3")[0] * 7 + 3, 0, 0)),
    ("game_over", errors.GameOverError, finished, lambda s: PlaceTile(0, A1, 0, None)),
    ("game_over (goals)", errors.GameOverError, finished,
     lambda s: ChooseGoals(0, ("aaa-bbb", "aa-bb-cc", "all-different"))),
    ("wrong_phase (placing in the draft)", errors.WrongPhaseError, drafting,
     lambda s: PlaceTile(0, A1, 0, 0)),
    ("wrong_phase (goals in play)", errors.WrongPhaseError, playing,
     lambda s: ChooseGoals(0, ("aaa-bbb", "aa-bb-cc", "all-different"))),
    ("bad_goals", errors.BadGoalsError, drafting,
     lambda s: ChooseGoals(0, (s.seats[0].goal_offer[0],) * 3)),
    ("no_such_seat", errors.NoSuchSeatError, playing, lambda s: PlaceTile(5, A1, 0, 0)),
    ("no_such_seat (goals)", errors.NoSuchSeatError, drafting,
     lambda s: ChooseGoals(-1, s.seats[0].goal_offer[:3])),
]


@pytest.mark.parametrize(("what", "error", "make", "move"), CASES, ids=[c[0] for c in CASES])
def test_illegal_move_raises_typed_error_and_changes_nothing(what, error, make, move):
    """Each illegal move raises its own error type, with its code, and the state is intact."""
    state = make()
    before = snapshot(state)
    m = move(state)
    assert m not in legal_moves(state)
    with pytest.raises(errors.EngineError) as exc:
        apply(state, m)
    assert type(exc.value) is error
    assert exc.value.code == what.split(" ")[0]
    assert exc.value.message and str(exc.value) == exc.value.message
    assert snapshot(state) == before


@pytest.mark.parametrize("options", [
    GameOptions(players=3, lower_variance=True),
    GameOptions(players=1, family=True, scenario=2),
    GameOptions(players=2, boards=("blue", "blue")),
    GameOptions(players=2, first_seat=3),
    GameOptions(players=2, cats=("millie", "millie", "leo")),
])
def test_bad_options(options):
    """Inconsistent options: BadOptionsError, code bad_options."""
    with pytest.raises(errors.BadOptionsError) as exc:
        new_game(CATALOG, options, 1)
    assert exc.value.code == "bad_options"


@pytest.mark.parametrize("text", ["", "h0@F1>m0", "h0@C3>x1", "goals:a,b", "place C3"])
def test_bad_move_text(text):
    """Text that is not a move: BadMoveError (or ValueError for a cell), code bad_move."""
    with pytest.raises(ValueError) as exc:
        parse_move(0, text)
    if isinstance(exc.value, errors.EngineError):
        assert exc.value.code == "bad_move"


def test_bad_record():
    """A malformed quilt record: BadRecordError, code bad_record."""
    with pytest.raises(errors.BadRecordError) as exc:
        replay_quilt(CATALOG, {"board": "red"})
    assert exc.value.code == "bad_record"


def test_error_codes_are_stable():
    """The codes the bot relies on, one per error type, never renamed."""
    codes = {cls.__name__: cls.code for cls in errors.ALL_ERRORS}
    assert codes == {
        "NotYourTurnError": "not_your_turn",
        "WrongPhaseError": "wrong_phase",
        "GameOverError": "game_over",
        "NoSuchSeatError": "no_such_seat",
        "NoSuchCellError": "no_such_cell",
        "GoalSpotError": "goal_spot",
        "CellTakenError": "cell_taken",
        "NoSuchHandTileError": "no_such_hand_tile",
        "NoSuchMarketSlotError": "no_such_market_slot",
        "MarketPickError": "market_pick",
        "RestrictionError": "restriction",
        "BadGoalsError": "bad_goals",
        "BadOptionsError": "bad_options",
        "BadMoveError": "bad_move",
        "BadRecordError": "bad_record",
    }
    assert all(issubclass(cls, errors.EngineError) for cls in errors.ALL_ERRORS)
