"""The ``/calico`` command tree as Discord sees it: the cogs that fill it (every module of
:mod:`bot.adapter.cogs`), its descriptions in French and Polish, the check every command passes
first, and the sync to Discord (once per changed tree, one process at a time)."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.adapter import guards
from bot.adapter.context import App
from bot.adapter.ui import respond
from bot.core.manager import Manager
from bot.words.catalogue import lang_of
from bot.words.catalogue import t as translate

log = logging.getLogger("calico.client")


def cog_modules() -> tuple[str, ...]:
    """Every module of :mod:`bot.adapter.cogs` (each has a ``setup``): a new cog is a new file."""
    import pkgutil

    import bot.adapter.cogs as package

    return tuple(sorted(f"{package.__name__}.{info.name}"
                        for info in pkgutil.iter_modules(package.__path__)))


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


class CalicoTree(app_commands.CommandTree[Any]):
    """The command tree: a command whose input does not fit its declaration (a server-only
    command in DMs, a value outside the choices) and, while shutting down, every new command get
    a short private answer."""

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        text = guards.refusal(interaction)
        if text is not None:
            await respond.refuse_text(interaction, text)
            return False
        app: App = self.client
        return await app.admit(interaction)


async def command_payload(tree: app_commands.CommandTree[Any],
                          guild: discord.abc.Snowflake | None) -> list[Any]:
    """The command tree exactly as a sync would send it (translations included)."""
    translator = tree.translator
    out: list[Any] = []
    for command in tree.get_commands(guild=guild):
        if translator is not None:
            out.append(await command.get_translated_payload(tree, translator))
        else:
            out.append(command.to_dict(tree))
    return out


async def command_hash(tree: app_commands.CommandTree[Any],
                       guild: discord.abc.Snowflake | None) -> str:
    payload = await command_payload(tree, guild)
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


async def sync(tree: app_commands.CommandTree[Any], manager: Manager, application_id: int | None,
               dev_guild: int | None, *, force: bool = False) -> bool:
    """Sync the tree (to the dev guild when set) unless the database says this application
    already synced this exact tree; one process at a time across a deployment."""
    guild = None
    if dev_guild is not None:
        guild = discord.Object(id=dev_guild)
        tree.copy_global_to(guild=guild)
    scope = str(dev_guild or "global")
    digest = await command_hash(tree, guild)
    key = f"commands:{application_id}:{scope}"
    async with manager.exclusive(f"sync:{application_id}") as mine:
        if not mine:
            log.info("another process is syncing the commands (%s)", scope)
            return False
        if not force and await manager.get_state(key) == digest:
            log.info("commands unchanged since the last sync (%s)", scope)
            return False
        await tree.sync(guild=guild)
        await manager.set_state(key, digest)
    log.info("commands synced (%s)", scope)
    return True
