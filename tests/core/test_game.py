"""A game as the core holds it (:mod:`bot.core.game`): parsed from its stored row into what
the kernel had committed, its read-only view, who took a hint, when hints are offered, and a
change being prepared (DMs to closed inboxes go to the thread once; a savepoint takes back
what came after it)."""

from __future__ import annotations

from bot.core import queries
from bot.core.game import (
    FLAG_HINTS,
    LiveGame,
    Tx,
    evolve,
    hint_flags,
    hinted_seats,
    hints_allowed,
    unborn,
)
from bot.core.manager import Manager
from bot.core.models import GameStatus, LobbyOptions
from bot.core.notices import DmFallback, Ended, TurnPrompt
from bot.core.storage import SeatRow
from bot.core.storage.steps import Plan
from tests.core.conftest import ANN, BOB, CAT, new_game


async def test_a_stored_row_reads_back_as_the_game_the_kernel_committed(
        sqlite_manager: Manager) -> None:
    m = sqlite_manager
    g = await new_game(m, people=(BOB,), computers=1)
    row = await m.store.load_game(g.id)
    assert row is not None
    live = LiveGame.from_row(row)
    committed = m.kernel.cached(g.id)
    assert committed is not None
    assert live == evolve(committed, {})  # every field, the state decoded and options parsed
    info = live.info()
    assert info == await queries.game(m.kernel, g.id)
    assert [(s.seat, s.user_id, s.ai_level) for s in info.seats] == [
        (0, ANN.id, None), (1, BOB.id, None), (2, None, "random")]
    assert info.deadline_at is not None and info.deadline_at > info.updated_at
    assert (info.hints_used, info.hinted, info.hints_allowed) == (False, (), False)


def test_hint_flags_name_the_seats_that_took_one() -> None:
    assert hinted_seats(0, 4) == frozenset()
    flags = hint_flags(1) | hint_flags(3)
    assert flags & FLAG_HINTS
    assert hinted_seats(flags, 4) == {1, 3}
    # A game marked before the seat was recorded: who took it is not known, so every seat.
    assert hinted_seats(FLAG_HINTS, 3) == {0, 1, 2}
    g = game(seats=3)
    info = evolve(g, {"flags": hint_flags(2)}).info()
    assert (info.hints_used, info.hinted) == (True, (2,))
    assert g.info().hinted == ()


def test_hints_are_offered_by_the_lobby_always_alone_and_never_in_the_challenge() -> None:
    assert not hints_allowed(game(seats=2))
    assert hints_allowed(game(seats=2, hints=True))
    assert hints_allowed(game(seats=1))  # a solo game, whatever the lobby said
    assert not hints_allowed(evolve(game(seats=1, hints=True), {"challenge_week": "2026-W01"}))


def game(seats: int, **options: object) -> LiveGame:
    people = (ANN, BOB, CAT)
    rows = tuple(SeatRow(i, people[i].id, people[i].name) for i in range(seats))
    return unborn(guild_id=1, channel_id=2, host_id=ANN.id,
                  options=LobbyOptions(players=max(seats, 1), **options),  # type: ignore[arg-type]
                  seats=rows, now=0)


def tx_for(g: LiveGame, closed: frozenset[int] = frozenset()) -> Tx:
    return Tx(old=g, g=g, now=0, dm_closed=lambda user_id: user_id in closed)


def test_a_dm_to_closed_dms_goes_to_the_thread_once() -> None:
    g = game(seats=3)
    g = evolve(g, {"seats": (*g.seats[:2], SeatRow(2, None, "Computer", "easy"))})
    tx = tx_for(g, closed=frozenset({BOB.id}))
    prompt = TurnPrompt(seat=0)
    tx.dm(0, prompt)
    tx.dm(1, TurnPrompt(seat=1))
    tx.dm(1, TurnPrompt(seat=1))  # told once per game and person
    tx.dm(2, TurnPrompt(seat=2))  # a computer reads no DM
    tx.dm_user(BOB.id, Ended())  # about the table itself: a DM whatever the seat
    assert tx.notices == [(prompt, ANN.id), (DmFallback(user_id=BOB.id, seat=1), None),
                          (Ended(), BOB.id)]
    assert tx.g.seats[1].fallback_sent and not tx.old.seats[1].fallback_sent


def _step(_game_id: int) -> Plan[None]:
    yield from ()


def test_restore_takes_back_the_notices_and_steps_after_a_savepoint() -> None:
    tx = tx_for(game(seats=2))
    tx.thread(Ended(reason="before"))
    tx.steps.append(_step)
    mark = tx.savepoint()
    tx.thread(Ended(reason="after"))
    tx.dm(1, TurnPrompt(seat=1))
    tx.steps.append(_step)
    tx.restore(mark)
    assert tx.notices == [(Ended(reason="before"), None)] and tx.steps == [_step]
    tx.restore(tx.savepoint())  # nothing after it: nothing taken back
    assert len(tx.notices) == 1 and len(tx.steps) == 1


def test_a_person_who_left_plays_no_more_and_one_alone_has_no_clock() -> None:
    g = game(seats=2)
    assert g.person(BOB.id) is not None and g.clocked
    left = evolve(g, {"seats": (g.seats[0], SeatRow(1, BOB.id, BOB.name, "random", True))})
    assert left.person(BOB.id) is None and [s.user_id for s in left.people] == [ANN.id]
    assert not left.clocked  # a person alone holds nobody up
    assert evolve(left, {"status": GameStatus.PLAY}).must_act(0) is False  # nothing dealt
