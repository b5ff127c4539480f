"""Sharding in the fake Discord, driven by real discord.py sharded clients.

Also the entry point of the bot process that ``test_remote_process_holds_half_the_shards``
starts: ``python -m tests.fakediscord.remote tests.e2e.test_fakediscord_shards --shard-ids 2,3
--shard-count 4`` runs :func:`_child_main`.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import sys
from pathlib import Path
from typing import Any

import discord
import discord.http
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import (
    CLOSE_INVALID_SHARD,
    CLOSE_SHARDING_REQUIRED,
    DiscordEnv,
    FakeChannel,
    FakeGuild,
    remote,
)

REPO = Path(__file__).resolve().parents[2]


@app_commands.command(description="which client answers")
async def where(interaction: discord.Interaction) -> None:
    bot = interaction.client
    assert isinstance(bot, ShardBot)
    bot.seen.append((interaction.id, interaction.guild_id))
    await interaction.response.send_message(f"{bot.label}:{interaction.guild_id}", ephemeral=True)


class ShardBot(commands.AutoShardedBot):
    """A sharded bot that paces IDENTIFY per bucket, as the real bot will.

    discord.py's default ``before_identify_hook`` sleeps 5 s before every shard but the first
    (15 s for four shards).  Discord's actual rule is one identify per 5 s per bucket
    ``shard_id % max_concurrency``, so with ``max_concurrency`` >= the number of shards they
    may all identify at once.  Discord times an identify when it arrives, so the bot waits half
    a window longer than the rule: a first identify that arrives late must not make the next one
    look early."""

    def __init__(
        self,
        *,
        shard_ids: list[int] | None = None,
        shard_count: int | None = None,
        label: str = "bot",
        sync: bool = False,
        pace: bool = True,
        identify_window: float = 5.0,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            shard_ids=shard_ids,  # type: ignore[arg-type]  # None (all shards) is the default
            shard_count=shard_count,
            guild_ready_timeout=0.05,
        )
        self.label = label
        self.sync_on_start = sync
        self.pace = pace
        self.identify_window = identify_window
        self.seen: list[tuple[int, int | None]] = []
        self.resumed_shards: list[int] = []
        self.ready_shards: list[int] = []
        self._max_concurrency: int | None = None
        self._bucket_free_at: dict[int, float] = {}
        self.tree.add_command(where)

    async def setup_hook(self) -> None:
        if self.sync_on_start:
            await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if not self.pace:
            return
        if self._max_concurrency is None:
            limits = await self.fetch_session_start_limits()
            self._max_concurrency = max(1, limits.max_concurrency)
        bucket = (shard_id or 0) % self._max_concurrency
        loop = asyncio.get_running_loop()
        wait = self._bucket_free_at.get(bucket, 0.0) - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._bucket_free_at[bucket] = loop.time() + self.identify_window * 1.5

    async def on_shard_resumed(self, shard_id: int) -> None:
        self.resumed_shards.append(shard_id)

    async def on_shard_ready(self, shard_id: int) -> None:
        self.ready_shards.append(shard_id)


def plain_bot() -> commands.Bot:
    return commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default())


def tables(env: DiscordEnv, count: int) -> list[tuple[FakeGuild, FakeChannel]]:
    """``2 * count`` guilds, two on each of ``count`` shards, each with a #table channel in
    which every test user is a member."""
    out = []
    for guild in env.add_guilds(2 * count, prefix="Shard guild", spread=count):
        channel = env.add_text_channel("table", guild=guild)
        for name in ("alice", "bob"):
            env.add_member(name, guild)
        out.append((guild, channel))
    return out


async def answer(ix: Any) -> str:
    await ix.wait_response()
    return str(ix.response.data["content"])


# ------------------------------------------------------------------------------------------------


async def test_gateway_bot_recommends_one_shard_per_thousand_guilds(
    discord_env: DiscordEnv,
) -> None:
    env = discord_env
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(env.token)
        shards, url, limits = await http.get_bot_gateway()
        assert (shards, url) == (1, env.server.gateway_url)  # 1 guild: at least one shard
        assert limits["max_concurrency"] == 16  # the fake's default: shards identify at once
        env.add_guilds(2600)
        shards, _, limits = await http.get_bot_gateway()
        assert shards == 3 == -(-len(env.state.bot_guilds) // 1000)  # 2,601 guilds
        env.max_concurrency = 1
        env.recommended_shards = 7
        shards, _, limits = await http.get_bot_gateway()
        assert (shards, limits["max_concurrency"]) == (7, 1)
        assert limits["remaining"] <= limits["total"]
    finally:
        await http.close()


async def test_four_shards_in_one_client_route_by_guild(discord_env: DiscordEnv) -> None:
    env = discord_env
    placed = tables(env, 4)
    bot = await env.start_client(lambda: ShardBot(shard_count=4))
    assert env.connected_shards == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert sorted(bot.ready_shards) == [0, 1, 2, 3]
    assert not env.identify_breaches()
    assert all(r.sharded and r.outcome == "ready" for r in env.identifies)
    # READY of each session listed only its shard's guilds; each GUILD_CREATE went to the shard
    # (guild_id >> 22) % 4 and nowhere else.
    creates = env.deliveries_for("GUILD_CREATE")
    assert sorted(d.guild_id for d in creates if d.guild_id) == sorted(
        g.id for g in env.state.bot_guilds
    )
    for d in creates:
        assert d.guild_id is not None and d.shard_id == env.shard_for_guild(d.guild_id, 4)
    for shard_id in range(4):
        assert len(env.guilds_on_shard(shard_id, 4)) >= 2
    assert {g.id for g in bot.guilds} == {g.id for g in env.state.bot_guilds}
    assert {g.id: g.shard_id for g in bot.guilds} == {
        g.id: env.shard_for_guild(g, 4) for g in env.state.bot_guilds
    }

    # guild interactions reach only the guild's shard
    for guild, channel in placed:
        ix = await env.slash("alice", "where", channel=channel)
        assert await answer(ix) == f"bot:{guild.id}"
        assert ix.delivered_shards == [env.shard_for_guild(guild, 4)]
    # guild events too (a channel update in a shard-3 guild)
    guild, channel = next((g, c) for g, c in placed if env.shard_for_guild(g, 4) == 3)
    await env.deny_bot(channel, "embed_links")
    [update] = env.deliveries_for("CHANNEL_UPDATE", guild=guild)
    assert update.shard_id == 3 and update.status == "sent"
    # DM interactions (and DM events) belong to shard 0
    dm = env.state.dm_channel(env.user("bob"))
    ix = await env.slash("bob", "where", channel=dm)
    assert await answer(ix) == "bot:None"
    assert ix.delivered_shards == [0]
    assert not env.deliveries_for(status="dropped")


async def test_two_clients_each_get_only_their_shards(discord_env: DiscordEnv) -> None:
    env = discord_env
    placed = tables(env, 4)
    low = await env.start_client(lambda: ShardBot(shard_ids=[0, 1], shard_count=4, label="low"))
    high = await env.start_client(
        lambda: ShardBot(shard_ids=[2, 3], shard_count=4, label="high"), alongside=True
    )
    assert env.client is low and env.running_clients == [low, high]
    assert env.connected_shards == [(0, 4), (1, 4), (2, 4), (3, 4)]
    # each client cached only its shards' guilds
    assert {g.id for g in low.guilds} == {g.id for s in (0, 1) for g in env.guilds_on_shard(s, 4)}
    assert {g.id for g in high.guilds} == {g.id for s in (2, 3) for g in env.guilds_on_shard(s, 4)}
    for guild, channel in placed:
        ix = await env.slash("alice", "where", channel=channel)
        owner = "low" if env.shard_for_guild(guild, 4) < 2 else "high"
        assert await answer(ix) == f"{owner}:{guild.id}"
    assert {gid for _, gid in low.seen} == {
        g.id for g, _ in placed if env.shard_for_guild(g, 4) < 2
    }
    assert {gid for _, gid in high.seen} == {
        g.id for g, _ in placed if env.shard_for_guild(g, 4) >= 2
    }
    dm = await env.slash("bob", "where", channel=env.state.dm_channel(env.user("bob")))
    assert await answer(dm) == "low:None"  # shard 0 lives in the low client

    # the high process goes away cleanly: its shards' interactions are delivered to nobody
    await env.stop_client(high)
    assert env.connected_shards == [(0, 4), (1, 4)]
    guild, channel = next((g, c) for g, c in placed if env.shard_for_guild(g, 4) == 3)
    lost = await env.slash("alice", "where", channel=channel)
    assert lost.dropped and not lost.delivered_shards
    [drop] = env.deliveries_for("INTERACTION_CREATE", status="dropped")
    assert (drop.guild_id, drop.shard_id, drop.shard_count) == (guild.id, 3, 4)
    await asyncio.sleep(0.05)
    assert not lost.acknowledged
    # the low client keeps working
    guild, channel = next((g, c) for g, c in placed if env.shard_for_guild(g, 4) == 1)
    assert await answer(await env.slash("alice", "where", channel=channel)) == f"low:{guild.id}"


@pytest.mark.parametrize("sharded", [False, True], ids=["plain-client", "shard-count-1"])
async def test_unsharded_identify_past_2500_guilds_is_closed_4011(
    discord_env: DiscordEnv, sharded: bool
) -> None:
    env = discord_env
    env.add_guilds(2600)

    def factory() -> discord.Client:
        return ShardBot(shard_count=1) if sharded else plain_bot()

    with pytest.raises(RuntimeError) as excinfo:
        await env.start_client(factory)
    closed = excinfo.value.__cause__
    # discord.py does not retry 4011: start() ends with ConnectionClosed carrying the code
    assert isinstance(closed, discord.ConnectionClosed) and closed.code == CLOSE_SHARDING_REQUIRED
    await asyncio.sleep(0.1)
    [identify] = env.identifies
    assert identify.outcome == "closed" and identify.close_code == CLOSE_SHARDING_REQUIRED
    assert identify.sharded is sharded and (identify.shard_id, identify.shard_count) == (0, 1)
    assert [(c.code, c.initiator) for c in env.gateway_closes] == [(4011, "server")]
    assert env.server.identify_count == 0 and not env.sessions

    # with Discord's recommendation (3 shards for 2,601 guilds) the same bot connects
    bot = await env.start_client(lambda: ShardBot())
    assert bot.shard_count == 3 and env.connected_shards == [(0, 3), (1, 3), (2, 3)]
    assert len(bot.guilds) == 2601


async def test_invalid_shards_are_closed_4010(discord_env: DiscordEnv) -> None:
    env = discord_env
    with pytest.raises(RuntimeError) as excinfo:
        await env.start_client(lambda: ShardBot(shard_ids=[4], shard_count=4))
    closed = excinfo.value.__cause__
    assert isinstance(closed, discord.ConnectionClosed) and closed.code == CLOSE_INVALID_SHARD
    [refused] = env.identifies
    assert (refused.shard_id, refused.shard_count, refused.outcome) == (4, 4, "closed")

    # a second process that disagrees on the shard count is refused; the first one is unharmed
    first = await env.start_client(lambda: ShardBot(shard_ids=[0, 1], shard_count=2))
    with pytest.raises(RuntimeError) as excinfo:
        await env.start_client(
            lambda: ShardBot(shard_ids=[2], shard_count=3, label="other"), alongside=True
        )
    closed = excinfo.value.__cause__
    assert isinstance(closed, discord.ConnectionClosed) and closed.code == CLOSE_INVALID_SHARD
    assert "count 3" in env.identifies[-1].reason
    assert env.connected_shards == [(0, 2), (1, 2)] and first.is_ready()
    ix = await env.slash("alice", "where")
    assert await answer(ix) == f"bot:{env.guild.id}"


async def test_killed_shard_resumes_and_the_others_keep_working(discord_env: DiscordEnv) -> None:
    env = discord_env
    placed = tables(env, 4)
    env.state.identify_window = 0.05  # Discord's 5 s, shortened: shard 3 identifies again below
    bot = await env.start_client(lambda: ShardBot(shard_count=4, identify_window=0.05))
    before = {s.shard_id: s.session_id for s in env.live_sessions}
    on = {
        shard: [(g, c) for g, c in placed if env.shard_for_guild(g, 4) == shard]
        for shard in range(4)
    }

    [killed] = await env.kill_shard(1)
    # the kill does not touch the other shards: an interaction on shard 2 is answered
    guild, channel = on[2][0]
    ix = await env.slash("alice", "where", channel=channel)
    assert await answer(ix) == f"bot:{guild.id}" and ix.delivered_shards == [2]
    # an interaction for shard 1 is kept for the session (queued) or sent after the resume
    guild, channel = on[1][0]
    ix = await env.slash("alice", "where", channel=channel)
    assert await answer(ix) == f"bot:{guild.id}" and ix.delivered_shards == [1]
    assert ix.delivered_sessions == [killed.session_id]
    # (in practice discord.py is still reconnecting, so the fake keeps it and replays it)
    assert [d.status for d in ix.deliveries] in (["queued", "replayed"], ["sent"])

    await env.wait_for(lambda: bot.resumed_shards, what="on_shard_resumed")
    assert bot.resumed_shards == [1]
    [resume] = env.resumes
    assert resume.ok and resume.session_id == killed.session_id and resume.shard_id == 1
    assert env.server.identify_count == 4  # resumed, not re-identified
    assert {s.shard_id: s.session_id for s in env.live_sessions} == before
    kill_close = next(c for c in env.gateway_closes if c.initiator == "kill")
    assert kill_close.resumable and kill_close.code == 1006
    # RESUME went to READY's resume_gateway_url
    assert killed.connection is not None and killed.connection.path == "/resume-gateway"

    # Discord asking shard 2 to reconnect (op 7): discord.py closes with 4000 and resumes
    await env.reconnect_shard(2)
    await env.wait_for(lambda: bot.resumed_shards == [1, 2], what="shard 2 to resume")
    assert [c.code for c in env.gateway_closes if c.shard_id == 2] == [4000]
    assert {s.shard_id: s.session_id for s in env.live_sessions} == before

    # a kill that also ends the session: discord.py gets INVALID_SESSION and identifies again
    await env.kill_shard(3, resumable=False)
    await env.wait_for(lambda: env.server.identify_count == 5, what="shard 3 to identify")
    await env.wait_for_shards(3, shard_count=4)
    refused = [r for r in env.resumes if not r.ok]
    assert refused and refused[-1].shard_id == 3
    guild, channel = on[3][0]
    assert await answer(await env.slash("alice", "where", channel=channel)) == f"bot:{guild.id}"


@pytest.mark.fakediscord(max_concurrency=1)
async def test_identify_pacing_per_bucket(discord_env: DiscordEnv) -> None:
    env = discord_env
    env.state.identify_window = 0.2  # Discord's 5 s, shortened for the test
    tables(env, 3)

    bot = await env.start_client(lambda: ShardBot(shard_count=3, identify_window=0.2))
    times = [r.at for r in env.identifies]
    assert [r.bucket for r in env.identifies] == [0, 0, 0]  # max_concurrency 1: one bucket
    assert all(b - a >= 0.19 for a, b in itertools.pairwise(times))
    assert not env.identify_breaches()
    await env.stop_client(bot)

    # a client that does not pace is recorded, and refused when the fake enforces the limit
    await asyncio.sleep(0.25)
    env.state.enforce_identify_rate_limit = True
    eager = await env.start_client(lambda: ShardBot(shard_count=3, pace=False))
    assert eager.is_ready() and env.connected_shards == [(0, 3), (1, 3), (2, 3)]
    breaches = env.identify_breaches()
    assert breaches and all(r.outcome == "invalid_session" for r in breaches)
    assert env.pop_violations("identify_rate_limited")


async def test_remote_process_holds_half_the_shards(discord_env: DiscordEnv) -> None:
    env = discord_env
    placed = tables(env, 4)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.fakediscord.remote",
        "tests.e2e.test_fakediscord_shards",
        "--shard-ids",
        "2,3",
        "--shard-count",
        "4",
        cwd=REPO,
        env={**os.environ, **env.remote_environ()},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        try:
            await env.wait_for_shards(2, 3, shard_count=4, timeout=30.0)
        except TimeoutError:
            proc.kill()
            out, _ = await proc.communicate()
            raise AssertionError("the bot process did not connect:\n" + out.decode()) from None
        # no client lives in this process: routing needs none, commands come from its sync
        assert env.client is None and env.state.global_commands.get("where")
        guild, channel = next((g, c) for g, c in placed if env.shard_for_guild(g, 4) == 2)
        assert await answer(await env.slash("alice", "where", channel=channel)) == (
            f"remote:{guild.id}"
        )
        local = await env.start_client(
            lambda: ShardBot(shard_ids=[0, 1], shard_count=4, label="local")
        )
        for guild, channel in placed:
            owner = "local" if env.shard_for_guild(guild, 4) < 2 else "remote"
            reply = await answer(await env.slash("alice", "where", channel=channel))
            assert reply == f"{owner}:{guild.id}"
        assert all(env.shard_for_guild(gid or 0, 4) < 2 for _, gid in local.seen)
    finally:
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()
    # the process died without closing: its sessions wait for a RESUME and keep shard 2's events
    await env.wait_for(lambda: env.connected_shards == [(0, 4), (1, 4)], what="the death")
    guild, channel = next((g, c) for g, c in placed if env.shard_for_guild(g, 4) == 2)
    lost = await env.slash("alice", "where", channel=channel)
    assert [d.status for d in lost.deliveries] == ["queued"]


# ------------------------------------------------------------------------------------------------
# The bot process of test_remote_process_holds_half_the_shards.


def _child_main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shard-ids", required=True)
    parser.add_argument("--shard-count", type=int, required=True)
    args = parser.parse_args()
    bot = ShardBot(
        shard_ids=[int(s) for s in args.shard_ids.split(",")],
        shard_count=args.shard_count,
        label="remote",
        sync=True,
    )
    bot.run(remote.token(), log_handler=None)


if __name__ == "__main__":
    _child_main()
