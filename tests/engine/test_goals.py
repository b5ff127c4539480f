"""Design goals: exact counts, one way, both ways, near misses, empty neighbours (data.md,
"Design goals")."""

from __future__ import annotations

import pytest

from engine.scoring import breakdown
from tests.engine.helpers import CATALOG, COLORS, PATTERNS, build

B3_AROUND = ("A2", "A3", "B2", "B4", "C2", "C3")
GOALS = {g: (tuple(sorted(d.counts, reverse=True)), d.one_way, d.both_ways)
         for g, d in CATALOG.goals.items()}
NOT_A_GOAL = (5, 1)  # no goal tile asks for five of a kind


def values(counts):
    """(3, 2, 1) -> [0, 0, 0, 1, 1, 2]: six values showing exactly those group sizes."""
    return [i for i, n in enumerate(counts) for _ in range(n)]


def around_b3(color_counts, pattern_counts):
    """Six tiles around B3 whose colours and patterns show the given group sizes."""
    cs = values(color_counts)
    ps = list(reversed(values(pattern_counts)))  # pair them up differently
    return [(cell, COLORS[c], PATTERNS[p]) for cell, c, p in zip(B3_AROUND, cs, ps, strict=True)]


def b3_result(goal, color_counts, pattern_counts, restriction=None):
    others = [g for g in GOALS if g != goal][:2]
    config, seat, _ = build("blue", around_b3(color_counts, pattern_counts),
                            goals=(goal, *others), restriction=restriction)
    g = breakdown(config, seat)["goals"][0]
    assert g["goal"] == goal
    return g["colors"], g["patterns"], g["points"]


@pytest.mark.parametrize("goal", list(GOALS))
def test_goal_met_by_colours(goal):
    """The six colours show the goal's groups exactly: the one-way value."""
    counts, one, _ = GOALS[goal]
    assert b3_result(goal, counts, NOT_A_GOAL) == (True, False, one)


@pytest.mark.parametrize("goal", list(GOALS))
def test_goal_met_by_patterns(goal):
    """The six patterns show the goal's groups exactly: the one-way value."""
    counts, one, _ = GOALS[goal]
    assert b3_result(goal, NOT_A_GOAL, counts) == (False, True, one)


@pytest.mark.parametrize("goal", list(GOALS))
def test_goal_met_both_ways(goal):
    """Met by colours and by patterns: the both-ways value, not the sum of the two."""
    counts, one, both = GOALS[goal]
    assert b3_result(goal, counts, counts) == (True, True, both)
    assert both != 2 * one


@pytest.mark.parametrize("goal", list(GOALS))
def test_goal_met_neither_way(goal):
    """Neither colours nor patterns match: 0 points."""
    assert b3_result(goal, NOT_A_GOAL, NOT_A_GOAL) == (False, False, 0)


@pytest.mark.parametrize(
    ("goal", "near_miss"),
    [
        ("aaa-bbb", (4, 2)),  # 4+2 is not 3+3
        ("aaa-bbb", (3, 2, 1)),
        ("aaa-bbb", (6,)),
        ("aaaa-bb", (3, 3)),
        ("aaaa-bb", (4, 1, 1)),
        ("aaaa-bb", (5, 1)),
        ("aa-bb-cc", (2, 2, 1, 1)),
        ("aa-bb-cc", (3, 3)),
        ("aa-bb-cc", (4, 2)),
        ("aaa-bb-c", (3, 3)),  # 3+3 is not AAA-BB-C
        ("aaa-bb-c", (2, 2, 2)),
        ("aaa-bb-c", (3, 1, 1, 1)),
        ("aaa-bb-c", (4, 2)),
        ("aa-bb-c-d", (2, 2, 2)),
        ("aa-bb-c-d", (2, 1, 1, 1, 1)),
        ("aa-bb-c-d", (3, 2, 1)),
        ("all-different", (2, 1, 1, 1, 1)),
    ],
)
def test_goal_near_misses(goal, near_miss):
    """Counts that nearly match, by colours or by patterns, score nothing."""
    assert b3_result(goal, near_miss, NOT_A_GOAL) == (False, False, 0)
    assert b3_result(goal, NOT_A_GOAL, near_miss) == (False, False, 0)


def test_goal_with_an_empty_neighbour_scores_0():
    """Five all-different neighbours and an empty sixth: not scored until surrounded."""
    full = around_b3((1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1))
    config, seat, _ = build("blue", full[:-1], goals=("all-different", "aaa-bbb", "aa-bb-cc"))
    assert breakdown(config, seat)["goals"][0] == {
        "goal": "all-different", "spot": "B3", "colors": False, "patterns": False, "points": 0}
    config, seat, _ = build("blue", full, goals=("all-different", "aaa-bbb", "aa-bb-cc"))
    assert breakdown(config, seat)["goals"][0]["points"] == 15


def test_neighbours_need_not_be_next_to_each_other():
    """The same six tiles in another order around the goal give the same result."""
    tiles = around_b3((3, 3), (2, 2, 2))
    shuffled = [(cell, c, p) for cell, (_, c, p) in zip(B3_AROUND, tiles[::-1], strict=True)]
    goals = ("aaa-bbb", "aa-bb-cc", "all-different")
    c1, s1, _ = build("blue", tiles, goals=goals)
    c2, s2, _ = build("blue", shuffled, goals=goals)
    assert breakdown(c1, s1)["goals"][0]["points"] == breakdown(c2, s2)["goals"][0]["points"] == 8


def test_each_spot_scores_its_own_neighbours_in_b3_c4_d2_order():
    """Goals are listed B3, C4, D2, each judged on its own six neighbours."""
    # C4's neighbours B4 B5 C3 C5 D4 D5 share B4 and C3 with B3; D2's share C2.
    placements = [
        ("A2", "dark-blue", "dots"), ("A3", "green", "ferns"), ("B2", "light-blue", "flowers"),
        ("B4", "magenta", "quatrefoil"), ("C2", "purple", "stripes"), ("C3", "yellow", "vines"),
        ("B5", "magenta", "quatrefoil"), ("C5", "yellow", "vines"), ("D4", "green", "dots"),
        ("D5", "green", "dots"),
    ]
    config, seat, _ = build("blue", placements, goals=("all-different", "aa-bb-cc", "aaa-bbb"))
    goals = breakdown(config, seat)["goals"]
    assert [g["spot"] for g in goals] == ["B3", "C4", "D2"]
    assert [(g["goal"], g["colors"], g["patterns"], g["points"]) for g in goals] == [
        ("all-different", True, True, 15),
        ("aa-bb-cc", True, True, 11),  # magenta, yellow, green pairs; quatrefoil, vines, dots
        ("aaa-bbb", False, False, 0),  # D2 is not surrounded
    ]
