"""What each button and select does: parse, call the feature's service, answer in place.

:data:`ROUTES` routes a click by its custom id's type (:mod:`bot.adapter.ui.custom_ids`) to its
handler. Every handler is a short script: build the answer through
:func:`bot.adapter.ui.respond.update` (edit the clicked message in place) or
:func:`bot.adapter.ui.respond.reply` (a private new message), inside which a service function
is called with the kernel (``turns.play_turn(kernel, ...)``, the front door,
``docs/architecture.md``) and the picture rendered. Refusals from the core or the engine
(someone else's button, a button from an earlier turn, a double click, a game that ended, a
full table) come back as short private answers and change nothing. No rules here: legality,
turn order and ply checks are the core's and the engine's."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.adapter import options
from bot.adapter.context import app_of, user_ref
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import lobby as lobby_ui
from bot.adapter.ui import messages, respond
from bot.adapter.ui import progress as progress_ui
from bot.adapter.ui import replays as replays_ui
from bot.adapter.ui import review as review_ui
from bot.adapter.ui import tournament as tournament_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import lobby, queries, turns
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.words.catalogue import Text
from engine.hexgrid import parse_cell

log = logging.getLogger("calico.flows")


def _ensure_ply(game: GameInfo, ply: int) -> None:
    """A button made for another ply is out of date (the kernel checks this too)."""
    if game.status in (GameStatus.OVER, GameStatus.CANCELLED, GameStatus.ABANDONED):
        raise ManagerError("game_over")
    if game.ply != ply:
        raise ManagerError("stale")


# --------------------------------------------------------------------------- lobby


async def lobby_click(interaction: discord.Interaction[Any], cid: ids.LobbyId) -> None:
    bot = app_of(interaction)
    kernel = bot.kernel
    me = user_ref(interaction)

    async def work() -> Outgoing | None:
        if cid.action == "join":
            game = await lobby.join(kernel, cid.game, me)
        elif cid.action == "leave":
            game = await lobby.leave_lobby(kernel, cid.game, me.id)
        elif cid.action == "cpu":
            current = await queries.game(kernel, cid.game)
            game = await lobby.add_computer(kernel, cid.game, me.id, current.options.ai_level)
        elif cid.action == "start":
            game = await lobby.start(kernel, cid.game, me.id)
        elif cid.action == "cancel":
            game = await lobby.cancel(kernel, cid.game, me.id)
        else:
            game = await lobby.claim_first(kernel, cid.game, me.id)
        tr = await bot.thread_text(game)
        return await lobby_ui.lobby_message(tr, kernel, game)

    await respond.update(interaction, work())


async def lobby_remove(interaction: discord.Interaction[Any], cid: ids.LobbyRemoveId,
                       values: list[str]) -> None:
    """The host removes a computer seat (value: its seat) or someone who joined (value:
    ``u<user id>``, who may then not join again); anyone else gets a private refusal."""
    bot = app_of(interaction)

    async def work() -> Outgoing:
        value = values[0] if values else ""
        person = options.whole_number(value[1:]) if value.startswith("u") else None
        seat = None if person is not None else options.whole_number(value)
        if person is not None:
            game = await lobby.remove_person(bot.kernel, cid.game, interaction.user.id, person)
        elif seat is not None:
            game = await lobby.remove_computer(bot.kernel, cid.game, interaction.user.id, seat)
        else:
            raise ManagerError("stale")
        tr = await bot.thread_text(game)
        return await lobby_ui.lobby_message(tr, bot.kernel, game)

    await respond.update(interaction, work())


# --------------------------------------------------------------------------- goal draft


def _order_from(values: list[str]) -> tuple[int, int, int]:
    text = values[0] if values else ""
    if len(text) != 3 or not (text.isascii() and text.isdecimal()) or len(set(text)) != 3:
        raise ManagerError("stale")
    return int(text[0]), int(text[1]), int(text[2])


async def draft_pick(interaction: discord.Interaction[Any], cid: ids.DraftId,
                     values: list[str]) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)

    async def work() -> Outgoing:
        order = _order_from(values)
        game = await queries.game(bot.kernel, cid.game)
        _ensure_draft(game, interaction.user.id)
        return await messages.draft_panel(tr, game, interaction.user.id, order)

    await respond.update(interaction, work())


def _ensure_draft(game: GameInfo, user_id: int) -> None:
    if game.status is not GameStatus.DRAFT:
        raise ManagerError("game_over" if not game.status.active else "stale")
    if game.seat_of(user_id) is None:
        raise ManagerError("not_a_player")
    if user_id not in game.drafting_user_ids:
        raise ManagerError("stale")


async def draft_confirm(interaction: discord.Interaction[Any], cid: ids.DraftConfirmId) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    uid = interaction.user.id

    async def work() -> Outgoing:
        game = await queries.game(bot.kernel, cid.game)
        _ensure_draft(game, uid)
        seat = game.seat_of(uid)
        assert seat is not None and game.state is not None
        offer = game.state.seats[seat].goal_offer
        if max(cid.order) >= len(offer):
            raise ManagerError("stale")
        goals = [offer[i] for i in cid.order]
        result = await turns.choose_goals(bot.kernel, cid.game, uid, game.ply, goals)
        return messages.draft_done(tr, result.game, goals)

    await respond.update(interaction, work())


async def draft_back(interaction: discord.Interaction[Any], cid: ids.DraftBackId) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)

    async def work() -> Outgoing:
        game = await queries.game(bot.kernel, cid.game)
        _ensure_draft(game, interaction.user.id)
        return await messages.draft_panel(tr, game, interaction.user.id)

    await respond.update(interaction, work())


# --------------------------------------------------------------------------- turn


async def cell_pick(interaction: discord.Interaction[Any], cid: ids.CellId,
                    values: list[str]) -> None:
    """A cell chosen for a tile: show the tile in place and what it earns (read only)."""
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    uid = interaction.user.id

    async def work() -> Outgoing:
        cell = values[0] if values else ""
        try:
            cell_index = parse_cell(cell)
        except ValueError:
            raise ManagerError("stale") from None
        events = await turns.preview(bot.kernel, cid.game, uid, cid.ply, int(cid.source[1:]),
                                           cell_index)
        game = await queries.game(bot.kernel, cid.game)
        _ensure_ply(game, cid.ply)
        step = messages.PanelStep(cid.source, cell.upper(), tuple(events))
        return await messages.turn_panel(tr, game, uid, step)

    await respond.update(interaction, work())


async def take(interaction: discord.Interaction[Any], cid: ids.TakeId) -> None:
    """The commit: place the tile and take the market tile (or just place, on the last turn)."""
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    uid = interaction.user.id

    async def work() -> Outgoing:
        result = await turns.play_turn(bot.kernel, cid.game, uid, cid.ply, cid.move_text())
        # No picture drawn here: the answer only edits the words and drops the buttons.
        return messages.turn_committed(tr, result.game, uid, result.events)

    await respond.update(interaction, work())


async def undo(interaction: discord.Interaction[Any], cid: ids.UndoId) -> None:
    """Back to choosing a tile and a cell (nothing was committed)."""
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    uid = interaction.user.id

    async def work() -> Outgoing:
        game = await queries.game(bot.kernel, cid.game)
        _ensure_ply(game, cid.ply)
        if game.seat_of(uid) is None:
            raise ManagerError("not_a_player")
        if game.current_user_id != uid:
            raise ManagerError("not_your_turn")
        return await messages.turn_panel(tr, game, uid)

    await respond.update(interaction, work())


async def show_hand(interaction: discord.Interaction[Any], game_id: int) -> None:
    """The "Show my hand" button and ``/calico hand``: the private panel, with the turn
    controls when it is the player's turn (also the fallback when DMs are closed)."""
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    uid = interaction.user.id

    async def work() -> Outgoing:
        game = await queries.game(bot.kernel, game_id)
        return await hand_panel(tr, game, uid)

    await respond.reply(interaction, work(), ephemeral=True, defer_first=False)


