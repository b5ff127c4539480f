"""What this process keeps in memory of the database: parsed games (and who is waiting for one
to change), and people's rows.

Hot games are cached (the most recently used first to stay; ended ones only a few: their score
sheet, replay and review are drawn soon after the end). A cached game may be behind another
process's write, so it only ever serves reads; another process's commit drops it at once (the
store's change notifications, :meth:`GameCache.changed_elsewhere`).

Every change the cache learns of (this process's commit or load of a newer version, another
process's notification) wakes whoever :meth:`watch` es that game: the kernel's
:meth:`~bot.core.kernel.Kernel.wait_for` ("return when this game satisfies this") is built on
it, instead of sleeping and reading the game again in a loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from dataclasses import replace

from bot.core.game import LiveGame
from bot.core.storage import UserRow


class GameCache:
    """Parsed games by id, bounded (``size`` games, of them ``ended_size`` ended ones)."""

    def __init__(self, size: int, ended_size: int) -> None:
        self.size = size
        self.ended_size = ended_size
        self._games: OrderedDict[int, LiveGame] = OrderedDict()
        self._ended: OrderedDict[int, None] = OrderedDict()  # ended games among them
        self._watchers: dict[Hashable, set[asyncio.Event]] = {}

    def get(self, game_id: int) -> LiveGame | None:
        """The cached game (now the most recently used), if any."""
        g = self._games.get(game_id)
        if g is not None:
            self._games.move_to_end(game_id)
        return g

    def peek(self, game_id: int) -> LiveGame | None:
        """The cached game, if any, without touching its place."""
        return self._games.get(game_id)

    def games(self) -> list[LiveGame]:
        """Every cached game, least recently used first."""
        return list(self._games.values())

    def keep(self, g: LiveGame) -> None:
        """Cache ``g``, the game as it stands now (a commit of this process)."""
        self._games[g.id] = g
        self._games.move_to_end(g.id)
        if not g.status.active:
            self._ended[g.id] = None
            self._ended.move_to_end(g.id)
            while len(self._ended) > self.ended_size:
                self._games.pop(self._ended.popitem(last=False)[0], None)
        while len(self._games) > self.size:
            gone, _ = self._games.popitem(last=False)
            self._ended.pop(gone, None)
        self._wake(g.id)

    def remember(self, g: LiveGame) -> None:
        """Cache ``g`` as loaded, unless a newer version is cached (a load that raced a
        commit)."""
        have = self._games.get(g.id)
        if have is not None and have.version > g.version:
            return
        self.keep(g)

    def forget(self, game_id: int) -> None:
        """Drop a game (the next read loads it)."""
        self._games.pop(game_id, None)
        self._ended.pop(game_id, None)  # its place among the ended games is free again

    def changed_elsewhere(self, game_id: int, version: int) -> None:
        """Another process committed ``version`` of a game: a cached older one is dropped, and
        whoever waits for it looks again."""
        have = self._games.get(game_id)
        if have is not None and have.version != version:
            self.forget(game_id)
        self._wake(game_id)

    @contextlib.contextmanager
    def watch(self, topic: Hashable) -> Iterator[asyncio.Event]:
        """An event set each time ``topic`` changes (a game id, or a feature's topic), for the
        block's length."""
        event = asyncio.Event()
        self._watchers.setdefault(topic, set()).add(event)
        try:
            yield event
        finally:
            watchers = self._watchers.get(topic)
            if watchers is not None:
                watchers.discard(event)
                if not watchers:
                    del self._watchers[topic]

    def touch(self, topic: Hashable) -> None:
        """``topic`` changed (a feature's: a tournament's tables...): wake who watches it."""
        self._wake(topic)

    def _wake(self, topic: Hashable) -> None:
        for event in self._watchers.get(topic, ()):
            event.set()


class UserCache:
    """People's stored rows (settings, when their DMs failed), bounded to ``size``; another
    process's change of a row drops it (the store's change notifications)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._rows: OrderedDict[int, UserRow] = OrderedDict()

    def get(self, user_id: int) -> UserRow | None:
        return self._rows.get(user_id)

    def keep(self, row: UserRow) -> None:
        """Cache a row just read or stored."""
        self._rows[row.user_id] = row
        while len(self._rows) > self.size:
            self._rows.popitem(last=False)

    def named(self, user_id: int, name: str, locale: str | None) -> None:
        """Keep a cached row in step with a name and locale just stored."""
        u = self._rows.get(user_id)
        if u is not None:
            self._rows[user_id] = replace(u, name=name, locale=locale or u.locale)

    def forget(self, user_id: int) -> None:
        self._rows.pop(user_id, None)
