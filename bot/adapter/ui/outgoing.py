"""A message ready to send: text, PNG files (with their alt text), components and who it may
ping.

Builders (:mod:`bot.adapter.ui.messages`) produce an :class:`Outgoing`; the interaction helpers, the
outbox delivery and the offline demo each turn it into their own kind of send. Keeping the files
as bytes lets one message be sent twice (a retry) without a consumed file handle.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.words.describe import ATTACHMENT_DESCRIPTION_LIMIT, Description, clip


@dataclass(slots=True)
class Outgoing:
    content: str = ""
    files: list[tuple[str, bytes]] = field(default_factory=list)
    view: discord.ui.View | None = None
    ping: list[int] = field(default_factory=list)  # user ids this message may notify
    # An edit that leaves the message's pictures as they are (no upload, no re-render): the
    # edit then carries no ``attachments`` at all, which Discord reads as "keep them".
    keep_attachments: bool = False
    # Alt text by file name (Discord's attachment description, read by screen readers). A
    # mapping beside ``files`` rather than a third tuple element, so code that unpacks
    # ``(name, data)`` pairs keeps working.
    descriptions: dict[str, str] = field(default_factory=dict)
    # The long description of each picture (``describe.Description.long``) by file name, for
    # readers who asked for pictures in words (:mod:`bot.adapter.ui.described`).
    words: dict[str, str] = field(default_factory=dict)
    ping_roles: list[int] = field(default_factory=list)  # role ids this message may notify

    def attach(self, name: str, data: bytes, description: str | Description | None = None
               ) -> None:
        """Add a file, with its alt text when there is one (a :class:`Description` gives the
        long form too)."""
        self.files.append((name, data))
        if isinstance(description, Description):
            self.described(name, description)
        elif description:
            self.descriptions[name] = description

    def described(self, name: str, description: Description) -> Outgoing:
        """Give the file ``name`` its alt text and its long description."""
        self.descriptions[name] = description.short
        self.words[name] = description.long
        return self

    def discord_files(self) -> list[discord.File]:
        # The description is clipped again here: Discord rejects the whole message when one
        # attachment's description is too long, and a picture without words beats no message.
        return [discord.File(io.BytesIO(data), filename=name,
                             description=self._description(name))
                for name, data in self.files]

    def _description(self, name: str) -> str | None:
        text = self.descriptions.get(name)
        return clip(text, ATTACHMENT_DESCRIPTION_LIMIT) if text else None

    def allowed_mentions(self) -> discord.AllowedMentions:
        """Only the listed users and roles are pinged; never @everyone."""
        users: list[discord.abc.Snowflake] = [discord.Object(id=u) for u in self.ping]
        roles: list[discord.abc.Snowflake] = [discord.Object(id=r) for r in self.ping_roles]
        return discord.AllowedMentions(everyone=False, roles=roles if roles else False,
                                       replied_user=False, users=users if users else False)

    def send_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``Messageable.send`` / ``followup.send`` / ``send_message``."""
        kwargs: dict[str, Any] = {
            "content": self.content or None,
            "allowed_mentions": self.allowed_mentions(),
        }
        if self.files:
            kwargs["files"] = self.discord_files()
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for an edit that *replaces* the attachments and the components.

        Editing with ``files=`` would append to the old pictures; ``attachments=`` replaces them.
        With ``keep_attachments`` (and no files) ``attachments`` is left out, so discord.py sends
        none and the old pictures stay. An empty view (``None``) removes the old buttons.
        """
        kwargs: dict[str, Any] = {
            "content": self.content or None,
            "view": self.view,
            "allowed_mentions": self.allowed_mentions(),
        }
        if self.files or not self.keep_attachments:
            kwargs["attachments"] = self.discord_files()
        return kwargs
