"""Fixtures for the web site's tests: a manager with finished and running games, the site's
application on it, and an aiohttp test client (the real server on 127.0.0.1)."""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameInfo
from bot.core.site import service as site
from bot.web import giveway, links
from bot.web.app import make_app
from bot.web.links import Signer
from tests.core.conftest import ANN, BOB, CAT, DAN, GUILD, new_game, play_out, seeds
from tests.fakediscord.fixtures import discord_env  # noqa: F401  (the stand-in's fixture)

SECRET = "test-secret-not-a-real-one"
SCRIPT = "<script>alert(1)</script>"
EVIL = type(ANN)(1666, SCRIPT)


@dataclass
class World:
    m: Manager
    signer: Signer
    client: TestClient
    finished: GameInfo  # four people, over
    running: GameInfo  # two people, in play

    def path(self, kind: str, *ids: int) -> str:
        return self.signer.path(kind, *ids)


async def build(m: Manager, *, four: bool = True) -> tuple[GameInfo, GameInfo]:
    await site.set_enabled(m.kernel, GUILD, True)
    rng = random.Random(7)
    people = (BOB, CAT, EVIL) if four else (BOB,)
    finished = await play_out(m, await new_game(m, ANN, people=people), rng)
    running = await new_game(m, DAN, people=(CAT,))
    running = await play_out_some(m, running, rng, 6)
    return finished, running


async def play_out_some(m: Manager, g: GameInfo, rng: random.Random, moves: int) -> GameInfo:
    from tests.core.conftest import step

    for _ in range(moves):
        who = g.drafting_user_ids[0] if g.drafting_user_ids else g.current_user_id
        assert who is not None
        g = await step(m, g, who, rng)
    return g


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    m = await Manager.open(tmp_path / "calico.db", clock=FakeClock(), seed_source=seeds())
    client: TestClient | None = None
    try:
        finished, running = await build(m)
        client = TestClient(TestServer(make_app(m.kernel, SECRET, rate_per_minute=10_000)))
        await client.start_server()
        yield World(m, Signer(SECRET), client, finished, running)
    finally:
        if client is not None:
            await client.close()
        await m.close()


__all__ = ["GUILD", "SCRIPT", "SECRET", "World", "links"]


SPIN = "import os\nos.nice(19)\nwhile True: pass"


@contextlib.contextmanager
def filled_machine() -> Iterator[None]:
    """Every CPU of the machine wanted by others, and one more thread waiting: a busy process
    per CPU plus one, ended afterwards whatever happens. At the lowest priority: the tests
    running beside this one barely notice them."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN])
                for _ in range((os.cpu_count() or 1) + 1)]
    try:
        deadline = time.monotonic() + 10
        while not giveway.machine_full():
            assert time.monotonic() < deadline, "the busy processes never showed as runnable"
            time.sleep(0.01)
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@pytest.fixture
def full_machine() -> Iterator[None]:
    with filled_machine():
        yield
