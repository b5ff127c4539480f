"""Where a quilt stands during play: each design goal (met, open or no longer possible, and
the points it gives or may still give) and the pattern groups growing toward a cat.

Pure functions of a quilt (tile codes, ``EMPTY``, ``GOAL``), the goals on it, its cat tokens
and the game's configuration: what the turn and quilt pictures draw and their alt texts say.

Rulings, from the rules as :mod:`engine.scoring` and :mod:`engine.tokens` apply them:

- A goal is judged by colours and by patterns separately. A way is still possible when the
  colours (or patterns) already around it can grow into exactly the goal's groups: each one
  already there becomes a different group at least as large, the groups left over take new
  colours (sorted domination decides whether such a matching exists). Once surrounded, it is
  met or not. It gives its both-ways value when met both ways, its one-way value when met one
  way (nothing in a game that only counts goals met both ways).
- An open goal's ``points`` is the most it can still give: the both-ways value while both ways
  are possible, else the one-way value. A goal that can give nothing any more is
  ``impossible``.
- A pattern group counts toward the cat that likes its pattern. A group holding a cat token
  has scored already; joining it gives nothing, so its cells are off limits to other groups. A
  group can still earn its cat when the cells it could yet spread over (empty cells and
  unscored tiles of its pattern, connected to it) hold the cat's size, or the cat's shape.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.config import GameConfig, Restriction
from engine.hexgrid import CELLS, NEIGHBOURS, flood
from engine.tiles import EMPTY
from engine.tokens import cells_of, shape_masks_by_cell

WayState = Literal["met", "open", "failed"]
GoalState = Literal["met", "open", "impossible"]


@dataclass(frozen=True, slots=True)
class GoalProgress:
    """One design goal: ``colors`` and ``patterns`` say how each way stands, ``state`` and
    ``points`` the goal as a whole (points scored once met; the most it may still give while
    open; 0 when impossible)."""

    spot: int
    goal: str
    colors: WayState
    patterns: WayState
    state: GoalState
    points: int
    placed: int  # neighbours with a tile


@dataclass(frozen=True, slots=True)
class CatGroup:
    """A pattern group growing toward the cat that likes its pattern."""

    cat: int  # index in ``config.cats``
    pattern: int
    cells: tuple[int, ...]  # the group's cells, printed border patches included
    size: int
    need: int  # the cat's size, or the number of cells of its shape
    possible: bool  # can it still become the cat's?


def way_possible(values: Sequence[int], counts: Sequence[int]) -> bool:
    """Can the neighbours showing ``values`` (colours or patterns of the placed ones) still
    form exactly the groups ``counts``?"""
    have = sorted(Counter(values).values(), reverse=True)
    want = sorted(counts, reverse=True)
    return len(have) <= len(want) and all(h <= w for h, w in zip(have, want, strict=False))


def way_state(values: Sequence[int], counts: Sequence[int], surrounded: bool) -> WayState:
    if surrounded:
        got = sorted(Counter(values).values(), reverse=True)
        return "met" if got == sorted(counts, reverse=True) else "failed"
    return "open" if way_possible(values, counts) else "failed"


def goal_progress(config: GameConfig, quilt: Sequence[int],
                  goals: Sequence[str]) -> tuple[GoalProgress, ...]:
    """Each goal on ``config.goal_spots`` (``goals[i]`` on spot ``i``)."""
    out = []
    both_only = config.restriction is Restriction.BOTH_WAYS
    for spot, gid in zip(config.goal_spots, goals, strict=False):
        rule = config.goal(gid)
        tiles = [quilt[n] for n in NEIGHBOURS[spot]]
        filled = [t for t in tiles if t >= 0]
        surrounded = len(filled) == len(tiles)
        colors = way_state([t // 6 for t in filled], rule.counts, surrounded)
        patterns = way_state([t % 6 for t in filled], rule.counts, surrounded)
        ok = [s != "failed" for s in (colors, patterns)]
        if all(ok):
            points = rule.both_ways
        elif any(ok) and not both_only:
            points = rule.one_way
        else:
            points = 0
        state: GoalState = "impossible" if points == 0 else "met" if surrounded else "open"
        out.append(GoalProgress(spot, gid, colors, patterns, state, points, len(filled)))
    return tuple(out)


def _mask(cells: Sequence[int]) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


def cat_groups(config: GameConfig, quilt: Sequence[int],
               cat_cells: Sequence[int]) -> tuple[CatGroup, ...]:
    """Every unscored pattern group (two tiles or more), best first (nearest its cat's need):
    ``cat_cells`` are the cells holding a cat token."""
    empty = _mask([c for c in range(CELLS) if quilt[c] == EMPTY])
    tokens = _mask(cat_cells)
    out = []
    for pattern in range(len(config.patterns)):
        try:
            ci = config.pattern_cat(pattern)
        except KeyError:
            continue
        cat = config.cats[ci]
        mine = _mask([c for c in range(CELLS) if quilt[c] >= 0 and quilt[c] % 6 == pattern])
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
        for g in groups:
            size = g.bit_count()
            if size < 2:
                continue
            start = (g & -g).bit_length() - 1
            room = flood(start, (empty | mine) & ~scored)
            if cat.min_size:
                need = cat.min_size
                possible = room.bit_count() >= need
            else:
                need = len(cat.shape)
                # Any placement of the shape inside the room: filling it joins the group.
                by_cell = shape_masks_by_cell(cat.shape)
                possible = any(m & room == m for c in cells_of(room) for m in by_cell[c])
            out.append(CatGroup(ci, pattern, cells_of(g), size, need, possible))
    out.sort(key=lambda g: (not g.possible, -g.size / g.need, -g.size, g.cells))
    return tuple(out)


def growing_groups(config: GameConfig, quilt: Sequence[int], cat_cells: Sequence[int],
                   per_cat: int = 2) -> tuple[CatGroup, ...]:
    """The groups worth showing a player: those that can still become their cat's, at most
    ``per_cat`` per cat, the nearest to their need first (what the pictures ring and the alt
    texts list)."""
    out: list[CatGroup] = []
    counts: dict[int, int] = {}
    for g in cat_groups(config, quilt, cat_cells):
        if g.possible and counts.get(g.cat, 0) < per_cat:
            counts[g.cat] = counts.get(g.cat, 0) + 1
            out.append(g)
    return tuple(out)
