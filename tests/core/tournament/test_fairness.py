"""Fair results and rounds that hold at any size (issue #28): a player withdrawn or removed during
a game loses it (last at the table, whatever the computer then earns in the seat; as the
ratings count it), a seat timed out into a computer at a round deadline too; a round-robin goes
on after a withdrawal (the withdrawn player's later seats forfeited); ``rounds`` is honoured for
a round-robin; each format's entrant cap is enforced; and at a round deadline the open tables
are handed to the computers' queue rather than played inside the sweep."""

from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

import pytest

from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus, UserRef
from bot.core.progress import ratings
from bot.core.progress.model import person_key
from bot.core.tournament import model as tour
from bot.core.tournament import pairing, records, rounds, signup
from tests.core.conftest import GUILD, play_out, seeds
from tests.core.tournament.conftest import (
    DAY,
    HOUR,
    ORGANISER,
    PEOPLE,
    at_round,
    create,
    play_round,
    posts,
    refused,
    round_games,
    round_tables,
    run_to_end,
    signed_up,
    started,
    until,
)


async def places_of(m: Manager, game_id: int) -> dict[int | None, int]:
    return {r.user_id: r.place for r in await m.store.results(game_id)}


@pytest.mark.parametrize("how", ["withdraws", "removed"])
async def test_a_player_gone_mid_game_loses_that_game(sqlite_manager: Manager,
                                                      clock: FakeClock, how: str) -> None:
    """The computer that finishes the seat (an easy one, against random moves) places ahead
    of the person left at the table; the tournament still counts the seat last."""
    m = sqlite_manager
    t = await started(m, clock, 6, rounds=2, size=3, ai_level="easy")
    games = await round_games(m, t.id, 1)
    gone = {g.seats[0].user_id for g in games}
    for uid in gone:
        assert uid is not None
        if how == "withdraws":
            await signup.leave(m.kernel, t.id, uid)
        else:
            await signup.remove(m.kernel, t.id, ORGANISER.id, uid)
    await play_round(m, t.id, 1, random.Random(8))
    await m.kernel.computers_idle()
    await m.sweep()
    tables = await round_tables(m, t.id, 1)
    computer_ahead = 0
    for x in tables:
        assert x.game_id is not None and x.points is not None and x.scores is not None
        places = await places_of(m, x.game_id)
        [quitter] = [u for u in x.players if u in gone]
        i = x.players.index(quitter)
        computer_ahead += places[quitter] < max(places.values())
        # Last at the table: no half point from anyone, and no score for the tie-break.
        assert x.points[i] == 0 and x.scores[i] == 0
        others = [p for j, p in enumerate(x.points) if j != i]
        assert all(p >= 2 for p in others)  # each beat the seat that left
        # The server's ratings agree: everyone started level, the seat that left was rated
        # last at its table, so its player's rating is the table's lowest.
        mu = {u: (await ratings.rating_of(m.kernel, person_key(u), GUILD)).row
              for u in x.players}
        assert all(r is not None for r in mu.values())
        assert all(mu[quitter].mu < r.mu for u, r in mu.items() if u != quitter and r)
    # The seats' computers did place ahead of someone: the old rule would have paid them.
    assert computer_ahead >= 1
    board = {s.user_id: s for s in await records.standings(m.kernel, t.id)}
    assert all(board[u].points == 0 for u in gone)


async def test_a_seat_timed_out_into_a_computer_at_the_deadline_is_a_forfeit(
        sqlite_manager: Manager, clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 10, rounds=2, timeout_action="computer", turn_hours=72)
    clock.advance(DAY + HOUR)
    await until(m, lambda: at_round(m, t.id, 2))
    computer_ahead = 0
    for x in await round_tables(m, t.id, 1):
        assert x.game_id is not None and x.points is not None
        g = await queries.game(m.kernel, x.game_id, fresh=True)
        assert g.status is GameStatus.OVER
        [late] = [s.user_id for s in g.seats if s.left]  # the seat the deadline found waiting
        assert x.points[x.players.index(late)] == 0
        places = await places_of(m, x.game_id)
        computer_ahead += places[late] == 1 and len(set(places.values())) > 1
    assert computer_ahead >= 1  # a computer did win a late seat's game: still a loss


