"""The outbox's Discord side: turn each committed notice into a post in the thread or a DM.

:class:`NoticeRenderer` builds the message for a notice (shared with the offline demo);
:class:`DiscordDelivery` sends it. Rules of the road:

- The notice ``key`` is the message nonce (discord.py sends it with ``enforce_nonce``), so a
  notice delivered again after a crash is refused by Discord as a duplicate instead of
  appearing twice.
- Threads auto-archive: an archived thread is unarchived before posting, and a post refused
  because of archiving is retried once after unarchiving.
- A deleted thread or channel (404) ends its games through ``manager.channel_gone``; missing
  access (403) is permanent for that notice. Neither blocks any other game.
- A DM refused because DMs are closed (50007) is a permanent failure: the dispatcher then calls
  ``manager.dm_failed``, which posts the "use /calico hand" notice in the thread once. A reminder
  that cannot go by DM is also posted in the thread, pinging the player, so they still hear of
  it; while their DMs are known to be closed the manager queues reminders for the thread in the
  first place (a ``reminder`` notice without ``user_id``, the person in its payload), posted
  with a jump link and the "Show my hand" button.
- Languages: a DM reads in the recipient's stored locale; a thread post in the host's.
"""

from __future__ import annotations

import hashlib
import logging
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.adapter.ui import messages
from bot.adapter.ui.outgoing import Outgoing
from bot.core.models import GameInfo, GameStatus, ManagerError, Notice, NoticeKind
from bot.core.outbox import DeliveryError
from bot.i18n import Text
from engine.state import GameState

if TYPE_CHECKING:
    from bot.adapter.client import CalicoBot
    from bot.core.manager import Manager

log = logging.getLogger("calico.delivery")

DM_CLOSED = 50007
ARCHIVED = 50083
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001


def nonce_for(key: str) -> str:
    """A nonce of at most 25 characters for a notice key (Discord's limit)."""
    return key if len(key) <= 25 else hashlib.blake2b(key.encode(), digest_size=12).hexdigest()


class Locales(Protocol):
    """Where a user's language comes from (the stored locale of each user)."""

    async def locale(self, user_id: int | None) -> str: ...

    def remember(self, user_id: int, locale: str) -> None: ...

    async def text_for(self, user_id: int | None) -> Text: ...


class LocaleSource:
    """Users' languages: the locale the manager stored for each (``Manager.user_locale``).

    ``remember`` covers the moment between an interaction and the manager storing its user (a
    host's lobby being created): a stored locale always wins over a remembered one.
    """

    def __init__(self, manager: Manager) -> None:
        self.manager = manager
        self._remembered: dict[int, str] = {}

    async def locale(self, user_id: int | None) -> str:
        if user_id is None:
            return "en-US"
        stored = await self.manager.user_locale(user_id, default="")
        return stored or self._remembered.get(user_id) or "en-US"

    def remember(self, user_id: int, locale: str) -> None:
        if len(self._remembered) > 10_000:
            self._remembered.clear()
        self._remembered[user_id] = locale

    async def text_for(self, user_id: int | None) -> Text:
        return Text(await self.locale(user_id))


