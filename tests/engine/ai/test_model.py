"""The search model agrees with the rules, and the goal tables behave like chances."""

from __future__ import annotations

import random

import pytest

from data import Catalog
from engine.ai.goals import ZERO, counts_of, goal_value
from engine.ai.model import Rules
from engine.ai.seen import own_quilt
from engine.config import GameOptions
from engine.moves import PlaceTile
from engine.rules import apply, legal_moves
from engine.state import Phase
from engine.views import private_view
from tests.engine.ai.conftest import random_state, seat_to_move


@pytest.mark.parametrize("seed", range(6))
def test_place_matches_the_engine(catalog: Catalog, seed: int) -> None:
    """Tokens, masks and groups after Rules.place equal a fresh model of the engine's result."""
    cats = [None, ("callie", "almond", "leo"), ("rumi", "tecolote", "gwenivere")][seed % 3]
    options = GameOptions(players=2, cats=cats)
    state = random_state(catalog, options, seed, 2)  # past the draft
    rules = Rules(state.config)
    rng = random.Random(seed)
    while state.phase is not Phase.OVER:
        seat = seat_to_move(state)
        move = rng.choice(legal_moves(state, seat))
        assert isinstance(move, PlaceTile) and move.hand is not None
        before = own_quilt(private_view(state, seat), rules)
        mine = rules.place(before, move.cell, state.seats[seat].hand[move.hand])
        state, _ = apply(state, move)
        ref = own_quilt(private_view(state, seat), rules)
        assert (mine.score, mine.bm, mine.cm, mine.rainbow, mine.bcnt, mine.ccnt, mine.empty) == (
            ref.score, ref.bm, ref.cm, ref.rainbow, ref.bcnt, ref.ccnt, ref.empty)
        assert sorted(mine.cgroups.values()) == sorted(ref.cgroups.values())
        assert sorted(mine.pgroups.values()) == sorted(ref.pgroups.values())
        sv = private_view(state, seat).public.seats[seat]
        assert mine.score == sv.score["cat_points"] + sv.score["button_points"]


def _rule(catalog: Catalog, goal: str) -> tuple[tuple[int, ...], int, int]:
    g = catalog.goals[goal]
    return tuple(sorted(g.counts, reverse=True)), g.one_way, g.both_ways


@pytest.mark.parametrize("goal", ["all-different", "aaa-bbb", "aa-bb-cc", "aaaa-bb", "aaa-bb-c",
                                  "aa-bb-c-d"])
def test_goal_values_are_expectations(catalog: Catalog, goal: str) -> None:
    rule, one, both = _rule(catalog, goal)
    previous = -1.0
    for m in (1.0, 2.0, 4.0, 8.0):
        v = goal_value(rule, one, both, False, m, ZERO, ZERO)
        assert 0.0 < v < both
        assert v > previous  # choosier players do better
        previous = v
    assert goal_value(rule, one, both, True, 4.0, ZERO, ZERO) <= goal_value(
        rule, one, both, False, 4.0, ZERO, ZERO)


def test_goal_values_when_surrounded(catalog: Catalog) -> None:
    rule, one, both = _rule(catalog, "aaa-bb-c")
    colors = counts_of([0, 0, 0, 1, 1, 2])
    patterns = counts_of([0, 1, 2, 3, 4, 5])
    assert goal_value(rule, one, both, False, 3.0, colors, patterns) == one
    assert goal_value(rule, one, both, False, 3.0, colors, colors) == both
    assert goal_value(rule, one, both, True, 3.0, colors, patterns) == 0.0
    assert goal_value(rule, one, both, False, 3.0, patterns, patterns) == 0.0
    # four of one colour can never become AAA-BB-C again
    assert goal_value(rule, one, both, False, 3.0, counts_of([0, 0, 0, 0]),
                      counts_of([0, 0, 0, 0])) == 0.0
    # the easy goal ranks above the hard one from an empty neighbourhood
    hard = _rule(catalog, "aaa-bbb")
    assert goal_value(rule, one, both, False, 5.0, ZERO, ZERO) > goal_value(
        hard[0], hard[1], hard[2], False, 5.0, ZERO, ZERO)


@pytest.mark.parametrize("cats", [("callie", "almond", "leo"), ("rumi", "tecolote", "cira"),
                                  ("millie", "coconut", "gwenivere")])
def test_cached_evaluation_matches_fresh(catalog: Catalog, cats: tuple[str, str, str]) -> None:
    """Values derived through the parent's caches equal values of a quilt built from scratch."""
    from engine.ai.evaluate import Evaluator
    from engine.ai.model import Quilt, bits

    state = random_state(catalog, GameOptions(players=1, cats=cats), 17, 1)
    rules = Rules(state.config)
    ev = Evaluator(state.config, rules, state.seats[0].goals)
    rng = random.Random(3)

    def fresh(s: Quilt) -> Quilt:
        buttons = tuple((c, s.q[c] // 6) for c in bits(s.bm))
        cats_ = tuple((c, rules.cat_of_pattern[s.q[c] % 6]) for c in bits(s.cm))
        return rules.quilt(s.q, s.bm, s.cm, buttons, cats_, s.rainbow)

    s = own_quilt(private_view(state, 0), rules)
    ev.value(s)
    while s.empty:
        cells = bits(s.empty)
        for _ in range(3):  # siblings share the parent's caches
            child = rules.place(s, rng.choice(cells), rng.randrange(36))
            assert ev.value(child) == pytest.approx(ev.value(fresh(child)))
        s = child


def test_value_weighs_its_terms_by_the_turns_left(catalog: Catalog) -> None:
    """The value of an open quilt is the points earned plus each term of ``Evaluator.terms``
    times its weight; per-turn weights (``Weights.by_turns``) replace the scales turn by turn."""
    from dataclasses import replace

    from engine.ai.evaluate import DEFAULT, TERMS, Evaluator
    from engine.ai.model import bits

    state = random_state(catalog, GameOptions(players=1), 23, 1)
    rules = Rules(state.config)
    goals = state.seats[0].goals
    today = Evaluator(state.config, rules, goals)
    rows = [tuple(0.1 * (t + 1) * (k + 1) for k in range(len(TERMS))) for t in range(23)]
    fitted = Evaluator(state.config, rules, goals, replace(DEFAULT, by_turns=tuple(rows)))
    rng = random.Random(5)
    s = own_quilt(private_view(state, 0), rules)
    while s.empty:
        terms = today.terms(s)
        assert len(terms) == len(TERMS)
        t = s.empty.bit_count()
        assert today.value(s) == pytest.approx(
            s.score + sum(w * x for w, x in zip(DEFAULT.per_turn()[t], terms, strict=True)))
        assert fitted.value(s) == pytest.approx(
            s.score + sum(w * x for w, x in zip(rows[t], terms, strict=True)))
        s = rules.place(s, rng.choice(bits(s.empty)), rng.randrange(36))
    # a full quilt is worth its exact score whatever the weights
    assert fitted.value(s) == today.value(s)
