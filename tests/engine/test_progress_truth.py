"""The live progress against a brute-force reading the tests own (:mod:`tests.engine.
progress_oracle`), over random quilts (hypothesis) and the quilts of engine-played games at
every turn (issue 30): every goal's ways, value and state counting the tiles everyone can see
are gone; every group's chance of its cat and the progress its pill shows.

By default about 3,000 quilts: 500 random ones, 10 games of random moves (about 1,450 quilts)
and 4 computer games (about 1,000). ``CALICO_PROGRESS_EXAMPLES`` (a number) raises the sample
for a longer run: hypothesis examples, one random-move game per 50 and one game of normal
computer players per 500 (``benchmarks/bench_live_progress.py`` prints the cost of the
progress itself)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import GameConfig, GameOptions, Restriction
from engine.progress import cat_groups, goal_progress, growing_groups
from engine.rules import apply
from engine.serialize import replay_views
from engine.setup import new_game
from engine.state import Phase
from engine.views import public_view
from render.samples import play_record, strong_record
from tests.engine.helpers import (
    BOARDS,
    CATALOG,
    COLORS,
    PATTERNS,
    PLAYABLE,
    build,
    choose_move,
    neighbours,
)
from tests.engine.progress_oracle import (
    _flood,
    earns,
    goal_truth,
    left_of,
    shape_reach,
)

EXAMPLES = int(os.environ.get("CALICO_PROGRESS_EXAMPLES", "0"))
GOAL_IDS = tuple(CATALOG.goals)
CAT_IDS = tuple(CATALOG.cats)


@dataclass
class Tally:
    """What a sweep checked (so that a sweep that checks nothing fails)."""

    quilts: int = 0
    goals: int = 0
    goals_open: int = 0
    both_lost_to_supply: int = 0
    groups: int = 0
    impossible: int = 0
    every_growth: int = 0  # decided by trying every growth (the rest by the greedy one)
    shape_pills: int = 0


# --------------------------------------------------------------------------- the checks


def check_goals(config: GameConfig, quilt: tuple[int, ...] | list[int],
                goals: tuple[str, ...], elsewhere: tuple[int, ...], tally: Tally) -> None:
    got = goal_progress(config, quilt, goals, elsewhere)
    left = left_of(quilt, elsewhere, config.bag_size // 36)
    both_only = config.restriction is Restriction.BOTH_WAYS
    for g, spot, gid in zip(got, config.goal_spots, goals, strict=True):
        rule = CATALOG.goals[gid]
        r, c = divmod(spot, 7)
        around = [quilt[rr * 7 + cc] for rr, cc in neighbours(r, c)]
        by_c, by_p, both = goal_truth(around, rule.counts, left)
        surrounded = all(t >= 0 for t in around)
        word = ("met", "failed") if surrounded else ("open", "failed")
        expect_points = (rule.both_ways if both else
                         rule.one_way if (by_c or by_p) and not both_only else 0)
        expect_state = ("impossible" if not expect_points else
                        "met" if surrounded else "open")
        seen = (g.colors, g.patterns, g.both, g.points, g.state)
        want = (word[not by_c], word[not by_p], both, expect_points, expect_state)
        assert seen == want, (gid, [quilt[rr * 7 + cc] for rr, cc in neighbours(r, c)],
                              [left[t] for t in range(36)])
        tally.goals += 1
        tally.goals_open += not surrounded
        if not surrounded and by_c and by_p and not both:
            tally.both_lost_to_supply += 1


def check_cats(config: GameConfig, quilt: tuple[int, ...] | list[int],
               cat_cells: list[int], tally: Tally) -> None:
    groups = cat_groups(config, quilt, cat_cells)
    # Every unscored group of two cells or more is there, once.
    tokens = sum(1 << c for c in cat_cells)
    expected = set()
    for pattern in range(6):
        mine = sum(1 << c for c, t in enumerate(quilt) if t >= 0 and t % 6 == pattern)
        left = mine
        while left:
            g = _flood((left & -left).bit_length() - 1, mine)
            left &= ~g
            if g.bit_count() >= 2 and not g & tokens:
                expected.add(g)
    assert {sum(1 << c for c in g.cells) for g in groups} == expected
    for g in groups:
        cat = config.cats[g.cat]
        mask = sum(1 << c for c in g.cells)
        truth, every = earns(quilt, g.pattern, cat_cells, mask, cat.min_size, cat.shape)
        tally.groups += 1
        tally.every_growth += every
        assert g.possible is truth, (g, cat.id)
        tally.impossible += not truth
        assert g.have < g.need, g  # never a count that reads as done
        if cat.min_size:
            assert (g.need, g.have) == (cat.min_size, g.size)
        else:
            assert g.need == len(cat.shape)
            assert g.have == shape_reach(quilt, g.pattern, cat_cells, mask, cat.shape), g
            tally.shape_pills += 1
    for g in growing_groups(config, quilt, cat_cells):
        assert g.possible and 2 <= g.have < g.need


# --------------------------------------------------------------------------- engine-played


def _sweep_game(options: GameOptions, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    state = new_game(CATALOG, options, seed)
    while state.phase is not Phase.OVER:
        state, _ = apply(state, choose_move(state, rng))
        if state.phase is Phase.DRAFT:
            continue
        for sv in public_view(state).seats:
            tally.quilts += 1
            if sv.goals is not None:
                check_goals(state.config, sv.quilt, sv.goals, sv.elsewhere, tally)
            check_cats(state.config, sv.quilt, [c for c, _ in sv.cats], tally)


def test_random_move_games_match_the_brute_force() -> None:
    """Games of random legal moves (1-4 players, lower variance), every quilt after every
    move, each with the tiles the other quilts and the discards hold."""
    tally = Tally()
    games = max(10, EXAMPLES // 50)
    for i in range(games):
        players = 1 + i % 4
        options = GameOptions(players=players, lower_variance=players == 2 and i % 8 == 1)
        _sweep_game(options, 1000 + i, tally)
    assert tally.quilts > 1200 and tally.groups > 2000 and tally.goals > 3000, tally
    assert tally.impossible > 20 and tally.every_growth > tally.groups // 2, tally
    assert tally.both_lost_to_supply > 0, tally  # goals whose last tile went elsewhere


def test_computer_games_match_the_brute_force() -> None:
    """The stored game of four strong computer players and games of two to four normal ones,
    every quilt at every turn."""
    tally = Tally()
    records = [strong_record()]
    records += [play_record(GameOptions(players=2 + i % 3), 500 + i, ("normal",) * (2 + i % 3))
                for i in range(max(3, EXAMPLES // 500))]
    views = [v for record in records for v in replay_views(CATALOG, record)]
    for view in views:
        for sv in view.seats:
            tally.quilts += 1
            if sv.goals is not None:
                check_goals(view.config, sv.quilt, sv.goals, sv.elsewhere, tally)
            check_cats(view.config, sv.quilt, [c for c, _ in sv.cats], tally)
    assert tally.quilts > 900 and tally.groups > 1000 and tally.shape_pills > 200, tally
    assert tally.both_lost_to_supply > 0, tally


# --------------------------------------------------------------------------- hypothesis


@st.composite
def quilts(draw: Any) -> tuple[str, Any, tuple[str, str, str], list[tuple[str, str, str]],
                               tuple[int, ...]]:
    """A board, three cats sharing the six patterns, goals, tiles placed one by one (few
    patterns, so that groups meet and score) and copies gone elsewhere (often all of them)."""
    board = draw(st.sampled_from(BOARDS))
    cats = draw(st.permutations(CAT_IDS))[:3]
    order = draw(st.permutations(PATTERNS))
    spec = tuple((cats[i], (order[2 * i], order[2 * i + 1])) for i in range(3))
    goals = tuple(draw(st.permutations(GOAL_IDS))[:3])
    cells = draw(st.lists(st.sampled_from(PLAYABLE), unique=True, min_size=2, max_size=22))
    few = draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3, unique=True))
    placements = [(cell, draw(st.sampled_from(COLORS)), draw(st.sampled_from(few)))
                  for cell in cells]
    elsewhere = tuple(draw(st.lists(st.sampled_from((0, 0, 1, 2, 3, 3)), min_size=36,
                                    max_size=36)))
    return board, spec, goals, placements, elsewhere


@settings(max_examples=max(500, EXAMPLES), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(quilts())
def test_random_quilts_match_the_brute_force(case: Any) -> None:
    board, spec, goals, placements, elsewhere = case
    config, seat, _ = build(board, placements, spec, goals)
    tally = Tally()
    check_goals(config, seat.quilt, goals, elsewhere, tally)
    check_cats(config, seat.quilt, [c for c, _ in seat.cats], tally)


@pytest.mark.parametrize("copies", [3])
def test_nothing_is_left_unchecked(copies: int) -> None:
    """The goals' oracle is not vacuous: with every copy gone, nothing open is possible."""
    around = [-1] * 6
    assert goal_truth(around, (2, 2, 2), [copies] * 36) == (True, True, True)
    assert goal_truth(around, (2, 2, 2), [0] * 36) == (False, False, False)
