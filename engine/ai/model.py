"""A quilt model built for search: incremental colour and pattern groups, tokens, and placement.

:class:`Quilt` is one player's quilt with its connected colour groups and pattern groups kept up
to date as tiles are placed, so that the tokens a placement earns and the evaluation terms that
depend on groups cost a few bit operations instead of a flood fill. A :class:`Quilt` is never
changed after it is made: :meth:`Rules.place` returns a new one.

:class:`Rules` holds what is fixed for the game (which cat likes which pattern, the cats' needs)
and implements the token rulings of ``data.md`` exactly as :func:`engine.tokens.earn` does
(a test checks the two agree): a button when the placed tile's colour group reaches 3 cells and
holds no button yet, a cat when its pattern group meets the cat and holds no cat yet, the
rainbow the first time all six colours have a button.
"""

from __future__ import annotations

from functools import lru_cache

from engine.config import GameConfig
from engine.hexgrid import CELLS, INNER, NEIGHBOUR_MASK, NEIGHBOURS, shape_masks
from engine.tokens import shape_masks_by_cell

ALL_COLORS = 0b111111
BUTTON_POINTS = 3
INNER_MASK = sum(1 << c for c in INNER)

# A group: (cells, union of the cells' neighbourhoods, colour or pattern)
Group = tuple[int, int, int]

