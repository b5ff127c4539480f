"""The companion web site's service (issue #32), called with the kernel like every feature's:
whether a server shows its games on the web (``/calico admin``, off by default), who hid their
name from it (``/calico settings``), a game's public steps, a person's rating history, a
server's recent games, and :class:`Replays` (a game's public steps, replayed from its
seed: only the moves stored since the last view).

Secrets: a game's seed rebuilds its steps here and never leaves this module; only public views
(no hand, no bag, no seed) and each placement's events (what the thread narrated) do. A weekly
challenge game is refused (``challenge_not_yet``) until its week has closed.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass

from bot.core import servers
from bot.core.challenge import play as challenge
from bot.core.challenge.model import NOT_YET
from bot.core.kernel import Kernel
from bot.core.models import ErrorCode, GameInfo, GameStatus, ManagerError
from bot.core.progress.model import person_key
from bot.core.site import store
from bot.core.site.model import SITE_KEY, RatingPoint, Step
from data import Catalog
from engine.config import GameOptions
from engine.moves import PlaceTile, parse_move
from engine.rules import apply
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import public_view


async def enabled(k: Kernel, guild_id: int | None) -> bool:
    """Whether this server chose to show its games on the web (never outside a server)."""
    if not guild_id:
        return False
    extra = (await servers.settings(k, guild_id)).model_extra or {}
    return extra.get(SITE_KEY) is True


async def set_enabled(k: Kernel, guild_id: int, on: bool) -> bool:
    extra = (await servers.update(k, guild_id, {SITE_KEY: on})).model_extra or {}
    return extra.get(SITE_KEY) is True


async def hidden(k: Kernel, user_ids: list[int]) -> set[int]:
    """Which of these people hid their name from the site."""
    return await store.hidden(k.store, sorted(set(user_ids)))


async def name_hidden(k: Kernel, user_id: int) -> bool:
    return user_id in await hidden(k, [user_id])


async def hide_name(k: Kernel, user_id: int, hide: bool) -> bool:
    await store.set_hidden(k.store, user_id, hide, k.now_ms())
    return hide


async def shown(k: Kernel, game: GameInfo) -> bool:
    """Whether a game may be on the web: its server has the site on, it started, and it is no
    weekly challenge game of a week still open."""
    return (game.status not in (GameStatus.LOBBY, GameStatus.CANCELLED)
            and await enabled(k, game.guild_id) and await challenge.may_show(k, game))


class Replays:
    """The public steps of the games viewed lately, by game. A game's moves are only ever
    added to, so a newer version replays only the moves stored since the last view (4 ms or
    more of CPU for a whole four-player game, the dearest part of a page, against well under
    one for a move or two). The engine's state after the last move replayed is kept here and
    never handed out: it holds the seed and the bag."""

    def __init__(self, size: int = 64) -> None:
        self._games: OrderedDict[int, _Replay] = OrderedDict()
        self._size = size
        self.moves_replayed = 0  # for tests and benchmarks: moves applied, over every game

    async def steps(self, k: Kernel, game: GameInfo) -> list[Step]:
        """What everyone saw of ``game`` so far: the table when play started, then after every
        placement with its events (ManagerError ``not_allowed`` before play,
        ``challenge_not_yet`` for an open week's challenge game)."""
        kept = self._games.get(game.id)
        if kept is None or kept.version != game.version:
            kept = await self._replay(k, game, kept)
            self._games[game.id] = kept
            while len(self._games) > self._size:
                self._games.popitem(last=False)
        self._games.move_to_end(game.id)
        return kept.steps

    async def _replay(self, k: Kernel, game: GameInfo, kept: _Replay | None) -> _Replay:
        if not await challenge.may_show(k, game):
            raise ManagerError(NOT_YET, "the week's challenge is still open")
        g = await k.load(game.id)
        if g.engine_options is None or g.state is None or g.state.phase is Phase.DRAFT:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "play has not started")
        moves = [(m.ply, m.seat, m.move) for m in await k.store.moves(game.id)]
        if kept is None or kept.moves > len(moves) or \
                (kept.moves and moves[kept.moves - 1][0] != kept.last_ply):
            kept = None  # not the game it was (a database restored): from the start
        self.moves_replayed += len(moves) - (kept.moves if kept else 0)
        # In a thread, so that page views never hold the event loop clicks are answered on.
        return await asyncio.to_thread(_replay, k.catalog, g.engine_options, g.state.seed,
                                       moves, g.version, kept)


@dataclass(frozen=True, slots=True)
class _Replay:
    version: int
    moves: int  # stored moves applied
    last_ply: int  # the ply of the last of them (-1: none)
    state: GameState
    steps: list[Step]  # never changed once made: a newer replay makes a new list


def _replay(catalog: Catalog, options: GameOptions, seed: int, moves: list[tuple[int, int, str]],
            version: int, kept: _Replay | None) -> _Replay:
    if kept is None:
        state = new_game(catalog, options, seed)
        out: list[Step] = []
        if state.phase is Phase.PLAY:
            out.append(Step(0, None, public_view(state), ()))
        done = 0
    else:
        state, out, done = kept.state, list(kept.steps), kept.moves
    for ply, seat, text in moves[done:]:
        move = parse_move(seat, text)
        state, events = apply(state, move)
        if isinstance(move, PlaceTile):
            out.append(Step(ply + 1, seat, public_view(state), tuple(events)))
        elif not out and state.phase is Phase.PLAY:
            out.append(Step(ply + 1, None, public_view(state), ()))
    return _Replay(version, len(moves), moves[-1][0] if moves else -1, state, out)


async def rating_history(k: Kernel, scope: int, user_id: int) -> list[RatingPoint]:
    """A person's rating (ordinal) after each rated game in a scope, oldest first."""
    return await store.history(k.store, scope, person_key(user_id))


async def recent_games(k: Kernel, guild_id: int, limit: int = 20,
                       status: GameStatus = GameStatus.OVER) -> list[GameInfo]:
    """A server's games in ``status`` (finished by default; ``PLAY``: being played), newest
    first (open challenge weeks' games left out)."""
    out: list[GameInfo] = []
    for r in await store.recent(k.store, guild_id, status.value, limit * 2):
        # As stored now (another process may have moved it), at the version just read.
        game = (await k.current(r.game_id, r.version)).info()
        if await challenge.may_show(k, game):
            out.append(game)
        if len(out) >= limit:
            break
    return out
