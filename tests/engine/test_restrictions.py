"""The five rule restrictions (achievement mode) and the rulings for them (data.md)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import errors
from engine.config import GameOptions, Restriction, Setup
from engine.hexgrid import cell_of
from engine.moves import PlaceTile
from engine.rules import apply, legal_moves
from engine.scoring import breakdown
from engine.state import Phase
from tests.engine.helpers import (
    PLAYABLE,
    build,
    neighbours,
    play_random,
    rc,
    solo_beginner,
    started,
    tile_of,
)


def cell(name):
    return cell_of(*rc(name))


def expected_pairs(state):
    """(source, cell) pairs the current player may use, worked out from the rule text."""
    cfg = state.config
    seat = state.seats[state.current_seat]
    if cfg.restriction is Restriction.NO_HAND:
        sources = [(i, t) for i, t in enumerate(state.market) if t is not None]
    else:
        sources = list(enumerate(seat.hand))
    empty = [n for n in PLAYABLE if seat.quilt[cell(n)] == -1]

    def touches(n, same):
        return any(seat.quilt[cell_of(r, c)] >= 0 and same(seat.quilt[cell_of(r, c)])
                   for r, c in neighbours(*rc(n)))

    def ok(t, n):
        r = cfg.restriction
        if r is Restriction.ADJACENT:  # placed tiles only: the border does not count
            return any(cell_of(*x) in seat.placed for x in neighbours(*rc(n)))
        if r is Restriction.SAME_COLOR:
            return touches(n, lambda u: u // 6 == t // 6)
        if r is Restriction.SAME_PATTERN:
            return touches(n, lambda u: u % 6 == t % 6)
        return True

    pairs = {(i, cell(n)) for i, _ in sources for n in empty}
    if cfg.restriction is Restriction.ADJACENT and not seat.placed:
        return pairs  # ruling: the first tile may go anywhere
    good = {(i, cell(n)) for i, t in sources for n in empty if ok(t, n)}
    return good or pairs  # ruling: when nothing satisfies the restriction, anywhere


def legal_pairs(state):
    out = set()
    for m in legal_moves(state):
        out.add((m.market if m.hand is None else m.hand, m.cell))
    return out


@pytest.mark.parametrize(
    "restriction",
    [Restriction.ADJACENT, Restriction.SAME_COLOR, Restriction.SAME_PATTERN, Restriction.NO_HAND],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_legal_placements_follow_the_restriction_all_game(restriction, seed):
    """At every turn of a random game the legal placements are exactly what the rule allows."""
    players = 1 + seed

    def check(before, move, after, events):
        if before.phase is Phase.PLAY:
            assert legal_pairs(before) == expected_pairs(before)

    play_random(GameOptions(players=players, setup=Setup.BEGINNER, restriction=restriction),
                seed, seed, check)


# --------------------------------------------------------------------------- 1. adjacent


def test_adjacent_first_tile_goes_anywhere():
    """Ruling: the first tile may go on any of the 22 cells."""
    state = started(solo_beginner(restriction=Restriction.ADJACENT), 1)
    assert {c for _, c in legal_pairs(state)} == {cell(n) for n in PLAYABLE}


def test_adjacent_later_tiles_touch_a_placed_tile_not_the_border():
    """After the first tile, only cells next to a placed tile; the border does not count."""
    state = started(solo_beginner(restriction=Restriction.ADJACENT), 1)
    state, _ = apply(state, PlaceTile(0, cell("A1"), 0, 0))
    assert {c for _, c in legal_pairs(state)} == {cell(n) for n in ("A2", "B1", "B2")}
    before = state
    with pytest.raises(errors.RestrictionError) as exc:
        apply(state, PlaceTile(0, cell("A5"), 0, 0))  # A5 touches only border patches
    assert exc.value.code == "restriction" and state == before


# --------------------------------------------------------------------------- 2. both ways

B3_AROUND = ("A2", "A3", "B2", "B4", "C2", "C3")


def test_both_ways_goals_score_nothing_one_way():
    """With the restriction, a goal met only by colours scores 0."""
    tiles = [(n, c, "dots") for n, c in zip(B3_AROUND, ("dark-blue", "green", "light-blue",
                                                         "magenta", "purple", "yellow"),
                                            strict=True)]
    goals = ("all-different", "aa-bb-cc", "aaa-bbb")
    config, seat, _ = build("blue", tiles, goals=goals, restriction=Restriction.BOTH_WAYS)
    g = breakdown(config, seat)["goals"][0]
    assert (g["colors"], g["patterns"], g["points"]) == (True, False, 0)
    config, seat, _ = build("blue", tiles, goals=goals)
    assert breakdown(config, seat)["goals"][0]["points"] == 10


def test_both_ways_goals_score_both_ways_value():
    """With the restriction, a goal met by colours and patterns scores its both-ways value."""
    colors = ("dark-blue", "green", "light-blue", "magenta", "purple", "yellow")
    patterns = ("dots", "ferns", "flowers", "quatrefoil", "stripes", "vines")
    tiles = list(zip(B3_AROUND, colors, patterns[::-1], strict=True))
    config, seat, _ = build("blue", tiles, goals=("all-different", "aa-bb-cc", "aaa-bbb"),
                            restriction=Restriction.BOTH_WAYS)
    assert breakdown(config, seat)["goals"][0]["points"] == 15


def test_both_ways_restriction_reaches_the_game_config():
    """A game started with the restriction scores its goals under it."""
    state = started(GameOptions(players=2, restriction=Restriction.BOTH_WAYS), 1)
    assert state.config.restriction is Restriction.BOTH_WAYS


# --------------------------------------------------------------------------- 3. no hand


def test_no_hand_starts_with_no_tiles():
    """Players start with no tiles; the market still holds 3."""
    state = started(GameOptions(players=3, restriction=Restriction.NO_HAND), 2)
    assert all(s.hand == () for s in state.seats)
    assert len([t for t in state.market if t is not None]) == 3
    assert state.bag_count == 108 - 3


def test_no_hand_places_straight_from_the_market():
    """Each turn takes one market tile and places it at once; the slot is refilled."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER, first_seat=0,
                                restriction=Restriction.NO_HAND), 2)
    moves = legal_moves(state)
    assert {(m.hand, m.market) for m in moves} == {(None, 0), (None, 1), (None, 2)}
    assert len(moves) == 3 * 22
    after, events = apply(state, PlaceTile(0, cell("C3"), None, 1))
    assert after.seats[0].quilt[cell("C3")] == state.market[1]
    assert after.seats[0].hand == ()
    assert after.market[0] == state.market[0] and after.market[2] == state.market[2]
    placed = next(e for e in events if e.kind == "tile_placed")
    assert placed.from_market and placed.cell == "C3"
    with pytest.raises(errors.NoSuchHandTileError) as exc:
        apply(state, PlaceTile(0, cell("C3"), 0, 1))
    assert exc.value.code == "no_such_hand_tile"


