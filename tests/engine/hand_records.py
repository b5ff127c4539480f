"""Quilt records scored by hand from the rulebook and data.md (not by running the engine).

Each entry is ``(name, record, expected)``; ``expected`` holds the scorer's breakdown keys we
worked out. The reasoning is in the comments. Cells: see data.md (odd rows A, C, E are shifted
half a hex right). Inner neighbours used below:

    A1: A2 B1 B2          A2: A1 A3 B2          A3: A2 A4 B4          A4: A3 A5 B4 B5
    A5: A4 B5             B1: A1 B2 C1          B2: A1 A2 B1 C1 C2    B4: A3 A4 B5 C3
    B5: A4 A5 B4 C5       C1: B1 B2 C2 D1       C2: B2 C1 C3 D3       C3: B4 C2 D3 D4
    C5: B5 D5             D1: C1 E1             D3: C2 C3 D4 E2 E3    D4: C3 D3 D5 E3 E4
    D5: C5 D4 E4 E5       E1: D1 E2             E2: D3 E1 E3          E3: D3 D4 E2 E4
    E4: D4 D5 E3 E5       E5: D5 E4

The blue board's printed border, as (row, col): colour pattern (from data.md):

    row 0: (0,0) MG vines  (0,1) YE stripes  (0,2) LB vines  (0,3) MG ferns
           (0,4) PU quatrefoil  (0,5) YE flowers  (0,6) GR stripes
    sides: (1,0) GR flowers  (1,6) DB dots  (2,0) DB quatrefoil  (2,6) PU vines
           (3,0) LB ferns  (3,6) YE ferns  (4,0) PU stripes  (4,6) GR quatrefoil
           (5,0) YE dots  (5,6) DB flowers
    row 6: (6,0) PU flowers  (6,1) LB quatrefoil  (6,2) MG flowers  (6,3) DB ferns
           (6,4) GR vines  (6,5) MG dots  (6,6) LB stripes

Border patches touching inner cells: A1 (0,1)(0,2)(1,0); A2 (0,2)(0,3); A3 (0,3)(0,4);
A4 (0,4)(0,5); A5 (0,5)(0,6)(1,6)(2,6); B1 (1,0)(2,0)(3,0); B5 (2,6); C1 (3,0);
C5 (2,6)(3,6)(4,6); D1 (3,0)(4,0)(5,0); D5 (4,6); E1 (5,0)(6,1)(6,2); E2 (6,2)(6,3);
E3 (6,3)(6,4); E4 (6,4)(6,5); E5 (4,6)(5,6)(6,5)(6,6).
"""

from __future__ import annotations

from typing import Any

from tests.engine.helpers import record

