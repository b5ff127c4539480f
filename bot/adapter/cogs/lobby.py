"""``/calico start`` (a table in a thread, with a lobby to join) and ``/calico solo``."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Literal

import discord
from discord import app_commands

from bot.adapter import hosting
from bot.adapter.cogs import CalicoCog, L, choice
from bot.adapter.context import Host, user_ref
from bot.adapter.options import CATS, BadOptionError, solo_options, start_options
from bot.adapter.ui import lobby as lobby_ui
from bot.adapter.ui import progress as progress_ui
from bot.adapter.ui import respond
from bot.adapter.ui.outgoing import Outgoing
from bot.core import lobby, servers
from bot.core.faults import crash_point
from bot.core.models import GameInfo, ManagerError, UserRef
from bot.words import markup
from bot.words.catalogue import Text
from engine.config import Restriction

log = logging.getLogger("calico.lobby")

THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: the longest; posting revives it anyway
# The answer to /calico start and solo names the game's thread as soon as the outbox opened
# it; past this, it says the table is on its way (the lobby follows in the thread).
THREAD_WAIT = 10.0
SOON = 5.0  # a thread expected within this many seconds is "being set up", not queued
TOKEN_MARGIN = 14 * 60.0  # an interaction's answer can be edited for 15 minutes

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
HINT_CHOICES = [choice("choice.off", "off"), choice("choice.on", "on")]
SCENARIO_CHOICES = [choice("lobby.scenario", n, number=n) for n in range(1, 11)]
# The rulebook lets players choose the three cats (standard setup): three options, one cat each.
CAT_CHOICES = [choice(f"choice.cat.{c}", c) for c in CATS]


@dataclass
class Queued:
    """A game whose thread waits for Discord's thread budget (set by ``_opened``)."""

    game_id: int | None = None
    eta: float = 0.0


