"""Backups of a live SQLite database: ``calico-bot backup FILE`` run (as a real command) while a
real bot process plays a game makes consistent, checked copies; ``calico-bot check`` passes
them and reports a damaged file; a copy restored as the README says (stop the bot, replace the
file) is played on from where it was taken."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest

from bot.core import queries
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus
from engine.hexgrid import cell_name
from tests.e2e.flood import FloodReport, move_for, opened, play_turn
from tests.e2e.procs import ROOT, BotProcess
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(fail_on_violations=False, interaction_deadline=3.0)


async def cli(*args: str, db: Path) -> tuple[int, str]:
    """``calico-bot ARGS`` as a separate process, on ``db``."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith("CALICO_") and k != "DISCORD_TOKEN"}
    environ["CALICO_DB"] = str(db)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=ROOT, env=environ,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace")


async def stored(path: Path, game_id: int) -> tuple[GameInfo, int]:
    """A game as stored in ``path`` and the length of its move log."""
    m = await Manager.open(path, exclusive=False)
    try:
        return await queries.game(m.kernel,
                                  game_id, fresh=True), len(await queries.moves(m.kernel, game_id))
    finally:
        await m.close()


async def started_bot(env: DiscordEnv, db: Path, tmp: Path, name: str) -> BotProcess:
    bot = await BotProcess(env, str(db), tmp, name).start()
    try:
        await env.wait_for_shards(0, timeout=60)
    except TimeoutError:
        raise AssertionError(bot.log()[-3000:]) from None
    return bot


async def test_backup_while_playing_check_and_restore(discord_env: DiscordEnv,
                                                      tmp_path: Path) -> None:
    env = discord_env
    db = tmp_path / "live.sqlite3"
    bot = await started_bot(env, db, tmp_path, "first")
    reader = await Manager.open(db, exclusive=False)
    names = {env.user(n).id: n for n in ("alice", "bob")}
    report = FloodReport()
    try:
        table = await opened(env, "alice", "start", players=2, setup="beginner")
        lobby = await env.wait_for(lambda: next(
            (m for t in env.threads(env.channel) if f"#{table} " in f"{t.name} "
             for m in env.messages(t) if m.button("Join")), None), timeout=30)
        await (await env.click("bob", lobby, label="Join")).wait_response(timeout=30)
        await (await env.click("alice", env.get_message(lobby.id), label="Start")
               ).wait_response(timeout=30)
        stop = asyncio.Event()

        async def play() -> None:
            while not stop.is_set():
                game = await queries.game(reader.kernel, table, fresh=True)
                if game.status is not GameStatus.PLAY:
                    await asyncio.sleep(0.05)
                    continue
                await play_turn(env, reader, names, table, report)

        players = asyncio.create_task(play())
        copies = []
        try:
            for k in range(3):
                await asyncio.sleep(1.0)
                copy = tmp_path / f"backup-{k}.sqlite3"
                code, out = await cli("backup", str(copy), db=db)
                assert code == 0, out
                assert "integrity check ok" in out
                copies.append(copy)
        finally:
            stop.set()
            await players
        live, live_moves = await stored(db, table)
        assert live.ply == live_moves

        plies = []
        for copy in copies:
            code, out = await cli("check", str(copy), db=db)
            assert code == 0 and "ok" in out, out
            game, moves = await stored(copy, table)
            # Consistent: the game row and its move log were copied at the same moment.
            assert game.ply == moves
            assert game.state is not None and game.state.ply == game.ply
            plies.append(game.ply)
        # Taken while the game went on: later copies hold more moves, none holds them all.
        assert plies == sorted(plies) and plies[-1] > 0, (plies, live.ply)
        assert plies[0] < live.ply
        # Copying over a file that exists is refused, and says why.
        code, out = await cli("backup", str(copies[0]), db=db)
        assert code == 1 and "exists" in out

        # A damaged copy: check says so (exit status 1), without a traceback.
        damaged = tmp_path / "damaged.sqlite3"
        shutil.copy(copies[-1], damaged)
        size = damaged.stat().st_size
        with damaged.open("r+b") as f:
            f.seek(size // 2)
            f.write(os.urandom(8192))
        code, out = await cli("check", str(damaged), db=db)
        assert code == 1, out
        assert "problem" in out and "Traceback" not in out

        # Restore: stop the bot, replace the file (and drop its write-ahead log), start again.
        await reader.close()
        bot.terminate()
        assert await bot.wait(30) == 0
        for extra in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            extra.unlink(missing_ok=True)
        shutil.copy(copies[0], db)
        restored, _ = await stored(db, table)
        assert restored.ply == plies[0]
        bot = await started_bot(env, db, tmp_path, "restored")
        reader = await Manager.open(db, exclusive=False)
        # The player whose turn it was then: /calico hand brings their turn back; they play it.
        user = names[restored.current_user_id or 0]
        hand = await env.slash(user, "calico", "hand", options={"game": table})
        panel = await hand.wait_followup(timeout=30)
        move = move_for(restored, restored.current_user_id or 0)
        source, cell = f"h{move.hand}", cell_name(move.cell)
        pick = await env.select(user, panel, f"calico:c:{table}:{restored.ply}:{source}", [cell])
        await pick.wait_response(timeout=30)
        take = f"calico:t:{table}:{restored.ply}:{source}:{cell}:{move.market}"
        await env.wait_for(lambda: any(c.custom_id == take for c in
                                       env.get_message(panel.id).walk_components()) or None,
                           timeout=30)
        commit = await env.click(user, env.get_message(panel.id), custom_id=take)
        await commit.wait_response(timeout=30)
        for _ in range(100):
            game, moves = await stored(db, table)
            if game.ply > restored.ply:
                break
            await asyncio.sleep(0.1)
        assert game.ply == moves == plies[0] + 1
    finally:
        await reader.close()
        await bot.stop()