class NoticeRenderer:
    """Builds the :class:`Outgoing` a notice should produce (None: nothing to show any more)."""

    def __init__(self, manager: Manager, locales: Locales) -> None:
        self.manager = manager
        self.locales = locales

    async def thread_text(self, game: GameInfo) -> Text:
        return await self.locales.text_for(game.host_id)

    async def _state_after(self, game: GameInfo, ply: int) -> GameState | None:
        if game.state is None:
            return None
        if ply == game.ply:
            return game.state
        try:
            return await self.manager.state_at(game.id, ply)
        except ManagerError:
            return game.state

    async def build(self, notice: Notice, game: GameInfo) -> Outgoing | None:
        kind = notice.kind
        payload = notice.payload
        if notice.user_id is not None:
            tr = await self.locales.text_for(notice.user_id)
        else:
            tr = await self.thread_text(game)
        if kind is NoticeKind.LOBBY:
            return messages.lobby_message(tr, game)
        if kind is NoticeKind.STARTED:
            return await messages.started_message(tr, game, int(payload.get("first_seat", 0)))
        if kind is NoticeKind.DRAFT_PROMPT:
            assert notice.user_id is not None
            if notice.user_id not in game.drafting_user_ids:
                return None  # chosen meanwhile (through /calico hand, or the timer)
            return await messages.draft_panel(tr, game, notice.user_id)
        if kind is NoticeKind.TURN_PROMPT:
            assert notice.user_id is not None
            if game.current_user_id != notice.user_id or game.ply != notice.ply:
                return None  # played meanwhile: an old prompt would only mislead
            return await messages.turn_panel(tr, game, notice.user_id)
        if kind is NoticeKind.TABLE:
            seat = int(payload.get("seat", 0))
            events = messages.events_from_payload(payload.get("events"))
            state = await self._state_after(game, notice.ply)
            return await messages.table_post(
                tr, game, state, seat, events, autoplayed=bool(payload.get("autoplayed")),
                current=game.ply == notice.ply)
        if kind is NoticeKind.GAME_OVER:
            events = messages.events_from_payload(payload.get("events"))
            return await messages.game_over_message(tr, game, events)
        if kind is NoticeKind.REMINDER:
            # A DM; or, when their DMs are closed, a thread post naming them in the payload.
            uid = notice.user_id if notice.user_id is not None \
                else int(payload.get("user_id") or 0)
            if game.current_user_id != uid and uid not in game.drafting_user_ids:
                return None  # they acted meanwhile
            return messages.reminder_message(tr, game, final=bool(payload.get("final")),
                                             in_thread=notice.user_id is None, user_id=uid,
                                             waiting=payload.get("waiting"))
        if kind is NoticeKind.SEAT_CHANGED:
            return messages.seat_changed_message(tr, game, int(payload.get("seat", 0)),
                                                 str(payload.get("reason", "other")))
        if kind is NoticeKind.ENDED:
            return messages.ended_message(tr, payload.get("reason") or game.end_reason)
        if kind is NoticeKind.DM_FALLBACK:
            uid = int(payload.get("user_id") or 0)
            return messages.dm_fallback_message(tr, game, uid)
        log.warning("unknown notice kind %s", kind)
        return None


