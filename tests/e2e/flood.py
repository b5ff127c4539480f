"""One person floods the bot while two others play: the scenario behind ``test_flood.py`` and
``benchmarks/bench_flood.py``.

A real bot process (``calico-bot run``, :mod:`tests.e2e.procs`) runs against the fake Discord.
mallory opens a solo game, then sends command after command and click after click without
waiting for answers: boards, statuses, hands, the cell preview of her game (each a picture),
new solo games and new tables. Meanwhile alice and bob play a two-player game through their
DMs, and every one of their clicks is timed from the moment Discord dispatches it to the
moment the bot's answer reaches Discord. Afterwards every one of mallory's interactions is
sorted by how it was answered.
"""

from __future__ import annotations

import asyncio
import math
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core import queries
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus
from engine.ai import make_player
from engine.hexgrid import cell_name
from engine.moves import PlaceTile
from engine.rules import legal_moves
from engine.views import private_view
from tests.e2e.procs import BotProcess
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeInteraction, FakeMessage

CELL_SELECT = re.compile(r"calico:c:(\d+):(\d+):([hm]\d)")
GAME_ID = re.compile(r"Calico #(\d+)")
TIMEOUT = 30.0
CLICK_TIMEOUT = 6.0  # twice Discord's deadline: past it, the click has failed for the player
FLOOD_ACTIONS = ("board", "preview", "status", "hand", "preview", "solo", "board", "start")


@dataclass
class FloodReport:
    clicks: list[float] = field(default_factory=list)  # alice's and bob's, seconds
    flood: list[FakeInteraction] = field(default_factory=list)
    unanswered: int = 0
    by_answer: dict[str, int] = field(default_factory=dict)
    flood_seconds: float = 0.0
    mallory_games: int = 0

    def summary(self) -> str:
        c = sorted(self.clicks)
        if not c:
            return "no clicks"
        p90 = c[min(len(c) - 1, round(0.9 * (len(c) - 1)))]
        failed = sum(x == math.inf for x in c)
        answers = ", ".join(f"{k} {v}" for k, v in sorted(self.by_answer.items()))
        waits = sorted(ix.callbacks[0].at - ix.dispatched_at for ix in self.flood
                       if ix.callbacks)
        first = (f"first answers to the flood: median {statistics.median(waits) * 1000:.0f} ms, "
                 f"max {waits[-1] * 1000:.0f} ms; " if waits else "")
        rate = len(self.flood) / self.flood_seconds if self.flood_seconds else 0.0
        return (f"players' clicks n={len(c)}: median {statistics.median(c) * 1000:.0f} ms, "
                f"p90 {p90 * 1000:.0f} ms, max {c[-1] * 1000:.0f} ms, failed {failed}; flood: "
                f"{len(self.flood)} interactions in {self.flood_seconds:.1f} s ({rate:.0f}/s), "
                f"answered: {answers}; {first}mallory's games {self.mallory_games}")


def controls(msg: FakeMessage, pattern: re.Pattern[str], game: int, ply: int) -> str | None:
    for c in msg.walk_components():
        m = pattern.fullmatch(c.custom_id or "")
        if m and int(m[1]) == game and int(m[2]) == ply:
            return c.custom_id
    return None


async def panel_of(env: DiscordEnv, user: str, game: int, ply: int) -> FakeMessage:
    return await env.wait_for_dm(
        user, lambda m: controls(m, CELL_SELECT, game, ply) is not None, timeout=TIMEOUT)


def move_for(game: GameInfo, uid: int) -> PlaceTile:
    seat = game.seat_of(uid)
    assert seat is not None and game.state is not None
    move = make_player("random", game.ply).choose(private_view(game.state, seat),
                                                  legal_moves(game.state, seat))
    assert isinstance(move, PlaceTile)
    return move


async def answered(inter: FakeInteraction) -> float:
    """Seconds from dispatch until the answer reached Discord (an edit after a defer);
    infinity when Discord would have shown "This interaction failed"."""
    started = time.perf_counter()
    try:
        record = await inter.wait_response(timeout=CLICK_TIMEOUT)
        if record.deferred:
            await inter.wait_until(lambda ix: any(e.kind in ("edit_original", "followup")
                                                  for e in ix.events) or None,
                                   timeout=CLICK_TIMEOUT)
    except TimeoutError:
        return math.inf
    return time.perf_counter() - started


async def opened(env: DiscordEnv, user: str, command: str, **options: Any) -> int:
    ix = await env.slash(user, "calico", command, options=options)
    reply = await ix.wait_followup(timeout=TIMEOUT)
    m = GAME_ID.search(reply.content)
    assert m, reply.content
    return int(m[1])


async def play_turn(env: DiscordEnv, reader: Manager, names: dict[int, str], game_id: int,
                    report: FloodReport) -> GameInfo:
    game = await queries.game(reader.kernel, game_id, fresh=True)
    uid = game.current_user_id
    assert uid is not None
    user = names[uid]
    move = move_for(game, uid)
    panel = await panel_of(env, user, game.id, game.ply)
    source = f"h{move.hand}"
    cell = cell_name(move.cell)
    pick = await env.select(user, panel, f"calico:c:{game.id}:{game.ply}:{source}", [cell])
    report.clicks.append(await answered(pick))
    take = f"calico:t:{game.id}:{game.ply}:{source}:{cell}:{move.market}"
    try:
        await env.wait_for(lambda: any(c.custom_id == take for c in
                                       env.get_message(panel.id).walk_components()) or None,
                           timeout=TIMEOUT)
    except TimeoutError:
        return game  # the preview never came: the player tries the turn again
    click = await env.click(user, env.get_message(panel.id), custom_id=take)
    report.clicks.append(await answered(click))
    for _ in range(200):
        game = await queries.game(reader.kernel, game_id, fresh=True)
        if game.current_user_id not in (uid, None) or not game.status.active:
            return game
        await asyncio.sleep(0.02)
    return game


