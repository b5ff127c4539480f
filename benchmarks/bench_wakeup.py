"""How long a woken process waits for a CPU while other processes do CPU work at a low
priority (issue #32: why the web site at ``nice`` 19 still costs the players' clicks).

Two processes at the normal priority pass a byte back and forth over a socket pair (each round
trip is two wake-ups, as each hop of a click is: the fake Discord, the bot, its database
thread), 3 ms apart; meanwhile ``--burners`` processes (one per CPU by default) work in bursts
of ``--burst`` ms with 1 ms pauses, as a web site drawing pictures does (``--pin``: all of
them on one CPU, as the site's processes are now), at each of the
priorities asked: none (no burners), nice 0, nice 19, Linux's idle class, nice 19 with the
shortest time slice the kernel allows (``sched_setattr``'s runtime, Linux 6.12 and later), and
nice 19 with each burst run as the site runs a picture (``giveway``: the CPU offered every half
millisecond, :func:`bot.web.giveway.giving_way`).
Prints the round trip's p50 / p99 / p99.9 / max per priority.

    .venv/bin/python benchmarks/bench_wakeup.py
    .venv/bin/python benchmarks/bench_wakeup.py --burst 5 --seconds 8
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import multiprocessing
import os
import socket
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import load_text, pct, print_machine, table
from bot.web.giveway import giving_way

MODES = ("none", "nice0", "nice19", "idle", "slice", "giveway")
SYS_SCHED_SETATTR = 314  # x86-64


def short_slice(nice: int, slice_ns: int = 100_000) -> None:
    """This thread's time slice set to ``slice_ns`` (struct sched_attr, first version)."""
    attr = ctypes.create_string_buffer(
        struct.pack("IIQiIQQQII", 56, 0, 0, nice, 0, slice_ns, 0, 0, 0, 0))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(SYS_SCHED_SETATTR, 0, attr, 0) != 0:
        raise OSError(ctypes.get_errno(), "sched_setattr")


def burner(mode: str, burst: float, pin: bool) -> None:
    if pin:  # every burner on the last CPU, as the site's processes are (bot.web.process)
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    if mode == "nice19":
        os.nice(19)
    elif mode == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    elif mode == "slice":
        short_slice(19)
    elif mode == "giveway":
        os.nice(19)
    work = functools.partial(spin, burst)
    while True:
        giving_way(work) if mode == "giveway" else work()
        time.sleep(0.001)


def spin(seconds: float) -> None:
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        pass


def echo(s: socket.socket) -> None:
    while data := s.recv(64):
        s.send(data)


def round_trips(mode: str, burners: int, burst: float, seconds: float,
                pin: bool = False) -> list[float]:
    procs = [] if mode == "none" else [
        multiprocessing.Process(target=burner, args=(mode, burst, pin), daemon=True)
        for _ in range(burners)]
    a, b = socket.socketpair()
    echoer = multiprocessing.Process(target=echo, args=(b,), daemon=True)
    try:
        for p in (*procs, echoer):
            p.start()
        time.sleep(0.5)
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.perf_counter()
            a.send(b"x")
            a.recv(64)
            out.append(time.perf_counter() - t)
            time.sleep(0.003)
        return out
    finally:
        for p in (*procs, echoer):
            p.terminate()
            p.join()
        a.close()
        b.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--burst", type=float, default=5.0, help="ms of work between pauses")
    parser.add_argument("--seconds", type=float, default=8.0, help="per priority")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--pin", action="store_true",
                        help="the burners all on one CPU (the last), the others free")
    args = parser.parse_args()
    print_machine()
    print(f"kernel preemption: {Path('/sys/kernel/debug/sched/preempt').read_text().strip()}"
          if Path("/sys/kernel/debug/sched/preempt").exists() else "kernel preemption: "
          "(debugfs not mounted; the boot log says which)")
    rows = []
    for mode in args.modes.split(","):
        try:
            xs = round_trips(mode, args.burners, args.burst / 1000, args.seconds, args.pin)
        except OSError as e:
            rows.append([mode, "-", f"not allowed here: {e}", "", "", ""])
            continue
        us = [x * 1e6 for x in xs]
        rows.append([mode, len(us), f"{pct(us, 0.5):.0f}", f"{pct(us, 0.99):.0f}",
                     f"{pct(us, 0.999):.0f}", f"{max(us):.0f}"])
    print(table(["burners", "round trips", "p50 us", "p99 us", "p99.9 us", "max us"], rows))
    print(load_text())


if __name__ == "__main__":
    main()
