"""``/calico tournament ...``: a server's Swiss or round-robin events (issue #23; the work is
:mod:`bot.core.tournament`'s, run by the sweep).

Who may do what (issue #28): ``create`` is for people who may manage the server, or who hold
the tournament role chosen in ``/calico admin``; ``close``, ``remove``, ``pause`` and
``cancel`` are the tournament's organiser's and the server managers' (other holders of the
tournament role run their own tournaments, not others'); ``list`` and ``standings`` are for
everyone (the standings answer is private: the reader's own line and games); ``leave``
withdraws. An organiser step without ``tournament:`` acts on the caller's own tournament under
way (a manager's: the server's, when there is one), and asks which when several could be
meant. The organiser's steps are counted (``organise`` in :mod:`bot.adapter.policy`), a server
has at most :data:`~bot.core.tournament.model.MAX_OPEN_PER_SERVER` open, and each option out
of its range is refused naming the option and the range. The sign-up message goes to the
server's games channel (``/calico admin``), else to the channel where the command was used; a
channel the bot cannot post in is said at once, nothing created. Every refusal is a short
private answer and changes nothing.
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
OPEN = (tour.SIGNUP, tour.RUNNING, tour.PAUSED)
POSTED_WAIT = 5.0  # seconds ``create`` waits for its sign-up message before answering
# Each numeric option of ``create`` and its range (Discord's client keeps to them; the API
# does not, so they are checked here too, the option named in the refusal).
RANGES: dict[str, tuple[int, int]] = {
    "rounds": (1, tour.MAX_ROUNDS), "table_size": (tour.MIN_TABLE, tour.MAX_TABLE),
    "signup_hours": (1, tour.MAX_SIGNUP_HOURS), "start_hours": (1, tour.MAX_START_HOURS),
    "round_hours": (1, tour.MAX_ROUND_HOURS)}


def may_create(interaction: discord.Interaction[Any], role_id: object) -> bool:
    """Server managers, and holders of the tournament role."""
    if hosting.may_manage(interaction):
        return True
    return isinstance(role_id, int) and hosting.has_role(interaction.user, role_id)


def out_of_range(values: dict[str, int | None]) -> tour.TournamentError | None:
    """The refusal of the first option out of its range (None: all in range)."""
    for option, value in values.items():
        low, high = RANGES[option]
        if option == "start_hours":
            low = max(low, values.get("signup_hours") or low)
        if value is not None and not low <= value <= high:
            return tour.TournamentError(tour.OPTION, f"{option} out of range", option=option,
                                        low=low, high=high)
    return None


class Tournament(CalicoCog):
    group = app_commands.Group(name="tournament", description=L("cmd.tournament"),
                               guild_only=True)

    async def _may_create(self, interaction: discord.Interaction[Any]) -> bool:
        server = await servers.settings(self.bot.kernel, interaction.guild_id)
        return may_create(interaction, getattr(server, ROLE_KEY, None))

    async def _named(self, interaction: discord.Interaction[Any],
                     number: int) -> tour.TournamentInfo:
        t = await records.get(self.bot.kernel, number)
        if t.guild_id != (interaction.guild_id or 0):
            raise ManagerError(tour.UNKNOWN, "another server's tournament")
        return t

    async def _open(self, interaction: discord.Interaction[Any]) -> list[tour.TournamentInfo]:
        found = await records.listed(self.bot.kernel, interaction.guild_id or 0, limit=50)
        return [t for t in found if t.status in OPEN]

    async def _organised(self, tr: Text, interaction: discord.Interaction[Any],
                         number: int | None) -> tour.TournamentInfo:
        """The tournament an organiser step acts on: the one named, else the caller's own
        under way, else (a server manager) the server's; several: which one?"""
        if number is not None:
            return await self._named(interaction, number)
        going = await self._open(interaction)
        mine = [t for t in going if t.organiser_id == interaction.user.id]
        return one_of(tr, mine or (going if hosting.may_manage(interaction) else []))

    async def _entered(self, tr: Text, interaction: discord.Interaction[Any],
                       number: int | None) -> tour.TournamentInfo:
        """The tournament a player's ``leave`` acts on: the one named, else theirs."""
        if number is not None:
            return await self._named(interaction, number)
        me = interaction.user.id
        going = [t for t in await self._open(interaction)
                 if any(e.user_id == me for e in t.active)]
        if not going:
            raise ManagerError(tour.NOT_IN, "in no tournament here")
        return one_of(tr, going)

    async def _shown(self, interaction: discord.Interaction[Any],
                     number: int | None) -> tour.TournamentInfo:
        """The tournament ``standings`` shows: the one named, else the reader's own (newest),
        else the server's newest under way, else its newest."""
        if number is not None:
            return await self._named(interaction, number)
        found = await records.listed(self.bot.kernel, interaction.guild_id or 0)
        me = interaction.user.id
        going = [t for t in found if t.status in OPEN]
        mine = [t for t in found if any(e.user_id == me for e in t.entrants)]
        if not (mine or going or found):
            raise ManagerError(tour.UNKNOWN, "no tournament here")
        return (mine or going or found)[0]

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
        rounds: app_commands.Range[int, 1, 20] | None = None,
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
        if guild is None or not await self._may_create(interaction):
            await respond.refuse_text(interaction, tr("tournament.create_refused"))
            return
        if format not in tour.FORMATS:
            await respond.refuse_text(interaction, tr("start.bad_option", option="format"))
            return
        bad = out_of_range({"rounds": rounds, "table_size": table_size,
                            "signup_hours": signup_hours, "start_hours": start_hours,
                            "round_hours": round_hours})
        if bad is None and not 1 <= len(" ".join(name.split())) <= tour.MAX_NAME:
            bad = tour.TournamentError(tour.OPTION, "name", option="name", low=1,
                                       high=tour.MAX_NAME)
        if bad is not None:
            await respond.refuse(interaction, bad)
            return
        server = await servers.settings(self.bot.kernel, guild.id)
        channel_id = server.games_channel_id or interaction.channel_id
        if channel_id is None or (server.games_channel_id is None and not isinstance(
                interaction.channel, discord.TextChannel)):
            await respond.refuse_text(interaction, tr("start.text_channel_only"))
            return
        channel = guild.get_channel(channel_id)
        if not isinstance(channel, discord.TextChannel) or hosting.missing_permissions(
                channel.permissions_for(guild.me)):
            # The sign-up could not be posted there (deleted, or the bot may not): said now.
            await respond.refuse_text(interaction, tr(
                "tournament.create_unpostable", channel=markup.channel_mention(channel_id)))
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
        # A round-robin plays as many rounds as everyone needs to meet (``rounds``: at most).
        count = rounds if rounds is not None else (
            tour.MAX_ROUNDS if format == tour.ROUND_ROBIN else 3)
        spec = tour.Spec(name, format, count, table_size, options, signup_ends, starts,
                         float(round_hours))

        async def work() -> Outgoing:
            t = await signup.create(self.bot.kernel, organiser, guild.id, channel_id, spec)
            t = await records.posted(self.bot.kernel, t.id, POSTED_WAIT)
            if t.status == tour.PAUSED:  # the sign-up was refused: its organiser is told
                return Outgoing(tr("tournament.create_unpostable",
                                   channel=markup.channel_mention(channel_id)))
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
            t = await self._shown(interaction, tournament)
            return await tournament_ui.standings_message(tr, self.bot.kernel, t,
                                                         viewer=interaction.user.id)

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="leave", description=L("cmd.tournament.leave"))
    @app_commands.describe(tournament=L("opt.tournament"))
    async def leave(self, interaction: discord.Interaction[Any],
                    tournament: int | None = None) -> None:
        tr = Text(interaction.locale)

        async def work() -> Outgoing:
            t = await self._entered(tr, interaction, tournament)
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
        manager = hosting.may_manage(interaction)

        async def work() -> Outgoing:
            t = await self._organised(tr, interaction, tournament)
            t = await signup.close_signup(self.bot.kernel, t.id, interaction.user.id, manager)
            return Outgoing(tr("tournament.closed_done", name=markup.name(t.name),
                               count=len(t.entrants)))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="remove", description=L("cmd.tournament.remove"))
    @app_commands.describe(user=L("opt.entrant"), tournament=L("opt.tournament"))
    async def remove(self, interaction: discord.Interaction[Any], user: discord.User,
                     tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        manager = hosting.may_manage(interaction)

        async def work() -> Outgoing:
            t = await self._organised(tr, interaction, tournament)
            t = await signup.remove(self.bot.kernel, t.id, interaction.user.id, user.id, manager)
            return Outgoing(tr("tournament.removed", user=markup.mention(user.id),
                               name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="pause", description=L("cmd.tournament.pause"))
    @app_commands.describe(paused=L("opt.paused"), tournament=L("opt.tournament"))
    async def pause(self, interaction: discord.Interaction[Any], paused: bool = True,
                    tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        manager = hosting.may_manage(interaction)

        async def work() -> Outgoing:
            t = await self._organised(tr, interaction, tournament)
            t = await signup.pause(self.bot.kernel, t.id, interaction.user.id, paused, manager)
            key = "tournament.paused_done" if paused else "tournament.resumed_done"
            return Outgoing(tr(key, name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)

    @group.command(name="cancel", description=L("cmd.tournament.cancel"))
    @app_commands.describe(tournament=L("opt.tournament"))
    async def cancel(self, interaction: discord.Interaction[Any],
                     tournament: int | None = None) -> None:
        tr = Text(interaction.locale)
        manager = hosting.may_manage(interaction)

        async def work() -> Outgoing:
            t = await self._organised(tr, interaction, tournament)
            t = await signup.cancel(self.bot.kernel, t.id, interaction.user.id, manager)
            return Outgoing(tr("tournament.cancelled_done", name=markup.name(t.name)))

        await respond.reply(interaction, work(), ephemeral=True)


def one_of(tr: Text, found: list[tour.TournamentInfo]) -> tour.TournamentInfo:
    """The one tournament meant, or a refusal: none (nothing of theirs), or which one?"""
    if not found:
        raise tour.TournamentError(tour.NONE_OF_YOURS, "no tournament of theirs here")
    if len(found) > 1:
        raise tour.TournamentError(tour.WHICH, "several", choices=words.choices_text(tr, found))
    return found[0]


async def setup(bot: Host) -> None:
    await bot.add_cog(Tournament(bot))
