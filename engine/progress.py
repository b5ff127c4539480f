"""Where a quilt stands during play: each design goal (met, open or no longer possible, and
the points it gives or may still give) and the pattern groups growing toward a cat.

Pure functions of a quilt (tile codes, ``EMPTY``, ``GOAL``), the goals on it, its cat tokens,
the game's configuration and, for the goals, the tiles every player can see gone elsewhere
(placed on the other quilts, discarded): what the turn and quilt pictures draw and their alt
texts say. Never the bag, never a hand.

Rulings, from the rules as :mod:`engine.scoring` and :mod:`engine.tokens` apply them:

- A goal is judged by colours and by patterns separately. A way is still possible when some
  tiles still to be had (each tile has ``copies`` copies; those on any quilt or discarded are
  gone) can fill the empty cells around it so that the colours (or patterns) form exactly the
  goal's groups. Both ways are possible together only when one set of tiles meets both: the
  last copy of the one tile that could close both ways may be gone while each way alone is
  still open. Once surrounded, a goal is met or not. It gives its both-ways value when met both
  ways, its one-way value when met one way (nothing in a game that only counts goals met both
  ways).
- An open goal's ``points`` is the most it can still give: the both-ways value while both ways
  are possible together, else the one-way value while one way is. A goal that can give nothing
  any more is ``impossible``.
- A pattern group counts toward the cat that likes its pattern. A group holding a cat token
  has scored already; a tile of that pattern next to it joins it and earns nothing, so a group
  grows only through empty cells that do not touch a scored group of its pattern (and through
  the unscored tiles of its pattern it meets there). It can still earn its cat when that room
  holds the cat's size, or a placement of the cat's shape with a cell still to fill (a shape
  cat comes with the tile that completes the shape).
- A group's progress (``have``) is its size for a size cat; for a shape cat, the most of its
  cells that one such placement of the shape covers: never the cat's need while the cat is
  still to come.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.config import GameConfig, Restriction
from engine.hexgrid import CELLS, INNER, NEIGHBOURS, dilate, flood
from engine.tiles import EMPTY, KINDS
from engine.tokens import cells_of, shape_masks_by_cell

WayState = Literal["met", "open", "failed"]
GoalState = Literal["met", "open", "impossible"]


@dataclass(frozen=True, slots=True)
class GoalProgress:
    """One design goal: ``colors`` and ``patterns`` say how each way stands, ``both`` whether
    the two can still be met together (or are), ``state`` and ``points`` the goal as a whole
    (points scored once met; the most it may still give while open; 0 when impossible)."""

    spot: int
    goal: str
    colors: WayState
    patterns: WayState
    state: GoalState
    points: int
    placed: int  # neighbours with a tile
    both: bool


@dataclass(frozen=True, slots=True)
class CatGroup:
    """A pattern group growing toward the cat that likes its pattern."""

    cat: int  # index in ``config.cats``
    pattern: int
    cells: tuple[int, ...]  # the group's cells, printed border patches included
    size: int
    need: int  # the cat's size, or the number of cells of its shape
    have: int  # progress toward ``need`` (see the module docstring); below it until the cat
    possible: bool  # can it still become the cat's?


def tiles_gone(quilts: Iterable[Sequence[int]], discards: Iterable[int] = ()) -> tuple[int, ...]:
    """Copies of each tile (by code) placed on ``quilts`` (their inner cells: the printed
    border patches are not tiles) or discarded: what every player can see is out of play."""
    gone = [0] * KINDS
    for quilt in quilts:
        for c in INNER:
            t = quilt[c]
            if t >= 0:
                gone[t] += 1
    for t in discards:
        gone[t] += 1
    return tuple(gone)


def tiles_left(config: GameConfig, quilt: Sequence[int],
               elsewhere: Sequence[int] = ()) -> tuple[int, ...]:
    """Copies of each tile that may still come: the game's copies, less those on ``quilt``
    and those ``elsewhere`` (:func:`tiles_gone` of the other quilts and the discards)."""
    copies = config.bag_size // KINDS
    left = [copies] * KINDS
    for c in INNER:
        t = quilt[c]
        if t >= 0:
            left[t] -= 1
    for t, n in enumerate(elsewhere):
        left[t] -= n
    return tuple(max(0, n) for n in left)


def way_possible(values: Sequence[int], counts: Sequence[int]) -> bool:
    """Can the neighbours showing ``values`` (colours or patterns of the placed ones) still
    form exactly the groups ``counts``, whatever tiles come?"""
    have = sorted(Counter(values).values(), reverse=True)
    want = sorted(counts, reverse=True)
    return len(have) <= len(want) and all(h <= w for h, w in zip(have, want, strict=False))


def _fits(tally: list[int], want: tuple[int, ...]) -> bool:
    """:func:`way_possible` of a tally per value (``want`` sorted, largest first)."""
    have = sorted((n for n in tally if n), reverse=True)
    return len(have) <= len(want) and all(h <= w for h, w in zip(have, want, strict=False))


def completable(placed: Sequence[int], counts: Sequence[int], left: Sequence[int], *,
                colors: bool, patterns: bool) -> bool:
    """Can tiles still to be had (``left``: copies per tile) fill the empty cells around a
    goal (six neighbours, ``placed`` the tiles already there) so that the colours (if
    ``colors``) and the patterns (if ``patterns``) form exactly ``counts``?

    A depth-first search over the multisets of tiles (cells are alike: only the tally
    counts), keeping each judged way possible at every step, so that it goes straight to a
    completion when one exists and supply does not bind."""
    want = tuple(sorted(counts, reverse=True))
    by_c, by_p = [0] * 6, [0] * 6
    for t in placed:
        by_c[t // 6] += 1
        by_p[t % 6] += 1
    if (colors and not _fits(by_c, want)) or (patterns and not _fits(by_p, want)):
        return False
    k = 6 - len(placed)
    if k <= 0:
        return True
    if min(left) >= k:
        return True  # any k tiles can still come: the ways' own checks decide
    stock = list(left)

    def ok(tally: list[int], v: int) -> bool:
        tally[v] += 1
        fine = _fits(tally, want)
        tally[v] -= 1
        return fine

    def go(start: int, k: int) -> bool:
        if k == 0:
            return True
        cs = [c for c in range(6) if not colors or ok(by_c, c)]
        ps = [p for p in range(6) if not patterns or ok(by_p, p)]
        for c in cs:
            for p in ps:
                t = c * 6 + p
                if t < start or not stock[t]:
                    continue
                stock[t] -= 1
                by_c[c] += 1
                by_p[p] += 1
                found = go(t, k - 1)
                stock[t] += 1
                by_c[c] -= 1
                by_p[p] -= 1
                if found:
                    return True
        return False

    return go(0, k)


def way_state(values: Sequence[int], counts: Sequence[int], surrounded: bool) -> WayState:
    """One way of a goal judged by the values around it alone (as if every tile could still
    come; :func:`goal_progress` also counts the tiles gone)."""
    if surrounded:
        got = sorted(Counter(values).values(), reverse=True)
        return "met" if got == sorted(counts, reverse=True) else "failed"
    return "open" if way_possible(values, counts) else "failed"


def goal_progress(config: GameConfig, quilt: Sequence[int], goals: Sequence[str],
                  elsewhere: Sequence[int] = ()) -> tuple[GoalProgress, ...]:
    """Each goal on ``config.goal_spots`` (``goals[i]`` on spot ``i``). ``elsewhere``: the
    copies of each tile gone from play outside this quilt (:func:`tiles_gone` of the other
    quilts and the discards; empty: only this quilt's own tiles are counted gone)."""
    out = []
    both_only = config.restriction is Restriction.BOTH_WAYS
    left = tiles_left(config, quilt, elsewhere)
    for spot, gid in zip(config.goal_spots, goals, strict=False):
        rule = config.goal(gid)
        tiles = [quilt[n] for n in NEIGHBOURS[spot]]
        filled = [t for t in tiles if t >= 0]
        surrounded = len(filled) == len(tiles)
        colors = way_state([t // 6 for t in filled], rule.counts, surrounded)
        patterns = way_state([t % 6 for t in filled], rule.counts, surrounded)
        if not surrounded:
            if colors == "open" and not completable(filled, rule.counts, left, colors=True,
                                                     patterns=False):
                colors = "failed"
            if patterns == "open" and not completable(filled, rule.counts, left,
                                                       colors=False, patterns=True):
                patterns = "failed"
        ok = [s != "failed" for s in (colors, patterns)]
        both = all(ok) and (surrounded or completable(filled, rule.counts, left,
                                                      colors=True, patterns=True))
        if both:
            points = rule.both_ways
        elif any(ok) and not both_only:
            points = rule.one_way
        else:
            points = 0
        state: GoalState = "impossible" if points == 0 else "met" if surrounded else "open"
        out.append(GoalProgress(spot, gid, colors, patterns, state, points, len(filled), both))
    return tuple(out)


def _mask(cells: Iterable[int]) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


def cat_groups(config: GameConfig, quilt: Sequence[int],
               cat_cells: Sequence[int]) -> tuple[CatGroup, ...]:
    """Every unscored pattern group (two tiles or more), best first (nearest its cat's need):
    ``cat_cells`` are the cells holding a cat token."""
    empty = _mask(c for c in range(CELLS) if quilt[c] == EMPTY)
    tokens = _mask(cat_cells)
    out = []
    for pattern in range(len(config.patterns)):
        try:
            ci = config.pattern_cat(pattern)
        except KeyError:
            continue
        cat = config.cats[ci]
        mine = _mask(c for c in range(CELLS) if quilt[c] >= 0 and quilt[c] % 6 == pattern)
        scored = 0
        groups = []
        left = mine
        while left:
            start = (left & -left).bit_length() - 1
            g = flood(start, mine)
            left &= ~g
            if g & tokens:
                scored |= g
            else:
                groups.append(g)
        # A tile of this pattern on an empty cell next to a scored group joins that group.
        free = (empty & ~dilate(scored)) | (mine & ~scored)
        for g in groups:
            size = g.bit_count()
            if size < 2:
                continue
            start = (g & -g).bit_length() - 1
            room = flood(start, free)
            if cat.min_size:
                need, have = cat.min_size, size
                possible = room.bit_count() >= need and bool(room & empty)
            else:
                need = len(cat.shape)
                have, possible = _shape_progress(cat.shape, g, room, empty)
            out.append(CatGroup(ci, pattern, cells_of(g), size, need, have, possible))
    out.sort(key=lambda g: (not g.possible, -g.have / g.need, -g.size, g.cells))
    return tuple(out)


def _shape_progress(shape: tuple[tuple[int, int], ...], group: int, room: int, empty: int
                    ) -> tuple[int, bool]:
    """(the most cells of ``group`` one placement of ``shape`` still to be completed covers,
    whether any placement can still be completed): a placement inside ``room`` with an empty
    cell; filling the room from the group outwards joins it to the group."""
    by_cell = shape_masks_by_cell(shape)
    have = 0
    for c in cells_of(group):
        for m in by_cell[c]:
            if m & room == m and m & empty:
                have = max(have, (m & group).bit_count())
    if have:
        return have, True
    return 0, any(m & room == m and m & empty for c in cells_of(room & empty)
                  for m in by_cell[c])


def growing_groups(config: GameConfig, quilt: Sequence[int], cat_cells: Sequence[int],
                   per_cat: int = 2) -> tuple[CatGroup, ...]:
    """The groups worth showing a player: those that can still become their cat's with at
    least two cells of progress (a shape cat's group shows nothing until a placement of the
    shape that can still be completed covers two of its cells), at most ``per_cat`` per cat,
    the nearest to their need first (what the pictures ring and the alt texts list)."""
    out: list[CatGroup] = []
    counts: dict[int, int] = {}
    for g in cat_groups(config, quilt, cat_cells):
        if g.possible and g.have >= 2 and counts.get(g.cat, 0) < per_cat:
            counts[g.cat] = counts.get(g.cat, 0) + 1
            out.append(g)
    return tuple(out)
