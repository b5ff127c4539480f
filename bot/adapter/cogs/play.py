"""``/calico hand`` (the private panel, also the fallback when DMs are closed), ``/calico leave``
and ``/calico settings``."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter.cogs import CalicoCog, L, choice, game_autocomplete, resolve_game
from bot.adapter.context import Host
from bot.adapter.ui import flows, respond
from bot.adapter.ui.outgoing import Outgoing
from bot.core import leaving, lobby, queries
from bot.core.models import GameStatus
from bot.core.site import service as site
from bot.words.catalogue import Text


class Play(CalicoCog):
    @app_commands.command(name="hand", description=L("cmd.hand"))
    @app_commands.describe(game=L("opt.game"))
    async def hand(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            info = await resolve_game(self.bot, interaction, game)
            return await flows.hand_panel(tr, info, interaction.user.id)

        await respond.reply(interaction, work(), ephemeral=True)

    @hand.autocomplete("game")
    async def _hand_game(self, interaction: discord.Interaction[Any],
                         current: str) -> list[app_commands.Choice[int]]:
        return await game_autocomplete(self.bot, interaction, current)

    @app_commands.command(name="leave", description=L("cmd.leave"))
    @app_commands.describe(game=L("opt.game"))
    async def leave(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            info = await resolve_game(self.bot, interaction, game)
            if info.status is GameStatus.LOBBY:
                await lobby.leave_lobby(self.bot.kernel, info.id, interaction.user.id)
                return Outgoing(tr("leave.lobby", game=info.id))
            await leaving.leave_game(self.bot.kernel, info.id, interaction.user.id)
            return Outgoing(tr("leave.game", game=info.id))

        await respond.reply(interaction, work(), ephemeral=True)

    @leave.autocomplete("game")
    async def _leave_game(self, interaction: discord.Interaction[Any],
                          current: str) -> list[app_commands.Choice[int]]:
        return await game_autocomplete(self.bot, interaction, current)

    @app_commands.command(name="settings", description=L("cmd.settings"))
    @app_commands.describe(reminders=L("opt.reminders"), describe=L("opt.describe"),
                           hide_name=L("opt.hide_name"))
    @app_commands.choices(reminders=[choice("choice.on", "on"), choice("choice.off", "off")],
                          describe=[choice("choice.on", "on"), choice("choice.off", "off")],
                          hide_name=[choice("choice.on", "on"), choice("choice.off", "off")])
    async def settings(self, interaction: discord.Interaction[Any],
                       reminders: str | None = None, describe: str | None = None,
                       hide_name: str | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            uid = interaction.user.id
            kernel = self.bot.kernel
            if reminders is None and describe is None:
                current = await queries.get_settings(kernel, uid)
            else:
                current = await queries.set_settings(
                    kernel, uid, None if reminders is None else reminders == "on",
                    describe=None if describe is None else describe == "on")
            # The web site's "Player N" (bot.core.site): kept apart from the user row.
            hidden = await site.hide_name(kernel, uid, hide_name == "on") \
                if hide_name in ("on", "off") else await site.name_hidden(kernel, uid)
            return Outgoing("\n".join((
                tr("settings.reminders_on" if current.reminders else "settings.reminders_off"),
                tr("settings.describe_on" if current.describe else "settings.describe_off"),
                tr("web.settings.hidden" if hidden else "web.settings.shown"))))

        await respond.reply(interaction, work(), ephemeral=True)


async def setup(bot: Host) -> None:
    await bot.add_cog(Play(bot))
