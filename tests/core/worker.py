"""A bot process in miniature, for the tests of several processes on one PostgreSQL database:
``python -m tests.core.worker COMMAND DB ...`` runs one job through a real Manager in its own OS
process and prints what it did as JSON on standard output.

- ``click DB GAME USER PLY MOVE N``: N identical ``play_turn`` calls at once;
  prints ``{"ok": k, "stale": m, "other": [...]}``.
- ``drain DB SECONDS GO``: once the file GO exists (the test creates it when every worker
  has written ``GO.<pid>``: they start together), a dispatcher delivering for SECONDS with a
  delivery that takes a few milliseconds per notice; prints the keys it delivered.
- ``sweep DB NOW_MS``: one sweep at that time (a fake clock); prints the report's counts.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime

from bot.core import turns
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import ManagerError
from bot.core.notices import Notice
from bot.core.outbox import Receipt


class SlowDelivery:
    def __init__(self) -> None:
        self.keys: list[str] = []

    async def deliver(self, notice: Notice) -> Receipt | None:
        await asyncio.sleep(0.01)
        self.keys.append(notice.key)
        return None


async def click(db: str, game: int, user: int, ply: int, move: str, n: int) -> dict[str, object]:
    m = await Manager.open(db)
    try:
        results = await asyncio.gather(*(turns.play_turn(m.kernel,
                                                         game, user, ply, move) for _ in range(n)),
                                       return_exceptions=True)
    finally:
        await m.close()
    ok = sum(1 for r in results if not isinstance(r, BaseException))
    stale = sum(1 for r in results if isinstance(r, ManagerError) and r.code == "stale")
    other = [repr(r) for r in results if isinstance(r, BaseException)
             and not (isinstance(r, ManagerError) and r.code == "stale")]
    return {"ok": ok, "stale": stale, "other": other}


async def drain(db: str, seconds: float, go: str) -> dict[str, object]:
    import os
    from pathlib import Path

    m = await Manager.open(db)
    Path(f"{go}.{os.getpid()}").touch()
    while not Path(go).exists():
        await asyncio.sleep(0.01)
    out = SlowDelivery()
    d = m.dispatcher(out, concurrency=4, per_lane=2, poll_interval=0.05)
    task = asyncio.create_task(d.run_forever())
    await asyncio.sleep(seconds)
    d.stop()
    await task
    await m.close()
    return {"keys": out.keys}


async def sweep(db: str, now_ms: int) -> dict[str, object]:
    clock = FakeClock(datetime.fromtimestamp(now_ms / 1000, UTC))
    m = await Manager.open(db, clock=clock)
    try:
        report = await m.sweep()
    finally:
        await m.close()
    return {"reminders": report.reminders, "autoplayed": report.autoplayed,
            "details": report.details}


def main(argv: list[str]) -> None:
    command, db, *rest = argv
    if command == "click":
        result = asyncio.run(click(db, int(rest[0]), int(rest[1]), int(rest[2]), rest[3],
                                   int(rest[4])))
    elif command == "drain":
        result = asyncio.run(drain(db, float(rest[0]), rest[1]))
    elif command == "sweep":
        result = asyncio.run(sweep(db, int(rest[0])))
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
