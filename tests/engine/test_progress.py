"""Live progress of a quilt (engine.progress): goals met, open (with the most they may still
give) or no longer possible; pattern groups growing toward a cat, and whether they still can."""

from __future__ import annotations

from dataclasses import replace

import pytest

from data import load_catalog
from engine.config import GameConfig, GameOptions, Restriction
from engine.hexgrid import CELLS, NEIGHBOURS, cell_name, parse_cell
from engine.progress import cat_groups, goal_progress, growing_groups, way_possible
from engine.setup import new_game
from engine.tiles import EMPTY, GOAL


def _config(restriction: Restriction | None = None) -> GameConfig:
    cfg = new_game(load_catalog(), GameOptions(players=1, cats=("millie", "rumi", "leo")),
                   1).config
    return replace(cfg, restriction=restriction)


def _quilt(cfg: GameConfig, tiles: dict[int, int]) -> list[int]:
    q = [EMPTY] * CELLS
    for s in cfg.goal_spots:
        q[s] = GOAL
    for c, t in tiles.items():
        q[c] = t
    return q


def tile(color: int, pattern: int) -> int:
    return color * 6 + pattern


GOALS = ("aaa-bbb", "all-different", "aa-bb-cc")


def _around(cfg: GameConfig, k: int, tiles: list[int]) -> dict[int, int]:
    """``tiles`` on the first neighbours of goal spot ``k`` that are not goal spots."""
    cells = [n for n in NEIGHBOURS[cfg.goal_spots[k]] if n not in cfg.goal_spots]
    return dict(zip(cells, tiles, strict=False))


@pytest.mark.parametrize(("values", "counts", "ok"), [
    ([0, 0, 1], (3, 3), True),
    ([0, 1, 2], (3, 3), False),  # three colours can never be two groups
    ([0, 0, 0, 0], (3, 3), False),  # four of one is more than three
    ([0, 0, 0, 0], (4, 2), True),
    ([0, 1, 2, 3, 4], (1, 1, 1, 1, 1, 1), True),
    ([0, 0], (1, 1, 1, 1, 1, 1), False),
    ([], (2, 2, 1, 1), True),
])
def test_way_possible(values: list[int], counts: tuple[int, ...], ok: bool) -> None:
    assert way_possible(values, counts) is ok


def test_open_goal_gives_the_most_it_still_can() -> None:
    cfg = _config()
    rule = cfg.goal("aaa-bbb")
    # Colours 0 0 1 can still be 3+3; patterns 0 1 2 cannot: one way left.
    q = _quilt(cfg, _around(cfg, 0, [tile(0, 0), tile(0, 1), tile(1, 2)]))
    g = goal_progress(cfg, q, GOALS)[0]
    assert (g.colors, g.patterns, g.state, g.points) == ("open", "failed", "open", rule.one_way)
    assert g.placed == 3
    # Untouched: both ways open, the both-ways value.
    g2 = goal_progress(cfg, q, GOALS)[2]
    assert g2.state == "open" and g2.points == cfg.goal("aa-bb-cc").both_ways


def test_met_and_impossible_goals() -> None:
    cfg = _config()
    spot = cfg.goal_spots[1]  # all different
    ring = NEIGHBOURS[spot]
    both = {c: tile(i, i) for i, c in enumerate(ring) if c not in cfg.goal_spots}
    q = _quilt(cfg, both)
    g = goal_progress(cfg, q, GOALS)[1]
    assert all(q[c] >= 0 for c in ring)  # goal spots are never neighbours
    assert (g.state, g.points) == ("met", cfg.goal("all-different").both_ways)
    # Two of one colour and one pattern twice: all different is gone both ways.
    cells = [c for c in ring if c not in cfg.goal_spots]
    q = _quilt(cfg, {cells[0]: tile(0, 0), cells[1]: tile(0, 0)})
    g = goal_progress(cfg, q, GOALS)[1]
    assert (g.colors, g.patterns, g.state, g.points) == ("failed", "failed", "impossible", 0)


def test_both_ways_only_game_counts_one_way_as_nothing() -> None:
    cfg = _config(Restriction.BOTH_WAYS)
    q = _quilt(cfg, _around(cfg, 0, [tile(0, 0), tile(0, 1), tile(1, 2)]))
    g = goal_progress(cfg, q, GOALS)[0]
    assert (g.state, g.points) == ("impossible", 0)


def _cells(*names: str) -> list[int]:
    return [parse_cell(n) for n in names]


