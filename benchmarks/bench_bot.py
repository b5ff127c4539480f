"""How fast a click gets its answer, through the real client and the local Discord stand-in.

Plays turns of a two-player game (alice and bob take turns through their DMs) and times, for
each click, the span from the moment the fake Discord dispatches the interaction to the moment
the bot's answer (the edited message, picture included) has reached it. Two kinds of click:
choosing a cell (the preview: a render plus an engine preview) and taking a market tile (the
commit: storage and the manager; the answer keeps the preview picture and draws nothing, the
new quilt goes to the thread through the outbox). Prints the machine and median / p90 / p99 /
max.

    .venv/bin/python -m benchmarks.bench_bot [--turns N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.clock import FakeClock
from bot.core.models import GameStatus
from engine.hexgrid import cell_name
from tests.bot_ui.harness import bot, bot_factory, game_of, pick_move, wait_panel
from tests.fakediscord import DiscordEnv


def machine() -> str:
    return (f"{platform.machine()} · {os.cpu_count()} CPUs · {platform.processor() or '?'} · "
            f"Python {platform.python_version()} · {platform.system()} {platform.release()}")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


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
    env = DiscordEnv()
    await env.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            await env.start_client(bot_factory(Path(tmp) / "bench.sqlite3", FakeClock()))
            inter = await env.slash("alice", "calico", "start",
                                    options={"players": 2, "setup": "beginner"})
            await inter.wait_response()
            await inter.wait_followup()
            thread = env.threads(env.channel)[-1]
            lobby = env.messages(thread.id)[0]
            await (await env.click("bob", lobby, label="Join")).wait_response()
            await (await env.click("alice", env.get_message(lobby.id),
                                   label="Start")).wait_response()
            game = await bot(env).manager.game_for_thread(thread.id)
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
    finally:
        await env.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=44)
    args = parser.parse_args()
    print("machine:", machine())
    results = asyncio.run(run(args.turns))
    every = [v for values in results.values() for v in values]
    for name, values in [*results.items(), ("all clicks", every)]:
        if not values:
            continue
        print(f"{name:16s} n={len(values):3d}  median {statistics.median(values):6.1f} ms  "
              f"p90 {pct(values, 0.9):6.1f} ms  p99 {pct(values, 0.99):6.1f} ms  "
              f"max {max(values):6.1f} ms")
    print("targets: median ≤ 100 ms, p99 ≤ 300 ms (click to answer, rendering included)")


if __name__ == "__main__":
    main()
