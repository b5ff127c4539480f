"""What the Discord layer's parts need from the running bot, as protocols.

The click handlers (:mod:`bot.adapter.ui.flows`), the delivery (:mod:`bot.adapter.delivery`)
and the cogs reach the game kernel, the users' languages and the bot's state through
:func:`app_of` and the :class:`App` protocol (the cogs through :class:`Host`, which adds what
a cog needs from the bot), never by importing the client, not even for type checking: the
client imports them, so nothing imports it back (no import circle).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter.locales import LocaleSource
from bot.adapter.pacing import Pacer
from bot.adapter.postmarks import Unreadable
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, UserRef
from bot.settings import Settings
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from discord.ui.dynamic import DynamicItem


class App(Protocol):
    """The running bot, as the Discord layer sees it (``CalicoBot`` implements it)."""

    settings: Settings
    inflight: set[asyncio.Task[Any]]  # interactions being answered (clean shutdown waits)
    unreadable: Unreadable  # channels this process cannot read back (no Read Message History)
    pacer: Pacer  # Discord's rate limits as last heard (bot.adapter.pacing)

    @property
    def kernel(self) -> Kernel: ...

    @property
    def locales(self) -> LocaleSource: ...

    @property
    def accepting(self) -> bool:
        """False once shutting down: new interactions get a "restarting" answer."""
        ...

    def now(self) -> datetime:
        """The time on the core's clock (the one stored times are on)."""
        ...

    async def thread_text(self, game: GameInfo) -> Text: ...

    async def admit(self, interaction: discord.Interaction[Any]) -> bool:
        """Let an interaction in (False: it was answered already, e.g. while restarting)."""
        ...

    async def on_click(self, item: DynamicItem[Any],
                       interaction: discord.Interaction[Any]) -> None:
        """Route a click on one of the game's dynamic items to its handler."""
        ...


class Host(App, Protocol):
    """The running bot as a cog sees it: :class:`App`, the ``/calico`` group the cogs' commands
    join, the gateway facts the listeners log, and ``add_cog`` for each cog's ``setup``."""

    calico_group: app_commands.Group

    @property
    def user(self) -> discord.ClientUser | None: ...

    @property
    def guilds(self) -> Sequence[discord.Guild]: ...

    def get_shard(self, shard_id: int, /) -> discord.ShardInfo | None: ...

    async def add_cog(self, cog: commands.Cog, /) -> None: ...


def user_ref(interaction: discord.Interaction[Any]) -> UserRef:
    """Who is asking, as the core stores them (with their language for later DMs)."""
    user = interaction.user
    return UserRef(id=user.id, name=user.display_name, locale=str(interaction.locale.value))


def app_of(interaction: discord.Interaction[Any]) -> App:
    """The bot that received ``interaction``."""
    client: Any = interaction.client
    if not hasattr(client, "kernel") or not hasattr(client, "on_click"):
        raise RuntimeError("this interaction did not come through the calico bot")
    app: App = client
    return app
