"""The bot with its web site on, driven through the stand-in for Discord (the real client):
shared by the Link-button tests and the browser tests. A four-player game (two people, one of
them named like a script, and two computers) is played to its end with the core's own calls;
the bot posts everything to the stand-in and serves the pages on its own listener."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bot.adapter.client import CalicoBot
from bot.core import lobby
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameInfo, LobbyOptions, UserRef
from bot.settings import Settings
from tests.adapter.harness import bot, settle
from tests.core.conftest import play_out, seeds
from tests.fakediscord import DiscordEnv

SECRET = "browser-test-secret"
BASE_URL = "https://calico.example.org"
SCRIPT = "<script>alert(1)</script>"


def factory(db: Path, clock: FakeClock, manager: Manager,
            process: Literal["apart", "inline"] = "inline") -> Any:
    def make() -> CalicoBot:
        settings = Settings(token="fake", db_path=str(db), web_port=0, web_secret=SECRET,
                            web_base_url=BASE_URL, web_rate_per_minute=100_000,
                            web_process=process)
        return CalicoBot(settings, manager=manager, clock=clock, sync="never",
                         sweep_interval=3600.0, dispatch_poll=0.05)

    return make


@dataclass
class Served:
    env: DiscordEnv
    bot: CalicoBot
    url: str  # where the bot's site listens
    clock: FakeClock


@contextlib.asynccontextmanager
async def started(env: DiscordEnv, tmp_path: Path,
                  process: Literal["apart", "inline"] = "inline") -> AsyncIterator[Served]:
    """The bot on a manager of the test's own (seeded deals, computers in threads: the same
    games every run, for the screenshots), its site on a free port: on the bot's event loop
    (the pages' tests: the site reads the test's clock), or ``apart`` (the default's child)."""
    clock = FakeClock()
    db = tmp_path / "web.sqlite3"
    manager = await Manager.open(db, clock=clock, seed_source=seeds())
    try:
        await env.start_client(factory(db, clock, manager, process))
        client = bot(env)
        assert client.site is not None
        try:
            yield Served(env, client, client.site.url, clock)
        finally:
            await env.stop_all_clients()
    finally:
        await manager.close()


async def admin(env: DiscordEnv, **options: Any) -> str:
    inter = await env.slash("owner", "calico", "admin", options=options)
    await inter.wait_response()
    return str((await inter.wait_followups(1))[0].content)


async def four_player_game(served: Served, *, finish: bool = True,
                           seed: int = 11) -> GameInfo:
    env = served.env
    alice = env.user("alice")
    scripty = env.add_user(SCRIPT)
    k = served.bot.manager.kernel
    g = await lobby.create_game(k, UserRef(alice.id, "alice", "en-US"), env.guild.id,
                                env.channel.id,
                                LobbyOptions(players=4, setup="beginner", ai_level="easy"),
                                open_thread=True)
    await settle(env)
    g = await lobby.join(k, g.id, UserRef(scripty.id, scripty.name, "en-US"))
    g = await lobby.add_computer(k, g.id, alice.id, "easy")
    g = await lobby.add_computer(k, g.id, alice.id, "easy")
    g = await lobby.start(k, g.id, alice.id)
    if finish:
        g = await play_out(served.bot.manager, g, random.Random(seed))
    else:
        from tests.web.conftest import play_out_some

        g = await play_out_some(served.bot.manager, g, random.Random(seed), 3)
    await settle(env)
    await asyncio.sleep(0)
    return g