@pytest.mark.parametrize("players", [1, 3])
def test_no_hand_game_runs_to_the_end(players):
    """Without a hand every quilt still fills in 22 turns, the last one from the market."""
    state, moves, _ = play_random(GameOptions(players=players, restriction=Restriction.NO_HAND),
                                  5, 5)
    assert state.phase is Phase.OVER
    assert all(len(s.placed) == 22 and s.hand == () for s in state.seats)
    assert all(m.hand is None and m.market is not None for m in moves
               if isinstance(m, PlaceTile))


# --------------------------------------------------------------------------- 4 and 5


def _cornered(restriction, hand_colors, hand_patterns, empty=("B2", "D4")):
    """A solo state whose only empty cells are ``empty`` (which touch no border), every other
    cell holding a tile of neither the hand's colours nor its patterns."""
    state = started(solo_beginner(restriction=restriction), 3)
    other_c = [c for c in range(6) if c not in hand_colors]
    other_p = [p for p in range(6) if p not in hand_patterns]
    quilt = list(state.seats[0].quilt)
    placed = []
    for i, n in enumerate(n for n in PLAYABLE if n not in empty):
        quilt[cell(n)] = other_c[i % len(other_c)] * 6 + other_p[i % len(other_p)]
        placed.append(cell(n))
    hand = tuple(c * 6 + p for c, p in zip(hand_colors, hand_patterns, strict=True))
    seat = replace(state.seats[0], quilt=tuple(quilt), placed=tuple(placed), hand=hand)
    return replace(state, seats=(seat,))


