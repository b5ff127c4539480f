"""A host for the real worker pools, run as its own process by tests/core/test_workers.py:
starts the computer players' pool and the review lane (one worker each), makes sure each
worker runs, prints ``ready`` and waits to be killed."""

from __future__ import annotations

import asyncio
import sys

from bot.core.computers import ComputerPool
from bot.core.review.service import Lane


async def main() -> None:
    computers, reviews = ComputerPool(1), Lane(1)
    await computers.warm_up()
    await reviews.warm_up()
    print("ready", flush=True)
    await asyncio.sleep(120)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
