"""Every level plays legal moves, deterministically, to the end of the game, in every variant."""

from __future__ import annotations

import random
import statistics

import pytest

from data import Catalog
from engine.ai import LEVELS, make_player
from engine.ai.base import Player
from engine.ai.players import StrongPlayer, draft_value
from engine.config import GameOptions, Restriction, Setup
from engine.moves import ChooseGoals, Move
from engine.rules import apply, legal_moves
from engine.scoring import breakdown
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view
from tests.engine.ai.conftest import random_state, seat_to_move

LEVEL_NAMES = ["easy", "normal", "strong"]


def _player(level: str, seed: int) -> Player:
    """Strong with a small search budget keeps the suite quick; the code path is the same."""
    if level == "strong":
        return StrongPlayer(seed, width=2, samples=1, pool=6)
    return make_player(level, seed)


def _play(catalog: Catalog, options: GameOptions, seed: int, levels: list[str],
          max_moves: int = 10_000) -> tuple[GameState, list[Move]]:
    players = [_player(lv, seed * 7 + i) for i, lv in enumerate(levels)]
    state = new_game(catalog, options, seed)
    moves: list[Move] = []
    while state.phase is not Phase.OVER and len(moves) < max_moves:
        seat = seat_to_move(state)
        legal = legal_moves(state, seat)
        move = players[seat].choose(private_view(state, seat), legal)
        assert move in legal
        state, _ = apply(state, move)
        moves.append(move)
    return state, moves


def test_levels_are_registered() -> None:
    assert {"random", "easy", "normal", "strong"} <= set(LEVELS)
    for level in LEVELS:
        assert make_player(level, 1).level == level
    with pytest.raises(ValueError):
        make_player("grandmaster", 1)


VARIANTS = [
    GameOptions(players=1),
    GameOptions(players=2, setup=Setup.BEGINNER),
    GameOptions(players=4),
    GameOptions(players=2, family=True),
    GameOptions(players=1, scenario=6),
    GameOptions(players=2, lower_variance=True),
    GameOptions(players=1, restriction=Restriction.NO_HAND),
    GameOptions(players=1, restriction=Restriction.ADJACENT),
    GameOptions(players=2, restriction=Restriction.SAME_COLOR),
    GameOptions(players=1, restriction=Restriction.SAME_PATTERN),
    GameOptions(players=1, restriction=Restriction.BOTH_WAYS),
]


@pytest.mark.parametrize("level", LEVEL_NAMES)
@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: f"{o.players}p-{o.setup}-"
                         f"{o.restriction}-{o.scenario}-{o.family}-{o.lower_variance}")
def test_only_legal_moves_in_every_variant(catalog: Catalog, level: str,
                                           options: GameOptions) -> None:
    """A stretch of play from several points of a game (strong: a short stretch)."""
    state = random_state(catalog, options, 3, 5)
    player = _player(level, 11)
    rng = random.Random(0)
    steps = 4 if level == "strong" else 10
    for _ in range(steps):
        if state.phase is Phase.OVER:
            break
        seat = seat_to_move(state)
        legal = legal_moves(state, seat)
        move = player.choose(private_view(state, seat), legal)
        assert move in legal
        # mix in random moves so the player meets many different positions
        state, _ = apply(state, move if rng.random() < 0.5 else rng.choice(legal))


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_whole_games_finish(catalog: Catalog, level: str) -> None:
    for seed, players in ((1, 1), (2, 3)) if level == "easy" else ((1, 1),):
        state, moves = _play(catalog, GameOptions(players=players), seed, [level] * players)
        assert state.phase is Phase.OVER
        assert len(moves) == 22 * players + players  # placements + one goal choice each


def test_strong_finishes_a_game(catalog: Catalog) -> None:
    state, _ = _play(catalog, GameOptions(players=1), 5, ["strong"])
    assert state.phase is Phase.OVER


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_same_seed_same_game(catalog: Catalog, level: str) -> None:
    limit = 8 if level == "strong" else 16
    a = _play(catalog, GameOptions(players=2), 8, [level, level], limit)
    b = _play(catalog, GameOptions(players=2), 8, [level, level], limit)
    assert a[1] == b[1]


def test_normal_beats_random(catalog: Catalog) -> None:
    normal = [breakdown(s.config, s.seats[0])["total"]
              for s, _ in (_play(catalog, GameOptions(players=1), seed, ["normal"])
                           for seed in range(3))]
    rand = [breakdown(s.config, s.seats[0])["total"]
            for s, _ in (_play_random(catalog, seed) for seed in range(3))]
    assert statistics.mean(normal) > statistics.mean(rand) + 15


def _play_random(catalog: Catalog, seed: int) -> tuple[GameState, list[Move]]:
    player = make_player("random", seed)
    state = new_game(catalog, GameOptions(players=1), seed)
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        legal = legal_moves(state, 0)
        move = player.choose(private_view(state, 0), legal)
        state, _ = apply(state, move)
        moves.append(move)
    return state, moves


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_draft_is_legal_and_sensible(catalog: Catalog, level: str) -> None:
    for seed in range(4):
        state = new_game(catalog, GameOptions(players=2), seed)
        for seat in (0, 1):
            legal = legal_moves(state, seat)
            move = _player(level, seed).choose(private_view(state, seat), legal)
            assert isinstance(move, ChooseGoals) and move in legal
            state, _ = apply(state, move)
    assert state.phase is Phase.PLAY


