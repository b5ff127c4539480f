"""Buttons, cats and the rainbow: what a placement earns, decided at the moment it is made.

Rulings (``data.md``), which ``/calico rules`` also states:

- A group is the placed tile's connected same-colour (buttons) or same-pattern (cats) group,
  printed border patches included.
- It earns a token only if no cell of it already carries a token of that kind: growing a
  buttoned group earns nothing, and two buttoned groups that later merge keep both buttons.
  (Groups only grow, so "a cell of it already belongs to a scored group" is the same as
  "it contains a cell with a token", which is what we test.)
- Shape cats come when the group *contains* the shape in any rotation; extra tiles attached to it
  do not spoil it.
- Groups of a cat's two patterns are separate groups and score independently.
- The first time a player has buttons of all six colours they also get the rainbow button.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.config import CatRule, GameConfig
from engine.hexgrid import CELLS, NEIGHBOURS, shape_masks


@lru_cache(maxsize=32)
def shape_masks_by_cell(shape: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """For each cell, the placements of ``shape`` that cover it."""
    masks = shape_masks(shape)
    return tuple(tuple(m for m in masks if m >> cell & 1) for cell in range(CELLS))


def group(quilt: tuple[int, ...], start: int, by_color: bool) -> int:
    """Bit mask of the connected group of ``start``'s colour (or pattern)."""
    # Two specialised loops: this runs twice per placement and is the scorer's hot spot.
    neighbours = NEIGHBOURS
    t = quilt[start]
    mask = 1 << start
    stack = [start]
    if by_color:
        lo = t - t % 6  # the tiles of one colour are lo .. lo + 5
        hi = lo + 6
        while stack:
            for n in neighbours[stack.pop()]:
                if not mask >> n & 1 and lo <= quilt[n] < hi:
                    mask |= 1 << n
                    stack.append(n)
    else:
        key = t % 6
        while stack:
            for n in neighbours[stack.pop()]:
                if not mask >> n & 1:
                    u = quilt[n]
                    if u >= 0 and u % 6 == key:
                        mask |= 1 << n
                        stack.append(n)
    return mask


def cells_of(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def cat_satisfied(cat: CatRule, group_mask: int, cell: int) -> bool:
    if cat.min_size:
        return group_mask.bit_count() >= cat.min_size
    if group_mask.bit_count() < len(cat.shape):
        return False
    return any(m & group_mask == m for m in shape_masks_by_cell(cat.shape)[cell])


@dataclass(frozen=True, slots=True)
class Earned:
    """What one placement earned."""

    button: tuple[int, int] | None  # (colour, group mask)
    cat: tuple[int, int, int] | None  # (cat index, pattern, group mask)
    rainbow: bool


def earn(
    config: GameConfig,
    quilt: tuple[int, ...],
    cell: int,
    button_mask: int,
    cat_mask: int,
    button_colors: frozenset[int],
    has_rainbow: bool,
) -> Earned:
    """Tokens earned by the tile just placed on ``cell`` (``quilt`` already holds it)."""
    t = quilt[cell]
    button = None
    cgroup = group(quilt, cell, by_color=True)
    if cgroup.bit_count() >= 3 and not cgroup & button_mask:
        button = (t // 6, cgroup)
    cat = None
    pattern = t % 6
    pgroup = group(quilt, cell, by_color=False)
    if not pgroup & cat_mask:
        ci = config.pattern_cat(pattern)
        if cat_satisfied(config.cats[ci], pgroup, cell):
            cat = (ci, pattern, pgroup)
    rainbow = False
    if button is not None and not has_rainbow:
        rainbow = len(button_colors | {button[0]}) == len(config.colors)
    return Earned(button, cat, rainbow)
