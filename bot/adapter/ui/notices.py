"""What each committed notice looks like in Discord: one builder per notice kind, routed by the
notice's type through one table (:data:`BUILDERS`, as :mod:`bot.adapter.ui.flows` routes
clicks), and the score sheet's parts decorated through another (:data:`PARTS`).

:class:`NoticeRenderer` builds the :class:`Outgoing` of a notice about a game (shared by the
delivery, the offline demo and the soak benchmark); None means there is nothing worth showing
any more (a prompt for a turn already played). Notices about no game (a tournament's posts, a
challenge week's summary) are posted by :mod:`bot.adapter.delivery` through its own table.
A DM reads in the recipient's language; a thread post in the server's (``/calico admin``),
else in the host's.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.adapter.locales import Locales
from bot.adapter.ui import challenge as challenge_ui
from bot.adapter.ui import lobby as lobby_ui
from bot.adapter.ui import messages, weblinks
from bot.adapter.ui import progress as progress_ui
from bot.adapter.ui import tournament as tournament_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import notices, queries, servers
from bot.core.challenge.model import Over
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, ManagerError
from bot.core.notices import Body, Notice
from bot.core.progress.model import Progress
from bot.core.tournament.model import ScoreSheetLine
from bot.web import links
from bot.words.catalogue import Text
from engine.state import GameState

log = logging.getLogger("calico.delivery")

B = TypeVar("B", bound=Body)
Builder = Callable[["NoticeRenderer", Notice, Any, GameInfo, Text], Awaitable[Outgoing | None]]
#: Each kind of notice about a game, by its body's type, and how it is drawn (a new kind
#: needs one entry: tests/adapter/test_delivery.py fails without it).
BUILDERS: dict[type[Body], Builder] = {}
#: What each feature adds to a game's score sheet (a line, buttons), in this order; each reads
#: its own part of the notice (:meth:`bot.core.notices.GameOver.part`), if any.
PARTS: dict[type[notices.Part], Callable[[Text, GameInfo, Outgoing, notices.GameOver],
                                         Outgoing]] = {
    ScoreSheetLine: tournament_ui.score_sheet,
    Progress: progress_ui.decorate_game_over,
}


def builds(kind: type[B]) -> Callable[[Callable[[NoticeRenderer, Notice, B, GameInfo, Text],
                                                 Awaitable[Outgoing | None]]], None]:
    def register(fn: Callable[[NoticeRenderer, Notice, B, GameInfo, Text],
                              Awaitable[Outgoing | None]]) -> None:
        BUILDERS[kind] = fn

    return register


class NoticeRenderer:
    """Builds the :class:`Outgoing` a notice should produce (None: nothing to show any more)."""

    def __init__(self, kernel: Kernel, locales: Locales) -> None:
        self.kernel = kernel
        self.locales = locales

    async def thread_text(self, game: GameInfo) -> Text:
        """Thread posts read in the server's chosen language, else in the host's."""
        chosen = (await servers.settings(self.kernel, game.guild_id)).language
        return Text(chosen) if chosen else await self.locales.text_for(game.host_id)

    async def state_after(self, game: GameInfo, ply: int) -> GameState | None:
        if game.state is None:
            return None
        if ply == game.ply:
            return game.state
        try:
            return await queries.state_at(self.kernel, game.id, ply)
        except ManagerError:
            return game.state

    async def build(self, notice: Notice, game: GameInfo) -> Outgoing | None:
        body = notice.body
        builder = BUILDERS.get(type(body))
        if builder is None:
            log.warning("no message for a %s notice (%s)", notice.kind, type(body).__name__)
            return None
        if notice.user_id is not None:
            tr = await self.locales.text_for(notice.user_id)
        else:
            tr = await self.thread_text(game)
        return await builder(self, notice, body, game, tr)


# --------------------------------------------------------------------------- the builders


@builds(notices.Lobby)
async def _lobby(r: NoticeRenderer, _n: Notice, _b: notices.Lobby, game: GameInfo,
                 tr: Text) -> Outgoing:
    return await lobby_ui.lobby_message(tr, r.kernel, game)


@builds(notices.Started)
async def _started(_r: NoticeRenderer, _n: Notice, b: notices.Started, game: GameInfo,
                   tr: Text) -> Outgoing:
    return await messages.started_message(tr, game, b.first_seat or 0)


@builds(notices.DraftPrompt)
async def _draft(_r: NoticeRenderer, n: Notice, _b: notices.DraftPrompt, game: GameInfo,
                 tr: Text) -> Outgoing | None:
    assert n.user_id is not None
    if n.user_id not in game.drafting_user_ids:
        return None  # chosen meanwhile (through /calico hand, or the timer)
    return await messages.draft_panel(tr, game, n.user_id)


@builds(notices.TurnPrompt)
async def _turn(_r: NoticeRenderer, n: Notice, _b: notices.TurnPrompt, game: GameInfo,
                tr: Text) -> Outgoing | None:
    assert n.user_id is not None
    if game.current_user_id != n.user_id or game.ply != n.ply:
        return None  # played meanwhile: an old prompt would only mislead
    return await messages.turn_panel(tr, game, n.user_id)


@builds(notices.Table)
async def _table(r: NoticeRenderer, n: Notice, b: notices.Table, game: GameInfo,
                 tr: Text) -> Outgoing:
    if len(n.run) > 1:  # a run of moves in one post (bot.core.folding)
        last = n.run[-1]
        moves = [(m.body.seat, m.body.events.decoded(), m.body.autoplayed)
                 for m in n.run if isinstance(m.body, notices.Table)]
        return await messages.table_run_post(tr, game, await r.state_after(game, last.ply),
                                             moves, current=game.ply == last.ply)
    state = await r.state_after(game, n.ply)
    return await messages.table_post(tr, game, state, b.seat, b.events.decoded(),
                                     autoplayed=b.autoplayed, current=game.ply == n.ply)


@builds(notices.GameOver)
async def _game_over(r: NoticeRenderer, _n: Notice, b: notices.GameOver, game: GameInfo,
                     tr: Text) -> Outgoing:
    out = await messages.game_over_message(tr, game, b.events.decoded())
    for decorate in PARTS.values():
        out = decorate(tr, game, out, b)
    return await weblinks.add_link(out, tr, r.kernel, game.guild_id, links.GAME, game.id)


@builds(Over)
async def _challenge_over(r: NoticeRenderer, _n: Notice, b: Over, game: GameInfo,
                          tr: Text) -> Outgoing:
    return await challenge_ui.challenge_over_message(tr, r.kernel, game, b)


@builds(notices.Reminder)
async def _reminder(_r: NoticeRenderer, n: Notice, b: notices.Reminder, game: GameInfo,
                    tr: Text) -> Outgoing | None:
    # A DM; or, when their DMs are closed, a thread post naming them in the body.
    uid = n.user_id if n.user_id is not None else b.user_id or 0
    if game.current_user_id != uid and uid not in game.drafting_user_ids:
        return None  # they acted meanwhile
    return messages.reminder_message(tr, game, b, in_thread=n.user_id is None, user_id=uid)


@builds(notices.SeatChanged)
async def _seat_changed(_r: NoticeRenderer, _n: Notice, b: notices.SeatChanged,
                        game: GameInfo, tr: Text) -> Outgoing:
    return messages.seat_changed_message(tr, game, b.seat, b.reason)


@builds(notices.Ended)
async def _ended(_r: NoticeRenderer, _n: Notice, b: notices.Ended, game: GameInfo,
                 tr: Text) -> Outgoing:
    return messages.ended_message(tr, b.reason or game.end_reason)


@builds(notices.DmFallback)
async def _dm_fallback(_r: NoticeRenderer, _n: Notice, b: notices.DmFallback,
                       game: GameInfo, tr: Text) -> Outgoing:
    return messages.dm_fallback_message(tr, game, b.user_id)


@builds(notices.Autoplayed)
async def _autoplayed(_r: NoticeRenderer, n: Notice, b: notices.Autoplayed, game: GameInfo,
                      tr: Text) -> Outgoing:
    assert n.user_id is not None
    return await messages.autoplayed_message(tr, game, n.user_id, b.seat, b.events.decoded())


@builds(notices.SetupFailed)
async def _setup_failed(_r: NoticeRenderer, _n: Notice, b: notices.SetupFailed,
                        game: GameInfo, tr: Text) -> Outgoing:
    return Outgoing(tr("setup.failed", game=game.id, reason=b.reason))
