"""The offline demo: a whole game through the real manager, shown as Discord would show it.

``calico-bot demo`` needs no token and no network. It opens the real
:class:`~bot.core.manager.Manager` on a temporary SQLite file, seats N players, and lets a
computer player choose each of their moves, which are then made through the same calls the
buttons make (``choose_goals``, ``preview``, ``play_turn``). Every notice the manager commits
goes through the same message builders as the Discord delivery, and is written to a folder
instead of Discord: numbered PNGs and a ``transcript.md`` of the thread posts and the DMs, text
and pictures, with the buttons each message would carry. Open the transcript to see the product
working."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bot.adapter.delivery import describe
from bot.adapter.ui import messages
from bot.adapter.ui.notices import NoticeRenderer
from bot.adapter.ui.outgoing import Outgoing
from bot.core import lobby, queries, turns
from bot.core.kernel import Kernel
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, LobbyOptions, UserRef
from bot.core.notices import Notice
from bot.core.outbox import Dispatcher
from bot.words import markup, terms
from bot.words.catalogue import Text
from engine.ai import Player, make_player
from engine.moves import ChooseGoals, Move, PlaceTile
from engine.rules import legal_moves
from engine.views import private_view

log = logging.getLogger("calico.demo")

NAMES = ("Alice", "Bob", "Chloé", "Dawid")
LOCALES = ("en-US", "en-US", "fr", "pl")
GUILD, CHANNEL, THREAD, LOBBY_MESSAGE = 1001, 1002, 1003, 1004
_TIMESTAMP = re.compile(r"<t:(\d+):[a-zA-Z]>")


class DemoLocales:
    """Every demo player reads the language of their seat (the thread reads the host's)."""

    def __init__(self, locales: dict[int, str]) -> None:
        self._locales = locales

    async def locale(self, user_id: int | None) -> str:
        return self._locales.get(user_id or 0, "en-US")

    def remember(self, user_id: int, locale: str) -> None:
        self._locales[user_id] = locale

    async def text_for(self, user_id: int | None) -> Text:
        return Text(await self.locale(user_id))


@dataclass
class Transcript:
    """Writes messages into ``out``: one PNG per picture, one Markdown transcript."""

    out: Path
    names: dict[int, str]
    count: int = 0
    lines: list[str] = field(default_factory=list)

    def add(self, where: str, message: Outgoing) -> None:
        self.count += 1
        n = self.count
        self.lines.append(f"### {n:03d} · {where}\n")
        if message.content:
            self.lines.append(self._plain(message.content) + "\n")
        for name, data in message.files:
            filename = f"{n:03d}-{name}"
            (self.out / filename).write_bytes(data)
            self.lines.append(f"![{name}]({filename})\n")
        controls = describe(message)["controls"]
        if controls:
            self.lines.append("Buttons and menus: " + " · ".join(f"`{c}`" for c in controls)
                              + "\n")

    def _plain(self, text: str) -> str:
        # Mentions and timestamps read as Discord would show them.
        for uid, name in self.names.items():
            text = text.replace(f"<@{uid}>", f"@{name}")
        text = _TIMESTAMP.sub(lambda m: datetime.fromtimestamp(int(m[1]), UTC).strftime(
            "%d %b %H:%M UTC"), text)
        return text.replace(f"<#{THREAD}>", "#calico-thread")

    def write(self, title: str) -> Path:
        path = self.out / "transcript.md"
        path.write_text(f"# {title}\n\n" + "\n".join(self.lines), encoding="utf-8")
        return path


class DemoDelivery:
    """A Delivery that renders each notice as the Discord layer would, into the transcript."""

    def __init__(self, kernel: Kernel, transcript: Transcript, locales: DemoLocales) -> None:
        self.kernel = kernel
        self.transcript = transcript
        self.renderer = NoticeRenderer(kernel, locales)
        self.names = transcript.names

    async def deliver(self, notice: Notice) -> None:
        game = await queries.game(self.kernel, notice.game_id)
        out = await self.renderer.build(notice, game)
        if out is None:
            return
        if notice.user_id is not None:
            where = f"DM to {self.names.get(notice.user_id, notice.user_id)}"
        else:
            where = "Thread" if notice.kind != "lobby" else "Thread (lobby message)"
        self.transcript.add(f"{where} — {notice.kind}", out)


async def run_demo(out: Path, *, players: int = 2, seed: int | None = None,
                   level: str = "normal", preview_turns: int = 1) -> Path:
    """Play one game and write the transcript; returns the transcript's path."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    players = max(1, min(4, players))
    rng = random.Random(seed)
    game_seed = rng.getrandbits(62)
    users = [UserRef(i + 1, NAMES[i], LOCALES[i] if i else "en-US") for i in range(players)]
    names = {u.id: u.name for u in users}
    locales = DemoLocales({u.id: u.locale for u in users})
    transcript = Transcript(out, names)
    with tempfile.TemporaryDirectory(prefix="calico-demo-") as tmp:
        manager = await Manager.open(Path(tmp) / "demo.sqlite3",
                                     seed_source=lambda: game_seed)
        try:
            delivery = DemoDelivery(manager.kernel, transcript, locales)
            dispatcher = manager.dispatcher(delivery)
            await _play(manager.kernel, dispatcher, users, transcript, locales, game_seed, level,
                        preview_turns)
        finally:
            await manager.close()
    return transcript.write("Calico: a demo game, as Discord would show it")


async def _drain(dispatcher: Dispatcher) -> None:
    while await dispatcher.run_once():
        pass


async def _play(kernel: Kernel, dispatcher: Dispatcher, users: list[UserRef],
                transcript: Transcript, locales: DemoLocales, seed: int, level: str,
                preview_turns: int) -> None:
    host = users[0]
    options = LobbyOptions(players=len(users), turn_hours=24.0)
    game = await lobby.create_game(kernel, host, GUILD, CHANNEL, options)
    tr_host = await locales.text_for(host.id)
    transcript.add("Channel — reply to /calico start", Outgoing(
        tr_host("lobby.starter", host=markup.mention(host.id)) + "\n"
        + tr_host("lobby.opened", game=game.id, thread=markup.channel_mention(THREAD))))
    await lobby.attach_thread(kernel, game.id, THREAD, LOBBY_MESSAGE)
    for user in users[1:]:
        game = await lobby.join(kernel, game.id, user)
    transcript.add("Thread — the lobby", messages.lobby_message(tr_host, game))
    await _drain(dispatcher)
    game = await lobby.start(kernel, game.id, host.id)
    await _drain(dispatcher)
    players = {u.id: _player(level, seed + u.id) for u in users}
    previews_left = preview_turns
    for _ in range(2000):
        # A computer that thinks answers after the click (queued for a worker): the demo
        # shows its move before the next person's.
        await kernel.computers_idle(game.id)
        game = await queries.game(kernel, game.id)
        if not game.status.active or game.state is None:
            break
        if game.status is GameStatus.DRAFT:
            for uid in game.drafting_user_ids:
                await _choose_goals(kernel, game, uid, players)
        else:
            current = game.current_user_id
            if current is None:
                break  # not a person's turn once the computers are done: nobody to play
            move = _pick(game, current, players)
            assert isinstance(move, PlaceTile)
            if previews_left > 0:
                # The preview shows the very move that is then played (the player's two
                # clicks: a cell for a tile, then the market tile).
                previews_left -= 1
                await _show_preview(kernel, game, current, move, transcript, locales)
            await turns.play_turn(kernel, game.id, current, game.ply, move.text())
        await _drain(dispatcher)
    await _drain(dispatcher)


def _player(level: str, seed: int) -> Player:
    """The demo's players choose with the engine's computer player (the best level there is)."""
    try:
        return make_player(level, seed)
    except ValueError:
        return make_player("random", seed)


def _pick(game: GameInfo, uid: int, players: dict[int, Player]) -> Move:
    """What this demo player's computer chooses, from what the player may see."""
    seat = game.seat_of(uid)
    assert seat is not None and game.state is not None
    legal = legal_moves(game.state, seat)
    return players[uid].choose(private_view(game.state, seat), legal)


async def _choose_goals(kernel: Kernel, game: GameInfo, uid: int,
                        players: dict[int, Player]) -> None:
    move = _pick(game, uid, players)
    assert isinstance(move, ChooseGoals)
    await turns.choose_goals(kernel, game.id, uid, game.ply, list(move.goals))


async def _show_preview(kernel: Kernel, game: GameInfo, uid: int, move: PlaceTile,
                        transcript: Transcript, locales: DemoLocales) -> None:
    """What choosing a cell looks like in the DM: the tile of ``move`` in place, what it
    earns, the market buttons (the player's next click commits the turn)."""
    source = move.hand if move.hand is not None else (move.market or 0)
    events = await turns.preview(kernel, game.id, uid, game.ply, source, move.cell)
    tr = await locales.text_for(uid)
    prefix = "m" if move.hand is None else "h"
    step = messages.PanelStep(f"{prefix}{source}", terms.cell_name_safe(move.cell), tuple(events))
    panel = await messages.turn_panel(tr, game, uid, step)
    transcript.add(f"DM to {transcript.names[uid]} — after choosing a cell (edited in place)",
                   panel)


def main(out: str = "calico-demo", players: int = 2, seed: int | None = None) -> Path:
    """Run the demo and print where to look."""
    started = time.perf_counter()
    path = asyncio.run(run_demo(Path(out), players=players, seed=seed))
    pngs = len(list(path.parent.glob("*.png")))
    print(f"Demo game written to {path} ({pngs} pictures) in "
          f"{time.perf_counter() - started:.1f} s.")
    return path
