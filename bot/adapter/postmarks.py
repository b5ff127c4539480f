"""The invisible mark on every outbox post, by which the bot finds its own post again.

Discord refuses a second post with the same nonce only for a few minutes, and does not give
nonces back when messages are read later. When the bot died right after Discord made a post and
comes back after that, the outbox asks the delivery to look first (``Notice.look_first``): it
reads the channel's recent messages (a thread, a server channel, a DM channel alike) and takes
its own post carrying the notice's mark instead of posting it again.

The mark is a run of zero-width characters at the end of the content: nobody sees it and screen
readers skip it (discord.py escapes mentions with one of the same characters). It spells 32 bits
of a hash of the post's nonce (the notice key, which holds the game, its version and a count:
nothing about the seed or the bag), enough to tell apart the hundred messages looked at.
This module owns the mark's spelling and the look; the delivery decides when to look.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

import discord

from bot.core.outbox import Receipt
from bot.words import describe

START = "\u2060"  # word joiner: opens the mark, and keeps it from joining the text before it
DIGITS = ("\u200b", "\u200c", "\u200d")  # zero width space, non-joiner, joiner: base 3
WIDTH = 21  # 3 ** 21 > 2 ** 32
LENGTH = 1 + WIDTH
CONTENT_LIMIT = describe.MESSAGE_CONTENT_LIMIT  # Discord's, for a message's content
ROOM = CONTENT_LIMIT - LENGTH  # what a marked message's own text may take
LOOK_LIMIT = 100  # recent messages read back (one request): the post in doubt is among them

# Looks for one notice's post among a channel's recent messages (the delivery's look).
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


async def find(channel: discord.abc.Messageable, author_id: int,
               nonces: Sequence[str], *, limit: int = LOOK_LIMIT) -> dict[str, discord.Message]:
    """The posts among ``channel``'s ``limit`` latest messages that ``author_id`` made with
    these nonces, by nonce. Raises ``discord.HTTPException`` when the channel cannot be read."""
    wanted = {mark_of(n): n for n in nonces}
    found: dict[str, discord.Message] = {}
    async for message in channel.history(limit=limit):
        if message.author.id != author_id:
            continue
        nonce = wanted.get(mark_in(message.content) or "")
        if nonce is not None and nonce not in found:
            found[nonce] = message
            if len(found) == len(wanted):
                break
    return found


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
