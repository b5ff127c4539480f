"""Tournaments (issue #23) run by real bot processes (``calico-bot run`` as OS processes, see
:mod:`tests.e2e.procs`) against the fake Discord, their sweeps every half second:

- one process on SQLite killed with SIGKILL between rounds (``CALICO_CRASH_AT``: round 1
  ended and round 2 paired in one committed write, none of round 2's posts or games made yet),
  then started again: round 2 keeps the committed pairing, each table gets one game and one
  thread, no post is made twice, and the tournament runs to its podium;
- two processes sharing one PostgreSQL database, both sweeping: each round paired once, each
  table one game and one thread, each post once, the standings those of the games' results.

The tournament (4 entrants, 2 rounds of 2-player tables) is written to the database by the
test before the bots start, its start time already passed. Its rounds last 5.4 s (a bot is
ready, and has made a round's threads, about 2 s after it starts): each round ends at its
deadline, where the bot finishes the open tables (``timeout: computer``: one seat becomes an
easy computer, the other person's turns are played on autopilot), so the processes play every
move themselves and the test needs neither clicks nor a fake clock (a bot process keeps the
system's clock: seconds stand in for the days of a real round).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import pytest

from bot.core import queries
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import GameStatus, LobbyOptions, Setup, TimeoutAction, UserRef
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from tests.e2e.procs import BotProcess, logs, stop_all
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeChannel, FakeMessage

pytestmark = pytest.mark.fakediscord(fail_on_violations=False, interaction_deadline=3.0)

T = TypeVar("T")
NAMES = ("alice", "bob", "dora", "eve")
CUP = "Night Cup"
ROUND_HOURS = 0.0015  # 5.4 s: each round ends at its deadline, played out by the bot
FAST = {"calico_sweep_seconds": "0.5"}


async def create_cup(db: str, env: DiscordEnv) -> int:
    """The tournament, its four entrants signed up and its start time passed (written while
    no bot runs; the first bot's sweep pairs round 1)."""
    clock = FakeClock(datetime.now(UTC) - timedelta(minutes=1))
    m = await Manager.open(db, clock=clock, exclusive=False)
    try:
        now = to_ms(clock.now())
        spec = tour.Spec(CUP, tour.SWISS, 2, 2,
                         LobbyOptions(setup=Setup.BEGINNER, ai_level="easy",
                                      timeout_action=TimeoutAction.COMPUTER),
                         now + 1000, now + 1000, ROUND_HOURS)
        organiser = env.user("carol")
        t = await signup.create(m.kernel, UserRef(organiser.id, organiser.name), env.guild.id,
                              env.channel.id, spec)
        for name in NAMES:
            user = env.user(name)
            await signup.join(m.kernel, t.id, UserRef(user.id, user.name))
        return t.id
    finally:
        await m.close()


async def reading(db: str, look: Callable[[Manager], Awaitable[T]]) -> T:
    """What ``look`` reads from the database the bots write (a reader of its own)."""
    m = await Manager.open(db, exclusive=False)
    try:
        return await look(m)
    finally:
        await m.close()


async def poll(db: str, look: Callable[[Manager], Awaitable[T | None]], timeout: float,
               bots: list[BotProcess], what: str) -> T:
    end = time.monotonic() + timeout
    while True:
        found = await reading(db, look)
        if found is not None:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"no {what} within {timeout} s\n{logs(bots)}")
        await asyncio.sleep(0.3)


def errors(bot: BotProcess) -> list[str]:
    """The log lines that say something failed."""
    return [line for line in bot.log().splitlines()
            if " ERROR " in line or line.startswith("Traceback")]


def posts(env: DiscordEnv, text: str) -> list[FakeMessage]:
    return [m for m in env.messages(env.channel) if text in m.content]


def game_threads(env: DiscordEnv, game_id: int) -> list[FakeChannel]:
    return [t for t in env.threads(env.channel) if f"#{game_id} " in f"{t.name} "]