# --------------------------------------------------------------------------- 1. the rulebook
# The rulebook's scoring example (Ari's quilt): goals 29 (≠ by colours 10, AA-BB-CC both ways
# 11, AAA-BBB by patterns 8), cats 23 (2 Millies 6, 2 Tibbits 10, 1 Coconut 7), buttons 21
# (one of each colour + rainbow). We built a blue-board quilt that scores exactly that.
#
# Cats: millie likes stripes and ferns, tibbit quatrefoil and dots, coconut flowers and vines.
#
# Patterns, group by group (tiles + border patches of the same pattern):
#   flowers  A1 B1 C1 D1 E1 + (1,0) + (6,2)   = 7 >= 5  -> 1 Coconut (7 cells: no room for 2)
#   vines    A2 B2 + (0,2) = 3;  E3 + (6,4) = 2          -> Coconut needs 5: none
#   stripes  C2 D3 E2 (no stripes patch touches)  = 3    -> 1 Millie
#   ferns    A3 B4 C3 + (0,3)                     = 4    -> 1 Millie (touches the stripes group
#            at C2/D3 and C3: a different pattern, so it scores on its own)
#   quatrefoil A4 A5 B5 C5 + (0,4) + (4,6)        = 6    -> 1 Tibbit
#   dots     D4 D5 E4 E5 + (6,5)                  = 5    -> 1 Tibbit (touches quatrefoil at
#            C5/D5: different pattern)
#   Each pattern has a single group big enough, so the order of placement cannot change this.
#   Cats: 2x3 + 2x5 + 7 = 23.
#
# Colours, group by group:
#   light-blue  A1 A2 + (0,2) = 3 -> button;   A5 alone (no LB neighbour or patch)
#   magenta     A3 A4 + (0,3) = 3 -> button;   C1 alone
#   purple      B4 B5 + (2,6) = 3 -> button;   D1 + (4,0) = 2;  E4 alone
#   green       C5 D5 + (4,6) = 3 -> button;   C2 alone;  E1 alone
#   yellow      C3 D3 D4      = 3 -> button;   B1 alone;  E5 alone
#   dark-blue   E2 E3 + (6,3) = 3 -> button;   B2 alone
#   One button per colour, so also the rainbow: 7 x 3 = 21.
#
# Goals:
#   B3 ≠ (A2 A3 B2 B4 C2 C3): colours LB MG DB PU GR YE, all different -> met;
#      patterns vines ferns vines ferns stripes ferns (3+2+1) -> not met.  One way: 10.
#   C4 AA-BB-CC (B4 B5 C3 C5 D4 D5): colours PU PU YE GR YE GR = 2+2+2 -> met;
#      patterns ferns quatrefoil ferns quatrefoil dots dots = 2+2+2 -> met.  Both ways: 11.
#   D2 AAA-BBB (C1 C2 D1 D3 E1 E2): patterns fl st fl st fl st = 3+3 -> met;
#      colours MG GR PU YE GR DB = 2+1+1+1+1 -> not met.  One way: 8.
#   Goals: 29.  Total 29 + 23 + 21 = 73.
# Every colour x pattern tile appears at most twice.
RULEBOOK_CATS = (
    ("millie", ("stripes", "ferns")),
    ("tibbit", ("quatrefoil", "dots")),
    ("coconut", ("flowers", "vines")),
)
RULEBOOK_PLACEMENTS = [
    ("A1", "light-blue", "flowers"),
    ("A2", "light-blue", "vines"),
    ("A3", "magenta", "ferns"),
    ("A4", "magenta", "quatrefoil"),
    ("A5", "light-blue", "quatrefoil"),
    ("B1", "yellow", "flowers"),
    ("B2", "dark-blue", "vines"),
    ("B4", "purple", "ferns"),
    ("B5", "purple", "quatrefoil"),
    ("C1", "magenta", "flowers"),
    ("C2", "green", "stripes"),
    ("C3", "yellow", "ferns"),
    ("C5", "green", "quatrefoil"),
    ("D1", "purple", "flowers"),
    ("D3", "yellow", "stripes"),
    ("D4", "yellow", "dots"),
    ("D5", "green", "dots"),
    ("E1", "green", "flowers"),
    ("E2", "dark-blue", "stripes"),
    ("E3", "dark-blue", "vines"),
    ("E4", "purple", "dots"),
    ("E5", "yellow", "dots"),
]
RULEBOOK = record("blue", RULEBOOK_PLACEMENTS, RULEBOOK_CATS,
                  ("all-different", "aa-bb-cc", "aaa-bbb"))
ALL_BUTTONS = {"dark-blue": 1, "green": 1, "light-blue": 1, "magenta": 1, "purple": 1,
               "yellow": 1}
RULEBOOK_SCORE: dict[str, Any] = {
    "cats": {"millie": {"tokens": 2, "points": 6}, "tibbit": {"tokens": 2, "points": 10},
             "coconut": {"tokens": 1, "points": 7}},
    "buttons": ALL_BUTTONS,
    "rainbow": 1,
    "goals": [
        {"goal": "all-different", "colors": True, "patterns": False, "points": 10},
        {"goal": "aa-bb-cc", "colors": True, "patterns": True, "points": 11},
        {"goal": "aaa-bbb", "colors": False, "patterns": True, "points": 8},
    ],
    "cat_points": 23, "button_points": 21, "goal_points": 29, "total": 73,
}

# --------------------------------------------------------------------------- 2. same tiles,
# other goals and shape cats. Callie likes ferns and stripes, Rumi flowers and vines, Almond
# quatrefoil and dots; goals B3 AAA-BB-C, C4 AA-BB-C-D, D2 AAAA-BB.
#
# Cats (a trapezoid is one hex plus four consecutive neighbours of it; axial (q, r) below):
#   ferns  A3 B4 C3 + (0,3): A3-B4 and B4-C3 touch, A3-C3 and (0,3)-B4 do not: no triangle.
#   stripes C2 D3 E2: C2-E2 do not touch: no triangle.                      Callie: 0.
#   flowers A1 B1 C1 D1 E1 + (1,0) + (6,2): (1,0)=(0,1), B1=(0,2), C1=(0,3) are a straight
#      line of 3 (axial direction (0,1)); in reading order it is complete when C1 is placed
#      (before that, (1,0) A1 B1 form a triangle, not a line). One group -> Rumi once.
#   vines A2 B2 + (0,2): (0,2)=(2,0), A2=(2,1), B2=(1,2): bent, no line; E3 + (6,4): 2 cells.
#                                                                             Rumi: 1 (5).
#   quatrefoil A4 A5 B5 C5 + (0,4) + (4,6): only one triangle (A4 A5 B5); a trapezoid holds
#      three: no Almond.
#   dots D4 D5 E4 E5 + (6,5): around E4 the neighbours go D4, D5, E5, (6,5), (6,4), E3;
#      D4 D5 E5 (6,5) are four consecutive ones, so E4 + those is a trapezoid, complete when
#      E5 (the last tile) is placed. The printed (6,5) magenta dots is part of it.
#                                                                           Almond: 1 (9).
#   Cats: 14.
# Buttons: the tiles are the same as in record 1: 21.
# Goals:
#   B3 AAA-BB-C: colours all different (no); patterns vines 2, ferns 3, stripes 1 = 3+2+1
#      -> met by patterns: 7.
#   C4 AA-BB-C-D: colours 2+2+2, patterns 2+2+2: neither is 2+2+1+1 -> 0.
#   D2 AAAA-BB: patterns 3+3 (no), colours GR 2 + four singles (no) -> 0.
#   Goals 7. Total 7 + 14 + 21 = 42.
SHAPES = record("blue", RULEBOOK_PLACEMENTS,
                (("callie", ("ferns", "stripes")), ("rumi", ("flowers", "vines")),
                 ("almond", ("quatrefoil", "dots"))),
                ("aaa-bb-c", "aa-bb-c-d", "aaaa-bb"))
