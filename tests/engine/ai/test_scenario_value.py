"""In a scenario (solo achievement mode) the value function's bonus for all the conditions at
once is paid exactly when the engine says the scenario is passed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from data import Catalog
from engine.ai import make_player
from engine.ai.evaluate import DEFAULT, Evaluator
from engine.ai.model import Rules
from engine.ai.seen import seat_quilt
from engine.config import GameOptions
from engine.events import ScenarioResult
from engine.rules import apply, legal_moves
from engine.scoring import breakdown
from engine.setup import new_game
from engine.state import Phase
from engine.views import private_view

ONLY_THE_PASS = replace(DEFAULT, scenario_bonus=0.0, scenario_pass=1.0)


@pytest.mark.parametrize("number", range(1, 11))
def test_the_pass_bonus_is_the_engines_verdict(catalog: Catalog, number: int) -> None:
    verdicts = []
    for seed in range(4):
        state = new_game(catalog, GameOptions(players=1, scenario=number), seed)
        player = make_player("normal", seed)
        result = None
        while state.phase is not Phase.OVER:
            state, events = apply(state, player.choose(private_view(state, 0),
                                                       legal_moves(state, 0)))
            result = next((e for e in events if isinstance(e, ScenarioResult)), result)
        assert result is not None
        view = private_view(state, 0)
        cfg = view.public.config
        rules = Rules(cfg)
        ev = Evaluator(cfg, rules, view.public.seats[0].goals, ONLY_THE_PASS)
        quilt = seat_quilt(view, 0, rules)
        total = breakdown(cfg, state.seats[0])["total"]
        conditions = [met for name, _, _, met in result.conditions if name != "score"]
        assert ev.scenario_points(quilt, total) == (1.0 if result.passed else 0.0)
        # Without the score: every other condition met.
        assert ev.scenario_points(quilt) == (1.0 if all(conditions) else 0.0)
        # The value of the full quilt: its score, and the pass when it is one.
        assert ev.value(quilt) == pytest.approx(total + (1.0 if result.passed else 0.0))
        verdicts.append(all(conditions))
    if number in (1, 3, 4):  # the normal player meets these scenarios' conditions often
        assert any(verdicts)


def _passing_evaluator(catalog: Catalog, number: int) -> Evaluator:
    state = new_game(catalog, GameOptions(players=1, scenario=number), 0)
    view = private_view(state, 0)
    cfg = view.public.config
    return Evaluator(cfg, Rules(cfg), ("all-different", "aaa-bbb", "aaa-bb-c"), ONLY_THE_PASS)


def test_a_full_quilt_at_the_minimum_passes_and_a_point_below_does_not(
        catalog: Catalog) -> None:
    ev = _passing_evaluator(catalog, 2)  # scenario 2: five cat tokens, 59 points
    assert ev.scenario is not None and ev.scenario.min_score == 59

    def full(total: float, tokens: tuple[int, int, int] = (3, 2, 0)) -> float:
        return ev.scenario_extra(tokens, (0,) * 6, False, [0.0] * 3, None, None, total=total)

    assert full(59) == 1.0
    assert full(58) == 0.0
    assert full(70, (2, 2, 0)) == 0.0  # four tokens: the score alone is not enough


def test_the_chance_of_the_minimum_widens_with_the_turns_left(catalog: Catalog) -> None:
    """With turns left the expected total is uncertain: a few points above the minimum is
    likely but not sure, and less sure the more turns are left; the final score's spread is
    about seven points at the start of a solo game and about two with one turn left."""
    ev = _passing_evaluator(catalog, 2)

    def chance(margin: float, turns: int) -> float:
        return ev.scenario_extra((5, 0, 0), (0,) * 6, False, [0.0] * 3, [0.0] * 3, [0.0] * 6,
                                 total=59 + margin, turns=turns)

    assert chance(0, 1) == pytest.approx(0.5)
    assert 0.65 < chance(1, 1) < 0.75  # a point above with one turn left
    assert 0.55 < chance(3, 22) < 0.7  # three points above at the start
    assert chance(-3, 22) == pytest.approx(1 - chance(3, 22))
    assert chance(-200, 22) == 0.0
    assert [chance(m, 8) for m in (-6, -2, 0, 2, 6)] == sorted(
        chance(m, 8) for m in (-6, -2, 0, 2, 6))
