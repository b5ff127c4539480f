"""``/calico challenge``: the weekly challenge (the same solo game for everyone this week, one
attempt each; see :mod:`bot.core.challenge`). The first use of the week deals the game (its
turns come by DM, it has no thread); later uses say how the attempt stands and, once it is
finished, show the week's boards (this server, every server): privately, so nobody's tiles are
spoiled."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter.cogs import CalicoCog, L
from bot.adapter.context import Host, user_ref
from bot.adapter.ui import challenge as challenge_ui
from bot.adapter.ui import respond
from bot.adapter.ui.outgoing import Outgoing
from bot.words.catalogue import Text


class Challenge(CalicoCog):
    @app_commands.command(name="challenge", description=L("cmd.challenge"))
    @app_commands.guild_only()
    async def challenge(self, interaction: discord.Interaction[Any]) -> None:
        tr = Text(interaction.locale)
        me = user_ref(interaction)
        self.bot.locales.remember(me.id, me.locale)
        guild, channel = interaction.guild_id, interaction.channel_id
        assert guild is not None and channel is not None

        async def work() -> Outgoing:
            return await challenge_ui.challenge_message(tr, self.bot.kernel, me, guild,
                                                       channel)

        await respond.reply(interaction, work(), ephemeral=True)


async def setup(bot: Host) -> None:
    await bot.add_cog(Challenge(bot))
