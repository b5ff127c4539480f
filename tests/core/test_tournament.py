"""Tournaments on the core (issue #23), with the manager on SQLite: sign-up, rounds that run
themselves through the sweep, withdrawals, the round deadline, a restart and a crash between
steps, standings and what a table's score sheet says. The PostgreSQL test runs two managers
on one database and checks that a round is paired once."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, ManagerError, UserRef
from bot.core.notices import NoticeKind
from bot.core.progress.model import Progress
from bot.core.tournament import model as tour
from bot.core.tournament import records, rounds, signup
from bot.core.tournament.model import Post
from tests.core.conftest import CHANNEL, GUILD, opts, play_out, seeds
from tests.pgserver import fresh_database

PEOPLE = [UserRef(2000 + i, f"P{i}") for i in range(8)]
DAY = timedelta(days=1)


def spec(clock: FakeClock, fmt: str = tour.SWISS, rounds: int = 3, size: int = 2,
         **options: Any) -> tour.Spec:
    now = int(clock.now().timestamp() * 1000)
    return tour.Spec("Spring Cup", fmt, rounds, size, opts(**options), now + 86_400_000,
                     now + 2 * 86_400_000, 24.0)


async def signed_up(m: Manager, clock: FakeClock, people: list[UserRef],
                    **kw: Any) -> tour.TournamentInfo:
    t = await signup.create(m.kernel, people[0], GUILD, CHANNEL, spec(clock, **kw))
    for p in people:
        t = await signup.join(m.kernel, t.id, p)
    return t


async def round_games(m: Manager, tid: int, round_no: int) -> list[GameInfo]:
    return [await queries.game(m.kernel,
                               t.game_id, fresh=True) for t in await records.tables(m.kernel, tid)
            if t.round == round_no and t.game_id is not None]


async def play_round(m: Manager, tid: int, round_no: int, rng: random.Random,
                     skip: int | None = None) -> None:
    for g in await round_games(m, tid, round_no):
        if g.id != skip and g.status.active:
            await play_out(m, g, rng)


def kinds(notices: list[Any]) -> list[str]:
    return [n.body.what for n in notices if n.kind == Post.kind]


async def test_a_swiss_runs_from_sign_up_to_podium(sqlite_path: Path, clock: FakeClock) -> None:
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    rng = random.Random(3)
    try:
        people = PEOPLE[:7]  # odd: a bye every round
        t = await signed_up(m, clock, people)
        assert [e.user_id for e in t.entrants] == [p.id for p in people]
        # Sign-up refusals change nothing.
        for call, code in ((signup.join(m.kernel, t.id, people[1]), tour.ALREADY_IN),
                           (signup.leave(m.kernel, t.id, 1), tour.NOT_IN),
                           (signup.close_signup(m.kernel, t.id, people[3].id), tour.ORGANISER_ONLY),
                           (signup.pause(m.kernel, t.id, people[0].id, True), tour.NOT_NOW)):
            with pytest.raises(ManagerError) as refused:
                await call
            assert refused.value.code == code
        late = UserRef(2999, "Late")
        await signup.join(m.kernel, t.id, late)
        t = await signup.leave(m.kernel, t.id, late.id)
        assert late.id not in [e.user_id for e in t.entrants]
        # Sign-up closes after a day; nothing starts before the start time.
        clock.advance(DAY + timedelta(minutes=1))
        with pytest.raises(ManagerError) as closed:
            await signup.join(m.kernel, t.id, late)
        assert closed.value.code == tour.SIGNUP_CLOSED
        await m.sweep()
        assert (await records.get(m.kernel, t.id)).round == 0
        clock.advance(DAY)
        await m.sweep()
        t = await records.get(m.kernel, t.id)
        assert (t.status, t.round) == (tour.RUNNING, 1)
        first = [x for x in await records.tables(m.kernel, t.id) if x.round == 1]
        assert sorted(len(x.players) for x in first) == [1, 2, 2, 2]
        games = await round_games(m, t.id, 1)
        assert len(games) == 3 and all(g.status is GameStatus.PLAY or
                                       g.status is GameStatus.DRAFT for g in games)
        assert all(g.thread_id is None and g.channel_id == CHANNEL for g in games)
        # A second sweep mid-round changes nothing.
        await m.sweep()
        assert len(await records.tables(m.kernel, t.id)) == 4
        await play_round(m, t.id, 1, rng)
        # The last game's end: the score sheet names the tournament and round.
        over = [n for g in games for n in await m.store.notices(g.id)
                if n.kind == NoticeKind.GAME_OVER]
        assert len(over) == 3
        assert all(n.body.part(tour.ScoreSheetLine) == tour.ScoreSheetLine(
            id=t.id, name="Spring Cup", round=1, rounds=3) for n in over)
        assert all(n.body.part(Progress).rated for n in over)
        # One withdraws after round 1: not paired again, their points kept.
        quitter = people[2].id
        await m.sweep()
        t = await signup.leave(m.kernel, t.id, quitter)
        assert t.round == 2 and next(e for e in t.entrants if e.user_id == quitter).withdrawn == 2
        quit_game = next(g for g in await round_games(m, t.id, 2)
                         if any(s.user_id == quitter for s in g.seats))
        seat = next(s for s in quit_game.seats if s.user_id == quitter)
        assert seat.is_computer and seat.left
        await play_round(m, t.id, 2, rng)
        await m.sweep()
        third = [x for x in await records.tables(m.kernel, t.id) if x.round == 3]
        assert all(quitter not in x.players for x in third)
        assert sum(len(x.players) for x in third) == 6
        byes = [x.players[0] for x in await records.tables(m.kernel, t.id) if x.bye]
        assert len(byes) == len(set(byes)) == 2  # rounds 1 and 2 each had one, not the same
        pairs = [frozenset(x.players) for x in await records.tables(m.kernel, t.id) if not x.bye]
        assert len(pairs) == len(set(pairs))  # nobody met twice
        await play_round(m, t.id, 3, rng)
        await m.sweep()
        t = await records.get(m.kernel, t.id)
        assert t.status == tour.OVER and t.round_deadline_at is None
        board = await records.standings(m.kernel, t.id)
        assert [s.points for s in board] == sorted((s.points for s in board), reverse=True)
        assert sum(s.points for s in board) == 8 + 8 + 6  # half points: games, byes
        notes = kinds(await m.store.notices(0))
        # The final standings and the podium are one post (issue #28)...
        assert [n for n in notes if n != "signup"] == ["round", "standings", "round",
                                                        "standings", "round", "podium"]
        # ...and the sign-up message is posted, then edited at each change: eight joins, a
        # leave, the sign-up's end, each round's start, a withdrawal and the end.
        assert notes.count("signup") == 1 + 8 + 1 + 1 + 3 + 1 + 1
        assert notes[-1] == "signup" and notes[-2] == "podium"
        await m.sweep()  # over: nothing more
        assert kinds(await m.store.notices(0)) == notes
        listed = await records.listed(m.kernel, GUILD)
        assert [x.id for x in listed] == [t.id]
    finally:
        await m.close()


async def test_round_robin_with_four_player_tables(sqlite_path: Path, clock: FakeClock) -> None:
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    try:
        t = await signed_up(m, clock, PEOPLE[:5], fmt=tour.ROUND_ROBIN, size=4, rounds=20)
        clock.advance(2 * DAY)
        await m.sweep()
        t = await records.get(m.kernel, t.id)
        first = [x for x in await records.tables(m.kernel, t.id) if x.round == 1]
        assert sorted(len(x.players) for x in first) == [2, 3]
        met: set[frozenset[int]] = set()
        for round_no in range(1, t.rounds + 1):
            t = await records.get(m.kernel, t.id)
            assert t.round == round_no
            for x in await records.tables(m.kernel, t.id):
                if x.round == round_no:
                    met |= {frozenset((a, b)) for a in x.players for b in x.players if a != b}
            await play_round(m, t.id, round_no, random.Random(round_no))
            await m.sweep()
        assert (await records.get(m.kernel, t.id)).status == tour.OVER
        assert len(met) == 10  # every pair of the five met
    finally:
        await m.close()


async def test_a_round_deadline_plays_out_open_tables(sqlite_path: Path,
                                                      clock: FakeClock) -> None:
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    try:
        t = await signed_up(m, clock, PEOPLE[:4], rounds=2, timeout_action="computer")
        clock.advance(2 * DAY)
        await m.sweep()
        games = await round_games(m, t.id, 1)
        await play_round(m, t.id, 1, random.Random(1), skip=games[0].id)
        await m.sweep()
        assert (await records.get(m.kernel, t.id)).round == 1  # one table still playing
        clock.advance(DAY + timedelta(minutes=1))
        await m.sweep()  # hands the open table to the computers' queue
        await m.kernel.computers_idle()
        await m.sweep()
        left = await queries.game(m.kernel, games[0].id, fresh=True)
        assert left.status is GameStatus.OVER
        # timeout: computer: the seat it waited for became a computer, the other person's
        # turns were played on autopilot (the last person is never replaced).
        assert sum(s.left for s in left.seats) == 1
        assert (await records.get(m.kernel, t.id)).round == 2
    finally:
        await m.close()


async def test_a_restart_and_a_crash_between_steps_pair_each_round_once(
        sqlite_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    t = await signed_up(m, clock, PEOPLE[:6], rounds=2)
    clock.advance(2 * DAY)

    async def crash(*_: Any) -> int:
        raise RuntimeError("killed after the pairing was stored")

    # The pairing is stored, then the process dies before opening any game.
    monkeypatch.setattr(rounds, "_open_games", crash)
    await rounds.tick(m.kernel, m.kernel.now_ms())
    await m.close()
    monkeypatch.undo()
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds(100))
    try:
        first = await records.tables(m.kernel, t.id)
        assert len(first) == 3 and all(x.game_id is None for x in first)
        await m.sweep()  # the restarted process opens the games, once
        await m.sweep()
        first = await records.tables(m.kernel, t.id)
        assert all(x.game_id is not None for x in first)
        assert len(await m.store.game_ids(guild_id=GUILD)) == 3
        await play_round(m, t.id, 1, random.Random(2))
        await m.close()
        m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds(200))
        now = m.kernel.now_ms()
        await asyncio.gather(rounds.tick(m.kernel, now), rounds.tick(m.kernel, now))
        assert len(await records.tables(m.kernel, t.id)) == 6
        assert len(await m.store.game_ids(guild_id=GUILD)) == 6
    finally:
        await m.close()


async def test_games_opened_after_a_long_outage_get_the_whole_round(
        sqlite_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed between the pairing and its games, the bot is back only after the round's
    deadline: the games it opens then are not played out at once (before anyone saw them,
    or their threads were made), their round runs a full round from now."""
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    t = await signed_up(m, clock, PEOPLE[:4], rounds=2)
    clock.advance(2 * DAY)

    async def crash(*_: Any) -> int:
        raise RuntimeError("killed after the pairing was stored")

    monkeypatch.setattr(rounds, "_open_games", crash)
    await rounds.tick(m.kernel, m.kernel.now_ms())
    await m.close()
    monkeypatch.undo()
    clock.advance(DAY + timedelta(hours=1))  # down past the round's 24 hours
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds(100))
    try:
        await m.sweep()
        await m.sweep()
        games = await round_games(m, t.id, 1)
        assert len(games) == 2 and all(g.status.active and g.ply <= 1 for g in games)
        t = await records.get(m.kernel, t.id)
        assert t.round == 1 and t.round_deadline_at == clock.now() + DAY
        clock.advance(DAY + timedelta(minutes=1))  # the new deadline plays them out
        await m.sweep()
        await m.kernel.computers_idle()
        await m.sweep()
        assert all(g.status is GameStatus.OVER for g in await round_games(m, t.id, 1))
        assert (await records.get(m.kernel, t.id)).round == 2
    finally:
        await m.close()


