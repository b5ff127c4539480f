"""The computers' queue (issue 21): a person's click is answered once their own move is stored,
computers that think take their turns from a fair queue (first come, first served across
games; a game with several computer seats in a row takes one turn at a time), a failing turn
is tried again, and turns still queued at shutdown are played after the next start."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.core import flow, lobby, queries, turns
from bot.core.clock import FakeClock
from bot.core.kernel import Kernel
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, UserRef
from bot.core.notices import NoticeKind
from bot.core.thinking import MAX_FAILURES, TurnQueue
from tests.core.conftest import ANN, BOB, CAT, any_move, new_game, seeds, settled

# --------------------------------------------------------------------------- the queue alone


def recorder(turns: dict[int, int] | None = None,
             fail: dict[int, int] | None = None) -> tuple[list[int], Callable[[int], Any]]:
    """A ``play`` that records the order of the games played; ``turns``: how many computer
    turns each game has in a row; ``fail``: how many times a game's turn raises first."""
    order: list[int] = []
    left = dict(turns or {})
    failing = dict(fail or {})

    async def play(game_id: int) -> bool:
        await asyncio.sleep(0)
        order.append(game_id)
        if failing.get(game_id, 0) > 0:
            failing[game_id] -= 1
            raise RuntimeError("worker lost")
        left[game_id] = left.get(game_id, 1) - 1
        return left[game_id] > 0

    return order, play


async def test_games_are_played_first_come_first_served() -> None:
    order, play = recorder()
    queue = TurnQueue(1, play)
    for game_id in (7, 3, 9, 1):
        queue.push(game_id)
    queue.push(3)  # already waiting: keeps its place, not played twice
    assert queue.waiting() == [7, 3, 9, 1]
    await asyncio.wait_for(queue.settled(), 5)
    assert order == [7, 3, 9, 1] and queue.idle


async def test_a_game_with_many_computer_turns_does_not_hold_up_the_others() -> None:
    """Game 1 has three computer seats in a row: it takes them one at a time, behind the
    games that were waiting when each of its turns was played."""
    order, play = recorder(turns={1: 3})
    queue = TurnQueue(1, play)
    queue.push(1)
    queue.push(2)
    await asyncio.sleep(0)
    queue.push(3)
    await asyncio.wait_for(queue.settled(), 5)
    assert order == [1, 2, 3, 1, 1] or order == [1, 2, 1, 3, 1]
    assert order.index(2) == 1  # the second game did not wait for all three of game 1's


async def test_a_game_pushed_while_it_is_played_is_looked_at_once_more() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    played: list[int] = []

    async def play(game_id: int) -> bool:
        played.append(game_id)
        started.set()
        await release.wait()
        return False

    queue = TurnQueue(2, play)
    queue.push(5)
    await asyncio.wait_for(started.wait(), 5)
    queue.push(5)
    queue.push(5)
    assert queue.busy_with(5) and len(queue) == 0  # running, not queued twice alongside
    release.set()
    await asyncio.wait_for(queue.settled(5), 5)
    assert played == [5, 5]


async def test_a_failing_turn_is_tried_again_then_left_to_its_timer() -> None:
    order, play = recorder(fail={1: 1, 2: MAX_FAILURES + 5})
    queue = TurnQueue(1, play)
    queue.push(1)
    queue.push(2)
    await asyncio.wait_for(queue.settled(), 5)
    assert order.count(1) == 2  # failed once, then played
    assert order.count(2) == MAX_FAILURES  # given up: its timer plays it (crash recovery)
    assert queue.failed == 1 + MAX_FAILURES and queue.idle


async def test_a_job_cancelled_under_its_runner_does_not_stop_the_queue() -> None:
    """A worker pool shut down under a job cancels the job's future, not the runner: the turn
    counts as failed, is tried again, and the games behind it are still played."""
    order: list[int] = []
    cancelled = [False]

    async def play(game_id: int) -> bool:
        order.append(game_id)
        if game_id == 1 and not cancelled[0]:
            cancelled[0] = True
            raise asyncio.CancelledError
        return False

    queue = TurnQueue(1, play)
    queue.push(1)
    queue.push(2)
    await asyncio.wait_for(queue.settled(), 5)
    assert order == [1, 2, 1] and queue.failed == 1


