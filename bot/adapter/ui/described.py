"""Pictures in words for the people who asked (``/calico settings describe:on``).

Every picture carries its short alt text (the attachment description) for everyone. A player
who turned "describe pictures in text" on also gets each picture's long description
(:mod:`bot.words.describe`) in the message itself, wherever the message is theirs alone: their DMs
(delivered by the outbox: :func:`dm_parts`, the description continuing in follow-up messages
when it does not fit) and the private answers to their commands and clicks
(:func:`for_reader`: one message, trimmed to fit, with a note when lines were left out).
Thread posts are for everyone and stay as they are.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import discord

from bot.adapter.ui.outgoing import Outgoing
from bot.core import queries
from bot.words import describe
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from bot.core.kernel import Kernel


def long_text(out: Outgoing) -> str:
    """The long descriptions of the message's pictures, in the order of its files."""
    return "\n\n".join(out.words[name] for name, _ in out.files if out.words.get(name))


async def wants_words(kernel: Kernel, user_id: int) -> bool:
    return (await queries.get_settings(kernel, user_id)).describe


def dm_parts(tr: Text, out: Outgoing, limit: int = describe.MESSAGE_CONTENT_LIMIT
             ) -> list[str]:
    """The contents of a DM with its pictures in words: the message's own content (and as
    much of the description as fits), then the rest of the description in more messages, each
    within ``limit``."""
    return describe.message_parts(tr, out.content, long_text(out), limit)


def fitted(tr: Text, out: Outgoing) -> Outgoing:
    """``out`` with as much of its pictures' description as one message holds."""
    out.content = describe.fit_message(tr, out.content, long_text(out))
    return out


def is_private(interaction: discord.Interaction[Any]) -> bool:
    """Whether a click's message is the clicker's alone (a DM, or an ephemeral message)."""
    if interaction.guild_id is None:
        return True
    message = interaction.message
    return message is not None and message.flags.ephemeral


async def for_reader(interaction: discord.Interaction[Any],
                     work: Awaitable[Outgoing | None]) -> Outgoing | None:
    """The answer ``work`` builds, with its pictures in words when the person who asked wants
    them (call it for private answers only)."""
    out = await work
    if out is None or not out.words:
        return out
    kernel: Kernel | None = getattr(interaction.client, "kernel", None)
    if kernel is None or not await wants_words(kernel, interaction.user.id):
        return out
    return fitted(Text(interaction.locale), out)
