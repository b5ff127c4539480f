"""What recording costs on the click path: nanoseconds per observation.

Times ``Metrics.record_interaction`` (one counter increment and one histogram observation, the
label children resolved once per kind and outcome), the ``with metrics.interaction(...)`` form
(adds two ``perf_counter`` calls), a Discord error, and a ``log_context`` block, each over a
realistic spread of kinds and outcomes, minus the cost of the bare loop. Compare with a click's
answer time in ``bench_bot`` (tens of milliseconds): a microsecond is a few hundredths of a
percent.

    .venv/bin/python -m benchmarks.bench_metrics [--n N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_machine
from bot.ops.logs import log_context
from bot.ops.metrics import Metrics, Outcome

KINDS = [f"button:{name}" for name in ("cell", "tile", "take", "goal", "confirm", "undo")] + [
    f"slash:{name}" for name in ("play", "new", "join", "stats", "hand", "board")]
OUTCOMES: list[Outcome] = ["ok"] * 7 + ["refused", "error", "deferred"]


def per_call(fn: Callable[[int], None], n: int, repeats: int = 15) -> float:
    """Best of ``repeats`` runs, ns per call (the best run is the least disturbed one)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter_ns()
        fn(n)
        best = min(best, (time.perf_counter_ns() - start) / n)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50_000, help="observations per run")
    args = parser.parse_args()
    n = args.n
    metrics = Metrics(version="bench")
    pairs = [(KINDS[i % len(KINDS)], OUTCOMES[i % len(OUTCOMES)]) for i in range(997)]
    seconds = [0.005 + (i % 400) / 100 for i in range(997)]

    def bare(count: int) -> None:
        for i in range(count):
            j = i % 997
            _ = pairs[j], seconds[j]

    def record(count: int) -> None:
        observe = metrics.record_interaction
        for i in range(count):
            j = i % 997
            kind, outcome = pairs[j]
            observe(kind, outcome, seconds[j])

    def block(count: int) -> None:
        for i in range(count):
            with metrics.interaction(pairs[i % 997][0]) as ix:
                ix.outcome = pairs[i % 997][1]

    def error(count: int) -> None:
        for i in range(count):
            _ = pairs[i % 997], seconds[i % 997]
            metrics.record_discord_error(403, 50007)

    def context(count: int) -> None:
        for i in range(count):
            _ = pairs[i % 997], seconds[i % 997]
            with log_context(game=i, interaction=i, user=42):
                pass

    record(1000)  # resolve every label child before timing
    base = per_call(bare, n)
    print_machine()
    print(f"{n} observations per run, best of 15, the bare loop ({base:.0f} ns) subtracted")
    for name, fn in (("record_interaction", record), ("with metrics.interaction()", block),
                     ("record_discord_error", error), ("log_context block", context)):
        print(f"  {name:<28} {per_call(fn, n) - base:7.0f} ns per observation")


if __name__ == "__main__":
    main()
