"""Discord markup as plain text: mentions, jump links, timestamps, clipping to a limit, and a
person's name made safe to put in a message (:func:`name`).

Discord renders these strings; nothing here talks to it, so every message stays testable
without a client.
"""

from __future__ import annotations

import datetime as dt
import re

# Every character Discord's Markdown gives a meaning to (emphasis, code, spoilers, quotes,
# headings, lists, the brackets of masked links, escapes, and the ``<`` of mentions and custom
# emoji): a backslash before each shows it as itself. Quotes, headings and lists count only at
# the start of a line, but a template may put a name there. Letters, digits, spaces and
# parentheses (nothing without the brackets) are left alone, so "Computer (easy)" or a plain
# name reads the same in the raw text.
_MARKDOWN = re.compile(r"([\\*_~`|>#\-\[\]<])")
_MASS_MENTION = re.compile(r"@(everyone|here)", re.IGNORECASE)
ZWSP = "\u200b"


def name(text: str) -> str:
    """A display name (a person's, or a computer seat's) as it must appear in a message: its
    Markdown escaped (``[Free Nitro](https://ev.il)`` is shown as written, never as a masked
    link, so the address it goes to is in plain sight; ``**x**`` never bold; ``||x||`` never a
    spoiler), ``@everyone``/``@here`` broken by a zero-width space, and line breaks made
    spaces. Every words function that puts a name in a message
    calls this; pictures, alt text, thread names and menu labels take the name as it is."""
    flat = " ".join(text.splitlines())
    escaped = _MARKDOWN.sub(r"\\\1", flat)
    return _MASS_MENTION.sub(lambda m: "@" + ZWSP + m[1], escaped)


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