def test_a_growing_group_and_a_shut_in_one() -> None:
    cfg = _config()
    millie = cfg.cat_index("millie")
    p = cfg.cats[millie].patterns[0]
    # Two tiles of Millie's pattern side by side, room around them: 2 of 3, possible.
    a, b = _cells("C2", "C3")
    q = _quilt(cfg, {a: tile(0, p), b: tile(1, p)})
    groups = [g for g in cat_groups(cfg, q, []) if g.pattern == p]
    assert len(groups) == 1
    g = groups[0]
    assert (g.cat, g.size, g.need, g.possible) == (millie, 2, 3, True)
    assert set(g.cells) == {a, b}
    # Every other cell filled with other patterns: the pair is shut in, 2 of 3 for good.
    other = next(k for k in range(6) if cfg.pattern_cat(k) != millie)
    full = [t if t != EMPTY else tile(2, other) for t in q]
    # (keep it a single pattern group: the fill must not touch the pair with its pattern)
    shut = [g for g in cat_groups(cfg, full, []) if g.pattern == p]
    assert len(shut) == 1 and not shut[0].possible


def test_scored_groups_are_left_out_and_block_others() -> None:
    cfg = _config()
    millie = cfg.cat_index("millie")
    p = cfg.cats[millie].patterns[0]
    cells = _cells("B2", "B3", "B4")
    q = _quilt(cfg, {c: tile(i, p) for i, c in enumerate(cells)})
    assert [g.size for g in cat_groups(cfg, q, []) if g.pattern == p] == [3]
    # With a cat token on it, the group has scored: nothing left to grow.
    assert [g for g in cat_groups(cfg, q, [cells[0]]) if g.pattern == p] == []


def test_shape_cat_needs_room_for_its_shape() -> None:
    cfg = _config()
    leo = cfg.cat_index("leo")  # five in a line
    p = cfg.cats[leo].patterns[0]
    other = next(k for k in range(6) if cfg.pattern_cat(k) != leo)
    # Two in row C with room for a line of five through them: possible.
    q = _quilt(cfg, {parse_cell("C2"): tile(0, p), parse_cell("C3"): tile(1, p)})
    g = next(g for g in cat_groups(cfg, q, []) if g.pattern == p)
    assert (g.need, g.possible) == (5, True)
    # Fill every empty cell with another pattern except two next to the pair: a room of four
    # cannot hold a line of five, whatever its size.
    keep = set(_cells("C2", "C3", "B2", "B3"))
    walled = [t if t != EMPTY or c in keep else tile(3, other) for c, t in enumerate(q)]
    g = next(g for g in cat_groups(cfg, walled, []) if g.pattern == p)
    assert not g.possible, [cell_name(c) for c in g.cells]


# --------------------------------------------------------------------------- issue 30


def test_a_group_next_to_a_scored_area_is_not_ringed() -> None:
    """Issue 30's smallest case: purple board, Tibbit on flowers and quatrefoil. Tibbit came
    on A4 (A3, A4, B5 and a printed quatrefoil patch); the printed quatrefoil patch left of A1
    and B1 make a pair that can only grow onto B2 (A2 touches A3, joining the scored area):
    three at most, never Tibbit's four."""
    from tests.engine.helpers import build

    placements = [("A3", "yellow", "quatrefoil"), ("B1", "green", "quatrefoil"),
                  ("C2", "green", "dots"), ("B5", "magenta", "quatrefoil"),
                  ("A4", "purple", "quatrefoil"), ("A1", "yellow", "dots"),
                  ("C1", "purple", "dots")]
    cfg, seat, _ = build("purple", placements)
    tibbit = cfg.cat_index("tibbit")
    assert [(cell_name(c), ci) for c, ci in seat.cats] == [("A4", tibbit)]
    cats = [c for c, _ in seat.cats]
    pair = next(g for g in cat_groups(cfg, seat.quilt, cats) if parse_cell("B1") in g.cells)
    assert (pair.cat, pair.size, pair.need, pair.possible) == (tibbit, 2, 4, False)
    assert all(parse_cell("B1") not in g.cells for g in growing_groups(cfg, seat.quilt, cats))
    # The same pair with A3's tile another pattern: nothing has scored, A2 is room to grow.
    placements[0] = ("A3", "yellow", "dots")
    cfg, seat, _ = build("purple", placements)
    assert seat.cats == ()
    pair = next(g for g in cat_groups(cfg, seat.quilt, []) if parse_cell("B1") in g.cells)
    assert pair.possible


