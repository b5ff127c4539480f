"""Solo scenarios: their setup, and passing or failing their conditions (data.md)."""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations

import pytest

from engine import errors
from engine.config import GameOptions
from engine.moves import ChooseGoals
from engine.quilt_record import replay_quilt
from engine.rules import apply, legal_moves
from engine.scoring import breakdown, scenario_conditions
from engine.setup import new_game
from engine.state import Phase
from tests.engine.hand_records import RULEBOOK
from tests.engine.helpers import CATALOG, of_kind, play_random


@pytest.mark.parametrize("number", range(1, 11))
def test_scenario_setup(number):
    """The scenario fixes the cats and offers its three goals for the player to arrange."""
    sc = CATALOG.scenarios[number]
    state = new_game(CATALOG, GameOptions(players=1, scenario=number), number)
    assert tuple(c.id for c in state.config.cats) == sc.cats
    assert state.phase is Phase.DRAFT
    assert set(state.seats[0].goal_offer) == set(sc.goals)
    assert {m.goals for m in legal_moves(state)} == set(permutations(sc.goals))
    assert state.config.scenario is not None and state.config.scenario.number == number


def test_scenario_goals_go_where_the_player_chooses():
    """Any arrangement of the three scenario goals on B3, C4, D2 is accepted."""
    sc = CATALOG.scenarios[4]
    state = new_game(CATALOG, GameOptions(players=1, scenario=4), 1)
    arranged = (sc.goals[2], sc.goals[0], sc.goals[1])
    state, _ = apply(state, ChooseGoals(0, arranged))
    assert state.seats[0].goals == arranged and state.phase is Phase.PLAY


def test_scenario_refuses_other_goals():
    """A goal outside the scenario's three cannot be chosen."""
    sc = CATALOG.scenarios[4]
    other = next(g for g in CATALOG.goals if g not in sc.goals)
    state = new_game(CATALOG, GameOptions(players=1, scenario=4), 1)
    with pytest.raises(errors.BadGoalsError):
        apply(state, ChooseGoals(0, (other, sc.goals[0], sc.goals[1])))


def test_scenario_with_several_players():
    """Scenarios may be played by several players: each arranges the same three goals."""
    state = new_game(CATALOG, GameOptions(players=3, scenario=2), 1)
    assert all(set(s.goal_offer) == set(CATALOG.scenarios[2].goals) for s in state.seats)


def conditions(number, rec=RULEBOOK):
    """The scenario's conditions judged on a hand-scored quilt (hand_records.py)."""
    rule = new_game(CATALOG, GameOptions(players=1, scenario=number), 0).config.scenario
    config, seat = replay_quilt(CATALOG, rec)
    config = replace(config, scenario=rule)
    return {name: (need, got, ok)
            for name, need, got, ok in scenario_conditions(config, seat, breakdown(config, seat))}


# The rulebook quilt (hand_records.RULEBOOK): 3 goals met, 1 of them both ways, a rainbow,
# 5 cat tokens (Millie 2, Tibbit 2, Coconut 1: each cat, at most 2 of one), at most 1 button
# of a colour, 73 points.
RULEBOOK_UNDER = {
    1: ({"rainbow": (1, 1, True), "score": (58, 73, True)}, True),
    2: ({"cat_tokens": (5, 5, True), "score": (59, 73, True)}, True),
    3: ({"goals_met": (2, 3, True), "each_cat": (3, 3, True), "rainbow": (1, 1, True),
         "score": (60, 73, True)}, True),
    4: ({"goals_met": (3, 3, True), "buttons_one_color": (3, 1, False),
         "score": (61, 73, True)}, False),
    5: ({"goals_met": (3, 3, True), "same_cat": (3, 2, False), "score": (62, 73, True)}, False),
    6: ({"goals_met": (3, 3, True), "goals_both": (1, 1, True), "rainbow": (1, 1, True),
         "score": (63, 73, True)}, True),
    7: ({"goals_met": (3, 3, True), "goals_both": (1, 1, True), "cat_tokens": (5, 5, True),
         "score": (64, 73, True)}, True),
    8: ({"goals_met": (2, 3, True), "goals_both": (1, 1, True), "each_cat": (3, 3, True),
         "rainbow": (1, 1, True), "score": (66, 73, True)}, True),
    9: ({"goals_met": (3, 3, True), "goals_both": (2, 1, False), "each_cat": (3, 3, True),
         "score": (68, 73, True)}, False),
    10: ({"goals_both": (2, 1, False), "each_cat": (3, 3, True), "rainbow": (1, 1, True),
          "score": (72, 73, True)}, False),
}


@pytest.mark.parametrize("number", range(1, 11))
def test_scenario_conditions_on_the_rulebook_quilt(number):
    """Each scenario's conditions (needed, reached, met) on a quilt scored by hand."""
    expected, passed = RULEBOOK_UNDER[number]
    got = conditions(number)
    assert got == expected
    assert all(ok for _, _, ok in got.values()) is passed


def test_scenario_1_fails_without_the_rainbow():
    """Scenario 1 on its own goals and cats: 67 points but no rainbow is a fail."""
    # without E3 there is no dark-blue button, so no rainbow
    # Removing E3 (dark-blue vines): dark-blue E2 + (6,3) = 2, no button (5 buttons: 15);
    # E3 was in no cat group that scored and is no goal neighbour: 29 + 23 + 15 = 67.
    rec = dict(RULEBOOK, placements=[p for p in RULEBOOK["placements"] if p["cell"] != "E3"])
    assert conditions(1, rec) == {"rainbow": (1, 0, False), "score": (58, 67, True)}
    assert conditions(1) == {"rainbow": (1, 1, True), "score": (58, 73, True)}


@pytest.mark.parametrize("number", [1, 5, 9])
def test_scenario_result_at_the_end_of_a_game(number):
    """At the end the result names every condition of the scenario and whether it passed."""
    _, _, events = play_random(GameOptions(players=1, scenario=number), number, number)
    results = of_kind(events[-1], "scenario_result")
    assert len(results) == 1
    res = results[0]
    needs = CATALOG.scenarios[number].needs.model_dump(exclude_defaults=True)
    assert {c[0] for c in res.conditions} == set(needs) | {"score"}
    assert res.passed is all(c[3] for c in res.conditions)
    score = of_kind(events[-1], "game_over")[0].scores[0]
    assert {c[0]: c[2] for c in res.conditions}["score"] == score["total"]
    assert res.number == number and res.seat == 0


def test_no_scenario_result_outside_scenarios():
    """A normal game has no scenario result."""
    _, _, events = play_random(GameOptions(players=1), 1, 1)
    assert not of_kind(events[-1], "scenario_result")
