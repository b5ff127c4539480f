"""Setting up a game: hands, market, bag, boards, cats, goals and the goal draft, first player."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import ValidationError

from engine import errors
from engine.config import STORED, GameOptions, Setup
from engine.moves import ChooseGoals, PlaceTile
from engine.rng import below, seed_state
from engine.rules import apply, legal_moves
from engine.serialize import game_record, replay
from engine.setup import new_game
from engine.state import Phase
from tests.engine.helpers import CATALOG, PATTERNS, game_setups, kinds, rc, tile_census

BEGINNER = GameOptions(players=2, setup=Setup.BEGINNER)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_hands_of_two_and_a_market_of_three(players, catalog):
    """Each player draws 2 tiles into a private hand; 3 tiles form the market."""
    state = new_game(catalog, GameOptions(players=players), 7)
    assert [len(s.hand) for s in state.seats] == [2] * players
    assert len(state.market) == 3 and None not in state.market


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_bag_holds_108_tiles(players, catalog):
    """Three of each of the 36 colour x pattern tiles, 108 in all, counting those dealt."""
    state = new_game(catalog, GameOptions(players=players), 3)
    assert tile_census(state) == [3] * 36
    assert state.config.bag_size == 108
    assert state.bag_count == 108 - 2 * players - 3


@pytest.mark.parametrize("players", [1, 2])
def test_lower_variance_bag_holds_72_tiles(players, catalog):
    """The lower-variance variant removes one set of 36: two of each tile, 72 in all."""
    state = new_game(catalog, GameOptions(players=players, lower_variance=True), 3)
    assert tile_census(state) == [2] * 36
    assert state.config.bag_size == 72


@pytest.mark.parametrize("players", [3, 4])
def test_lower_variance_rejected_for_three_or_four_players(players, catalog):
    """The lower-variance variant is for one or two players."""
    with pytest.raises(errors.BadOptionsError) as exc:
        new_game(catalog, GameOptions(players=players, lower_variance=True), 3)
    assert exc.value.code == "bad_options"


@pytest.mark.parametrize("players", [0, 5])
def test_one_to_four_players(players):
    """Calico is for 1-4 players."""
    with pytest.raises(ValueError):
        GameOptions(players=players)


def test_each_seat_gets_its_own_board(catalog):
    """Boards differ per seat (four players use all four), and are dealt at random."""
    seen = set()
    for seed in range(20):
        state = new_game(catalog, GameOptions(players=4), seed)
        boards = [s.board for s in state.seats]
        assert sorted(boards) == sorted(catalog.boards)
        seen.add(tuple(boards))
        two = new_game(catalog, GameOptions(players=2), seed)
        assert two.seats[0].board != two.seats[1].board
    assert len(seen) > 1


def test_quilt_starts_with_border_and_goal_spots(catalog):
    """A fresh quilt shows the board's printed patches, three goal spots and 22 empty cells."""
    state = new_game(catalog, BEGINNER, 1)
    for seat in state.seats:
        b = catalog.boards[seat.board].border
        for (r, c), patch in b.items():
            t = seat.quilt[r * 7 + c]
            assert (catalog.color_ids[t // 6], PATTERNS[t % 6]) == (patch.color, patch.pattern)
        assert sum(1 for t in seat.quilt if t == -1) == 22
        assert [i for i, t in enumerate(seat.quilt) if t == -2] == sorted(
            (r * 7 + c) for r, c in (rc("B3"), rc("C4"), rc("D2")))


def test_chosen_boards(catalog):
    """Players may pick their boards; the same board twice is refused."""
    state = new_game(catalog, GameOptions(players=2, boards=("yellow", "green")), 1)
    assert [s.board for s in state.seats] == ["yellow", "green"]
    for boards in (("green", "green"), ("green",), ("green", "plaid")):
        with pytest.raises(errors.BadOptionsError):
            new_game(catalog, GameOptions(players=2, boards=boards), 1)


def test_beginner_setup(catalog):
    """Millie, Tibbit, Coconut; ≠ on B3, AA-BB-CC on C4, AAA-BBB on D2; no draft."""
    state = new_game(catalog, GameOptions(players=3, setup=Setup.BEGINNER), 5)
    assert [c.id for c in state.config.cats] == ["millie", "tibbit", "coconut"]
    assert state.phase is Phase.PLAY
    for s in state.seats:
        assert s.goals == ("all-different", "aa-bb-cc", "aaa-bbb")
        assert s.goal_offer == ()
    assert not [m for m in legal_moves(state) if isinstance(m, ChooseGoals)]


def test_every_pattern_belongs_to_exactly_one_cat(catalog):
    """The six pattern tiles are dealt two to each cat, at random."""
    deals = set()
    for seed in range(30):
        cfg = new_game(catalog, BEGINNER, seed).config
        pats = [p for c in cfg.cats for p in c.patterns]
        assert sorted(pats) == list(range(6))
        deals.add(tuple(pats))
    assert len(deals) > 1


def test_standard_setup_draws_one_cat_per_dot_group(catalog):
    """One cat with •, one with ••, one with •••, drawn at random."""
    seen = Counter()
    for seed in range(60):
        cats = new_game(catalog, GameOptions(players=2), seed).config.cats
        assert [catalog.cats[c.id].dots for c in cats] == [1, 2, 3]
        for c in cats:
            rule = catalog.cats[c.id]
            assert (c.points, c.min_size, c.shape) == (rule.points, rule.min_size or 0,
                                                      tuple(rule.shape or ()))
        seen.update(c.id for c in cats)
    assert set(seen) == set(catalog.cats)


def test_players_may_choose_the_cats(catalog):
    """The rulebook allows choosing the three cats instead of drawing them."""
    state = new_game(catalog, GameOptions(players=2, cats=("leo", "callie", "cira")), 1)
    assert [c.id for c in state.config.cats] == ["leo", "callie", "cira"]
    for cats in (("leo", "leo", "cira"), ("leo", "callie", "garfield")):
        with pytest.raises(errors.BadOptionsError):
            new_game(catalog, GameOptions(players=2, cats=cats), 1)


PRINTED_TILES = {frozenset(p) for p in (("millie", "callie"), ("tibbit", "rumi"),
                                        ("coconut", "tecolote"), ("cira", "almond"),
                                        ("gwenivere", "leo"))}


def test_cat_scoring_tiles_are_double_sided(catalog):
    """Five double-sided tiles (data.md): each cat shares one with a cat of its dots and
    points (the rulebook lets a player out of tokens use the back's, worth the same)."""
    assert {frozenset(t.sides) for t in catalog.cat_tiles} == PRINTED_TILES
    for t in catalog.cat_tiles:
        a, b = (catalog.cats[c] for c in t.sides)
        assert (a.dots, a.points) == (b.dots, b.points)
        assert catalog.back_of(a.id) == b.id and catalog.back_of(b.id) == a.id


@pytest.mark.parametrize("pair", sorted(tuple(sorted(p)) for p in PRINTED_TILES))
def test_chosen_cats_cannot_be_both_sides_of_one_tile(pair, catalog):
    """Choosing the cats picks tiles and a side of each: never both sides of one tile."""
    third = next(c for c in ("coconut", "millie") if catalog.cat_tile(c).id
                 != catalog.cat_tile(pair[0]).id)
    with pytest.raises(errors.BadOptionsError) as exc:
        new_game(catalog, GameOptions(players=2, cats=(pair[0], third, pair[1])), 1)
    assert exc.value.code == "bad_options" and "one cat scoring tile" in exc.value.message


def test_standard_setup_draws_a_tile_per_dot_group_and_a_side(catalog):
    """Standard setup: one tile from each dot group, then one of its sides, both at random
    (over 400 seeds each tile and each side turns up, roughly evenly)."""
    tiles, sides = Counter(), Counter()
    for seed in range(400):
        cats = [c.id for c in new_game(catalog, GameOptions(players=2), seed).config.cats]
        assert catalog.same_tile(cats) is None
        tiles.update(catalog.cat_tile(c).id for c in cats)
        sides.update(cats)
    assert tiles["gwenivere-leo"] == 400
    for a, b in (("millie-callie", "tibbit-rumi"), ("coconut-tecolote", "cira-almond")):
        assert tiles[a] + tiles[b] == 400 and 150 < tiles[a] < 250
    for t in catalog.cat_tiles:
        a, b = t.sides
        assert 0.3 < sides[a] / (sides[a] + sides[b]) < 0.7, t.id


def test_cat_draw_reads_the_generator_as_before(catalog):
    """Drawing by tile reads the seed exactly as the earlier draw of a cat by name within its
    dot group did, so games stored before cats were drawn by tile replay unchanged."""
    for seed in range(200):
        rng, expected = seed_state(seed), []
        for dots in (1, 2, 3):
            group = sorted(c for c, d in catalog.cats.items() if d.dots == dots)
            rng, i = below(rng, len(group))
            expected.append(group[i])
        got = [c.id for c in new_game(catalog, GameOptions(players=3), seed).config.cats]
        assert got == expected, seed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups())
def test_no_game_holds_both_sides_of_a_cat_tile(setup):
    """Whatever the options (standard, beginner, chosen cats, scenarios), the three cats in
    play are on three different scoring tiles."""
    options, seed, _ = setup
    cats = [c.id for c in new_game(CATALOG, options, seed).config.cats]
    tiles = {CATALOG.cat_tile(c).id for c in cats}
    assert len(tiles) == 3, cats


def test_family_variant_needs_the_standard_setup(catalog):
    """The family variant starts from the standard setup: with the beginner setup the options
    are refused (BadOptionsError, code bad_options, inside pydantic's ValidationError)."""
    with pytest.raises(ValidationError) as exc:
        GameOptions(players=2, setup=Setup.BEGINNER, family=True)
    err = errors.engine_error(exc.value)
    assert isinstance(err, errors.BadOptionsError) and err.code == "bad_options"
    assert "standard setup" in err.message
    with pytest.raises(ValueError):
        GameOptions.model_validate({"setup": "beginner", "family": True})
    state = new_game(catalog, GameOptions(players=2, setup=Setup.STANDARD, family=True), 1)
    assert state.phase is Phase.PLAY and all(s.goals is None for s in state.seats)


def test_family_beginner_games_stored_earlier_still_replay(catalog):
    """Options read back with the STORED context skip the rule, so a game created before it
    (family with the beginner setup) still sets up and replays."""
    options = GameOptions.model_validate({"players": 2, "setup": "beginner", "family": True},
                                         context=STORED)
    state = new_game(catalog, options, 3)
    assert [c.id for c in state.config.cats] == list(catalog.beginner_cats)
    assert all(s.goals is None for s in state.seats)
    state, _ = apply(state, legal_moves(state)[0])
    record = game_record(options, 3, [legal_moves(new_game(catalog, options, 3))[0]])
    assert replay(catalog, record) == state


def test_standard_goal_draft_offers_four_of_the_six(catalog):
    """Each player reveals 4 of their 6 goal tiles; the game waits in the draft phase."""
    offers = set()
    for seed in range(10):
        state = new_game(catalog, GameOptions(players=3), seed)
        assert state.phase is Phase.DRAFT and state.current_seat is None
        for s in state.seats:
            assert len(s.goal_offer) == 4 == len(set(s.goal_offer))
            assert set(s.goal_offer) <= set(catalog.goals)
            assert s.goals is None
            offers.add(frozenset(s.goal_offer))
    assert len(offers) > 1


def test_draft_legal_moves_are_every_arrangement_of_three_of_four(catalog):
    """4 x 3 x 2 = 24 ways to choose three goals and arrange them on B3, C4, D2."""
    state = new_game(catalog, GameOptions(players=2), 4)
    moves = legal_moves(state, 1)
    offer = state.seats[1].goal_offer
    assert {m.goals for m in moves} == set(permutations(offer, 3))
    assert all(m.seat == 1 for m in moves) and len(moves) == 24


def test_chosen_goals_go_where_the_player_put_them(catalog):
    """The arrangement chosen is kept: first on B3, second on C4, third on D2."""
    state = new_game(catalog, GameOptions(players=2), 4)
    offer = state.seats[0].goal_offer
    pick = (offer[3], offer[0], offer[2])
    state, events = apply(state, ChooseGoals(0, pick))
    assert state.seats[0].goals == pick and state.seats[0].goal_offer == ()
    assert kinds(events) == ["goals_chosen"] and events[0].goals == pick


def test_game_starts_when_all_have_chosen(catalog):
    """Play begins only once every player has placed their goals, in any order."""
    state = new_game(catalog, GameOptions(players=3), 8)
    for n, seat in enumerate((2, 0, 1)):
        offer = state.seats[seat].goal_offer
        assert state.phase is Phase.DRAFT
        state, events = apply(state, ChooseGoals(seat, offer[:3]))
        if n < 2:
            assert kinds(events) == ["goals_chosen"]
    assert state.phase is Phase.PLAY
    assert kinds(events) == ["goals_chosen", "game_started", "turn_passed"]
    assert events[1].first_seat == state.first_seat == state.current_seat


def test_deciding_seat_follows_the_draft_then_the_turns(catalog):
    """Whoever a move is awaited from: a seat still choosing goals, then the player to move."""
    state = new_game(catalog, GameOptions(players=3), 8)
    state, _ = apply(state, ChooseGoals(0, state.seats[0].goal_offer[:3]))
    assert state.deciding_seat == 1  # seat 0 has chosen
    state, _ = apply(state, ChooseGoals(2, state.seats[2].goal_offer[:3]))
    assert state.deciding_seat == 1
    state, _ = apply(state, ChooseGoals(1, state.seats[1].goal_offer[:3]))
    assert state.deciding_seat == state.first_seat
    state, _ = apply(state, legal_moves(state)[0])
    assert state.deciding_seat == (state.first_seat + 1) % 3


@pytest.mark.parametrize("bad", ["not offered", "repeated", "unknown"])
def test_illegal_goal_choices_are_rejected(bad, catalog):
    """Goals not offered, the same goal twice or an unknown goal: BadGoalsError, no change."""
    state = new_game(catalog, GameOptions(players=2), 4)
    offer = state.seats[0].goal_offer
    missing = next(g for g in catalog.goals if g not in offer)
    goals = {"not offered": (offer[0], offer[1], missing),
             "repeated": (offer[0], offer[0], offer[1]),
             "unknown": (offer[0], offer[1], "plaid")}[bad]
    with pytest.raises(errors.BadGoalsError) as exc:
        apply(state, ChooseGoals(0, goals))
    assert exc.value.code == "bad_goals"
    assert state.seats[0].goal_offer == offer and state.phase is Phase.DRAFT


def test_choosing_goals_twice_is_refused(catalog):
    """A player who has chosen cannot choose again."""
    state = new_game(catalog, GameOptions(players=2), 4)
    offer = state.seats[0].goal_offer
    state, _ = apply(state, ChooseGoals(0, offer[:3]))
    with pytest.raises(errors.WrongPhaseError):
        apply(state, ChooseGoals(0, offer[1:]))


def test_no_tiles_placed_during_the_draft(catalog):
    """Placing a tile before everyone has chosen goals is the wrong phase."""
    state = new_game(catalog, GameOptions(players=2, first_seat=0), 4)
    with pytest.raises(errors.WrongPhaseError):
        apply(state, PlaceTile(0, 8, 0, 0))


def test_first_player_is_random_but_reproducible(catalog):
    """The first seat comes from the seed: the same seed, the same first player."""
    firsts = [new_game(catalog, GameOptions(players=4), s).first_seat for s in range(40)]
    assert firsts == [new_game(catalog, GameOptions(players=4), s).first_seat for s in range(40)]
    assert set(firsts) == {0, 1, 2, 3}


@pytest.mark.parametrize("first", [0, 1, 2])
def test_chosen_first_seat(first, catalog):
    """Players may say who starts; turns then go round from that seat."""
    state = new_game(catalog, GameOptions(players=3, setup=Setup.BEGINNER, first_seat=first), 9)
    assert state.first_seat == first == state.current_seat
    state, events = apply(state, legal_moves(state)[0])
    assert events[-1].kind == "turn_passed" and events[-1].seat == (first + 1) % 3


def test_first_seat_out_of_range_is_refused(catalog):
    """A first seat that does not exist: bad options."""
    with pytest.raises(errors.BadOptionsError):
        new_game(catalog, GameOptions(players=2, first_seat=2), 1)