@pytest.mark.parametrize(("cat", "cells"), [
    ("rumi", ("C2", "C3", "D3")),  # three in a triangle: a line of three needs C1 still
    ("callie", ("A1", "A2", "A3")),  # three in a line: a triangle needs B1 or B2 still
])
def test_a_shape_cat_pill_never_reads_done(cat: str, cells: tuple[str, ...]) -> None:
    """Issue 30: a shape cat's group as big as the shape but not in its shape read "3/3"; it
    shows the most of its cells one placement of the shape still to be completed covers."""
    from tests.engine.helpers import PATTERNS, build, cats_with, free_patterns

    pattern = free_patterns("blue", cells)[0]
    other = next(p for p in PATTERNS if p != pattern)
    cfg, seat, _ = build("blue", [(c, ("green", "yellow")[i % 2], pattern)
                                  for i, c in enumerate(cells)], cats_with(cat, (pattern, other)))
    assert seat.cats == ()
    (g,) = [g for g in growing_groups(cfg, seat.quilt, []) if g.cat == cfg.cat_index(cat)]
    assert (g.size, g.have, g.need, g.possible) == (3, 2, 3, True)


def test_six_around_a_goal_read_two_of_rumis_three() -> None:
    """Issue 30's "6/3": six tiles of Rumi's pattern all around the goal on C4 hold no line of
    three (the goal sits where the lines would cross). The pill shows 2/3, the most of them one
    line still to be made covers (B4, C3 and the empty D3), and D3 does bring Rumi."""
    from tests.engine.helpers import PATTERNS, build, cats_with, free_patterns

    cells = ("B4", "B5", "C3", "C5", "D4", "D5")
    pattern = free_patterns("blue", cells)[0]
    other = next(p for p in PATTERNS if p != pattern)
    placements = [(c, ("green", "yellow")[i % 2], pattern) for i, c in enumerate(cells)]
    cats = cats_with("rumi", (pattern, other))
    cfg, seat, _ = build("blue", placements, cats)
    assert seat.cats == ()
    rumi = cfg.cat_index("rumi")
    (g,) = [g for g in growing_groups(cfg, seat.quilt, []) if g.cat == rumi]
    assert sorted(cell_name(c) for c in g.cells) == sorted(cells)
    assert (g.size, g.have, g.need, g.possible) == (6, 2, 3, True)
    cfg, seat, _ = build("blue", [*placements, ("D3", "magenta", pattern)], cats)
    assert [ci for _, ci in seat.cats] == [rumi]


def _all_different_one_short(elsewhere_tiles: list[int]) -> tuple[GameConfig, list[int],
                                                                  tuple[int, ...]]:
    """"All different" on B3 with five different colours and five different patterns around
    it: only a tile of the sixth colour and the sixth pattern meets it both ways."""
    cfg = _config()
    spot = cfg.goal_spots[0]
    cells = list(NEIGHBOURS[spot])
    tiles = {c: tile(i, i) for i, c in enumerate(cells[:5])}
    gone = [0] * 36
    for t in elsewhere_tiles:
        gone[t] += 1
    return cfg, _quilt(cfg, tiles), tuple(gone)


def test_both_ways_struck_when_every_copy_of_the_one_tile_is_gone() -> None:
    """Issue 30: the both-ways value stays only while a copy of the one tile that meets both
    ways may still come; the three copies on other quilts (public) strike it, the one-way
    value stays (a tile of the sixth colour, or of the sixth pattern, still comes)."""
    goals = ("all-different", "aa-bb-cc", "aaa-bbb")
    rule = _config().goal("all-different")
    cfg, q, none_gone = _all_different_one_short([])
    g = goal_progress(cfg, q, goals, none_gone)[0]
    assert (g.both, g.points, g.state) == (True, rule.both_ways, "open")
    last = tile(5, 5)
    for copies in (1, 2):
        cfg, q, gone = _all_different_one_short([last] * copies)
        assert goal_progress(cfg, q, goals, gone)[0].points == rule.both_ways
    cfg, q, gone = _all_different_one_short([last] * 3)
    g = goal_progress(cfg, q, goals, gone)[0]
    assert (g.colors, g.patterns, g.both) == ("open", "open", False)
    assert (g.points, g.state) == (rule.one_way, "open")
    # Every tile of the sixth colour gone too: only the patterns can still meet it.
    cfg, q, gone = _all_different_one_short([tile(5, p) for p in range(6) for _ in range(3)])
    g = goal_progress(cfg, q, goals, gone)[0]
    assert (g.colors, g.patterns, g.points) == ("failed", "open", rule.one_way)
    # In a game counting only goals met both ways, nothing is left.
    both = replace(cfg, restriction=Restriction.BOTH_WAYS)
    cfg, q, gone = _all_different_one_short([last] * 3)
    assert goal_progress(both, q, goals, gone)[0].state == "impossible"
