"""Cooldowns with several processes (issue 29): the decision measured. Each process keeps a
person's cooldowns in its own memory (``bot/adapter/cooldowns.py``); a person's interactions
reach the process of the shard they come through (DMs shard 0, a server's its own), so someone
active where two processes answer gets up to twice the allowance, never more, and each process
still refuses past its own. What the cooldowns protect (each process's CPU: pictures, reviews,
starts) is protected per process all the same; the figure is in docs/performance.md and the
reasoning in the README (after the cooldowns' settings). Two clients here, each holding one
of two shards (as two processes would), on one database."""

from __future__ import annotations

from pathlib import Path

from bot.adapter import policy
from bot.adapter.client import CalicoBot
from bot.core.manager import Manager
from bot.settings import Settings
from tests.fakediscord import DiscordEnv


async def test_two_processes_allow_a_person_at_most_twice_the_allowance(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    guilds = [env.add_guild(f"s{i}", shard=(i, 2)) for i in range(2)]
    channels = [env.add_text_channel("games", guild=g) for g in guilds]
    for g in guilds:
        env.add_member("alice", g)
    manager = await Manager.open(tmp_path / "c.sqlite3")
    try:
        settings = Settings(token="fake", db_path=str(tmp_path / "c.sqlite3"),
                            lookup_cooldown=600.0, shard_count=2)
        for shard in (0, 1):
            await env.start_client(
                lambda shard=shard: CalicoBot(  # type: ignore[misc]
                    settings.model_copy(update={"shard_ids": [shard]}), manager=manager,
                    sync="auto", background=shard == 0, sweep_interval=3600.0),
                alongside=shard == 1)
        await env.wait_for_shards(0, 1, shard_count=2)
        burst = policy.BURSTS[policy.LOOKUP]
        admitted = {0: 0, 1: 0}
        for shard, channel in enumerate(channels):
            for _ in range(burst + 2):
                ix = await env.slash("alice", "calico", "games", channel=channel)
                first = await ix.wait_response(timeout=5)
                assert ix.delivered_shards == [shard]
                if "Easy there" not in str(first.data.get("content") or ""):
                    admitted[shard] += 1
        assert admitted == {0: burst, 1: burst}  # each process refuses past its own
        assert sum(admitted.values()) == 2 * burst  # the bound: the allowance per process
    finally:
        await env.stop_all_clients()
        await manager.close()
