"""The outbox's Discord side: turn each committed notice into a post in the thread or a DM.

:class:`NoticeRenderer` builds the message for a notice (shared with the offline demo);
:class:`DiscordDelivery` sends it and says what became of it (a :class:`~bot.core.outbox.Receipt`
with the Discord message id, or a :class:`~bot.core.outbox.DeliveryError`). Rules of the road:

- The notice ``key`` is the message nonce (discord.py sends it with ``enforce_nonce``), so a
  notice delivered again after a crash is refused by Discord as a duplicate instead of
  appearing twice.
- Discord forgets nonces after a few minutes; every post (each part of a DM too) also carries
  the invisible mark of its nonce (:mod:`bot.adapter.postmarks`). A notice the outbox hands over
  with ``look_first`` (it may be out, unrecorded) is first looked for in its channel from its
  first attempt on: a post found is recorded as the delivery (the lobby message is attached to
  its game as when posted), and only the parts not found are posted. A channel that cannot be
  read back (no Read Message History) is said once and posted to as if nothing was found.
- A game's thread is opened by its first notice (``open_thread``): the thread is created, or,
  when a crash came between creating it and recording it, found again by its name and adopted;
  then the ``lobby`` notice posts the lobby message there (edited in place afterwards). A table
  whose thread cannot be opened (no permission, channel gone) is cancelled and its host told.
- Threads auto-archive: an archived thread is unarchived before posting, and a post refused
  because of archiving is retried once after unarchiving.
- A deleted thread or channel (404) ends its games through
  :func:`bot.core.leaving.channel_gone`. Any post Discord refuses for good (a 4xx but a 401
  or 429: an invalid form body, missing access, an unknown channel; :mod:`bot.adapter.refusals`)
  ends at once, counted and logged once, and blocks neither its lane nor any other game.
  Transient answers (5xx, 429 past discord.py's own retries,
  timeouts) are raised for the dispatcher to retry.
- A DM refused because DMs are closed (50007) is a permanent failure: the dispatcher then calls
  :func:`bot.core.leaving.dm_failed`, which posts the "use /calico hand" notice in the thread
  once. A reminder that cannot go by DM is also posted in the thread, pinging the player, so
  they still hear of it; while their DMs are known to be closed the sweep queues reminders for
  the thread in the first place (a ``reminder`` notice without ``user_id``, the person in its
  payload), posted with a jump link and the "Show my hand" button.
- Any process may deliver any notice: a thread this process's shards do not cache is reached
  by id over HTTP.
- Languages: a DM reads in the recipient's stored locale; a thread post in the server's
  language (``/calico admin``), else in the host's.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.adapter import pacing, postmarks, refusals, threads
from bot.adapter.options import whole_number
from bot.adapter.postmarks import Look
from bot.adapter.ui import challenge as challenge_ui
from bot.adapter.ui import described, images, messages
from bot.adapter.ui import tournament as tournament_ui
from bot.adapter.ui.notices import NoticeRenderer
from bot.adapter.ui.outgoing import Outgoing
from bot.core import folding, lobby, notices, queries
from bot.core.challenge.model import Summary
from bot.core.faults import crash_point
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.core.notices import Body, Notice
from bot.core.outbox import SKIPPED, DeliveryError, Later, Receipt
from bot.core.tournament.model import Post

if TYPE_CHECKING:
    from bot.adapter.context import App

log = logging.getLogger("calico.delivery")

DM_CLOSED = 50007
ARCHIVED = 50083
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001


def written_at(notice: Notice) -> int:
    """The game version a notice was queued with (its key is ``<game>.<version>.<index>``;
    0 when the key says nothing)."""
    parts = notice.key.split(".")
    return (whole_number(parts[1]) if len(parts) == 3 else None) or 0


def nonce_for(key: str) -> str:
    """A nonce of at most 25 characters for a notice key (Discord's limit)."""
    return key if len(key) <= 25 else hashlib.blake2b(key.encode(), digest_size=12).hexdigest()


class DiscordDelivery:
    """The outbox ``Delivery`` that posts to Discord."""

    shows_runs = True  # a run of computer moves in one post (bot.core.folding)
    # Seconds a notice's requests may take (discord.py's own 5xx retries included) before the
    # attempt is given up as in doubt (aiohttp's own limit is five minutes).
    send_timeout = 30.0

    def __init__(self, bot: App) -> None:
        self.bot = bot
        self.client: discord.Client = bot  # type: ignore[assignment]
        self.renderer = NoticeRenderer(bot.kernel, bot.locales)
        self.dm_channels: dict[int, int] = {}  # person -> their DM channel (for the pacing)

    @property
    def metrics(self) -> Any:
        """The bot's metrics, which count Discord's error codes (read when one comes)."""
        return getattr(self.bot, "metrics", None)

    async def deliver(self, notice: Notice) -> Receipt | None:
        # Its pictures wait behind the answers to clicks (bot.adapter.ui.render_pool).
        token = images.in_background.set(True)
        try:
            return await self._deliver(notice)
        except discord.RateLimited as e:
            # A wait past max_ratelimit_timeout, raised before the request was made.
            raise Later(e.retry_after, "rate limited") from None
        except discord.HTTPException as e:
            # Whatever no poster handled itself: ended at once if Discord will refuse it
            # again (bot.adapter.refusals), else retried.
            raise refusals.failed(e, f"{notice.kind} post", self.metrics) from None
        finally:
            images.in_background.reset(token)

    def _pace(self, channel_id: int | None,
              kind: tuple[str, str] = pacing.MESSAGES) -> None:
        """Before anything of a notice is sent: put it off (:class:`Later`) rather than let
        discord.py wait out a rate limit inside the request, holding the outbox's slot."""
        if channel_id is None:
            return
        wait = self.bot.pacer.channel_wait(channel_id, kind)
        if wait > pacing.SHORT:
            raise Later(wait, f"channel {channel_id} is at its rate limit")

    async def _deliver(self, notice: Notice) -> Receipt | None:
        if notice.game_id == 0:
            return await self._channel_notice(notice)  # about no game (the weekly challenge)
        try:
            game = await queries.game(self.bot.kernel, notice.game_id)
            threadless = (notice.user_id is None and game.thread_id is None
                          and not isinstance(notice.body, notices.OpenThread))
            if game.version < written_at(notice) or threadless:
                # Another process wrote this change, or opened the thread after the notice was
                # queued; our cached copy may be older (its change notification may still be
                # on the way): read the stored game.
                game = await queries.game(self.bot.kernel, notice.game_id, fresh=True)
        except ManagerError:
            return SKIPPED  # the game is gone: nothing to say
        if isinstance(notice.body, notices.OpenThread):
            return await threads.open_thread(self.bot, game, in_doubt=notice.sent_at is not None)
        if notice.user_id is not None:
            self._pace(self.dm_channels.get(notice.user_id))
        elif isinstance(notice.body, notices.Lobby) and game.lobby_message_id is not None:
            self._pace(game.thread_id, pacing.EDITS)
        else:
            self._pace(game.thread_id)
        out = await self.renderer.build(notice, game)
        if out is None:
            return SKIPPED
        try:
            # A request with no answer in time may have reached Discord all the same: the
            # outbox retries it later, looking first (it is in doubt from this attempt on).
            async with asyncio.timeout(self.send_timeout):
                if notice.user_id is not None:
                    return await self._dm(notice, game, out)
                if isinstance(notice.body, notices.Lobby):
                    return await self._lobby(notice, game, out)
                return await self._post(notice, game, out)
        except TimeoutError:
            raise DeliveryError(f"no answer from Discord within {self.send_timeout:.0f} s"
                                ) from None

    # ------------------------------------------------------------------ notices about no game

    async def _channel_notice(self, notice: Notice) -> Receipt:
        """A notice about no game (a tournament's post, a closed week's summary), posted in
        the channel it names (``notice.channel_id``) by its kind's poster (:data:`CHANNEL`)."""
        poster = CHANNEL.get(type(notice.body))
        if poster is None or not notice.channel_id:
            return SKIPPED
        self._pace(notice.channel_id)
        nonce = nonce_for(notice.key)

        async def look(target: discord.abc.Messageable) -> discord.Message | None:
            # Out unrecorded, maybe: looked for from its first attempt on.
            return (await self._look(target, [nonce], since(notice))).get(nonce)

        return await poster(self.bot, self.client, notice, nonce,
                            look if notice.look_first else None)

    # ------------------------------------------------------------------ opening the thread

    # ------------------------------------------------------------------ DMs

    async def _dm(self, notice: Notice, game: GameInfo, out: Outgoing) -> Receipt:
        assert notice.user_id is not None
        more: list[str] = []
        if out.words and await described.wants_words(self.bot.kernel, notice.user_id):
            # Pictures in words: the description follows the message's own text, in more
            # messages when it does not fit in one.
            tr = await self.bot.locales.text_for(notice.user_id)
            out.content, *more = described.dm_parts(tr, out, postmarks.ROOM) or [out.content]
        nonce = nonce_for(notice.key)
        parts = [nonce_for(f"{notice.key}w{i}") for i in range(len(more))]
        try:
            channel = await self.client.create_dm(discord.Object(id=notice.user_id))
            self.dm_channels[notice.user_id] = channel.id
            found = await self._look(channel, [nonce, *parts], since(notice)) \
                if notice.look_first else {}
            message = found.get(nonce) or await channel.send(nonce=nonce, **marked(out, nonce))
            for text, part in zip(more, parts, strict=True):
                if part not in found:
                    await channel.send(postmarks.marked(text, part), nonce=part,
                                       allowed_mentions=discord.AllowedMentions.none())
            crash_point("dm.sent")  # Discord has every part; the database does not know yet
            return Receipt(message_id=message.id, found=nonce in found)
        except discord.Forbidden as e:
            if isinstance(notice.body, notices.Reminder):
                await self._reminder_in_thread(notice, notice.body, game)
            raise DeliveryError(f"DM refused ({e.code})", permanent=True) from None
        except discord.NotFound:
            raise DeliveryError("unknown user", permanent=True) from None
        except discord.HTTPException as e:
            if e.code == DM_CLOSED:
                if isinstance(notice.body, notices.Reminder):
                    await self._reminder_in_thread(notice, notice.body, game)
                raise DeliveryError("DMs closed", permanent=True) from None
            # Refused for good (an invalid form body): this message only, not their DMs.
            raise refusals.failed(e, "DM", self.metrics, unreachable=False) from None

    async def _reminder_in_thread(self, notice: Notice, reminder: notices.Reminder,
                                  game: GameInfo) -> None:
        """A reminder that could not go by DM still reaches the player: in the thread."""
        assert notice.user_id is not None
        tr = await self.renderer.thread_text(game)
        out = messages.reminder_message(tr, game, reminder, in_thread=True,
                                        user_id=notice.user_id)
        try:
            await self._post(notice, game, out, nonce=nonce_for(notice.key + "t"))
        except DeliveryError:
            log.info("reminder fallback for game %s could not be posted", game.id)

    # ------------------------------------------------------------------ the thread

    def _thread(self, game: GameInfo) -> discord.abc.Messageable:
        """The game's thread: cached when one of this process's shards holds the server,
        else a handle that posts to it by id over HTTP."""
        if game.thread_id is None:
            raise DeliveryError("the game has no thread", undeliverable=True)
        channel = self.client.get_channel(game.thread_id)
        if isinstance(channel, discord.Thread | discord.TextChannel):
            return channel
        return self.client.get_partial_messageable(
            game.thread_id, guild_id=game.guild_id, type=discord.ChannelType.public_thread)

    async def _gone(self, channel_id: int) -> None:
        await threads.gone(self.bot, channel_id)

    async def _unarchive(self, game: GameInfo) -> None:
        assert game.thread_id is not None
        try:
            thread = self.client.get_channel(game.thread_id) or \
                await self.client.fetch_channel(game.thread_id)
            if isinstance(thread, discord.Thread):
                await thread.edit(archived=False)
        except discord.HTTPException as e:
            raise refusals.failed(e, "unarchiving the thread", self.metrics) from None

    async def _look(self, channel: discord.abc.Messageable, nonces: list[str],
                    since: datetime) -> dict[str, discord.Message]:
        """This bot's posts of ``nonces`` in ``channel`` from ``since`` on (``look_first``; see
        :mod:`bot.adapter.postmarks`). A channel that cannot be read back is said once
        (:class:`~bot.adapter.postmarks.Unreadable`) and treated as holding none of them."""
        me = self.client.user
        if me is None:
            return {}
        try:
            reading = await postmarks.find(channel, me.id, nonces, since=since)
        except discord.Forbidden:
            self.bot.unreadable.note(channel)
            return {}
        except discord.NotFound:
            return {}  # the post that follows meets the same 404 and says what it means
        except discord.HTTPException as e:
            raise DeliveryError(f"reading the channel back failed: {e.status} {e.code}") from None
        if reading.read:
            self.bot.unreadable.forget(getattr(channel, "id", 0))
        elif len(reading.found) < len(nonces) and \
                not await postmarks.readable(self.client, channel, since):
            # Discord's answer to a read without Read Message History is an empty list.
            self.bot.unreadable.note(channel)
        return reading.found

    async def _post(self, notice: Notice, game: GameInfo, out: Outgoing,
                    nonce: str | None = None) -> Receipt:
        channel = self._thread(game)
        if isinstance(channel, discord.Thread) and channel.archived:
            await self._unarchive(game)
        nonce = nonce or nonce_for(folding.run_key(notice.key, len(notice.run)))
        try:
            if notice.look_first:
                # A run may have been posted shorter than it is now (it grew since).
                keys = [nonce] if notice.user_id is not None or not notice.run else \
                    [nonce_for(k) for k in folding.run_keys(notice.key, len(notice.run))]
                found = await self._look(channel, keys, since(notice))
                for length, key in enumerate(keys, 1):
                    if key in found:
                        return Receipt(message_id=found[key].id, found=True,
                                       covered=length if notice.run else None)
            message = await channel.send(nonce=nonce, **marked(out, nonce))
            return Receipt(message_id=message.id)
        except discord.NotFound as e:
            if e.code in (UNKNOWN_CHANNEL, 0):
                await self._gone(game.thread_id or 0)
            raise refusals.failed(e, "thread post", self.metrics) from None
        except discord.HTTPException as e:
            if e.code != ARCHIVED:
                raise refusals.failed(e, "thread post", self.metrics) from None
        # Archived between our check and the post: revive it and try once more.
        await self._unarchive(game)
        try:
            message = await channel.send(nonce=nonce, **marked(out, nonce))
        except discord.HTTPException as e:
            raise refusals.failed(e, "thread post after unarchiving", self.metrics) from None
        return Receipt(message_id=message.id)

    async def _lobby(self, notice: Notice, game: GameInfo, out: Outgoing) -> Receipt:
        """The lobby message: posted in the thread the first time (and recorded at once), then
        edited in place; posted again if it vanished while the lobby is open."""
        if game.lobby_message_id is None:
            if game.status is not GameStatus.LOBBY:
                return SKIPPED  # a table that never had a lobby message (solo)
            receipt = await self._post(notice, game, out)
            assert receipt.message_id is not None and game.thread_id is not None
            crash_point("lobby.posted")
            await lobby.attach_thread(self.bot.kernel, game.id, game.thread_id, receipt.message_id)
            return receipt
        channel = self._thread(game)
        if isinstance(channel, discord.Thread) and channel.archived:
            await self._unarchive(game)
        message = channel.get_partial_message(game.lobby_message_id)  # type: ignore[attr-defined]
        try:
            await message.edit(**out.edit_kwargs())
        except discord.NotFound:
            if game.status is GameStatus.LOBBY:
                receipt = await self._post(notice, game, out)
                assert receipt.message_id is not None and game.thread_id is not None
                await lobby.attach_thread(self.bot.kernel, game.id, game.thread_id,
                                                     receipt.message_id)
                return receipt
            return SKIPPED
        except discord.HTTPException as e:
            raise refusals.failed(e, "lobby edit", self.metrics) from None
        return Receipt(message_id=game.lobby_message_id)


def since(notice: Notice) -> datetime:
    """When a notice in doubt may first have reached Discord (its first attempt; the outbox
    sets ``sent_at`` with ``look_first``, else its creation)."""
    return notice.sent_at or notice.created_at


def marked(out: Outgoing, nonce: str) -> dict[str, Any]:
    """``Messageable.send`` keywords for ``out`` with the mark of ``nonce`` in its content."""
    kwargs = out.send_kwargs()
    kwargs["content"] = postmarks.marked(kwargs["content"], nonce)
    return kwargs


def describe(out: Outgoing) -> dict[str, Any]:
    """A plain summary of a message (for logs and the demo transcript)."""
    labels: list[str] = []
    if out.view is not None:
        for child in out.view.children:
            item = getattr(child, "item", child)  # a DynamicItem wraps the real component
            label = getattr(item, "label", None) or getattr(item, "placeholder", None)
            if label:
                labels.append(str(label))
    return {"content": out.content, "files": [n for n, _ in out.files], "controls": labels}


ChannelPoster = Callable[[Any, discord.Client, Notice, str, Look | None], Awaitable[Receipt]]
#: Each kind of notice about no game, by its body's type, and who posts it in its channel.
CHANNEL: dict[type[Body], ChannelPoster] = {
    Post: tournament_ui.deliver,
    Summary: challenge_ui.deliver,
}