def test_draft_prefers_achievable_goals(catalog: Catalog) -> None:
    """Offered the hardest goals plus an easy one, normal keeps the easy one."""
    state = new_game(catalog, GameOptions(players=1), 1)
    offer = ("all-different", "aaa-bbb", "aaaa-bb", "aaa-bb-c")
    seat = state.seats[0]
    from dataclasses import replace

    state = replace(state, seats=(replace(seat, goal_offer=offer),))
    legal = legal_moves(state, 0)
    move = make_player("normal", 1).choose(private_view(state, 0), legal)
    assert isinstance(move, ChooseGoals)
    assert "aaa-bb-c" in move.goals and "aaa-bbb" not in move.goals


def test_draft_value_orders_goal_sets(catalog: Catalog) -> None:
    from engine.ai.evaluate import DEFAULT
    from engine.ai.players import _Brain

    state = new_game(catalog, GameOptions(players=1), 2)
    view = private_view(state, 0)
    brain = _Brain(DEFAULT)
    easy = draft_value(brain, view, ("aaa-bb-c", "aa-bb-c-d", "aa-bb-cc"))
    hard = draft_value(brain, view, ("aaa-bbb", "aaaa-bb", "aa-bb-cc"))
    assert easy > hard


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_strong_counts_what_the_market_leaves_the_next_player(catalog: Catalog,
                                                               seed: int) -> None:
    """Against others, taking the tile the next player wants most costs strong the least."""
    from engine.ai.players import _Searcher
    from engine.ai.seen import seat_quilt

    state = random_state(catalog, GameOptions(players=2), seed, 2 + 2 * seed)
    seat = seat_to_move(state)
    view = private_view(state, seat)
    player = StrongPlayer(seed)
    cfg = view.public.config
    rules = player._brain.rules(cfg)
    mine = _Searcher(player._brain.evaluator(cfg, view.public.seats[seat].goals), rules)
    deny = player._denial(view, mine)
    # what each market tile would add to the next player's quilt, by its own goals
    nxt = 1 - seat
    ev = player._brain.evaluator(cfg, view.public.seats[nxt].goals)
    quilt = seat_quilt(view, nxt, rules)
    gain = {k: _Searcher(ev, rules).best_placement(quilt, t)[0] - ev.value(quilt)
            for k, t in enumerate(view.public.market) if t is not None}
    assert set(deny) == set(gain)
    wanted = max(gain, key=lambda k: gain[k])
    assert deny[wanted] == min(deny.values())
    for k in deny:  # with one other player, the whole weight falls on the best tile left
        left = max(g for j, g in gain.items() if j != k)
        assert deny[k] == pytest.approx(player.deny_weight * left)


@pytest.mark.parametrize("seed", [1, 2])
def test_strong_plays_out_its_best_moves(catalog: Catalog, seed: int) -> None:
    """Among the moves its search valued within ``refine_margin`` of the best, strong plays
    the one whose playouts on the same sampled futures end best; a move further below is
    never played, however well its playouts end."""
    from engine.ai.rollout import SeatSim
    from engine.moves import PlaceTile

    state = random_state(catalog, GameOptions(players=1), seed, 7)
    view = private_view(state, 0)
    moves = [m for m in legal_moves(state, 0)
             if isinstance(m, PlaceTile) and m.market is not None][::7][:5]
    player = StrongPlayer(seed)
    player.rounds, player.playout_depth = 1, 4  # one round (the halving is tested below)
    probe = random.Random()
    probe.setstate(player._rng.getstate())
    sim = SeatSim(view)
    futures = sim.sample_futures(player.playouts, probe.getrandbits(64))

    def mean(m: PlaceTile) -> float:
        outs = [sim.play_out(m, f, player.playout_depth) for f in futures]
        return sum(o.total + o.bonus for o in outs) / len(outs)

    means = {m: mean(m) for m in moves}
    by_mean = sorted(moves, key=lambda m: means[m], reverse=True)
    top = by_mean[0]
    assert means[by_mean[1]] > means[by_mean[2]]
    # the search ranks the next three the other way round, and the best playout far below
    near = by_mean[1:4][::-1]
    scored = [(10.0 - 0.5 * i, m) for i, m in enumerate(near)]
    scored.append((10.0 - player.refine_margin - 1.0, top))
    chosen = player._refine(view, scored, near[0], 10.0)
    assert chosen == by_mean[1] != near[0]


def test_halving_plays_the_better_half_on_more_futures() -> None:
    """Successive halving: every choice is played on the first futures, only the better half
    (by its mean so far) on the next ones, and the choice left is the best of the last round's
    field; a choice dropped early is never played again, however well it would have done."""
    from engine.ai.players import _halving
    from engine.ai.rollout import Future

    futures = [Future((k,), ()) for k in range(12)]
    # choice i's playout on future k: 3 leads on the first four futures, then 2; 0 and 1
    # would do far better later but are dropped after the first round
    value = {0: [0.0] * 4 + [99.0] * 8, 1: [5.0] * 4 + [9.0] * 8, 2: [6.0] * 4 + [1.0] * 8,
             3: [7.0] * 4 + [2.0] * 8}
    played: dict[int, list[int]] = {i: [] for i in value}
    depths: list[int | None] = []

    def playout(i: int, f: Future, depth: int | None) -> float:
        played[i].append(f.stream[0])
        depths.append(depth)
        return value[i][f.stream[0]]

    alive, means = _halving(4, [(4, 2), (4, 8), (4, None)], futures, playout)
    assert played[0] == played[1] == [0, 1, 2, 3]  # means 0 and 5: the worse half
    assert played[2] == list(range(8))  # second round: 6 and 1 against 7 and 2, dropped
    assert played[3] == list(range(12))
    assert alive == [3] and means[3] == pytest.approx((4 * 7.0 + 8 * 2.0) / 12)
    assert set(depths) == {2, 8, None}
