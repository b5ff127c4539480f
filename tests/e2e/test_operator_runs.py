"""The operators' list of issue 29 (finding 7) that needs Discord's side: the real
``calico-bot run`` process against the stand-in. A start logs no warning a host can do nothing
about (discord.py's voice libraries: the bot never joins voice), and a bot stopped before it is
READY (the gateway never answering, the members intent refused) does not sit out the whole
shutdown grace waiting for work that never began."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.e2e.procs import BotProcess
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(fail_on_violations=False)


async def test_a_start_logs_no_warning_a_host_cannot_act_on(discord_env: DiscordEnv,
                                                            tmp_path: Path) -> None:
    bot = await BotProcess(discord_env, str(tmp_path / "calico.sqlite3"), tmp_path).start()
    try:
        await discord_env.wait_for_shards(0, timeout=40)
    finally:
        await bot.stop()
    log = bot.log()
    assert "shut down in" in log
    assert "voice" not in log.lower() and "PyNaCl" not in log and "davey" not in log, log


async def test_a_bot_stopped_before_ready_exits_at_once(discord_env: DiscordEnv,
                                                        tmp_path: Path) -> None:
    env = discord_env
    env.state.identify_held = True  # connecting, never READY
    bot = await BotProcess(env, str(tmp_path / "calico.sqlite3"), tmp_path,
                           calico_shutdown_grace="8").start()
    try:
        await env.wait_for(lambda: [i for i in env.identifies if i.outcome == "held"] or None,
                           timeout=40)
        bot.terminate()
        started = time.monotonic()
        code = await bot.wait(20)
        took = time.monotonic() - started
    finally:
        await bot.stop()
    assert code == 0, bot.log()[-2000:]
    assert took < 3.0, (took, bot.log()[-2000:])  # not the 8 s grace


async def test_a_refused_members_intent_restarts_without_it_at_once(discord_env: DiscordEnv,
                                                                    tmp_path: Path) -> None:
    env = discord_env
    env.state.members_intent_enabled = False
    bot = await BotProcess(env, str(tmp_path / "calico.sqlite3"), tmp_path,
                           calico_shutdown_grace="8").start()
    try:
        await env.wait_for(lambda: [i for i in env.identifies if i.close_code == 4014] or None,
                           timeout=40)
        refused = time.monotonic()
        await env.wait_for_shards(0, timeout=40)
        took = time.monotonic() - refused
        assert "Server Members Intent is off" in bot.log()
    finally:
        await bot.stop()
    assert took < 3.0, (took, bot.log()[-2000:])
    await asyncio.sleep(0)
