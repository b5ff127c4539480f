"""The quilt board and the printed components, checked against the facts in data.md."""

from __future__ import annotations

import pytest

from engine.hexgrid import BORDER, CELL_BY_NAME, INNER, NEIGHBOURS, cell_name, cell_of, parse_cell
from engine.state import TURNS_PER_PLAYER
from tests.engine.helpers import (
    CATALOG,
    COLORS,
    GOAL_SPOTS,
    PATTERNS,
    PLAYABLE,
    border,
    is_inner,
    neighbours,
)


def test_neighbours_follow_the_odd_r_layout():
    """Every cell's neighbours are the six odd-r neighbours of data.md (fewer at the edge)."""
    for r in range(7):
        for c in range(7):
            expected = {cell_of(rr, cc) for rr, cc in neighbours(r, c)}
            assert set(NEIGHBOURS[cell_of(r, c)]) == expected, (r, c)


def test_cell_names_are_a1_to_e5():
    """Players name the 25 inner cells A1..E5: letter = row, digit = column."""
    assert sorted(CELL_BY_NAME) == sorted(f"{r}{c}" for r in "ABCDE" for c in range(1, 6))
    assert cell_name(cell_of(1, 1)) == "A1" and cell_name(cell_of(5, 5)) == "E5"
    assert parse_cell("c3") == cell_of(3, 3)
    with pytest.raises(ValueError):
        parse_cell("F1")
    with pytest.raises(ValueError):
        cell_name(cell_of(0, 3))


def test_goal_neighbourhoods():
    """B3, C4 and D2 are surrounded by the inner cells data.md lists."""
    expected = {
        "B3": {"A2", "A3", "B2", "B4", "C2", "C3"},
        "C4": {"B4", "B5", "C3", "C5", "D4", "D5"},
        "D2": {"C1", "C2", "D1", "D3", "E1", "E2"},
    }
    for spot, cells in expected.items():
        got = {cell_name(n) for n in NEIGHBOURS[parse_cell(spot)]}
        assert got == cells
    assert [cell_of(r, c) for r, c in CATALOG.goal_spots] == [parse_cell(s) for s in GOAL_SPOTS]


def test_twenty_two_playable_cells():
    """25 inner cells minus three goal spots leave 22: one per turn."""
    assert len(INNER) == 25 and len(BORDER) == 24
    assert len(PLAYABLE) == TURNS_PER_PLAYER == 22


@pytest.mark.parametrize("board", ["blue", "green", "purple", "yellow"])
def test_border_patches(board):
    """24 printed patches; no two neighbouring patches share a colour or a pattern."""
    b = border(board)
    assert set(b) == {(r, c) for r in range(7) for c in range(7) if not is_inner(r, c)}
    for (r, c), (color, pattern) in b.items():
        assert color in COLORS and pattern in PATTERNS
        for n in neighbours(r, c):
            if n in b:
                assert b[n][0] != color and b[n][1] != pattern, ((r, c), n)


def test_corners_touch_no_inner_cell():
    """The corners (0,0) and (6,0) touch no inner cell."""
    for corner in ((0, 0), (6, 0)):
        assert not [n for n in neighbours(*corner) if is_inner(*n)]


def test_every_board_matches_data_md_spot_checks():
    """A few patches from data.md's board table, read cell by cell."""
    assert border("blue")[(0, 0)] == ("magenta", "vines")
    assert border("green")[(3, 6)] == ("yellow", "stripes")
    assert border("purple")[(6, 6)] == ("purple", "dots")
    assert border("yellow")[(5, 0)] == ("dark-blue", "quatrefoil")


def test_catalogue_cats_match_the_rulebook():
    """Points, dot groups, sizes and shapes of the ten cats as in data.md."""
    table = {
        "millie": (3, 1, 3, None), "tibbit": (5, 1, 4, None), "coconut": (7, 2, 5, None),
        "cira": (9, 2, 6, None), "gwenivere": (11, 3, 7, None),
        "callie": (3, 1, None, ((0, 0), (1, 0), (0, 1))),
        "rumi": (5, 1, None, ((0, 0), (1, 0), (2, 0))),
        "tecolote": (7, 2, None, ((0, 0), (1, 0), (2, 0), (3, 0))),
        "almond": (9, 2, None, ((0, 0), (1, 0), (-1, 1), (0, 1), (1, 1))),
        "leo": (11, 3, None, ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))),
    }
    assert set(CATALOG.cats) == set(table)
    for cid, (points, dots, size, shape) in table.items():
        c = CATALOG.cats[cid]
        assert (c.points, c.dots, c.min_size, c.shape) == (points, dots, size, shape), cid
    assert CATALOG.beginner_cats == ("millie", "tibbit", "coconut")


