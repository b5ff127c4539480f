"""How features extend the game's flow without the kernel or the flow naming them, as
boardgame.io's plugins extend its ``flow``.

A feature (achievements and ratings, the weekly challenge, tournaments, a league one day) is a
:class:`Feature`: a name and what it adds, each optional:

- ``game_over``: called while the last move of a game is being prepared, with the change being
  made (:class:`~bot.core.game.Tx`) and how the game ended (:class:`Ending`). It adds to that
  same transaction (steps of its own storage, :data:`~bot.core.storage.GameStep`, appended to
  ``tx.steps``; notices through ``tx.dm``/``tx.thread``) and returns what the score sheet says
  about it: a notice part (:mod:`bot.core.notices`), or None. A feature that fails is logged,
  what it added is taken back, and the game still ends.
- ``sweep``: periodic work, run by every sweep after the timers (close a week, start a round);
  returns how many steps it took, for the sweep's report. A failure is logged and never holds
  the sweep or the other features.

The composition root (:class:`bot.core.manager.Manager`) registers the features; the kernel
holds them (``kernel.hooks``) and the flow and the sweep call :meth:`Hooks.game_over` and
:meth:`Hooks.sweep`. Nothing here imports the kernel (features receive it as ``K``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.core.game import Tx
from bot.core.notices import Part
from engine.events import Event, GameOver

log = logging.getLogger("calico.hooks")

K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: the events of its last move and the engine's final result."""

    events: Sequence[Event]
    over: GameOver


GameOverHook = Callable[[K, Tx, Ending], Awaitable[Part | None]]
SweepJob = Callable[[K, int], Awaitable[int]]


@dataclass(frozen=True, slots=True)
class Feature(Generic[K]):
    """What one feature adds to the flow (see the module docstring)."""

    name: str
    game_over: GameOverHook[K] | None = None
    sweep: SweepJob[K] | None = None


class Hooks(Generic[K]):
    """The features registered with one kernel, in registration order."""

    def __init__(self) -> None:
        self.features: list[Feature[K]] = []

    def add(self, feature: Feature[K]) -> None:
        if any(f.name == feature.name for f in self.features):
            raise ValueError(f"feature {feature.name!r} is registered already")
        self.features.append(feature)

    async def game_over(self, kernel: K, tx: Tx, ending: Ending) -> tuple[Part, ...]:
        """Every feature's addition to a game's last commit; the score sheet's parts."""
        parts: list[Part] = []
        for feature in self.features:
            if feature.game_over is None:
                continue
            mark = tx.savepoint()
            try:
                part = await feature.game_over(kernel, tx, ending)
            except Exception:
                log.exception("%s at the end of game %s failed", feature.name, tx.g.id)
                tx.restore(mark)
                continue
            if part is not None:
                parts.append(part)
        return tuple(parts)

    async def sweep(self, kernel: K, now: int) -> dict[str, int]:
        """Every feature's periodic work; the steps each took (only those that took some)."""
        done: dict[str, int] = {}
        for feature in self.features:
            if feature.sweep is None:
                continue
            try:
                steps = await feature.sweep(kernel, now)
            except Exception:
                log.exception("%s: periodic work failed", feature.name)
                continue
            if steps:
                done[feature.name] = steps
        return done
