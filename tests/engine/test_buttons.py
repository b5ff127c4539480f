"""Buttons and the rainbow button (data.md, "Tokens: when a group scores")."""

from __future__ import annotations

from engine.scoring import breakdown
from tests.engine.helpers import PATTERNS, PLAYABLE, build, of_kind
from tests.engine.helpers import border as board_border

# On the blue board the border above row A is (0,2) light-blue, (0,3) magenta, (0,4) purple,
# (0,5) yellow: dark-blue and green touch nothing printed around A2..A4, and B2, B4, C2, C3,
# D3 touch no border at all.
G1 = ("A2", "A3", "A4")
G2 = ("C2", "C3", "D3")  # touches no cell of G1
BRIDGE = "B4"  # touches A3, A4 (G1) and C3 (G2)


def tiles(cells, color):
    """One tile of ``color`` on each cell; each cell always gets the same pattern."""
    return [(c, color, PATTERNS[PLAYABLE.index(c) % 6]) for c in cells]


def sewn(steps):
    return [[e.color for e in of_kind(s, "button_sewn")] for s in steps]


def buttons(seat):
    return len(seat.buttons)


def test_a_group_of_three_sews_a_button():
    """The tile that makes a same-colour group of 3 sews one button of that colour on it."""
    _, seat, steps = build("blue", tiles(G1, "dark-blue"))
    assert sewn(steps) == [[], [], ["dark-blue"]]
    ev = of_kind(steps[-1], "button_sewn")[0]
    assert ev.cell == "A4" and sorted(ev.group) == sorted(G1)
    assert buttons(seat) == 1


def test_two_tiles_earn_no_button():
    """A group of 2 is not enough."""
    _, seat, steps = build("blue", tiles(G1[:2], "dark-blue"))
    assert sewn(steps) == [[], []] and buttons(seat) == 0


def test_growing_a_buttoned_group_to_six_earns_nothing():
    """Growing the group to 6 or more does not sew another button."""
    _, seat, steps = build("blue", tiles((*G1, BRIDGE, "C3", "C2"), "green"))
    assert sewn(steps) == [[], [], ["green"], [], [], []]
    assert buttons(seat) == 1


def test_a_separate_group_earns_another_button():
    """A second, separate group of the same colour sews a second button."""
    _, seat, steps = build("blue", tiles(G1 + G2, "dark-blue"))
    assert sewn(steps) == [[], [], ["dark-blue"], [], [], ["dark-blue"]]
    assert buttons(seat) == 2


def test_a_new_group_touching_a_buttoned_one_earns_nothing():
    """Tiles that reach 3 only by joining a buttoned group sew nothing."""
    _, seat, steps = build("blue", tiles((*G1, "C2", "C3", BRIDGE), "dark-blue"))
    assert sewn(steps) == [[], [], ["dark-blue"], [], [], []]
    assert buttons(seat) == 1


def test_two_buttoned_groups_that_merge_keep_both_buttons():
    """Joining two buttoned groups keeps both buttons and sews no third."""
    _, seat, steps = build("blue", tiles((*G1, *G2, BRIDGE), "dark-blue"))
    assert sewn(steps)[-1] == []
    assert buttons(seat) == 2


def test_border_patches_count_toward_button_groups():
    """Two tiles next to a printed patch of their colour make a group of 3."""
    # blue: (0,2) is light-blue and touches A1 and A2.
    assert board_border("blue")[(0, 2)][0] == "light-blue"
    _, seat, steps = build("blue", tiles(("A1", "A2"), "light-blue"))
    assert sewn(steps) == [[], ["light-blue"]] and buttons(seat) == 1
    assert len(of_kind(steps[-1], "button_sewn")[0].group) == 3


def test_different_colours_do_not_group():
    """Three touching tiles of three colours sew nothing."""
    _, seat, _ = build("blue", [("C2", "dark-blue", "dots"), ("C3", "green", "dots"),
                                ("D3", "yellow", "dots")])
    assert buttons(seat) == 0


# Six one-colour groups on the blue board, one per colour (worked out in hand_records.py):
SIX = [
    ("A1", "light-blue", "flowers"), ("A2", "light-blue", "vines"),  # + (0,2) light-blue
    ("A3", "magenta", "ferns"), ("A4", "magenta", "quatrefoil"),  # + (0,3) magenta
    ("B4", "purple", "ferns"), ("B5", "purple", "quatrefoil"),  # + (2,6) purple
    ("C5", "green", "quatrefoil"), ("D5", "green", "dots"),  # + (4,6) green
    ("C3", "yellow", "ferns"), ("D3", "yellow", "stripes"), ("D4", "yellow", "dots"),
    ("E2", "dark-blue", "stripes"), ("E3", "dark-blue", "vines"),  # + (6,3) dark-blue
]
# a second yellow group: D1, E1 and the printed (5,0) yellow dots; it touches no other yellow
SECOND_YELLOW = [("D1", "yellow", "flowers"), ("E1", "yellow", "flowers")]


def test_rainbow_when_all_six_colours_have_buttons():
    """The button that completes the six colours also brings the rainbow button."""
    _, seat, steps = build("blue", SIX)
    got = sewn(steps)
    assert [c for s in got for c in s] == ["light-blue", "magenta", "purple", "green", "yellow",
                                           "dark-blue"]
    rainbows = [i for i, s in enumerate(steps) if of_kind(s, "rainbow_sewn")]
    assert rainbows == [len(SIX) - 1]
    assert seat.rainbow is not None


def test_no_rainbow_with_six_buttons_of_five_colours():
    """Six buttons are not enough when a colour is missing; the sixth colour brings it."""
    _, seat, _ = build("blue", SIX[:-2] + SECOND_YELLOW)
    assert len(seat.buttons) == 6 and seat.rainbow is None
    _, seat, steps = build("blue", SIX[:-2] + SECOND_YELLOW + SIX[-2:])
    assert of_kind(steps[-1], "rainbow_sewn") and seat.rainbow is not None


def test_only_one_rainbow_per_player():
    """A button after the rainbow (all six colours still present) brings no second rainbow."""
    config, seat, steps = build("blue", SIX + SECOND_YELLOW)
    assert sewn(steps)[-1] == ["yellow"]
    assert not of_kind(steps[-1], "rainbow_sewn")
    assert sum(len(of_kind(s, "rainbow_sewn")) for s in steps) == 1
    score = breakdown(config, seat)
    assert score["rainbow"] == 1
    assert score["buttons"] == {"dark-blue": 1, "green": 1, "light-blue": 1, "magenta": 1,
                                "purple": 1, "yellow": 2}
    assert score["button_points"] == 3 * (7 + 1)
