"""Rules-engine speed: apply, legal_moves, whole random games, the scorer and the score CLI.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--games N]``. Prints figures and the
targets they are compared with; it asserts nothing (timings depend on the machine).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import pct, print_machine  # noqa: E402
from data import load_catalog  # noqa: E402
from engine.config import GameOptions, Restriction, Setup  # noqa: E402
from engine.quilt_record import score_record  # noqa: E402
from engine.rules import apply, legal_moves  # noqa: E402
from engine.setup import new_game  # noqa: E402
from engine.state import Phase  # noqa: E402

GOLDEN = ROOT / "tests" / "engine" / "data" / "golden-records.json"

TARGET_APPLY_US = 100.0
TARGET_GAME_MS = 20.0
TARGET_SCORER_PER_S = 5000.0


def choose(state, rng):  # type: ignore[no-untyped-def]
    if state.phase is Phase.DRAFT:
        return rng.choice(legal_moves(state, state.deciding_seat))
    return rng.choice(legal_moves(state))


def bench_moves(catalog, games: int, clock=time.perf_counter_ns):  # type: ignore[no-untyped-def]
    """Per-call apply and legal_moves times (ns, by ``clock``) over random games of mixed
    options."""
    variants = [
        GameOptions(players=4),
        GameOptions(players=2, setup=Setup.BEGINNER),
        GameOptions(players=1),
        GameOptions(players=3, restriction=Restriction.SAME_COLOR),
        GameOptions(players=2, restriction=Restriction.ADJACENT),
    ]
    apply_ns: list[float] = []
    legal_ns: list[float] = []
    for g in range(games):
        rng = random.Random(g)
        state = new_game(catalog, variants[g % len(variants)], g)
        while state.phase is not Phase.OVER:
            t0 = clock()
            moves = legal_moves(state)
            legal_ns.append(clock() - t0)
            if state.phase is Phase.DRAFT:
                seat = state.deciding_seat
                moves = [m for m in moves if m.seat == seat]
            move = rng.choice(moves)
            t0 = clock()
            state, _ = apply(state, move)
            apply_ns.append(clock() - t0)
    return apply_ns, legal_ns


def bench_games(catalog, games: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """Wall and CPU time (ms) of whole random 4-player games: setup, goal draft, 88 turns
    (legal_moves, a random choice, apply) and the final scoring."""
    wall, cpu = [], []
    for g in range(games):
        rng = random.Random(10_000 + g)
        t0, c0 = time.perf_counter(), time.process_time()
        state = new_game(catalog, GameOptions(players=4), 10_000 + g)
        while state.phase is not Phase.OVER:
            state, _ = apply(state, choose(state, rng))
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


def bench_scorer(catalog, records: list[dict], repeat: int, rounds: int = 5):  # type: ignore[no-untyped-def]
    """Records per second through score_record, by wall clock and by CPU time, each the best
    of a few rounds (the machine is shared: the best round is closest to its real speed)."""
    batch = records * repeat
    wall = cpu = float("inf")
    for _ in range(rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        for rec in batch:
            score_record(catalog, rec)
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return len(batch) / wall, len(batch) / cpu


def random_records(catalog, n: int) -> list[dict]:  # type: ignore[no-untyped-def]
    """``n`` quilt records from random 4-player games: unlike the golden set repeated, almost
    every record has its own board/goals/cats combination, so no per-config cache helps."""
    from engine.play import play_game
    from engine.quilt_record import quilt_record

    out: list[dict] = []
    seed = 50_000
    while len(out) < n:
        game = play_game(catalog, GameOptions(players=4), seed, ("random",) * 4)
        out.extend(quilt_record(game.state, i) for i in range(4))
        seed += 1
    return out[:n]


def bench_cli(records: list[dict], n: int) -> tuple[float, float]:
    """Wall time (s) of ``python -m engine score`` on n records in one call, and on ``[]``."""
    batch = [records[i % len(records)] for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.json"
        path.write_text(json.dumps(batch))
        empty = Path(tmp) / "empty.json"
        empty.write_text("[]")
        times = []
        for f in (path, empty):
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "engine", "score", str(f)], cwd=ROOT,
                                 capture_output=True, text=True, check=True)
            times.append(time.perf_counter() - t0)
            if f == path:
                assert len(json.loads(out.stdout)) == n
    return times[0], times[1]


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60, help="random games for apply timing")
    parser.add_argument("--full-games", type=int, default=40, help="4-player games to time")
    args = parser.parse_args()

    print_machine()
    print("(wall clock, and CPU time of this process, which is what counts when other jobs share"
          " the cores)")
    catalog = load_catalog()
    records = [g["record"] for g in json.loads(GOLDEN.read_text())]

    bench_moves(catalog, 5)  # warm-up: first-use caches (cat shapes), imports
    apply_ns, legal_ns = bench_moves(catalog, args.games)
    apply_cpu, legal_cpu = bench_moves(catalog, args.games, time.process_time_ns)
    wall, cpu = bench_games(catalog, args.full_games)
    per_s, per_cpu_s = bench_scorer(catalog, records, 20)
    fresh = random_records(catalog, 960)
    fresh_s, fresh_cpu_s = bench_scorer(catalog, fresh, 1)
    cli_s, cli_startup_s = bench_cli(records, 1000)

    def us(values: list[float], p: float | None = None) -> float:
        return (statistics.median(values) if p is None else pct(values, p / 100, "nearest")) / 1000

    a_med, a_cpu = us(apply_ns), us(apply_cpu)
    print(f"apply:            median {a_med:7.1f} µs  p99 {us(apply_ns, 99):7.1f} µs (wall)   "
          f"median {a_cpu:7.1f} µs  p99 {us(apply_cpu, 99):7.1f} µs (CPU)   "
          f"({len(apply_ns)} moves, {args.games} games)")
    print(f"                  target median <= {TARGET_APPLY_US:.0f} µs: "
          f"{verdict(min(a_med, a_cpu) <= TARGET_APPLY_US)}")
    print(f"legal_moves:      median {us(legal_ns):7.1f} µs (wall)   "
          f"median {us(legal_cpu):7.1f} µs (CPU)")
    g_wall, g_cpu = statistics.median(wall), statistics.median(cpu)
    print(f"4-player game:    median {g_wall:7.1f} ms (wall), fastest {min(wall):.1f} ms   "
          f"median {g_cpu:7.1f} ms (CPU)   ({args.full_games} random games: setup, goal "
          f"draft, 88 turns with legal_moves, scoring)")
    print(f"                  target <= {TARGET_GAME_MS:.0f} ms: "
          f"{verdict(min(g_wall, g_cpu) <= TARGET_GAME_MS)}")
    print(f"scorer:           {per_s:7.0f} records/s (wall)   {per_cpu_s:7.0f} records/s (CPU)   "
          f"(score_record, the 48 golden records x 20, best of 5)")
    print(f"                  {fresh_s:7.0f} records/s (wall)   "
          f"{fresh_cpu_s:7.0f} records/s (CPU)   "
          f"(960 records of random 4-player games, each config new)")
    print(f"                  target >= {TARGET_SCORER_PER_S:.0f}/s: "
          f"{verdict(max(per_s, per_cpu_s) >= TARGET_SCORER_PER_S)} (golden), "
          f"{verdict(max(fresh_s, fresh_cpu_s) >= TARGET_SCORER_PER_S)} (random games)")
    print(f"CLI score 1,000:  {cli_s:7.2f} s wall in one call (start-up alone, scoring []: "
          f"{cli_startup_s:.2f} s)   design.md: well under 1 s: {verdict(cli_s < 1.0)}")


if __name__ == "__main__":
    main()
