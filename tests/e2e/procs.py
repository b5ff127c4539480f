"""Real bot processes for end-to-end tests: ``calico-bot run`` started as OS processes against
the fake Discord (``tests.fakediscord.remote`` points discord.py at it), killed with SIGKILL or
stopped with SIGTERM like a host would, and a read-only view of their database.

Used by the crash, shutdown and several-process tests. Each process logs to its own file (shown
when a test fails); ``CALICO_AI_WORKERS=0`` keeps computer players in threads so that a test
starting several bots does not also start a pool of processes per bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

from tests.fakediscord import DiscordEnv

ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    """One ``calico-bot run`` process (see the module docstring)."""

    def __init__(self, env: DiscordEnv, db: str, log_dir: Path, name: str = "bot",
                 **settings: str) -> None:
        self.env = env
        self.db = db
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self.settings = settings
        self.proc: asyncio.subprocess.Process | None = None

    def environ(self) -> dict[str, str]:
        remote = self.env.remote_environ()
        values = {k: v for k, v in os.environ.items()
                  if not k.startswith("CALICO_") and k != "DISCORD_TOKEN"}
        values.update(remote)
        values.update({
            "DISCORD_TOKEN": remote["FAKEDISCORD_TOKEN"], "CALICO_DB": self.db,
            "CALICO_AI_WORKERS": "0", "CALICO_LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": "1",
        })
        values.update({k.upper(): v for k, v in self.settings.items()})
        return values

    async def start(self) -> BotProcess:
        log = self.log_path.open("ab")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.fakediscord.remote", "bot", "run", cwd=ROOT,
            env=self.environ(), stdout=log, stderr=asyncio.subprocess.STDOUT)
        log.close()
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL: no cleanup at all, as a host (or the kernel) kills a process."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)

    async def wait(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def stop(self) -> None:
        """Whatever state it is in: gone at the end of a test."""
        if self.running:
            self.terminate()
            try:
                await self.wait(15)
            except TimeoutError:
                self.kill()
                await self.wait(5)


async def stop_all(bots: list[BotProcess]) -> None:
    await asyncio.gather(*(b.stop() for b in bots), return_exceptions=True)


def logs(bots: list[BotProcess]) -> str:
    """Every process's log tail, for an assertion message."""
    return "\n".join(f"--- {b.name}\n{b.log()[-3000:]}" for b in bots)
