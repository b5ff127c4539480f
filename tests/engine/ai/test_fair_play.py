"""A computer seat decides only from its private view: hidden information changes nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from data import Catalog
from engine.ai import make_player
from engine.ai.players import StrongPlayer
from engine.ai.seen import unseen_counts
from engine.config import GameOptions
from engine.rules import legal_moves
from engine.state import GameState, Phase
from engine.tiles import KINDS
from engine.views import private_view
from tests.engine.ai.conftest import random_state, seat_to_move


def _hidden_twin(state: GameState, seat: int) -> GameState:
    """The same game as ``seat`` sees it, with different secrets: generator state, seed, bag
    contents and the other players' hands (tiles swapped between the bag and those hands)."""
    bag = list(state.bag)
    seats = list(state.seats)
    for i, s in enumerate(seats):
        if i == seat or not s.hand:
            continue
        new_hand = []
        for t in s.hand:
            bag[t] += 1  # back to the bag ...
            u = next(k for k in range(KINDS - 1, -1, -1) if bag[k] and k != t)
            bag[u] -= 1  # ... and a different tile in its place
            new_hand.append(u)
        seats[i] = replace(s, hand=tuple(new_hand))
    # move one tile of the bag to another kind too (same count, different contents)
    a = next(k for k in range(KINDS) if bag[k])
    b = next(k for k in range(KINDS - 1, -1, -1) if k != a)
    bag[a] -= 1
    bag[b] += 1
    return replace(state, seed=state.seed + 1000, rng=state.rng ^ 0x5DEECE66D, bag=tuple(bag),
                   seats=tuple(seats))


@pytest.mark.parametrize("players,moves", [(3, 9), (2, 14), (1, 8), (4, 4)])
def test_choice_ignores_hidden_information(catalog: Catalog, players: int, moves: int) -> None:
    state = random_state(catalog, GameOptions(players=players), 40 + players, moves)
    assert state.phase is Phase.PLAY
    seat = seat_to_move(state)
    twin = _hidden_twin(state, seat)
    assert twin.bag != state.bag and twin.rng != state.rng
    assert private_view(twin, seat) == private_view(state, seat)
    legal = legal_moves(state, seat)
    assert legal_moves(twin, seat) == legal
    players_a = [make_player("easy", 5), make_player("normal", 5), StrongPlayer(5, 3, 4, 8)]
    players_b = [make_player("easy", 5), make_player("normal", 5), StrongPlayer(5, 3, 4, 8)]
    for a, b in zip(players_a, players_b, strict=True):
        assert a.choose(private_view(state, seat), legal) == b.choose(
            private_view(twin, seat), legal)


def test_unseen_pool_counts_what_the_seat_cannot_see(catalog: Catalog) -> None:
    state = random_state(catalog, GameOptions(players=3), 9, 12)
    seat = seat_to_move(state)
    counts = unseen_counts(private_view(state, seat))
    # exactly the bag plus the other players' hands
    expected = list(state.bag)
    for i, s in enumerate(state.seats):
        if i != seat:
            for t in s.hand:
                expected[t] += 1
    assert counts == expected
