"""Worker processes die with the bot (issue 20, item 10): SIGKILL the process that owns the
computer players' pool and the review lane, and every process it started (the workers and
multiprocessing's resource tracker) is gone within seconds, as a host would see it. And the
other way round (issue 21): a worker that dies mid-move is replaced and its move still made."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core import queries, turns
from tests.procfs import alive, command, descendants, wait_gone

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def test_workers_and_their_tracker_die_with_a_killed_parent() -> None:
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tests.core.workers_host"], cwd=ROOT,
                            env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    children: dict[int, int] = {}
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", line + proc.stdout.read()
        children = descendants(proc.pid)
        # Two workers (computers, reviews) and the resource tracker, at least.
        assert len(children) >= 3, {p: command(p) for p in children}
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
        left = wait_gone(children, timeout=5.0)
        assert not left, f"still running after the parent was killed: " \
                         f"{ {p: command(p) for p in left} }"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in alive(children):  # only what this test started, should it fail
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_a_computer_turn_whose_worker_died_is_still_played(tmp_path: Path) -> None:
    """Issue 21: the worker thinking for a computer is killed mid-move; the pool is replaced
    and the turn played anyway (not left to its timer)."""
    from bot.core.computers import ComputerPool
    from bot.core.manager import Manager
    from tests.core.conftest import ANN, any_move, seeds
    from tests.core.test_thinking import computer_game

    pool = ComputerPool(1)
    await pool.warm_up()
    m = await Manager.open(tmp_path / "calico.db", computers=pool, seed_source=seeds())
    try:
        g = await computer_game(m, levels=("strong",))
        await turns.play_turn(m.kernel, g.id, ANN.id, g.ply, any_move(g, ANN.id))
        for _ in range(500):  # the computer's job handed to the worker
            if pool.in_flight:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        (worker,) = pool._executor._processes  # the one worker process
        os.kill(worker, signal.SIGKILL)
        await asyncio.wait_for(m.kernel.computers_idle(), 60)
        assert pool.restarts == 1
        assert (await queries.game(m.kernel, g.id)).current_user_id == ANN.id
        assert (await m.store.moves(g.id))[-1].played_by == "computer"
        assert list(pool._executor._processes) != [worker]
    finally:
        await m.close()
        pool.close()


async def test_rounds_paired_in_the_computers_worker_process(tmp_path: Path) -> None:
    """Issue 28: with the computers' pool, a round is paired in its worker process (never on
    the event loop): a Swiss at tables of three and a round-robin at tables of four still
    seat every entrant once, round after round."""
    import random
    from datetime import timedelta

    from bot.core.clock import FakeClock
    from bot.core.computers import ComputerPool
    from bot.core.manager import Manager
    from bot.core.tournament import model as tour
    from bot.core.tournament import records
    from tests.core.conftest import seeds
    from tests.core.tournament.conftest import PEOPLE, play_round, signed_up

    pool = ComputerPool(1)
    await pool.warm_up()
    clock = FakeClock()
    m = await Manager.open(tmp_path / "calico.db", clock=clock, computers=pool,
                           seed_source=seeds())
    try:
        swiss = await signed_up(m, clock, 7, rounds=2, size=3)
        robin = await signed_up(m, clock, 5, fmt=tour.ROUND_ROBIN, rounds=2, size=4)
        clock.advance(timedelta(days=2))
        for round_no in (1, 2):
            await m.sweep()
            for t, count in ((swiss, 7), (robin, 5)):
                assert (await records.get(m.kernel, t.id)).round == round_no
                tables = [x for x in await records.tables(m.kernel, t.id)
                          if x.round == round_no]
                assert sorted(u for x in tables for u in x.players) == \
                    [p.id for p in PEOPLE[:count]]
                await play_round(m, t.id, round_no, random.Random(round_no))
        await m.sweep()
        assert (await records.get(m.kernel, swiss.id)).status == tour.OVER
        assert (await records.get(m.kernel, robin.id)).status == tour.OVER
    finally:
        await m.stop_computers()
        await m.close()
        pool.close()
