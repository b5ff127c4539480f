"""Variants: the family variant (goals face down) and the 2-player lower-variance variant."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import errors
from engine.config import GameOptions
from engine.moves import PlaceTile
from engine.quilt_record import replay_quilt
from engine.rules import apply
from engine.scoring import breakdown
from engine.setup import new_game
from engine.state import Phase
from tests.engine.hand_records import RULEBOOK
from tests.engine.helpers import CATALOG, kinds, play_random, rc, tile_census

FAMILY = GameOptions(players=2, family=True, first_seat=0)


def test_family_goals_are_face_down_and_not_drafted():
    """No goal draft: the game starts at once and no goal is shown."""
    state = new_game(CATALOG, FAMILY, 1)
    assert state.phase is Phase.PLAY
    assert all(s.goals is None and s.goal_offer == () for s in state.seats)


def test_family_goal_tiles_still_block_their_spots():
    """The face-down tiles are obstacles: B3, C4 and D2 cannot take a patch."""
    state = new_game(CATALOG, FAMILY, 1)
    for spot in ("B3", "C4", "D2"):
        r, c = rc(spot)
        with pytest.raises(errors.GoalSpotError):
            apply(state, PlaceTile(0, r * 7 + c, 0, 0))


def test_family_goals_score_nothing():
    """The rulebook quilt (73 with goals) scores only its cats and buttons: 23 + 21."""
    config, seat = replay_quilt(CATALOG, RULEBOOK)
    assert breakdown(config, seat)["total"] == 73
    family = replace(config, family=True)
    score = breakdown(family, replace(seat, goals=None))
    assert score["goal_points"] == 0 and score["total"] == 44
    assert [g["points"] for g in score["goals"]] == [0, 0, 0]


def test_family_game_ends_without_goal_scoring():
    """A whole family game: no goal is scored at the end, cats and buttons are."""
    _, _, events = play_random(FAMILY, 2, 2)
    end = events[-1]
    assert "goal_scored" not in kinds(end)
    over = end[-1]
    assert over.kind == "game_over"
    for s in over.scores:
        assert s["goal_points"] == 0
        assert s["total"] == s["cat_points"] + s["button_points"]


def test_family_variant_with_a_scenario_is_refused():
    """Scenarios need design goals."""
    with pytest.raises(errors.BadOptionsError):
        new_game(CATALOG, GameOptions(players=1, family=True, scenario=1), 1)


def test_family_with_lower_variance_for_two():
    """The rulebook allows both together for two players."""
    state = new_game(CATALOG, GameOptions(players=2, family=True, lower_variance=True), 1)
    assert tile_census(state) == [2] * 36 and state.phase is Phase.PLAY


def test_lower_variance_game_never_runs_out():
    """A 2-player game with 72 tiles runs to the end with every quilt full."""
    state, _, _ = play_random(GameOptions(players=2, lower_variance=True), 3, 3)
    assert state.phase is Phase.OVER and all(len(s.placed) == 22 for s in state.seats)
    assert None not in state.market