class Lobby(CalicoCog):
    def __init__(self, bot: Host) -> None:
        super().__init__(bot)
        self._telling: set[asyncio.Task[None]] = set()  # answers to edit once threads open

    # ------------------------------------------------------------------ checks

    async def _check_place(self, interaction: discord.Interaction[Any]) -> bool:
        """A server text channel where the bot may open threads and post pictures, and where
        this person may post and open threads themselves; otherwise say exactly what is
        missing, privately (a refused start uses up none of the start allowance)."""
        tr = Text(interaction.locale)
        channel = interaction.channel
        if interaction.guild is None or not isinstance(channel, discord.TextChannel):
            await respond.refuse_text(interaction, tr("start.text_channel_only"))
            return False
        refusal = hosting.permission_refusal(tr, interaction)
        if refusal is None:
            # The server's own rules (/calico admin): its games channel, who may start games.
            server = await servers.settings(self.bot.kernel, interaction.guild.id)
            refusal = hosting.start_refusal(tr, interaction, server)
        if refusal is not None:
            await respond.refuse_text(interaction, refusal)
            return False
        return True

    async def _within_limits(self, interaction: discord.Interaction[Any], *,
                             hosting: bool) -> bool:
        """Checked before the public answer begins, so that a person at their limit of
        lobbies or games hears it privately (the kernel checks again when creating)."""
        try:
            await lobby.check_limits(self.bot.kernel, interaction.user.id, hosting=hosting)
        except ManagerError as e:
            await respond.refuse(interaction, e)
            return False
        return True

    def _host(self, interaction: discord.Interaction[Any]) -> UserRef:
        """Whoever opens the table, with their language kept for the thread and their DMs."""
        host = user_ref(interaction)
        self.bot.locales.remember(host.id, host.locale)
        return host

    def _opened(self, tr: Text, game: GameInfo, key: str, host: UserRef | None,
                queued: Queued | None = None) -> Outgoing:
        if game.thread_id is None and not game.status.active:
            return Outgoing(tr("setup.failed", game=game.id, reason=""))
        if game.thread_id is None:
            eta = self.bot.pacer.thread_eta(game.id)
            if eta <= SOON or queued is None:
                return Outgoing(tr("setup.waiting", game=game.id))
            # Discord's thread budget is spent: say when, honestly, and edit the answer once
            # the thread is there (see _tell_when_open).
            queued.game_id, queued.eta = game.id, eta
            when = f"<t:{math.ceil(time.time() + eta)}:R>"
            queued_key = "setup.queued_solo" if key == "lobby.solo_opened" else "setup.queued"
            return Outgoing(tr(queued_key, game=game.id, when=when))
        text = tr(key, game=game.id, thread=markup.channel_mention(game.thread_id))
        if host is not None:
            text = tr("lobby.starter", host=markup.mention(host.id)) + "\n" + text
        return Outgoing(text)

    async def _wait_for_thread(self, game_id: int) -> GameInfo:
        """The game once its thread is open, or after :data:`THREAD_WAIT`; not waited for at
        all when Discord's thread budget will not allow it that soon."""
        # In line from now on, in the order people asked (before the outbox tried to open it),
        # so that each is told its own turn (an open thread takes it out of line).
        self.bot.pacer.thread_put_off(game_id)
        soon = self.bot.pacer.thread_eta(game_id) <= THREAD_WAIT
        return await lobby_ui.wait_for_thread(self.bot.kernel, game_id,
                                              THREAD_WAIT if soon else 0.0)

    def _tell_when_open(self, interaction: discord.Interaction[Any], queued: Queued,
                        tr: Text, key: str, host: UserRef | None, suffix: str = "") -> None:
        """After a "your table opens <when>" answer: edit it to point to the thread once it is
        open (within the interaction's 15 minutes)."""
        if queued.game_id is None:
            return

        async def edit() -> None:
            assert queued.game_id is not None
            wait = min(queued.eta + THREAD_WAIT * 6, TOKEN_MARGIN)
            game = await lobby_ui.wait_for_thread(self.bot.kernel, queued.game_id, wait)
            if game.thread_id is None:
                return  # still waiting: the thread itself will show in the channel
            text = self._opened(tr, game, key, host).content + suffix
            try:
                await interaction.edit_original_response(content=text)
            except discord.HTTPException:
                log.info("could not point the answer to game %s's thread", game.id)

        task = asyncio.create_task(edit(), name=f"calico-tell-{queued.game_id}")
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def cog_unload(self) -> None:
        for task in list(self._telling):
            task.cancel()

    # ------------------------------------------------------------------ /calico start

    @app_commands.command(name="start", description=L("cmd.start"))
    @app_commands.describe(players=L("opt.players"), setup=L("opt.setup"),
                           variant=L("opt.variant"), restriction=L("opt.restriction"),
                           computers=L("opt.computers"), level=L("opt.level"),
                           turn_hours=L("opt.turn_hours"), timeout=L("opt.timeout"),
                           first=L("opt.first"), scenario=L("opt.scenario_any"),
                           hints=L("hint.option"), cat1=L("opt.cat"), cat2=L("opt.cat"),
                           cat3=L("opt.cat"))
    @app_commands.choices(setup=SETUP_CHOICES, variant=VARIANT_CHOICES,
                          restriction=RESTRICTION_CHOICES, level=LEVEL_CHOICES,
                          turn_hours=HOURS_CHOICES, timeout=TIMEOUT_CHOICES, first=FIRST_CHOICES,
                          scenario=SCENARIO_CHOICES, hints=HINT_CHOICES, cat1=CAT_CHOICES,
                          cat2=CAT_CHOICES, cat3=CAT_CHOICES)
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
        turn_hours: int | None = None,
        timeout: str | None = None,
        first: str = "random",
        scenario: int | None = None,
        hints: str = "off",
        cat1: str | None = None,
        cat2: str | None = None,
        cat3: str | None = None,
    ) -> None:
        if not await self._check_place(interaction):
            return
        tr = Text(interaction.locale)
        # Not given: the server's defaults (/calico admin), else a day and the autopilot.
        server = await servers.settings(self.bot.kernel, interaction.guild_id)
        turn_hours, timeout = hosting.start_defaults(server, turn_hours, timeout)
        try:
            options = start_options(players=players, setup=setup, variant=variant,
                                    restriction=restriction, computers=computers, level=level,
                                    turn_hours=turn_hours, timeout=timeout, first=first,
                                    scenario=scenario, hints=hints, cats=(cat1, cat2, cat3))
        except BadOptionError as e:
            await respond.refuse_text(interaction, tr("start.bad_options", reason=e.reason(tr)))
            return
        if not await self._within_limits(interaction, hosting=True):
            return
        host = self._host(interaction)
        guild, channel = interaction.guild, interaction.channel
        assert guild is not None and channel is not None

        queued = Queued()

        async def work() -> Outgoing:
            # One transaction: the lobby, its computer seats, and the notices that open its
            # thread and post the lobby message there (a crash anywhere leaves a table the
            # outbox finishes setting up).
            game = await lobby.create_game(self.bot.kernel, host, guild.id, channel.id, options,
                                           computers=[level] * computers, open_thread=True)
            crash_point("start.created")
            game = await self._wait_for_thread(game.id)
            return self._opened(tr, game, "lobby.opened", host, queued)

        await respond.reply(interaction, work(), ephemeral=False)
        self._tell_when_open(interaction, queued, tr, "lobby.opened", host)

    # ------------------------------------------------------------------ /calico solo

    @app_commands.command(name="solo", description=L("cmd.solo"))
    @app_commands.describe(scenario=L("opt.scenario"), setup=L("opt.setup"),
                           restriction=L("opt.restriction"), cat1=L("opt.cat"),
                           cat2=L("opt.cat"), cat3=L("opt.cat"))
    @app_commands.choices(scenario=SCENARIO_CHOICES, setup=SETUP_CHOICES,
                          restriction=RESTRICTION_CHOICES, cat1=CAT_CHOICES, cat2=CAT_CHOICES,
                          cat3=CAT_CHOICES)
    @app_commands.guild_only()
    async def solo(self, interaction: discord.Interaction[Any], scenario: int | None = None,
                   setup: str = "standard", restriction: str = "none",
                   cat1: str | None = None, cat2: str | None = None,
                   cat3: str | None = None) -> None:
        if not await self._check_place(interaction):
            return
        tr = Text(interaction.locale)
        try:
            options = solo_options(scenario=scenario, setup=setup, restriction=restriction,
                                   cats=(cat1, cat2, cat3))
        except BadOptionError as e:
            await respond.refuse_text(interaction, tr("start.bad_options", reason=e.reason(tr)))
            return
        if not await self._within_limits(interaction, hosting=False):
            return
        host = self._host(interaction)
        guild, channel = interaction.guild, interaction.channel
        assert guild is not None and channel is not None

        queued = Queued()
        suffix: list[str] = []

        async def work() -> Outgoing:
            # Created and dealt in one transaction: never left waiting in a lobby (and played
            # in DMs at once, even while its thread waits for Discord's thread budget).
            game = await lobby.create_game(self.bot.kernel, host, guild.id, channel.id, options,
                                           open_thread=True, start=True)
            crash_point("solo.created")
            game = await self._wait_for_thread(game.id)
            out = self._opened(tr, game, "lobby.solo_opened", None, queued)
            if scenario is None:  # the rulebook's path through the scenarios: the next one
                suffix.append(await progress_ui.scenario_suggestion(tr, self.bot.kernel,
                                                                    host.id))
                out.content += suffix[0]
            return out

        await respond.reply(interaction, work(), ephemeral=False)
        self._tell_when_open(interaction, queued, tr, "lobby.solo_opened", None, "".join(suffix))


async def setup(bot: Host) -> None:
    await bot.add_cog(Lobby(bot))
