"""The game review: copying the engine is perfect, random play is not, the same input gives the
same review, and what the seat could not see changes nothing."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from data import Catalog
from engine.ai import make_player
from engine.ai.review import (
    MISTAKE_MIN_LOSS,
    Decision,
    Review,
    decisions_from_record,
    decisions_from_states,
    engine_move,
    legal_from_view,
    review,
    review_record,
    seat_after,
)
from engine.config import GameOptions, Restriction, Setup
from engine.hexgrid import parse_cell
from engine.moves import ChooseGoals, Move, PlaceTile
from engine.rules import apply, legal_moves
from engine.scoring import breakdown
from engine.serialize import game_record
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view
from tests.engine.ai.conftest import random_state, seat_to_move
from tests.engine.ai.test_fair_play import _hidden_twin

SEED = 17  # the review's own seed in these tests
FAST = {"samples": 4, "depth": 4}  # a small review: same code paths, quicker tests


def _play(catalog: Catalog, options: GameOptions, game_seed: int, seat_policy: str
          ) -> tuple[list[GameState], list[Move]]:
    """A whole game: ``seat_policy`` for seat 0 (``copy``: the review's engine move from the
    seat's view; ``random``: any legal move), the normal computer player elsewhere."""
    state = new_game(catalog, options, game_seed)
    others = [make_player("normal", game_seed + i) for i in range(options.players)]
    rng = random.Random(game_seed)
    states: list[GameState] = []
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        seat = seat_to_move(state)
        legal = legal_moves(state, seat)
        view = private_view(state, seat)
        if seat != 0:
            move = others[seat].choose(view, legal)
        elif seat_policy == "copy":
            move = engine_move(view, legal, seed=SEED)
        else:
            move = rng.choice(legal)
        states.append(state)
        moves.append(move)
        state, _ = apply(state, move)
    return states, moves


@pytest.fixture(scope="module")
def copied(catalog: Catalog) -> tuple[list[GameState], list[Move]]:
    return _play(catalog, GameOptions(players=2), 31, "copy")


@pytest.fixture(scope="module")
def randomly(catalog: Catalog) -> tuple[list[GameState], list[Move]]:
    return _play(catalog, GameOptions(players=1), 32, "random")


@pytest.fixture(scope="module")
def copied_review(copied: tuple[list[GameState], list[Move]]) -> Review:
    states, moves = copied
    return review(decisions_from_states(states, moves, 0), seed=SEED, **FAST)


@pytest.fixture(scope="module")
def random_review(randomly: tuple[list[GameState], list[Move]]) -> Review:
    states, moves = randomly
    return review(decisions_from_states(states, moves, 0), seed=SEED, **FAST)


def test_copying_the_engine_reviews_at_100(copied_review: Review) -> None:
    r = copied_review
    assert len(r.turns) == 22
    assert [t.turn for t in r.turns] == list(range(1, 23))
    assert all(t.differs is None and t.loss == 0 for t in r.turns)
    assert all(t.played == t.engine for t in r.turns)
    assert r.accuracy == 100.0
    assert r.total_loss == 0
    assert r.mistakes == ()
    assert r.draft is not None and r.draft.loss == 0 and r.draft.played == r.draft.engine


def test_random_play_reviews_badly(random_review: Review, copied_review: Review) -> None:
    r = random_review
    assert len(r.turns) == 22
    assert r.accuracy < 35 < 99 < copied_review.accuracy
    assert r.total_loss > 30
    assert sum(t.loss >= MISTAKE_MIN_LOSS for t in r.turns) >= 3
    assert len(r.mistakes) == 3
    losses = [m.loss for m in r.mistakes]
    assert losses == sorted(losses, reverse=True)
    assert losses[0] == max(t.loss for t in r.turns)
    for m in r.mistakes:
        assert m.loss >= MISTAKE_MIN_LOSS
        assert m.differs in ("placement", "pick", "both")
        assert r.turns[m.turn - 1].ply == m.ply
    # a random quilt typically wastes cats, buttons or goals the engine kept: say which
    assert any(m.reasons for m in r.mistakes)


def test_turn_rows_hold_together(random_review: Review) -> None:
    for t in random_review.turns:
        assert t.loss == round(max(0.0, t.ev_engine - t.ev_played), 2)
        assert t.kept <= t.stake and t.stake >= 0
        assert (t.differs is None) == (t.played == t.engine)
    last = random_review.turns[-1]
    assert last.played.pick is None and ">" not in last.played.move  # the 22nd turn
    assert random_review.final_score == round(last.ev_played)


def test_the_engine_line_never_dips_below_the_players(random_review: Review,
                                                      copied_review: Review) -> None:
    """Issue 30: the moves are compared on the same futures and the engine keeps the better
    of its move and the one played, so its line is never below the player's (a random
    player's move sometimes does better on the sampled futures than the strong player's)."""
    for r in (random_review, copied_review):
        _, mine, engine = r.chart()
        assert all(e >= m for m, e in zip(mine, engine, strict=True)), r.turns
        assert r.draft is not None and r.draft.ev_engine >= r.draft.ev_played
        for t in r.turns:
            assert t.ev_engine >= t.ev_played and t.loss >= 0
            if t.differs is None:  # the engine's pick is the move played: nothing lost
                assert t.played == t.engine and t.loss == 0 and t.ev_engine == t.ev_played
    assert sum(t.differs is None for t in random_review.turns) >= 1


def test_reasons_are_structured(random_review: Review) -> None:
    kinds = {"cat": {"cat"}, "button": {"color"}, "rainbow": set(), "goal": {"goal", "spot"}}
    for m in random_review.mistakes:
        assert len(m.reasons) <= 2
        for r in m.reasons:
            d = r.to_json()
            assert set(d) == {"kind", "points", "how"} | kinds[r.kind]
            assert r.how in ("earned", "kept_open", "closed", "cut_short")
            assert r.how != "closed" or r.kind == "goal"
            assert r.how != "cut_short" or r.kind in ("cat", "button")
            assert r.points > 0
            assert all(isinstance(v, str | float | int) for v in d.values())


def test_final_score_is_the_real_one(randomly: tuple[list[GameState], list[Move]],
                                     random_review: Review) -> None:
    states, moves = randomly
    end, _ = apply(states[-1], moves[-1])
    assert random_review.final_score == breakdown(end.config, end.seats[0])["total"]


def test_same_input_same_review(random_review: Review,
                                randomly: tuple[list[GameState], list[Move]]) -> None:
    states, moves = randomly
    again = review(decisions_from_states(states, moves, 0), seed=SEED, **FAST)
    assert again == random_review
    other = review(decisions_from_states(states, moves, 0), seed=SEED + 1, **FAST)
    assert other != random_review  # the seed is the only source of randomness


def test_json_round_trip(random_review: Review, copied_review: Review) -> None:
    for r in (random_review, copied_review):
        data = json.loads(json.dumps(r.to_json()))
        assert Review.from_json(data) == r
        assert data["samples"] == 4 and data["depth"] == 4
    with pytest.raises(ValueError):
        Review.from_json({**random_review.to_json(), "version": 999})


def test_chart_lines(random_review: Review) -> None:
    turns, mine, engine = random_review.chart()
    assert turns == list(range(1, 23))
    assert mine == [t.ev_played for t in random_review.turns]
    assert engine == [t.ev_engine for t in random_review.turns]


def test_record_and_states_agree(catalog: Catalog,
                                 randomly: tuple[list[GameState], list[Move]],
                                 random_review: Review) -> None:
    _, moves = randomly
    record = game_record(GameOptions(players=1), 32, moves)
    assert review_record(record, 0, seed=SEED, catalog=catalog, **FAST) == random_review


# --------------------------------------------------------------------------- fairness


def test_review_ignores_hidden_information(copied: tuple[list[GameState], list[Move]]
                                           ) -> None:
    """Two games alike in everything seat 0 could see, but with other bags (contents and
    generator) and other hidden hands at every decision, review alike."""
    states, moves = copied
    twins = [_hidden_twin(s, 0) for s in states]
    assert all(t.bag != s.bag and t.rng != s.rng for s, t in zip(states, twins, strict=True))
    # only part of the game, to keep the test quick: the draft and eight turns
    cut = next(i for i, m in enumerate(moves) if m.seat == 0 and isinstance(m, PlaceTile)
               and len(states[i].seats[0].placed) == 8)
    a = review(decisions_from_states(states[:cut], moves[:cut], 0), seed=SEED, **FAST)
    b = review(decisions_from_states(twins[:cut], moves[:cut], 0), seed=SEED, **FAST)
    assert a == b
    assert a.draft is not None and len(a.turns) == 8


def test_decisions_hold_only_the_private_view(copied: tuple[list[GameState], list[Move]]
                                              ) -> None:
    states, moves = copied
    for d in decisions_from_states(states, moves, 1):
        assert d.view.seat == 1 and d.move.seat == 1
        assert not hasattr(d.view, "bag") and not hasattr(d.view.public, "bag")


def test_legal_moves_from_the_view(catalog: Catalog) -> None:
    for players, n in ((1, 0), (2, 9), (3, 20), (2, 2)):
        state = random_state(catalog, GameOptions(players=players), 3, n)
        seat = seat_to_move(state)
        assert legal_from_view(private_view(state, seat)) == legal_moves(state, seat)


# --------------------------------------------------------------------------- other games


def test_no_draft_in_beginner_games_and_a_partial_game(catalog: Catalog) -> None:
    options = GameOptions(players=1, setup=Setup.BEGINNER)
    state = new_game(catalog, options, 5)
    decisions = []
    rng = random.Random(1)
    for _ in range(5):
        move = rng.choice(legal_moves(state, 0))
        decisions.append(Decision(private_view(state, 0), move))
        state, _ = apply(state, move)
    r = review(decisions, seed=1, **FAST)
    assert r.draft is None
    assert len(r.turns) == 5
    assert r.final_score is None  # the game is not over


def test_records_of_one_seat_only(catalog: Catalog,
                                  copied: tuple[list[GameState], list[Move]]) -> None:
    states, moves = copied
    record = game_record(GameOptions(players=2), 31, moves)
    ds = decisions_from_record(record, 1, catalog)
    assert len(ds) == 23 and isinstance(ds[0].move, ChooseGoals)
    mixed = decisions_from_states(states, moves, 0)[:2] + ds[:2]
    with pytest.raises(ValueError):
        review(mixed, **FAST)


def test_seat_after_shows_the_placement(randomly: tuple[list[GameState], list[Move]],
                                        random_review: Review) -> None:
    states, moves = randomly
    turns = [(s, m) for s, m in zip(states, moves, strict=True) if isinstance(m, PlaceTile)]
    for (state, move), row in zip(turns, random_review.turns, strict=True):
        view = private_view(state, 0)
        after = seat_after(view, row.played)
        nxt, _ = apply(state, move)
        assert after.quilt == nxt.seats[0].quilt
        assert after.score == breakdown(nxt.config, nxt.seats[0])
        eng = seat_after(view, row.engine)
        assert eng.quilt[parse_cell(row.engine.cell)] == row.engine.tile
        assert eng.placed == (*view.public.seats[0].placed, parse_cell(row.engine.cell))


def test_inputs_and_results_pickle(copied: tuple[list[GameState], list[Move]],
                                   copied_review: Review) -> None:
    """A review runs in a worker process: what goes in and comes out must pickle."""
    states, moves = copied
    decisions = decisions_from_states(states, moves, 0)
    assert pickle.loads(pickle.dumps(decisions)) == decisions
    assert pickle.loads(pickle.dumps(copied_review)) == copied_review


VARIANTS = [
    GameOptions(players=4),
    GameOptions(players=3, family=True),
    GameOptions(players=1, scenario=6),
    GameOptions(players=2, lower_variance=True),
    GameOptions(players=1, restriction=Restriction.NO_HAND),
    GameOptions(players=2, restriction=Restriction.NO_HAND),
    GameOptions(players=1, restriction=Restriction.ADJACENT),
    GameOptions(players=2, restriction=Restriction.SAME_COLOR),
    GameOptions(players=1, restriction=Restriction.SAME_PATTERN),
    GameOptions(players=2, restriction=Restriction.BOTH_WAYS),
]


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: f"{o.players}p-{o.restriction}-"
                         f"{o.scenario}-{'family' if o.family else ''}")
def test_every_variant_reviews(catalog: Catalog, options: GameOptions) -> None:
    """A whole game of every variant reviews (small settings and a quick engine: the code
    paths are the same), each seat's final score the real one."""
    state = new_game(catalog, options, 6)
    rng = random.Random(6)
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        move = rng.choice(legal_moves(state, seat_to_move(state)))
        moves.append(move)
        state, _ = apply(state, move)
    record = game_record(options, 6, moves)
    seat = options.players - 1
    r = review_record(record, seat, samples=2, depth=2, level="easy", catalog=catalog)
    assert len(r.turns) == 22
    assert r.final_score == breakdown(state.config, state.seats[seat])["total"]
    assert 0 <= r.accuracy <= 100
    assert (r.draft is None) == options.family  # scenarios draft among their own goals
    assert Review.from_json(json.loads(json.dumps(r.to_json()))) == r
