"""Opening a game's thread: the outbox's first notice of a table (``OpenThread``).

The thread is created, or, when a crash came between creating it and recording it, found again
by its name and adopted; then the lobby notice posts there. A table whose thread cannot be
opened (no permission, channel gone) is cancelled and its host told.

Discord gives a bot about 50 thread creations per 5 minutes across all its servers
(:mod:`bot.adapter.pacing`). Threads are opened one at a time, and while the budget is spent a
table's opening is put off (:class:`~bot.core.outbox.Later`: its outbox slot serves other games
meanwhile) and remembered in order, so that ``/calico start`` can tell its host when the table
should open (:meth:`~bot.adapter.pacing.Pacer.thread_eta`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Literal

import discord

from bot.adapter import pacing, refusals
from bot.core import leaving, lobby
from bot.core.faults import crash_point
from bot.core.models import GameInfo, GameStatus
from bot.core.outbox import SKIPPED, DeliveryError, Later, Receipt
from bot.words import posts

if TYPE_CHECKING:
    from bot.adapter.context import App

log = logging.getLogger("calico.delivery")

THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: the longest; posts revive it


async def open_thread(bot: App, game: GameInfo, *, in_doubt: bool) -> Receipt:
    """Open (or adopt) ``game``'s thread and record it; ``in_doubt``: an earlier attempt may
    have made it already."""
    if game.thread_id is not None:
        bot.pacer.thread_opened(game.id)
        return Receipt(message_id=game.thread_id)  # opened (or attached) already
    if not game.status.active and game.status is not GameStatus.OVER:
        # Cancelled or abandoned before its thread opened: nothing to show. A game that
        # finished meanwhile (a tournament table played out while the outbox was down) still
        # gets its thread, for its moves and its score sheet.
        bot.pacer.thread_opened(game.id)
        return SKIPPED
    pacer = bot.pacer
    if pacer.thread_wait() > pacing.SHORT:
        raise Later(pacer.thread_later(game.id), "the bot's thread budget is spent")
    try:
        # One at a time: a second creation would only wait behind the first inside discord.py.
        await asyncio.wait_for(pacer.thread_lock.acquire(), pacing.SHORT)
    except TimeoutError:
        raise Later(pacer.thread_later(game.id), "another thread is being opened") from None
    try:
        if pacer.thread_wait() > pacing.SHORT:  # the one before spent the budget
            raise Later(pacer.thread_later(game.id), "the bot's thread budget is spent")
        thread = await _create(bot, game, in_doubt=in_doubt)
    finally:
        pacer.thread_lock.release()
    pacer.thread_opened(game.id)
    crash_point("thread.created")  # Discord made it; the database does not know yet
    await lobby.attach_thread(bot.kernel, game.id, thread.id)
    return Receipt(message_id=thread.id)


async def _create(bot: App, game: GameInfo, *, in_doubt: bool) -> discord.Thread:
    client: discord.Client = bot  # type: ignore[assignment]
    tr = await bot.thread_text(game)
    try:
        channel = client.get_channel(game.channel_id) or \
            await client.fetch_channel(game.channel_id)
    except discord.NotFound:
        await gone(bot, game.channel_id)
        raise DeliveryError("the channel is gone", permanent=True) from None
    except discord.Forbidden:
        await _setup_failed(bot, game, tr("setup.no_access"))
        raise DeliveryError("no access to the channel", permanent=True) from None
    if not isinstance(channel, discord.TextChannel):
        await _setup_failed(bot, game, tr("start.text_channel_only"))
        raise DeliveryError("not a text channel", permanent=True)
    # Discord may have made it already only if an earlier attempt was cut short (a crash
    # between creating and recording it, a failed attempt): only then is it looked for.
    thread = await _find_thread(client, channel, game) if in_doubt else None
    if thread is not None:
        return thread
    host = game.seats[0].name if game.seats else ""
    try:
        return await channel.create_thread(
            name=posts.thread_name(tr, game.id, host), type=discord.ChannelType.public_thread,
            auto_archive_duration=THREAD_ARCHIVE_MINUTES)
    except discord.Forbidden:
        await _setup_failed(bot, game, tr("perm.missing", perms=tr("perm.create_public_threads")))
        raise DeliveryError("may not create threads", permanent=True) from None
    except discord.NotFound:
        await gone(bot, game.channel_id)
        raise DeliveryError("the channel is gone", permanent=True) from None
    except discord.RateLimited:  # a wait past max_ratelimit_timeout: nothing was made
        raise Later(bot.pacer.thread_later(game.id), "the bot's thread budget is spent"
                    ) from None
    except discord.HTTPException as e:
        if refusals.for_good(e):  # asking again won't do: the table cannot open
            await _setup_failed(bot, game, tr("setup.refused"))
        raise refusals.failed(e, "creating the thread", getattr(bot, "metrics", None)) from None


async def _find_thread(client: discord.Client, channel: discord.TextChannel,
                       game: GameInfo) -> discord.Thread | None:
    """The game's thread, if a crash came after Discord made it and before we recorded it: an
    active thread of this channel, created by the bot, whose name carries the game."""
    me = client.user
    mark = f"#{game.id} "
    candidates = list(channel.threads)
    with contextlib.suppress(discord.HTTPException):
        candidates += [t for t in await channel.guild.active_threads()
                       if t.parent_id == channel.id]
    for thread in candidates:
        if me is not None and thread.owner_id == me.id and mark in f"{thread.name} ":
            return thread
    return None


async def _setup_failed(bot: App, game: GameInfo, reason: str) -> None:
    try:
        await lobby.setup_failed(bot.kernel, game.id, reason)
    except Exception:
        log.exception("setup_failed(%s) failed", game.id)


async def gone(bot: App, channel_id: int) -> None:
    """A channel or thread was deleted: its games end (:func:`bot.core.leaving.channel_gone`)."""
    try:
        await leaving.channel_gone(bot.kernel, channel_id)
    except Exception:
        log.exception("channel_gone(%s) failed", channel_id)
