"""Issue #12's costs: the replay GIF of a 4-player game (time and size), the achievements
picture, a rating update (the OpenSkill maths alone, and inside a stored result's commit), and
the leaderboard queries on a SQLite database holding 100,000 finished games.

Run: .venv/bin/python benchmarks/bench_progress.py [--games 100000] [--repeat N]
Targets: replay GIF <= 1.5 s and <= 8 MB; the leaderboard answers well within a click's time.
The big database is built with direct inserts (games, seats, results, totals, users and
ratings rows shaped as the bot writes them; ratings values drawn, not computed), then opened
by the real manager.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.core.progress import store as progress_store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import atimed_calls, pct, print_machine, timed_calls
from bot.core import lobby, queries
from bot.core.manager import Manager
from bot.core.models import UserRef
from bot.core.progress import ratings
from bot.core.progress.model import RatingRow
from bot.core.progress.store import RatingUpdate
from bot.core.storage import GameWrite
from data import load_catalog
from engine.config import GameOptions
from engine.serialize import replay_views
from render import frame_count, render_achievements, render_replay
from render.samples import play_record

GUILDS = 50
USERS = 20_000
LEVELS = ("easy", "normal", "strong")


def summary(seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (f"median {statistics.median(ms):.2f} ms, p90 {pct(ms, 0.9):.2f} ms, "
            f"max {max(ms):.2f} ms")


# --------------------------------------------------------------------------- pictures


def bench_pictures(repeat: int) -> None:
    catalog = load_catalog()
    record = play_record(GameOptions(players=4), 5, own_chooser=True)
    views = replay_views(catalog, record)
    names = ["Marguerite", "Zbigniew", "Amélie", "Tomasz"]
    cpu0 = time.process_time()
    times, gif = timed_calls(lambda: render_replay(views, names), max(3, repeat // 4))
    cpu = (time.process_time() - cpu0) / max(3, repeat // 4) * 1000
    print(f"replay GIF, 4 players ({frame_count(4)} frames): {summary(times)} "
          f"(CPU {cpu:.0f} ms a GIF), {len(gif) / 1024:.0f} KB "
          f"(targets: <= 1500 ms, <= 8192 KB)")
    chart = catalog.achievements
    earned = {"scenario-1", "scenario-4", "normal-65", "normal-no-cats", "restriction-no-hand"}
    times, png = timed_calls(lambda: render_achievements(chart, earned, name="Marguerite"), repeat)
    print(f"achievements image: {summary(times)}, {len(png) / 1024:.0f} KB")


# --------------------------------------------------------------------------- ratings


def four_players() -> list[tuple[str, int]]:
    return [("u:1", 1), ("u:2", 2), ("ai:strong", 2), ("u:3", 4)]


def bench_rating_maths(repeat: int) -> None:
    entries = four_players()
    before: dict[str, RatingRow | None] = {
        p: RatingRow(0, p, 25 + i, 6.0, 7.0 + i, 10, 0) for i, (p, _) in enumerate(entries)}
    times, _ = timed_calls(lambda: [ratings.rate(entries, before, s, 0) for s in (5, 0)],
                           repeat * 10)
    print(f"rating update maths (OpenSkill Plackett-Luce, 4 players, 2 scopes): {summary(times)}")


async def bench_rating_commit(m: Manager, repeat: int) -> None:
    """A result's commit with its RatingUpdate (8 rows read locked and written back)."""
    first = await lobby.create_game(m.kernel, UserRef(1, "one"), 5, 6)
    row = await m.store.load_game(first.id)
    assert row is not None
    version = row.version
    entries = four_players()
    players = list(dict.fromkeys(p for p, _ in entries))
    keys = [(s, p) for s in (5, 0) for p in players]

    def update() -> RatingUpdate:
        def apply(found: dict[Any, RatingRow | None]) -> list[RatingRow]:
            out: list[RatingRow] = []
            for s in (5, 0):
                out += ratings.rate(entries, {p: found.get((s, p)) for p in players}, s, 1)
            return out
        return RatingUpdate(keys, apply)

    async def commit() -> None:
        nonlocal version
        await m.store.commit(GameWrite(first.id, version, 1,
                                       steps=[progress_store.apply_ratings(update())]))
        version += 1

    await commit()  # rows exist from here on
    times, _ = await atimed_calls(commit, repeat * 5)
    print(f"rating update in a commit (SQLite, 8 rating rows): {summary(times)}")


# --------------------------------------------------------------------------- big database


