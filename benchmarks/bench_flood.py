"""One person floods a real bot process while two others play, with the cooldowns on (the
defaults) and off: how fast the players' clicks are answered, and how the flood was.

Runs ``tests/e2e/flood.py`` (a ``calico-bot run`` process against the local Discord stand-in)
and prints the machine, its load, and per run: the players' click latency (median, p90, max),
the flood's size and rate, how its interactions were answered, and how quickly.

    .venv/bin/python -m benchmarks.bench_flood [--turns N] [--flood N] [--interval S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_machine
from tests.e2e.flood import FloodReport, run_flood
from tests.fakediscord import DiscordEnv

MODES = {
    "cooldowns on (defaults)": {},
    "cooldowns off": {"calico_start_cooldown": "0", "calico_picture_cooldown": "0"},
}


async def one(settings: dict[str, str], turns: int, flood: int, interval: float) -> FloodReport:
    async with DiscordEnv(interaction_deadline=3.0) as env:
        with tempfile.TemporaryDirectory() as tmp:
            return await run_flood(env, Path(tmp), turns=turns, interval=interval,
                                   limit=flood, **settings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=6, help="turns each player plays")
    parser.add_argument("--flood", type=int, default=400, help="interactions at most")
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between them")
    args = parser.parse_args()
    print_machine()
    for name, settings in MODES.items():
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        report = asyncio.run(one(settings, args.turns, args.flood, args.interval))
        print(f"{name}: {report.summary()}")


if __name__ == "__main__":
    main()
