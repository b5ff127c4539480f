"""Driving the real bot through the fake Discord: a client factory and player helpers.

Used by ``tests/e2e/test_bot_*.py`` and ``benchmarks/bench_bot.py``. A "player" here is a fake
Discord user who reads their DM (or an ephemeral panel) and clicks like a person would; which
move they make is picked by a computer player from the engine, then made through the buttons.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.adapter.client import CalicoBot
from bot.core import queries
from bot.core.clock import FakeClock, to_ms
from bot.core.models import GameInfo
from bot.settings import Settings
from engine.ai import make_player
from engine.moves import ChooseGoals, PlaceTile
from engine.rules import legal_moves
from engine.views import private_view
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeMessage

CELL_SELECT = re.compile(r"calico:c:(\d+):(\d+):([hm]\d)")
DRAFT_SELECT = re.compile(r"calico:g:(\d+):(\d+)")


def bot_factory(db_path: Path, clock: FakeClock | None = None, **kwargs: Any
                ) -> Callable[[], CalicoBot]:
    """A factory for ``env.start_client``: each call is a brand-new client on the same file."""

    def make() -> CalicoBot:
        options: dict[str, Any] = {"sync": "never", "sweep_interval": 3600.0,
                                   "dispatch_poll": 0.05}
        options.update(kwargs)
        return CalicoBot(Settings(token="fake", db_path=str(db_path)), clock=clock, **options)

    return make


def bot(env: DiscordEnv) -> CalicoBot:
    client = env.client
    assert isinstance(client, CalicoBot)
    return client


def custom_ids(msg: FakeMessage) -> list[str]:
    return [c.custom_id for c in msg.walk_components() if c.custom_id]


def has_control(msg: FakeMessage, pattern: re.Pattern[str], game: int | None = None,
                ply: int | None = None) -> bool:
    for cid in custom_ids(msg):
        m = pattern.fullmatch(cid)
        if m and (game is None or int(m[1]) == game) and (ply is None or int(m[2]) == ply):
            return True
    return False


async def wait_panel(env: DiscordEnv, user: str, game: int, ply: int,
                     pattern: re.Pattern[str] = CELL_SELECT, timeout: float = 5.0) -> FakeMessage:
    """The user's DM that carries controls for this game and ply."""
    return await env.wait_for_dm(user, lambda m: has_control(m, pattern, game, ply),
                                 timeout=timeout)


async def game_of(env: DiscordEnv, game_id: int) -> GameInfo:
    return await queries.game(bot(env).manager.kernel, game_id)


def pick_move(game: GameInfo, user_id: int, level: str = "random", seed: int = 0) -> Any:
    """A legal move for the user, chosen by an engine computer player."""
    seat = game.seat_of(user_id)
    assert seat is not None and game.state is not None
    legal = legal_moves(game.state, seat)
    return make_player(level, seed + game.ply).choose(private_view(game.state, seat), legal)


async def draft_via(env: DiscordEnv, user: str, msg: FakeMessage, game: GameInfo) -> FakeMessage:
    """Pick goals in the draft panel ``msg`` (select an arrangement, then Confirm)."""
    uid = env.user(user).id
    move = pick_move(game, uid)
    assert isinstance(move, ChooseGoals)
    seat = game.seat_of(uid)
    assert seat is not None and game.state is not None
    offer = game.state.seats[seat].goal_offer
    value = "".join(str(offer.index(g)) for g in move.goals)
    select = next(c for c in custom_ids(msg) if DRAFT_SELECT.fullmatch(c))
    inter = await env.select(user, msg, select, [value])
    await inter.wait_response()
    confirm = next(c for c in custom_ids(env.get_message(msg.id)) if c.startswith("calico:gc:"))
    inter = await env.click(user, msg, custom_id=confirm)
    await inter.wait_response()
    return env.get_message(msg.id)


async def turn_via(env: DiscordEnv, user: str, msg: FakeMessage, game: GameInfo,
                   *, level: str = "random") -> tuple[Any, Any]:
    """Play the user's turn through the panel ``msg``: pick the cell, then the market tile.

    Returns the two interactions (cell select, commit click)."""
    uid = env.user(user).id
    move = pick_move(game, uid, level)
    assert isinstance(move, PlaceTile)
    source = f"h{move.hand}" if move.hand is not None else f"m{move.market}"
    from engine.hexgrid import cell_name

    cell = cell_name(move.cell)
    select_id = f"calico:c:{game.id}:{game.ply}:{source}"
    first = await env.select(user, msg, select_id, [cell])
    await first.wait_response()
    if move.hand is None or move.market is None:
        slot = "x"
    else:
        slot = str(move.market)
    take_id = f"calico:t:{game.id}:{game.ply}:{source}:{cell}:{slot}"
    # The bot may answer the select with a deferral and edit the panel after it (the preview
    # drawn on a busy machine): the market buttons come with that edit.
    await env.wait_for(lambda: take_id in custom_ids(env.get_message(msg.id)) or None,
                       timeout=30)
    second = await env.click(user, env.get_message(msg.id), custom_id=take_id)
    await second.wait_response()
    return first, second


async def answer_text(inter: Any) -> str:
    """The text of the bot's answer to an interaction (message response or followup)."""
    msgs = await inter.wait_followups(1)
    return str(msgs[0].content)


async def settle(env: DiscordEnv, quiet: float = 0.05, timeout: float = 20.0, *,
                 computers: bool = True) -> None:
    """Let the bot finish: the computers that think have moved (unless not ``computers``: a
    click is answered before they do), the outbox has nothing left pending in the database
    (when the bot runs in this process), then no request for ``quiet`` seconds."""
    await asyncio.sleep(0)
    client = env.client
    if isinstance(client, CalicoBot) and client._manager is not None:
        manager = client.manager
        if computers:
            await asyncio.wait_for(manager.kernel.computers_idle(), timeout)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            stats = await manager.store.outbox_stats(to_ms(manager.kernel.now()))
            serving = client.dispatcher.serving if client.dispatcher is not None else 0
            if not stats.lanes_due and not serving:
                break
            await asyncio.sleep(0.02)
    await env.wait_idle(quiet=quiet, timeout=timeout)
