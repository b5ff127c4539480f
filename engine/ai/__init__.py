"""Computer players. Each decides from what its seat may see (a private view) and the legal
moves, with its own seeded generator: never the bag, the seed or another hand.
"""

from __future__ import annotations

from engine.ai.base import LEVELS, Player, make_player

__all__ = ["LEVELS", "Player", "make_player"]