SHAPES_SCORE: dict[str, Any] = {
    "cats": {"callie": {"tokens": 0, "points": 0}, "rumi": {"tokens": 1, "points": 5},
             "almond": {"tokens": 1, "points": 9}},
    "buttons": ALL_BUTTONS,
    "rainbow": 1,
    "goals": [
        {"goal": "aaa-bb-c", "colors": False, "patterns": True, "points": 7},
        {"goal": "aa-bb-c-d", "colors": False, "patterns": False, "points": 0},
        {"goal": "aaaa-bb", "colors": False, "patterns": False, "points": 0},
    ],
    "cat_points": 14, "button_points": 21, "goal_points": 7, "total": 42,
}

# --------------------------------------------------------------------------- 3. order matters
# Green board; its border above row A is (0,2) green ferns, (0,3) dark-blue stripes,
# (0,4) purple quatrefoil, (0,5) yellow dots: no magenta and no flowers or vines patch touches
# A2, A3, A4, and B4, C2, C3, D3 touch no border at all. Millie likes flowers and vines.
# Seven magenta tiles: A2 A3 A4 (row A), C2 C3 D3 (below, touching no cell of row A) and the
# bridge B4 (touches A3, A4 and C3). Flowers on A4 B4 C3, vines on A3 C2 D3, quatrefoil on
# A2 (at most three copies of a tile: magenta flowers and magenta vines three times each).
ORDER_CATS = (
    ("millie", ("flowers", "vines")),
    ("tibbit", ("dots", "ferns")),
    ("coconut", ("quatrefoil", "stripes")),
)
_TILES = {
    "A2": ("magenta", "quatrefoil"), "A3": ("magenta", "vines"), "A4": ("magenta", "flowers"),
    "C2": ("magenta", "vines"), "C3": ("magenta", "flowers"), "D3": ("magenta", "vines"),
    "B4": ("magenta", "flowers"),
}


def _in_order(cells: str) -> list[tuple[str, str, str]]:
    return [(c, *_TILES[c]) for c in cells.split()]


# 3a. Bridge last: A2 A3 A4 make a magenta group of 3 (button on A4); C2 C3 D3 another
#     separate one (button on D3); B4 merges them: both buttons stay, no third. Flowers:
#     A4 alone, C3 alone, then B4 joins A4 and C3: flowers group A4 B4 C3 = 3 -> Millie on
#     B4. Vines: A3 alone, C2 D3 = 2: nothing. Quatrefoil: A2 alone.
#     Buttons 2 (6 points), Millie 1 (3). Goals: B2 (next to B3) is empty, C4 and D2 are
#     not surrounded: 0. Total 9.
ORDER_LATE = record("green", _in_order("A2 A3 A4 C2 C3 D3 B4"), ORDER_CATS,
                    ("all-different", "aa-bb-cc", "aaa-bbb"))
ORDER_LATE_SCORE: dict[str, Any] = {
    "cats": {"millie": {"tokens": 1, "points": 3}, "tibbit": {"tokens": 0, "points": 0},
             "coconut": {"tokens": 0, "points": 0}},
    "buttons": {"dark-blue": 0, "green": 0, "light-blue": 0, "magenta": 2, "purple": 0,
                "yellow": 0},
    "rainbow": 0,
    "goal_points": 0, "cat_points": 3, "button_points": 6, "total": 9,
}
# 3b. The same seven tiles, bridge early: A3 A4 B4 are a magenta group of 3 (button on B4);
#     A2, C3, C2 and D3 each join that buttoned group: no second button. Flowers: A4 B4 = 2,
#     C3 joins A4 B4 -> 3 -> Millie on C3. Vines: A3 alone, C2 D3 = 2.
#     Buttons 1 (3), Millie 1 (3). Total 6.
ORDER_EARLY = record("green", _in_order("A3 A4 B4 A2 C3 C2 D3"), ORDER_CATS,
                     ("all-different", "aa-bb-cc", "aaa-bbb"))
