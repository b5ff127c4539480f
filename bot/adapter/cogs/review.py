"""``/calico review [game]``: the review of the caller's seat in a finished game (issue #13).

The cog also owns the bot's :class:`~bot.core.review.service.ReviewService` (its worker
processes start on first use and stop with the cog), registered for the score sheet's review
button and the turn DM's hint button (:mod:`bot.adapter.ui.review`).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter.cogs import CalicoCog, L
from bot.adapter.context import Host
from bot.adapter.ui import review as review_ui
from bot.adapter.ui.views import game_choices
from bot.core import queries
from bot.core.models import ManagerError
from bot.core.review.service import ReviewService
from bot.words import review as review_words
from bot.words.catalogue import Text


class Reviews(CalicoCog):
    def __init__(self, bot: Host) -> None:
        super().__init__(bot)
        self.service: ReviewService | None = None

    async def cog_load(self) -> None:
        await super().cog_load()
        self.service = ReviewService(self.bot.kernel,
                                     workers=self.bot.settings.review_workers)
        review_ui.register(self.bot, self.service)

    async def cog_unload(self) -> None:
        review_ui.unregister(self.bot)
        if self.service is not None:
            self.service.close()

    async def _resolve(self, interaction: discord.Interaction[Any]) -> int:
        """The game a bare ``/calico review`` means: this thread's, else the caller's most
        recently finished game."""
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            game = await queries.game_for_thread(self.bot.kernel, channel.id)
            if game is not None:
                return game.id
        mine = await queries.games_for_user(self.bot.kernel, interaction.user.id, active_only=False)
        done = review_ui.finished(mine)
        if not done:
            raise ManagerError("review_no_game")
        return done[0].id

    @app_commands.command(name="review", description=L("review.cmd"))
    @app_commands.describe(game=L("review.opt_game"))
    async def review(self, interaction: discord.Interaction[Any],
                     game: app_commands.Range[int, 1] | None = None) -> None:
        async def resolve() -> int:
            return await self._resolve(interaction)

        await review_ui.answer_review(interaction, game, resolve)

    @review.autocomplete("game")
    async def _review_game(self, interaction: discord.Interaction[Any],
                           current: str) -> list[app_commands.Choice[int]]:
        tr = Text(interaction.locale)
        mine = await queries.games_for_user(self.bot.kernel, interaction.user.id, active_only=False)
        return game_choices(((review_words.finished_label(tr, g), g.id)
                             for g in review_ui.finished(mine)), current)


async def setup(bot: Host) -> None:
    await bot.add_cog(Reviews(bot))
