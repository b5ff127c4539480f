"""The live progress's cost (issue 30): what :mod:`engine.progress` takes per quilt picture
(every goal's state and value, every pattern group toward a cat), over the quilts of seeded
games at every turn, and the quilt picture that draws it.

Run: nice -n 10 .venv/bin/python benchmarks/bench_live_progress.py [--games N] [--repeat N]
[--pictures N] (quilt pictures timed for each of the two quilts).
Budget: the quilt picture <= 15 ms median (``bench_render.py``'s); the progress is a part of it.
The states are the quilts of ``--games`` 4-player games of uniformly random moves and two
4-player games of the normal computer player, after every move.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import print_machine
from engine.config import GameConfig, GameOptions
from engine.progress import goal_progress, growing_groups
from engine.serialize import replay_views
from engine.views import PublicView, SeatView
from render import render_quilt
from render.samples import play_record


def quilts(games: int) -> list[tuple[GameConfig, SeatView]]:
    from data import load_catalog

    catalog = load_catalog()
    out: list[tuple[GameConfig, SeatView]] = []
    records = [play_record(GameOptions(players=4), seed) for seed in range(games)]
    records += [play_record(GameOptions(players=4), seed, ("normal",) * 4)
                for seed in (100, 101)]
    for record in records:
        views: list[PublicView] = replay_views(catalog, record)
        for view in views:
            out += [(view.config, sv) for sv in view.seats if sv.goals is not None]
    return out


def progress(config: GameConfig, sv: SeatView) -> Any:
    """What a quilt picture computes: the goals and the groups it rings (the public tiles
    seen elsewhere, when the code has them)."""
    assert sv.goals is not None
    elsewhere = getattr(sv, "elsewhere", None)
    goals = (goal_progress(config, sv.quilt, sv.goals) if elsewhere is None
             else goal_progress(config, sv.quilt, sv.goals, elsewhere))
    return goals, growing_groups(config, sv.quilt, [c for c, _ in sv.cats])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pictures", type=int, default=200)
    args = parser.parse_args()
    print_machine()
    states = quilts(args.games)
    per_quilt: list[float] = []
    calls: list[float] = []
    for _ in range(args.repeat):
        t0 = time.thread_time()
        for config, sv in states:
            t = time.thread_time()
            progress(config, sv)
            calls.append(time.thread_time() - t)
        per_quilt.append((time.thread_time() - t0) / len(states))
    calls.sort()
    print(f"progress per quilt ({len(states):,} quilts x {args.repeat}), CPU: "
          f"mean {statistics.median(per_quilt) * 1e6:.0f} us (median of the passes), "
          f"p99 {calls[int(len(calls) * 0.99)] * 1e6:.0f} us, max {calls[-1] * 1e3:.2f} ms")
    # The quilt picture with its progress: a quilt half way through a game of the normal
    # computer players (goals still open) and a finished one.
    for label, (config, sv) in (("mid-game", states[-len(states) // 4]),
                                ("finished", states[-1])):
        render_quilt(sv, config, name="Marguerite")
        wall, cpu = [], []
        for _ in range(args.pictures):
            t, c = time.perf_counter(), time.thread_time()
            render_quilt(sv, config, name="Marguerite")
            cpu.append((time.thread_time() - c) * 1000)
            wall.append((time.perf_counter() - t) * 1000)
        print(f"quilt picture, {label}: median {statistics.median(wall):.2f} ms "
              f"(CPU {statistics.median(cpu):.2f} ms); budget 15 ms")

if __name__ == "__main__":
    main()