ORDER_EARLY_SCORE: dict[str, Any] = {
    "cats": {"millie": {"tokens": 1, "points": 3}, "tibbit": {"tokens": 0, "points": 0},
             "coconut": {"tokens": 0, "points": 0}},
    "buttons": {"dark-blue": 0, "green": 0, "light-blue": 0, "magenta": 1, "purple": 0,
                "yellow": 0},
    "rainbow": 0,
    "goal_points": 0, "cat_points": 3, "button_points": 3, "total": 6,
}

HAND_RECORDS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("rulebook-example", RULEBOOK, RULEBOOK_SCORE),
    ("shape-cats-other-goals", SHAPES, SHAPES_SCORE),
    ("bridge-late", ORDER_LATE, ORDER_LATE_SCORE),
    ("bridge-early", ORDER_EARLY, ORDER_EARLY_SCORE),
]

# --------------------------------------------------------------------------- 4. the sample
# ../shared/rules/sample-record.json (yellow board; Millie quatrefoil+ferns, Cira vines+dots,
# Gwenivere flowers+stripes; goals B3 AAAA-BB, C4 AA-BB-C-D, D2 AAA-BB-C), followed placement
# by placement. Yellow border patches that matter: (0,2) YE stripes, (0,5) GR ferns,
# (1,0) MG ferns, (1,6) LB flowers, (3,0) YE dots, (3,6) GR dots, (6,2) YE vines,
# (6,4) MG stripes, (6,6) YE quatrefoil.
#    5 A5 LB ferns: LB A4 A5 + (1,6) = 3 -> LB button; ferns A4 A5 + (0,5) = 3 -> Millie.
#   10 E1 YE stripes: YE D1 E1 + (3,0) + (6,2) = 4 -> YE button.
#   13 B4 YE ferns joins the scored ferns group (A4): nothing.  15 A3 LB joins LB group.
#   16 A1 GR ferns: ferns A1 B2 + (1,0) = 3, no scored cell -> second Millie.
#   17 E2 GR ferns: GR E2 E3 E4 = 3 -> GR button.
#   19 C1 LB stripes: stripes C1 C2 C3 D1 E1 = 5 (Gwenivere needs 7); the other stripes group
#      D5 E3 E4 + (6,4) = 4 does not touch it.
#   20 A2 YE ferns joins the scored ferns group.  21 B1 GR: GR A1 B1 B2 = 3 -> second GR button.
#   22 D4 GR quatrefoil joins the buttoned GR group (E3 E4); quatrefoil D3 D4 = 2.
#   No quatrefoil group reaches 3 (B5 C5, E5 + (6,6), D3 D4, A3, B1); no vines or dots tiles.
#   Cats: Millie 2 = 6. Buttons GR 2, LB 1, YE 1 = 12, no rainbow.
#   B3 AAAA-BB: colours YE 2, LB 2, GR 2 = 2+2+2; patterns ferns 3, stripes 2, quatrefoil 1: 0.
#   C4 AA-BB-C-D: colours GR 3 YE 2 LB 1, patterns quatrefoil 3 stripes 2 ferns 1: 0.
#   D2 AAA-BB-C: colours YE 3 (D1 D3 E1), LB 2 (C1 C2), GR 1 (E2) -> met; patterns stripes 4,
#      quatrefoil 1, ferns 1 -> not met: 7.  Total 6 + 12 + 7 = 25.
SAMPLE_SCORE: dict[str, Any] = {
    "cats": {"millie": {"tokens": 2, "points": 6}, "cira": {"tokens": 0, "points": 0},
             "gwenivere": {"tokens": 0, "points": 0}},
    "buttons": {"dark-blue": 0, "green": 2, "light-blue": 1, "magenta": 0, "purple": 0,
                "yellow": 1},
    "rainbow": 0,
    "goals": [
        {"goal": "aaaa-bb", "colors": False, "patterns": False, "points": 0},
        {"goal": "aa-bb-c-d", "colors": False, "patterns": False, "points": 0},
        {"goal": "aaa-bb-c", "colors": True, "patterns": False, "points": 7},
    ],
    "cat_points": 6, "button_points": 12, "goal_points": 7, "total": 25,
}
