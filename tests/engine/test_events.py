"""Events say everything needed to narrate a turn: a reader that sees only the events (and the
starting public view) can follow the quilts, tokens, market and turn order exactly."""

from __future__ import annotations

import json
import random

import pytest

from engine.config import GameOptions, Restriction, Setup
from engine.events import event_from_dict, event_to_dict
from engine.hexgrid import cell_of
from engine.rules import apply, legal_moves, preview
from engine.scoring import breakdown, rank
from engine.setup import new_game
from engine.state import Phase
from tests.engine.helpers import (
    CATALOG,
    COLORS,
    PATTERNS,
    PLAYABLE,
    build,
    choose_move,
    kinds,
    of_kind,
    rc,
    started,
)


def names(t):
    return None if t is None else (COLORS[t // 6], PATTERNS[t % 6])


class Narrator:
    """Follows a game from its public start and its events alone."""

    def __init__(self, state):
        self.market = [names(t) for t in state.market]
        self.quilts = [{} for _ in state.seats]
        self.buttons = [dict.fromkeys(COLORS, 0) for _ in state.seats]
        self.cats = [{c.id: 0 for c in state.config.cats} for _ in state.seats]
        self.points = [0] * len(state.seats)
        self.rainbow = [0] * len(state.seats)
        self.goals = [s.goals for s in state.seats]
        self.current = state.current_seat
        self.over = None
        self.goal_points = [0] * len(state.seats)
        self.no_hand = state.config.no_hand

    def read(self, events):
        for e in events:
            getattr(self, "on_" + e.kind)(e)

    def on_goals_chosen(self, e):
        self.goals[e.seat] = e.goals

    def on_game_started(self, e):
        self.current = e.first_seat

    def on_tile_placed(self, e):
        assert e.seat == self.current
        assert e.cell not in self.quilts[e.seat]
        assert e.from_market is self.no_hand
        if self.no_hand:
            assert (e.color, e.pattern) in self.market
        self.quilts[e.seat][e.cell] = (e.color, e.pattern)
        assert e.number == len(self.quilts[e.seat])

    def on_button_sewn(self, e):
        assert self.quilts[e.seat][e.cell][0] == e.color
        assert e.cell in e.group and len(e.group) >= 3
        self.buttons[e.seat][e.color] += 1

    def on_cat_attracted(self, e):
        assert self.quilts[e.seat][e.cell][1] == e.pattern
        assert e.points == CATALOG.cats[e.cat].points
        self.cats[e.seat][e.cat] += 1
        self.points[e.seat] += e.points

    def on_rainbow_sewn(self, e):
        assert self.rainbow[e.seat] == 0 and all(self.buttons[e.seat].values())
        self.rainbow[e.seat] = 1

    def on_tile_taken(self, e):
        assert self.market[e.slot] == (e.color, e.pattern)
        self.market[e.slot] = None

    def on_market_discarded(self, e):
        assert self.market[e.slot] == (e.color, e.pattern)
        self.market[e.slot] = None

    def on_market_slid(self, e):
        self.market[e.to_slot] = self.market[e.from_slot]
        self.market[e.from_slot] = None

    def on_market_refilled(self, e):
        self.market[e.slot] = None if e.color is None else (e.color, e.pattern)

    def on_turn_passed(self, e):
        self.current = e.seat

    def on_goal_scored(self, e):
        assert e.goal == self.goals[e.seat][("B3", "C4", "D2").index(e.spot)]
        self.goal_points[e.seat] += e.points

    def on_scenario_result(self, e):
        assert e.passed is all(c[3] for c in e.conditions)

    def on_game_over(self, e):
        self.over = e
        self.current = None

    def check(self, state):
        """The narrated picture equals the real state."""
        assert self.market == [names(t) for t in state.market]
        assert self.current == state.current_seat
        for i, seat in enumerate(state.seats):
            real = {n: names(seat.quilt[cell_of(*rc(n))]) for n in PLAYABLE
                    if seat.quilt[cell_of(*rc(n))] >= 0}
            assert self.quilts[i] == real
            score = breakdown(state.config, seat)
            assert self.buttons[i] == score["buttons"]
            assert self.cats[i] == {c: v["tokens"] for c, v in score["cats"].items()}
            assert self.points[i] == score["cat_points"]
            assert self.rainbow[i] == score["rainbow"]


OPTIONS = [
    GameOptions(players=1, setup=Setup.BEGINNER),
    GameOptions(players=2),
    GameOptions(players=4, setup=Setup.BEGINNER),
    GameOptions(players=1, restriction=Restriction.NO_HAND),
    GameOptions(players=3, restriction=Restriction.NO_HAND),
    GameOptions(players=1, scenario=6),
    GameOptions(players=2, family=True),
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o.model_dump_json(exclude_defaults=True))
def test_events_narrate_the_whole_game(options):
    """Following only the events reproduces the public game after every move, and its end."""
    # the final events give the goals, totals, places, winners and what decided them
    rng = random.Random(7)
    state = new_game(CATALOG, options, 7)
    narrator = Narrator(state)
    while state.phase is not Phase.OVER:
        state, events = apply(state, choose_move(state, rng))
        narrator.read(events)
        for e in events:
            assert event_from_dict(json.loads(json.dumps(event_to_dict(e)))) == e
        narrator.check(state)
    over = narrator.over
    scores = [breakdown(state.config, s) for s in state.seats]
    assert over.totals == tuple(s["total"] for s in scores)
    assert list(over.scores) == scores
    places, winners, decided = rank(scores)
    assert (over.places, over.winners, over.decided_by) == (places, winners, decided)
    assert narrator.goal_points == [s["goal_points"] for s in scores]
    for i, s in enumerate(scores):
        assert s["total"] == s["goal_points"] + s["cat_points"] + s["button_points"]
        assert narrator.points[i] == s["cat_points"]


def test_a_turn_in_order():
    """Placed, then the tokens, then the market tile taken and the refill, then whose turn."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=0), 1)
    _, events = apply(state, legal_moves(state)[0])
    assert kinds(events) == ["tile_placed", "tile_taken", "market_refilled", "turn_passed"]
    assert events[-1].seat == 1 and events[-1].turn == 1


def test_one_placement_can_earn_a_button_and_a_cat():
    """Two events from one tile: a button, then a cat, in that order."""
    # blue board: light-blue flowers on A1 and A2 join the light-blue (0,2) patch and the
    # green-flowers (1,0) patch: the second tile makes both groups of 3
    _, _, steps = build("blue", [("A1", "light-blue", "flowers"), ("A2", "light-blue", "flowers")],
                        cats=(("millie", ("flowers", "dots")), ("tibbit", ("ferns", "vines")),
                              ("coconut", ("stripes", "quatrefoil"))))
    assert kinds(steps[1]) == ["tile_placed", "button_sewn", "cat_attracted"]
    button, cat = steps[1][1], steps[1][2]
    assert (button.color, button.cell) == ("light-blue", "A2")
    assert (cat.cat, cat.pattern, cat.cell, cat.points) == ("millie", "flowers", "A2", 3)
    assert steps[1][0].number == 2


def test_game_over_events_name_each_goal_and_the_result():
    """At the end: a goal_scored per goal spot per player, then game_over."""
    rng = random.Random(3)
    state = started(GameOptions(players=2, setup=Setup.BEGINNER), 3)
    while state.phase is not Phase.OVER:
        state, events = apply(state, rng.choice(legal_moves(state)))
    goals = of_kind(events, "goal_scored")
    assert [(g.seat, g.spot) for g in goals] == [(s, spot) for s in (0, 1)
                                                 for spot in ("B3", "C4", "D2")]
    assert events[-1].kind == "game_over"
    assert set(events[-1].winners) == {i for i, p in enumerate(events[-1].places) if p == 1}


def test_preview_shows_what_a_placement_would_earn():
    """preview gives the placement's events without playing it (no market, no state change)."""
    rng = random.Random(5)
    state = started(GameOptions(players=2, setup=Setup.BEGINNER), 5)
    for _ in range(30):
        move = rng.choice(legal_moves(state))
        shown = preview(state, move.seat, move.hand, move.cell)
        after, events = apply(state, move)
        n = len(shown)
        assert events[:n] == shown
        assert events[n].kind in ("tile_taken", "turn_passed", "game_over")
        state = after


def test_events_hold_no_secret():
    """No event carries a hand, the bag or the generator state."""
    rng = random.Random(9)
    state = started(GameOptions(players=2), 9)
    while state.phase is not Phase.OVER:
        state, events = apply(state, rng.choice(legal_moves(state)))
        for e in events:
            d = event_to_dict(e)
            assert not {"hand", "bag", "rng", "seed"} & d.keys()
            assert str(state.rng) not in json.dumps(d)
