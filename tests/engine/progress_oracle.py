"""An independent, brute-force reading of the live progress (issue 30), for the property tests
of :mod:`engine.progress`.

Written from the rulings (``../shared/rules/data.md``) with the tests' own grid and shapes
(:mod:`tests.engine.helpers`), not from the engine's progress code:

- **goals**: every completion of the empty cells around a goal, by the colours and the
  patterns it adds (cells around one goal are alike: only the tally counts), each checked
  against the goal's groups and against the copies of each tile still to be had, by trying
  every pairing of the added colours with the added patterns;
- **cat groups**: the growths of a group, one tile of its pattern at a time on an empty cell
  next to it, each tile joining whatever groups of that pattern it touches; a growth that
  swallows a cell holding a cat token is dead (that area has scored), one that reaches the
  cat's size or holds its shape earns the cat. Every order of placements is tried while that
  stays within a budget; past it, the one greedy growth that places wherever it can (see
  :meth:`Growths.greedy` for why that decides too, checked against the exhaustive search
  wherever the latter finishes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations_with_replacement

from tests.engine.helpers import neighbours, positions

SIZE = 7
COPIES = 3


def _cell(r: int, c: int) -> int:
    return r * SIZE + c


NB: tuple[int, ...] = tuple(
    sum(1 << _cell(rr, cc) for rr, cc in neighbours(r, c))
    for r in range(SIZE) for c in range(SIZE)
)
INNER_CELLS = tuple(_cell(r, c) for r in range(1, 6) for c in range(1, 6))


def _bits(mask: int) -> list[int]:
    return [i for i in range(SIZE * SIZE) if mask >> i & 1]


# --------------------------------------------------------------------------- goals


def left_of(quilt: Sequence[int], elsewhere: Sequence[int], copies: int = COPIES) -> list[int]:
    """Copies of each tile that may still come: the game's copies less those placed on this
    quilt's inner cells and those gone elsewhere (never below 0)."""
    own = Counter(quilt[c] for c in INNER_CELLS if quilt[c] >= 0)
    return [max(0, copies - own[t] - (elsewhere[t] if t < len(elsewhere) else 0))
            for t in range(36)]


def _meets(values: Sequence[int], want: Sequence[int]) -> bool:
    return sorted(Counter(values).values(), reverse=True) == sorted(want, reverse=True)


def _pairable(colors: Sequence[int], patterns: Sequence[int] | None, left: Sequence[int]
              ) -> bool:
    """Can each added colour be given a pattern (one of ``patterns``, each used once; any
    pattern when None) so that no tile is used more often than ``left`` allows?"""
    stock = list(left)
    pool = Counter(patterns) if patterns is not None else None

    def go(i: int) -> bool:
        if i == len(colors):
            return True
        c = colors[i]
        for p in range(6):
            if pool is not None and not pool[p]:
                continue
            t = c * 6 + p
            if not stock[t]:
                continue
            stock[t] -= 1
            if pool is not None:
                pool[p] -= 1
            found = go(i + 1)
            stock[t] += 1
            if pool is not None:
                pool[p] += 1
            if found:
                return True
        return False

    return go(0)