async def check_the_end(env: DiscordEnv, db: str, tid: int, bots: list[BotProcess], *,
                        killed: bool = False) -> None:
    """What everyone sees once the podium is posted: each round paired once, each table one
    game and one thread, each post once, standings from the games' results."""
    async def over(m: Manager) -> bool | None:
        return True if (await records.get(m.kernel, tid)).status == tour.OVER else None

    await poll(db, over, 60, bots, "podium")

    async def drained(m: Manager) -> bool | None:
        statuses = Counter(n.status for n in await m.store.notices())
        return True if statuses["pending"] == 0 else None

    await poll(db, drained, 60, bots, "empty outbox")  # every post made (or skipped)
    podium = posts(env, f"🏆 **{CUP}** is over!")

    async def look(m: Manager) -> tuple[list[tour.Table], list[tuple[int, GameStatus, int | None,
                                                                     dict[int, int]]],
                                        list[int], list[tour.Standing]]:
        tables = await records.tables(m.kernel, tid)
        games = []
        for t in tables:
            assert t.game_id is not None
            g = await queries.game(m.kernel, t.game_id, fresh=True)
            # A seat a computer finished (timed out into one at the deadline) counts last.
            gone = {s.user_id for s in g.seats if s.left}
            places = {r.user_id: 9 if r.user_id in gone else r.place
                      for r in await m.store.results(g.id) if r.user_id is not None}
            games.append((g.id, g.status, g.thread_id, places))
        return tables, games, await m.store.game_ids(), await records.standings(m.kernel, tid)

    tables, games, all_games, board = await reading(db, look)
    # Two rounds of two tables, each paired once: four tables, four games, nothing more.
    assert sorted((t.round, t.table_no) for t in tables) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert sorted(all_games) == sorted(g[0] for g in games) and len(set(all_games)) == 4
    for t in (t for t in tables if t.round == 1):
        assert all(set(t.players) != set(u.players) for u in tables if u.round == 2)
    for game_id, status, thread_id, _ in games:
        assert status is GameStatus.OVER
        assert [t.id for t in game_threads(env, game_id)] == [thread_id], (game_id,
                                                                          logs(bots))
        sheets = [m for m in env.messages(thread_id or 0) if CUP in m.content]
        assert len(sheets) == 1, [m.content[:80] for m in sheets]  # one score sheet
    # Each post once: the sign-up (edited in place), two rounds, the standings after round 1,
    # the podium with the final standings.
    for text in (f"🏆 **{CUP}** (tournament", f"🏆 **{CUP}**: round 1 of 2",
                 f"🏆 **{CUP}**: round 2 of 2", f"{CUP}: standings after round 1 of 2",
                 f"🏆 **{CUP}** is over!"):
        assert len(posts(env, text)) == 1, (text, [m.content[:60]
                                                   for m in env.messages(env.channel)])
    assert len(env.messages(env.channel)) == 5, [m.content[:60]
                                                 for m in env.messages(env.channel)]
    # The sign-up message says it is over, with no button left.
    [signup_post] = posts(env, f"🏆 **{CUP}** (tournament")
    assert "Finished." in signup_post.content and not list(signup_post.walk_components())
    await asyncio.sleep(0.5)  # anything sent twice would have come by now
    # A game post in flight when a process was killed is sent again by the next one, and
    # Discord's nonce turns the copy away (by design: the outbox's at-least-once within the
    # window); a tournament post never, and no process that was not killed repeats anything.
    repeats = [key for _, key in env.state.nonce_duplicates]
    if killed:
        repeats = [key for key in repeats if key.startswith("t")]
    assert repeats == []
    by_nonce = Counter((m.channel_id, m.nonce) for m in env.state.messages.values()
                       if m.nonce is not None and not m.deleted)
    assert [k for k, n in by_nonce.items() if n > 1] == []
    # Standings: a win is two half points, a draw one, from the stored results alone (a seat
    # the deadline turned into a computer: last).
    expected: Counter[int] = Counter()
    for _, _, _, places in games:
        (a, pa), (b, pb) = places.items()
        expected[a] += 2 if pa < pb else 1 if pa == pb else 0
        expected[b] += 2 if pb < pa else 1 if pa == pb else 0
    assert {s.user_id: s.points for s in board} == {env.user(n).id: expected[env.user(n).id]
                                                     for n in NAMES}
    assert all(s.games == 2 for s in board)
    assert f"<@{board[0].user_id}>" in podium[0].content


