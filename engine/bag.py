"""Drawing tiles: the bag is 36 counts and each draw picks uniformly among the tiles left,
using the game's own generator, so the order never exists until a tile is drawn.
"""

from __future__ import annotations

from engine.rng import below


def draw(bag: tuple[int, ...], rng: int) -> tuple[tuple[int, ...], int, int | None]:
    """``(bag, rng, tile)`` after drawing one tile; tile is None when the bag is empty."""
    total = sum(bag)
    if total == 0:
        return bag, rng, None
    rng, x = below(rng, total)
    for t, n in enumerate(bag):
        if x < n:
            return bag[:t] + (n - 1,) + bag[t + 1 :], rng, t
        x -= n
    raise AssertionError("unreachable: x < total")
