"""The site in the child process the bot starts by default (``CALICO_WEB_PROCESS=apart``,
:mod:`bot.web.process`): it serves what the bot stores, runs below the bot's priority, never
holds the bot's token, comes back on the same address when it dies, stops with the bot, and
does not outlive a bot killed without a chance to stop it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from bot.core.site import service as site
from bot.web import links
from bot.web.process import SiteProcess, end_child
from tests.fakediscord import DiscordEnv
from tests.web.bots import SECRET, four_player_game, started

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "never-in-the-site-process-0123456789"


def alive(pid: int) -> bool:
    """Running (a zombie left for its reaper counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def wait_gone(pid: int, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if not alive(pid):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"process {pid} still running")


async def get(url: str, seconds: float = 20.0) -> tuple[int, str]:
    """The page at ``url``, waiting while nothing listens there (a child starting again)."""
    async with aiohttp.ClientSession() as http:
        for _ in range(int(seconds / 0.05)):
            try:
                async with http.get(url) as resp:
                    return resp.status, await resp.text()
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.05)
    raise AssertionError(f"nothing answered at {url}")


async def test_the_bot_serves_its_site_from_a_child_below_its_priority(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)  # in the bot's environment, not the child's
    monkeypatch.chdir(tmp_path)  # nor in a .env file where the bot runs
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={TOKEN}\n")
    env = discord_env
    async with started(env, tmp_path, process="apart") as served:
        child = served.bot.site
        assert isinstance(child, SiteProcess) and child.pid is not None
        first = child.pid
        assert first != os.getpid()
        g = await four_player_game(served, seed=3)
        await site.set_enabled(served.bot.manager.kernel, env.guild.id, True)
        url = served.url + links.Signer(SECRET).path(links.GAME, g.id)
        status, page = await get(url)
        assert status == 200 and ">alice</a>" in page  # what the bot stored, shown there
        # Behind every click: the lowest priority there is, in every thread of the child (the
        # database's too), and never on every CPU at once.
        threads = [int(t) for t in os.listdir(f"/proc/{first}/task")]
        assert len(threads) > 1
        assert {os.getpriority(os.PRIO_PROCESS, t) for t in threads} == {19}
        assert os.getpriority(os.PRIO_PROCESS, 0) < 19
        mine = os.sched_getaffinity(0)
        if len(mine) > 1:
            cpus = {frozenset(os.sched_getaffinity(t)) for t in threads}
            assert len(cpus) == 1 and set(next(iter(cpus))) < mine, cpus
        with open(f"/proc/{first}/environ", "rb") as f:
            environ = f.read()
        # Not inherited, and set empty so that the .env file's cannot be read either.
        assert TOKEN.encode() not in environ and b"DISCORD_TOKEN=" in environ.split(b"\0")

        os.kill(first, signal.SIGKILL)  # it dies: the bot starts another on the same address
        await wait_gone(first)
        status, again = await get(url)
        assert status == 200 and ">alice</a>" in again
        assert child.pid != first and child.restarts == 1 and served.bot.site is child
        second = child.pid
        assert second is not None
        await asyncio.sleep(2.5)  # past the restart delay: one child, started once
        assert child.pid == second and child.restarts == 1 and alive(second)
    await wait_gone(second)  # stopped with the bot


async def test_a_site_process_does_not_outlive_a_killed_bot(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from bot.web.process import SiteProcess\n"
        "async def main():\n"
        "    p = SiteProcess({'CALICO_DB': sys.argv[1], 'CALICO_WEB_PORT': '0',\n"
        "                     'CALICO_WEB_SECRET': 'x'})\n"
        "    await p.start()\n"
        "    print(p.pid, flush=True)\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n")
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, str(tmp_path / "k.sqlite3"), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE)
    child = 0
    try:
        assert bot.stdout is not None
        child = int(await asyncio.wait_for(bot.stdout.readline(), 60))
        assert alive(child)
        bot.kill()  # no chance to stop its child
        await bot.wait()
        await wait_gone(child)
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
        if child and alive(child):
            os.kill(child, signal.SIGKILL)


async def test_a_site_that_cannot_listen_says_so_and_leaves_nothing_running(
        tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        p = SiteProcess({"CALICO_DB": str(tmp_path / "t.sqlite3"), "CALICO_WEB_PORT": str(port),
                         "CALICO_WEB_SECRET": "x"})
        with pytest.raises(RuntimeError, match="did not start"):
            await p.start()
        assert p.pid is not None and not alive(p.pid)


@pytest.mark.parametrize(("body", "code"), [
    ("sys.stdin.read()\n", 0),  # stops by itself once its input closes: no signal needed
    ("time.sleep(600)\n", -signal.SIGTERM),  # deaf to its input: terminated
    ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n", -signal.SIGKILL),
])
async def test_a_child_is_ended_however_it_answers(body: str, code: int) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import signal, sys, time\nprint('ready', flush=True)\n" + body,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert await asyncio.wait_for(proc.stdout.readline(), 30) == b"ready\n"
        await asyncio.wait_for(end_child(proc, grace=0.5), 10)
        assert proc.returncode == code
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
