"""A turn (place a hand tile, take a market tile), the order of play, the 22nd turn and the end
of the game."""

from __future__ import annotations

import random

import pytest

from engine import errors
from engine.config import GameOptions, Setup
from engine.moves import PlaceTile
from engine.rules import apply, legal_moves
from engine.state import Phase
from tests.engine.helpers import kinds, play_random, started


def test_a_turn_places_a_hand_tile_and_takes_a_market_tile():
    """The hand tile goes on the quilt; the market tile taken goes into the hand."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=0), 1)
    seat = state.seats[0]
    move = PlaceTile(0, 8, 1, 2)  # hand tile 1 on A1, take market slot 2
    after, events = apply(state, move)
    new = after.seats[0]
    assert new.quilt[8] == seat.hand[1]
    assert new.placed == (8,)
    assert sorted(new.hand) == sorted((seat.hand[0], state.market[2]))
    assert after.seats[1] == state.seats[1]
    assert kinds(events)[0] == "tile_placed" and "tile_taken" in kinds(events)


def test_legal_moves_cover_every_hand_tile_cell_and_market_slot():
    """2 hand tiles x 22 empty cells x 3 market slots on a first turn."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=1), 1)
    moves = legal_moves(state)
    assert len(moves) == 2 * 22 * 3 == len(set(moves))
    assert legal_moves(state, 0) == []
    assert {m.seat for m in moves} == {1}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_turns_go_round_the_table(players):
    """From the first seat, each player in turn; a full round before anyone plays twice."""
    order = []

    def watch(before, move, after, events):
        if isinstance(move, PlaceTile):
            order.append(move.seat)

    state, _, _ = play_random(GameOptions(players=players, setup=Setup.BEGINNER), 3, 3, watch)
    first = state.first_seat
    assert order == [(first + i) % players for i in range(22 * players)]


@pytest.mark.parametrize("players", [1, 2, 4])
def test_each_player_has_exactly_22_turns_and_every_quilt_is_full(players):
    """The game ends when all quilts are full: 22 turns each, no more, no less."""
    turns = [0] * players
    over_at = []

    def watch(before, move, after, events):
        if isinstance(move, PlaceTile):
            turns[move.seat] += 1
        if after.phase is Phase.OVER:
            over_at.append(sum(turns))

    state, _, _ = play_random(GameOptions(players=players), 4, 4, watch)
    assert turns == [22] * players
    assert over_at == [22 * players]
    for s in state.seats:
        assert len(s.placed) == 22 == len(set(s.placed))
        assert sum(1 for t in s.quilt if t == -1) == 0


def _play_until_last_turn(options, seed):
    """Random moves until the current player is about to play their 22nd turn."""
    rng = random.Random(seed)
    state = started(options, seed)
    while len(state.seats[state.current_seat].placed) < 21:
        state, _ = apply(state, rng.choice(legal_moves(state)))
    return state


def test_22nd_turn_ends_with_the_placement():
    """Ruling: the 22nd turn ends with the placement; no pick is offered, a pick is refused."""
    state = _play_until_last_turn(GameOptions(players=2, setup=Setup.BEGINNER), 6)
    seat = state.current_seat
    moves = legal_moves(state)
    assert moves and all(m.market is None for m in moves)
    m = moves[0]
    with pytest.raises(errors.MarketPickError) as exc:
        apply(state, PlaceTile(m.seat, m.cell, m.hand, 0))
    assert exc.value.code == "market_pick"
    after, events = apply(state, m)
    assert after.market == state.market and after.bag == state.bag
    assert len(after.seats[seat].hand) == 1
    assert "tile_taken" not in kinds(events) and "market_refilled" not in kinds(events)


def test_before_the_22nd_turn_a_market_pick_is_required():
    """Every earlier turn must take a market tile."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=0), 2)
    with pytest.raises(errors.MarketPickError):
        apply(state, PlaceTile(0, 8, 0, None))


def test_game_ends_only_when_every_quilt_is_full():
    """After the first player's 22nd turn the others still play theirs; then the game ends."""
    state = _play_until_last_turn(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=0), 7)
    assert state.current_seat == 0
    state, events = apply(state, legal_moves(state)[0])
    assert state.phase is Phase.PLAY and len(state.seats[0].placed) == 22
    assert events[-1].kind == "turn_passed" and events[-1].seat == 1
    state, events = apply(state, legal_moves(state)[0])
    assert state.phase is Phase.OVER and events[-1].kind == "game_over"
    assert legal_moves(state) == []
    with pytest.raises(errors.GameOverError) as exc:
        apply(state, PlaceTile(0, 8, 0, None))
    assert exc.value.code == "game_over"