class DiscordDelivery:
    """The outbox ``Delivery`` that posts to Discord."""

    def __init__(self, bot: CalicoBot) -> None:
        self.bot = bot
        self.renderer = NoticeRenderer(bot.manager, bot.locales)

    async def deliver(self, notice: Notice) -> None:
        try:
            game = await self.bot.manager.get_game(notice.game_id)
        except ManagerError:
            return  # the game is gone: nothing to say
        out = await self.renderer.build(notice, game)
        if out is None:
            return
        if notice.user_id is not None:
            await self._dm(notice, game, out)
        elif notice.kind is NoticeKind.LOBBY:
            await self._edit_lobby(notice, game, out)
        else:
            await self._post(notice, game, out)

    # ------------------------------------------------------------------ DMs

    async def _dm(self, notice: Notice, game: GameInfo, out: Outgoing) -> None:
        assert notice.user_id is not None
        try:
            channel = await self.bot.create_dm(discord.Object(id=notice.user_id))
            await channel.send(nonce=nonce_for(notice.key),
                               **out.send_kwargs())
        except discord.Forbidden as e:
            if notice.kind is NoticeKind.REMINDER:
                await self._reminder_in_thread(notice, game)
            raise DeliveryError(f"DM refused ({e.code})", permanent=True) from None
        except discord.NotFound:
            raise DeliveryError("unknown user", permanent=True) from None
        except discord.HTTPException as e:
            if e.code == DM_CLOSED:
                if notice.kind is NoticeKind.REMINDER:
                    await self._reminder_in_thread(notice, game)
                raise DeliveryError("DMs closed", permanent=True) from None
            raise DeliveryError(f"DM failed: {e.status} {e.code}") from None

    async def _reminder_in_thread(self, notice: Notice, game: GameInfo) -> None:
        """A reminder that could not go by DM still reaches the player: in the thread."""
        assert notice.user_id is not None
        tr = await self.renderer.thread_text(game)
        out = messages.reminder_message(tr, game, final=bool(notice.payload.get("final")),
                                        in_thread=True, user_id=notice.user_id,
                                        waiting=notice.payload.get("waiting"))
        try:
            await self._post(notice, game, out, nonce=nonce_for(notice.key + "t"))
        except DeliveryError:
            log.info("reminder fallback for game %s could not be posted", game.id)

    # ------------------------------------------------------------------ the thread

    async def _thread(self, game: GameInfo) -> discord.Thread | discord.abc.Messageable | None:
        target = game.thread_id or None
        if target is None:
            return None
        channel = self.bot.get_channel(target)
        if channel is None:
            try:
                fetched = await self.bot.fetch_channel(target)
            except discord.NotFound:
                await self._gone(target)
                raise DeliveryError("thread deleted", permanent=True) from None
            except discord.Forbidden:
                raise DeliveryError("no access to the thread", permanent=True) from None
            except discord.HTTPException as e:
                raise DeliveryError(f"fetching the thread failed: {e.status}") from None
            channel = fetched
        if isinstance(channel, discord.Thread | discord.TextChannel | discord.DMChannel):
            return channel
        return None

    async def _gone(self, channel_id: int) -> None:
        try:
            await self.bot.manager.channel_gone(channel_id)
        except Exception:
            log.exception("channel_gone(%s) failed", channel_id)

    async def _unarchive(self, thread: discord.Thread) -> None:
        try:
            await thread.edit(archived=False)
        except discord.HTTPException as e:
            raise DeliveryError(f"unarchiving failed: {e.status} {e.code}",
                                permanent=e.status == 403) from None

    async def _post(self, notice: Notice, game: GameInfo, out: Outgoing,
                    nonce: str | None = None) -> None:
        channel = await self._thread(game)
        if channel is None:
            return  # no thread (never attached): nowhere to post
        if isinstance(channel, discord.Thread) and channel.archived:
            await self._unarchive(channel)
        kwargs = out.send_kwargs()
        nonce = nonce or nonce_for(notice.key)
        try:
            await channel.send(nonce=nonce, **kwargs)
            return
        except discord.NotFound as e:
            if e.code in (UNKNOWN_CHANNEL, 0):
                await self._gone(channel.id if isinstance(channel, discord.Thread) else 0)
            raise DeliveryError("thread deleted", permanent=True) from None
        except discord.Forbidden as e:
            if e.code != ARCHIVED or not isinstance(channel, discord.Thread):
                raise DeliveryError(f"not allowed to post ({e.code})", permanent=True) from None
        except discord.HTTPException as e:
            if e.code != ARCHIVED or not isinstance(channel, discord.Thread):
                raise DeliveryError(f"post failed: {e.status} {e.code}") from None
        # Archived between our check and the post: revive it and try once more.
        await self._unarchive(channel)
        try:
            await channel.send(nonce=nonce, **out.send_kwargs())
        except discord.HTTPException as e:
            raise DeliveryError(f"post failed after unarchiving: {e.status} {e.code}") from None

    async def _edit_lobby(self, notice: Notice, game: GameInfo, out: Outgoing) -> None:
        """The lobby message is edited in place (a new one is posted if it vanished)."""
        if game.lobby_message_id is None or game.thread_id is None:
            return
        channel = await self._thread(game)
        if channel is None or not isinstance(channel, discord.Thread | discord.TextChannel):
            return
        if isinstance(channel, discord.Thread) and channel.archived:
            await self._unarchive(channel)
        message = channel.get_partial_message(game.lobby_message_id)
        try:
            await message.edit(**out.edit_kwargs())
        except discord.NotFound:
            if game.status is GameStatus.LOBBY:
                await self._post(notice, game, out)
        except discord.HTTPException as e:
            raise DeliveryError(f"lobby edit failed: {e.status} {e.code}",
                                permanent=e.status == 403) from None


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
