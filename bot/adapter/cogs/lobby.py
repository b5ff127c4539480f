"""``/calico start`` (a table in a thread, with a lobby to join) and ``/calico solo``."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from pydantic import ValidationError

from bot import presenter as p
from bot.adapter.cogs import CalicoCog, L, choice
from bot.adapter.ui import messages, respond
from bot.adapter.ui.flows import user_ref
from bot.adapter.ui.outgoing import Outgoing
from bot.core.models import GameInfo, LobbyOptions, ManagerError, UserRef
from bot.i18n import Text
from engine.config import Restriction, Setup

if TYPE_CHECKING:
    from bot.adapter.client import CalicoBot

log = logging.getLogger("calico.lobby")

# What the bot needs in the channel to run a game there, in the order we report them.
NEEDED = ("view_channel", "send_messages", "attach_files", "create_public_threads",
          "send_messages_in_threads")
THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: the longest; posting revives it anyway

SETUP_CHOICES = [choice("choice.standard", "standard"), choice("choice.beginner", "beginner")]
VARIANT_CHOICES = [choice("choice.none", "none"), choice("choice.family", "family"),
                   choice("choice.lower_variance", "lower"),
                   choice("choice.family_lower", "family_lower")]
RESTRICTION_CHOICES = [choice("choice.none", "none")] + [
    choice(f"restriction.{r.value}", r.value) for r in Restriction]
# the level menu says what to expect of each (solo means measured by benchmarks/bench_ai.py)
LEVEL_CHOICES = [choice(f"choice.level_{lv}", lv) for lv in ("easy", "normal", "strong")]
HOURS_CHOICES = [choice("choice.hours", h, count=h) for h in (1, 6, 12, 24, 48, 72, 168)]
TIMEOUT_CHOICES = [choice(f"timeout.{a}", a) for a in ("autopilot", "remind", "computer")]
FIRST_CHOICES = [choice("choice.random", "random"), choice("choice.pet", "pet")]
SCENARIO_CHOICES = [choice("lobby.scenario", n, number=n) for n in range(1, 11)]


def missing_permissions(perms: discord.Permissions) -> list[str]:
    return [name for name in NEEDED if not getattr(perms, name)]


class Lobby(CalicoCog):
    # ------------------------------------------------------------------ checks

    async def _check_place(self, interaction: discord.Interaction[Any]) -> bool:
        """A server text channel where the bot may open threads and post pictures; otherwise
        say exactly what is missing."""
        tr = Text(interaction.locale)
        channel = interaction.channel
        if interaction.guild is None or not isinstance(channel, discord.TextChannel):
            await interaction.response.send_message(tr("start.text_channel_only"),
                                                    ephemeral=True)
            return False
        missing = missing_permissions(interaction.app_permissions)
        if missing:
            names = ", ".join(tr(f"perm.{m}") for m in missing)
            await interaction.response.send_message(tr("perm.missing", perms=names),
                                                    ephemeral=True)
            return False
        return True

    def _host(self, interaction: discord.Interaction[Any]) -> UserRef:
        """Whoever opens the table, with their language kept for the thread and their DMs."""
        host = user_ref(interaction)
        self.bot.locales.remember(host.id, host.locale)
        return host

    async def _open_game(self, interaction: discord.Interaction[Any], host: UserRef,
                         options: LobbyOptions, tr: Text) -> tuple[GameInfo, discord.Thread]:
        """A new lobby in this channel and its thread (the lobby ends if no thread opens)."""
        guild = interaction.guild
        assert guild is not None and interaction.channel is not None
        game = await self.bot.manager.create_game(host, guild.id, interaction.channel.id,
                                                  options)
        return game, await self._open_thread(interaction, game, tr)

    async def _open_thread(self, interaction: discord.Interaction[Any], game: GameInfo,
                           tr: Text) -> discord.Thread:
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        name = tr("lobby.thread_name", game=game.id, host=interaction.user.display_name)
        try:
            return await channel.create_thread(
                name=p.clip(name, 100), type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES)
        except discord.HTTPException:
            # No thread, no game: end the lobby so it does not linger in /calico games.
            with contextlib.suppress(ManagerError):
                await self.bot.manager.cancel(game.id, interaction.user.id)
            raise

    # ------------------------------------------------------------------ /calico start

    @app_commands.command(name="start", description=L("cmd.start"))
    @app_commands.describe(players=L("opt.players"), setup=L("opt.setup"),
                           variant=L("opt.variant"), restriction=L("opt.restriction"),
                           computers=L("opt.computers"), level=L("opt.level"),
                           turn_hours=L("opt.turn_hours"), timeout=L("opt.timeout"),
                           first=L("opt.first"))
    @app_commands.choices(setup=SETUP_CHOICES, variant=VARIANT_CHOICES,
                          restriction=RESTRICTION_CHOICES, level=LEVEL_CHOICES,
                          turn_hours=HOURS_CHOICES, timeout=TIMEOUT_CHOICES, first=FIRST_CHOICES)
    @app_commands.guild_only()
    async def start(
        self,
        interaction: discord.Interaction[Any],
        players: app_commands.Range[int, 1, 4] = 2,
        setup: str = "standard",
        variant: str = "none",
        restriction: str = "none",
        computers: app_commands.Range[int, 0, 3] = 0,
        level: str = "normal",
        turn_hours: int = 24,
        timeout: str = "autopilot",
        first: str = "random",
    ) -> None:
        if not await self._check_place(interaction):
            return
        tr = Text(interaction.locale)
        try:
            options = LobbyOptions(
                players=players, setup=Setup(setup), family=variant in ("family", "family_lower"),
                lower_variance=variant in ("lower", "family_lower"),
                restriction=None if restriction == "none" else Restriction(restriction),
                turn_hours=float(turn_hours), timeout_action=timeout, first=first,
                ai_level=level)
        except (ValidationError, ValueError) as e:
            reason = "; ".join(str(err.get("msg", "")) for err in e.errors()) if isinstance(
                e, ValidationError) else str(e)
            await interaction.response.send_message(tr("start.bad_options", reason=reason),
                                                    ephemeral=True)
            return
        if computers >= players:
            await interaction.response.send_message(tr("start.computers_too_many"),
                                                    ephemeral=True)
            return
        host = self._host(interaction)

        async def work() -> Outgoing:
            game, thread = await self._open_game(interaction, host, options, tr)
            lobby = await thread.send(**messages.lobby_message(tr, game).send_kwargs())
            game = await self.bot.manager.attach_thread(game.id, thread.id, lobby.id)
            for _ in range(computers):
                game = await self.bot.manager.add_computer(game.id, host.id, level)
            return Outgoing(tr("lobby.starter", host=p.mention(host.id)) + "\n"
                            + tr("lobby.opened", game=game.id,
                                 thread=p.channel_mention(thread.id)))

        await respond.reply(interaction, work(), ephemeral=False)

    # ------------------------------------------------------------------ /calico solo

    @app_commands.command(name="solo", description=L("cmd.solo"))
    @app_commands.describe(scenario=L("opt.scenario"), setup=L("opt.setup"),
                           restriction=L("opt.restriction"))
    @app_commands.choices(scenario=SCENARIO_CHOICES, setup=SETUP_CHOICES,
                          restriction=RESTRICTION_CHOICES)
    @app_commands.guild_only()
    async def solo(self, interaction: discord.Interaction[Any], scenario: int | None = None,
                   setup: str = "standard", restriction: str = "none") -> None:
        if not await self._check_place(interaction):
            return
        tr = Text(interaction.locale)
        options = LobbyOptions(
            players=1, setup=Setup(setup), scenario=scenario,
            restriction=None if restriction == "none" else Restriction(restriction))
        host = self._host(interaction)

        async def work() -> Outgoing:
            game, thread = await self._open_game(interaction, host, options, tr)
            await self.bot.manager.attach_thread(game.id, thread.id)
            game = await self.bot.manager.start(game.id, host.id)
            return Outgoing(tr("lobby.solo_opened", game=game.id,
                               thread=p.channel_mention(thread.id)))

        await respond.reply(interaction, work(), ephemeral=False)


async def setup(bot: CalicoBot) -> None:
    await bot.add_cog(Lobby(bot))
