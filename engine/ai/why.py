"""Why a reviewed move cost points, in terms a player recognises (issue #22).

The review (:mod:`engine.ai.review`) finds which scoring part the engine's line got more of (a
cat, a button colour, the rainbow, a design goal) and whether the engine's placement scored it
at once (``earned``) or later (``kept_open``). This module looks at the two quilts right after
the two placements and, where it can say more, names what the player's own move did:

- ``closed``: a design goal whose six neighbours can no longer show its counts (neither by
  colours nor by patterns; both, under the both-ways restriction) after the player's move,
  while after the engine's move they still can (or already do);
- ``cut_short``: a pattern group of the cat's patterns (or, for a button, a colour group with
  no button yet) touching the player's placed tile that can no longer grow to the size the cat
  (or a button) needs, counting every empty cell it could still reach, while after the
  engine's move it still could.

Pure functions of quilts (49 cells: a tile ``colour * 6 + pattern``, ``EMPTY`` or ``GOAL``),
no randomness. A reason it cannot sharpen keeps the review's own ``how``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from engine.config import GameConfig, Restriction
from engine.hexgrid import NEIGHBOURS
from engine.tiles import EMPTY, color_of, pattern_of

BUTTON_SIZE = 3  # cells of one colour that sew a button


def counts_possible(counts: Sequence[int], shown: Sequence[int]) -> bool:
    """Whether neighbours already showing ``shown`` (the values of the filled ones) can still
    be completed to exactly ``counts`` (sorted largest first, summing to six): the values seen
    so far, by frequency, must each fit a slot of the goal, largest with largest."""
    have = sorted(Counter(shown).values(), reverse=True)
    if len(have) > len(counts):
        return False
    return all(h <= c for h, c in zip(have, counts, strict=False))


def goal_open(cfg: GameConfig, quilt: Sequence[int], spot: int, goal_id: str) -> bool:
    """Whether the goal on ``spot`` can still be met (in the way that scores under the game's
    rules) once the empty neighbours are filled."""
    rule = cfg.goal(goal_id)
    tiles = [quilt[n] for n in NEIGHBOURS[spot] if quilt[n] >= 0]
    by_color = counts_possible(rule.counts, [color_of(t) for t in tiles])
    by_pattern = counts_possible(rule.counts, [pattern_of(t) for t in tiles])
    if cfg.restriction is Restriction.BOTH_WAYS:
        return by_color and by_pattern
    return by_color or by_pattern


def _group(quilt: Sequence[int], start: int, same: Callable[[int], bool]) -> set[int]:
    """The connected cells from ``start`` whose tile passes ``same``."""
    seen = {start}
    todo = [start]
    while todo:
        cell = todo.pop()
        for n in NEIGHBOURS[cell]:
            if n not in seen and quilt[n] >= 0 and same(quilt[n]):
                seen.add(n)
                todo.append(n)
    return seen


def reach(quilt: Sequence[int], cells: set[int], same: Callable[[int], bool]) -> int:
    """How big the group ``cells`` could still grow: it and every cell it can reach through
    empty cells and tiles that pass ``same``."""
    seen = set(cells)
    todo = list(cells)
    while todo:
        cell = todo.pop()
        for n in NEIGHBOURS[cell]:
            if n in seen:
                continue
            t = quilt[n]
            if t == EMPTY or (t >= 0 and same(t)):
                seen.add(n)
                todo.append(n)
    return len(seen)


def cut_short(played: Sequence[int], engine: Sequence[int], cell: int,
              same: Callable[[int], bool], need: int) -> bool:
    """Whether the tile the player placed on ``cell`` cut a neighbouring group (tiles passing
    ``same``, smaller than ``need``) short of ``need`` cells, where the engine's quilt leaves
    that group room to get there."""
    if played[cell] < 0 or same(played[cell]):
        return False
    for n in NEIGHBOURS[cell]:
        if played[n] < 0 or not same(played[n]):
            continue
        group = _group(played, n, same)
        if len(group) >= need:
            continue
        if reach(played, group, same) < need <= reach(engine, group, same):
            return True
    return False


def sharpen(cfg: GameConfig, goals: Sequence[str] | None, kind: str, how: str, *,
            played: Sequence[int], engine: Sequence[int], cell: int, index: int) -> str:
    """The ``how`` of a review reason, sharpened when the player's move closed a goal off
    (``closed``) or cut a group short (``cut_short``); otherwise ``how`` unchanged.
    ``index``: the cat's, the colour's or the goal spot's index, by ``kind``."""
    if how == "earned" or kind == "rainbow":
        return how
    if kind == "goal" and goals is not None:
        spot, goal = cfg.goal_spots[index], goals[index]
        if not goal_open(cfg, played, spot, goal) and goal_open(cfg, engine, spot, goal):
            return "closed"
    elif kind == "cat":
        cat = cfg.cats[index]
        need = cat.min_size or len(cat.shape)
        for p in cat.patterns:
            def same_pattern(t: int, p: int = p) -> bool:
                return pattern_of(t) == p

            if cut_short(played, engine, cell, same_pattern, need):
                return "cut_short"
    elif kind == "button":
        def same_color(t: int) -> bool:
            return color_of(t) == index

        if cut_short(played, engine, cell, same_color, BUTTON_SIZE):
            return "cut_short"
    return how
