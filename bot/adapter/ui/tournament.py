"""Tournaments in Discord (issue #23): the sign-up message and its Join / Leave buttons, the
posts the outbox delivers in the tournament's channel (the sign-up message posted then edited
in place, each round's tables, the standings picture, the podium, the organiser's notices),
the standings answer and the line a table's score sheet carries.

The core does the work (:mod:`bot.core.tournament`); the words are
:mod:`bot.words.tournament`'s; the picture :mod:`render.standings`'. Channel posts read in the
server's language (``/calico admin``), else the organiser's.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.adapter import postmarks
from bot.adapter.context import app_of, user_ref
from bot.adapter.postmarks import Look
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import images, items, respond, weblinks
from bot.adapter.ui import lobby as lobby_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import queries, servers
from bot.core.models import GameInfo, ManagerError
from bot.core.notices import GameOver, Notice
from bot.core.outbox import SKIPPED, DeliveryError, Receipt
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.web import links as web_links
from bot.words import markup
from bot.words import tournament as words
from bot.words.catalogue import Text
from bot.words.describe import Description
from render.standings import render_standings

if TYPE_CHECKING:
    from bot.adapter.context import App
    from bot.core.kernel import Kernel

log = logging.getLogger("calico.tournament")

STANDINGS_PNG = "standings.png"
THREAD_WAIT = 10.0  # seconds a round's post waits for its tables' threads


async def channel_text(bot: App, t: tour.TournamentInfo) -> Text:
    chosen = (await servers.settings(bot.kernel, t.guild_id)).language
    return Text(chosen) if chosen else await bot.locales.text_for(t.organiser_id)


def signup_message(tr: Text, t: tour.TournamentInfo) -> Outgoing:
    """The sign-up message: Join and Leave while the sign-up is open; Leave (withdraw) alone
    while the tournament runs; no button once it is over."""
    open_now = t.signup_open
    out = Outgoing(words.signup_text(tr, t, open_now=open_now))
    if t.status in (tour.SIGNUP, tour.RUNNING, tour.PAUSED):
        view = discord.ui.View(timeout=None)
        if open_now:
            view.add_item(items.button(ids.TournamentJoinId(t.id),
                                       tr("tournament.button.join")))
        view.add_item(items.button(ids.TournamentLeaveId(t.id), tr("tournament.button.leave")))
        out.view = view
    return out  # over or cancelled: no view, so an edit removes the buttons


async def standings_message(tr: Text, kernel: Kernel, t: tour.TournamentInfo,
                            upto: int | None = None, *, viewer: int | None = None) -> Outgoing:
    """The standings after round ``upto`` (default: the latest scored) as a picture with its
    alt text, the lines in text too, and (for ``viewer``) links to their games."""
    all_tables = await records.tables(kernel, t.id)
    scored = [x.round for x in all_tables if x.points is not None]
    round_no = upto if upto is not None else max(scored, default=0)
    board = await records.standings(kernel, t.id, round_no)
    final = t.status == tour.OVER and round_no >= max(scored, default=0)
    title = words.standings_title(tr, t, round_no, final)
    heading = words.standings_heading(tr, t, round_no, final)
    lines = [f"**{heading}**", words.summary(tr, t), *words.standings_lines(tr, t, board)]
    if viewer is not None:
        mine = [x for x in all_tables if viewer in x.players and x.game_id is not None]
        links = []
        for x in mine:
            try:
                game = await queries.game(kernel, x.game_id or 0)
            except ManagerError:
                continue
            links.append(markup.channel_mention(game.thread_id) if game.thread_id
                         else tr("tournament.round.game", game=game.id))
        lines.append(tr("tournament.your_games", games=", ".join(links)) if links
                     else tr("tournament.no_games"))
    out = Outgoing(markup.clip("\n".join(lines), 2000))
    rows = [words.standing_cells(tr, t, s) for s in board]
    withdrawn = {e.user_id for e in t.entrants if e.withdrawn is not None}
    podium = [i for i, s in enumerate(board[:3]) if final and s.user_id not in withdrawn]
    faded = [i for i, s in enumerate(board) if s.user_id in withdrawn]
    data = await images.draw(render_standings, t.name, title, words.headings(tr, t), rows,
                             podium, faded)
    out.attach(STANDINGS_PNG, data, Description(
        words.standings_alt(tr, t, board, round_no, final),
        words.standings_long(tr, t, board, round_no, final)))
    return await weblinks.add_link(out, tr, kernel, t.guild_id, web_links.TOURNAMENT, t.id)


async def _thread_of(kernel: Kernel, table: tour.Table, wait: float) -> int | None:
    """The thread of a table's game, once the outbox opened it (None: no game, or no thread
    within ``wait`` seconds)."""
    if table.game_id is None:
        return None
    try:
        game = await lobby_ui.wait_for_thread(kernel, table.game_id, wait)
    except ManagerError:
        return None  # a game gone: no link
    return game.thread_id


async def round_message(tr: Text, kernel: Kernel, t: tour.TournamentInfo,
                        round_no: int, wait: float = THREAD_WAIT) -> Outgoing:
    """A round's tables, each linked to its game's thread. The round's games are created
    right after the write that queued this post, and their threads opened by other lanes of
    the outbox at the same time: it waits for them (at most ``wait`` seconds, woken as each
    opens), then names a table still without a thread by its game number."""
    tables = await records.round_tables(kernel, t.id, round_no, wait=wait)
    found = await asyncio.gather(*(_thread_of(kernel, x, wait) for x in tables))
    threads = {x.table_no: thread for x, thread in zip(tables, found, strict=True)}
    lines = [words.table_line(tr, t, x, threads[x.table_no]) for x in tables]
    out = Outgoing(words.round_text(tr, t, round_no, lines))
    out.ping = [u for x in tables for u in x.players]
    return out


def score_sheet(tr: Text, _game: GameInfo, out: Outgoing, over: GameOver) -> Outgoing:
    """A tournament table's score sheet says so (its tournament and round)."""
    info = over.part(tour.ScoreSheetLine)
    if info is not None:
        line = words.score_sheet_line(tr, info.name, info.round, info.rounds)
        out.content = markup.clip(f"{out.content}\n{line}" if out.content else line, 2000)
    return out


