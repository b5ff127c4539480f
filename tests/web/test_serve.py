"""``calico-bot web``: the site in a process of its own beside the bot, reading the bot's
database: it serves a game the bot's process stored, and stops cleanly on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import socket
import sys
from pathlib import Path

import aiohttp

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.site import service as site
from bot.web import links
from tests.core.conftest import ANN, BOB, CAT, DAN, GUILD, new_game, play_out, seeds
from tests.web.conftest import play_out_some

ROOT = Path(__file__).resolve().parents[2]
SECRET = "process-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_the_site_in_its_own_process_serves_what_the_bot_stored(tmp_path: Path) -> None:
    db = tmp_path / "calico.sqlite3"
    m = await Manager.open(db, clock=FakeClock(), seed_source=seeds())
    try:
        await site.set_enabled(m.kernel, GUILD, True)
        g = await play_out(m, await new_game(m, ANN, people=(BOB,)), random.Random(2))
        port = free_port()
        env = {**os.environ, "CALICO_DB": str(db), "CALICO_WEB_PORT": str(port),
               "CALICO_WEB_SECRET": SECRET, "DISCORD_TOKEN": ""}
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", "web",
                                                    cwd=ROOT, env=env)
        try:
            path = links.Signer(SECRET).path(links.GAME, g.id)
            async with aiohttp.ClientSession() as http:
                for _ in range(200):
                    try:
                        resp = await http.get(f"http://127.0.0.1:{port}{path}")
                        break
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.05)
                else:
                    raise AssertionError("the site never listened")
                assert resp.status == 200 and ">Ann</a>" in await resp.text()
                # A running game moved on by this process shows its new move over there.
                running = await play_out_some(m, await new_game(m, CAT, people=(DAN,)),
                                              random.Random(4), 4)
                url = f"http://127.0.0.1:{port}" + links.Signer(SECRET).path(links.GAME,
                                                                              running.id)
                before = re.search(r'max="(\d+)"', await (await http.get(url)).text())
                assert before is not None
                await play_out_some(m, running, random.Random(5), 1)
                after = re.search(r'max="(\d+)"', await (await http.get(url)).text())
                assert after is not None and int(after[1]) == int(before[1]) + 1
                wrong = await http.get(f"http://127.0.0.1:{port}/g/{g.id}-00")
                assert wrong.status == 404
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 20) == 0
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    finally:
        await m.close()


async def test_the_site_alone_refuses_to_start_without_its_settings(tmp_path: Path) -> None:
    env = {**os.environ, "CALICO_DB": str(tmp_path / "x.sqlite3"), "CALICO_WEB_SECRET": ""}
    env.pop("CALICO_WEB_PORT", None)
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", "web", cwd=ROOT,
                                                env=env, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2 and b"CALICO_WEB_PORT and CALICO_WEB_SECRET" in err
