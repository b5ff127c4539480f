"""Looking back and moving up (issue #12): ``/calico achievements``, ``/calico replay`` and
``/calico record``. The rating lines of ``/calico stats`` and the rating leaderboard live in
:mod:`bot.adapter.cogs.info`, built by :mod:`bot.adapter.ui.progress`."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter.cogs import CalicoCog, L
from bot.adapter.context import Host
from bot.adapter.ui import progress as progress_ui
from bot.adapter.ui import replays as replays_ui
from bot.adapter.ui import respond
from bot.adapter.ui.outgoing import Outgoing
from bot.core.models import ManagerError
from bot.words.catalogue import Text


class Progress(CalicoCog):
    @app_commands.command(name="achievements", description=L("cmd.achievements"))
    @app_commands.describe(user=L("opt.achievements_user"))
    async def achievements(self, interaction: discord.Interaction[Any],
                           user: discord.User | None = None) -> None:
        tr = Text(interaction.locale)
        target = user or interaction.user

        async def work() -> Outgoing:
            return await progress_ui.achievements_message(tr, self.bot.kernel, target.id,
                                                          target.display_name,
                                                          path=not target.bot)

        await respond.reply(interaction, work(), ephemeral=True)

    @app_commands.command(name="replay", description=L("cmd.replay"))
    @app_commands.describe(game=L("opt.finished_game"))
    async def replay(self, interaction: discord.Interaction[Any],
                     game: int | None = None) -> None:
        tr = Text(interaction.locale)
        uid = interaction.user.id

        async def work() -> Outgoing:
            info = await replays_ui.finished_game(self.bot.kernel, uid,
                                                   interaction.channel_id, game)
            if not replays_ui.allowed_to_see(info, uid, interaction.guild_id):
                raise ManagerError("unknown_game")  # as if it did not exist (issue 20)
            return await replays_ui.replay_message(tr, self.bot.kernel, info.id)

        # Posted for the channel to see (a replay is public information), drawn meanwhile.
        await respond.reply(interaction, work(), ephemeral=interaction.guild_id is None)

    @replay.autocomplete("game")
    async def _replay_game(self, interaction: discord.Interaction[Any],
                           current: str) -> list[app_commands.Choice[int]]:
        return await replays_ui.finished_autocomplete(
            self.bot.kernel, interaction.user.id, current, Text(interaction.locale))

    @app_commands.command(name="record", description=L("cmd.record"))
    @app_commands.describe(game=L("opt.finished_game"))
    async def record(self, interaction: discord.Interaction[Any],
                     game: int | None = None) -> None:
        tr = Text(interaction.locale)
        uid = interaction.user.id

        async def work() -> Outgoing:
            info = await replays_ui.finished_game(self.bot.kernel, uid,
                                                   interaction.channel_id, game)
            return await replays_ui.record_message(tr, self.bot.kernel, info.id, uid)

        await respond.reply(interaction, work(), ephemeral=True)

    @record.autocomplete("game")
    async def _record_game(self, interaction: discord.Interaction[Any],
                           current: str) -> list[app_commands.Choice[int]]:
        return await replays_ui.finished_autocomplete(
            self.bot.kernel, interaction.user.id, current, Text(interaction.locale))


async def setup(bot: Host) -> None:
    await bot.add_cog(Progress(bot))
