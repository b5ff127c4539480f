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
