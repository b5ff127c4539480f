"""What people do to a tournament (:mod:`bot.core.tournament.signup`), on both backends: the
organiser creates it (every setting out of range refused, nothing stored), players join and
leave during the sign-up, the sign-up closes at its time or when the organiser says, only the
organiser (or a privileged member) closes, removes, pauses and cancels, a resume gives a
passed deadline a whole round again, and each step is one write: a second writer that lost the
race redoes its change on what the winner wrote (two joins at once both land)."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import FirstPlayer, GameStatus, ManagerError, UserRef
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup, store
from tests.core.conftest import CHANNEL, GUILD, opts, seeds
from tests.core.tournament.conftest import (
    DAY,
    HOUR,
    ORGANISER,
    PEOPLE,
    create,
    kinds,
    play_round,
    posts,
    refused,
    round_games,
    signed_up,
    spec,
    started,
)

STRANGER = UserRef(4000, "Stranger")  # not the organiser, not privileged


# --------------------------------------------------------------------------- create


async def test_create_opens_the_sign_up_and_queues_its_message(manager: Manager,
                                                                clock: FakeClock) -> None:
    s = replace(spec(clock, size=3), name="  Spring \n  Cup ")
    t = await signup.create(manager.kernel, ORGANISER, GUILD, CHANNEL, s)
    assert (t.name, t.status, t.round, t.entrants) == ("Spring Cup", tour.SIGNUP, 0, ())
    assert t.signup_open and t.organiser_id == ORGANISER.id
    assert (t.guild_id, t.channel_id) == (GUILD, CHANNEL)
    assert to_ms(t.signup_ends_at) == s.signup_ends_at and to_ms(t.starts_at) == s.starts_at
    # Each table's game seats the table size, the first player drawn at random.
    assert t.options.players == 3 and t.options.first is FirstPlayer.RANDOM
    assert await posts(manager) == [("signup", None)]
    assert [x.id for x in await records.listed(manager.kernel, GUILD)] == [t.id]


def bad_specs(s: tour.Spec, now: int) -> dict[str, tuple[tour.Spec, str | None]]:
    """Each setting just out of range (the rest as in ``s``), with the option the refusal
    names (issue #28; None: no single option is to blame)."""
    return {
        "empty name": (replace(s, name=""), "name"),
        "blank name": (replace(s, name=" \n\t "), "name"),
        "name of 81": (replace(s, name="x" * 81), "name"),
        "unknown format": (replace(s, format="knockout"), None),
        "tables of 1": (replace(s, table_size=1), "table_size"),
        "tables of 5": (replace(s, table_size=5), "table_size"),
        "no round": (replace(s, rounds=0), "rounds"),
        "21 rounds": (replace(s, rounds=tour.MAX_ROUNDS + 1), "rounds"),
        "sign-up ended already": (replace(s, signup_ends_at=now - 1), "signup_hours"),
        "sign-up over 30 days": (replace(s, signup_ends_at=now + 721 * tour.HOUR_MS,
                                         starts_at=now + 722 * tour.HOUR_MS), "signup_hours"),
        "start before the sign-up ends": (replace(s, starts_at=s.signup_ends_at - 1),
                                          "start_hours"),
        "start over 60 days": (replace(s, starts_at=now + 1441 * tour.HOUR_MS), "start_hours"),
        "rounds of no time": (replace(s, round_hours=0.0), "round_hours"),
        "rounds of negative time": (replace(s, round_hours=-1.0), "round_hours"),
        "rounds over 30 days": (replace(s, round_hours=tour.MAX_ROUND_HOURS + 1),
                                "round_hours"),
        "options that do not fit the table": (replace(s, options=opts(lower_variance=True)),
                                              None),
    }


async def test_every_setting_out_of_range_is_refused(manager: Manager,
                                                     clock: FakeClock) -> None:
    base = spec(clock, size=3)
    now = to_ms(clock.now())
    for what, (bad, option) in bad_specs(base, now).items():
        with pytest.raises(ManagerError) as caught:
            await signup.create(manager.kernel, ORGANISER, GUILD, CHANNEL, bad)
        if option is None:
            assert caught.value.code == tour.BAD, what
        else:
            # The refusal names the option and its range.
            assert isinstance(caught.value, tour.TournamentError), what
            assert caught.value.code == tour.OPTION, what
            assert caught.value.params["option"] == option, what
            assert {"low", "high"} <= set(caught.value.params), what
    assert await records.listed(manager.kernel, GUILD) == []
    assert await posts(manager) == []
    # The bounds themselves are accepted (each in a server of its own: a server has at most
    # MAX_OPEN_PER_SERVER open).
    changes = ({"name": "x" * 80}, {"rounds": tour.MAX_ROUNDS}, {"rounds": 1},
               {"table_size": 2}, {"table_size": 4}, {"signup_ends_at": now},
               {"starts_at": base.signup_ends_at}, {"round_hours": 0.5},
               {"round_hours": tour.MAX_ROUND_HOURS})
    for i, change in enumerate(changes):
        await signup.create(manager.kernel, ORGANISER, GUILD + 1 + i, CHANNEL,
                            replace(base, **change))
        assert len(await records.listed(manager.kernel, GUILD + 1 + i)) == 1


@pytest.mark.parametrize("hours", [math.nan, math.inf, 1e20])
async def test_a_round_time_the_bot_cannot_count_is_refused(sqlite_manager: Manager,
                                                            clock: FakeClock,
                                                            hours: float) -> None:
    """Accepted, such a tournament could never start: every sweep would fail to set its
    first deadline (NaN, infinity, or more milliseconds than the database holds)."""
    m = sqlite_manager
    s = replace(spec(clock), round_hours=hours)
    await refused(signup.create(m.kernel, ORGANISER, GUILD, CHANNEL, s), tour.OPTION)
    assert await records.listed(m.kernel, GUILD) == []


# --------------------------------------------------------------------------- sign-up


async def test_join_and_leave_during_the_sign_up(manager: Manager, clock: FakeClock) -> None:
    k = manager.kernel
    t = await create(manager, clock)
    for p in PEOPLE[:3]:
        t = await signup.join(k, t.id, p)
    assert [(e.user_id, e.name, e.withdrawn) for e in t.entrants] == [
        (p.id, p.name, None) for p in PEOPLE[:3]]
    # Leaving the sign-up takes the name off the list (nothing to withdraw from yet).
    t = await signup.leave(k, t.id, PEOPLE[0].id)
    assert [e.user_id for e in t.entrants] == [PEOPLE[1].id, PEOPLE[2].id]
    await refused(signup.leave(k, t.id, PEOPLE[0].id), tour.NOT_IN)
    # Coming back puts them at the end of the list.
    clock.advance(HOUR)
    t = await signup.join(k, t.id, PEOPLE[0])
    assert [e.user_id for e in t.entrants] == [PEOPLE[1].id, PEOPLE[2].id, PEOPLE[0].id]
    # A very long name is kept to 80 characters.
    t = await signup.join(k, t.id, UserRef(4100, "N" * 200))
    assert t.entrants[-1].name == "N" * 80
    await refused(signup.join(k, 987_654, PEOPLE[5]), tour.UNKNOWN)
    await refused(signup.join(k, 0, PEOPLE[5]), tour.UNKNOWN)


async def test_joining_twice_is_refused_and_changes_nothing(manager: Manager,
                                                            clock: FakeClock) -> None:
    t = await signed_up(manager, clock, 2)
    before = await posts(manager)
    await refused(signup.join(manager.kernel, t.id, PEOPLE[1]), tour.ALREADY_IN)
    after = await records.get(manager.kernel, t.id)
    assert after.version == t.version and after.entrants == t.entrants
    assert await posts(manager) == before


async def test_a_join_from_another_server_is_refused_and_changes_nothing(
        manager: Manager, clock: FakeClock) -> None:
    """Issue #28: a Join click carrying another server (only a hand-made client sends one)
    reads as an unknown tournament there; the sign-up is unchanged."""
    t = await signed_up(manager, clock, 2)
    before = await posts(manager)
    await refused(signup.join(manager.kernel, t.id, PEOPLE[5], GUILD + 1), tour.UNKNOWN)
    after = await records.get(manager.kernel, t.id)
    assert after.version == t.version and after.entrants == t.entrants
    assert await posts(manager) == before
    # From its own server, the same click lands.
    joined = await signup.join(manager.kernel, t.id, PEOPLE[5], GUILD)
    assert [e.user_id for e in joined.entrants][-1] == PEOPLE[5].id


async def test_the_sign_up_closes_at_its_time(manager: Manager, clock: FakeClock) -> None:
    t = await signed_up(manager, clock, 2)
    clock.advance(DAY - HOUR)
    t = await signup.join(manager.kernel, t.id, PEOPLE[2])  # an hour before: still open
    assert t.signup_open and len(t.entrants) == 3
    clock.advance(HOUR)  # exactly when it closes
    t = await records.get(manager.kernel, t.id)
    assert not t.signup_open and t.status == tour.SIGNUP
    await refused(signup.join(manager.kernel, t.id, PEOPLE[3]), tour.SIGNUP_CLOSED)
    assert len((await records.get(manager.kernel, t.id)).entrants) == 3
    # Closed by time, the organiser has nothing left to close.
    await refused(signup.close_signup(manager.kernel, t.id, ORGANISER.id), tour.SIGNUP_CLOSED)


async def test_the_organiser_closes_the_sign_up_early(manager: Manager,
                                                      clock: FakeClock) -> None:
    k = manager.kernel
    t = await signed_up(manager, clock, 2)
    starts = t.starts_at
    clock.advance(HOUR)
    await refused(signup.close_signup(k, t.id, PEOPLE[0].id), tour.ORGANISER_ONLY)
    assert (await records.get(k, t.id)).signup_open
    before = await posts(manager)
    t = await signup.close_signup(k, t.id, ORGANISER.id)
    assert not t.signup_open and t.signup_ends_at == clock.now()
    assert t.starts_at == starts and t.status == tour.SIGNUP  # round 1 still at its time
    await refused(signup.join(k, t.id, PEOPLE[2]), tour.SIGNUP_CLOSED)
    await refused(signup.close_signup(k, t.id, ORGANISER.id), tour.SIGNUP_CLOSED)
    assert await posts(manager) == [*before, ("signup", None)]  # the message edited
    # The round starts at the time set, not before.
    clock.advance(DAY)
    await manager.sweep()
    assert (await records.get(k, t.id)).round == 0
    clock.advance(DAY)
    await manager.sweep()
    assert (await records.get(k, t.id)).round == 1


async def test_only_the_organiser_or_a_privileged_member_steps_in(manager: Manager,
                                                                   clock: FakeClock) -> None:
    k = manager.kernel
    t = await signed_up(manager, clock, 4)
    denied = (signup.close_signup(k, t.id, STRANGER.id),
              signup.remove(k, t.id, STRANGER.id, PEOPLE[3].id),
              signup.remove(k, t.id, PEOPLE[0].id, PEOPLE[3].id),  # an entrant neither
              signup.cancel(k, t.id, STRANGER.id))
    for call in denied:
        await refused(call, tour.ORGANISER_ONLY)
    t = await records.get(k, t.id)
    assert t.version == 4 and len(t.entrants) == 4 and t.status == tour.SIGNUP
    # A privileged member (a server manager, the tournament role) may do what the
    # organiser may; removing during the sign-up takes the entrant off the list.
    t = await signup.remove(k, t.id, STRANGER.id, PEOPLE[3].id, privileged=True)
    assert [e.user_id for e in t.entrants] == [p.id for p in PEOPLE[:3]]
    t = await signup.remove(k, t.id, ORGANISER.id, PEOPLE[2].id)
    await refused(signup.remove(k, t.id, ORGANISER.id, PEOPLE[2].id), tour.NOT_IN)
    t = await signup.close_signup(k, t.id, STRANGER.id, privileged=True)
    assert not t.signup_open
    clock.advance(2 * DAY)
    await manager.sweep()
    for call in (signup.pause(k, t.id, STRANGER.id, True),
                 signup.remove(k, t.id, STRANGER.id, PEOPLE[0].id),
                 signup.cancel(k, t.id, STRANGER.id)):
        await refused(call, tour.ORGANISER_ONLY)
    assert (await records.get(k, t.id)).status == tour.RUNNING
    t = await signup.pause(k, t.id, STRANGER.id, True, privileged=True)
    assert t.status == tour.PAUSED
    await refused(signup.pause(k, t.id, STRANGER.id, False), tour.ORGANISER_ONLY)
    t = await signup.pause(k, t.id, STRANGER.id, False, privileged=True)
    assert t.status == tour.RUNNING
    t = await signup.cancel(k, t.id, STRANGER.id, privileged=True)
    assert t.status == tour.CANCELLED


async def test_withdrawing_while_it_runs_keeps_the_entrant_listed(manager: Manager,
                                                                  clock: FakeClock) -> None:
    k = manager.kernel
    t = await started(manager, clock, 4)
    t = await signup.leave(k, t.id, PEOPLE[1].id)
    t = await signup.remove(k, t.id, ORGANISER.id, PEOPLE[2].id)
    assert [(e.user_id, e.withdrawn is not None) for e in t.entrants] == [
        (PEOPLE[0].id, False), (PEOPLE[1].id, True), (PEOPLE[2].id, True), (PEOPLE[3].id, False)]
    assert [e.user_id for e in t.active] == [PEOPLE[0].id, PEOPLE[3].id]
    await refused(signup.leave(k, t.id, PEOPLE[1].id), tour.NOT_IN)
    await refused(signup.leave(k, t.id, STRANGER.id), tour.NOT_IN)
    await refused(signup.join(k, t.id, STRANGER), tour.SIGNUP_CLOSED)


# --------------------------------------------------------------------------- pause, cancel


async def test_pause_and_resume(manager: Manager, clock: FakeClock) -> None:
    k = manager.kernel
    t = await signed_up(manager, clock, 2)
    await refused(signup.pause(k, t.id, ORGANISER.id, True), tour.NOT_NOW)  # not running
    clock.advance(2 * DAY)
    await manager.sweep()
    t = await records.get(k, t.id)
    deadline = t.round_deadline_at
    assert t.status == tour.RUNNING and deadline == clock.now() + DAY
    await refused(signup.pause(k, t.id, ORGANISER.id, False), tour.NOT_NOW)  # not paused
    t = await signup.pause(k, t.id, ORGANISER.id, True)
    assert t.status == tour.PAUSED
    await refused(signup.pause(k, t.id, ORGANISER.id, True), tour.NOT_NOW)
    # Resumed before the deadline: the deadline stays.
    clock.advance(HOUR)
    t = await signup.pause(k, t.id, ORGANISER.id, False)
    assert t.status == tour.RUNNING and t.round_deadline_at == deadline
    # Paused past the deadline: nothing ends; resumed, the round gets its whole time again.
    t = await signup.pause(k, t.id, ORGANISER.id, True)
    clock.advance(3 * DAY)
    await manager.sweep()
    t = await records.get(k, t.id)
    assert (t.status, t.round, t.round_deadline_at) == (tour.PAUSED, 1, deadline)
    assert all(x.points is None for x in await records.tables(k, t.id))
    t = await signup.pause(k, t.id, ORGANISER.id, False)
    assert t.status == tour.RUNNING and t.round_deadline_at == clock.now() + DAY
    await manager.sweep()
    assert (await records.get(k, t.id)).round == 1
    # Each step posted, and the sign-up message edited with it (issue #28: it says so).
    assert [w for w in kinds(await posts(manager))[-8:] if w != "signup"] == [
        "paused", "resumed", "paused", "resumed"]
    assert kinds(await posts(manager))[-8:].count("signup") == 4


@pytest.mark.parametrize("status", [tour.SIGNUP, tour.RUNNING, tour.PAUSED])
async def test_cancel_while_it_may_be_cancelled(manager: Manager, clock: FakeClock,
                                                status: str) -> None:
    k = manager.kernel
    t = await signed_up(manager, clock, 2)
    if status != tour.SIGNUP:
        clock.advance(2 * DAY)
        await manager.sweep()
    if status == tour.PAUSED:
        await signup.pause(k, t.id, ORGANISER.id, True)
    t = await signup.cancel(k, t.id, ORGANISER.id)
    assert t.status == tour.CANCELLED and t.round_deadline_at is None
    assert "cancelled" in kinds(await posts(manager))
    # Nothing more happens to it; a game under way goes on as an ordinary game.
    rounds_before = t.round
    clock.advance(5 * DAY)
    await manager.sweep()
    t = await records.get(k, t.id)
    assert t.status == tour.CANCELLED and t.round == rounds_before
    assert len(await records.tables(k, t.id)) == (0 if status == tour.SIGNUP else 1)
    await refused(signup.cancel(k, t.id, ORGANISER.id), tour.NOT_NOW)
    await refused(signup.join(k, t.id, PEOPLE[5]), tour.SIGNUP_CLOSED)
    await refused(signup.leave(k, t.id, PEOPLE[0].id), tour.NOT_NOW)
    await refused(signup.pause(k, t.id, ORGANISER.id, True), tour.NOT_NOW)


async def test_a_tournament_over_cannot_be_cancelled(manager: Manager,
                                                     clock: FakeClock) -> None:
    k = manager.kernel
    t = await started(manager, clock, 2, rounds=1)
    await play_round(manager, t.id, 1, random.Random(4))
    await manager.sweep()
    t = await records.get(k, t.id)
    assert t.status == tour.OVER
    await refused(signup.cancel(k, t.id, ORGANISER.id), tour.NOT_NOW)
    await refused(signup.cancel(k, t.id, STRANGER.id, privileged=True), tour.NOT_NOW)
    await refused(signup.leave(k, t.id, PEOPLE[0].id), tour.NOT_NOW)
    await refused(signup.pause(k, t.id, ORGANISER.id, True), tour.NOT_NOW)
    assert (await records.get(k, t.id)).status == tour.OVER


async def test_a_cancelled_round_leaves_its_games_to_finish(manager: Manager,
                                                            clock: FakeClock) -> None:
    k = manager.kernel
    t = await started(manager, clock, 2)
    await signup.cancel(k, t.id, ORGANISER.id)
    games = await round_games(manager, t.id, 1)
    assert len(games) == 1 and games[0].status in (GameStatus.DRAFT, GameStatus.PLAY)


# --------------------------------------------------------------------------- one write a step


def second_writer_first(monkeypatch: pytest.MonkeyPatch, first: Manager,
                        other: Callable[[], Awaitable[object]]) -> list[int]:
    """Make ``first``'s next tournament write wait until ``other()`` (a whole step of a
    second process) is stored: ``first`` then writes at a version that moved. Returns the
    versions ``first`` wrote at (or tried to)."""
    real = store.write
    tried: list[int] = []

    async def write(db: Any, w: store.TournamentWrite) -> int:
        if db is first.store:
            tried.append(w.expect_version)
            if len(tried) == 1:
                await other()
        return await real(db, w)

    monkeypatch.setattr(store, "write", write)
    return tried


async def test_two_joins_at_once_both_land(manager: Manager, second: Manager, clock: FakeClock,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    t = await create(manager, clock)

    async def other() -> None:
        await signup.join(second.kernel, t.id, PEOPLE[1])

    tried = second_writer_first(monkeypatch, manager, other)
    t = await signup.join(manager.kernel, t.id, PEOPLE[0])
    # The first writer's step, at version 0, lost to the second's (version 1), and was
    # redone on the row the second wrote.
    assert tried == [0, 1]
    assert sorted(e.user_id for e in t.entrants) == [PEOPLE[0].id, PEOPLE[1].id]
    assert t.version == 2


async def test_a_join_that_lost_to_the_closing_is_refused(manager: Manager, second: Manager,
                                                          clock: FakeClock,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    t = await create(manager, clock)

    async def other() -> None:
        await signup.close_signup(second.kernel, t.id, ORGANISER.id)

    tried = second_writer_first(monkeypatch, manager, other)
    await refused(signup.join(manager.kernel, t.id, PEOPLE[0]), tour.SIGNUP_CLOSED)
    assert tried == [0]  # redone on the closed sign-up: refused, nothing written
    t = await records.get(manager.kernel, t.id)
    assert t.entrants == () and t.version == 1


async def test_a_withdrawal_redone_after_the_round_moved_on(
        manager: Manager, second: Manager, clock: FakeClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A player withdraws while another process ends round 1 and pairs round 2: the
    withdrawal, redone on the new round, keeps them out of round 2's games from then on."""
    t = await started(manager, clock, 4, rounds=3)
    await play_round(manager, t.id, 1, random.Random(9))
    quitter = PEOPLE[3].id

    async def other() -> None:
        await second.sweep()

    tried = second_writer_first(monkeypatch, manager, other)
    t = await signup.leave(manager.kernel, t.id, quitter)
    assert len(tried) == 2 and tried[1] > tried[0]
    monkeypatch.undo()
    assert t.round == 2
    assert next(e.withdrawn for e in t.entrants if e.user_id == quitter) is not None
    for g in await round_games(manager, t.id, 2):
        seat = next((x for x in g.seats if x.user_id == quitter), None)
        assert seat is None or seat.left  # their round-2 game goes on with a computer


async def test_many_joins_at_once_all_land(manager: Manager, clock: FakeClock) -> None:
    k = manager.kernel
    t = await create(manager, clock)
    await asyncio.gather(*(signup.join(k, t.id, p) for p in PEOPLE[:6]))
    t = await records.get(k, t.id)
    assert sorted(e.user_id for e in t.entrants) == [p.id for p in PEOPLE[:6]]
    assert t.version == 6  # one write each
    # The same person twice at once: one lands, the other is told they are in.
    results = await asyncio.gather(signup.join(k, t.id, PEOPLE[6]),
                                   signup.join(k, t.id, PEOPLE[6]), return_exceptions=True)
    codes = sorted(getattr(r, "code", "ok") for r in results)
    assert codes == ["ok", tour.ALREADY_IN]
    assert [e.user_id for e in (await records.get(k, t.id)).entrants].count(PEOPLE[6].id) == 1


async def test_two_processes_join_at_once(db_path: str, clock: FakeClock) -> None:
    a = await Manager.open(db_path, clock=clock, seed_source=seeds(), exclusive=False)
    b = await Manager.open(db_path, clock=clock, seed_source=seeds(50), exclusive=False)
    try:
        t = await create(a, clock)
        for pair in (PEOPLE[0:2], PEOPLE[2:4], PEOPLE[4:6]):
            await asyncio.gather(signup.join(a.kernel, t.id, pair[0]),
                                 signup.join(b.kernel, t.id, pair[1]))
        t = await records.get(b.kernel, t.id)
        assert sorted(e.user_id for e in t.entrants) == [p.id for p in PEOPLE[:6]]
        assert t.version == 6
        # A leave and a join at once: both land too.
        await asyncio.gather(signup.leave(a.kernel, t.id, PEOPLE[0].id),
                             signup.join(b.kernel, t.id, PEOPLE[6]))
        t = await records.get(a.kernel, t.id)
        assert sorted(e.user_id for e in t.entrants) == [p.id for p in PEOPLE[1:7]]
    finally:
        await a.close()
        await b.close()