@pytest.mark.timeout(240)  # about 35 s under a load of 6; the waits are bounded well below
async def test_a_sigkill_between_rounds_pairs_round_two_once(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    for name in NAMES:
        if name not in ("alice", "bob"):
            env.add_user(name)
    db = str(tmp_path / "cup.sqlite3")
    tid = await create_cup(db, env)
    first = await BotProcess(env, db, tmp_path, "first", calico_crash_at="tournament.round_ended",
                             **FAST).start()
    bots = [first]
    try:
        # Round 1 is paired, opened, played out at its deadline; then round 2 is paired and
        # the process dies before anything of round 2 is made.
        assert await first.wait(60) == -9, first.log()[-3000:]

        async def round_two(m: Manager) -> tuple[tour.TournamentInfo, list[tour.Table], int]:
            return (await records.get(m.kernel, tid), await records.tables(m.kernel, tid),
                    len(await m.store.game_ids()))

        t, paired, game_count = await reading(db, round_two)
        assert (t.status, t.round) == (tour.RUNNING, 2)
        second_round = [x for x in paired if x.round == 2]
        assert len(second_round) == 2 and all(x.game_id is None for x in second_round)
        assert game_count == 2  # round 1's only
        assert posts(env, f"🏆 **{CUP}**: round 2 of 2") == []
        # Down past round 2's deadline: its games, opened only now, still get a whole round
        # (played out at once, they would end before their threads were made).
        assert t.round_deadline_at is not None
        await asyncio.sleep(max(0.0, t.round_deadline_at.timestamp() - time.time()) + 0.2)

        second = await BotProcess(env, db, tmp_path, "second", **FAST).start()
        bots.append(second)
        await check_the_end(env, db, tid, bots, killed=True)
        assert not errors(second), second.log()[-3000:]
        final = await reading(db, lambda m: records.tables(m.kernel, tid))
        # Round 2 kept the pairing committed before the crash.
        assert [(x.table_no, x.players) for x in final if x.round == 2] == \
            [(x.table_no, x.players) for x in second_round]
        # Its post links both tables' threads.
        [round_post] = posts(env, f"🏆 **{CUP}**: round 2 of 2")
        assert round_post.content.count("<#") == 2, round_post.content
    finally:
        await stop_all(bots)


@pytest.mark.timeout(240)
async def test_two_processes_on_postgresql_run_a_tournament_once(
        discord_env: DiscordEnv, tmp_path: Path, pg_db: str) -> None:
    env = discord_env
    for name in NAMES:
        if name not in ("alice", "bob"):
            env.add_user(name)
    tid = await create_cup(pg_db, env)
    settings = {"calico_cluster_slots": "2", "calico_shard_count": "2", **FAST}
    bots = [await BotProcess(env, pg_db, tmp_path, f"p{i}", **settings).start()
            for i in range(2)]
    try:
        try:
            await env.wait_for_shards(0, 1, shard_count=2, timeout=60)
        except TimeoutError:
            raise AssertionError(logs(bots)) from None
        await check_the_end(env, pg_db, tid, bots)
        # Both alive, and neither failed a step: the one that lost a race to the other read
        # again and found the step taken (a stale write is no error).
        assert all(b.running for b in bots), logs(bots)
        assert not any(errors(b) for b in bots), logs(bots)
    finally:
        await stop_all(bots)


# Each step of a round, killed in its middle by SIGKILL (bot/core/tournament/rounds.py): round 1
# paired (no game yet), one game of the round opened (not the other), one game handed to the
# computers at the deadline (not the other), round 1 ended and round 2 paired, the last round
# ended (the podium queued, not posted).
STEPS = ("tournament.round_paired", "tournament.game_opened", "tournament.played_out",
         "tournament.round_ended", "tournament.finished")


@pytest.mark.timeout(300)
async def test_a_sigkill_in_the_middle_of_each_step(discord_env: DiscordEnv,
                                                    tmp_path: Path) -> None:
    """One process after another, each killed at the next step; the last runs to the end.
    Nothing is paired, opened or posted twice, and the standings are the games'."""
    env = discord_env
    for name in NAMES:
        if name not in ("alice", "bob"):
            env.add_user(name)
    db = str(tmp_path / "steps.sqlite3")
    tid = await create_cup(db, env)
    bots: list[BotProcess] = []
    try:
        for i, step in enumerate(STEPS):
            bot = await BotProcess(env, db, tmp_path, f"p{i}", calico_crash_at=step,
                                   **FAST).start()
            bots.append(bot)
            assert await bot.wait(90) == -9, (step, bot.log()[-3000:])
        last = await BotProcess(env, db, tmp_path, "last", **FAST).start()
        bots.append(last)
        await check_the_end(env, db, tid, bots, killed=True)
        assert not errors(last), last.log()[-3000:]
    finally:
        await stop_all(bots)
