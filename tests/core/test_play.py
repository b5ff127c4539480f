"""Playing: whole games to the final score, results and stats, the per-game lock against
concurrent clicks, refusals that change nothing, restarts, replay, leaving and abandoning."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from bot.core import flow, leaving, lobby, queries, turns
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus, ManagerError
from bot.core.notices import NoticeKind
from engine.errors import BadMoveError, EngineError
from engine.events import GameOver
from engine.rules import apply, legal_moves
from engine.state import Phase
from tests.core.conftest import (
    ANN,
    BOB,
    CAT,
    DAN,
    GUILD,
    any_move,
    new_game,
    play_out,
    seeds,
    settled,
    snapshot,
    step,
)


async def test_solo_against_computers_to_the_end(manager: Manager) -> None:
    g = await new_game(manager, computers=2)
    g = await play_out(manager, g, random.Random(1))
    assert g.status is GameStatus.OVER and g.state is not None
    assert g.state.phase is Phase.OVER and g.deadline_at is None
    results = await manager.store.results(g.id)
    assert [(r.seat, r.user_id, r.counted) for r in results] == [
        (0, ANN.id, True), (1, None, False), (2, None, False)]
    assert sum(r.place == 1 for r in results) >= 1
    over = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.GAME_OVER]
    assert len(over) == 1 and list(over[0].body.totals) == [r.total for r in results]
    assert json.loads(results[0].breakdown)["total"] == results[0].total
    stats = await queries.user_stats(manager.kernel, ANN.id)
    assert stats.games == 1 and stats.best == results[0].total
    assert await manager.store.timers(g.id) == []  # nothing left to sweep


async def test_two_people_and_a_computer_to_the_end(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), computers=1)
    g = await play_out(manager, g, random.Random(2))
    assert g.status is GameStatus.OVER
    moves = await manager.store.moves(g.id)
    assert len(moves) == g.ply == 3 + 3 * 22  # three goal drafts, 22 turns each
    assert {m.played_by for m in moves} == {"user", "computer"}
    results = {r.seat: r for r in await manager.store.results(g.id)}
    a = await queries.user_stats(manager.kernel, ANN.id, GUILD)
    b = await queries.user_stats(manager.kernel, BOB.id, GUILD)
    assert a.games == b.games == 1
    assert a.wins == int(results[0].win) and b.wins == int(results[1].win)
    board = await queries.leaderboard(manager.kernel, GUILD)
    assert {e.user_id for e in board} == {ANN.id, BOB.id}
    assert board[0].wins >= board[1].wins
    assert (await queries.user_stats(manager.kernel, ANN.id, guild_id=GUILD + 1)).games == 0


async def test_game_over_events_and_winner(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    rng = random.Random(3)
    events = []
    while g.status.active:
        who = g.current_user_id
        assert who is not None
        r = await turns.play_turn(manager.kernel, g.id, who, g.ply, any_move(g, who, rng))
        events, g = r.events, r.game
    over = events[-1]
    assert isinstance(over, GameOver)
    results = await manager.store.results(g.id)
    assert [r.place for r in results] == list(over.places)
    assert [r.win for r in results] == [p == 1 for p in over.places]


async def test_fifty_identical_clicks_apply_one_move(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    who = g.current_user_id
    assert who is not None
    text = any_move(g, who)
    results = await asyncio.gather(
        *(turns.play_turn(manager.kernel,
                          g.id, who, g.ply, text) for _ in range(50)), return_exceptions=True)
    ok = [r for r in results if not isinstance(r, BaseException)]
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(ok) == 1 and len(errors) == 49
    assert all(isinstance(e, ManagerError) and e.code == "stale" for e in errors)
    assert len(await manager.store.moves(g.id)) == 1
    after = await queries.game(manager.kernel, g.id)
    assert after.ply == g.ply + 1


async def test_concurrent_moves_in_many_games(manager: Manager) -> None:
    games = [await new_game(manager, people=(BOB,), setup="beginner") for _ in range(8)]

    async def two_turns(g):  # type: ignore[no-untyped-def]
        for _ in range(2):
            g = await step(manager, g, g.current_user_id)
        return g

    done = await asyncio.gather(*(two_turns(g) for g in games))
    assert all(g.ply == 2 for g in done)


async def test_turn_refusals_change_nothing(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    who = g.current_user_id
    other = BOB.id if who == ANN.id else ANN.id
    assert who is not None
    text = any_move(g, who)

    async def refused(code: str, call) -> None:  # type: ignore[no-untyped-def]
        before = await snapshot(manager, g.id)
        with pytest.raises(ManagerError) as err:
            await call
        assert err.value.code == code
        assert await snapshot(manager, g.id) == before

    await refused("unknown_game", turns.play_turn(manager.kernel, 424242, who, g.ply, text))
    await refused("not_a_player", turns.play_turn(manager.kernel, g.id, CAT.id, g.ply, text))
    await refused("not_your_turn", turns.play_turn(manager.kernel, g.id, other, g.ply, text))
    await refused("stale", turns.play_turn(manager.kernel, g.id, who, g.ply + 1, text))
    await refused("stale", turns.play_turn(manager.kernel, g.id, who, g.ply - 1, text))
    await refused("stale", turns.choose_goals(manager.kernel, g.id, who, g.ply, ["a", "b", "c"]))
    await refused("not_your_turn", turns.preview(manager.kernel, g.id, other, g.ply, 0, "C3"))
    await refused("lobby_only", lobby.join(manager.kernel, g.id, DAN))
    before = await snapshot(manager, g.id)
    with pytest.raises(BadMoveError):
        await turns.play_turn(manager.kernel, g.id, who, g.ply, "nonsense")
    with pytest.raises(EngineError):
        await turns.play_turn(manager.kernel,
                              g.id, who, g.ply, "h0@B3>m0")  # B3 holds a design goal
    assert await snapshot(manager, g.id) == before
    # A repeated click after the move went through is stale too.
    await turns.play_turn(manager.kernel, g.id, who, g.ply, text)
    g2 = await queries.game(manager.kernel, g.id)
    before = await snapshot(manager, g.id)
    with pytest.raises(ManagerError) as err:
        await turns.play_turn(manager.kernel, g.id, who, g.ply, text)
    assert err.value.code == "stale"
    assert await snapshot(manager, g.id) == before
    assert g2.ply == g.ply + 1


async def test_draft_is_simultaneous_and_double_choice_is_stale(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,))
    assert g.status is GameStatus.DRAFT and g.state is not None
    ply0 = g.ply
    offer_a = g.state.seats[0].goal_offer
    offer_b = g.state.seats[1].goal_offer
    await turns.choose_goals(manager.kernel, g.id, BOB.id, ply0, list(offer_b[:3]))
    # Ann's prompt was made at ply0; Bob's choice moved the ply, yet Ann's button still works.
    r = await turns.choose_goals(manager.kernel, g.id, ANN.id, ply0, list(offer_a[1:4]))
    assert r.game.status is GameStatus.PLAY
    with pytest.raises(ManagerError) as err:
        await turns.choose_goals(manager.kernel, g.id, ANN.id, ply0, list(offer_a[:3]))
    assert err.value.code == "stale"
    prompts = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.TURN_PROMPT]
    assert [n.user_id for n in prompts] == [r.game.current_user_id]


async def test_preview_is_read_only(manager: Manager) -> None:
    g = await new_game(manager, computers=1, setup="beginner")
    while g.current_user_id != ANN.id:
        g = await queries.game(manager.kernel, g.id)
    before = await snapshot(manager, g.id)
    assert g.state is not None
    src, cell = next((m.hand, m.cell) for m in legal_moves(g.state, 0))  # type: ignore[union-attr]
    events = await turns.preview(manager.kernel, g.id, ANN.id, g.ply, src, cell)
    assert events and events[0].kind == "tile_placed"
    assert await snapshot(manager, g.id) == before


async def test_restart_in_the_middle_of_a_turn(db_path: str, clock: FakeClock) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    g = await new_game(m, people=(BOB,), computers=1)
    rng = random.Random(4)
    for _ in range(7):
        g = await step(m, g, g.drafting_user_ids[0] if g.status is GameStatus.DRAFT
                       else g.current_user_id, rng)  # type: ignore[arg-type]
    who, ply = g.current_user_id, g.ply
    assert who is not None
    text = any_move(g, who, rng)
    await m.close()

    m2 = await Manager.open(db_path, clock=clock)
    again = await queries.game(m2.kernel, g.id)
    assert again.state == g.state and again.ply == ply and again.version == g.version
    # The button shown before the restart still plays the move.
    r = await turns.play_turn(m2.kernel, g.id, who, ply, text)
    assert r.game.ply > ply
    g = await play_out(m2, r.game, rng)
    assert g.status is GameStatus.OVER
    await m2.close()


async def test_computer_turn_interrupted_by_a_crash_is_played_by_the_sweep(
        db_path: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    g = await new_game(m, computers=1, setup="beginner", start=False)

    run_computers = flow.run_computers

    async def crash(k, g, strict=False):  # type: ignore[no-untyped-def]
        if k is not m.kernel:
            return await run_computers(k, g, strict=strict)
        return g  # the process "dies" before the computer moves

    monkeypatch.setattr(flow, "run_computers", crash)
    g = await lobby.start(m.kernel, g.id, ANN.id)
    if g.current_user_id == ANN.id:
        g = await step(m, g, ANN.id)
    assert g.current_user_id is None  # the computer's turn, not played
    await m.close()
    m2 = await Manager.open(db_path, clock=clock)
    # Left to its timer, which comes due after a short grace (so that a process that started
    # a computer turn finishes it before another one steps in).
    assert (await m2.sweep()).computer_moves == 0
    clock.advance(m2.kernel.config.computer_grace)
    report = await m2.sweep()
    assert report.computer_moves == 1
    assert (await queries.game(m2.kernel, g.id)).current_user_id == ANN.id
    await m2.close()


async def test_state_at_replays_the_log(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), computers=1)
    rng = random.Random(5)
    seen = {g.ply: g.state}
    for _ in range(12):
        who = g.drafting_user_ids[0] if g.status is GameStatus.DRAFT else g.current_user_id
        g = await step(manager, g, who, rng)  # type: ignore[arg-type]
        seen[g.ply] = g.state
    for ply, state in seen.items():
        assert await queries.state_at(manager.kernel, g.id, ply) == state
    # Every logged move replays to the next state.
    moves = await manager.store.moves(g.id)
    for mv in moves:
        before = await queries.state_at(manager.kernel, g.id, mv.ply)
        after = await queries.state_at(manager.kernel, g.id, mv.ply + 1)
        from engine.moves import parse_move
        assert apply(before, parse_move(mv.seat, mv.move))[0] == after
    with pytest.raises(ManagerError):
        await queries.state_at(manager.kernel, g.id, g.ply + 1)


async def test_leave_mid_game_hands_the_seat_to_a_computer(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    g = await leaving.leave_game(manager.kernel, g.id, BOB.id)
    assert g.seats[1].ai_level == "random" and g.seats[1].left and g.status is GameStatus.PLAY
    assert g.seat_of(BOB.id) is None and g.current_user_id == ANN.id
    changed = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.SEAT_CHANGED]
    assert [n.body.reason for n in changed] == ["left"]
    with pytest.raises(ManagerError) as err:
        await turns.play_turn(manager.kernel, g.id, BOB.id, g.ply, "h0@C3>m0")
    assert err.value.code == "not_a_player"
    g = await play_out(manager, g)
    results = {r.seat: r for r in await manager.store.results(g.id)}
    assert results[1].user_id == BOB.id and not results[1].counted
    assert (await queries.user_stats(manager.kernel, BOB.id)).games == 0
    assert (await queries.user_stats(manager.kernel, ANN.id)).games == 1


async def test_host_leaving_passes_the_host_and_last_person_ends_it(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    g = await leaving.leave_game(manager.kernel, g.id, ANN.id)
    assert g.host_id == BOB.id
    g = await leaving.leave_game(manager.kernel, g.id, BOB.id)
    assert g.status is GameStatus.ABANDONED and g.end_reason == "everyone_left"


async def test_abandon_by_host_or_admin_only(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,))
    before = await snapshot(manager, g.id)
    with pytest.raises(ManagerError) as err:
        await leaving.abandon(manager.kernel, g.id, BOB.id, is_admin=False)
    assert err.value.code == "host_only" and await snapshot(manager, g.id) == before
    g = await leaving.abandon(manager.kernel, g.id, BOB.id, is_admin=True)
    assert g.status is GameStatus.ABANDONED and g.end_reason == "abandoned"
    ended = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.ENDED]
    assert [n.body.reason for n in ended] == ["abandoned"]
    with pytest.raises(ManagerError) as err:
        await turns.play_turn(manager.kernel, g.id, ANN.id, g.ply, "h0@C3>m0")
    assert err.value.code == "game_over"
    assert await manager.store.timers(g.id) == []
    assert await queries.games_for_user(manager.kernel, ANN.id) == []
    assert [x.id for x in await queries.games_for_user(manager.kernel,
                                                       ANN.id, active_only=False)] == [g.id]


async def test_game_for_thread(manager: Manager) -> None:
    g = await new_game(manager, computers=1)
    assert g.thread_id is not None
    found = await queries.game_for_thread(manager.kernel, g.thread_id)
    assert found is not None and found.id == g.id
    assert await queries.game_for_thread(manager.kernel, 1) is None


async def test_settings_round_trip(manager: Manager) -> None:
    assert (await queries.get_settings(manager.kernel, ANN.id)).reminders is True
    assert (await queries.set_settings(manager.kernel, ANN.id, False)).reminders is False
    assert (await queries.get_settings(manager.kernel, ANN.id)).reminders is False


async def test_a_real_computer_level_plays(manager: Manager) -> None:
    g = await new_game(manager, computers=0, players=2, start=False, setup="beginner")
    await lobby.add_computer(manager.kernel, g.id, ANN.id, "easy")
    g = await settled(manager, await lobby.start(manager.kernel, g.id, ANN.id))
    for _ in range(3):
        g = await step(manager, g, ANN.id)
    assert any(m.played_by == "computer" for m in await manager.store.moves(g.id))


async def test_a_button_with_an_impossible_game_number_is_refused_cleanly(
        manager: Manager) -> None:
    """A forged button may carry a number too large for the database: the usual refusal."""
    for game_id in (1 << 63, 10**20, 0, -5):
        with pytest.raises(ManagerError) as caught:
            await turns.play_turn(manager.kernel, game_id, ANN.id, 0, "h0@C3>m0")
        assert caught.value.code == "unknown_game"
