"""Cats: size thresholds, shapes in every rotation, the containment ruling, border patches, and
which groups may attract a cat (data.md, "Cats" and "Tokens: when a group scores")."""

from __future__ import annotations

from functools import cache

import pytest

from tests.engine.helpers import (
    BOARDS,
    CATALOG,
    COLORS,
    GOAL_SPOTS,
    PLAYABLE,
    build,
    cat_count,
    cats_with,
    free_patterns,
    holds_shape,
    neighbours,
    normalised,
    of_kind,
    pattern_group,
    placements_of,
    rc,
    rotations,
    to_axial,
)
from tests.engine.helpers import name_of as cell_name_of

SIZE_CATS = {"millie": 3, "tibbit": 4, "coconut": 5, "cira": 6, "gwenivere": 7}
SHAPE_CATS = ("callie", "rumi", "tecolote", "almond", "leo")
# seven connected cells; only E3 touches the border, so a group of them is exactly these cells
PATH = ("B2", "C2", "C3", "D3", "D4", "B4", "E3")


def tiles(cells, pattern):
    """One tile of ``pattern`` on each cell; each cell always gets the same colour."""
    return [(c, COLORS[PLAYABLE.index(c) % 6], pattern) for c in cells]


def cat_events(steps):
    return [of_kind(s, "cat_attracted") for s in steps]


def board_and_pattern(cells, avoid=()):
    """A board and a pattern no border patch next to ``cells`` shows."""
    for board in BOARDS:
        free = [p for p in free_patterns(board, cells) if p not in avoid]
        if free:
            return board, free[0]
    raise AssertionError(f"no board leaves a free pattern around {cells}")


def second_pattern(pattern):
    return next(p for p in CATALOG.pattern_ids if p != pattern)


# --------------------------------------------------------------------------- size cats


@pytest.mark.parametrize("cat", list(SIZE_CATS))
def test_size_cat_comes_exactly_at_its_threshold(cat):
    """A group of exactly N tiles of a liked pattern attracts the cat, on the N-th placement."""
    n = SIZE_CATS[cat]
    cells = PATH[:n]
    board, p = board_and_pattern(cells)
    config, seat, steps = build(board, tiles(cells, p), cats_with(cat, (p, second_pattern(p))))
    got = cat_events(steps)
    assert [len(g) for g in got] == [0] * (n - 1) + [1]
    ev = got[-1][0]
    assert (ev.cat, ev.pattern, ev.cell, ev.points) == (cat, p, cells[-1],
                                                       CATALOG.cats[cat].points)
    assert sorted(ev.group) == sorted(cells)
    assert cat_count(config, seat, cat) == 1


@pytest.mark.parametrize("cat", list(SIZE_CATS))
def test_size_cat_does_not_come_one_below_its_threshold(cat):
    """A group of N-1 tiles earns nothing."""
    n = SIZE_CATS[cat]
    cells = PATH[: n - 1]
    board, p = board_and_pattern(PATH[:n])
    config, seat, steps = build(board, tiles(cells, p), cats_with(cat, (p, second_pattern(p))))
    assert not any(cat_events(steps))
    assert cat_count(config, seat, cat) == 0


@pytest.mark.parametrize("cat", list(SIZE_CATS))
def test_size_cat_second_pattern_counts_too(cat):
    """Either of a cat's two patterns will do."""
    n = SIZE_CATS[cat]
    cells = PATH[:n]
    board, p = board_and_pattern(cells)
    config, seat, _ = build(board, tiles(cells, p), cats_with(cat, (second_pattern(p), p)))
    assert cat_count(config, seat, cat) == 1


def test_size_cat_ignores_other_cats_patterns():
    """A big group of a pattern the cat does not like attracts no cat of that kind."""
    cells = PATH[:7]
    board, p = board_and_pattern(cells)
    others = [q for q in CATALOG.pattern_ids if q != p]
    config, seat, _ = build(board, tiles(cells, p), cats_with("gwenivere", others[:2]))
    assert cat_count(config, seat, "gwenivere") == 0


def test_border_patches_count_toward_a_group():
    """Two tiles next to a printed patch of the same pattern make a group of 3 for Millie."""
    # blue board: the border patch (1,0) is green flowers; it touches A1, and A1 touches A2.
    # No other flowers patch touches A1 or A2 ((0,1) stripes, (0,2) vines, (0,3) ferns).
    config, seat, steps = build(
        "blue", [("A1", "yellow", "flowers"), ("A2", "purple", "flowers")],
        cats_with("millie", ("flowers", "dots")))
    got = cat_events(steps)
    assert [len(g) for g in got] == [0, 1]
    assert len(got[1][0].group) == 3
    assert cat_count(config, seat, "millie") == 1


# --------------------------------------------------------------------------- shape cats


def test_rotation_counts_match_data_md():
    """Lines have 3 rotations, the triangle 2, the trapezoid 6 (a check of the test generator)."""
    counts = {c: len(rotations(CATALOG.cats[c].shape)) for c in SHAPE_CATS}
    assert counts == {"callie": 2, "rumi": 3, "tecolote": 3, "almond": 6, "leo": 3}


