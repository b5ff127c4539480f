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
import weakref
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import discord

from bot.adapter import postmarks
from bot.adapter.context import app_of, user_ref
from bot.adapter.postmarks import Look
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import images, items, respond, weblinks
from bot.adapter.ui import lobby as lobby_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import leaving, queries, servers
from bot.core.models import GameInfo, ManagerError
from bot.core.notices import GameOver, Notice
from bot.core.outbox import SKIPPED, Receipt
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.web import links as web_links
from bot.words import markup
from bot.words import tournament as words
from bot.words.catalogue import Text
from bot.words.describe import Description
from render.standings import MAX_ROWS, render_standings

if TYPE_CHECKING:
    from bot.adapter.context import App
    from bot.core.kernel import Kernel

log = logging.getLogger("calico.tournament")

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
# The version of each tournament its sign-up message shows, by client: an edit queued by a
# change that a later edit already showed is skipped (a burst of joins is one edit).
_SHOWN: weakref.WeakKeyDictionary[discord.Client, dict[int, int]] = weakref.WeakKeyDictionary()

STANDINGS_PNG = "standings.png"
STANDINGS_TXT = "standings.txt"  # every entrant's line, attached when they do not all fit
TEXT_LINES = 20  # standings lines in a post's text (the picture shows MAX_ROWS)
THREAD_WAIT = 10.0  # seconds a round's post waits for its tables' threads


async def channel_text(bot: App, t: tour.TournamentInfo) -> Text:
    chosen = (await servers.settings(bot.kernel, t.guild_id)).language
    return Text(chosen) if chosen else await bot.locales.text_for(t.organiser_id)


def signup_message(tr: Text, t: tour.TournamentInfo) -> Outgoing:
    """The sign-up message: Join while the sign-up is open and has room, Leave while the
    tournament is in its sign-up or under way (withdraw); no button once it is over (the
    message is edited at each change, so no button outlives what it does)."""
    open_now = t.signup_open
    out = Outgoing(words.signup_text(tr, t, open_now=open_now))
    if t.status in (tour.SIGNUP, tour.RUNNING, tour.PAUSED):
        view = discord.ui.View(timeout=None)
        if open_now and len(t.entrants) < tour.max_entrants(t.format, t.table_size):
            view.add_item(items.button(ids.TournamentJoinId(t.id),
                                       tr("tournament.button.join")))
        view.add_item(items.button(ids.TournamentLeaveId(t.id), tr("tournament.button.leave")))
        out.view = view
    return out  # over or cancelled: no view, so an edit removes the buttons


async def standings_message(tr: Text, kernel: Kernel, t: tour.TournamentInfo,
                            upto: int | None = None, *, viewer: int | None = None,
                            podium: bool = False) -> Outgoing:
    """The standings after round ``upto`` (default: the latest scored) as a picture with its
    alt text, the first lines in text and every line in an attached list when they do not all
    fit; for ``viewer``, their own line wherever it is and links to their games; with
    ``podium``, the end (medals pinged) in the same post."""
    all_tables = await records.tables(kernel, t.id)
    scored = [x.round for x in all_tables if x.points is not None]
    round_no = upto if upto is not None else max(scored, default=0)
    board = await records.standings(kernel, t.id, round_no)
    final = t.status == tour.OVER and round_no >= max(scored, default=0)
    title = words.standings_title(tr, t, round_no, final)
    heading = words.standings_heading(tr, t, round_no, final)
    medals = words.medals(t, board, final)
    lines = [words.podium_text(tr, t, board), ""] if podium else []
    lines += [f"**{heading}**", words.summary(tr, t)]
    if viewer is not None:
        mine = words.own_line(tr, t, board, viewer)
        if mine:
            lines.append(mine)
    lines += words.standings_lines(tr, t, board, limit=TEXT_LINES)
    if viewer is not None:
        lines.append(await _games_of(tr, kernel, all_tables, viewer))
    out = Outgoing(markup.clip("\n".join(lines), words.ROOM))
    rows = [words.standing_cells(tr, t, s) for s in board]
    faded = [i for i, s in enumerate(board) if words.withdrawn(t, s.user_id)]
    data = await images.draw(render_standings, t.name, title, words.headings(tr, t), rows,
                             medals, faded)
    out.attach(STANDINGS_PNG, data, Description(
        words.standings_alt(tr, t, board, round_no, final, shown=min(len(board), MAX_ROWS)),
        words.standings_long(tr, t, board, round_no, final)))
    if len(board) > TEXT_LINES:
        # Everyone's line, for everyone (the picture and the text stop at the first ones).
        out.attach(STANDINGS_TXT, words.standings_list(tr, t, board, round_no, final).encode())
    if podium:
        out.ping = [board[i].user_id for i in medals]
    return await weblinks.add_link(out, tr, kernel, t.guild_id, web_links.TOURNAMENT, t.id)


