"""Looking around: ``/calico board``, ``status``, ``games``, ``rules``, ``stats``,
``leaderboard``. Everything here reads; nothing changes a game."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter import options
from bot.adapter.cogs import CalicoCog, L, choice, game_autocomplete, resolve_game
from bot.adapter.context import Host
from bot.adapter.options import BadOptionError
from bot.adapter.ui import images, messages, respond, weblinks
from bot.adapter.ui import progress as progress_ui
from bot.adapter.ui import review as review_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import queries
from bot.core.models import ManagerError
from bot.web import links as web_links
from bot.words import answers, describe, markup, terms
from bot.words.catalogue import Text

TOPIC_CHOICES = [choice(f"choice.topic.{t}", t) for t in answers.RULE_TOPICS]
SCOPE_CHOICES = [choice("choice.scope_server", "server"),
                 choice("choice.scope_everywhere", "everywhere")]


class Info(CalicoCog):
    @app_commands.command(name="board", description=L("cmd.board"))
    @app_commands.describe(player=L("opt.player"), game=L("opt.game"))
    async def board(self, interaction: discord.Interaction[Any], player: str | None = None,
                    game: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            info = await resolve_game(self.bot, interaction, game)
            seat = _seat_from(info.seats, player, interaction.user.id)
            if seat is None and player is not None:
                raise ManagerError("no_such_player")
            if seat is None or info.state is None:
                raise ManagerError("not_a_player")
            return await messages.board_message(tr, info, seat)

        await respond.reply(interaction, work(), ephemeral=True)

    @board.autocomplete("player")
    async def _board_player(self, interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[str]]:
        try:
            game = options.game_number(interaction.namespace.game)
            info = await resolve_game(self.bot, interaction, game)
        except (ManagerError, BadOptionError):
            return []
        tr = Text(interaction.locale)
        return [app_commands.Choice(
                    name=markup.clip(f"{s.seat + 1}. {terms.seat_name(tr, s)}", 100),
                    value=str(s.seat + 1))
                for s in info.seats if current.lower() in terms.seat_name(tr, s).lower()][:25]

    @board.autocomplete("game")
    async def _board_game(self, interaction: discord.Interaction[Any],
                          current: str) -> list[app_commands.Choice[int]]:
        return await game_autocomplete(self.bot, interaction, current)

    @app_commands.command(name="status", description=L("cmd.status"))
    @app_commands.describe(game=L("opt.game"))
    async def status(self, interaction: discord.Interaction[Any],
                     game: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            info = await resolve_game(self.bot, interaction, game)
            return await messages.status_message(tr, info)

        await respond.reply(interaction, work(), ephemeral=True)

    @status.autocomplete("game")
    async def _status_game(self, interaction: discord.Interaction[Any],
                           current: str) -> list[app_commands.Choice[int]]:
        return await game_autocomplete(self.bot, interaction, current)

    @app_commands.command(name="games", description=L("cmd.games"))
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            mine = await queries.games_for_user(self.bot.kernel, interaction.user.id,
                                                active_only=True)
            return Outgoing(answers.games_text(tr, mine, interaction.user.id))

        await respond.reply(interaction, work(), ephemeral=True)

    @app_commands.command(name="rules", description=L("cmd.rules"))
    @app_commands.describe(topic=L("opt.topic"))
    @app_commands.choices(topic=TOPIC_CHOICES)
    async def rules(self, interaction: discord.Interaction[Any],
                    topic: str = "overview") -> None:
        tr = Text(interaction.locale)
        if topic not in images.RULES_TOPICS:
            # Text only: answered at once, no storage touched.
            await interaction.response.send_message(answers.rules_text(tr, topic), ephemeral=True)
            return

        async def work() -> Outgoing:
            # Cats, goals, buttons: with their picture (drawn in a worker thread, once per
            # language; the interaction is deferred first, as the first drawing takes a while).
            png = await images.rules_image(tr, topic)
            name = images.rules_png_name(topic)
            return Outgoing(answers.rules_text(tr, topic), [(name, png)]).described(
                name, describe.rules(tr, topic))

        await respond.reply(interaction, work(), ephemeral=True, defer_first=True)

    @app_commands.command(name="stats", description=L("cmd.stats"))
    @app_commands.describe(user=L("opt.user"))
    async def stats(self, interaction: discord.Interaction[Any],
                    user: discord.User | None = None) -> None:
        tr = Text(interaction.locale)
        target = user or interaction.user

        async def work() -> Outgoing:
            guild_id = interaction.guild.id if interaction.guild is not None else None
            result = await queries.user_stats(self.bot.kernel, target.id, guild_id,
                                                      viewer_id=interaction.user.id)
            text = answers.stats_text(tr, target.display_name, result)
            text += await progress_ui.stats_lines(tr, self.bot.kernel, target.id, guild_id)
            reviewed = await review_ui.stats_line(tr, self.bot.kernel, target.id)
            if reviewed:
                text += "\n" + reviewed
            return await weblinks.add_link(Outgoing(markup.clip(text, 2000)), tr,
                                           self.bot.kernel, guild_id, web_links.PLAYER,
                                           guild_id or 0, target.id)

        await respond.reply(interaction, work(), ephemeral=True)

    @app_commands.command(name="leaderboard", description=L("cmd.leaderboard"))
    @app_commands.describe(scope=L("opt.scope"))
    @app_commands.choices(scope=SCOPE_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction[Any],
                          scope: str = "server") -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            assert interaction.guild is not None
            # By rating (OpenSkill ordinal), with wins and average: see bot.core.progress.
            out = await progress_ui.leaderboard_message(tr, self.bot.kernel,
                                                        interaction.guild.id,
                                                        everywhere=scope == "everywhere")
            # The server's page (its leaderboard, tournaments, games) when it has one.
            return await weblinks.add_link(out, tr, self.bot.kernel, interaction.guild.id,
                                           web_links.SERVER, interaction.guild.id)

        await respond.reply(interaction, work(), ephemeral=False)


def _seat_from(seats: Any, player: str | None, user_id: int) -> int | None:
    """A seat from the ``player`` option (a seat number, or a name), else the caller's own."""
    if player is None:
        for s in seats:
            if s.user_id == user_id:
                return int(s.seat)
        return 0 if seats else None
    text = player.strip()
    number = options.whole_number(text)
    if number is not None and 1 <= number <= len(seats):
        return number - 1
    for s in seats:
        if s.name.lower() == text.lower() or (s.user_id and f"<@{s.user_id}>" == text):
            return int(s.seat)
    return None


async def setup(bot: Host) -> None:
    await bot.add_cog(Info(bot))