def completes_last(board, p, cells, shape, before=()):
    """True when, with pattern ``p`` on ``before`` then ``cells``, the tiles plus the border
    patches of ``p`` first hold ``shape`` on the last tile, and no set missing one of ``cells``
    holds it (so "one tile short" really is short)."""
    if not holds_shape(pattern_group(board, p, [*before, *cells]), shape):
        return False
    return all(
        not holds_shape(pattern_group(board, p, [*before, *(c for c in cells if c != m)]), shape)
        for m in cells
    )


@cache
def shape_layouts(cat):
    """(board, pattern, cells) for every rotation and every position of the cat's shape on the
    playable cells, with a board and pattern whose border patches do not complete it early."""
    shape = CATALOG.cats[cat].shape
    out = []
    for rot in rotations(shape):
        found = 0
        for cells in placements_of(rot):
            choice = next(((b, p) for b in BOARDS for p in CATALOG.pattern_ids
                           if completes_last(b, p, cells, shape)), None)
            if choice is not None:
                out.append((*choice, cells))
                found += 1
        assert found, f"{cat}: rotation {rot} fits nowhere"
    return out


@pytest.mark.parametrize("cat", SHAPE_CATS)
def test_shape_cat_in_every_rotation_and_position(cat):
    """The shape, in each rotation and wherever it fits, attracts the cat on its last tile."""
    rots = {normalised(r) for r in rotations(CATALOG.cats[cat].shape)}
    seen_rotations = set()
    for board, p, cells in shape_layouts(cat):
        config, seat, steps = build(board, tiles(cells, p), cats_with(cat, (p, second_pattern(p))))
        got = cat_events(steps)
        assert [len(g) for g in got] == [0] * (len(cells) - 1) + [1], (cat, board, p, cells)
        assert got[-1][0].cat == cat and got[-1][0].points == CATALOG.cats[cat].points
        assert cat_count(config, seat, cat) == 1
        seen_rotations.add(normalised(_axial(cells)))
    assert seen_rotations == rots


@pytest.mark.parametrize("cat", SHAPE_CATS)
def test_shape_cat_one_tile_short_earns_nothing(cat):
    """The shape minus any one of its tiles, in every rotation and position, attracts nothing."""
    for board, p, cells in shape_layouts(cat):
        for missing in cells:
            rest = [c for c in cells if c != missing]
            config, seat, _ = build(board, tiles(rest, p), cats_with(cat, (p, second_pattern(p))))
            assert cat_count(config, seat, cat) == 0, (cat, board, p, cells, missing)


def _axial(cells):
    return [to_axial(*rc(c)) for c in cells]


@pytest.mark.parametrize("cat", SHAPE_CATS)
def test_shape_cat_extra_tiles_attached_do_not_spoil_it(cat):
    """Containment ruling: extra tiles attached to the shape, before or after, do not spoil it."""
    # every rotation; the extras come first in one quilt, after the shape in another
    shape = CATALOG.cats[cat].shape
    done = set()
    for board, p, cells in shape_layouts(cat):
        rot = normalised(_axial(cells))
        if rot in done:
            continue
        around = sorted({cell_name_of(*n) for c in cells for n in neighbours(*rc(c))
                         if n[0] in range(1, 6) and n[1] in range(1, 6)}
                        - set(cells) - set(GOAL_SPOTS))
        extra = next((list(e) for e in ([a, b] for a in around for b in around if a < b)
                      if completes_last(board, p, cells, shape, before=e)), None)
        if extra is None:
            continue
        done.add(rot)
        cats = cats_with(cat, (p, second_pattern(p)))
        # extras first: the shape's last tile completes a bigger group
        config, seat, steps = build(board, tiles(extra + cells, p), cats)
        assert [len(of_kind(s, "cat_attracted")) for s in steps] == [0] * (len(steps) - 1) + [1]
        assert cat_count(config, seat, cat) == 1
        # extras after: the cat stays, no second one comes
        config, seat, steps = build(board, tiles(cells + extra, p), cats)
        assert cat_count(config, seat, cat) == 1
    assert done == {normalised(r) for r in rotations(shape)}


@pytest.mark.parametrize(
    ("cat", "cells"),
    [
        ("callie", ["A1", "A2", "A3"]),  # a straight line is no triangle
        ("rumi", ["A1", "A2", "B2"]),  # a triangle is no line
        ("rumi", ["A2", "A1", "B1"]),  # a bent line of three
        ("tecolote", ["A1", "A2", "A3", "B4"]),  # three in a line and one bent off
        ("almond", ["A1", "A2", "A3", "A4", "A5"]),  # a line of five is no trapezoid
        ("almond", ["B2", "C2", "C3", "D3", "D4"]),  # a zigzag of five
        ("leo", ["D3", "D4", "E2", "E3", "E4"]),  # a trapezoid is no line of five
    ],
)
def test_shape_cat_needs_its_shape_not_just_the_size(cat, cells):
    """A group of the right size but the wrong shape attracts nothing."""
    shape = CATALOG.cats[cat].shape
    assert len(cells) == len(shape)
    board, p = next((b, p) for b in BOARDS for p in CATALOG.pattern_ids
                    if not holds_shape(pattern_group(b, p, cells), shape))
    config, seat, _ = build(board, tiles(cells, p), cats_with(cat, (p, second_pattern(p))))
    assert cat_count(config, seat, cat) == 0


