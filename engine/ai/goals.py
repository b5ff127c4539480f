"""How achievable a design goal still is: expected points from a partly filled neighbourhood.

A goal only cares about the *counts* of colours and of patterns among its six neighbours, and
every one of the 36 tile kinds is equally common in the bag, so the future of a neighbourhood
depends only on two sorted count vectors (colours, patterns), not on which colours or patterns
they are. That leaves at most 210 states per goal, small enough to solve exactly under a simple
model of play:

    each empty neighbour is filled in turn with the best of ``m`` random tiles,
    "best" meaning the tile that maximises the expected points of what remains.

``m`` says how choosy the player can still be (large early in the game, 1 at the very end);
the caller picks it from the turns left. The value is the expectation of the goal's points
(both ways, one way, or nothing) under that model, a number between 0 and the both-ways value.
"""

from __future__ import annotations

from functools import cache

Counts = tuple[int, int, int, int, int, int]  # six counts, sorted largest first

ZERO: Counts = (0, 0, 0, 0, 0, 0)


def _bump(counts: Counts, value: int) -> Counts:
    """``counts`` with one entry equal to ``value`` raised by one, re-sorted."""
    out = list(counts)
    out[out.index(value)] += 1
    out.sort(reverse=True)
    return (out[0], out[1], out[2], out[3], out[4], out[5])


def _classes(counts: Counts) -> list[tuple[int, int]]:
    """(count value, how many of the six colours or patterns have it)."""
    out: list[tuple[int, int]] = []
    for v in counts:
        if out and out[-1][0] == v:
            out[-1] = (v, out[-1][1] + 1)
        else:
            out.append((v, 1))
    return out


def _possible(counts: Counts, rule: tuple[int, ...]) -> bool:
    """Can ``counts`` still grow into exactly ``rule`` (sorted, largest first)?"""
    used = [c for c in counts if c]
    if len(used) > len(rule):
        return False
    # Greedy is exact here: match the largest counts with the largest parts.
    return all(c <= r for c, r in zip(used, rule, strict=False))


@cache
def goal_value(rule: tuple[int, ...], one_way: int, both_ways: int, both_only: bool,
               m: float, colors: Counts, patterns: Counts) -> float:
    """Expected points of a goal whose neighbours show ``colors``/``patterns`` counts so far."""
    filled = sum(colors)
    ok_c = _possible(colors, rule)
    ok_p = _possible(patterns, rule)
    if filled == 6:
        met = (ok_c and tuple(c for c in colors if c) == rule,
               ok_p and tuple(p for p in patterns if p) == rule)
        if met[0] and met[1]:
            return float(both_ways)
        if met[0] or met[1]:
            return 0.0 if both_only else float(one_way)
        return 0.0
    if not ok_c and not ok_p:
        return 0.0
    if both_only and not (ok_c and ok_p):
        return 0.0
    children: list[tuple[float, int]] = []
    for cv, cn in _classes(colors):
        c2 = _bump(colors, cv)
        for pv, pn in _classes(patterns):
            children.append((goal_value(rule, one_way, both_ways, both_only, m, c2,
                                        _bump(patterns, pv)), cn * pn))
    children.sort()
    expected = 0.0
    cumulative = 0
    previous = 0.0
    for value, weight in children:
        cumulative += weight
        f = (cumulative / 36.0) ** m
        expected += value * (f - previous)
        previous = f
    return expected


def counts_of(values: list[int]) -> Counts:
    """Sorted counts of the six possible values among ``values`` (each 0..5)."""
    c = [0, 0, 0, 0, 0, 0]
    for v in values:
        c[v] += 1
    c.sort(reverse=True)
    return (c[0], c[1], c[2], c[3], c[4], c[5])
