"""The game manager: the one entry point the adapter, the demo and the tests call
(``docs/manager-api.md``). A THIN FACADE (keep it under 450 lines): no logic of its own.

It imports nothing from discord. The work is done below it:

- :mod:`bot.core.kernel`: config, clock, per-game locks, the cache, load/commit with versions,
  guards and limits (a public API). :class:`Manager` *is* a kernel (it subclasses
  :class:`~bot.core.kernel.Kernel`), so it can be handed to any service function that takes
  one (``challenge.start(manager, ...)``, ``ReviewService(manager)``).
- :mod:`bot.core.flow`: deal, next turn, apply a move, computers, results, end, seat conversion.
- Services on the kernel's public API: :mod:`~bot.core.lobby`, :mod:`~bot.core.turns`,
  :mod:`~bot.core.leaving`, :mod:`~bot.core.sweep`, :mod:`~bot.core.queries`, and
  :mod:`~bot.core.challenge`, :mod:`~bot.core.progress`, :mod:`~bot.core.replays`,
  :mod:`~bot.core.review`.

Each method here forwards to one service function, :meth:`Manager.game_over` among them (the
kernel's end-of-game step, :func:`bot.core.progress.game_over`): the flow calls it at a game's
end without importing the service.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.core import leaving, lobby, progress, queries, sweep, tournament, turns
from bot.core.clock import to_ms
from bot.core.game import Tx
from bot.core.kernel import Kernel, ManagerConfig
from bot.core.models import (
    GameInfo,
    LeaderboardEntry,
    LobbyOptions,
    MoveResult,
    SweepReport,
    UserRef,
    UserSettings,
    UserStats,
)
from bot.core.outbox import Delivery, Dispatcher
from bot.core.servers import ServerSettings
from bot.core.storage import MoveRow, OutboxStats, open_store
from bot.core.turns import HintGrant
from engine.events import Event, GameOver
from engine.state import GameState

__all__ = ["Manager", "ManagerConfig"]


class Manager(Kernel):
    """The kernel plus one method per service call (see the module docstring): a thin
    facade, under 450 lines, for the adapter, the demo, the tests and the benchmarks."""

    async def game_over(self, tx: Tx, events: Sequence[Event],
                        over: GameOver) -> dict[str, Any]:
        extra = await progress.game_over(self, tx, events, over)
        # A tournament table's score sheet names its tournament and round.
        return {**extra, **await tournament.game_over(self, tx, events, over)}

    @classmethod
    async def open(cls, location: str | Path, **kwargs: Any) -> Manager:
        """Open (creating or migrating) the database at ``location`` (a SQLite path or a
        PostgreSQL URL) and a manager on it."""
        exclusive = kwargs.pop("exclusive", True)
        return cls(await open_store(location, exclusive=exclusive), **kwargs)

    async def close(self) -> None:
        await self.stop_computers()
        await self.store.close()

    def dispatcher(self, delivery: Delivery, **kwargs: Any) -> Dispatcher:
        """A dispatcher on this manager's store and clock, with the DM fallback wired in."""
        kwargs.setdefault("owner", self.owner)
        return Dispatcher(self.store, delivery, self.clock, on_dm_failed=self.dm_failed, **kwargs)

    # ------------------------------------------------------------------ servers

    async def server_settings(self, guild_id: int | None) -> ServerSettings:
        """A server's ``/calico admin`` choices (cached for a few seconds)."""
        return await self.servers.get(guild_id)

    async def set_server_settings(self, guild_id: int, changes: dict[str, Any],
                                  reset: tuple[str, ...] = ()) -> ServerSettings:
        """Change a server's settings (field names of :class:`ServerSettings`; ``reset``: the
        options to put back to their defaults) and return them as stored."""
        return await self.servers.update(guild_id, changes, reset)

    # ------------------------------------------------------------------ lobby (bot.core.lobby)

    async def create_game(self, host: UserRef, guild_id: int, channel_id: int,
                          options: LobbyOptions | None = None, *,
                          computers: Sequence[str] = (), open_thread: bool = False,
                          start: bool = False, rematch_of: int | None = None) -> GameInfo:
        """A new lobby with the host in seat 0 (and ``computers``, levels, after it), written in
        one transaction with everything it starts with.

        ``open_thread``: the outbox creates (or, after a crash, adopts) the game's thread and
        posts the lobby message there (``open_thread`` then ``lobby`` notices, first in the
        thread's lane); otherwise the caller posts and calls :meth:`attach_thread`.
        ``start``: deal at once (a solo game): there is no moment where a crash could leave the
        game in its lobby. ``rematch_of``: the finished game this lobby replays.
        """
        return await lobby.create_game(self, host, guild_id, channel_id, options,
                                       computers=computers, open_thread=open_thread,
                                       start=start, rematch_of=rematch_of)

    async def attach_thread(self, game_id: int, thread_id: int | None,
                            lobby_message_id: int | None = None) -> GameInfo:
        """Record the game's thread (and its lobby message). Repeating it is harmless."""
        return await lobby.attach_thread(self, game_id, thread_id, lobby_message_id)

    async def setup_failed(self, game_id: int, reason: str) -> GameInfo:
        """The game's thread could not be opened (no permission, the channel is gone): the
        game is cancelled and its host told by DM."""
        return await lobby.setup_failed(self, game_id, reason)

    async def join(self, game_id: int, user: UserRef) -> GameInfo:
        return await lobby.join(self, game_id, user)

    async def leave_lobby(self, game_id: int, user_id: int) -> GameInfo:
        return await lobby.leave_lobby(self, game_id, user_id)

    async def add_computer(self, game_id: int, by_user_id: int,
                           level: str | None = None) -> GameInfo:
        return await lobby.add_computer(self, game_id, by_user_id, level)

    async def remove_computer(self, game_id: int, by_user_id: int, seat: int) -> GameInfo:
        return await lobby.remove_computer(self, game_id, by_user_id, seat)

    async def remove_person(self, game_id: int, by_user_id: int, user_id: int) -> GameInfo:
        return await lobby.remove_person(self, game_id, by_user_id, user_id)

    async def claim_first(self, game_id: int, user_id: int) -> GameInfo:
        """The "who most recently pet a cat" race: the first seated person to click goes first.
        A later click by someone else is refused with ``not_allowed``."""
        return await lobby.claim_first(self, game_id, user_id)

    async def cancel(self, game_id: int, by_user_id: int) -> GameInfo:
        return await lobby.cancel(self, game_id, by_user_id)

    async def start(self, game_id: int, by_user_id: int) -> GameInfo:
        """Deal the game with the seats filled so far (at least one person)."""
        return await lobby.start(self, game_id, by_user_id)

    # ------------------------------------------------------------------ play (bot.core.turns)

    async def choose_goals(self, game_id: int, user_id: int, ply: int,
                           goals: Sequence[str]) -> MoveResult:
        """A goal draft choice (B3, C4, D2 order). Drafts are simultaneous, so the button's
        ``ply`` is accepted as long as this person has not chosen yet (``stale`` after)."""
        return await turns.choose_goals(self, game_id, user_id, ply, goals)

    async def play_turn(self, game_id: int, user_id: int, ply: int,
                        move_text: str) -> MoveResult:
        """One whole turn in engine notation (``h0@C3>m2``), answered once it is stored: a
        computer that thinks and plays next is queued (:meth:`computers_idle` waits for it)."""
        return await turns.play_turn(self, game_id, user_id, ply, move_text)

    async def take_hint(self, game_id: int, user_id: int, ply: int) -> HintGrant:
        """A person takes a hint on their turn (see :func:`bot.core.turns.take_hint`)."""
        return await turns.take_hint(self, game_id, user_id, ply)

    async def preview(self, game_id: int, user_id: int, ply: int, source: int,
                      cell: int | str) -> list[Event]:
        """What placing hand tile ``source`` (market slot, without a hand) on ``cell`` would
        earn. Read only."""
        return await turns.preview(self, game_id, user_id, ply, source, cell)

    # ------------------------------------------------------------------ leaving and Discord life

    async def leave_game(self, game_id: int, user_id: int) -> GameInfo:
        """Leave a started game: the seat becomes a computer player and the game goes on (in
        the lobby this is :meth:`leave_lobby`)."""
        return await leaving.leave_game(self, game_id, user_id)

    async def abandon(self, game_id: int, by_user_id: int, is_admin: bool = False) -> GameInfo:
        """End a game early (the host, or a server admin). A lobby is cancelled instead."""
        return await leaving.abandon(self, game_id, by_user_id, is_admin)

    async def channel_gone(self, channel_id: int) -> list[int]:
        """A thread or channel was deleted: its games end (no post: there is nowhere to post).
        Returns the ids of the games that ended."""
        return await leaving.channel_gone(self, channel_id)

    async def guild_gone(self, guild_id: int) -> list[int]:
        """The bot left (or lost) a server: all its games end."""
        return await leaving.guild_gone(self, guild_id)

    async def member_left(self, guild_id: int, user_id: int) -> list[int]:
        """A member left the server: they leave its lobbies, and their seats in its started
        games become computer players. Returns the games touched."""
        return await leaving.member_left(self, guild_id, user_id)

    async def dm_failed(self, game_id: int, user_id: int) -> None:
        """A DM to this user failed for good (called by the dispatcher): their DMs count as
        closed for ``dm_retry_after`` (see :func:`bot.core.leaving.dm_failed`)."""
        await leaving.dm_failed(self, game_id, user_id)

    # ------------------------------------------------------------------ time (bot.core.sweep)

    async def sweep(self) -> SweepReport:
        """Act on every due timer, close the weekly challenges whose week ended, delete old
        notices (see :func:`bot.core.sweep.sweep`)."""
        report = await sweep.sweep(self)
        steps = await tournament.tick(self)  # rounds that start or end (bot.core.tournament)
        if steps:
            report.details.append(f"tournaments: {steps} steps")
        return report

    # ------------------------------------------------------------------ queries

    async def state_at(self, game_id: int, ply: int) -> GameState:
        """The state after ``ply`` moves (its ``.ply == ply``), replayed from the move log."""
        return await queries.state_at(self, game_id, ply)

    async def moves(self, game_id: int) -> list[MoveRow]:
        """The move log (for /calico log and replays)."""
        return await queries.moves(self, game_id)

    async def games_for_user(self, user_id: int, active_only: bool = True,
                             limit: int = 25) -> list[GameInfo]:
        """Games this person plays (most recently changed first)."""
        return await queries.games_for_user(self, user_id, active_only, limit)

    async def game_for_thread(self, thread_id: int) -> GameInfo | None:
        return await queries.game_for_thread(self, thread_id)

    async def user_stats(self, user_id: int, guild_id: int | None = None,
                         viewer_id: int | None = None) -> UserStats:
        return await queries.user_stats(self, user_id, guild_id, viewer_id)

    async def leaderboard(self, guild_id: int, limit: int = 10,
                          min_games: int = 1) -> list[LeaderboardEntry]:
        return await queries.leaderboard(self, guild_id, limit, min_games)

    async def get_settings(self, user_id: int) -> UserSettings:
        return await queries.get_settings(self, user_id)

    async def user_locale(self, user_id: int, default: str = "en-US") -> str:
        """The Discord locale stored with this person (from their last lobby, join or game
        start), else ``default``: the language of their DMs."""
        return await queries.user_locale(self, user_id, default)

    async def set_settings(self, user_id: int, reminders: bool | None = None,
                           describe: bool | None = None) -> UserSettings:
        return await queries.set_settings(self, user_id, reminders, describe)

    # ------------------------------------------------------------------ the deployment
    # What the adapter and ops need from the database, so that they never touch the store.

    def storage_info(self) -> tuple[str, str]:
        """(where the data lives, without a password; the backend's name), for logs."""
        return self.store.location, self.store.backend

    async def active_games(self) -> dict[str, int]:
        """How many games are in each active status (lobby, draft, play)."""
        return await self.store.active_games()

    async def ping(self) -> None:
        """Raise if the database does not answer."""
        await self.store.ping()

    async def outbox_stats(self, now: datetime | None = None) -> OutboxStats:
        """The outbox's backlog at ``now`` (default: the clock's now)."""
        return await self.store.outbox_stats(self.now_ms() if now is None
                                             else to_ms(now))

    async def get_state(self, key: str) -> str | None:
        """A deployment-wide value (shard count, command hash...), or None."""
        return await self.store.get_state(key)

    async def set_state(self, key: str, value: str, now_ms: int | None = None) -> None:
        await self.store.set_state(key, value, self.now_ms() if now_ms is None else now_ms)

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Run a block in one process at a time across the deployment (yields True when this
        process holds it)."""
        async with self.store.exclusive(name) as mine:
            yield mine
