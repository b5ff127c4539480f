"""Processes as the operating system sees them, read from ``/proc`` (Linux; psutil is not a
dependency): a process's descendants, and whether a process is still alive."""

from __future__ import annotations

import time
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of ``pid``, or None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    return fields[0], int(fields[1]), int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """Every living descendant of ``pid``: pid -> start time (to tell a reused pid apart)."""
    table: dict[int, tuple[int, int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] != "Z":
                table[int(entry.name)] = (stat[1], stat[2])
    found: dict[int, int] = {}
    parents = {pid}
    while parents:
        children = {p for p, (ppid, _) in table.items() if ppid in parents and p not in found}
        found.update({p: table[p][1] for p in children})
        parents = children
    return found


def alive(processes: dict[int, int]) -> dict[int, int]:
    """Those of ``processes`` (pid -> start time) still running (a zombie counts as gone)."""
    left = {}
    for pid, started in processes.items():
        stat = _stat(pid)
        if stat is not None and stat[0] != "Z" and stat[2] == started:
            left[pid] = started
    return left


def wait_gone(processes: dict[int, int], timeout: float) -> dict[int, int]:
    """Wait up to ``timeout`` seconds for ``processes`` to end; those still running."""
    deadline = time.monotonic() + timeout
    left = alive(processes)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = alive(left)
    return left


def command(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"
