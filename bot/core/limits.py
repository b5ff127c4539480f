"""Limits that keep one person from costing everyone else: how many games they may hold, and how
often they may ask for costly work.

- :func:`check_new_game`: at most ``max_lobbies`` open lobbies hosted and ``max_active_games``
  games in play (lobbies included) per person; the lobby service
  (:func:`bot.core.lobby.check_limits`) calls it before creating or joining a game and refuses
  with a :class:`LimitError` (a :class:`~bot.core.models.ManagerError` with the limit in
  ``params``, answered privately like any refusal). Within one process a person's
  new games are created one at a time (under the kernel's per-person lock), so a burst of
  clicks cannot slip past the count; processes sharing a database may each let one through.
- :class:`LobbyAllowance`: new lobbies a person may open, ``per_hour`` at once and then one
  more every ``60 / per_hour`` minutes (issue #20: a lobby opened and cancelled at once still
  used its share, so "open, cancel, open again" cannot flood a channel with threads and pings).
  Taken only when a lobby is really created (a refused one costs nothing); in memory, per
  process, on the core's clock.
- :class:`Cooldowns`: per-person rate limits by kind of work (starting games, drawing
  pictures), each a burst allowance refilled at a steady pace (GCRA, the token bucket's
  arithmetic without a timer). :meth:`Cooldowns.take` says whether the work may go ahead now,
  else how long until it may. The Discord layer picks the kind of each interaction
  (:mod:`bot.adapter.cooldowns`).

Nothing here imports discord.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.core.models import ManagerError
from bot.core.storage import GameStore

TOO_MANY_LOBBIES: Final = "too_many_lobbies"
TOO_MANY_GAMES: Final = "too_many_games"
TOO_MANY_NEW_LOBBIES: Final = "too_many_new_lobbies"
HOUR: Final = 3600.0
ACTIVE: Final = ("lobby", "draft", "play")


class LimitError(ManagerError):
    """A person reached one of their limits; ``params`` says which number."""

    def __init__(self, code: str, limit: int) -> None:
        super().__init__(code, f"at most {limit}")
        self.params: dict[str, Any] = {"limit": limit, "count": limit}


class NewLobbiesError(LimitError):
    """A person opened as many lobbies as the hourly allowance lets them; ``minutes`` until
    the next one."""

    def __init__(self, limit: int, seconds: float) -> None:
        super().__init__(TOO_MANY_NEW_LOBBIES, limit)
        self.params["minutes"] = max(1, math.ceil(seconds / 60))


@dataclass(frozen=True, slots=True)
class GameLimits:
    max_lobbies: int | None = None  # open lobbies one person hosts (None: no limit)
    max_active_games: int | None = None  # games one person is in, lobbies included


# (status, host id) of a game, from the kernel's cache.
GameHost = Callable[[int], Awaitable[tuple[str, int]]]


async def check_new_game(store: GameStore, user_id: int, limits: GameLimits, *, hosting: bool,
                         game_host: GameHost) -> None:
    """Raise :class:`LimitError` if ``user_id`` may not take one more game (``hosting``: one
    they would host, as a new lobby)."""
    if limits.max_active_games is not None:
        active = await store.count_games(user_id, ACTIVE)
        if active >= limits.max_active_games:
            raise LimitError(TOO_MANY_GAMES, limits.max_active_games)
    if hosting and limits.max_lobbies is not None:
        # Lobbies they sit in (hosted or joined): cheap, and usually far below the limit.
        if await store.count_games(user_id, ("lobby",)) < limits.max_lobbies:
            return
        hosted = 0
        for game_id in await store.game_ids(user_id=user_id, active_only=True):
            status, host = await game_host(game_id)
            hosted += status == "lobby" and host == user_id
        if hosted >= limits.max_lobbies:
            raise LimitError(TOO_MANY_LOBBIES, limits.max_lobbies)


@dataclass(frozen=True, slots=True)
class Rule:
    """``burst`` actions at once, then one every ``every`` seconds (``every`` 0: no limit)."""

    burst: int
    every: float


class Cooldowns:
    """Per-person rate limits by kind (see the module docstring). In memory, per process."""

    def __init__(self, rules: Mapping[str, Rule], *, clock: Callable[[], float] = time.monotonic,
                 size: int = 50_000) -> None:
        self.rules = dict(rules)
        self.clock = clock
        self.size = size
        # (kind, user) -> the moment their allowance is whole again (GCRA's "theoretical
        # arrival time"); a key whose moment has passed is at full allowance and may go.
        self._due: OrderedDict[tuple[str, int], float] = OrderedDict()
        self.refused = 0

    def take(self, kind: str, user_id: int) -> float:
        """0.0 when ``user_id`` may do one more ``kind`` now (and it is counted); otherwise
        the seconds until they may."""
        rule = self.rules.get(kind)
        if rule is None or rule.every <= 0:
            return 0.0
        now = self.clock()
        key = (kind, user_id)
        due = max(self._due.get(key, now), now)
        allowance = (rule.burst - 1) * rule.every
        if due - now > allowance:
            self.refused += 1
            return due - now - allowance
        self._due[key] = due + rule.every
        self._due.move_to_end(key)
        if len(self._due) > self.size:
            self._prune(now)
        return 0.0

    def wait(self, kind: str, user_id: int) -> float:
        """What :meth:`take` would answer now, without counting anything."""
        rule = self.rules.get(kind)
        if rule is None or rule.every <= 0:
            return 0.0
        now = self.clock()
        due = max(self._due.get((kind, user_id), now), now)
        return max(0.0, due - now - (rule.burst - 1) * rule.every)

    def refund(self, kind: str, user_id: int) -> None:
        """Give back one ``kind`` taken by ``user_id`` (the work it admitted was refused)."""
        rule = self.rules.get(kind)
        key = (kind, user_id)
        if rule is None or rule.every <= 0 or key not in self._due:
            return
        self._due[key] = max(self._due[key] - rule.every, self.clock())

    def _prune(self, now: float) -> None:
        for key in [k for k, due in self._due.items() if due <= now]:
            del self._due[key]
        while len(self._due) > self.size:
            self._due.popitem(last=False)


class LobbyAllowance:
    """New lobbies per person (see the module docstring); ``per_hour`` None: no limit."""

    KIND: Final = "new_lobby"

    def __init__(self, per_hour: int | None, clock: Callable[[], float]) -> None:
        self.per_hour = per_hour
        self._cooldowns = Cooldowns(
            {self.KIND: Rule(per_hour, HOUR / per_hour)} if per_hour else {}, clock=clock)

    def take(self, user_id: int) -> None:
        """Count one new lobby of ``user_id``, or raise :class:`NewLobbiesError`."""
        if self.per_hour is None:
            return
        wait = self._cooldowns.take(self.KIND, user_id)
        if wait > 0:
            raise NewLobbiesError(self.per_hour, wait)

    def check(self, user_id: int) -> None:
        """Raise :class:`NewLobbiesError` if :meth:`take` would (nothing is counted)."""
        if self.per_hour is not None:
            wait = self._cooldowns.wait(self.KIND, user_id)
            if wait > 0:
                raise NewLobbiesError(self.per_hour, wait)

    def refund(self, user_id: int) -> None:
        """The lobby counted by :meth:`take` was not created after all."""
        self._cooldowns.refund(self.KIND, user_id)


__all__ = [
    "ACTIVE",
    "TOO_MANY_GAMES",
    "TOO_MANY_LOBBIES",
    "TOO_MANY_NEW_LOBBIES",
    "Cooldowns",
    "GameLimits",
    "LimitError",
    "LobbyAllowance",
    "NewLobbiesError",
    "Rule",
    "check_new_game",
]