def build(path: Path, games: int, rng: random.Random) -> dict[str, int]:
    """Direct inserts of ``games`` finished games and what the bot stores with them."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO users (user_id, name, locale) VALUES (?, ?, 'en-US')",
                     [(10_000 + u, f"player{u}") for u in range(USERS)])
    options = json.dumps({"players": 4})
    now = 1_735_000_000_000
    game_rows, seat_rows, result_rows = [], [], []
    totals: dict[tuple[int, int], list[int]] = {}
    rated: dict[tuple[int, str], int] = {}
    for g in range(1, games + 1):
        guild = 1 + g % GUILDS
        n = rng.choice((1, 2, 2, 3, 4))
        people = rng.sample(range(USERS), n)
        computers = rng.random() < 0.3 and n < 4
        game_rows.append((g, "over", guild, guild * 10, None, None, 10_000 + people[0], options,
                          None, None, None, 50, 50, None, None, now + g, now + g))
        seats = [(10_000 + u, None) for u in people]
        if computers:
            seats.append((None, rng.choice(LEVELS)))
        totals_by_seat = [rng.randint(30, 85) for _ in seats]
        for i, (user, level) in enumerate(seats):
            place = 1 + sum(t > totals_by_seat[i] for t in totals_by_seat)
            seat_rows.append((g, i, user, f"player{user}" if user else "Computer", level, 0, 0))
            result_rows.append((g, i, user, guild, totals_by_seat[i], place, int(place == 1),
                                int(user is not None), "{}", now + g))
            if user is not None:
                for scope in (guild, 0):
                    t = totals.setdefault((scope, user), [0, 0, 0, 0])
                    t[0] += 1
                    t[1] += int(place == 1)
                    t[2] += totals_by_seat[i]
                    t[3] = max(t[3], totals_by_seat[i])
            if len(seats) > 1:
                key = f"u:{user}" if user is not None else f"ai:{level}"
                for scope in (guild, 0):
                    rated[(scope, key)] = rated.get((scope, key), 0) + 1
    conn.executemany("INSERT INTO games (id, status, guild_id, channel_id, thread_id, "
                     "lobby_message_id, host_id, options, first_user_id, engine_options, state, "
                     "version, ply, deadline_at, end_reason, created_at, updated_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
    conn.executemany("INSERT INTO seats (game_id, seat, user_id, name, ai_level, left_game, "
                     "fallback_sent) VALUES (?, ?, ?, ?, ?, ?, ?)", seat_rows)
    conn.executemany("INSERT INTO results (game_id, seat, user_id, guild_id, total, place, win, "
                     "counted, breakdown, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     result_rows)
    conn.executemany("INSERT INTO player_totals (guild_id, user_id, games, wins, score_sum, best) "
                     "VALUES (?, ?, ?, ?, ?, ?)",
                     [(s, u, *t) for (s, u), t in totals.items()])
    ratings = []
    for (scope, player), n in rated.items():
        sigma = max(1.5, 25 / 3 / (1 + n / 4))
        mu = rng.gauss(25, 3)
        ratings.append((scope, player, mu, sigma, mu - 3 * sigma, n, now))
    conn.executemany("INSERT INTO ratings (scope, player, mu, sigma, ordinal, games, "
                     "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)", ratings)
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()
    return {"games": len(game_rows), "seats": len(seat_rows), "ratings": len(ratings),
            "totals": len(totals)}


async def bench_queries(path: Path, repeat: int) -> None:
    m = await Manager.open(path)
    try:
        guild = 7
        someone = (await progress_store.rating_board(m.store, 0, 500, 3))[-1][0].player
        tests: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("rating leaderboard, one server (top 10 with wins and averages)",
             lambda: ratings.rating_board(m.kernel, guild)),
            ("rating leaderboard, every server", lambda: ratings.rating_board(m.kernel, 0)),
            ("a player's rating and rank, every server (/calico stats)",
             lambda: ratings.rating_of(m.kernel, someone, 0)),
            ("wins leaderboard, one server (the fallback)", lambda: queries.leaderboard(m.kernel,
                                                                                        guild)),
        ]
        for name, fn in tests:
            await fn()
            times, _ = await atimed_calls(fn, repeat)
            print(f"{name}: {summary(times)}")
        await bench_rating_commit(m, repeat)
    finally:
        await m.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    print_machine()
    bench_pictures(args.repeat)
    bench_rating_maths(args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite3"
        m = await Manager.open(path)  # creates the schema
        await m.close()
        t = time.perf_counter()
        counts = build(path, args.games, random.Random(12))
        print(f"database: {counts['games']:,} finished games, {counts['seats']:,} seats, "
              f"{counts['ratings']:,} rating rows, {counts['totals']:,} totals rows, "
              f"{path.stat().st_size / 1e6:.0f} MB, built in {time.perf_counter() - t:.1f} s")
        await bench_queries(path, args.repeat)
    print_machine()


if __name__ == "__main__":
    asyncio.run(main())
