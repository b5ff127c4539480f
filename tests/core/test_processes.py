"""Several bot processes on one PostgreSQL database, all correct at once: a move is made once
whatever process each click reaches, a cached game never refuses a valid click, each notice is
delivered by exactly one dispatcher, each due timer fires once, and a computer turn a process
left unfinished is finished by another.

The "processes" are real OS processes (``tests/core/worker.py``) where the point is the process
boundary, and separate Manager instances (separate stores, caches and connections) otherwise.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from bot.core import flow, lobby, queries, turns
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import GameStatus
from bot.core.notices import NoticeKind
from tests.core.conftest import ANN, BOB, CAT, DAN, any_move, new_game, seeds, step

ROOT = Path(__file__).resolve().parents[2]



async def worker(*args: object) -> dict[str, object]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.core.worker", *map(str, args), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-2000:]
    result: dict[str, object] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def test_twenty_clicks_in_four_processes_make_one_move(pg_db: str) -> None:
    m = await Manager.open(pg_db, seed_source=seeds())
    g = await new_game(m, people=(BOB,), setup="beginner")
    who = g.current_user_id
    assert who is not None
    text = any_move(g, who)
    await m.close()
    results = await asyncio.gather(*(worker("click", pg_db, g.id, who, g.ply, text, 5)
                                     for _ in range(4)))
    assert sum(int(r["ok"]) for r in results) == 1  # type: ignore[call-overload]
    assert sum(int(r["stale"]) for r in results) == 19  # type: ignore[call-overload]
    assert all(r["other"] == [] for r in results)
    m = await Manager.open(pg_db)
    try:
        assert len(await m.store.moves(g.id)) == 1
        assert (await queries.game(m.kernel, g.id)).ply == g.ply + 1
    finally:
        await m.close()


async def test_a_cached_game_never_refuses_a_click_another_process_made_valid(
        pg_db: str) -> None:
    """Process A has the game cached; process B moves it on; the next player's click reaches
    A with the new ply: A must check the stored game instead of trusting its cache."""
    a = await Manager.open(pg_db, seed_source=seeds())
    b = await Manager.open(pg_db)
    try:
        g = await new_game(a, people=(BOB,), setup="beginner")
        await queries.game(a.kernel, g.id)  # cached in A
        g = await step(b, await queries.game(b.kernel, g.id), g.current_user_id)  # type: ignore[arg-type]
        who = g.current_user_id
        assert who is not None
        result = await turns.play_turn(a.kernel, g.id, who, g.ply, any_move(g, who))
        assert result.game.ply == g.ply + 1
        # ...and the click B's move made out of date is refused by both, changing nothing.
        for manager in (a, b):
            with pytest.raises(Exception, match=r"stale|not_your_turn"):
                await turns.play_turn(manager.kernel, g.id, who, g.ply, any_move(g, who))
        assert len(await a.store.moves(g.id)) == 2
    finally:
        await a.close()
        await b.close()


async def test_two_dispatcher_processes_deliver_each_notice_once(pg_db: str,
                                                                 tmp_path: Path) -> None:
    m = await Manager.open(pg_db, seed_source=seeds())
    for i in range(8):
        g = await new_game(m, host=(ANN, BOB, CAT, DAN)[i % 4], people=(), computers=1,
                           setup="beginner")
        for _ in range(3):
            if g.current_user_id is None:
                break
            g = await step(m, g, g.current_user_id)
    stored = [n.key for n in await m.store.notices()]
    await m.close()
    assert len(stored) > 50
    go = tmp_path / "go"

    async def start_together() -> None:
        while len(list(tmp_path.glob("go.*"))) < 2:
            await asyncio.sleep(0.05)
        go.touch()

    results = await asyncio.gather(worker("drain", pg_db, 4, go), worker("drain", pg_db, 4, go),
                                   start_together())
    results = results[:2]
    keys = [k for r in results for k in r["keys"]]  # type: ignore[attr-defined]
    assert sorted(keys) == sorted(stored)  # every notice once, by one process or the other
    assert all(r["keys"] for r in results)  # both took part
    m = await Manager.open(pg_db)
    try:
        assert all(n.status == "done" for n in await m.store.notices())
    finally:
        await m.close()


async def test_due_timers_fire_once_across_processes(pg_db: str) -> None:
    clock = FakeClock()
    m = await Manager.open(pg_db, clock=clock, seed_source=seeds())
    ids = []
    for i in range(12):
        g = await new_game(m, host=(ANN, CAT)[i % 2], people=((BOB,), (DAN,))[i % 2],
                           setup="beginner", timeout_action="remind", turn_hours=1)
        ids.append(g.id)
    await m.close()
    clock.advance(minutes=31)  # every turn at half time: one reminder due in each game
    now = to_ms(clock.now())
    results = await asyncio.gather(*(worker("sweep", pg_db, now) for _ in range(3)))
    # The per-person reminder gap lets one reminder a person through: 4 people, 12 games.
    fired = [d for r in results for d in r["details"]]  # type: ignore[attr-defined]
    assert len(fired) == 12 and len(set(fired)) == 12  # each game's timer handled once
    m = await Manager.open(pg_db, clock=clock)
    try:
        reminders = [n for n in await m.store.notices() if n.kind == NoticeKind.REMINDER]
        assert len(reminders) == sum(int(r["reminders"]) for r in results) == 4  # type: ignore[call-overload]
    finally:
        await m.close()


async def test_a_computer_turn_left_unfinished_is_finished_by_another_process(
        pg_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    a = await Manager.open(pg_db, clock=clock, seed_source=seeds())
    b = await Manager.open(pg_db, clock=clock)
    try:
        g = await new_game(a, computers=1, setup="beginner", start=False)

        run_computers = flow.run_computers

        async def dies(k, g, strict=False):  # type: ignore[no-untyped-def]
            if k is not a.kernel:
                return await run_computers(k, g, strict=strict)
            return g  # process A "dies" before it plays the computer's turn

        monkeypatch.setattr(flow, "run_computers", dies)
        g = await lobby.start(a.kernel, g.id, ANN.id)
        if g.current_user_id == ANN.id:
            g = await step(a, g, ANN.id)
        assert g.current_user_id is None and g.status is GameStatus.PLAY
        assert (await b.sweep()).computer_moves == 0  # within the grace: A may still do it
        clock.advance(b.kernel.config.computer_grace)
        report = await b.sweep()
        assert report.computer_moves == 1
        assert (await queries.game(b.kernel, g.id)).current_user_id == ANN.id
    finally:
        await a.close()
        await b.close()
