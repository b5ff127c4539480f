"""``/calico admin``: a server's settings, for people who may manage the server.

With no option it shows the settings; each option given changes one (``reset`` puts one, or
all, back to the default). Everyone else gets a short private refusal. The settings are stored
per server (:mod:`bot.core.servers`) and take effect at once in this process (others within
seconds): where games are opened, who may start them, the defaults of ``/calico start``, the
role pinged by new lobbies, the language of thread posts, the weekly challenge's channel. The
summary also names the channels where the bot cannot read message history (it could then not
check, after an outage, what it already posted there).
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.adapter import hosting
from bot.adapter.cogs import CalicoCog, L, choice
from bot.adapter.context import Host
from bot.adapter.ui import respond
from bot.adapter.ui.outgoing import Outgoing
from bot.core import servers
from bot.core.servers import LANGUAGES, RESETTABLE, TURN_HOURS
from bot.core.site.model import SITE_KEY
from bot.words import markup
from bot.words.catalogue import Text

log = logging.getLogger("calico.admin")

HOURS_CHOICES = [choice("choice.hours", h, count=h) for h in TURN_HOURS]
TIMEOUT_CHOICES = [choice(f"timeout.{a}", a) for a in ("autopilot", "remind", "computer")]
LANGUAGE_CHOICES = [choice(f"hosting.language.{code}", code) for code in LANGUAGES] + [
    choice("hosting.language.host", "host")]
ON_OFF = [choice("choice.on", "on"), choice("choice.off", "off")]
RESET_CHOICES = [choice(f"hosting.reset.{name}", name) for name in (*RESETTABLE, "all")]


class ServerAdmin(CalicoCog):
    @app_commands.command(name="admin", description=L("cmd.admin"))
    @app_commands.describe(games_channel=L("opt.games_channel"),
                           starter_role=L("opt.starter_role"),
                           turn_hours=L("opt.default_turn_hours"),
                           timeout=L("opt.default_timeout"), ping_role=L("opt.ping_role"),
                           language=L("opt.language"),
                           challenge_channel=L("opt.challenge_channel"), reset=L("opt.reset"),
                           tournament_role=L("opt.tournament_role"),
                           web_pages=L("opt.web_pages"))
    @app_commands.choices(turn_hours=HOURS_CHOICES, timeout=TIMEOUT_CHOICES,
                          language=LANGUAGE_CHOICES, reset=RESET_CHOICES, web_pages=ON_OFF)
    @app_commands.guild_only()
    async def admin(
        self,
        interaction: discord.Interaction[Any],
        games_channel: discord.TextChannel | None = None,
        starter_role: discord.Role | None = None,
        turn_hours: int | None = None,
        timeout: str | None = None,
        ping_role: discord.Role | None = None,
        language: str | None = None,
        challenge_channel: discord.TextChannel | None = None,
        reset: str | None = None,
        tournament_role: discord.Role | None = None,
        web_pages: str | None = None,
    ) -> None:
        tr = Text(interaction.locale)
        guild = interaction.guild
        if guild is None or not hosting.may_manage(interaction):
            await _no(interaction, tr("hosting.manage_only"))
            return
        # Checked whatever arrives: a client may send values the command does not offer.
        if turn_hours is not None and turn_hours not in TURN_HOURS:
            await _no(interaction, tr("start.bad_option", option="turn_hours"))
            return
        if timeout is not None and timeout not in ("autopilot", "remind", "computer"):
            await _no(interaction, tr("start.bad_option", option="timeout"))
            return
        if language is not None and language not in (*LANGUAGES, "host"):
            await _no(interaction, tr("start.bad_option", option="language"))
            return
        if web_pages is not None and web_pages not in ("on", "off"):
            await _no(interaction, tr("start.bad_option", option="web_pages"))
            return
        if reset is not None and reset not in (*RESETTABLE, "all"):
            await _no(interaction, tr("start.bad_option", option="reset"))
            return
        if ping_role is not None and ping_role.id == guild.id:
            # @everyone is never pinged by the bot (allowed_mentions forbids it anyway).
            await _no(interaction, tr("hosting.no_everyone"))
            return
        changes: dict[str, Any] = {}
        if games_channel is not None:
            changes["games_channel_id"] = games_channel.id
        if starter_role is not None:
            # @everyone as the role: everyone may start games (the default).
            changes["starter_role_id"] = None if starter_role.id == guild.id else starter_role.id
        if turn_hours is not None:
            changes["turn_hours"] = turn_hours
        if timeout is not None:
            changes["timeout_action"] = timeout
        if ping_role is not None:
            changes["ping_role_id"] = ping_role.id
        if language is not None:
            changes["language"] = None if language == "host" else language
        if challenge_channel is not None:
            changes["challenge_channel_id"] = challenge_channel.id
        if web_pages is not None:
            # Kept beside the settings (bot.core.site reads it): the site's pages of this
            # server, off by default; /calico admin reset leaves it as it is.
            changes[SITE_KEY] = web_pages == "on"
        if tournament_role is not None:
            # Kept beside the settings (bot.core.servers keeps keys it does not know); the
            # tournament cog reads it. @everyone: server managers only again.
            changes["tournament_role_id"] = None if tournament_role.id == guild.id \
                else tournament_role.id
        notes: list[str] = []
        if ping_role is not None and not ping_role.mentionable \
                and not interaction.app_permissions.mention_everyone:
            notes.append(tr("hosting.role_not_mentionable", role=ping_role.mention))
        kernel = self.bot.kernel

        async def work() -> Outgoing:
            # A channel chosen here and deleted since was cleared (bot.core.servers): said once.
            cleared = await servers.take_cleared(kernel, guild.id)
            if cleared:
                notes.insert(0, tr("hosting.cleared",
                                   options=", ".join(f"`{name}`" for name in cleared)))
            if changes or reset:
                server = await servers.update(kernel, guild.id, changes, (reset,) if reset else ())
                log.info("server %s settings changed by %s: %s%s", guild.id,
                         interaction.user.id, sorted(changes),
                         f", reset {reset}" if reset else "")
                head = tr("hosting.saved")
            else:
                server = await servers.settings(kernel, guild.id)
                head = ""
            text = hosting.settings_text(tr, server)
            blind = hosting.unreadable_channels(interaction, server,
                                                self.bot.unreadable.in_guild(guild.id))
            if blind:
                notes.append(tr("hosting.show.no_history", channels=", ".join(
                    markup.channel_mention(c) for c in blind)))
            web = (server.model_extra or {}).get(SITE_KEY) is True
            notes.append(tr("web.hosting.on" if web else "web.hosting.off"))
            if web and not self.bot.settings.web_on:
                notes.append(tr("web.hosting.unavailable"))
            return Outgoing(markup.clip("\n".join(x for x in (head, text, *notes) if x), 2000))

        await respond.reply(interaction, work(), ephemeral=True)


async def _no(interaction: discord.Interaction[Any], text: str) -> None:
    await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: Host) -> None:
    await bot.add_cog(ServerAdmin(bot))
