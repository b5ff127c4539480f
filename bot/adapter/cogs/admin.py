"""``/calico abandon``: end a game for everyone (its host, or someone who may manage the
server)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter.cogs import CalicoCog, L, game_autocomplete, resolve_game
from bot.adapter.context import Host
from bot.adapter.ui import respond
from bot.adapter.ui.outgoing import Outgoing
from bot.core import leaving
from bot.core.models import GameStatus, ManagerError
from bot.words.catalogue import Text


class Admin(CalicoCog):
    @app_commands.command(name="abandon", description=L("cmd.abandon"))
    @app_commands.describe(game=L("opt.game"))
    async def abandon(self, interaction: discord.Interaction[Any],
                      game: int | None = None) -> None:
        tr = Text(interaction.locale)
        perms = interaction.permissions
        is_admin = bool(perms.manage_guild or perms.administrator)

        async def work() -> Outgoing:
            info = await resolve_game(self.bot, interaction, game)
            if interaction.guild is None or interaction.guild.id != info.guild_id:
                # Server permissions count only in the game's own server.
                admin_here = False
            else:
                admin_here = is_admin
            if info.host_id != interaction.user.id and not admin_here:
                raise ManagerError("manage_guild")
            was_lobby = info.status is GameStatus.LOBBY
            await leaving.abandon(self.bot.kernel, info.id, interaction.user.id,
                                  is_admin=admin_here)
            return Outgoing(tr("cancel.done" if was_lobby else "abandon.done", game=info.id))

        await respond.reply(interaction, work(), ephemeral=True)

    @abandon.autocomplete("game")
    async def _abandon_game(self, interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[int]]:
        return await game_autocomplete(self.bot, interaction, current)


async def setup(bot: Host) -> None:
    await bot.add_cog(Admin(bot))