def test_border_patch_can_complete_a_shape():
    """Rumi: a printed patch at the end of a line of two tiles makes a line of 3."""
    # blue board: (1,0) green flowers, then A1, A2 in the same row (axial direction (1, 0)).
    config, seat, steps = build(
        "blue", [("A1", "yellow", "flowers"), ("A2", "purple", "flowers")],
        cats_with("rumi", ("flowers", "dots")))
    assert [len(of_kind(s, "cat_attracted")) for s in steps] == [0, 1]
    assert cat_count(config, seat, "rumi") == 1


# --------------------------------------------------------------------------- which groups score

# On the blue board, row A's top border is (0,2) vines, (0,3) ferns, (0,4) quatrefoil,
# (0,5) flowers: dots and stripes are free around A2..A4, and B2, B4, C2, C3, D3 touch no border.
G1 = ("A2", "A3", "A4")
G2 = ("C2", "C3", "D3")  # touches no cell of G1
BRIDGE = "B4"  # touches A3, A4 (G1) and C3 (G2)
MILLIE = cats_with("millie", ("dots", "stripes"))


def test_a_group_touching_a_scored_group_earns_nothing():
    """A new group of the same pattern that merges with a scored one attracts no second cat."""
    placements = tiles(G1, "dots") + tiles(("C2", "C3", BRIDGE), "dots")
    config, seat, steps = build("blue", placements, MILLIE)
    assert [len(of_kind(s, "cat_attracted")) for s in steps] == [0, 0, 1, 0, 0, 0]
    assert cat_count(config, seat, "millie") == 1


def test_a_separate_group_earns_a_second_token():
    """A group of the same pattern that does not touch the scored one attracts another cat."""
    config, seat, steps = build("blue", tiles(G1, "dots") + tiles(G2, "dots"), MILLIE)
    assert [len(of_kind(s, "cat_attracted")) for s in steps] == [0, 0, 1, 0, 0, 1]
    assert cat_count(config, seat, "millie") == 2


def test_two_scored_groups_that_merge_keep_both_cats():
    """Joining two groups that each attracted a cat keeps both cats and earns no third."""
    config, seat, steps = build(
        "blue", tiles(G1, "dots") + tiles(G2, "dots") + tiles((BRIDGE,), "dots"), MILLIE)
    assert not of_kind(steps[-1], "cat_attracted")
    assert cat_count(config, seat, "millie") == 2


def test_a_cats_two_patterns_score_independently_even_when_touching():
    """A dots group and a touching stripes group each attract Millie."""
    placements = tiles(G1, "dots") + tiles((BRIDGE, "C3", "C2"), "stripes")
    config, seat, steps = build("blue", placements, MILLIE)
    got = [[(e.cat, e.pattern) for e in of_kind(s, "cat_attracted")] for s in steps]
    assert got == [[], [], [("millie", "dots")], [], [], [("millie", "stripes")]]
    assert cat_count(config, seat, "millie") == 2


def test_a_second_shape_touching_a_scored_one_earns_nothing():
    """Rumi: a second line of three joined to a scored line brings no second Rumi."""
    rumi = cats_with("rumi", ("dots", "stripes"))
    # A2 A3 A4 is a line (Rumi); B2 touches A2; C1 C2 C3 is a line touching B2.
    # Around C1 the border is (3,0) light-blue ferns, so dots are still free.
    first = tiles(G1, "dots") + tiles(("B2",), "dots")
    config, seat, _ = build("blue", first + tiles(("C1", "C2", "C3"), "dots"), rumi)
    assert cat_count(config, seat, "rumi") == 1
    # the same line of three on its own (no B2) is a separate group and brings a second Rumi
    config, seat, _ = build("blue", tiles(G1, "dots") + tiles(("C1", "C2", "C3"), "dots"), rumi)
    assert cat_count(config, seat, "rumi") == 2


def test_order_of_placement_decides_the_tokens():
    """The same finished groups score differently when a bridge joins them before they score."""
    late_bridge = tiles(G1, "dots") + tiles(G2, "dots") + tiles((BRIDGE,), "dots")
    early_bridge = (tiles(("A3", "A4", BRIDGE), "dots")  # scores Millie at once
                    + tiles(("A2", "C3", "C2", "D3"), "dots"))
    c1, s1, _ = build("blue", late_bridge, MILLIE)
    c2, s2, _ = build("blue", early_bridge, MILLIE)
    assert s1.quilt == s2.quilt
    assert (cat_count(c1, s1, "millie"), cat_count(c2, s2, "millie")) == (2, 1)
