"""The game flow (:mod:`bot.core.flow`), called as the services call it: a deal queues the
start, prompts and clocks the rules ask for; a move is stored with its log entry, its thread
post and the next prompt, and at the end with the results and the score sheet; computers move
(the random one at once, one that thinks through the queue); a seat handed to a computer; a
game ended with or without telling the thread."""

from __future__ import annotations

import pytest

from bot.core import flow, lobby
from bot.core.clock import iso_at
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus
from bot.core.notices import (
    Autoplayed,
    DraftPrompt,
    Ended,
    Events,
    GameOver,
    Lobby,
    SeatChanged,
    Started,
    Table,
    TurnPrompt,
)
from bot.core.progress.model import Progress
from engine.events import GameOver as EngineOver
from engine.rules import legal_moves
from tests.core.conftest import ANN, BOB, CAT, new_game, to_last_move

DAY_MS = 86_400_000


async def posted(m: Manager, game_id: int, after: int = 0) -> list[tuple[int | None, object]]:
    """(DM recipient or None for the thread, body) of the notices queued after id ``after``."""
    return [(n.user_id, n.body) for n in await m.store.notices(game_id) if n.id > after]


async def last_notice(m: Manager, game_id: int) -> int:
    return max((n.id for n in await m.store.notices(game_id)), default=0)


async def first_to_play(m: Manager, **options: object) -> GameInfo:
    """A beginner game (no draft) in which Ann plays first, started."""
    g = await new_game(m, start=False, setup="beginner", first="pet", **options)  # type: ignore[arg-type]
    await lobby.claim_first(m.kernel, g.id, ANN.id)
    return await lobby.start(m.kernel, g.id, ANN.id)