def test_catalogue_goals_match_the_printed_tiles():
    """Goal counts and the values printed on the tiles (one way, both ways)."""
    table = {
        "all-different": ((1, 1, 1, 1, 1, 1), 10, 15), "aaa-bbb": ((3, 3), 8, 13),
        "aa-bb-cc": ((2, 2, 2), 7, 11), "aaaa-bb": ((4, 2), 8, 14),
        "aaa-bb-c": ((3, 2, 1), 7, 11), "aa-bb-c-d": ((2, 2, 1, 1), 5, 8),
    }
    assert set(CATALOG.goals) == set(table)
    for gid, (counts, one, both) in table.items():
        g = CATALOG.goals[gid]
        assert tuple(sorted(g.counts, reverse=True)) == counts
        assert (g.one_way, g.both_ways) == (one, both)


def test_catalogue_scenarios_match_the_rulebook():
    """The ten solo scenarios: goals, cats, extra conditions and score (data.md's table)."""
    table = {
        1: ("all-different aa-bb-cc aaa-bbb", "millie tibbit coconut", {"rainbow": True}, 58),
        2: ("all-different aaa-bbb aaa-bb-c", "callie tibbit coconut", {"cat_tokens": 5}, 59),
        3: ("all-different aa-bb-cc aa-bb-c-d", "millie rumi coconut",
            {"goals_met": 2, "each_cat": True, "rainbow": True}, 60),
        4: ("all-different aaa-bb-c aa-bb-c-d", "millie tibbit tecolote",
            {"goals_met": 3, "buttons_one_color": 3}, 61),
        5: ("all-different aaaa-bb aa-bb-c-d", "callie coconut cira",
            {"goals_met": 3, "same_cat": 3}, 62),
        6: ("aaaa-bb aaa-bbb aa-bb-cc", "tibbit tecolote almond",
            {"goals_met": 3, "goals_both": 1, "rainbow": True}, 63),
        7: ("aaaa-bb aaa-bbb aaa-bb-c", "rumi coconut gwenivere",
            {"goals_met": 3, "goals_both": 1, "cat_tokens": 5}, 64),
        8: ("aaaa-bb aaa-bb-c aa-bb-cc", "millie almond leo",
            {"goals_met": 2, "goals_both": 1, "each_cat": True, "rainbow": True}, 66),
        9: ("aaaa-bb aa-bb-cc aa-bb-c-d", "callie cira leo",
            {"goals_met": 3, "goals_both": 2, "each_cat": True}, 68),
        10: ("aaa-bbb aaa-bb-c aa-bb-c-d", "tibbit tecolote gwenivere",
             {"goals_both": 2, "each_cat": True, "rainbow": True}, 72),
    }
    assert set(CATALOG.scenarios) == set(table)
    for n, (goals, cats, needs, score) in table.items():
        sc = CATALOG.scenarios[n]
        assert sc.goals == tuple(goals.split()) and sc.cats == tuple(cats.split()), n
        assert sc.needs.model_dump(exclude_defaults=True) == needs, n
        assert sc.min_score == score, n


def test_tiles_and_bag():
    """Six colours, six patterns, three copies of each (two with lower variance)."""
    assert COLORS == ("dark-blue", "green", "light-blue", "magenta", "purple", "yellow")
    assert PATTERNS == ("dots", "ferns", "flowers", "quatrefoil", "stripes", "vines")
    assert CATALOG.copies * 36 == 108 and CATALOG.lower_variance_copies * 36 == 72



def _catalog_with_cats(tmp_path, edit):  # type: ignore[no-untyped-def]
    """The shipped catalogue files with ``cats.json`` changed by ``edit``, parsed."""
    import json
    import shutil

    from data.catalog import DATA_DIR, parse_catalog

    for f in DATA_DIR.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    cats = json.loads((tmp_path / "cats.json").read_text(encoding="utf-8"))
    edit(cats)
    (tmp_path / "cats.json").write_text(json.dumps(cats), encoding="utf-8")
    return parse_catalog(tmp_path)


def _swap_backs(cats):  # type: ignore[no-untyped-def]
    cats["tiles"][0]["sides"] = ["millie", "rumi"]
    cats["tiles"][1]["sides"] = ["tibbit", "callie"]


@pytest.mark.parametrize("edit", [
    pytest.param(lambda c: c["tiles"].pop(), id="a cat on no tile"),
    pytest.param(lambda c: c["tiles"][0].update(sides=["millie", "leo"]), id="cat on two tiles"),
    pytest.param(_swap_backs, id="sides with different points"),
    pytest.param(lambda c: c.update(beginner=["millie", "callie", "coconut"]),
                 id="beginner cats on one tile"),
])
def test_catalogue_refuses_inconsistent_cat_tiles(tmp_path, edit):
    """Every cat on exactly one side of one tile, both sides of a tile alike in dots and
    points, and no fixed set of cats (beginner, scenarios) holding both sides of a tile."""
    with pytest.raises(ValueError):
        _catalog_with_cats(tmp_path, edit)


def test_shipped_catalogue_parses_with_its_tiles(tmp_path):
    """The copy the refusals above start from is itself valid."""
    cat = _catalog_with_cats(tmp_path, lambda c: None)
    assert len(cat.cat_tiles) == 5 and cat.same_tile(["millie", "tibbit", "callie"]) == (
        "millie", "callie")
