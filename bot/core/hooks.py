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
- ``life``: Discord's life around the games (:data:`Life`: a channel deleted, the bot's access
  to a channel lost, the bot removed from a server, a member leaving it), told by
  :mod:`bot.core.leaving` after the games took it into account; returns how many of its own
  things it changed (a tournament paused, an entrant withdrawn). Isolated like ``sweep``.

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
class ChannelGone:
    """A channel or thread was deleted (``guild_id`` when known)."""

    channel_id: int
    guild_id: int | None = None


@dataclass(frozen=True, slots=True)
class AccessLost:
    """The bot may no longer post in a channel (Discord refused a post with 403)."""

    channel_id: int
    guild_id: int | None = None


@dataclass(frozen=True, slots=True)
class GuildGone:
    """The bot was removed from a server (or the server was deleted)."""

    guild_id: int


@dataclass(frozen=True, slots=True)
class MemberLeft:
    """A member left a server (or was kicked or banned)."""

    guild_id: int
    user_id: int


Life = ChannelGone | AccessLost | GuildGone | MemberLeft


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: the events of its last move and the engine's final result."""

    events: Sequence[Event]
    over: GameOver


GameOverHook = Callable[[K, Tx, Ending], Awaitable[Part | None]]
SweepJob = Callable[[K, int], Awaitable[int]]
LifeHook = Callable[[K, Life], Awaitable[int]]


@dataclass(frozen=True, slots=True)
class Feature(Generic[K]):
    """What one feature adds to the flow (see the module docstring)."""

    name: str
    game_over: GameOverHook[K] | None = None
    sweep: SweepJob[K] | None = None
    life: LifeHook[K] | None = None


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

    async def life(self, kernel: K, event: Life) -> dict[str, int]:
        """Every feature's answer to a change in Discord (see :data:`Life`); what each
        changed (only those that changed something). A failure is logged and holds nothing."""
        done: dict[str, int] = {}
        for feature in self.features:
            if feature.life is None:
                continue
            try:
                changed = await feature.life(kernel, event)
            except Exception:
                log.exception("%s: %s failed", feature.name, event)
                continue
            if changed:
                done[feature.name] = changed
        return done