_FULL = (1 << CELLS) - 1
_EVEN_ROWS = sum(1 << c for c in range(CELLS) if not (c // 7) & 1)
_ODD_ROWS = _FULL & ~_EVEN_ROWS
_NOT_FIRST_COL = _FULL & ~sum(1 << c for c in range(CELLS) if c % 7 == 0)
_NOT_LAST_COL = _FULL & ~sum(1 << c for c in range(CELLS) if c % 7 == 6)


def dilate(mask: int) -> int:
    """``mask`` and every cell next to one of its cells, with shifts instead of a loop."""
    e = mask & _EVEN_ROWS
    o = mask & _ODD_ROWS
    el = e & _NOT_FIRST_COL
    orr = o & _NOT_LAST_COL
    return _FULL & (mask | (mask & _NOT_FIRST_COL) >> 1 | (mask & _NOT_LAST_COL) << 1
                    | e >> 7 | el >> 8 | e << 7 | el << 6
                    | o >> 7 | orr >> 6 | o << 7 | orr << 8)


@lru_cache(maxsize=16)
def _shape_masks(shape: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    return shape_masks(shape)


def bits(mask: int) -> list[int]:
    """The cell indices set in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Quilt:
    """One quilt as the search sees it. Treat as immutable."""

    __slots__ = (
        "bcnt",
        "bcol",
        "bm",
        "ccnt",
        "cell",
        "cgid",
        "cgroups",
        "cm",
        "empty",
        "features",
        "frame",
        "goal_keys",
        "nid",
        "parent",
        "pgid",
        "pgroups",
        "q",
        "rainbow",
        "score",
        "shapes",
    )

    q: list[int]  # 49 cells: tile, EMPTY (-1) or GOAL (-2)
    empty: int  # mask of empty inner cells
    bm: int  # cells carrying a button
    cm: int  # cells carrying a cat
    bcol: int  # bit per colour that has a button
    bcnt: tuple[int, ...]  # buttons per colour
    ccnt: tuple[int, ...]  # cat tokens per cat index
    rainbow: bool
    score: int  # points of the tokens earned so far (goals not included)
    cgid: list[int]  # colour group id per cell (-1: none)
    cgroups: dict[int, Group]
    pgid: list[int]  # pattern group id per cell
    pgroups: dict[int, Group]
    nid: int  # next free group id
    # evaluation caches, derived from the parent's where the last placement allows
    parent: Quilt | None  # the quilt this one was made from by one placement
    cell: int  # the cell of that placement (-1 for a quilt built from a view)
    shapes: dict[int, tuple[int, int, list[tuple[int, int]]]]  # see Evaluator.shape_list
    features: object  # engine.ai.evaluate.Features, or None until evaluated
    frame: object  # engine.ai.frame.Frame of its placements, or None until asked
    goal_keys: list[tuple[tuple[int, ...], tuple[int, ...]]] | None

    @property
    def turns_left(self) -> int:
        return self.empty.bit_count()


def _join(q: list[int], gid: list[int], groups: dict[int, Group], cell: int, nid: int,
          key: int, by_color: bool) -> int:
    """Give the tile just placed on ``cell`` (not yet in ``q``) group ``nid``, merging the
    groups of its neighbours that share ``key`` (``gid`` and ``groups`` change in place).
    Returns the new group's mask."""
    mask = 1 << cell
    nb = NEIGHBOUR_MASK[cell]
    for x in NEIGHBOURS[cell]:
        u = q[x]
        if u >= 0 and (u // 6 if by_color else u % 6) == key:
            got = groups.pop(gid[x], None)
            if got is not None:
                mask |= got[0]
                nb |= got[1]
    groups[nid] = (mask, nb, key)
    for x in bits(mask):
        gid[x] = nid
    return mask


def _groups(q: list[int], by_color: bool, start_id: int) -> tuple[list[int], dict[int, Group]]:
    gid = [-1] * CELLS
    groups: dict[int, Group] = {}
    nid = start_id
    for start in range(CELLS):
        t = q[start]
        if t < 0 or gid[start] >= 0:
            continue
        key = t // 6 if by_color else t % 6
        mask = 1 << start
        nb = 0
        stack = [start]
        while stack:
            x = stack.pop()
            gid[x] = nid
            nb |= NEIGHBOUR_MASK[x]
            for n in NEIGHBOURS[x]:
                u = q[n]
                if u >= 0 and not mask >> n & 1 and (u // 6 if by_color else u % 6) == key:
                    mask |= 1 << n
                    stack.append(n)
        groups[nid] = (mask, nb, key)
        nid += 1
    return gid, groups


class Rules:
    """Token rules of one game, for fast placement on :class:`Quilt` objects."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.cat_of_pattern = [config.pattern_cat(p) for p in range(6)]
        self.cat_points = [c.points for c in config.cats]
        self.cat_size = [c.min_size for c in config.cats]
        self.cat_shapes_by_cell = [shape_masks_by_cell(c.shape) if c.shape else None
                                   for c in config.cats]
        self.cat_shapes = [_shape_masks(c.shape) if c.shape else () for c in config.cats]

    def quilt(self, q: tuple[int, ...] | list[int], button_mask: int, cat_mask: int,
              buttons: tuple[tuple[int, int], ...], cats: tuple[tuple[int, int], ...],
              rainbow: bool) -> Quilt:
        """Build the model of a quilt as a view shows it."""
        s = Quilt()
        s.q = list(q)
        s.empty = sum(1 << c for c in INNER if q[c] == -1)
        s.bm = button_mask
        s.cm = cat_mask
        bcnt = [0] * 6
        for _, color in buttons:
            bcnt[color] += 1
        s.bcnt = tuple(bcnt)
        s.bcol = sum(1 << c for c in range(6) if bcnt[c])
        ccnt = [0, 0, 0]
        for _, ci in cats:
            ccnt[ci] += 1
        s.ccnt = tuple(ccnt)
        s.rainbow = rainbow
        s.score = BUTTON_POINTS * (len(buttons) + (1 if rainbow else 0)) + sum(
            self.cat_points[ci] for _, ci in cats)
        s.cgid, s.cgroups = _groups(s.q, True, 0)
        s.pgid, s.pgroups = _groups(s.q, False, len(s.cgroups))
        s.nid = len(s.cgroups) + len(s.pgroups)
        s.parent = None
        s.cell = -1
        s.shapes = {}
        s.goal_keys = None
        s.features = None
        s.frame = None
        return s

    def place(self, s: Quilt, cell: int, t: int) -> Quilt:
        """The quilt after placing tile ``t`` on empty ``cell``, with the tokens it earns."""
        q = s.q
        color = t // 6
        pattern = t % 6
        bit = 1 << cell
        n = Quilt()
        nq = q.copy()
        nq[cell] = t
        n.q = nq
        n.empty = s.empty & ~bit
        nid = s.nid
        cgid = s.cgid.copy()
        cgroups = s.cgroups.copy()
        cmask = _join(q, cgid, cgroups, cell, nid, color, True)
        pgid = s.pgid.copy()
        pgroups = s.pgroups.copy()
        pmask = _join(q, pgid, pgroups, cell, nid + 1, pattern, False)
        nid += 2
        n.cgid, n.cgroups, n.pgid, n.pgroups, n.nid = cgid, cgroups, pgid, pgroups, nid
        # tokens
        score = s.score
        n.bm, n.bcol, n.bcnt, n.rainbow = s.bm, s.bcol, s.bcnt, s.rainbow
        if cmask.bit_count() >= 3 and not cmask & s.bm:
            n.bm = s.bm | bit
            n.bcol = s.bcol | (1 << color)
            bcnt = list(s.bcnt)
            bcnt[color] += 1
            n.bcnt = tuple(bcnt)
            score += BUTTON_POINTS
            if not s.rainbow and n.bcol == ALL_COLORS:
                n.rainbow = True
                score += BUTTON_POINTS
        n.cm, n.ccnt = s.cm, s.ccnt
        if not pmask & s.cm:
            ci = self.cat_of_pattern[pattern]
            need = self.cat_size[ci]
            if need:
                ok = pmask.bit_count() >= need
            else:
                shapes = self.cat_shapes_by_cell[ci]
                assert shapes is not None
                ok = any(m & pmask == m for m in shapes[cell])
            if ok:
                n.cm = s.cm | bit
                ccnt = list(s.ccnt)
                ccnt[ci] += 1
                n.ccnt = tuple(ccnt)
                score += self.cat_points[ci]
        n.score = score
        n.parent = s
        n.cell = cell
        n.shapes = {}
        n.goal_keys = None
        n.features = None
        n.frame = None
        return n
