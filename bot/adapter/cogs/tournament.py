"""``/calico tournament ...``: a server's Swiss or round-robin events (issue #23; the work is
:mod:`bot.core.tournament`'s, run by the sweep).

``create`` is for people who may manage the server, or who hold the tournament role chosen in
``/calico admin``; the sign-up message goes to the server's games channel (``/calico admin``),
else to the channel where the command was used. ``list`` and ``standings`` are for everyone
(the standings answer is private: it links the reader's own games); ``leave`` withdraws;
``close``, ``remove``, ``pause`` and ``cancel`` are the organiser's (and server managers').
Commands that name no tournament act on the server's latest one still under way. Every
refusal is a short private answer and changes nothing.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapter import hosting
from bot.adapter.cogs import CalicoCog, L, choice
from bot.adapter.cogs.lobby import (
    HINT_CHOICES,
    HOURS_CHOICES,
    LEVEL_CHOICES,
    RESTRICTION_CHOICES,
    SETUP_CHOICES,
    TIMEOUT_CHOICES,
    VARIANT_CHOICES,
)
from bot.adapter.context import Host, user_ref
from bot.adapter.options import BadOptionError, start_options
from bot.adapter.ui import respond
from bot.adapter.ui import tournament as tournament_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import servers
from bot.core.clock import to_ms
from bot.core.models import ManagerError
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.words import markup
from bot.words import tournament as words
from bot.words.catalogue import Text

ROLE_KEY = "tournament_role_id"  # guild_settings JSON: who may create tournaments
HOUR_MS = 3_600_000
FORMAT_CHOICES = [choice("choice.swiss", tour.SWISS), choice("choice.round_robin",
                                                               tour.ROUND_ROBIN)]


def privileged(interaction: discord.Interaction[Any], role_id: object) -> bool:
    """Server managers, and holders of the tournament role."""
    if hosting.may_manage(interaction):
        return True
    return isinstance(role_id, int) and hosting.has_role(interaction.user, role_id)


class Tournament(CalicoCog):
    group = app_commands.Group(name="tournament", description=L("cmd.tournament"),
                               guild_only=True)

    async def _privileged(self, interaction: discord.Interaction[Any]) -> bool:
        server = await servers.settings(self.bot.kernel, interaction.guild_id)
        return privileged(interaction, getattr(server, ROLE_KEY, None))

    async def _resolve(self, interaction: discord.Interaction[Any],
                       number: int | None) -> tour.TournamentInfo:
        """The tournament named (of this server only), or the server's latest under way."""
        guild = interaction.guild_id or 0
        if number is not None:
            t = await records.get(self.bot.kernel, number)
            if t.guild_id != guild:
                raise ManagerError(tour.UNKNOWN, "another server's tournament")
            return t
        found = await records.listed(self.bot.kernel, guild)
        going = [t for t in found if t.status in (tour.SIGNUP, tour.RUNNING, tour.PAUSED)]
        if not (going or found):
            raise ManagerError(tour.UNKNOWN, "no tournament here")
        return (going or found)[0]

    # ------------------------------------------------------------------ create

    @group.command(name="create", description=L("cmd.tournament.create"))
    @app_commands.describe(name=L("opt.tournament_name"), format=L("opt.tournament_format"),
                           rounds=L("opt.tournament_rounds"), table_size=L("opt.table_size"),
                           signup_hours=L("opt.signup_hours"), start_hours=L("opt.start_hours"),
                           round_hours=L("opt.round_hours"), setup=L("opt.setup"),
                           variant=L("opt.variant"), restriction=L("opt.restriction"),
                           turn_hours=L("opt.turn_hours"), timeout=L("opt.timeout"),
                           level=L("opt.level"), hints=L("hint.option"))
    @app_commands.choices(format=FORMAT_CHOICES, setup=SETUP_CHOICES, variant=VARIANT_CHOICES,
                          restriction=RESTRICTION_CHOICES, turn_hours=HOURS_CHOICES,
                          timeout=TIMEOUT_CHOICES, level=LEVEL_CHOICES, hints=HINT_CHOICES)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        name: app_commands.Range[str, 1, 80],
        format: str = tour.SWISS,
        rounds: app_commands.Range[int, 1, 20] = 3,
        table_size: app_commands.Range[int, 2, 4] = 2,
        signup_hours: app_commands.Range[int, 1, 24 * 30] = 48,
        start_hours: app_commands.Range[int, 1, 24 * 60] | None = None,
        round_hours: app_commands.Range[int, 1, 24 * 30] = 72,
        setup: str = "standard",
        variant: str = "none",
        restriction: str = "none",
        turn_hours: int = 24,
        timeout: str = "autopilot",
        level: str = "normal",
        hints: str = "off",
    ) -> None:
        tr = Text(interaction.locale)
        guild = interaction.guild
        if guild is None or not await self._privileged(interaction):
            await respond.refuse_text(interaction, tr("tournament.create_refused"))
            return
        server = await servers.settings(self.bot.kernel, guild.id)
        channel_id = server.games_channel_id or interaction.channel_id
        if channel_id is None or (server.games_channel_id is None and not isinstance(
                interaction.channel, discord.TextChannel)):
            await respond.refuse_text(interaction, tr("start.text_channel_only"))
            return
        if format not in tour.FORMATS:
            await respond.refuse_text(interaction, tr("start.bad_option", option="format"))
            return
        try:
            options = start_options(players=table_size, setup=setup, variant=variant,
                                    restriction=restriction, computers=0, level=level,
                                    turn_hours=turn_hours, timeout=timeout, first="random",
                                    hints=hints)
        except BadOptionError as e:
            await respond.refuse_text(interaction, tr("start.bad_options", reason=e.reason(tr)))
            return
        organiser = user_ref(interaction)
        self.bot.locales.remember(organiser.id, organiser.locale)
        now = to_ms(self.bot.now())
        signup_ends = now + signup_hours * HOUR_MS
        starts = now + (start_hours if start_hours is not None else signup_hours) * HOUR_MS
        spec = tour.Spec(name, format, rounds, table_size, options, signup_ends, starts,
                         float(round_hours))

        async def work() -> Outgoing:
            t = await signup.create(self.bot.kernel, organiser, guild.id, channel_id, spec)
            return Outgoing(tr("tournament.created", id=t.id, name=markup.name(t.name),
                               channel=markup.channel_mention(channel_id)))

        await respond.reply(interaction, work(), ephemeral=True)

    # ------------------------------------------------------------------ everyone

    @group.command(name="list", description=L("cmd.tournament.list"))
    async def list_(self, interaction: discord.Interaction[Any]) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            found = await records.listed(self.bot.kernel, interaction.guild_id or 0)
            if not found:
                return Outgoing(tr("tournament.list.none"))
            lines = [tr("tournament.list.title"), *(words.list_line(tr, t) for t in found)]
            return Outgoing(markup.clip("\n".join(lines), 2000))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="standings", description=L("cmd.tournament.standings"))
    @app_commands.describe(tournament=L("opt.tournament"))
    async def standings(self, interaction: discord.Interaction[Any],
                        tournament: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            t = await self._resolve(interaction, tournament)
            return await tournament_ui.standings_message(tr, self.bot.kernel, t,
                                                         viewer=interaction.user.id)

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="leave", description=L("cmd.tournament.leave"))
    @app_commands.describe(tournament=L("opt.tournament"))
    async def leave(self, interaction: discord.Interaction[Any],
                    tournament: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            t = await self._resolve(interaction, tournament)
            was_signup = t.status == tour.SIGNUP
            t = await signup.leave(self.bot.kernel, t.id, interaction.user.id)
            key = "tournament.left" if was_signup else "tournament.withdrawn_done"
            return Outgoing(tr(key, name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)

    # ------------------------------------------------------------------ the organiser

    @group.command(name="close", description=L("cmd.tournament.close"))
    @app_commands.describe(tournament=L("opt.tournament"))
    async def close(self, interaction: discord.Interaction[Any],
                    tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        allowed = await self._privileged(interaction)

        async def work() -> Outgoing:
            t = await self._resolve(interaction, tournament)
            t = await signup.close_signup(self.bot.kernel, t.id, interaction.user.id, allowed)
            return Outgoing(tr("tournament.closed_done", name=markup.name(t.name),
                               count=len(t.entrants)))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="remove", description=L("cmd.tournament.remove"))
    @app_commands.describe(user=L("opt.entrant"), tournament=L("opt.tournament"))
    async def remove(self, interaction: discord.Interaction[Any], user: discord.User,
                     tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        allowed = await self._privileged(interaction)

        async def work() -> Outgoing:
            t = await self._resolve(interaction, tournament)
            t = await signup.remove(self.bot.kernel, t.id, interaction.user.id, user.id, allowed)
            return Outgoing(tr("tournament.removed", user=markup.mention(user.id),
                               name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="pause", description=L("cmd.tournament.pause"))
    @app_commands.describe(paused=L("opt.paused"), tournament=L("opt.tournament"))
    async def pause(self, interaction: discord.Interaction[Any], paused: bool = True,
                    tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        allowed = await self._privileged(interaction)

        async def work() -> Outgoing:
            t = await self._resolve(interaction, tournament)
            t = await signup.pause(self.bot.kernel, t.id, interaction.user.id, paused, allowed)
            key = "tournament.paused_done" if paused else "tournament.resumed_done"
            return Outgoing(tr(key, name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="cancel", description=L("cmd.tournament.cancel"))
    @app_commands.describe(tournament=L("opt.tournament"))
    async def cancel(self, interaction: discord.Interaction[Any],
                     tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        allowed = await self._privileged(interaction)

        async def work() -> Outgoing:
            t = await self._resolve(interaction, tournament)
            t = await signup.cancel(self.bot.kernel, t.id, interaction.user.id, allowed)
            return Outgoing(tr("tournament.cancelled_done", name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)


async def setup(bot: Host) -> None:
    await bot.add_cog(Tournament(bot))
