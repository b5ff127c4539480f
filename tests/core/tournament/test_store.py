"""The tournaments' own storage (:mod:`bot.core.tournament.store`) on both backends, real
SQLite and PostgreSQL: a tournament created with its first notices in one transaction, a step
written whole at the version read or not at all, outcomes kept, the tables of a round still
open, and the tournaments the sweep has work for."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.storage import NoticeDraft, StaleWriteError
from bot.core.tournament import model as tour
from bot.core.tournament import records, store, tables
from bot.core.tournament.model import EntrantRow, PostKind, TableRow, TournamentRow
from bot.core.tournament.store import TournamentWrite
from tests.core.conftest import CHANNEL, GUILD, opts, play_out
from tests.core.tournament.conftest import posts

NOW = 1_700_000_000_000
OPTIONS = opts(setup="beginner", players=2).model_dump_json()


def row(**kw: object) -> TournamentRow:
    base = TournamentRow(0, GUILD, CHANNEL, 2900, "Spring Cup", tour.SWISS, 3, 2, OPTIONS,
                         NOW + 10, NOW + 20, 1.5, tour.SIGNUP, 0, None, None, 0, NOW, NOW)
    return replace(base, **kw)  # type: ignore[arg-type]


async def made(m: Manager, **kw: object) -> TournamentRow:
    r = row(**kw)
    tid = await store.create(m.store, r, lambda _tid: [])
    found = await store.tournament(m.store, tid)
    assert found is not None
    return found


def draft(r: TournamentRow, index: int, version: int) -> NoticeDraft:
    return records.post(r, index, PostKind.SIGNUP, version=version)


async def test_create_stores_the_row_and_its_notices_together(manager: Manager) -> None:
    r = row()
    seen: list[int] = []

    def notices(tid: int) -> list[NoticeDraft]:
        seen.append(tid)
        return [draft(replace(r, id=tid), 0, 0)]

    manager.store.notices_added.clear()
    tid = await store.create(manager.store, r, notices)
    assert seen == [tid] and tid > 0
    assert manager.store.notices_added.is_set()  # the outbox is woken
    found = await store.tournament(manager.store, tid)
    assert found == replace(r, id=tid)  # every column as written (a fractional round time)
    [n] = await manager.store.notices(0)
    assert (n.key, n.channel_id, n.game_id, n.user_id) == (f"t{tid}.0.0", CHANNEL, 0, None)
    assert n.body == tour.Post(tournament=tid, what=PostKind.SIGNUP, guild_id=GUILD)
    # A second tournament gets its own id and its own notices.
    other = await store.create(manager.store, row(name="Autumn Cup"),
                               lambda t2: [draft(replace(r, id=t2), 0, 0)])
    assert other != tid
    assert [x.id for x in await store.of_guild(manager.store, GUILD, 10)] == [other, tid]
    assert [x.id for x in await store.of_guild(manager.store, GUILD, 1)] == [other]
    assert await store.of_guild(manager.store, GUILD + 1, 10) == []


async def test_a_create_whose_notices_fail_stores_nothing(manager: Manager) -> None:
    def broken(_tid: int) -> list[NoticeDraft]:
        raise RuntimeError("no notices")

    with pytest.raises(RuntimeError):
        await store.create(manager.store, row(), broken)
    assert await store.of_guild(manager.store, GUILD, 10) == []
    assert await manager.store.notices(0) == []


async def test_a_step_is_written_whole_at_its_version(manager: Manager) -> None:
    r = await made(manager)
    w = TournamentWrite(r.id, 0, NOW + 5, {"status": tour.RUNNING, "round": 1,
                                           "round_deadline_at": NOW + 99})
    w.add_entrants += [EntrantRow(r.id, 11, "Ann", NOW + 1), EntrantRow(r.id, 12, "Bob", NOW)]
    w.tables.append(TableRow(r.id, 1, 1, json.dumps([11, 12])))
    w.notices.append(draft(r, 0, 1))
    assert await store.write(manager.store, w) == 1  # the notices queued
    found = await store.tournament(manager.store, r.id)
    assert found is not None
    assert (found.version, found.status, found.round, found.round_deadline_at,
            found.updated_at) == (1, tour.RUNNING, 1, NOW + 99, NOW + 5)
    # Entrants in sign-up order.
    assert [e.user_id for e in await store.entrants(manager.store, r.id)] == [12, 11]
    assert [t.players for t in await store.tables(manager.store, r.id)] == ["[11, 12]"]


async def test_a_stale_write_is_refused_and_stores_nothing(manager: Manager) -> None:
    r = await made(manager)
    await store.write(manager.store, TournamentWrite(r.id, 0, NOW + 1, {"message_id": 77}))
    before = (await store.tournament(manager.store, r.id),
              await store.entrants(manager.store, r.id), await store.tables(manager.store, r.id),
              await manager.store.notices(0))
    # A second writer that read version 0: everything it carries is refused together.
    late = TournamentWrite(r.id, 0, NOW + 2, {"status": tour.CANCELLED})
    late.add_entrants.append(EntrantRow(r.id, 13, "Cat", NOW + 2))
    late.tables.append(TableRow(r.id, 1, 1, json.dumps([13])))
    late.notices.append(draft(r, 0, 1))
    with pytest.raises(StaleWriteError):
        await store.write(manager.store, late)
    after = (await store.tournament(manager.store, r.id),
             await store.entrants(manager.store, r.id), await store.tables(manager.store, r.id),
             await manager.store.notices(0))
    assert after == before
    assert before[0] is not None and before[0].message_id == 77
    # Nor may a step set a column that is not its to set (nothing written either).
    with pytest.raises(ValueError, match="name"):
        await store.write(manager.store, TournamentWrite(r.id, 1, NOW + 3, {"name": "x"}))
    assert await store.tournament(manager.store, r.id) == before[0]


async def test_entrants_leave_and_withdraw(manager: Manager) -> None:
    r = await made(manager)
    w = TournamentWrite(r.id, 0, NOW)
    w.add_entrants += [EntrantRow(r.id, u, f"U{u}", NOW + u) for u in (1, 2, 3)]
    await store.write(manager.store, w)
    w = TournamentWrite(r.id, 1, NOW, remove_entrants=[2], withdraw=[(3, 2)])
    await store.write(manager.store, w)
    # Withdrawn once: a second withdrawal keeps the first round.
    await store.write(manager.store, TournamentWrite(r.id, 2, NOW, withdraw=[(3, 5)]))
    assert [(e.user_id, e.withdrawn) for e in await store.entrants(manager.store, r.id)] == [
        (1, None), (3, 2)]


async def test_outcomes_are_kept_with_their_tables(manager: Manager) -> None:
    r = await made(manager)
    w = TournamentWrite(r.id, 0, NOW)
    w.tables += [TableRow(r.id, 1, 1, json.dumps([1, 2])), TableRow(r.id, 1, 2, json.dumps([3]))]
    await store.write(manager.store, w)
    w = TournamentWrite(r.id, 1, NOW)
    w.outcomes += [(1, 1, json.dumps({"points": [0, 2], "scores": [48, 61]})),
                   (1, 2, json.dumps({"points": [2], "scores": [0]}))]
    await store.write(manager.store, w)
    found = await records.tables(manager.kernel, r.id)
    assert [(x.players, x.points, x.scores, x.bye) for x in found] == [
        ((1, 2), (0, 2), (48, 61), False), ((3,), (2,), (0,), True)]


async def test_open_tables_are_those_still_to_play(manager: Manager, clock: FakeClock) -> None:
    k = manager.kernel
    r = await made(manager, status=tour.RUNNING)
    w = TournamentWrite(r.id, 0, NOW)
    w.add_entrants += [EntrantRow(r.id, u, f"U{u}", NOW) for u in (1, 2, 3, 4, 5)]
    w.tables += [TableRow(r.id, 1, 1, json.dumps([1, 2])), TableRow(r.id, 1, 2, json.dumps([3, 4])),
                 TableRow(r.id, 1, 3, json.dumps([5])),  # a bye: nothing to play
                 TableRow(r.id, 2, 1, json.dumps([1, 3]))]  # another round
    await store.write(manager.store, w)
    assert await store.open_tables(manager.store, r.id, 1) == 2  # no game yet
    options = opts(setup="beginner", players=2)
    for table_no, players in ((1, [(1, "U1"), (2, "U2")]), (2, [(3, "U3"), (4, "U4")])):
        assert await tables.open_game(k, GUILD, CHANNEL, options, (r.id, 1, table_no),
                                      players) == 1
    assert await store.open_tables(manager.store, r.id, 1) == 2  # games under way
    [first, second] = [x.game_id for x in await records.tables(k, r.id)
                       if x.round == 1 and not x.bye]
    assert first is not None and second is not None
    # The table a game is played at, and none for another game.
    at = await store.table_of_game(manager.store, first)
    assert at is not None and (at.round, at.table_no) == (1, 1)
    assert await store.table_of_game(manager.store, 987_654) is None
    await play_out(manager, await queries.game(k, first), random.Random(1))
    assert await store.open_tables(manager.store, r.id, 1) == 1
    await play_out(manager, await queries.game(k, second), random.Random(2))
    assert await store.open_tables(manager.store, r.id, 1) == 0
    assert await store.open_tables(manager.store, r.id, 2) == 1


async def test_a_linked_table_takes_no_second_game(manager: Manager) -> None:
    r = await made(manager, status=tour.RUNNING)
    w = TournamentWrite(r.id, 0, NOW)
    w.tables.append(TableRow(r.id, 1, 1, json.dumps([1, 2])))
    await store.write(manager.store, w)
    options = opts(setup="beginner", players=2)
    seats = [(1, "U1"), (2, "U2")]
    assert await tables.open_game(manager.kernel, GUILD, CHANNEL, options, (r.id, 1, 1),
                                  seats) == 1
    games = await manager.store.game_ids(guild_id=GUILD)
    assert await tables.open_game(manager.kernel, GUILD, CHANNEL, options, (r.id, 1, 1),
                                  seats) == 0
    assert await manager.store.game_ids(guild_id=GUILD) == games  # the second not stored


async def test_due_lists_what_the_sweep_has_work_for(manager: Manager) -> None:
    later = await made(manager, starts_at=NOW + 1)  # its start not yet come
    now_ = await made(manager, starts_at=NOW)  # starts now
    past = await made(manager, starts_at=NOW - 1)
    running = await made(manager, status=tour.RUNNING, starts_at=NOW + 50)  # always
    for status in (tour.PAUSED, tour.OVER, tour.CANCELLED):
        await made(manager, status=status, starts_at=NOW - 100)
    assert [x.id for x in await store.due(manager.store, NOW)] == [now_.id, past.id, running.id]
    assert later.id in [x.id for x in await store.due(manager.store, NOW + 1)]


async def test_the_posts_of_a_step_are_queued_once(manager: Manager, clock: FakeClock) -> None:
    """The post keys carry the version written: a step redone after losing the race queues
    its posts under the new version, and the lost one queued none."""
    r = await made(manager)
    w = TournamentWrite(r.id, 0, NOW)
    w.notices.append(records.post(r, 0, PostKind.PAUSED))
    await store.write(manager.store, w)
    stale = TournamentWrite(r.id, 0, NOW)
    stale.notices.append(records.post(r, 0, PostKind.RESUMED))
    with pytest.raises(StaleWriteError):
        await store.write(manager.store, stale)
    assert await posts(manager) == [("paused", None)]
    [n] = await manager.store.notices(0)
    assert n.key == f"t{r.id}.1.0"
