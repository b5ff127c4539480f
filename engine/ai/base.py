"""The computer-player protocol, the level registry and the random player."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from engine.moves import Move
from engine.views import PrivateView


class Player(Protocol):
    level: str

    def choose(self, view: PrivateView, legal: list[Move]) -> Move:
        """Pick one of ``legal`` (never empty) for the seat of ``view``."""
        ...


class RandomPlayer:
    """Any legal move, uniformly: the floor every other level must beat."""

    level = "random"

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: PrivateView, legal: list[Move]) -> Move:
        return self._rng.choice(legal)


def _registry() -> dict[str, Callable[[int], Player]]:
    from engine.ai.players import EasyPlayer, NormalPlayer, StrongPlayer

    return {"random": RandomPlayer, "easy": EasyPlayer, "normal": NormalPlayer,
            "strong": StrongPlayer}


LEVELS: dict[str, Callable[[int], Player]] = _registry()


def make_player(level: str, seed: int) -> Player:
    """A computer player of ``level`` with its own generator seeded by ``seed``."""
    try:
        return LEVELS[level](seed)
    except KeyError:
        raise ValueError(f"unknown level {level!r}: choose from {', '.join(LEVELS)}") from None
