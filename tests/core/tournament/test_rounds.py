"""A tournament's rounds, run by the sweep (:mod:`bot.core.tournament.rounds`), with games
played out by random moves against the real flow (SQLite; the store suite runs both
backends): Swiss at every count and table size (everyone seated once a round, the bye to the
lowest-ranked of those with the fewest byes, nobody meeting twice while that can be avoided),
the round-robin schedule, a round ending when its tables ended or at its deadline (open
tables played out the way their timeout action says), outcomes in half points, standings with
their Buchholz, the podium after the last round, a start without enough players, and steps
taken once across a restart, a crash and two processes."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus
from bot.core.notices import GameOver, NoticeKind
from bot.core.tournament import model as tour
from bot.core.tournament import pairing, records, rounds, signup
from tests.core.conftest import GUILD, seeds
from tests.core.tournament.conftest import (
    DAY,
    HOUR,
    PEOPLE,
    at_round,
    kinds,
    play_round,
    posts,
    round_games,
    round_tables,
    run_to_end,
    signed_up,
    started,
    until,
)

# (entrants, table size) -> the sizes of a round's tables (1: a bye).
SEATING = {
    (2, 2): [2], (2, 3): [2], (2, 4): [2],
    (3, 2): [2, 1], (3, 3): [3], (3, 4): [3],
    (4, 2): [2, 2], (4, 3): [2, 2], (4, 4): [4],
    (5, 2): [2, 2, 1], (5, 3): [3, 2], (5, 4): [3, 2],
    (8, 2): [2, 2, 2, 2], (8, 3): [3, 3, 2], (8, 4): [4, 4],
}


def met(tables: list[tour.Table]) -> Counter[frozenset[int]]:
    """How often each pair of players shared a table."""
    return Counter(frozenset(p) for x in tables for p in combinations(x.players, 2))


async def final_game_over(m: Manager, game_id: int) -> GameOver:
    [over] = [n.body for n in await m.store.notices(game_id) if n.kind == NoticeKind.GAME_OVER]
    assert isinstance(over, GameOver)
    return over


# --------------------------------------------------------------------------- Swiss


@pytest.mark.parametrize(("count", "size"), sorted(SEATING))
async def test_a_swiss_seats_everyone_once_a_round(sqlite_manager: Manager, clock: FakeClock,
                                                   count: int, size: int) -> None:
    m = sqlite_manager
    t = await started(m, clock, count, rounds=2, size=size)
    ids = [p.id for p in PEOPLE[:count]]
    for round_no in (1, 2):
        t = await records.get(m.kernel, t.id)
        assert (t.status, t.round) == (tour.RUNNING, round_no)
        tables = await round_tables(m, t.id, round_no)
        assert sorted(u for x in tables for u in x.players) == ids
        assert sorted((len(x.players) for x in tables), reverse=True) == SEATING[count, size]
        assert [x.table_no for x in tables] == list(range(1, len(tables) + 1))
        # Each table's game seats its players, dealt at once (no lobby to wait in).
        games = {g.id: g for g in await round_games(m, t.id, round_no)}
        assert len(games) == sum(not x.bye for x in tables)
        for x in tables:
            if x.bye:
                assert x.game_id is None
                continue
            assert x.game_id is not None
            g = games[x.game_id]
            assert tuple(s.user_id for s in g.seats) == x.players
            assert not any(s.is_computer for s in g.seats)
            assert g.status in (GameStatus.DRAFT, GameStatus.PLAY)
        await play_round(m, t.id, round_no, random.Random(round_no))
        await m.sweep()
    t = await records.get(m.kernel, t.id)
    assert t.status == tour.OVER
    board = await records.standings(m.kernel, t.id)
    assert sorted(s.user_id for s in board) == ids


async def test_the_bye_goes_to_the_lowest_ranked_with_the_fewest_byes(
        sqlite_manager: Manager, clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 5, rounds=3)
    # Round 1: everyone level and unrated: the last in the fixed order (the highest id).
    [bye] = [x for x in await round_tables(m, t.id, 1) if x.bye]
    assert bye.players == (PEOPLE[4].id,)
    byes = [PEOPLE[4].id]
    for round_no in (2, 3):
        await play_round(m, t.id, round_no - 1, random.Random(round_no))
        await m.sweep()
        board = {s.user_id: s for s in await records.standings(m.kernel, t.id)}
        [bye] = [x for x in await round_tables(m, t.id, round_no) if x.bye]
        [who] = bye.players
        assert who not in byes  # byes spread before anything else
        fewest = [u for u, s in board.items() if s.byes == 0]
        assert who in fewest
        if round_no == 2:
            # Among those, the lowest on points (rating, then id, only break ties).
            assert board[who].points == min(board[u].points for u in fewest)
        byes.append(who)
    await play_round(m, t.id, 3, random.Random(4))
    await m.sweep()
    # The bye counted as a win at a full table.
    for who in byes:
        [x] = [x for x in await records.tables(m.kernel, t.id) if x.bye and x.players == (who,)]
        assert x.points == (pairing.bye_points(2),) == (2,)


@pytest.mark.parametrize(("count", "size", "rounds_"), [(4, 2, 3), (8, 2, 3), (4, 3, 2), (9, 3, 2)])
async def test_nobody_meets_twice_while_it_can_be_avoided(sqlite_manager: Manager,
                                                          clock: FakeClock, count: int,
                                                          size: int, rounds_: int) -> None:
    m = sqlite_manager
    t = await started(m, clock, count, rounds=rounds_, size=size)
    await run_to_end(m, t.id, random.Random(count))
    assert (await records.get(m.kernel, t.id)).status == tour.OVER
    tables = await records.tables(m.kernel, t.id)
    assert {x.round for x in tables} == set(range(1, rounds_ + 1))
    assert set(met(tables).values()) == {1}
    if (count, size) == (4, 2):
        assert len(met(tables)) == 6  # three rounds of four: everyone met everyone


async def test_two_entrants_meet_again_when_there_is_no_one_else(sqlite_manager: Manager,
                                                                 clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 2, rounds=3)
    await run_to_end(m, t.id, random.Random(2))
    tables = await records.tables(m.kernel, t.id)
    assert [x.round for x in tables] == [1, 2, 3]
    assert met(tables) == {frozenset((PEOPLE[0].id, PEOPLE[1].id)): 3}


# --------------------------------------------------------------------------- round-robin


@pytest.mark.parametrize("count", [3, 4])
async def test_a_round_robin_schedules_everyone_against_everyone(sqlite_manager: Manager,
                                                                 clock: FakeClock,
                                                                 count: int) -> None:
    m = sqlite_manager
    t = await started(m, clock, count, fmt=tour.ROUND_ROBIN, rounds=3)
    ids = [p.id for p in PEOPLE[:count]]
    for round_no in (1, 2, 3):
        tables = await round_tables(m, t.id, round_no)
        assert sorted(u for x in tables for u in x.players) == ids
        assert [x.bye for x in tables].count(True) == count % 2
        await play_round(m, t.id, round_no, random.Random(round_no))
        await m.sweep()
    t = await records.get(m.kernel, t.id)
    assert t.status == tour.OVER and t.round == 3
    tables = await records.tables(m.kernel, t.id)
    assert met(tables) == Counter({frozenset(p): 1 for p in combinations(ids, 2)})
    byes = [x.players[0] for x in tables if x.bye]
    assert sorted(byes) == (ids if count % 2 else [])  # three players: one bye each
    # No Buchholz in a round-robin: everyone met the same opponents.
    assert all(s.buchholz == 0 for s in await records.standings(m.kernel, t.id))


async def test_a_round_robin_goes_on_after_a_withdrawal(sqlite_manager: Manager,
                                                        clock: FakeClock) -> None:
    """Three players: round 1 seats P1 and P2 (P0 has the bye), round 2 P0 and P2, round 3
    P0 and P1. P2 withdraws after round 1: round 2 is P0's second bye (P2's seat forfeited)
    and P0 and P1 still have their game to play in round 3."""
    m = sqlite_manager
    t = await started(m, clock, 3, fmt=tour.ROUND_ROBIN, rounds=3)
    await play_round(m, t.id, 1, random.Random(1))
    await signup.leave(m.kernel, t.id, PEOPLE[2].id)
    for _ in range(6):
        t = await records.get(m.kernel, t.id)
        if t.status != tour.RUNNING:
            break
        await play_round(m, t.id, t.round, random.Random(t.round))
        clock.advance(DAY + HOUR)
        await m.sweep()
    assert (await records.get(m.kernel, t.id)).status == tour.OVER
    pair = frozenset((PEOPLE[0].id, PEOPLE[1].id))
    assert met(await records.tables(m.kernel, t.id))[pair] == 1


# --------------------------------------------------------------------------- a round's end


async def test_a_round_ends_when_every_table_ended(sqlite_manager: Manager,
                                                   clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 4, rounds=2)
    deadline = t.round_deadline_at
    assert deadline == clock.now() + DAY  # rounds of 24 hours
    [_, second] = await round_games(m, t.id, 1)
    await play_round(m, t.id, 1, random.Random(1), skip=frozenset({second.id}))
    await m.sweep()
    t = await records.get(m.kernel, t.id)
    assert t.round == 1 and len(await records.tables(m.kernel, t.id)) == 2
    assert all(x.points is None for x in await round_tables(m, t.id, 1))
    await play_round(m, t.id, 1, random.Random(2))
    clock.advance(HOUR)
    await m.sweep()  # long before the deadline
    t = await records.get(m.kernel, t.id)
    assert t.round == 2 and t.round_deadline_at == clock.now() + DAY
    assert all(x.points is not None for x in await round_tables(m, t.id, 1))
    assert ("standings", 1) in await posts(m) and ("round", 2) in await posts(m)


@pytest.mark.parametrize("timeout", ["autopilot", "computer"])
async def test_the_deadline_plays_out_open_tables_by_their_timeout_action(
        sqlite_manager: Manager, clock: FakeClock, timeout: str) -> None:
    m = sqlite_manager
    # Turns of three days: only the round's deadline ends these games.
    t = await started(m, clock, 5, rounds=2, size=3, timeout_action=timeout, turn_hours=72)
    games = await round_games(m, t.id, 1)
    assert len(games) == 2
    clock.advance(DAY - HOUR)
    await m.sweep()
    assert (await records.get(m.kernel, t.id)).round == 1  # not yet
    clock.advance(HOUR + HOUR)
    await until(m, lambda: at_round(m, t.id, 2))
    for g in await round_games(m, t.id, 1):
        assert g.status is GameStatus.OVER
        left = [s for s in g.seats if s.left]
        if timeout == "autopilot":
            # Each waiting seat's turns played for them; the seats stay theirs.
            assert not left
        else:
            # The seat it waited for became a computer player, the last person never.
            assert left and len(left) < len(g.seats)
    assert all(x.points is not None for x in await round_tables(m, t.id, 1))


async def test_outcomes_are_half_points_by_place(sqlite_manager: Manager,
                                                 clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 5, rounds=2, size=3)
    await play_round(m, t.id, 1, random.Random(7))
    await m.sweep()
    tables = await round_tables(m, t.id, 1)
    assert sorted(len(x.players) for x in tables) == [2, 3]
    for x in tables:
        assert x.game_id is not None
        over = await final_game_over(m, x.game_id)
        assert x.scores == over.totals
        assert x.points == pairing.table_points(over.places)
        n = len(x.players)
        assert sum(x.points or ()) == n * (n - 1)  # 2 half points shared per pair
    # The tables of two and of three: 1 / ½ / 0 and 2 / 1 / 0 points (in half points).
    assert {tuple(sorted(x.points or ())) for x in tables if len(x.players) == 2} <= {
        (0, 2), (1, 1)}


async def test_standings_with_buchholz(sqlite_manager: Manager, clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 6, rounds=3)
    await play_round(m, t.id, 1, random.Random(11))
    await m.sweep()
    after_one = await records.standings(m.kernel, t.id)
    await play_round(m, t.id, 2, random.Random(12))
    await m.sweep()
    tables = [x for x in await records.tables(m.kernel, t.id) if x.points is not None]
    total = Counter[int]()
    for x in tables:
        for u, p in zip(x.players, x.points or (), strict=True):
            total[u] += p
    board = await records.standings(m.kernel, t.id)
    for s in board:
        mine = [x for x in tables if s.user_id in x.players]
        assert s.points == total[s.user_id]
        # Buchholz: what the opponents met scored in the whole event, table by table.
        assert s.buchholz == sum(total[o] for x in mine for o in x.players if o != s.user_id)
        assert s.games == len(mine) == 2
        assert s.score == sum((x.scores or ())[x.players.index(s.user_id)] for x in mine)
    keys = [(s.points, s.buchholz, s.score) for s in board]
    assert keys == sorted(keys, reverse=True)
    assert board[0].rank == 1
    # Standings after an earlier round stay as they were.
    assert await records.standings(m.kernel, t.id, upto=1) == after_one
    assert sum(s.points for s in after_one) == 3 * 2  # three tables of two


# --------------------------------------------------------------------------- the last round


async def test_the_podium_after_the_last_round(sqlite_manager: Manager,
                                               clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 4, rounds=2)
    await run_to_end(m, t.id, random.Random(5))
    t = await records.get(m.kernel, t.id)
    assert (t.status, t.round, t.round_deadline_at) == (tour.OVER, 2, None)
    found = await posts(m)
    assert [p for p in found if p[0] == "podium"] == [("podium", 2)]
    assert [p for p in found if p[0] == "round"] == [("round", 1), ("round", 2)]
    assert len(await records.tables(m.kernel, t.id)) == 4  # no third round
    # Over: the sweep leaves it alone.
    clock.advance(5 * DAY)
    await m.sweep()
    assert await posts(m) == found
    assert (await records.get(m.kernel, t.id)).status == tour.OVER


async def test_when_all_but_one_withdrew_it_ends(sqlite_manager: Manager,
                                                 clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 3, rounds=3)
    await play_round(m, t.id, 1, random.Random(3))
    await m.sweep()
    for p in PEOPLE[1:3]:
        await signup.leave(m.kernel, t.id, p.id)
    await play_round(m, t.id, 2, random.Random(4))
    clock.advance(DAY + HOUR)
    await until(m, lambda: _ended(m, t.id))
    t = await records.get(m.kernel, t.id)
    assert t.status == tour.OVER and t.round == 2
    assert "podium" in kinds(await posts(m))


async def _ended(m: Manager, tid: int) -> bool:
    return (await records.get(m.kernel, tid)).status == tour.OVER


@pytest.mark.parametrize("count", [0, 1])
async def test_too_few_entrants_at_the_start_cancel_it(sqlite_manager: Manager,
                                                       clock: FakeClock, count: int) -> None:
    m = sqlite_manager
    t = await signed_up(m, clock, count + 2)
    for p in PEOPLE[count:count + 2]:  # two leave before it starts
        await signup.leave(m.kernel, t.id, p.id)
    clock.advance(2 * DAY - HOUR)
    await m.sweep()
    assert (await records.get(m.kernel, t.id)).status == tour.SIGNUP  # not before its time
    clock.advance(HOUR)
    await m.sweep()
    t = await records.get(m.kernel, t.id)
    assert (t.status, t.round) == (tour.CANCELLED, 0)
    assert await records.tables(m.kernel, t.id) == []
    assert await m.store.game_ids(guild_id=GUILD) == []
    assert "too_few" in kinds(await posts(m))
    await m.sweep()
    assert kinds(await posts(m)).count("too_few") == 1


async def test_two_entrants_are_enough(sqlite_manager: Manager, clock: FakeClock) -> None:
    t = await started(sqlite_manager, clock, 2)
    assert (t.status, t.round) == (tour.RUNNING, 1)
    assert len(await round_games(sqlite_manager, t.id, 1)) == 1


# --------------------------------------------------------------------------- once each


async def reopen(m: Manager, path: Path, clock: FakeClock, n: int) -> Manager:
    await m.close()
    return await Manager.open(path, clock=clock, seed_source=seeds(100 * n), exclusive=False)


async def killed(*_: Any) -> int:
    raise RuntimeError("killed after the round's write")


def crash(name: str) -> None:
    if name in ("tournament.round_ended", "tournament.finished"):
        raise RuntimeError("killed after the round's write")


async def test_a_restart_between_steps_takes_each_step_once(
        tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step of a three-round Swiss is interrupted: the process dies right after the
    write that pairs a round (none of its games opened), then starts again and sweeps twice,
    and at one step two processes sweep at once. Each round is paired once, each table gets
    one game, each post is queued once."""
    path = tmp_path / "calico.db"
    m = await Manager.open(path, clock=clock, seed_source=seeds(), exclusive=False)
    other: Manager | None = None
    try:
        t = await signed_up(m, clock, 5)
        clock.advance(2 * DAY)
        rng = random.Random(6)
        for round_no in (1, 2, 3, 4):
            # Round 1 is paired in a write without outcomes: its games would open next;
            # later rounds end the round before in the same write (a crash point follows).
            if round_no == 1:
                monkeypatch.setattr(rounds, "_open_games", killed)
            else:
                monkeypatch.setattr(rounds, "crash_point", crash)
            await rounds.tick(m.kernel, m.kernel.now_ms())
            monkeypatch.undo()
            assert (await records.get(m.kernel, t.id)).round == min(round_no, 3)
            m = await reopen(m, path, clock, round_no)
            if round_no == 2:
                other = await Manager.open(path, clock=clock, seed_source=seeds(900),
                                           exclusive=False)
                await asyncio.gather(m.sweep(), other.sweep(), m.sweep(), other.sweep())
                await other.close()
                other = None
            else:
                await m.sweep()
                await m.sweep()
            t = await records.get(m.kernel, t.id)
            if round_no == 4:
                break
            assert t.round == round_no
            tables = await round_tables(m, t.id, round_no)
            assert sorted(u for x in tables for u in x.players) == [p.id for p in PEOPLE[:5]]
            assert all(x.game_id is not None for x in tables if not x.bye)
            await play_round(m, t.id, round_no, rng)
        assert t.status == tour.OVER
        tables = await records.tables(m.kernel, t.id)
        assert len(tables) == 9  # three rounds of two tables and a bye
        games = [x.game_id for x in tables if x.game_id is not None]
        assert len(set(games)) == len(games) == 6
        assert sorted(await m.store.game_ids(guild_id=GUILD)) == sorted(games)
        found = await posts(m)
        assert [p for p in found if p[0] == "round"] == [("round", 1), ("round", 2), ("round", 3)]
        assert [p for p in found if p[0] == "podium"] == [("podium", 3)]
        for r in (1, 2):
            assert found.count(("standings", r)) == 1
    finally:
        if other is not None:
            await other.close()
        await m.close()
