"""The review's playouts simulate the real game: same market, same draws, same final score."""

from __future__ import annotations

import random

import pytest

from data import Catalog
from engine.ai.rollout import Future, SeatSim, derive_seed
from engine.bag import draw
from engine.config import GameOptions, Restriction
from engine.moves import Move, PlaceTile
from engine.rules import apply, legal_moves
from engine.scoring import breakdown
from engine.state import GameState, Phase
from engine.views import private_view
from tests.engine.ai.conftest import random_state, seat_to_move


def _draws(state: GameState) -> tuple[int, ...]:
    """Every tile the bag will give, in order: a draw depends only on the bag and the
    generator, never on what was taken."""
    bag, rng = state.bag, state.rng
    out = []
    while True:
        bag, rng, t = draw(bag, rng)
        if t is None:
            return tuple(out)
        out.append(t)


def _other_move(state: GameState, seat: int, u: float) -> Move:
    """Another player's turn as the playouts model it: the market slot chosen by ``u`` among
    the tiles sorted by kind (any placement: it does not matter to the reviewed seat)."""
    legal = legal_moves(state, seat)
    picks = sorted((t, i) for i, t in enumerate(state.market) if t is not None)
    if any(isinstance(m, PlaceTile) and m.market is not None for m in legal):
        slot = picks[int(u * len(picks))][1]
        return next(m for m in legal if isinstance(m, PlaceTile) and m.market == slot)
    return legal[0]


CASES = [
    GameOptions(players=1),
    GameOptions(players=2),
    GameOptions(players=3),
    GameOptions(players=1, restriction=Restriction.NO_HAND),
    GameOptions(players=2, restriction=Restriction.NO_HAND),
    GameOptions(players=1, restriction=Restriction.ADJACENT),
    GameOptions(players=2, restriction=Restriction.SAME_COLOR),
    GameOptions(players=1, restriction=Restriction.SAME_PATTERN),
    GameOptions(players=1, restriction=Restriction.BOTH_WAYS),
    GameOptions(players=2, family=True),
]


@pytest.mark.parametrize("options", CASES, ids=lambda o: f"{o.players}p-{o.restriction}-"
                         f"{'family' if o.family else ''}")
@pytest.mark.parametrize("moves", [0, 9])
def test_playout_matches_the_real_game(catalog: Catalog, options: GameOptions,
                                       moves: int) -> None:
    """Playing the rollout policy in the real game, with the bag's real order and the other
    players taking the slots the future says, ends with exactly the playout's score."""
    state = random_state(catalog, options, 21 + moves, moves)
    while state.phase is Phase.DRAFT:
        state, _ = apply(state, legal_moves(state, seat_to_move(state))[0])
    seat = seat_to_move(state)
    view = private_view(state, seat)
    sim = SeatSim(view)
    rng = random.Random(5)
    future = Future(_draws(state), tuple(rng.random() for _ in range(100)))
    first = sim.policy_move()
    assert first in legal_moves(state, seat)
    predicted = sim.play_out(first, future, depth=None)
    k = 0
    move: Move = first
    while True:
        state, _ = apply(state, move)
        if state.phase is Phase.OVER or state.seats[seat].full:
            break
        who = seat_to_move(state)
        if who == seat:
            move = SeatSim(private_view(state, seat)).policy_move()
            assert move in legal_moves(state, seat)
        else:
            move = _other_move(state, who, future.picks[k])
            k += 1
    actual = breakdown(state.config, state.seats[seat])
    assert predicted.done
    assert predicted.total == actual["total"]
    cats = [actual["cats"][c.id]["points"] for c in state.config.cats]
    assert list(predicted.parts[:3]) == cats
    goals = [g["points"] for g in actual["goals"]]
    assert list(predicted.parts[-3:]) == goals


def test_futures_hold_the_unseen_tiles(catalog: Catalog) -> None:
    state = random_state(catalog, GameOptions(players=3), 4, 14)
    seat = seat_to_move(state)
    sim = SeatSim(private_view(state, seat))
    hidden = sum(s.hand.__len__() for i, s in enumerate(state.seats) if i != seat)
    for f in sim.sample_futures(3, 1):
        # the bag's tiles, in some order, once the other hands are dealt from the unseen pool
        assert len(f.stream) == state.bag_count
        assert len(f.stream) + hidden == sum(sim.unseen)
    assert sim.sample_futures(3, 1) == sim.sample_futures(3, 1)
    assert sim.sample_futures(3, 1) != sim.sample_futures(3, 2)


def test_derive_seed_is_stable() -> None:
    assert derive_seed(0, 1, 2) == derive_seed(0, 1, 2)
    assert len({derive_seed(0, p, 0) for p in range(100)}) == 100
    assert derive_seed(1, 2) != derive_seed(2, 1)
