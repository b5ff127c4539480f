"""Looking back at a finished game, on Discord (issue #12): the replay GIF (``/calico replay``
and the score sheet's Replay button) and the record file (``/calico record``), for the
people allowed to see the game. The core part is :mod:`bot.core.replays`."""

from __future__ import annotations

import json
import weakref
from collections import OrderedDict
from typing import Any

import discord

import render
from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import images, respond, views
from bot.adapter.ui.outgoing import Outgoing
from bot.core import queries, replays
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.words import markup, terms
from bot.words.catalogue import Text

REPLAY_GIF = "replay.gif"
# Discord's attachment limit for a bot's message in any server (8 MiB before boosts).
ATTACHMENT_LIMIT = 8 * 1024 * 1024
# Replays drawn, per kernel (its database): a finished game never changes.
_replays: weakref.WeakKeyDictionary[Kernel, OrderedDict[tuple[int, str], bytes]] = (
    weakref.WeakKeyDictionary())
_REPLAY_CACHE = 16


def record_name(game_id: int) -> str:
    return f"calico-{game_id}.json"

async def replay_gif(tr: Text, kernel: Kernel, game_id: int) -> tuple[GameInfo, bytes]:
    """The replay GIF of a finished game, drawn in a worker thread (kept: it never changes)."""
    key = (game_id, tr.lang)
    replay = await replays.replay(kernel, game_id)
    cache = _replays.setdefault(kernel, OrderedDict())
    gif = cache.get(key)
    if gif is None:
        names = terms.seat_names(replay.game, tr)
        labels = {k: tr(f"achievements.replay.{k}") for k in render.REPLAY_LABELS}
        gif = await images.draw(render.render_replay, replay.views, names, labels=labels)
        cache[key] = gif
        while len(cache) > _REPLAY_CACHE:
            cache.popitem(last=False)
    return replay.game, gif

async def replay_message(tr: Text, kernel: Kernel, game_id: int) -> Outgoing:
    game, gif = await replay_gif(tr, kernel, game_id)
    if len(gif) > ATTACHMENT_LIMIT:
        return Outgoing(tr("progress.replay.too_big"))
    names = ", ".join(terms.seat_names(game, tr))
    shown = ", ".join(markup.name(n) for n in terms.seat_names(game, tr))  # in the message
    out = Outgoing(tr("progress.replay.caption", game=game.id, players=shown))
    out.attach(REPLAY_GIF, gif, tr("progress.replay.alt", game=game.id, players=names))
    return out

def allowed_to_see(game: GameInfo, user_id: int, guild_id: int | None) -> bool:
    """A finished game's replay: for its players, and for anyone in its server."""
    return replays.played_in(game, user_id) or (guild_id is not None
                                                 and guild_id == game.guild_id)

async def replay_click(interaction: discord.Interaction[Any], cid: ids.ReplayId) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)

    async def work() -> Outgoing:
        game = await queries.game(bot.kernel, cid.game)
        if not allowed_to_see(game, interaction.user.id, interaction.guild_id):
            raise ManagerError("unknown_game")  # as if it did not exist (issue 20)
        return await replay_message(tr, bot.kernel, cid.game)

    await respond.reply(interaction, work(), ephemeral=True, defer_first=True)

async def record_message(tr: Text, kernel: Kernel, game_id: int, user_id: int) -> Outgoing:
    data = await replays.record(kernel, game_id, user_id)
    blob = json.dumps(data, ensure_ascii=False, indent=1).encode()
    out = Outgoing(tr("progress.record.caption", game=game_id))
    out.attach(record_name(game_id), blob)
    return out

async def finished_game(kernel: Kernel, user_id: int, channel_id: int | None,
                        game_id: int | None) -> GameInfo:
    """The game ``/calico replay`` and ``record`` are about: the one named, this thread's,
    or the person's latest finished one."""
    if game_id is not None:
        return await queries.game(kernel, game_id)
    if channel_id is not None:
        here = await queries.game_for_thread(kernel, channel_id)
        if here is not None:
            return here
    for game in await queries.games_for_user(kernel, user_id, active_only=False, limit=25):
        if game.status is GameStatus.OVER:
            return game
    raise ManagerError("no_finished_game")

async def finished_autocomplete(kernel: Kernel, user_id: int, current: str,
                                tr: Text) -> list[discord.app_commands.Choice[int]]:
    games = await queries.games_for_user(kernel, user_id, active_only=False, limit=50)
    return views.game_choices(
        ((tr("progress.game_choice", game=g.id, players=", ".join(terms.seat_names(g, tr))), g.id)
         for g in games if g.status is GameStatus.OVER), current)