async def flood(env: DiscordEnv, game_id: int, panel: FakeMessage, select: str, cell: str,
                stop: asyncio.Event, report: FloodReport, interval: float, limit: int) -> None:
    started = time.perf_counter()
    k = 0
    while not stop.is_set() and k < limit:
        action = FLOOD_ACTIONS[k % len(FLOOD_ACTIONS)]
        if action == "preview":
            # The cell preview, then "undo" back to the choice (each draws the turn picture),
            # on her panel as it stands.
            now = env.get_message(panel.id)
            undo = next((c.custom_id for c in now.walk_components()
                         if (c.custom_id or "").startswith("calico:u:")), None)
            if any(c.custom_id == select for c in now.walk_components()):
                ix = await env.select("mallory", now, select, [cell])
            elif undo is not None:
                ix = await env.click("mallory", now, custom_id=undo)
            else:
                ix = await env.slash("mallory", "calico", "hand", options={"game": game_id})
        elif action in ("solo", "start"):
            ix = await env.slash("mallory", "calico", action,
                                 options={"setup": "beginner"} if action == "solo" else {})
        else:
            ix = await env.slash("mallory", "calico", action, options={"game": game_id})
        report.flood.append(ix)
        k += 1
        await asyncio.sleep(interval)
    report.flood_seconds = time.perf_counter() - started


def kind_of_answer(ix: FakeInteraction) -> str:
    if not ix.callbacks:
        return "unanswered"
    texts = [m.content for m in ix.messages]
    if ix.message is not None:
        texts.append(ix.message.content)
    text = " ".join(texts)
    if re.search(r"<t:\d+:R>", text) and "⏳" in text:
        return "cooldown"
    if any(m.attachments for m in ix.messages) or (
            ix.message is not None and ix.message.attachments and ix.response_type == 7):
        return "picture"
    if "Calico #" in text and ix.response_type in (4, 5) and not ix.ephemeral:
        return "game opened"
    return "refused or text"


async def run_flood(env: DiscordEnv, tmp_path: Path, *, turns: int = 8,
                    interval: float = 0.02, limit: int = 600,
                    **settings: str) -> FloodReport:
    """The scenario (see the module docstring); ``settings`` go to the bot's environment."""
    env.add_user("mallory")
    db = tmp_path / "flood.sqlite3"
    bot = await BotProcess(env, str(db), tmp_path, "flood", **settings).start()
    report = FloodReport()
    reader: Manager | None = None
    try:
        try:
            await env.wait_for_shards(0, timeout=60)
        except TimeoutError:
            raise AssertionError(bot.log()[-3000:]) from None
        reader = await Manager.open(db, exclusive=False)
        # mallory's own game: her previews are real pictures.
        solo = await opened(env, "mallory", "solo", setup="beginner")
        mine = await queries.game(reader.kernel, solo, fresh=True)
        mallory = env.user("mallory").id
        move = move_for(mine, mallory)
        panel = await panel_of(env, "mallory", solo, mine.ply)
        select = f"calico:c:{solo}:{mine.ply}:h{move.hand}"
        # alice and bob's table.
        table = await opened(env, "alice", "start", players=2, setup="beginner")
        lobby = await env.wait_for(lambda: next(
            (m for t in env.threads(env.channel) if f"#{table} " in f"{t.name} "
             for m in env.messages(t) if m.button("Join")), None), timeout=TIMEOUT)
        await (await env.click("bob", lobby, label="Join")).wait_response(timeout=TIMEOUT)
        await env.wait_for(lambda: env.get_message(lobby.id).button("Start"), timeout=TIMEOUT)
        await (await env.click("alice", env.get_message(lobby.id), label="Start")
               ).wait_response(timeout=TIMEOUT)
        names = {env.user(n).id: n for n in ("alice", "bob")}
        for _ in range(100):
            game = await queries.game(reader.kernel, table, fresh=True)
            if game.status is GameStatus.PLAY:
                break
            await asyncio.sleep(0.05)

        stop = asyncio.Event()
        flooding = asyncio.create_task(flood(env, solo, panel, select, cell_name(move.cell),
                                             stop, report, interval, limit))
        await asyncio.sleep(0.5)  # the flood is under way before the players start
        try:
            # At least ``turns`` each, and on for as long as the flood lasts.
            played = 0
            for _ in range(80):
                before = await queries.game(reader.kernel, table, fresh=True)
                if before.status is not GameStatus.PLAY:
                    break
                game = await play_turn(env, reader, names, table, report)
                played += game.ply > before.ply
                if played >= 2 * turns and flooding.done():
                    break
        finally:
            stop.set()
            await flooding
        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        while loop.time() < end and any(not ix.callbacks for ix in report.flood):
            await asyncio.sleep(0.1)
        for ix in report.flood:
            kind = kind_of_answer(ix)
            report.by_answer[kind] = report.by_answer.get(kind, 0) + 1
        report.unanswered = report.by_answer.get("unanswered", 0)
        report.mallory_games = len(await reader.store.game_ids(user_id=mallory))
        return report
    finally:
        if reader is not None:
            await reader.close()
        await bot.stop()
