"""Issue #23's figure: pairing a Swiss round of 512 entrants (target: under a second).

A Swiss of ``--entrants`` players (ratings drawn) is played for ``--rounds`` rounds with random
results; each round's pairing (:func:`bot.core.tournament.pairing.swiss_round`, the pure part
of a round start) and the standings it starts from
(:func:`bot.core.tournament.pairing.standings`) are timed. The late rounds are the hard ones:
more pairs have met, so the search backs up more.

Run: .venv/bin/python benchmarks/bench_tournament.py [--entrants 512] [--rounds 9] [--size 2]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import pct, print_machine
from bot.core.tournament.pairing import Played, Seed, standings, swiss_round, table_points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--size", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    print_machine()
    rng = random.Random(args.seed)
    ids = list(range(1, args.entrants + 1))
    rating = {u: rng.gauss(0, 8) for u in ids}
    played: list[Played] = []
    pair_s: list[float] = []
    board_s: list[float] = []
    repeats = 0
    for round_no in range(1, args.rounds + 1):
        t = time.perf_counter()
        board = {s.user_id: s for s in standings(ids, played)}
        board_s.append(time.perf_counter() - t)
        seeds = [Seed(u, board[u].points, rating[u], board[u].byes) for u in ids]
        t = time.perf_counter()
        got = swiss_round(seeds, played, args.size)
        pair_s.append(time.perf_counter() - t)
        repeats += got.repeats
        if got.bye is not None:
            played.append(Played(round_no, (got.bye,), (2 * (args.size - 1),), (0,)))
        for table in got.tables:
            places = list(range(1, len(table) + 1))
            rng.shuffle(places)
            played.append(Played(round_no, table, table_points(places),
                                 tuple(rng.randrange(40, 90) for _ in table)))
        print(f"round {round_no}: pairing {pair_s[-1] * 1000:7.1f} ms, "
              f"standings {board_s[-1] * 1000:6.1f} ms, {len(got.tables)} tables, "
              f"repeats {got.repeats}", flush=True)
    worst = max(pair_s)
    print(f"{args.entrants} entrants, tables of {args.size}, {args.rounds} rounds: pairing "
          f"median {pct(pair_s, 0.5) * 1000:.1f} ms, worst {worst * 1000:.1f} ms "
          f"(target < 1000 ms: {'met' if worst < 1 else 'MISSED'}); standings worst "
          f"{max(board_s) * 1000:.1f} ms; repeated pairs {repeats}")


if __name__ == "__main__":
    main()
