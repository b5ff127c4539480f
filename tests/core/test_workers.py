"""Worker processes die with the bot (issue 20, item 10): SIGKILL the process that owns the
computer players' pool and the review lane, and every process it started (the workers and
multiprocessing's resource tracker) is gone within seconds, as a host would see it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.procfs import alive, command, descendants, wait_gone

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def test_workers_and_their_tracker_die_with_a_killed_parent() -> None:
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tests.core.workers_host"], cwd=ROOT,
                            env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    children: dict[int, int] = {}
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", line + proc.stdout.read()
        children = descendants(proc.pid)
        # Two workers (computers, reviews) and the resource tracker, at least.
        assert len(children) >= 3, {p: command(p) for p in children}
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
        left = wait_gone(children, timeout=5.0)
        assert not left, f"still running after the parent was killed: " \
                         f"{ {p: command(p) for p in left} }"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in alive(children):  # only what this test started, should it fail
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
