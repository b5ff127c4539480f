"""Why a reviewed move cost points, as a player sees it (issue #22, :mod:`engine.ai.why`): a
design goal closed off, a group cut short of a cat or a button, checked on hand-made quilts."""

from __future__ import annotations

from data import load_catalog
from engine.ai.why import counts_possible, goal_open, reach, sharpen
from engine.config import GameOptions
from engine.hexgrid import NEIGHBOURS, parse_cell
from engine.setup import new_game
from engine.tiles import EMPTY, tile

STATE = new_game(load_catalog(), GameOptions(players=1, cats=("millie", "rumi", "leo")), 3)
CFG = STATE.config
BASE = STATE.seats[0].quilt
GOALS = ("aaa-bbb", "aa-bb-cc", "all-different")


def test_counts_still_possible() -> None:
    assert counts_possible((3, 3), [])
    assert counts_possible((3, 3), [0, 0, 0, 1])
    assert not counts_possible((3, 3), [0, 0, 0, 0])  # four of one: never 3 + 3
    assert not counts_possible((3, 3), [0, 1, 2])  # three values for two slots
    assert not counts_possible((2, 2, 1, 1), [0, 0, 0])
    assert counts_possible((1, 1, 1, 1, 1, 1), [0, 1, 2, 3, 4])
    assert not counts_possible((1, 1, 1, 1, 1, 1), [0, 1, 1])


def test_a_goal_closed_off_by_the_players_move() -> None:
    """AAA-BBB on B3: three of colour 0 and one of colour 1 around it; the player adds a third
    colour (and a third pattern): neither way can still show 3 + 3. The engine's quilt, with
    that cell still empty, can."""
    spot = CFG.goal_spots[0]
    cells = list(NEIGHBOURS[spot])
    engine = list(BASE)
    for n in cells[:3]:
        engine[n] = tile(0, 0)
    engine[cells[3]] = tile(1, 1)
    played = list(engine)
    played[cells[4]] = tile(2, 2)
    assert goal_open(CFG, engine, spot, "aaa-bbb") and not goal_open(CFG, played, spot,
                                                                     "aaa-bbb")
    assert sharpen(CFG, GOALS, "goal", "kept_open", played=played, engine=engine,
                   cell=cells[4], index=0) == "closed"
    # The same tile's colour and pattern matching one side keeps it open: no sharper reason.
    played[cells[4]] = tile(1, 1)
    assert sharpen(CFG, GOALS, "goal", "kept_open", played=played, engine=engine,
                   cell=cells[4], index=0) == "kept_open"


def pocket() -> tuple[list[int], list[int], int, int]:
    """Every empty cell filled with tile (0, 0) but C3, which holds ``tile(3, p)`` where p is
    Millie's first pattern, and two empty cells in a row from it: Y (next to C3) and Z. The
    engine's quilt leaves Y empty; the player's fills it with (0, 0)."""
    p = CFG.cats[0].patterns[0]
    x = parse_cell("C3")
    y = NEIGHBOURS[x][0]
    z = next(n for n in NEIGHBOURS[y] if n != x and BASE[n] == EMPTY and n not in NEIGHBOURS[x])
    engine = [tile(0, 0) if t == EMPTY else t for t in BASE]
    engine[x], engine[y], engine[z] = tile(3, p), EMPTY, EMPTY
    played = list(engine)
    played[y] = tile(0, 0)
    return played, engine, x, y


def test_a_group_cut_short_of_a_cat_and_of_a_button() -> None:
    played, engine, x, y = pocket()
    p = CFG.cats[0].patterns[0]

    def same(t: int) -> bool:
        return t % 6 == p

    assert reach(engine, {x}, same) >= 3 > reach(played, {x}, same)
    assert CFG.cats[0].id == "millie"  # a group of three
    assert sharpen(CFG, None, "cat", "kept_open", played=played, engine=engine, cell=y,
                   index=0) == "cut_short"
    assert sharpen(CFG, None, "button", "kept_open", played=played, engine=engine, cell=y,
                   index=3) == "cut_short"
    # Another cat, a colour with no group there, or a token the engine earned at once: the
    # review's own words stay.
    assert sharpen(CFG, None, "cat", "kept_open", played=played, engine=engine, cell=y,
                   index=1) == "kept_open"
    assert sharpen(CFG, None, "button", "kept_open", played=played, engine=engine, cell=y,
                   index=4) == "kept_open"
    assert sharpen(CFG, None, "cat", "earned", played=played, engine=engine, cell=y,
                   index=0) == "earned"
    # A tile of the group's own pattern grows it: nothing was cut.
    played[y] = tile(0, p)
    assert sharpen(CFG, None, "cat", "kept_open", played=played, engine=engine, cell=y,
                   index=0) == "kept_open"
