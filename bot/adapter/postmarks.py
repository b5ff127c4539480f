"""The invisible mark on every outbox post, by which the bot finds its own post again.

Discord refuses a second post with the same nonce only for a few minutes, and does not give
nonces back when messages are read later. When a post may be in Discord unrecorded (the bot died
right after Discord made it, an attempt timed out), the outbox asks the delivery to look first
(``Notice.look_first``): it reads the channel (a thread, a server channel, a DM channel alike)
from the moment of the first attempt on (``after=`` that time's snowflake, less
:data:`SKEW` for the clocks' difference), page after page until the end, and takes its own post
carrying the notice's mark instead of posting it again. A busy channel (hundreds of messages
since) costs one request per hundred.

An empty read is not proof: Discord answers a history read without *Read Message History*
with an empty list, not an error. So when nothing at all was read in a server channel, the
look checks that it could have read something (:func:`readable`: the bot's permission when the
channel is cached, else whether the channel's last message is older than the look's start). A
channel it cannot read back is said once (:class:`Unreadable`: a warning, a metric, and
``/calico admin`` names it); the post is then made as if nothing was found (the documented
fallback: a lost post would be worse than a second copy, and the nonce still stops a copy
within Discord's few minutes).

The mark is a run of zero-width characters at the end of the content: nobody sees it and screen
readers skip it (discord.py escapes mentions with one of the same characters). It spells 32 bits
of a hash of the post's nonce (the notice key, which holds the game, its version and a count:
nothing about the seed or the bag); the look also checks the author, and a few notices at most
are looked for at once. This module owns the mark's spelling and the look; the delivery decides
when to look.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeAlias

import discord

from bot.core.outbox import Receipt
from bot.words import describe

log = logging.getLogger("calico.delivery")

START = "\u2060"  # word joiner: opens the mark, and keeps it from joining the text before it
DIGITS = ("\u200b", "\u200c", "\u200d")  # zero width space, non-joiner, joiner: base 3
WIDTH = 21  # 3 ** 21 > 2 ** 32
LENGTH = 1 + WIDTH
CONTENT_LIMIT = describe.MESSAGE_CONTENT_LIMIT  # Discord's, for a message's content
ROOM = CONTENT_LIMIT - LENGTH  # what a marked message's own text may take
# How much earlier than the first attempt the look starts: this host's clock and Discord's may
# differ (a post's snowflake carries Discord's time).
SKEW = timedelta(minutes=2)

# Looks for one notice's post in a channel from its first attempt on (the delivery's look).
Look: TypeAlias = Callable[[discord.abc.Messageable], Awaitable[discord.Message | None]]


def mark_of(nonce: str) -> str:
    """The mark of the post sent with ``nonce``."""
    value = int.from_bytes(hashlib.blake2b(nonce.encode(), digest_size=4).digest(), "big")
    digits: list[str] = []
    for _ in range(WIDTH):
        value, digit = divmod(value, 3)
        digits.append(DIGITS[digit])
    return START + "".join(digits)


def marked(content: str | None, nonce: str) -> str:
    """``content`` with the mark of ``nonce`` at its end (the text shortened if it must be, to
    stay within Discord's limit; texts split into parts are cut to :data:`ROOM` before)."""
    return describe.clip(content or "", ROOM) + mark_of(nonce)


def mark_in(content: str) -> str | None:
    """The mark at the end of ``content``, if it has one."""
    tail = content[-LENGTH:]
    if len(tail) == LENGTH and tail[0] == START and all(c in DIGITS for c in tail[1:]):
        return tail
    return None


def since_id(when: datetime) -> int:
    """The snowflake a look reads after: the time of the first attempt, less :data:`SKEW`."""
    return discord.utils.time_snowflake(when - SKEW)


@dataclass
class Reading:
    """What a look read: the posts found, by nonce, and how many messages it read at all."""

    found: dict[str, discord.Message] = field(default_factory=dict)
    read: int = 0


async def find(channel: discord.abc.Messageable, author_id: int,
               nonces: Sequence[str], *, since: datetime) -> Reading:
    """The posts ``author_id`` made in ``channel`` with these nonces, read from ``since`` (the
    first attempt) on, oldest first, as many pages as it takes. Raises
    ``discord.HTTPException`` when the channel cannot be read."""
    wanted = {mark_of(n): n for n in nonces}
    reading = Reading()
    after = discord.Object(id=since_id(since))
    async for message in channel.history(limit=None, after=after, oldest_first=True):
        reading.read += 1
        if message.author.id != author_id:
            continue
        nonce = wanted.get(mark_in(message.content) or "")
        if nonce is not None and nonce not in reading.found:
            reading.found[nonce] = message
            if len(reading.found) == len(wanted):
                break
    return reading


async def readable(client: discord.Client, channel: discord.abc.Messageable,
                   since: datetime) -> bool:
    """Whether an empty read of ``channel`` from ``since`` on can be trusted: a DM always; a
    cached server channel when the bot has Read Message History there; otherwise when the
    channel's last message (its channel object names it, without that permission) is older
    than the look's start. False when it cannot be told."""
    if isinstance(channel, discord.DMChannel):
        return True
    guild = getattr(channel, "guild", None)
    me = getattr(guild, "me", None)
    if isinstance(channel, discord.Thread | discord.TextChannel) and me is not None:
        return bool(channel.permissions_for(me).read_message_history)
    channel_id = getattr(channel, "id", None)
    if channel_id is None:
        return False
    try:
        fetched = await client.fetch_channel(channel_id)
    except discord.HTTPException:
        return False
    if isinstance(fetched, discord.DMChannel):
        return True
    last = getattr(fetched, "last_message_id", None)
    return last is None or last < since_id(since)


class Unreadable:
    """The channels this process found it cannot read back (no Read Message History), each
    said once: a warning and a count (``on_new``, the metric); ``/calico admin`` lists a
    server's."""

    def __init__(self, on_new: Callable[[], object] | None = None) -> None:
        self.channels: dict[int, int | None] = {}  # channel id -> its server (None: unknown)
        self.on_new = on_new

    def note(self, channel: discord.abc.Messageable) -> None:
        channel_id = int(getattr(channel, "id", 0) or 0)
        if channel_id in self.channels:
            return
        guild = getattr(channel, "guild", None)
        guild_id = getattr(channel, "guild_id", None) or getattr(guild, "id", None)
        self.channels[channel_id] = guild_id
        log.warning("cannot read channel %s back (no Read Message History): a post in doubt "
                    "there is posted again unchecked (it may show twice)", channel_id)
        if self.on_new is not None:
            self.on_new()

    def forget(self, channel_id: int) -> None:
        """Readable again (the permission was given back)."""
        self.channels.pop(channel_id, None)

    def in_guild(self, guild_id: int) -> list[int]:
        return sorted(c for c, g in self.channels.items() if g == guild_id)


async def post_once(target: discord.abc.Messageable, kwargs: dict[str, Any], nonce: str,
                    look: Look | None, what: str) -> Receipt:
    """Post a notice that belongs to no game (a challenge summary, a tournament's posts) in its
    channel, marked with ``nonce``; with ``look`` (it may be out already, unrecorded, past
    Discord's nonce window) a post found there is recorded instead. ``what`` names the post
    (for the reader). Discord's refusals are raised as they come: the delivery decides what
    each means (:mod:`bot.adapter.refusals`)."""
    found = await look(target) if look is not None else None
    if found is not None:
        return Receipt(message_id=found.id, found=True)
    kwargs = {**kwargs, "content": marked(kwargs.get("content"), nonce)}
    message = await target.send(nonce=nonce, **kwargs)
    return Receipt(message_id=message.id)
