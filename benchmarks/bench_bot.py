"""How fast a click gets its answer, through the real client and the local Discord stand-in.

Plays turns of a two-player game (alice and bob take turns through their DMs) and times, for
each click, the span from the moment the fake Discord dispatches the interaction to the moment
the bot's answer (the edited message, picture included) has reached it. Two kinds of click:
choosing a cell (the preview: a render plus an engine preview) and taking a market tile (the
commit: storage and the manager; the answer keeps the preview picture and draws nothing, the
new quilt goes to the thread through the outbox). Prints the machine and median / p90 / p99 /
max. The clicks start once the bot has started, its sample pictures drawn (``images.warm_up``:
the first pictures of a process fill the font and sprite caches, a few hundred ms each).

    .venv/bin/python -m benchmarks.bench_bot [--turns N] [--metrics on|off|both] [--rounds R]

``--metrics off`` replaces the recording of interactions (``bot.adapter.telemetry``: the stamp
when one arrives, the counter and histogram when it is answered) with no-ops; ``both``
alternates runs with and without it (``--rounds`` of each), so that both see the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import pct, print_machine
from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.models import GameStatus
from engine.hexgrid import cell_name
from tests.adapter.harness import bot, bot_factory, game_of, pick_move, wait_panel
from tests.fakediscord import DiscordEnv


async def timed(env: DiscordEnv, action: object) -> float:
    start = time.perf_counter()
    inter = await action  # type: ignore[misc]
    await inter.wait_response(timeout=10)
    # The answer has reached Discord once the response (and any edit after a defer) is there.
    if inter.deferred:
        await env.wait_for(lambda: any(e.kind in ("edit_original", "followup")
                                       for e in inter.events), timeout=10)
    return (time.perf_counter() - start) * 1000


async def run(turns: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {"cell (preview)": [], "take (commit)": []}
    async with DiscordEnv() as env:
        with tempfile.TemporaryDirectory() as tmp:
            await env.start_client(bot_factory(Path(tmp) / "bench.sqlite3", FakeClock()))
            warming = bot(env).warming
            if warming is not None:
                await warming  # a running bot: its start-up pictures are drawn
            inter = await env.slash("alice", "calico", "start",
                                    options={"players": 2, "setup": "beginner"})
            await inter.wait_response()
            await inter.wait_followup()
            thread = env.threads(env.channel)[-1]
            lobby = env.messages(thread.id)[0]
            await (await env.click("bob", lobby, label="Join")).wait_response()
            await (await env.click("alice", env.get_message(lobby.id),
                                   label="Start")).wait_response()
            game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
            assert game is not None
            names = {env.user(n).id: n for n in ("alice", "bob")}
            for _ in range(turns):
                game = await game_of(env, game.id)
                if game.status is not GameStatus.PLAY:
                    break
                user = names[game.current_user_id or 0]
                panel = await wait_panel(env, user, game.id, game.ply, timeout=10)
                move = pick_move(game, env.user(user).id)
                cell = cell_name(move.cell)
                src = f"h{move.hand}"
                results["cell (preview)"].append(await timed(env, env.select(
                    user, panel, f"calico:c:{game.id}:{game.ply}:{src}", [cell])))
                take = f"calico:t:{game.id}:{game.ply}:{src}:{cell}:" + (
                    "x" if move.market is None else str(move.market))
                results["take (commit)"].append(await timed(env, env.click(
                    user, env.get_message(panel.id), custom_id=take)))
            await env.stop_client()
    return results


@contextlib.contextmanager
def metrics_off() -> Iterator[None]:
    """Interactions go unrecorded: no stamp, no counter, no histogram."""
    from bot.adapter import telemetry

    saved = telemetry.admitted, telemetry.answered
    telemetry.admitted = lambda interaction: None  # type: ignore[assignment]
    telemetry.answered = lambda metrics, interaction, outcome: None  # type: ignore[assignment]
    try:
        yield
    finally:
        telemetry.admitted, telemetry.answered = saved


def report(title: str, results: dict[str, list[float]]) -> None:
    print(title)
    every = [v for values in results.values() for v in values]
    for name, values in [*results.items(), ("all clicks", every)]:
        if not values:
            continue
        print(f"  {name:16s} n={len(values):3d}  median {statistics.median(values):6.1f} ms  "
              f"p90 {pct(values, 0.9, 'nearest'):6.1f} ms  "
              f"p99 {pct(values, 0.99, 'nearest'):6.1f} ms  "
              f"max {max(values):6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=44)
    parser.add_argument("--metrics", choices=("on", "off", "both"), default="on")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each mode")
    args = parser.parse_args()
    print_machine()
    modes = ["on", "off"] if args.metrics == "both" else [args.metrics]
    totals: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
    for _ in range(args.rounds):
        for mode in modes:
            load = os.getloadavg()[0]
            with metrics_off() if mode == "off" else contextlib.nullcontext():
                started = time.process_time()
                results = asyncio.run(run(args.turns))
                cpu = time.process_time() - started
            clicks = sum(len(v) for v in results.values())
            print(f"metrics {mode}: {clicks} clicks, load average {load:.1f}, "
                  f"{cpu / max(1, clicks) * 1000:.1f} ms CPU per click (whole process)")
            for name, values in results.items():
                totals[mode].setdefault(name, []).extend(values)
    for mode in modes:
        report(f"metrics {mode}:", totals[mode])
    print("targets: median ≤ 100 ms, p99 ≤ 300 ms (click to answer, rendering included)")


if __name__ == "__main__":
    main()