async def test_stopping_leaves_the_queued_games_and_takes_no_more() -> None:
    release = asyncio.Event()

    async def play(game_id: int) -> bool:
        await release.wait()
        return False

    queue = TurnQueue(1, play)
    for game_id in (4, 5, 6):
        queue.push(game_id)
    await asyncio.sleep(0.01)
    left = await queue.stop()
    assert sorted(left) == [4, 5, 6]
    queue.push(8)
    assert queue.idle and queue.waiting() == []
    await asyncio.wait_for(queue.settled(), 1)  # nothing left to wait for


# --------------------------------------------------------------------------- through the manager


@dataclass
class Gate:
    """Computers that think wait for ``open`` before choosing (a slow worker, held by the
    test); ``asked``: the games whose computer was asked, in order."""

    open: asyncio.Event = field(default_factory=asyncio.Event)
    asked: list[int] = field(default_factory=list)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch, manager: Manager) -> Gate:
    return _gate(monkeypatch, manager)


def _gate(monkeypatch: pytest.MonkeyPatch, only: Manager | None) -> Gate:
    g = Gate()
    real = flow.choose

    async def choose(k: Any, state: Any, seat: int, level: str) -> Any:
        if flow.thinks(level) and (only is None or k is only.kernel):
            g.asked.append(_game_of(k, state))
            await g.open.wait()
        return await real(k, state, seat, level)

    monkeypatch.setattr(flow, "choose", choose)
    return g


def _game_of(k: Kernel, state: Any) -> int:
    # The game whose state this is (the flow hands the state, not the game).
    for live in k.cached_games():
        if live.state is state:
            return live.id
    return -1


async def computer_game(m: Manager, host: UserRef = ANN, levels: tuple[str, ...] = ("easy",),
                        *, host_first: bool = False) -> GameInfo:
    """A started game of ``host`` against computers of ``levels`` (beginner setup), played
    to the host's first turn; ``host_first``: the host plays first (so a computer ends it)."""
    g = await new_game(m, host, computers=0, players=1 + len(levels), start=False,
                       setup="beginner", first="pet" if host_first else "random")
    for level in levels:
        await lobby.add_computer(m.kernel, g.id, host.id, level)
    if host_first:
        await lobby.claim_first(m.kernel, g.id, host.id)
    return await settled(m, await lobby.start(m.kernel, g.id, host.id))


async def test_the_click_is_answered_before_the_computer_moves(manager: Manager,
                                                               gate: Gate) -> None:
    gate.open.set()
    g = await computer_game(manager)
    assert g.current_user_id == ANN.id
    gate.open.clear()
    moves = len(await manager.store.moves(g.id))
    r = await asyncio.wait_for(
        turns.play_turn(manager.kernel, g.id, ANN.id, g.ply, any_move(g, ANN.id)), 5)
    # Answered with the person's own move stored, the computer still to think.
    assert r.game.current_user_id is None and r.game.status is GameStatus.PLAY
    stored = await manager.store.moves(g.id)
    assert len(stored) == moves + 1 and stored[-1].played_by == "user"
    table = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.TABLE]
    assert table[-1].body.by == "user"  # the thread hears of the person's move now
    gate.open.set()
    await asyncio.wait_for(manager.kernel.computers_idle(), 30)
    after = await queries.game(manager.kernel, g.id)
    assert after.current_user_id == ANN.id
    assert (await manager.store.moves(g.id))[-1].played_by == "computer"
    prompts = [n for n in await manager.store.notices(g.id)
               if n.kind == NoticeKind.TURN_PROMPT and n.user_id == ANN.id]
    assert prompts[-1].ply == after.ply  # her next turn's prompt follows the computer's move


async def test_computer_turns_are_queued_fairly_across_games(manager: Manager,
                                                             gate: Gate) -> None:
    """Three games: Ann's against two computers in a row, then Bob's and Cat's against one.
    With one runner the computers think in the order the people moved, and Ann's second
    computer waits behind the others."""
    gate.open.set()
    games = [await computer_game(manager, ANN, ("easy", "easy")),
             await computer_game(manager, BOB), await computer_game(manager, CAT)]
    gate.open.clear()
    gate.asked.clear()
    for g, who in zip(games, (ANN, BOB, CAT), strict=True):
        await turns.play_turn(manager.kernel, g.id, who.id, g.ply, any_move(g, who.id))
    gate.open.set()
    await asyncio.wait_for(manager.kernel.computers_idle(), 30)
    a, b, c = (g.id for g in games)
    assert gate.asked == [a, b, c, a]
    for g, who in zip(games, (ANN, BOB, CAT), strict=True):
        assert (await queries.game(manager.kernel, g.id)).current_user_id == who.id


