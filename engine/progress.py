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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Literal

from engine.config import GameConfig, Restriction
from engine.hexgrid import CELLS, INNER, NEIGHBOURS, dilate, flood
from engine.tiles import EMPTY, KINDS
from engine.tokens import cells_of, shape_masks_by_cell

QUICK_PAIRS = 4  # pairs of ways tried before the full search for both ways at once

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


def _fits(tally: Sequence[int], want: tuple[int, ...]) -> bool:
    """:func:`way_possible` of a tally per value (``want`` sorted, largest first)."""
    have = sorted((n for n in tally if n), reverse=True)
    return len(have) <= len(want) and all(h <= w for h, w in zip(have, want, strict=False))


@lru_cache(maxsize=4096)
def _completions(have: tuple[int, ...], want: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to add values to the tally ``have`` (per value 0-5) so that it forms exactly
    the groups ``want`` (largest first), as the count added per value. Cached: it depends on
    the tally alone, and a game asks about few tallies."""
    out: list[tuple[int, ...]] = []
    added = [0] * 6

    def assign(v: int, parts: tuple[int, ...]) -> None:
        # Give value v a group size still left (or none, if it has no tile yet), then v + 1.
        if len(parts) > 6 - v:
            return  # more groups left than values
        if not parts:
            if not any(have[v:]):
                out.append(tuple(added))
            return
        if not have[v]:
            assign(v + 1, parts)
        for i, size in enumerate(parts):
            if (i and size == parts[i - 1]) or size < have[v]:
                continue
            added[v] = size - have[v]
            assign(v + 1, parts[:i] + parts[i + 1:])
            added[v] = 0

    assign(0, want)
    return tuple(out)


def _pairs(need_c: tuple[int, ...], need_p: tuple[int, ...], left: Sequence[int]) -> bool:
    """Can tiles within ``left`` add exactly ``need_c`` per colour and ``need_p`` per pattern?
    A transport problem: feasible when every set of colours needing tiles finds enough of them
    among the patterns needed (each pattern's need capping what it offers), the max-flow
    min-cut condition."""
    rows = [c for c in range(6) if need_c[c]]
    cols = [p for p in range(6) if need_p[p]]
    if all(left[c * 6 + p] >= min(need_c[c], need_p[p]) for c in rows for p in cols):
        return True  # the north-west corner rule never needs more of one tile than that
    for pick in range(1, 1 << len(rows)):
        chosen = [c for i, c in enumerate(rows) if pick >> i & 1]
        offer = sum(min(need_p[p], sum(left[c * 6 + p] for c in chosen)) for p in cols)
        if offer < sum(need_c[c] for c in chosen):
            return False
    return True


def _both_ways(have_c: Sequence[int], have_p: Sequence[int], want: tuple[int, ...],
               left: Sequence[int]) -> bool:
    """Can tiles within ``left`` complete the colour tally ``have_c`` and the pattern tally
    ``have_p`` (per value 0-5) into exactly the groups ``want`` (largest first) at once?

    Colour by colour: each colour takes one of the groups still to be made (or none, if it has
    no tile there yet) and its new tiles are spread over the patterns, as many of each tile as
    are left, the pattern tally kept able to become the groups. Situations that led nowhere
    (the colour reached, the groups left, the pattern tally) are remembered: a few thousand at
    most, however the tiles left fall."""
    top = want[0]
    tally = list(have_p)
    dead: set[tuple[int, tuple[int, ...], tuple[int, ...]]] = set()

    def spread(c: int, n: int, p: int) -> Iterator[None]:
        # Each way to give ``n`` more tiles of colour c to patterns p..5 (applied on tally).
        if n == 0:
            yield
            return
        if p == 6:
            return
        for x in range(min(left[c * 6 + p], n, top - tally[p]), -1, -1):
            tally[p] += x
            yield from spread(c, n - x, p + 1)
            tally[p] -= x

    def go(c: int, parts: tuple[int, ...]) -> bool:
        if len(parts) > 6 - c:
            return False  # more groups to make than colours left
        if c == 6:
            return _fits(tally, want)  # six tiles in all: possible is met
        key = (c, parts, tuple(tally))
        if key in dead:
            return False
        have = have_c[c]
        if not have and go(c + 1, parts):
            return True
        for i, size in enumerate(parts):
            if (i and size == parts[i - 1]) or size < have:
                continue
            rest = parts[:i] + parts[i + 1:]
            for _ in spread(c, size - have, 0):
                if _fits(tally, want) and go(c + 1, rest):
                    return True
        dead.add(key)
        return False

    return go(0, want)


@lru_cache(maxsize=16)
def _supply(left: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(tiles left per colour, per pattern, of the scarcest tile): the same for every goal
    of a quilt, and for the quilt's other pictures."""
    return (tuple(sum(left[c * 6:c * 6 + 6]) for c in range(6)),
            tuple(sum(left[p::6]) for p in range(6)), min(left))


def goal_ways(placed: Sequence[int], counts: Sequence[int], left: Sequence[int]
              ) -> tuple[bool, bool, bool]:
    """Whether tiles still to be had (``left``: copies per tile) can fill the empty cells
    around a goal (six neighbours, ``placed`` the tiles already there) so that the colours form
    exactly ``counts``; the patterns; both at once.

    Every way to complete the colours (tiles added per colour) is listed, and the patterns';
    each way needs that many tiles of each colour (pattern) left; both ways together are
    found by the first pairs of a colour way and a pattern way the tiles left can make at once
    (:func:`_pairs`), else searched colour by colour (:func:`_both_ways`)."""
    want = tuple(sorted(counts, reverse=True))
    have_c, have_p = [0] * 6, [0] * 6
    for t in placed:
        have_c[t // 6] += 1
        have_p[t % 6] += 1
    k = 6 - len(placed)
    by_c = _completions(tuple(have_c), want)
    by_p = _completions(tuple(have_p), want)
    per_c, per_p, fewest = _supply(tuple(left))
    if min(per_c) < k:  # some colour may run short: keep the ways it can still make
        by_c = tuple(a for a in by_c if all(n <= m for n, m in zip(a, per_c, strict=True)))
    if min(per_p) < k:
        by_p = tuple(b for b in by_p if all(n <= m for n, m in zip(b, per_p, strict=True)))
    if not by_c or not by_p:
        return bool(by_c), bool(by_p), False
    if fewest >= k:
        return True, True, True  # any k tiles can still come
    # Mostly the first pair of ways the tiles left allow will do; else the full search.
    first = islice(((a, b) for a in by_c for b in by_p), QUICK_PAIRS)
    if any(_pairs(a, b, left) for a, b in first):
        return True, True, True
    return True, True, _both_ways(have_c, have_p, want, left)


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
        both = colors != "failed" and patterns != "failed"
        if not surrounded and (colors == "open" or patterns == "open"):
            by_c, by_p, both = goal_ways(filled, rule.counts, left)
            colors = "open" if by_c else "failed"
            patterns = "open" if by_p else "failed"
        ok = [s != "failed" for s in (colors, patterns)]
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
