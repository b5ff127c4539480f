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
from engine.hexgrid import CELLS, NEIGHBOUR_MASK, flood, shape_masks


@lru_cache(maxsize=32)
def shape_masks_by_cell(shape: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """For each cell, the placements of ``shape`` that cover it."""
    masks = shape_masks(shape)
    return tuple(tuple(m for m in masks if m >> cell & 1) for cell in range(CELLS))


def same_masks(quilt: tuple[int, ...] | list[int], t: int) -> tuple[int, int]:
    """Masks of the cells showing tile ``t``'s colour, and ``t``'s pattern."""
    color, pattern = t // 6, t % 6
    cm = pm = 0
    for i, u in enumerate(quilt):
        if u >= 0:
            if u // 6 == color:
                cm |= 1 << i
            if u % 6 == pattern:
                pm |= 1 << i
    return cm, pm


def group(quilt: tuple[int, ...], start: int, by_color: bool) -> int:
    """Bit mask of the connected group of ``start``'s colour (or pattern)."""
    cm, pm = same_masks(quilt, quilt[start])
    return flood(start, cm if by_color else pm)


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
    cm, pm = same_masks(quilt, t)
    return earn_masks(config, t, cell, cm, pm, button_mask, cat_mask, button_colors, has_rainbow)


def earn_masks(
    config: GameConfig,
    t: int,
    cell: int,
    color_mask: int,
    pattern_mask: int,
    button_mask: int,
    cat_mask: int,
    button_colors: frozenset[int],
    has_rainbow: bool,
) -> Earned:
    """:func:`earn`, given the masks of cells sharing the placed tile's colour and pattern."""
    button = None
    # A tile with no like neighbour is a group of one: skip the flood (most early placements).
    alone = NEIGHBOUR_MASK[cell]
    cgroup = flood(cell, color_mask) if alone & color_mask else 1 << cell
    if cgroup.bit_count() >= 3 and not cgroup & button_mask:
        button = (t // 6, cgroup)
    cat = None
    pattern = t % 6
    pgroup = flood(cell, pattern_mask) if alone & pattern_mask else 1 << cell
    if not pgroup & cat_mask:
        ci = config.pattern_cat(pattern)
        if cat_satisfied(config.cats[ci], pgroup, cell):
            cat = (ci, pattern, pgroup)
    rainbow = False
    if button is not None and not has_rainbow:
        rainbow = len(button_colors | {button[0]}) == len(config.colors)
    return Earned(button, cat, rainbow)
