"""The slash commands and gateway listeners, one cog per concern.

Every command lives under the one ``/calico`` group: each cog moves its commands into the bot's
shared group when it loads (:class:`CalicoCog`), so the cogs stay separate files while players
see a single command with subcommands. Helpers shared by the cogs (which game a command is
about, localised strings for command metadata) live here too.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapter.context import Host
from bot.adapter.ui.views import game_choices
from bot.core import queries
from bot.core.challenge import play as weekly
from bot.core.challenge.model import NOT_YET
from bot.core.models import ErrorCode, GameInfo, ManagerError
from bot.words import answers
from bot.words.catalogue import Text
from bot.words.catalogue import t as translate


def L(key: str, **extras: Any) -> app_commands.locale_str:  # noqa: N802 - reads like a marker
    """A command-metadata string: English text now, French/Polish through the translator."""
    return app_commands.locale_str(translate("en", key, **extras), key=key, **extras)


def choice(key: str, value: str | int, **extras: Any) -> app_commands.Choice[Any]:
    return app_commands.Choice(name=L(key, **extras), value=value)


class CalicoCog(commands.Cog):
    """A cog whose app commands become subcommands of ``/calico``."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        for command in self.__cog_app_commands__:
            self.bot.calico_group.add_command(command, override=True)
        # Emptied so that the cog does not also add them at the top level of the tree.
        self.__cog_app_commands__ = []


def visible(game: GameInfo, interaction: discord.Interaction[Any]) -> bool:
    """Whether a game may be looked at (or named) in this interaction (issue #20): from the
    server it belongs to, or by one of its own players from anywhere, DMs included. The one
    place this rule lives: every command that takes ``game:N`` goes through
    :func:`resolve_game`, and the game autocomplete lists only the user's own games."""
    if interaction.guild_id is not None and interaction.guild_id == game.guild_id:
        return True
    return any(s.user_id == interaction.user.id for s in game.seats)


async def resolve_game(bot: Host, interaction: discord.Interaction[Any],
                       game_id: int | None) -> GameInfo:
    """The game a command is about: the one named, the one whose thread this is, or the user's
    only active game. A named game must be :func:`visible` to the user here, else it is
    refused as if it did not exist (game ids are sequential)."""
    if game_id is not None:
        named = await queries.game(bot.kernel, game_id)
        if not visible(named, interaction):
            raise ManagerError(ErrorCode.UNKNOWN_GAME, f"game {game_id} not visible here")
        if named.challenge_week is not None and named.seat_of(interaction.user.id) is None \
                and not await weekly.may_show(bot.kernel, named):
            # Someone else's weekly challenge game: its tiles are this week's secret.
            raise ManagerError(NOT_YET)
        return named
    channel = interaction.channel
    if isinstance(channel, discord.Thread):
        game = await queries.game_for_thread(bot.kernel, channel.id)
        if game is not None:
            return game
    games = await queries.games_for_user(bot.kernel, interaction.user.id, active_only=True)
    if len(games) == 1:
        return games[0]
    raise ManagerError("pick_game" if games else "no_game_here")


async def game_autocomplete(bot: Host, interaction: discord.Interaction[Any],
                            current: str) -> list[app_commands.Choice[int]]:
    """The user's active games, newest first, filtered by what they typed."""
    tr = Text(interaction.locale)
    games = await queries.games_for_user(bot.kernel, interaction.user.id, active_only=True)

    def label(g: GameInfo) -> str:
        text = tr("games.pick", game=g.id, status=answers.status_name(tr, g.status))
        if g.current_user_id == interaction.user.id:
            text += tr("games.your_turn").replace("*", "")
        return text

    return game_choices(((label(g), g.id) for g in sorted(games, key=lambda g: g.id,
                                                          reverse=True)), current)