async def test_a_game_ending_on_a_computer_move_ends(manager: Manager) -> None:
    """A whole game against a computer that thinks, the last move being the computer's."""
    g = await computer_game(manager, host_first=True)
    while g.status.active:
        assert g.current_user_id == ANN.id
        g = await settled(manager, (await turns.play_turn(manager.kernel,
            g.id, ANN.id, g.ply, any_move(g, ANN.id))).game)
    assert g.status is GameStatus.OVER
    moves = await manager.store.moves(g.id)
    assert moves[-1].played_by == "computer"  # Ann played first: the computer ends it
    over = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.GAME_OVER]
    assert len(over) == 1


async def test_turns_queued_at_shutdown_are_played_after_the_next_start(
        db_path: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds(), exclusive=False)
    gate = _gate(monkeypatch, m)  # this process's computers never finish thinking
    gate.open.set()
    g = await computer_game(m)
    gate.open.clear()
    await turns.play_turn(m.kernel, g.id, ANN.id, g.ply, any_move(g, ANN.id))
    # Past the grace, this process's own sweep finds the turn (already queued): it keeps the
    # timer's claim meanwhile, so no other process plays it twice.
    clock.advance(m.kernel.config.computer_grace)
    assert (await m.sweep()).computer_moves == 1
    await m.close()  # the queued turn is left to its timer, its claim given back

    m2 = await Manager.open(db_path, clock=clock, exclusive=False)
    try:
        assert (await queries.game(m2.kernel, g.id)).current_user_id is None
        assert (await m2.sweep()).computer_moves == 1
        await asyncio.wait_for(m2.kernel.computers_idle(), 30)
        after = await queries.game(m2.kernel, g.id)
        assert after.current_user_id == ANN.id
        computer = [mv for mv in await m2.store.moves(g.id) if mv.played_by == "computer"]
        assert computer[-1].ply == after.ply - 1
        table = [n for n in await m2.store.notices(g.id) if n.kind == NoticeKind.TABLE
                 and n.body.by == "computer" and n.ply == after.ply]
        assert len(table) == 1  # posted once
    finally:
        await m2.close()


async def test_two_processes_never_post_one_computer_turn_twice(
        pg_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Process A's computer is slow past the grace; process B's sweep finds the turn and plays
    it. When A's computer answers at last, its move is not stored (the game moved on): one
    move and one thread post for that turn, whichever process made it."""
    clock = FakeClock()
    a = await Manager.open(pg_db, clock=clock, seed_source=seeds(), exclusive=False)
    b = await Manager.open(pg_db, clock=clock, exclusive=False)
    try:
        gate = _gate(monkeypatch, a)
        gate.open.set()
        g = await computer_game(a)
        gate.open.clear()
        gate.asked.clear()
        await turns.play_turn(a.kernel, g.id, ANN.id, g.ply, any_move(g, ANN.id))
        await asyncio.sleep(0.05)
        assert gate.asked == [g.id]  # A's computer is thinking
        clock.advance(a.kernel.config.computer_grace)
        assert (await b.sweep()).computer_moves == 1
        await asyncio.wait_for(b.kernel.computers_idle(), 30)
        gate.open.set()  # A's computer answers, too late
        await asyncio.wait_for(a.kernel.computers_idle(), 30)
        after = await queries.game(b.kernel, g.id, fresh=True)
        assert after.current_user_id == ANN.id and after.ply == g.ply + 2
        moves = [mv for mv in await b.store.moves(g.id) if mv.ply == g.ply + 1]
        assert len(moves) == 1 and moves[0].played_by == "computer"
        posts = [n for n in await b.store.notices(g.id) if n.kind == NoticeKind.TABLE
                 and n.ply == g.ply + 2]
        assert len(posts) == 1
    finally:
        await a.close()
        await b.close()