async def test_the_deadline_hands_open_tables_to_the_computers_queue(
        sqlite_manager: Manager, clock: FakeClock) -> None:
    """The sweep at the deadline only marks each open game and queues it: it comes back with
    the games still being played by the computers (level easy, in a thread), which finish
    them; a later sweep ends the round."""
    m = sqlite_manager
    t = await started(m, clock, 4, rounds=2, ai_level="easy", turn_hours=72)
    games = await round_games(m, t.id, 1)
    clock.advance(DAY + HOUR)
    report = await m.sweep()
    assert report.features.get("tournament") == len(games)
    queue = m.kernel.computer_turns
    assert queue is not None
    pending = [g for g in games if queue.busy_with(g.id)
               or (await queries.game(m.kernel, g.id, fresh=True)).status.active]
    assert pending, "the sweep played the games itself"
    assert (await records.get(m.kernel, t.id)).round == 1
    await m.kernel.computers_idle()
    for g in games:
        g = await queries.game(m.kernel, g.id, fresh=True)
        assert g.status is GameStatus.OVER
        assert not any(s.left for s in g.seats)  # autopilot: the seats stay the players'
    await until(m, lambda: at_round(m, t.id, 2))


@pytest.mark.parametrize(("count", "size"), [(5, 2), (5, 3), (7, 3), (9, 4)])
async def test_an_odd_round_robin_goes_on_after_a_withdrawal(sqlite_manager: Manager,
                                                             clock: FakeClock, count: int,
                                                             size: int) -> None:
    m = sqlite_manager
    t = await started(m, clock, count, fmt=tour.ROUND_ROBIN, rounds=20, size=size)
    rounds = t.rounds
    assert rounds >= 3
    await play_round(m, t.id, 1, random.Random(1))
    await m.sweep()
    quitter = PEOPLE[count - 1].id
    await signup.leave(m.kernel, t.id, quitter)
    await run_to_end(m, t.id, random.Random(2))
    t = await records.get(m.kernel, t.id)
    assert (t.status, t.round, t.rounds) == (tour.OVER, rounds, rounds)
    tables = await records.tables(m.kernel, t.id)
    assert all(quitter not in x.players for x in tables if x.round > 2)
    # Everyone still in met everyone else still in.
    stayed = [p.id for p in PEOPLE[:count - 1]]
    met = {frozenset(p) for x in tables for p in combinations(x.players, 2)}
    assert all(frozenset(p) in met for p in combinations(stayed, 2))
    # A table that lost the quitter's seat: its players each count one more opponent beaten.
    schedule = pairing.round_robin([p.id for p in PEOPLE[:count]], size)
    forfeited = 0
    for x in tables:
        if x.round <= 2 or x.bye or x.points is None:
            continue
        [planned] = [p for p in schedule[x.round - 1].tables if x.players[0] in p]
        n, empty = len(x.players), len(planned) - len(x.players)
        assert sum(x.points) == n * (n - 1) + 2 * n * empty
        forfeited += empty
    assert forfeited or size == 2  # (at tables of two the quitter's partner had a bye)


async def test_round_robin_rounds_are_honoured(sqlite_manager: Manager,
                                               clock: FakeClock) -> None:
    """Four players need three rounds to meet everyone; asked for two, they play two."""
    m = sqlite_manager
    t = await started(m, clock, 4, fmt=tour.ROUND_ROBIN, rounds=2)
    assert t.rounds == 2
    await run_to_end(m, t.id, random.Random(3))
    t = await records.get(m.kernel, t.id)
    assert (t.status, t.round) == (tour.OVER, 2)
    assert {x.round for x in await records.tables(m.kernel, t.id)} == {1, 2}