async def hand_panel(tr: Text, game: GameInfo, user_id: int) -> Outgoing:
    if game.seat_of(user_id) is None:
        raise ManagerError("not_a_player")
    if game.status is GameStatus.DRAFT and user_id in game.drafting_user_ids:
        return await messages.draft_panel(tr, game, user_id)
    return await messages.turn_panel(tr, game, user_id)


# --------------------------------------------------------------------------- routing

Handler = Callable[[Any, discord.Interaction[Any]], Awaitable[None]]


def _values(item: Any) -> list[str]:
    return list(item.item.values)


# Each custom-id kind's handler (a new kind in custom_ids needs one entry here).
ROUTES: dict[type[ids.CustomId], Handler] = {
    ids.LobbyId: lambda it, ix: lobby_click(ix, it.cid),
    ids.LobbyRemoveId: lambda it, ix: lobby_remove(ix, it.cid, _values(it)),
    ids.DraftId: lambda it, ix: draft_pick(ix, it.cid, _values(it)),
    ids.DraftConfirmId: lambda it, ix: draft_confirm(ix, it.cid),
    ids.DraftBackId: lambda it, ix: draft_back(ix, it.cid),
    ids.CellId: lambda it, ix: cell_pick(ix, it.cid, _values(it)),
    ids.TakeId: lambda it, ix: take(ix, it.cid),
    ids.UndoId: lambda it, ix: undo(ix, it.cid),
    ids.HandId: lambda it, ix: show_hand(ix, it.cid.game),
    ids.ReplayId: lambda it, ix: replays_ui.replay_click(ix, it.cid),
    ids.RematchId: lambda it, ix: lobby_ui.rematch_click(ix, it.cid),
    ids.PickId: lambda it, ix: progress_ui.pick_click(ix, it.cid, _values(it)),
    ids.HintId: lambda it, ix: review_ui.hint_click(ix, it.cid),
    ids.ReviewId: lambda it, ix: review_ui.review_click(ix, it.cid),
    ids.TournamentJoinId: lambda it, ix: tournament_ui.join_click(ix, it.cid),
    ids.TournamentLeaveId: lambda it, ix: tournament_ui.leave_click(ix, it.cid),
}


async def route(item: Any, interaction: discord.Interaction[Any]) -> None:
    """Hand a click on one of the game's items to its handler."""
    cid = getattr(item, "cid", None)
    handler = ROUTES.get(type(cid)) if isinstance(cid, ids.CustomId) else None
    if handler is None:
        log.error("no handler for %s", type(item).__name__)
        await respond.refuse(interaction, "stale")
        return
    await handler(item, interaction)