# --------------------------------------------------------------------------- clicks


async def join_click(interaction: discord.Interaction[Any], cid: ids.TournamentJoinId) -> None:
    bot = app_of(interaction)
    me = user_ref(interaction)
    bot.locales.remember(me.id, me.locale)

    async def work() -> Outgoing:
        t = await signup.join(bot.kernel, cid.tournament, me)
        return signup_message(await channel_text(bot, t), t)

    await respond.update(interaction, work())


async def leave_click(interaction: discord.Interaction[Any],
                      cid: ids.TournamentLeaveId) -> None:
    bot = app_of(interaction)

    async def work() -> Outgoing:
        t = await signup.leave(bot.kernel, cid.tournament, interaction.user.id)
        return signup_message(await channel_text(bot, t), t)

    await respond.update(interaction, work())


# --------------------------------------------------------------------------- delivery


async def deliver(bot: App, client: discord.Client, notice: Notice, nonce: str,
                  look: Look | None = None) -> Receipt:
    """Post (or, for the sign-up message, edit) a tournament notice in its channel. With
    ``look`` (the notice may be out already, unrecorded, past Discord's nonce window), a post
    found in the channel is recorded instead of posted again."""
    post = notice.body
    assert isinstance(post, tour.Post)
    try:
        t = await records.get(bot.kernel, post.tournament)
    except ManagerError:
        return SKIPPED
    tr = await channel_text(bot, t)
    what = post.what
    round_no = post.round or 0
    channel = client.get_channel(notice.channel_id)
    target: Any = channel if isinstance(channel, discord.abc.Messageable) else \
        client.get_partial_messageable(notice.channel_id, guild_id=t.guild_id or None)
    if what is tour.PostKind.SIGNUP:
        out = signup_message(tr, t)
        if t.message_id is not None:
            try:
                await target.get_partial_message(t.message_id).edit(**out.edit_kwargs())
                return Receipt(message_id=t.message_id)
            except discord.NotFound:
                pass  # deleted: post it again
            except discord.HTTPException as e:
                raise DeliveryError(f"sign-up edit failed: {e.status} {e.code}",
                                    permanent=e.status == 403) from None
        receipt = await _send(target, out, nonce, look)
        assert receipt.message_id is not None
        await signup.attach_message(bot.kernel, t.id, receipt.message_id)
        return receipt
    if what is tour.PostKind.ROUND:
        out = await round_message(tr, bot.kernel, t, round_no)
    elif what is tour.PostKind.STANDINGS:
        out = await standings_message(tr, bot.kernel, t, round_no)
    elif what is tour.PostKind.PODIUM:
        out = await standings_message(tr, bot.kernel, t, round_no)
        board = await records.standings(bot.kernel, t.id)
        out.content = markup.clip(words.podium_text(tr, t, board) + "\n\n" + out.content, 2000)
        out.ping = [s.user_id for s in board[:3]]
    else:  # cancelled, paused, resumed, too few
        out = Outgoing(words.notice_text(tr, t, what.value))
    return await _send(target, out, nonce, look)


async def _send(target: Any, out: Outgoing, nonce: str, look: Look | None) -> Receipt:
    return await postmarks.post_once(target, out.send_kwargs(), nonce, look, "tournament")
