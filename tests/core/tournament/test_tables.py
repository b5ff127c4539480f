"""A tournament table's game (:mod:`bot.core.tournament.tables`), on both backends: opened
once even when two processes race for it (the link to its table is written in the game's own
transaction), its score sheet naming the tournament and round, and a withdrawn player's open
game going on with a computer in their seat."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.core import queries, turns
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus, ManagerError
from bot.core.notices import GameOver, NoticeKind, OpenThread
from bot.core.tournament import model as tour
from bot.core.tournament import records, rounds, signup, tables
from tests.core.conftest import ANN, BOB, GUILD, new_game, play_out
from tests.core.tournament.conftest import (
    DAY,
    HOUR,
    ORGANISER,
    PEOPLE,
    at_round,
    play_round,
    round_games,
    round_tables,
    signed_up,
    started,
    until,
)


async def paired_without_games(m: Manager, clock: FakeClock, count: int,
                               monkeypatch: pytest.MonkeyPatch) -> tour.TournamentInfo:
    """Round 1 paired and stored, none of its games opened (the process died between)."""
    t = await signed_up(m, clock, count)
    clock.advance(2 * DAY)

    async def died(*_: Any) -> int:
        raise RuntimeError("killed after the pairing was stored")

    monkeypatch.setattr(rounds, "_open_games", died)
    await rounds.tick(m.kernel, m.kernel.now_ms())
    monkeypatch.undo()
    return await records.get(m.kernel, t.id)


async def open_table(m: Manager, t: tour.TournamentInfo, x: tour.Table) -> int:
    names = {e.user_id: e.name for e in t.entrants}
    return await tables.open_game(m.kernel, t.guild_id, t.channel_id, t.options,
                                  (t.id, x.round, x.table_no),
                                  [(u, names[u]) for u in x.players])


async def open_threads(m: Manager) -> int:
    return sum(n.kind == OpenThread.kind for n in await m.store.notices())


async def test_two_processes_racing_for_a_table_open_one_game(
        manager: Manager, second: Manager, clock: FakeClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = await paired_without_games(manager, clock, 2, monkeypatch)
    [x] = await round_tables(manager, t.id, 1)
    assert x.game_id is None
    opened = await asyncio.gather(open_table(manager, t, x), open_table(second, t, x))
    assert sorted(opened) == [0, 1]
    # One game, linked to its table, with one thread to open: the loser stored nothing.
    games = await manager.store.game_ids(guild_id=GUILD)
    assert len(games) == 1
    [x] = await round_tables(manager, t.id, 1)
    assert x.game_id == games[0]
    g = await queries.game(second.kernel, games[0], fresh=True)
    assert tuple(s.user_id for s in g.seats) == x.players
    assert await open_threads(manager) == 1
    # Later tries, and both processes' sweeps, open nothing more.
    assert await open_table(second, t, x) == 0
    await asyncio.gather(manager.sweep(), second.sweep())
    assert await manager.store.game_ids(guild_id=GUILD) == games
    assert await open_threads(manager) == 1


async def test_a_restarted_process_opens_each_missing_game_once(
        manager: Manager, second: Manager, clock: FakeClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = await paired_without_games(manager, clock, 6, monkeypatch)
    assert all(x.game_id is None for x in await round_tables(manager, t.id, 1))
    await asyncio.gather(manager.sweep(), second.sweep(), manager.sweep())
    found = await round_tables(manager, t.id, 1)
    games = sorted(x.game_id for x in found if x.game_id is not None)
    assert len(games) == len(set(games)) == 3
    assert sorted(await manager.store.game_ids(guild_id=GUILD)) == games
    assert await open_threads(manager) == 3


async def test_a_tables_score_sheet_names_its_tournament_and_round(
        manager: Manager, clock: FakeClock) -> None:
    t = await started(manager, clock, 2, rounds=2, name="Spring Cup")
    for round_no in (1, 2):
        [g] = await round_games(manager, t.id, round_no)
        await play_out(manager, g, random.Random(round_no))
        [over] = [n.body for n in await manager.store.notices(g.id)
                  if n.kind == NoticeKind.GAME_OVER]
        assert isinstance(over, GameOver)
        assert over.part(tour.ScoreSheetLine) == tour.ScoreSheetLine(
            id=t.id, name="Spring Cup", round=round_no, rounds=2)
        await manager.sweep()
    # An ordinary game's score sheet has no such line.
    g = await new_game(manager, ANN, people=(BOB,), setup="beginner")
    g = await play_out(manager, g, random.Random(9))
    [over] = [n.body for n in await manager.store.notices(g.id)
              if n.kind == NoticeKind.GAME_OVER]
    assert isinstance(over, GameOver) and over.part(tour.ScoreSheetLine) is None


@pytest.mark.parametrize("size", [2, 3])
async def test_a_withdrawn_players_open_game_goes_on_with_a_computer(
        manager: Manager, clock: FakeClock, size: int) -> None:
    t = await started(manager, clock, size + 2, rounds=2, size=size)
    g = next(g for g in await round_games(manager, t.id, 1) if len(g.seats) == size)
    quitter = g.seats[0].user_id
    assert quitter is not None
    t = await signup.leave(manager.kernel, t.id, quitter)
    g = await queries.game(manager.kernel, g.id, fresh=True)
    assert g.status.active
    seat = g.seats[0]
    assert seat.is_computer and seat.left and seat.user_id == quitter
    assert not any(s.is_computer for s in g.seats[1:])  # the others still play
    # The others play on to the end, the computer taking the seat's turns.
    g = await play_out(manager, g, random.Random(3))
    assert g.status is GameStatus.OVER
    await play_round(manager, t.id, 1, random.Random(4))
    await manager.sweep()
    assert (await records.get(manager.kernel, t.id)).round == 2
    for x in await round_tables(manager, t.id, 2):
        assert quitter not in x.players  # never paired again


async def test_withdrawing_after_ones_game_ended_leaves_it_alone(
        manager: Manager, clock: FakeClock) -> None:
    t = await started(manager, clock, 4, rounds=2)
    [first, _] = await round_games(manager, t.id, 1)
    done = await play_out(manager, first, random.Random(1))
    quitter = done.seats[1].user_id
    assert quitter is not None
    t = await signup.leave(manager.kernel, t.id, quitter)
    assert next(e for e in t.entrants if e.user_id == quitter).withdrawn is not None
    again = await queries.game(manager.kernel, done.id, fresh=True)
    assert again.status is GameStatus.OVER and again.seats == done.seats
    # The round still ends with the other table, and goes on without them.
    await play_round(manager, t.id, 1, random.Random(2), skip=frozenset({done.id}))
    clock.advance(HOUR)
    await until(manager, lambda: at_round(manager, t.id, 2))
    assert all(quitter not in x.players for x in await round_tables(manager, t.id, 2))
    assert len(await round_tables(manager, t.id, 2)) == 2  # three left: a table and a bye


async def test_the_organiser_removing_a_player_frees_their_seat_too(
        manager: Manager, clock: FakeClock) -> None:
    t = await started(manager, clock, 2, rounds=2)
    [g] = await round_games(manager, t.id, 1)
    removed = g.seats[1].user_id
    await signup.remove(manager.kernel, t.id, ORGANISER.id, removed or 0)
    g = await queries.game(manager.kernel, g.id, fresh=True)
    assert g.seats[1].is_computer and g.seats[1].left and g.status.active
    assert not g.seats[0].is_computer  # the other player plays on
    t = await records.get(manager.kernel, t.id)
    assert [e.user_id for e in t.active] == [u for u in (PEOPLE[0].id, PEOPLE[1].id)
                                             if u != removed]


@pytest.mark.parametrize("options", [
    {"hints": True}, {"family": True, "setup": "standard"}, {"restriction": "adjacent"},
    {"setup": "standard", "lower_variance": False}])
async def test_a_tables_game_plays_the_tournaments_options(sqlite_manager: Manager,
                                                           clock: FakeClock,
                                                           options: dict[str, object]) -> None:
    """Hints, variants and restrictions (issue #28): every table plays what the organiser
    chose, and its result counts in the standings (a hint taken, when hints are on, too)."""
    m = sqlite_manager
    t = await started(m, clock, 4, rounds=1, size=2, **options)
    games = await round_games(m, t.id, 1)
    assert len(games) == 2
    for g in games:
        for key, value in options.items():
            assert getattr(g.options, key) == value, key
    g = games[0]
    if g.status is GameStatus.PLAY and g.current_user_id is not None:
        if options.get("hints"):
            await turns.take_hint(m.kernel, g.id, g.current_user_id, g.ply)
            assert (await queries.game(m.kernel, g.id, fresh=True)).hints_used
        else:
            with pytest.raises(ManagerError) as off:
                await turns.take_hint(m.kernel, g.id, g.current_user_id, g.ply)
            assert off.value.code == "hints_off"
    else:
        assert "setup" in options  # the standard setup opens with the goal draft
    await play_round(m, t.id, 1, random.Random(5))
    await m.sweep()
    assert (await records.get(m.kernel, t.id)).status == tour.OVER
    tables = await round_tables(m, t.id, 1)
    assert all(x.points is not None and sum(x.points) == 2 for x in tables)