async def test_a_deal_with_a_draft_prompts_each_person_and_clocks_every_seat(
        sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    g = await new_game(m, people=(BOB,), computers=1, start=False)
    mark = await last_notice(m, g.id)
    tx = await k.begin(await k.load(g.id))
    flow.deal(k, tx)
    dealt = await k.commit(tx)
    now = tx.now
    assert dealt.status is GameStatus.DRAFT and dealt.state is not None
    deadline = now + DAY_MS  # the lobby's 24 hours a turn
    assert dealt.deadline_at == deadline
    assert await posted(m, g.id, mark) == [
        (None, Started(first_seat=dealt.state.first_seat, phase="draft", players=3)),
        (ANN.id, DraftPrompt(seat=0, deadline_at=iso_at(deadline))),
        (BOB.id, DraftPrompt(seat=1, deadline_at=iso_at(deadline))),
    ]
    turns = {t.seat: t for t in await m.store.timers(g.id) if t.kind == "turn"}
    assert {s: (t.due_at, t.deadline_at) for s, t in turns.items()} == {
        0: (now + DAY_MS // 2, deadline),  # half time: the reminder
        1: (now + DAY_MS // 2, deadline),
        2: (now + 30_000, now + 30_000),  # the computer: played at once, its timer a fallback
    }


async def test_a_given_seed_deals_the_same_game_without_a_fresh_secret(
        sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel

    def no_secret() -> int:
        raise AssertionError("a given deal needs no fresh seed")

    k.seed_source = no_secret
    states = []
    for host in (ANN, BOB):
        g = await new_game(m, host=host, players=1, start=False)
        tx = await k.begin(await k.load(g.id))
        flow.deal(k, tx, seed=77)
        states.append((await k.commit(tx)).state)
    assert states[0] == states[1] and states[0] is not None and states[0].seed == 77


async def test_a_move_is_stored_with_its_log_entry_post_and_next_prompt(
        sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    g = await first_to_play(m, people=(BOB,))
    live = await k.load(g.id)
    assert live.state is not None
    move = legal_moves(live.state, 0)[0]
    mark = await last_notice(m, g.id)
    new, events = await flow.apply_move(k, live, 0, move, "user")
    assert new.version == live.version + 1 and new.ply == live.ply + 1
    [logged] = await m.store.moves(g.id)
    assert (logged.ply, logged.seat, logged.move, logged.played_by) == (
        live.ply, 0, move.text(), "user")
    assert Events(logged.events).decoded() == events
    table = Table(seat=0, move=move.text(), by="user", next_seat=1, events=Events(logged.events))
    deadline = iso_at(k.now_ms() + DAY_MS)
    assert await posted(m, g.id, mark) == [(None, table),
                                           (BOB.id, TurnPrompt(seat=1, deadline_at=deadline))]
    assert [(t.kind, t.seat) for t in await m.store.timers(g.id)] == [("idle", -1), ("turn", 1)]

    # Bob's time ran out: his move is played for him, and he hears of it where he plays.
    assert new.state is not None
    auto = legal_moves(new.state, 1)[0]
    mark = await last_notice(m, g.id)
    await flow.apply_move(k, new, 1, auto, "autopilot")
    said = await posted(m, g.id, mark)
    shown = Events((await m.store.moves(g.id))[-1].events)
    assert said[:2] == [
        (None, Table(seat=1, move=auto.text(), by="autopilot", autoplayed=True, next_seat=0,
                     events=shown)),
        (BOB.id, Autoplayed(seat=1, move=auto.text(), events=shown))]
    assert said[2] == (ANN.id, TurnPrompt(seat=0, deadline_at=deadline))


async def test_the_last_move_stores_the_results_and_the_score_sheet(
        sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    g = await to_last_move(m, await first_to_play(m, people=(BOB,)))
    live = await k.load(g.id)
    assert live.state is not None and live.state.current_seat is not None
    seat = live.state.current_seat
    mark = await last_notice(m, g.id)
    over, events = await flow.apply_move(k, live, seat, legal_moves(live.state, seat)[0], "user")
    end = events[-1]
    assert isinstance(end, EngineOver)
    assert over.status is GameStatus.OVER and over.deadline_at is None
    results = await m.store.results(g.id)
    assert [(r.seat, r.user_id, r.total, r.place, r.counted) for r in results] == [
        (0, ANN.id, end.totals[0], end.places[0], True),
        (1, BOB.id, end.totals[1], end.places[1], True)]
    said = await posted(m, g.id, mark)
    assert [type(body) for _, body in said] == [Table, GameOver]  # no prompt: nobody is next
    sheet = said[1][1]
    assert isinstance(sheet, GameOver)
    assert (sheet.totals, sheet.places, sheet.winners) == (end.totals, end.places, end.winners)
    assert {e.kind for e in sheet.events.decoded()} <= {"goal_scored", "scenario_result",
                                                       "game_over"}
    assert sheet.part(Progress) is not None  # what the registered features add
    assert await m.store.timers(g.id) == []


async def test_a_random_computer_moves_at_once_each_move_its_own_commit(
        sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    g = await first_to_play(m, computers=2)
    live = await k.load(g.id)
    assert live.state is not None
    waiting, _ = await flow.apply_move(k, live, 0, legal_moves(live.state, 0)[0], "user")
    assert flow.computer_to_move(waiting) == 1
    # Its timer, due after the grace, is only the fallback of a crash.
    [turn] = [t for t in await m.store.timers(g.id) if t.kind == "turn"]
    assert (turn.seat, turn.due_at) == (1, k.now_ms() + 30_000)
    back = await flow.run_computers(k, waiting)
    assert back.state is not None and back.state.current_seat == 0
    assert back.version == waiting.version + 2
    assert [mv.played_by for mv in await m.store.moves(g.id)] == ["user", "computer", "computer"]


async def test_a_computer_that_thinks_is_queued_not_waited_for(sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    g = await new_game(m, players=2, start=False, setup="beginner", first="pet")
    await lobby.add_computer(k, g.id, ANN.id, "easy")
    await lobby.claim_first(k, g.id, ANN.id)
    g = await lobby.start(k, g.id, ANN.id)
    live = await k.load(g.id)
    assert live.state is not None
    waiting, _ = await flow.apply_move(k, live, 0, legal_moves(live.state, 0)[0], "user")
    back = await flow.computers_after(k, g.id, waiting)
    assert back is waiting and flow.computer_to_move(back) == 1
    assert len(await m.store.moves(g.id)) == 1  # not played yet
    await k.computers_idle(g.id)
    assert [mv.played_by for mv in await m.store.moves(g.id)] == ["user", "computer"]


async def test_a_seat_handed_to_a_computer_passes_the_host_and_the_last_one_ends_it(
        sqlite_manager: Manager) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    g = await first_to_play(m, people=(BOB, CAT))
    mark = await last_notice(m, g.id)
    live = await flow.convert(k, await k.load(g.id), 0, "left")
    ann = live.seats[0]
    assert (ann.user_id, ann.ai_level, ann.left) == (ANN.id, "random", True)
    assert live.host_id == BOB.id and live.deadline_at is None
    assert await posted(m, g.id, mark) == [(None, SeatChanged(seat=0, reason="left",
                                                              level="random"))]
    # Ann was to play: the computer in her seat plays after the grace (or at once, by the
    # service that converted it).
    [turn] = [t for t in await m.store.timers(g.id) if t.kind == "turn"]
    assert (turn.seat, turn.due_at) == (0, k.now_ms() + 30_000)
    live = await flow.convert(k, live, 1, "timeout")
    assert live.status is GameStatus.PLAY and live.host_id == CAT.id
    mark = await last_notice(m, g.id)
    live = await flow.convert(k, live, 2, "left")
    assert (live.status, live.end_reason) == (GameStatus.ABANDONED, "everyone_left")
    assert [body for _, body in await posted(m, g.id, mark)] == [
        SeatChanged(seat=2, reason="left", level="random"), Ended(reason="everyone_left")]
    assert await m.store.timers(g.id) == []


@pytest.mark.parametrize("notify", [True, False])
async def test_ending_a_game_tells_the_thread_or_drops_what_was_queued(
        sqlite_manager: Manager, notify: bool) -> None:
    m, k = sqlite_manager, sqlite_manager.kernel
    lobby_game = await new_game(m, players=3, start=False)
    started = await new_game(m, host=BOB, people=(CAT,), setup="beginner")
    pending = [n.id for n in await m.store.notices(started.id)]
    assert pending
    for g in (lobby_game, started):
        mark = await last_notice(m, g.id)
        live = await k.load(g.id)
        ended = await flow.end(k, live, GameStatus.CANCELLED, "cancelled", notify=notify)
        assert (ended.status, ended.end_reason, ended.deadline_at) == (
            GameStatus.CANCELLED, "cancelled", None)
        assert await m.store.timers(g.id) == []
        said = [body for _, body in await posted(m, g.id, mark)]
        if not notify:
            assert said == []
        elif g is lobby_game:
            assert said == [Lobby(), Ended(reason="cancelled")]  # the lobby shows it closed
        else:
            assert said == [Ended(reason="cancelled")]
    status = {n.id: n.status for n in await m.store.notices(started.id)}
    assert {status[i] for i in pending} == ({"pending"} if notify else {"skipped"})
