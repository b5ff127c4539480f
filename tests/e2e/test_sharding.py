"""The bot as a sharded client: it runs the shards its settings give it and answers through
whichever shard Discord uses (a server's own, shard 0 for DMs); commands are synced once per
deployment and per application (recorded in the database, not in a file); and when Discord
refuses too few shards (close code 4011) ``calico-bot run`` starts again with Discord's
recommendation instead of crash-looping."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.adapter.client import CalicoBot
from bot.core.clock import FakeClock
from bot.settings import Settings
from tests.adapter.harness import settle
from tests.e2e.procs import BotProcess
from tests.fakediscord import DiscordEnv

CELL_SELECT = re.compile(r"calico:c:(\d+):(\d+):([hm]\d)")


def factory(db: Path, **settings: object):  # type: ignore[no-untyped-def]
    def make() -> CalicoBot:
        values: dict[str, object] = {"token": "fake", "db_path": str(db), **settings}
        return CalicoBot(Settings(**values), clock=FakeClock(), sync="auto",
                         sweep_interval=3600.0, dispatch_poll=0.05)

    return make


async def test_four_shards_in_one_process_answer_guild_and_dm_clicks(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    guilds = [env.add_guild(f"s{i}", shard=(i, 4)) for i in range(4)]
    channels = [env.add_text_channel("games", guild=g) for g in guilds]
    for g in guilds:
        env.add_member("alice", g)
    bot = await env.start_client(factory(tmp_path / "s.sqlite3", shard_count=4))
    assert sorted(bot.shards) == [0, 1, 2, 3]
    await env.wait_for_shards(0, 1, 2, 3, shard_count=4)
    for i, channel in enumerate(channels):
        ix = await env.slash("alice", "calico", "solo", options={"setup": "beginner"},
                             channel=channel)
        await ix.wait_followup(timeout=10)
        assert ix.delivered_shards == [i]  # the server's own shard
    await settle(env)
    panel = await env.wait_for_dm("alice", lambda m: any(
        CELL_SELECT.fullmatch(c.custom_id or "") for c in m.walk_components()))
    select = next(c for c in panel.walk_components()
                  if c.custom_id and CELL_SELECT.fullmatch(c.custom_id))
    pick = await env.select("alice", panel, select.custom_id or "", [select.options[0].value])
    assert (await pick.wait_response()).type == 7
    assert pick.delivered_shards == [0]  # DMs come through shard 0


async def test_commands_sync_once_per_deployment_and_per_application(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    db = tmp_path / "sync.sqlite3"
    await env.start_client(factory(db))
    assert env.sync_count() == 1
    await env.restart_client()  # the same tree, the same application: no second sync
    assert env.sync_count() == 1
    assert not list(tmp_path.glob("*.commands.json"))  # nothing written beside the database
    await env.stop_client()
    env.state.application_id = env.state.next_id()  # another bot on the same database
    await env.start_client(factory(db))
    assert env.sync_count() == 2


@pytest.mark.fakediscord(fail_on_violations=False)
async def test_too_few_shards_restart_with_discords_recommendation(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """2,600 servers and CALICO_SHARD_COUNT=1: Discord closes with 4011; the process logs why
    and connects again with the recommended 3 shards, instead of exiting into a crash loop."""
    env = discord_env
    env.add_guilds(2600, spread=3)
    bot = await BotProcess(env, str(tmp_path / "big.sqlite3"), tmp_path, "big",
                           calico_shard_count="1").start()
    try:
        await env.wait_for_shards(0, 1, 2, shard_count=3, timeout=90)
        log = bot.log()
        assert "4011" in log and "recommended shard count" in log
        assert bot.running
        assert any(c.code == 4011 for c in env.gateway_closes)
    finally:
        await bot.stop()
    assert "shut down in" in bot.log()
