"""The Discord client: wires the game manager, the cogs, the buttons and the background tasks.

``CalicoBot.setup_hook`` (runs once, after login, before the gateway connects):

1. opens the manager on the SQLite file (unless a test injected one, with its fake clock);
2. loads the cogs (``/calico ...`` lives in one app-command group shared by them);
3. registers every ``DynamicItem`` template, so buttons on old messages keep working;
4. starts the outbox dispatcher (posts committed notices) and the sweep loop (reminders and
   deadlines); both stop on :meth:`close`;
5. syncs the command tree only when its hash changed since the last sync (or when asked).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter.delivery import DiscordDelivery, LocaleSource
from bot.adapter.ui.items import ALL_ITEMS
from bot.core.clock import Clock
from bot.core.manager import Manager
from bot.core.models import GameInfo
from bot.core.outbox import Dispatcher
from bot.core.timers import SweepLoop
from bot.i18n import Text, lang_of
from bot.i18n import t as translate
from bot.settings import Settings

log = logging.getLogger("calico.client")

COGS = tuple(f"bot.adapter.cogs.{name}" for name in ("lobby", "play", "info", "admin", "events"))
SyncMode = Literal["auto", "always", "never"]


class CatalogueTranslator(app_commands.Translator):
    """Command and option descriptions and choice names in French and Polish, from the same
    catalogue as every other text (each ``locale_str`` carries its key in ``extras``)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = string.extras.get("key")
        lang = lang_of(locale)
        if not key or lang == "en":
            return None
        text = translate(lang, key, count=string.extras.get("count", 0),
                         **{k: v for k, v in string.extras.items() if k not in ("key", "count")})
        return None if text == key else text[:100]


def intents(members: bool = True) -> discord.Intents:
    """Guild events for threads and channels; members only to notice players leaving."""
    value = discord.Intents.default()
    value.members = members
    value.message_content = False
    value.presences = False
    return value


class CalicoBot(commands.Bot):
    def __init__(
        self,
        settings: Settings,
        *,
        manager: Manager | None = None,
        clock: Clock | None = None,
        sync: SyncMode = "auto",
        sweep_interval: float = 60.0,
        dispatch_poll: float = 2.0,
        members_intent: bool = True,
        background: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(command_prefix=commands.when_mentioned,
                         intents=intents(members_intent), help_command=None, **options)
        self.settings = settings
        self._manager = manager
        self._owns_manager = manager is None
        self.clock = clock
        self.sync_mode: SyncMode = sync
        self.sweep_interval = sweep_interval
        self.dispatch_poll = dispatch_poll
        self.background = background  # False: no outbox or sweep (``calico-bot sync``)
        self.calico_group = app_commands.Group(
            name="calico",
            description=app_commands.locale_str("Play Calico, the quilt and cats game",
                                                key="cmd.group"),
        )
        self.tree.add_command(self.calico_group)
        self.dispatcher: Dispatcher | None = None
        self.sweeper: SweepLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._locales: LocaleSource | None = None
        self.synced: bool = False

    # ------------------------------------------------------------------ plumbing

    @property
    def manager(self) -> Manager:
        if self._manager is None:
            raise RuntimeError("the manager opens in setup_hook")
        return self._manager

    @property
    def locales(self) -> LocaleSource:
        if self._locales is None:
            self._locales = LocaleSource(self.manager)
        return self._locales

    async def thread_text(self, game: GameInfo) -> Text:
        """The language of a game's thread posts: its host's."""
        return await self.locales.text_for(game.host_id)

    async def setup_hook(self) -> None:
        if self._manager is None:
            kwargs: dict[str, Any] = {} if self.clock is None else {"clock": self.clock}
            self._manager = await Manager.open(self.settings.db_path, **kwargs)
        await self.tree.set_translator(CatalogueTranslator())
        for name in COGS:
            await self.load_extension(name)
        self.add_dynamic_items(*ALL_ITEMS)
        self.tree.error(self.on_app_command_error)
        self.dispatcher = self.manager.dispatcher(DiscordDelivery(self),
                                                  poll_interval=self.dispatch_poll)
        self.sweeper = SweepLoop(self.manager, interval=self.sweep_interval)
        if self.background:
            self._tasks.append(asyncio.create_task(self._run_dispatcher(), name="calico-outbox"))
            self._tasks.append(asyncio.create_task(self.sweeper.run_forever(),
                                                   name="calico-sweep"))
        if self.sync_mode != "never":
            await self.sync_commands(force=self.sync_mode == "always")

    async def _run_dispatcher(self) -> None:
        # Posting needs the guild and channel caches: start once the gateway is ready.
        await self.wait_until_ready()
        assert self.dispatcher is not None
        await self.dispatcher.run_forever()

    async def close(self) -> None:
        if self.dispatcher is not None:
            self.dispatcher.stop()
        if self.sweeper is not None:
            self.sweeper.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, timeout=5)
        self._tasks.clear()
        await super().close()
        if self._owns_manager and self._manager is not None:
            await self._manager.close()
            self._manager = None

    async def on_app_command_error(self, interaction: discord.Interaction[Any],
                                   error: app_commands.AppCommandError) -> None:
        """Anything a command did not handle: a short private apology, and a log line."""
        log.error("command %s failed", interaction.command and interaction.command.name,
                  exc_info=error)
        text = Text(interaction.locale)("error.generic")
        with contextlib.suppress(discord.HTTPException):
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)

    # ------------------------------------------------------------------ command sync

    def _hash_file(self) -> Path:
        return Path(f"{self.settings.db_path}.commands.json")

    async def command_payload(self, guild: discord.abc.Snowflake | None) -> list[Any]:
        """The command tree exactly as a sync would send it (translations included)."""
        translator = self.tree.translator
        out: list[Any] = []
        for command in self.tree.get_commands(guild=guild):
            if translator is not None:
                out.append(await command.get_translated_payload(self.tree, translator))
            else:
                out.append(command.to_dict(self.tree))
        return out

    async def command_hash(self, guild: discord.abc.Snowflake | None) -> str:
        payload = await self.command_payload(guild)
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    async def sync_commands(self, *, force: bool = False) -> bool:
        """Sync the tree (to the dev guild when set) unless its hash matches the last sync."""
        guild = None
        if self.settings.dev_guild is not None:
            guild = discord.Object(id=self.settings.dev_guild)
            self.tree.copy_global_to(guild=guild)
        scope = str(self.settings.dev_guild or "global")
        digest = await self.command_hash(guild)
        stored: dict[str, str] = {}
        path = self._hash_file()
        with contextlib.suppress(OSError, ValueError):
            stored = json.loads(path.read_text(encoding="utf-8"))
        if not force and stored.get(scope) == digest:
            log.info("commands unchanged since the last sync (%s)", scope)
            return False
        await self.tree.sync(guild=guild)
        stored[scope] = digest
        with contextlib.suppress(OSError):
            path.write_text(json.dumps(stored, indent=1), encoding="utf-8")
        self.synced = True
        log.info("commands synced (%s)", scope)
        return True
