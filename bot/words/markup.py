"""Discord markup as plain text: mentions, jump links, timestamps, and clipping to a limit.

Discord renders these strings; nothing here talks to it, so every message stays testable
without a client.
"""

from __future__ import annotations

import datetime as dt


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def channel_mention(channel_id: int) -> str:
    return f"<#{channel_id}>"


def role_mention(role_id: int) -> str:
    return f"<@&{role_id}>"


def jump_url(guild_id: int | None, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens the channel (or the message) in Discord."""
    where = "@me" if guild_id is None else str(guild_id)
    tail = "" if message_id is None else f"/{message_id}"
    return f"https://discord.com/channels/{where}/{channel_id}{tail}"


def timestamp(when: dt.datetime, style: str = "R") -> str:
    """A Discord timestamp: every reader sees it in their own time zone (``R`` = relative)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return f"<t:{int(when.timestamp())}:{style}>"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (Discord refuses longer fields)."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