@pytest.mark.parametrize("restriction", [Restriction.SAME_COLOR, Restriction.SAME_PATTERN])
def test_same_colour_or_pattern_falls_back_to_anywhere(restriction):
    """Ruling: when no cell suits either hand tile, the player places anywhere."""
    state = _cornered(restriction, (0, 0), (0, 0))
    assert legal_pairs(state) == {(h, cell(n)) for h in (0, 1) for n in ("B2", "D4")}
    after, _ = apply(state, PlaceTile(0, cell("D4"), 1, 2))
    assert after.seats[0].quilt[cell("D4")] == 0


@pytest.mark.parametrize("restriction", [Restriction.SAME_COLOR, Restriction.SAME_PATTERN])
def test_a_tile_that_fits_takes_precedence(restriction):
    """If one hand tile has a suitable cell, only suitable placements are legal."""
    state = _cornered(restriction, (0, 1), (0, 1))
    seat = state.seats[0]
    # put a tile sharing colour 0 and pattern 0 next to D4 (on D5)
    quilt = list(seat.quilt)
    quilt[cell("D5")] = 0 * 6 + 0
    state = replace(state, seats=(replace(seat, quilt=tuple(quilt)),))
    assert legal_pairs(state) == {(0, cell("D4"))}
    with pytest.raises(errors.RestrictionError):
        apply(state, PlaceTile(0, cell("B2"), 1, 0))


def test_same_colour_counts_border_patches():
    """A tile may go next to a printed patch of its colour."""
    state = started(solo_beginner(restriction=Restriction.SAME_COLOR, boards=("blue",)), 1)
    # blue (0,2) is light-blue vines: it touches A1 and A2. Hand: one light-blue tile only.
    seat = replace(state.seats[0], hand=(tile_of("light-blue", "dots"),))
    state = replace(state, seats=(seat,))
    cells = {c for _, c in legal_pairs(state)}
    assert cell("A1") in cells and cell("A2") in cells
    # every allowed cell touches a light-blue patch (nothing is placed yet)
    assert cells == {c for _, c in expected_pairs(state)}
    assert cell("C3") not in cells  # touches no border at all


def test_same_pattern_counts_border_patches():
    """A tile may go next to a printed patch of its pattern."""
    state = started(solo_beginner(restriction=Restriction.SAME_PATTERN, boards=("blue",)), 1)
    # blue (1,0) is green flowers: it touches A1 and B1.
    seat = replace(state.seats[0], hand=(tile_of("yellow", "flowers"),))
    state = replace(state, seats=(seat,))
    cells = {c for _, c in legal_pairs(state)}
    assert {cell("A1"), cell("B1")} <= cells
    assert cell("B2") not in cells


def test_restriction_error_leaves_the_state_unchanged():
    """An illegal placement under a restriction raises and changes nothing."""
    state = started(solo_beginner(restriction=Restriction.SAME_COLOR, boards=("blue",)), 1)
    seat = replace(state.seats[0], hand=(tile_of("light-blue", "dots"),
                                         tile_of("light-blue", "ferns")))
    state = replace(state, seats=(seat,))
    snapshot = state
    with pytest.raises(errors.RestrictionError) as exc:
        apply(state, PlaceTile(0, cell("C3"), 0, 0))
    assert exc.value.code == "restriction" and state == snapshot


def test_random_play_is_unaffected_without_a_restriction():
    """No restriction: every empty cell is legal for every hand tile."""
    state = started(GameOptions(players=2, setup=Setup.BEGINNER), 3)
    rng = random.Random(3)
    for _ in range(10):
        assert legal_pairs(state) == expected_pairs(state)
        state, _ = apply(state, rng.choice(legal_moves(state)))