async def test_organiser_steps_and_a_tournament_without_players(sqlite_path: Path,
                                                                 clock: FakeClock) -> None:
    m = await Manager.open(sqlite_path, clock=clock, seed_source=seeds())
    try:
        bad = spec(clock, size=5)
        with pytest.raises(ManagerError) as refused:
            await signup.create(m.kernel, PEOPLE[0], GUILD, CHANNEL, bad)
        assert refused.value.code == tour.OPTION
        lonely = await signed_up(m, clock, PEOPLE[:1])
        clock.advance(2 * DAY)
        await m.sweep()
        assert (await records.get(m.kernel, lonely.id)).status == tour.CANCELLED
        t = await signed_up(m, clock, PEOPLE[:3])
        t = await signup.close_signup(m.kernel, t.id, PEOPLE[0].id)
        with pytest.raises(ManagerError):
            await signup.join(m.kernel, t.id, PEOPLE[5])
        t = await signup.remove(m.kernel, t.id, PEOPLE[7].id, PEOPLE[2].id, privileged=True)
        assert len(t.entrants) == 2
        clock.advance(2 * DAY)
        await m.sweep()
        t = await signup.pause(m.kernel, t.id, PEOPLE[0].id, True)
        clock.advance(3 * DAY)
        await m.sweep()  # paused: the passed deadline does nothing
        assert (await records.get(m.kernel, t.id)).round == 1
        t = await signup.pause(m.kernel, t.id, PEOPLE[0].id, False)
        assert t.status == tour.RUNNING and t.round_deadline_at is not None
        assert t.round_deadline_at > clock.now()
        t = await signup.cancel(m.kernel, t.id, PEOPLE[0].id)
        assert t.status == tour.CANCELLED
        games = await round_games(m, t.id, 1)
        assert [g.status.active for g in games] == [True]  # its game goes on
        assert kinds(await m.store.notices(0))[-4:] == [
            "resumed", "signup", "cancelled", "signup"]
    finally:
        await m.close()


@pytest.mark.postgres
async def test_two_managers_on_postgresql_pair_a_round_once(
        pg_admin: tuple[str | None, str], clock: FakeClock) -> None:
    async with fresh_database(pg_admin) as url:
        a = await Manager.open(url, clock=clock, seed_source=seeds(), exclusive=False)
        b = await Manager.open(url, clock=clock, seed_source=seeds(500), exclusive=False)
        try:
            t = await signed_up(a, clock, PEOPLE[:8], rounds=2)
            clock.advance(2 * DAY)
            for _ in range(3):
                await asyncio.gather(a.sweep(), b.sweep())
            first = await records.tables(a.kernel, t.id)
            assert len(first) == 4 and all(x.game_id is not None for x in first)
            assert len(await a.store.game_ids(guild_id=GUILD)) == 4
            await play_round(a, t.id, 1, random.Random(5))
            for _ in range(3):
                await asyncio.gather(a.sweep(), b.sweep())
            assert len(await records.tables(b.kernel, t.id)) == 8
            assert len(await b.store.game_ids(guild_id=GUILD)) == 8
            notes = kinds(await a.store.notices(0))
            assert notes.count("round") == 2 and notes.count("standings") == 1
        finally:
            await a.close()
            await b.close()
