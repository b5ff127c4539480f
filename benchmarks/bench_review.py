"""Speed of the game review and the hints (issue 13), and the leaf calibration they use.

    .venv/bin/python benchmarks/bench_review.py                # review and hint timings
    .venv/bin/python benchmarks/bench_review.py --games 3      # more games per size
    .venv/bin/python benchmarks/bench_review.py --calibrate 300 > engine/ai/leaf.py

Printed, after the machine line (platform, CPU, Python, load average):

- **review**: for solo and 2-player standard games played by the ``normal`` computer player
  (fixed seeds), the wall-clock and CPU time of reviewing seat 0 (22 turns and the goal
  draft) in this one process, with the number of sampled futures per turn and the playout
  depth; the target is 20 s;
- **hints**: the time of :func:`engine.ai.hints.hints` at every turn of one 2-player game
  (median, 90th percentile, max); the target is 1.5 s.
- **through the bot** (``--bot-games``, default 1): the bot's own path
  (:class:`bot.core.review.service.ReviewService` on a temporary SQLite database): a solo standard
  game played by the ``normal`` computer player for a person's seat, a hint taken at each of its
  turns (in the computer players' worker process), then the review of the finished game in the
  review worker process (started beforehand; its start-up is printed apart), with the event loop's
  worst delay measured by a 10 ms ticker while the review runs, and the stored review asked for
  again.

``--calibrate N`` plays N games per table row with the rollout policy itself (seat 0; the other
seats only take market tiles, as in the playouts), records the value function after each turn
and the final score, and prints the module ``engine/ai/leaf.py``: per player count, with or
without design goals, the mean of (final score - value) by the empty cells left.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import Stopwatch, lag_monitor, load_text, pct, print_machine
from bot.core import lobby, turns
from data import load_catalog
from engine.ai import make_player
from engine.ai.hints import hints
from engine.ai.review import DEFAULT_SAMPLES, review_record
from engine.ai.rollout import DEFAULT_DEPTH, SeatSim, derive_seed
from engine.config import GameOptions
from engine.moves import ChooseGoals, Move
from engine.rules import apply, legal_moves
from engine.serialize import game_record
from engine.setup import new_game
from engine.state import Phase
from engine.views import private_view

CATALOG = load_catalog()
BENCH_USER = 1001


def played_game(players: int, seed: int) -> tuple[GameOptions, list[Move]]:
    """A standard game played by the normal computer player in every seat."""
    options = GameOptions(players=players)
    state = new_game(CATALOG, options, seed)
    bots = [make_player("normal", seed * 31 + i) for i in range(players)]
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        seat = state.deciding_seat
        assert seat is not None
        move = bots[seat].choose(private_view(state, seat), legal_moves(state, seat))
        moves.append(move)
        state, _ = apply(state, move)
    return options, moves


def bench_reviews(games: int, samples: int, depth: int | None) -> None:
    print(f"review of seat 0 (22 turns and the goal draft), {samples} futures per turn, "
          f"playouts cut after {depth} turns, one process:")
    for players in (1, 2):
        for g in range(games):
            seed = 100 + g
            options, moves = played_game(players, seed)
            record = game_record(options, seed, moves)
            with Stopwatch() as sw:
                r = review_record(record, 0, samples=samples, depth=depth, catalog=CATALOG)
            print(f"  {players}-player game seed {seed}: {sw.wall:.2f} s wall, "
                  f"{sw.cpu:.2f} s CPU ({len(r.turns)} turns; accuracy {r.accuracy}, "
                  f"loss {r.total_loss}, final {r.final_score}) [{load_text()}]", flush=True)


def bench_hints(seed: int) -> None:
    options, moves = played_game(2, seed)
    state = new_game(CATALOG, options, seed)
    times: list[float] = []
    for move in moves:
        if not isinstance(move, ChooseGoals):
            view = private_view(state, move.seat)
            t0 = time.perf_counter()
            got = hints(view)
            times.append(time.perf_counter() - t0)
            assert got
        state, _ = apply(state, move)
    print(f"hints at every turn of a 2-player game ({len(times)} turns): median "
          f"{statistics.median(times):.2f} s, p90 {pct(times, 0.9, 'below'):.2f} s, max "
          f"{max(times):.2f} s [{load_text()}]")


# --------------------------------------------------------------------------- the bot's path


async def bench_bot_path(games: int, samples: int) -> None:
    from bot.core.computers import ComputerPool
    from bot.core.manager import Manager
    from bot.core.models import GameStatus, LobbyOptions, UserRef
    from bot.core.review.service import ReviewService

    print(f"through the bot: review worker process, {samples} futures per turn; hints in the "
          "computer players' worker process:")
    with tempfile.TemporaryDirectory() as tmp:
        computers = ComputerPool(1)
        manager = await Manager.open(Path(tmp) / "bench.sqlite3", computers=computers)
        service = ReviewService(manager.kernel, samples=samples)
        try:
            t0 = time.perf_counter()
            await asyncio.gather(service.lane.warm_up(), computers.warm_up())
            print(f"  worker processes started in {time.perf_counter() - t0:.2f} s "
                  f"[{load_text()}]", flush=True)
            for g_no in range(games):
                user = UserRef(BENCH_USER, "Bench")
                g = await lobby.create_game(manager.kernel,
                                            user, 1, 1, LobbyOptions(players=1), start=True)
                bot_player = make_player("normal", 500 + g_no)
                hint_times: list[float] = []
                while g.status.active:
                    assert g.state is not None
                    move = bot_player.choose(private_view(g.state, 0), legal_moves(g.state, 0))
                    if g.status is GameStatus.DRAFT:
                        assert isinstance(move, ChooseGoals)
                        g = (await turns.choose_goals(manager.kernel, g.id, BENCH_USER, g.ply,
                                                        list(move.goals))).game
                        continue
                    t0 = time.perf_counter()
                    got = await service.hints(g.id, BENCH_USER, g.ply)
                    hint_times.append(time.perf_counter() - t0)
                    assert got.hints  # the last turn may offer fewer than three
                    g = (await turns.play_turn(manager.kernel,
                                               g.id, BENCH_USER, g.ply, move.text())).game
                print(f"  hints at each of the game's {len(hint_times)} turns: median "
                      f"{statistics.median(hint_times):.2f} s, p90 "
                      f"{pct(hint_times, 0.9, 'below'):.2f} s, max "
                      f"{max(hint_times):.2f} s [{load_text()}]", flush=True)
                lag = await _timed_review(service, g.id)
                print(lag, flush=True)
                t0 = time.perf_counter()
                again = await service.review(g.id, BENCH_USER)
                assert not again.computed
                print(f"  the stored review asked again: {(time.perf_counter() - t0) * 1000:.1f}"
                      " ms", flush=True)
        finally:
            service.close()
            computers.close()
            await manager.close()


async def _timed_review(service: object, game_id: int) -> str:
    from bot.core.review.service import ReviewService

    assert isinstance(service, ReviewService)
    stop = asyncio.Event()
    delays: list[float] = []
    ticking = asyncio.create_task(lag_monitor(delays, stop))
    t0 = time.perf_counter()
    outcome = await service.review(game_id, BENCH_USER)
    wall = time.perf_counter() - t0
    stop.set()
    await ticking
    r = outcome.review
    cpu = outcome.cpu or 0.0
    return (f"  review of the solo game ({len(r.turns)} turns and the goal draft): "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU in the worker, {r.samples} futures per turn "
            f"(accuracy {r.accuracy}, loss {r.total_loss}, final {r.final_score}); event loop "
            f"meanwhile: {len(delays)} ticks of 10 ms, delay median "
            f"{statistics.median(delays) * 1000:.1f} ms, p99 "
            f"{pct(delays, 0.99, 'below') * 1000:.1f} ms, worst "
            f"{max(delays) * 1000:.1f} ms [{load_text()}]")


# --------------------------------------------------------------------------- calibration


def calibration_game(task: tuple[int, bool, int]) -> list[tuple[int, float, int]]:
    """One game of the rollout policy from the start: (empty cells, value, final score)."""
    players, goals, seed = task
    state = new_game(CATALOG, GameOptions(players=players, family=not goals), seed)
    chosen = None
    if state.phase is Phase.DRAFT:
        mv = make_player("normal", seed).choose(private_view(state, 0), legal_moves(state, 0))
        assert isinstance(mv, ChooseGoals)
        chosen = mv.goals
    sim = SeatSim(private_view(state, 0), goals=chosen)
    trace = [sim.root]
    out = sim.play_from_start(sim.sample_futures(1, derive_seed(seed, 7))[0], None, trace)
    final = round(out.total)
    return [(q.empty.bit_count(), sim.evaluator.value(q), final) for q in trace]


def calibrate(games: int, workers: int) -> str:
    rows: dict[tuple[int, bool], list[float]] = {}
    for players in (1, 2, 3, 4):
        for goals in (True, False):
            tasks = [(players, goals, 5000 + k) for k in range(games)]
            gaps: dict[int, list[float]] = {t: [] for t in range(23)}
            with Pool(workers) as pool:
                for points in pool.imap_unordered(calibration_game, tasks, chunksize=4):
                    for t, v, final in points:
                        gaps[t].append(final - v)
            rows[(players, goals)] = [round(statistics.mean(gaps[t]), 1) if gaps[t] and t
                                      else 0.0 for t in range(23)]
            print(f"  {players} players, goals {goals}: done", file=sys.stderr, flush=True)
    lines = [
        '"""Leaf estimates of the review\'s playouts (do not edit by hand).',
        "",
        "Generated by ``benchmarks/bench_review.py --calibrate`` from "
        f"{games} games per row of the rollout",
        "policy (:mod:`engine.ai.rollout`), seat 0, standard setup (without goals: the family",
        "variant). Each row: the mean of (final score - value function) after a turn, by the",
        "empty cells left (0 to 22). Re-measure when the value function or the policy changes.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "# (players, design goals in play) -> offset by empty cells left",
        "LEAF_OFFSET: dict[tuple[int, bool], tuple[float, ...]] = {",
    ]
    for (players, goals), row in rows.items():
        lines.append(f"    ({players}, {goals}): (")
        vals = [f"{v:.1f}" for v in row]
        for i in range(0, len(vals), 12):
            lines.append("        " + ", ".join(vals[i:i + 12]) + ",")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1, help="reviewed games per player count")
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="0: whole playouts")
    ap.add_argument("--calibrate", type=int, metavar="N")
    ap.add_argument("--workers", type=int, default=2, help="processes for --calibrate")
    ap.add_argument("--bot-games", type=int, default=1,
                    help="games reviewed through the bot's worker path (0: none)")
    ap.add_argument("--only-bot", action="store_true", help="only the bot's path")
    args = ap.parse_args(argv)
    if args.calibrate:
        sys.stdout.write(calibrate(args.calibrate, args.workers))
        return
    print_machine()
    if not args.only_bot:
        bench_reviews(args.games, args.samples, args.depth or None)
        bench_hints(7)
    if args.bot_games:
        asyncio.run(bench_bot_path(args.bot_games, args.samples))


if __name__ == "__main__":
    main()
