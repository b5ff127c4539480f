"""Discord's life around games: threads and channels deleted, the bot removed from a server, a
player leaving a server. Each listener tells the core (:mod:`bot.core.leaving`, which tells the
features: a tournament pauses, is cancelled, withdraws the member) and swallows its own errors,
so one bad event never takes the bot (or another game) down."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.adapter.cogs import CalicoCog
from bot.adapter.context import Host
from bot.core import leaving

log = logging.getLogger("calico.events")


class Events(CalicoCog):
    @commands.Cog.listener()
    async def on_ready(self) -> None:
        user = self.bot.user
        log.info("ready as %s in %d servers", user, len(self.bot.guilds))

    # Per-shard status: each shard's connection, resumption and loss, one line each.
    @commands.Cog.listener()
    async def on_shard_connect(self, shard_id: int) -> None:
        log.info("shard %d connected", shard_id)

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        log.info("shard %d ready (latency %s)", shard_id, self._latency(shard_id))

    @commands.Cog.listener()
    async def on_shard_resumed(self, shard_id: int) -> None:
        log.info("shard %d resumed", shard_id)

    @commands.Cog.listener()
    async def on_shard_disconnect(self, shard_id: int) -> None:
        log.warning("shard %d disconnected", shard_id)

    def _latency(self, shard_id: int) -> str:
        shard = self.bot.get_shard(shard_id)
        if shard is None or shard.latency != shard.latency:  # NaN before a heartbeat
            return "unknown"
        return f"{shard.latency * 1000:.0f} ms"

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._gone(payload.thread_id, payload.guild_id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        # The server's settings naming it are cleared, and a tournament posting there pauses.
        await self._gone(channel.id, channel.guild.id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        try:
            ended = await leaving.guild_gone(self.bot.kernel, guild.id)
            log.info("left server %s: %d games ended", guild.id, len(ended))
        except Exception:
            log.exception("guild_gone(%s) failed", guild.id)

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        try:
            await leaving.member_left(self.bot.kernel, payload.guild_id, payload.user.id)
        except Exception:
            log.exception("member_left(%s, %s) failed", payload.guild_id, payload.user.id)

    async def _gone(self, channel_id: int, guild_id: int | None = None) -> None:
        try:
            ended = await leaving.channel_gone(self.bot.kernel, channel_id, guild_id)
            if ended:
                log.info("channel %s deleted: games %s ended", channel_id, ended)
        except Exception:
            log.exception("channel_gone(%s) failed", channel_id)


async def setup(bot: Host) -> None:
    await bot.add_cog(Events(bot))
