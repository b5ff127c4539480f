"""Where a strong move's time goes (issue 31): strong's moves on the positions of two solo games
(the normal player's, seeds 1000-1001), timed, then profiled with cProfile; self time grouped by
what it does (builtins given to their callers), and the cumulative time of the main phases.

    .venv/bin/python benchmarks/profile_ai.py [--tree DIR] [NAME=VALUE ...]

``--tree``: the ``engine`` and ``data`` of another checkout (``git archive REV engine data``);
``NAME=VALUE``: strong's settings (``rounds=1 playout_depth=4``)."""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

GROUPS = {"frame.py": "frame: values of placements", "evaluate.py": "value function",
          "model.py": "quilt model: placing, groups", "players.py": "search",
          "goals.py": "goal and cat tables, leaf values", "tables.py":
          "goal and cat tables, leaf values", "leaf.py": "goal and cat tables, leaf values",
          "seen.py": "sampling futures"}
PHASES = {"_refine", "play_out", "sample_futures", "best_value", "top_placements", "values",
          "frame_of", "place", "value"}


def group(fn: tuple[str, int, str]) -> str | None:
    path, _, name = fn
    if path.startswith(("~", "<")):
        return None
    base = path.rsplit("/", 1)[-1]
    if base == "rollout.py":
        return "sampling futures" if "sample" in name else "playouts: the rollout policy"
    if base in GROUPS:
        return GROUPS[base]
    return "engine rules and scoring" if "/engine/" in path else "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("settings", nargs="*")
    args = ap.parse_args()
    sys.path.insert(0, args.tree)  # engine and data from the tree, benchmarks from here
    sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
    from benchmarks.common import print_machine
    from data import load_catalog
    from engine.ai import make_player
    from engine.config import GameOptions
    from engine.rules import apply, legal_moves
    from engine.setup import new_game
    from engine.state import Phase
    from engine.views import private_view

    print_machine()
    over = dict(a.split("=", 1) for a in args.settings)
    catalog = load_catalog()
    positions: list[tuple[int, Any, Any]] = []
    for seed in (1000, 1001):
        state = new_game(catalog, GameOptions(players=1), seed)
        normal = make_player("normal", seed)
        while state.phase is not Phase.OVER:
            legal, view = legal_moves(state, 0), private_view(state, 0)
            if state.phase is Phase.PLAY:
                positions.append((seed, view, legal))
            state, _ = apply(state, normal.choose(view, legal))

    def run() -> list[float]:
        out = []
        for seed, view, legal in positions:
            player = make_player("strong", seed)
            for k, v in over.items():
                setattr(player, k, None if v == "None" else (float(v) if "." in v else int(v)))
            c0 = time.process_time()
            player.choose(view, legal)
            out.append(time.process_time() - c0)
        return out

    ts = sorted(run())
    print(f"{args.tree} {over}: {len(ts)} moves, CPU median {1000 * ts[len(ts) // 2]:.0f} ms, "
          f"max {1000 * ts[-1]:.0f} ms, total {sum(ts):.2f} s")
    prof = cProfile.Profile()
    prof.enable()
    run()
    prof.disable()
    stats: Any = pstats.Stats(prof).stats
    total: dict[str, float] = defaultdict(float)
    for fn, (_, _, tt, _, callers) in stats.items():
        g = group(fn)
        if g is not None:
            total[g] += tt
            continue
        share = sum(v[2] for v in callers.values()) or 1.0
        for caller, v in callers.items():
            total[group(caller) or "other"] += tt * v[2] / share
    whole = sum(total.values())
    print("self time (profiled):")
    for g, v in sorted(total.items(), key=lambda x: -x[1]):
        print(f"  {g:40s} {v:7.2f} s {100 * v / whole:5.1f} %")
    print("cumulative, by phase:")
    rows = [(ct, fn) for fn, (_, _, _, ct, _) in stats.items()
            if fn[2] in PHASES and "/engine/" in fn[0]]
    for ct, (path, line, name) in sorted(rows, reverse=True):
        print(f"  {path.rsplit('/', 1)[-1]}:{line} {name:16s} {ct:7.2f} s "
              f"{100 * ct / whole:5.1f} %")


if __name__ == "__main__":
    main()