async def _games_of(tr: Text, kernel: Kernel, all_tables: list[tour.Table], viewer: int) -> str:
    """Links to the viewer's games in the tournament (their threads)."""
    links = []
    for x in all_tables:
        if viewer not in x.players or x.game_id is None:
            continue
        try:
            game = await queries.game(kernel, x.game_id)
        except ManagerError:
            continue
        links.append(markup.channel_mention(game.thread_id) if game.thread_id
                     else tr("tournament.round.game", game=game.id))
    return tr("tournament.your_games", games=", ".join(links)) if links \
        else tr("tournament.no_games")


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
    """A round's tables, each linked to its game's thread; those that do not fit in one post
    are in an attached list. Nobody is pinged here: each table's players are pinged in their
    own game's thread (its first post), so a round of any size stays within Discord's limit
    on mentions. The round's games are created right after the write that queued this post,
    and their threads opened by other lanes of the outbox at the same time: it waits for them
    (at most ``wait`` seconds, woken as each opens), then names a table still without a
    thread by its game number."""
    tables = await records.round_tables(kernel, t.id, round_no, wait=wait)
    found = await asyncio.gather(*(_thread_of(kernel, x, wait) for x in tables))
    threads = {x.table_no: thread for x, thread in zip(tables, found, strict=True)}
    lines = [words.table_line(tr, t, x, threads[x.table_no]) for x in tables]
    name = f"round-{round_no}.txt"
    out = Outgoing(words.round_text(tr, t, round_no, lines, name))
    if not words.round_fits(tr, t, round_no, lines):
        out.attach(name, words.round_list(tr, t, round_no, tables).encode())
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
        # Only from the tournament's own server (a modified client could send it anywhere).
        t = await signup.join(bot.kernel, cid.tournament, me, guild_id=interaction.guild_id or 0)
        return signup_message(await channel_text(bot, t), t)

    await respond.update(interaction, work())


async def leave_click(interaction: discord.Interaction[Any],
                      cid: ids.TournamentLeaveId) -> None:
    bot = app_of(interaction)

    async def work() -> Outgoing:
        t = await signup.leave(bot.kernel, cid.tournament, interaction.user.id,
                               guild_id=interaction.guild_id or 0)
        return signup_message(await channel_text(bot, t), t)

    await respond.update(interaction, work())


# --------------------------------------------------------------------------- delivery


async def deliver(bot: App, client: discord.Client, notice: Notice, nonce: str,
                  look: Look | None = None) -> Receipt:
    """Post (or, for the sign-up message, edit) a tournament notice in its channel, or send
    its organiser a DM. With ``look`` (the notice may be out already, unrecorded, past
    Discord's nonce window), a post found is recorded instead of posted again. The channel
    gone (404) or the bot's access to it lost (403) is told to the core (the tournament
    pauses, its organiser told by DM) before the refusal ends the notice."""
    post = notice.body
    assert isinstance(post, tour.Post)
    try:
        t = await records.get(bot.kernel, post.tournament)
    except ManagerError:
        return SKIPPED
    if notice.user_id is not None:
        return await _dm(bot, client, notice, t, nonce, look)
    try:
        return await _post(bot, client, notice, t, nonce, look)
    except discord.Forbidden:
        await _lost(leaving.access_lost(bot.kernel, notice.channel_id, t.guild_id))
        raise
    except discord.NotFound as e:
        if e.code in (UNKNOWN_CHANNEL, 0):
            await _lost(leaving.channel_gone(bot.kernel, notice.channel_id, t.guild_id))
        raise


async def _lost(told: Awaitable[object]) -> None:
    try:
        await told
    except Exception:
        log.exception("telling the core of a lost channel failed")


async def _post(bot: App, client: discord.Client, notice: Notice, t: tour.TournamentInfo,
                nonce: str, look: Look | None) -> Receipt:
    post = notice.body
    assert isinstance(post, tour.Post)
    tr = await channel_text(bot, t)
    what = post.what
    round_no = post.round or 0
    channel = client.get_channel(notice.channel_id)
    target: Any = channel if isinstance(channel, discord.abc.Messageable) else \
        client.get_partial_messageable(notice.channel_id, guild_id=t.guild_id or None)
    if what is tour.PostKind.SIGNUP:
        out = signup_message(tr, t)
        if t.message_id is not None:
            shown = _SHOWN.setdefault(client, {})
            if shown.get(t.id) == t.version:
                return SKIPPED  # an edit after this change showed it already
            try:
                await target.get_partial_message(t.message_id).edit(**out.edit_kwargs())
                shown[t.id] = t.version
                return Receipt(message_id=t.message_id)
            except discord.NotFound as e:
                if e.code != UNKNOWN_MESSAGE:
                    raise
                # The message was deleted: post it again (while it can still be joined).
        receipt = await _send(target, out, nonce, look)
        assert receipt.message_id is not None
        await signup.attach_message(bot.kernel, t.id, receipt.message_id)
        return receipt
    if what is tour.PostKind.ROUND:
        out = await round_message(tr, bot.kernel, t, round_no)
    elif what is tour.PostKind.STANDINGS:
        out = await standings_message(tr, bot.kernel, t, round_no)
    elif what is tour.PostKind.PODIUM:
        # The end: the podium and the final standings, one post.
        out = await standings_message(tr, bot.kernel, t, round_no, podium=True)
    else:  # cancelled, paused, resumed, too few
        out = Outgoing(words.notice_text(tr, t, what.value))
    return await _send(target, out, nonce, look)


async def _dm(bot: App, client: discord.Client, notice: Notice, t: tour.TournamentInfo,
              nonce: str, look: Look | None) -> Receipt:
    """A private word to the organiser (their tournament's channel was lost)."""
    post = notice.body
    assert isinstance(post, tour.Post) and notice.user_id is not None
    tr = await bot.locales.text_for(notice.user_id)
    channel = await client.create_dm(discord.Object(id=notice.user_id))
    out = Outgoing(words.notice_text(tr, t, post.what.value))
    return await _send(channel, out, nonce, look)


async def _send(target: Any, out: Outgoing, nonce: str, look: Look | None) -> Receipt:
    return await postmarks.post_once(target, out.send_kwargs(), nonce, look, "tournament")