@pytest.mark.parametrize(("fmt", "size"), [(tour.ROUND_ROBIN, 2), (tour.ROUND_ROBIN, 3),
                                           (tour.ROUND_ROBIN, 4), (tour.SWISS, 2)])
async def test_each_format_has_its_entrant_cap(sqlite_manager: Manager, clock: FakeClock,
                                               fmt: str, size: int) -> None:
    m = sqlite_manager
    cap = tour.max_entrants(fmt, size)
    assert cap == {tour.ROUND_ROBIN: {2: 20, 3: 24, 4: 32}}.get(fmt, {}).get(size, 1024)
    t = await create(m, clock, fmt=fmt, size=size)
    for i in range(cap):
        t = await signup.join(m.kernel, t.id, UserRef(10_000 + i, f"E{i}"))
    assert len(t.entrants) == cap
    late = UserRef(90_000, "Late")
    with pytest.raises(tour.TournamentError) as caught:
        await signup.join(m.kernel, t.id, late)
    assert caught.value.code == tour.FULL and caught.value.params == {"count": cap}
    # Someone leaves: there is room again.
    await signup.leave(m.kernel, t.id, 10_000)
    assert len((await signup.join(m.kernel, t.id, late)).entrants) == cap
    await refused(signup.join(m.kernel, t.id, UserRef(90_001, "Later")), tour.FULL)


STEPS = ("tournament.round_paired", "tournament.game_opened", "tournament.played_out",
         "tournament.round_ended", "tournament.finished")


@pytest.mark.parametrize("point", STEPS)
async def test_a_crash_in_the_middle_of_each_step_takes_it_once(
        tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    """The process dies (here: the step stops with an error) right at ``point``, in the middle
    of a step (one game of the round opened, one handed to the computers at the deadline...),
    then another process takes over: each round paired once, each table one game, each post
    queued once, and the tournament runs to its podium. (The same with real processes killed
    by SIGKILL: tests/e2e/test_tournament_processes.py.)"""
    path = tmp_path / "calico.db"
    m = await Manager.open(path, clock=clock, seed_source=seeds(), exclusive=False)
    hit: list[str] = []
    reopened = False

    def die(name: str) -> None:
        if name == point and not hit:
            hit.append(name)
            raise RuntimeError(f"killed at {name}")

    try:
        t = await signed_up(m, clock, 6, rounds=2)
        clock.advance(2 * DAY)
        monkeypatch.setattr(rounds, "crash_point", die)
        for _ in range(12):
            await m.sweep()
            if hit == [point] and not reopened:
                await m.close()  # the process that died; another starts
                m = await Manager.open(path, clock=clock, seed_source=seeds(500),
                                       exclusive=False)
                reopened = True
                continue
            t = await records.get(m.kernel, t.id)
            if t.status == tour.OVER:
                break
            # One table of each round plays; the other waits for the deadline.
            [first, *_] = await round_games(m, t.id, t.round)
            if first.status.active:
                await play_out(m, first, random.Random(t.round))
            clock.advance(DAY + HOUR)
            await m.sweep()
            await m.kernel.computers_idle()
        assert hit == [point]
        t = await records.get(m.kernel, t.id)
        assert t.status == tour.OVER
        tables = await records.tables(m.kernel, t.id)
        assert sorted((x.round, x.table_no) for x in tables) == [
            (r, n) for r in (1, 2) for n in (1, 2, 3)]
        games = [x.game_id or 0 for x in tables]
        assert 0 not in games and len(set(games)) == 6
        assert sorted(await m.store.game_ids(guild_id=GUILD)) == sorted(games)
        assert all(x.points is not None for x in tables)
        found = await posts(m)
        assert [p for p in found if p[0] != "signup"] == [
            ("round", 1), ("standings", 1), ("round", 2), ("podium", 2)]
    finally:
        await m.close()