def goal_truth(around: Sequence[int], want: Sequence[int], left: Sequence[int]
               ) -> tuple[bool, bool, bool]:
    """(colours possible, patterns possible, both together possible) for a goal whose six
    neighbours hold ``around`` (tile codes, negative for an empty cell)."""
    placed = [t for t in around if t >= 0]
    k = len(around) - len(placed)
    have_c = [t // 6 for t in placed]
    have_p = [t % 6 for t in placed]
    adds = list(combinations_with_replacement(range(6), k))
    col = [a for a in adds if _meets(have_c + list(a), want)]
    pat = [b for b in adds if _meets(have_p + list(b), want)]
    by_c = any(_pairable(a, None, left) for a in col)
    # patterns alone: swap the roles (any colour for each added pattern)
    flipped = [left[(t % 6) * 6 + t // 6] for t in range(36)]
    by_p = any(_pairable(b, None, flipped) for b in pat)
    both = by_c and by_p and any(_pairable(a, b, left) for a in col for b in pat)
    return by_c, by_p, both


# --------------------------------------------------------------------------- cat groups


def _around(mask: int) -> int:
    """Every neighbour of the cells of ``mask``."""
    out = 0
    while mask:
        low = mask & -mask
        out |= NB[low.bit_length() - 1]
        mask ^= low
    return out


def _flood(start: int, allowed: int) -> int:
    group = 1 << start
    while True:
        grown = (group | _around(group)) & allowed
        if grown == group:
            return group
        group = grown


@lru_cache(maxsize=16)
def shape_masks(shape: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    return tuple(sum(1 << _cell(r, c) for r, c in p) for p in positions(shape))


Done = Callable[[int, int], bool]


class Growths:
    """The growths of one pattern group on one quilt (see the module docstring)."""

    def __init__(self, quilt: Sequence[int], pattern: int, tokens: Sequence[int]) -> None:
        self.mine = sum(1 << c for c, t in enumerate(quilt) if t >= 0 and t % 6 == pattern)
        self.empty = sum(1 << c for c, t in enumerate(quilt) if t == -1)
        self.tokens = sum(1 << c for c in tokens)

    def steps(self, group: int) -> list[tuple[int, int]]:
        """(cell, group after) for each tile of the pattern that may be placed next to
        ``group`` without joining an area holding a cat token."""
        mine = self.mine | (group & self.empty)  # the tiles placed so far are in the group
        out = []
        free = _around(group) & self.empty & ~group
        while free:
            low = free & -free
            free ^= low
            e = low.bit_length() - 1
            grown = _flood(e, mine | low)
            if not grown & self.tokens:
                out.append((e, grown))
        return out

    def every(self, group: int, done: Done, budget: int) -> bool | None:
        """Whether some growth of ``group`` (every order of placements tried, each group
        reached once) reaches a placement after which ``done(group, cell)`` holds; None when
        more than ``budget`` groups would have to be tried."""
        seen: set[int] = set()
        todo = [group]
        while todo:
            g = todo.pop()
            for e, grown in self.steps(g):
                if done(grown, e):
                    return True
                if grown not in seen:
                    seen.add(grown)
                    if len(seen) > budget:
                        return None
                    todo.append(grown)
        return False

    def greedy(self, group: int, done: Done) -> tuple[bool, int]:
        """One growth that places a tile wherever it can, lowest cell first, until no cell
        is left that would not join a scored area: (whether ``done`` held after some
        placement, the group it ends with).

        Why one growth is enough when :meth:`every` is too costly: two growths that each
        avoid every scored area can both be made (a tile joins a scored area only by touching
        it, and neither touches one), so the greedy growth holds every group any growth can
        reach; the size and the shape tests only become true as a group grows, and become true
        at the placement that completes them. The tests check this against :meth:`every`
        wherever that one finishes."""
        hit = False
        while True:
            steps = self.steps(group)
            if not steps:
                return hit, group
            e, group = steps[0]
            hit = hit or done(group, e)


def cat_test(min_size: int, shape: tuple[tuple[int, int], ...]) -> Done:
    """Whether a group, after a tile on ``cell``, earns the cat: the size, or a placement of
    the shape inside it (it comes with the tile that completes it)."""
    masks = shape_masks(shape) if not min_size else ()

    def done(g: int, cell: int) -> bool:
        if min_size:
            return g.bit_count() >= min_size
        return any(m & g == m for m in masks if m >> cell & 1)

    return done


def earns(quilt: Sequence[int], pattern: int, tokens: Sequence[int], group: int,
          min_size: int, shape: tuple[tuple[int, int], ...], budget: int = 400
          ) -> tuple[bool, bool]:
    """(can some growth of ``group`` earn the cat (size ``min_size``, else ``shape``),
    decided by trying every growth (else by the greedy growth))."""
    grow = Growths(quilt, pattern, tokens)
    done = cat_test(min_size, shape)
    every = grow.every(group, done, budget)
    greedy, _ = grow.greedy(group, done)
    if every is not None:
        assert every == greedy, "the greedy growth disagrees with every growth"
        return every, True
    return greedy, False


def shape_reach(quilt: Sequence[int], pattern: int, tokens: Sequence[int], group: int,
                shape: tuple[tuple[int, int], ...]) -> int:
    """The most cells of ``group`` one placement of ``shape`` covers among the placements
    some growth of the group can come to hold whole with a tile of its own (one with an
    empty cell): 0 when none."""
    grow = Growths(quilt, pattern, tokens)
    _, most = grow.greedy(group, lambda g, c: False)
    return max(((m & group).bit_count() for m in shape_masks(shape)
                if m & most == m and m & grow.empty), default=0)
