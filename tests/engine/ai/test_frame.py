"""A frame values every placement exactly as the value function values the quilt it makes."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from data import Catalog
from engine.ai.evaluate import DEFAULT, Evaluator, Weights
from engine.ai.frame import frame_of
from engine.ai.model import Rules
from engine.ai.seen import seat_quilt
from engine.config import GameOptions, Restriction
from engine.rules import apply, legal_moves
from engine.setup import new_game
from engine.state import Phase
from engine.views import private_view
from tests.engine.ai.conftest import seat_to_move

OPTIONS = [
    GameOptions(players=1),
    GameOptions(players=2, family=True),  # no design goals
    GameOptions(players=1, restriction=Restriction.BOTH_WAYS),
    *(GameOptions(players=1, scenario=k) for k in range(1, 11)),  # the scenario's bonus
]
# and the bonus for passing (every condition and the expected score), as strong weighs it
PASSING = replace(DEFAULT, scenario_pass=40.0)


@pytest.mark.parametrize(("options", "weights"), [
    *((o, DEFAULT) for o in OPTIONS),
    *((o, PASSING) for o in OPTIONS if o.scenario)],
    ids=lambda x: (f"{x.players}p-{x.family}-{x.restriction}-{x.scenario}"
                   if isinstance(x, GameOptions) else "pass" if x.scenario_pass else "default"))
def test_every_placement_is_valued_as_the_value_function_does(
        catalog: Catalog, options: GameOptions, weights: Weights) -> None:
    """A whole game of random moves (so groups merge, buttons, cats and the rainbow come, goals
    fill up): at every turn, four tiles on every empty cell of a quilt made by a placement
    (whose features derive from its parent's, as in search) and of a quilt built afresh."""
    rng = random.Random(options.scenario or 0)
    checked = 0
    for seed in range(1):
        state = new_game(catalog, options, seed)
        while state.phase is not Phase.OVER:
            seat = seat_to_move(state)
            legal = legal_moves(state, seat)
            if state.phase is Phase.PLAY:
                view = private_view(state, seat)
                cfg = view.public.config
                rules = Rules(cfg)
                ev = Evaluator(cfg, rules, view.public.seats[seat].goals, weights)
                root = seat_quilt(view, seat, rules)
                quilts = [root]
                if root.empty.bit_count() > 1:
                    low = root.empty & -root.empty
                    quilts.append(rules.place(root, low.bit_length() - 1, rng.randrange(36)))
                for q in quilts:
                    frame = frame_of(ev, q)
                    for t in rng.sample(range(36), 4):
                        got = frame.values(t, q.empty)
                        assert [c for _, c in got] == [c for c in range(49) if q.empty >> c & 1]
                        for v, c in got:
                            assert v == pytest.approx(ev.value(rules.place(q, c, t)), abs=1e-9)
                            checked += 1
                        best = max(got, key=lambda x: x[0]) if got else (float("-inf"), -1)
                        assert frame.best(t, q.empty) == best
            state, _ = apply(state, rng.choice(legal))
    assert checked > 300


def test_a_frame_is_kept_with_its_quilt_for_its_evaluator(catalog: Catalog) -> None:
    state = new_game(catalog, GameOptions(players=1), 3)
    state, _ = apply(state, legal_moves(state, 0)[0])
    view = private_view(state, 0)
    cfg = view.public.config
    rules = Rules(cfg)
    goals = view.public.seats[0].goals
    ev = Evaluator(cfg, rules, goals, DEFAULT)
    q = seat_quilt(view, 0, rules)
    assert frame_of(ev, q) is frame_of(ev, q)
    other = Evaluator(cfg, rules, goals, DEFAULT)
    assert frame_of(other, q) is not frame_of(ev, q)
