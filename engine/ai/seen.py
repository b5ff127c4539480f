"""What a computer seat knows, taken only from its private view.

The unseen pool is the full tile set (``bag_size / 36`` copies of each kind) minus every tile
the seat can see: the tiles placed on every quilt (printed border patches are not tiles), the
market, its own hand and the solo discards. The other players' hands are not visible, so they
stay in the pool together with the bag. Nothing here touches the game state itself.
"""

from __future__ import annotations

import random

from engine.ai.model import Quilt, Rules
from engine.tiles import KINDS
from engine.views import PrivateView


def unseen_counts(view: PrivateView) -> list[int]:
    """How many tiles of each of the 36 kinds the seat cannot see (bag and other hands)."""
    pub = view.public
    copies = pub.config.bag_size // KINDS
    counts = [copies] * KINDS
    for sv in pub.seats:
        for cell in sv.placed:
            counts[sv.quilt[cell]] -= 1
    for t in pub.market:
        if t is not None:
            counts[t] -= 1
    for t in view.hand:
        counts[t] -= 1
    for t in pub.discards:
        counts[t] -= 1
    return [max(0, n) for n in counts]


def sample_tiles(counts: list[int], k: int, rng: random.Random) -> list[int]:
    """``k`` tiles drawn without replacement from a pool given as counts per kind."""
    pool = [t for t, n in enumerate(counts) for _ in range(n)]
    if len(pool) <= k:
        return pool
    return rng.sample(pool, k)


def own_quilt(view: PrivateView, rules: Rules) -> Quilt:
    """The search model of the viewing seat's quilt."""
    return seat_quilt(view, view.seat, rules)


def seat_quilt(view: PrivateView, seat: int, rules: Rules) -> Quilt:
    """The search model of any seat's quilt (quilts and tokens are public)."""
    sv = view.public.seats[seat]
    button_mask = 0
    for cell, _ in sv.buttons:
        button_mask |= 1 << cell
    cat_mask = 0
    for cell, _ in sv.cats:
        cat_mask |= 1 << cell
    return rules.quilt(sv.quilt, button_mask, cat_mask, sv.buttons, sv.cats,
                       sv.rainbow is not None)
