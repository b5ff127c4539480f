"""The site in a child process the bot starts, watches and stops (``CALICO_WEB_PROCESS=apart``,
the default).

Why a process: page views are CPU work (templates, decoding stored games, pictures), and on
the bot's own event loop 100 of them a second slowed the players' clicks by half or more at
p99 (docs/performance.md, "The web site"); in a process of its own, below the bot's priority,
much less (not nothing: two CPUs are still shared). The child is
``python -m bot web --parent``: it reads the same database (SQLite in WAL mode or PostgreSQL),
runs below the bot's priority (:func:`lower_priority`), says where it listens on its first line of
output, and exits when its standard input closes,
so it never outlives the bot, even one killed without a chance to stop it. The bot restarts a
child that dies (at most once a second) on the port it first had, so links stay the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from pathlib import Path

from bot.web import giveway

log = logging.getLogger("calico.web")

ROOT = Path(__file__).resolve().parents[2]
NICENESS = 19  # the site's processes' priority: the lowest there is
READY = "calico-web listening "  # the child's first line: READY + its URL
# Settings the child does not need: the bot's token stays in the bot's process.
WITHHELD = ("CALICO_TOKEN", "DISCORD_TOKEN")


def lower_priority() -> bool:
    """Put this thread, and the threads it starts from now on, behind every other (``nice``
    19, the lowest) and, on a machine of several CPUs, on its last quarter of them (one of two
    or four): page views then take as little CPU from the players' clicks as the scheduler
    allows, and never every CPU at once. Priority alone is not enough: on a kernel that does not
    preempt on wake-up (this project's test machines: benchmarks/bench_wakeup.py) a woken bot
    thread can wait a tick behind the site whatever its priority, unless a CPU is free of it.
    Not Linux's idle class, no better there and, with every CPU busy (tests or benchmarks
    beside the bot), it starved the site outright; instead the process's work pauses while the
    machine has no CPU to spare (:func:`bot.web.giveway.defer_when_full`). Call it before
    starting threads (Linux keeps both per thread). False if not allowed."""
    try:
        os.nice(NICENESS - os.nice(0))
    except OSError:
        return False
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: not on Linux
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) > 1:
            os.sched_setaffinity(0, cpus[-max(1, len(cpus) // 4):])
    giveway.defer_when_full()  # and its work pauses while the machine has no CPU to spare
    return True


class SiteProcess:
    """One child process serving the site; ``url`` once :meth:`start` returned."""

    def __init__(self, env: dict[str, str], *, start_timeout: float = 30.0,
                 restart_delay: float = 1.0) -> None:
        self._env = {k: v for k, v in {**os.environ, **env}.items() if k not in WITHHELD}
        self._env["DISCORD_TOKEN"] = ""  # and not read from a .env file either
        # The same working directory (a relative database path means the same file); this
        # package importable from it however it was installed.
        self._env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        self._start_timeout = start_timeout
        self._restart_delay = restart_delay
        self._proc: asyncio.subprocess.Process | None = None
        self._watch: asyncio.Task[None] | None = None
        self._drain: asyncio.Task[None] | None = None
        self._stopping = False
        self.url = ""
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    async def start(self) -> None:
        """Start the child and wait until it listens (``RuntimeError`` if it never does)."""
        await self._spawn()
        self._watch = asyncio.create_task(self._watch_child(), name="web site process")

    async def _spawn(self) -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "web", "--parent", env=self._env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        self._proc = proc
        assert proc.stdout is not None
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), self._start_timeout)
        except TimeoutError:
            line = b""
        text = line.decode(errors="replace").strip()
        if not text.startswith(READY):
            await end_child(proc)
            raise RuntimeError(f"the web site's process did not start (exit {proc.returncode})")
        self.url = text.removeprefix(READY)
        self._drain = asyncio.create_task(_drain(proc.stdout), name="web site output")
        # The port it bound stays the site's: a restarted child listens where links point.
        self._env["CALICO_WEB_PORT"] = self.url.rsplit(":", 1)[1]

    async def _watch_child(self) -> None:
        while not self._stopping:
            proc = self._proc
            assert proc is not None
            code = await proc.wait()
            if self._stopping:
                return
            log.warning("the web site's process ended (exit %s); starting it again", code)
            began = time.monotonic()
            while not self._stopping:
                await asyncio.sleep(max(0.0, self._restart_delay - (time.monotonic() - began)))
                began = time.monotonic()
                try:
                    await self._spawn()
                    self.restarts += 1
                    break
                except (OSError, RuntimeError):
                    log.exception("starting the web site's process again failed")

    async def stop(self) -> None:
        """Stop the child (its standard input closed, then SIGTERM, then SIGKILL)."""
        self._stopping = True
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        if self._proc is not None:
            await end_child(self._proc)
        if self._drain is not None:
            await self._drain  # the child's output ended with it


async def end_child(proc: asyncio.subprocess.Process, grace: float = 5.0) -> None:
    """End a child: its standard input closed (it stops by itself), then after ``grace``
    seconds SIGTERM, then SIGKILL: a hung child never holds up the bot's shutdown."""
    if proc.returncode is None and proc.stdin is not None:
        proc.stdin.close()
    for signal_it in (None, proc.terminate, proc.kill):
        if proc.returncode is not None:
            break
        if signal_it is not None:
            with contextlib.suppress(ProcessLookupError):
                signal_it()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
    if proc.returncode is None:
        await proc.wait()


async def _drain(stream: asyncio.StreamReader) -> None:
    """Read whatever else the child prints (its logs go to standard error), so a full pipe
    never blocks it."""
    while await stream.read(65536):
        pass
