"""Properties of whole random games (hypothesis): random player counts, setups, variants,
restrictions and scenarios, with random legal moves from a seeded ``random.Random``."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings

from engine import errors
from engine.config import GameOptions, Restriction
from engine.moves import ChooseGoals, PlaceTile, parse_move
from engine.quilt_record import quilt_record, score_record
from engine.rules import apply, legal_moves
from engine.scoring import breakdown
from engine.serialize import game_record, replay, state_from_json, state_to_json
from engine.setup import new_game
from engine.state import Phase
from tests.engine.helpers import (
    CATALOG,
    game_setups,
    oracle_goal,
    oracle_tokens,
    play_random,
    tile_census,
)

FEW = settings(max_examples=15, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FEW
@given(game_setups())
def test_tiles_are_conserved_after_every_move(setup):
    """Bag + market + hands + quilts + discards hold exactly the bag's tiles, kind by kind."""
    options, seed, move_seed = setup
    copies = 2 if options.lower_variance else 3

    def check(before, move, after, events):
        assert tile_census(after) == [copies] * 36

    state, _, _ = play_random(options, seed, move_seed, check)
    assert state.config.bag_size == 36 * copies


@FEW
@given(game_setups())
def test_every_quilt_is_full_at_the_end(setup):
    """When the game ends every quilt holds 22 tiles: 22 turns per player, in turn."""
    options, seed, move_seed = setup
    state, moves, _ = play_random(options, seed, move_seed)
    assert state.phase is Phase.OVER
    for i, s in enumerate(state.seats):
        assert len(s.placed) == 22 and -1 not in s.quilt
        assert sum(1 for m in moves if isinstance(m, PlaceTile) and m.seat == i) == 22


@FEW
@given(game_setups())
def test_replay_of_the_game_record_equals_the_original(setup):
    """(options, seed, moves) rebuilds the identical state, also after a JSON round trip."""
    options, seed, move_seed = setup
    state, moves, _ = play_random(options, seed, move_seed)
    record = json.loads(json.dumps(game_record(options, seed, moves)))
    assert replay(CATALOG, record) == state
    assert [parse_move(m.seat, m.text()) for m in moves] == moves


@FEW
@given(game_setups())
def test_state_json_round_trip_is_lossless(setup):
    """Every state, through state_to_json, json.dumps/loads and state_from_json, is equal."""
    options, seed, move_seed = setup

    def check(before, move, after, events):
        data = json.loads(json.dumps(state_to_json(after)))
        assert data["schema"] == after.schema
        assert state_from_json(data) == after

    play_random(options, seed, move_seed, check)


@FEW
@given(game_setups())
def test_apply_accepts_exactly_the_legal_moves(setup):
    """A move apply accepts is in legal_moves; any other raises a typed EngineError."""
    options, seed, move_seed = setup
    rnd = random.Random(move_seed + 1)
    goal_ids = sorted(CATALOG.goals)

    def check(before, move, after, events):
        legal = set(legal_moves(before))
        assert move in legal
        for _ in range(8):
            if rnd.random() < 0.2:
                cand = ChooseGoals(rnd.randrange(-1, 5), tuple(rnd.sample(goal_ids, 3)))
            else:
                hand = rnd.choice([None, -1, 0, 1, 2])
                market = rnd.choice([None, -1, 0, 1, 2, 3])
                cand = PlaceTile(rnd.randrange(-1, 5), rnd.randrange(-1, 50), hand, market)
            try:
                apply(before, cand)
            except errors.EngineError:
                assert cand not in legal
            else:
                assert cand in legal

    play_random(options, seed, move_seed, check)


@FEW
@given(game_setups())
def test_quilts_score_as_an_independent_reading_of_the_rules(setup):
    """Finished quilts score as a plain re-reading of the rulings; their records re-score."""
    options, seed, move_seed = setup
    state, _, _ = play_random(options, seed, move_seed)
    cfg = state.config
    cats = [(c.id, [cfg.patterns[p] for p in c.patterns]) for c in cfg.cats]
    for i, seat in enumerate(state.seats):
        rec = quilt_record(state, i)
        placements = [(p["cell"], p["color"], p["pattern"]) for p in rec["placements"]]
        score = breakdown(cfg, seat)
        buttons, tokens, rainbow = oracle_tokens(seat.board, cats, placements)
        assert score["buttons"] == buttons and score["rainbow"] == rainbow
        assert {c: v["tokens"] for c, v in score["cats"].items()} == tokens
        if seat.goals is None:
            assert score["goal_points"] == 0
            continue
        for g, spot, goal in zip(score["goals"], ("B3", "C4", "D2"), seat.goals, strict=True):
            by_c, by_p, points = oracle_goal(seat.board, spot, goal, placements)
            if cfg.restriction is Restriction.BOTH_WAYS and not (by_c and by_p):
                points = 0
            assert (g["colors"], g["patterns"], g["points"]) == (by_c, by_p, points)
        if cfg.restriction is not Restriction.BOTH_WAYS:
            assert score_record(CATALOG, json.loads(json.dumps(rec))) == score


@FEW
@given(game_setups())
def test_same_options_seed_and_moves_give_the_same_game(setup):
    """Determinism: replaying the same moves from the same options and seed is identical."""
    options, seed, move_seed = setup
    state, moves, events = play_random(options, seed, move_seed)
    again = new_game(CATALOG, options, seed)
    replayed_events = []
    for m in moves:
        again, ev = apply(again, m)
        replayed_events.append(ev)
    assert again == state and replayed_events == events


def test_different_seeds_deal_differently_most_of_the_time():
    """Over 200 seeds, the opening deal (2 hands and the market) is almost never repeated."""
    options = GameOptions(players=2)
    deals = set()
    for seed in range(200):
        s = new_game(CATALOG, options, seed)
        deals.add((tuple(x.hand for x in s.seats), s.market))
    assert len(deals) >= 199

