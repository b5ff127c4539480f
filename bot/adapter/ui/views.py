"""View builders: which buttons and selects a message carries, from plain values.

Every item is a :mod:`bot.adapter.ui.items` ``DynamicItem`` whose custom id holds the game, the
ply and the choices so far, so the views here are throwaway containers (``timeout=None``,
nothing kept in memory): any click on any message is routed by its custom id alone, restarts
included. Limits respected by construction: at most 5 rows, 5 buttons a row, 25 options a
select."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import discord

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import items
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.markup import clip

MAX_OPTIONS = 25


class ItemsView(discord.ui.View):
    """A view that only carries dynamic items (so it never needs to be remembered)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)


@dataclass(frozen=True, slots=True)
class CellOption:
    cell: str  # "C3"
    description: str = ""  # what the placement earns / which goal it touches


@dataclass(frozen=True, slots=True)
class SourceChoice:
    """One tile the player may place (a hand tile, or a market tile without a hand)."""

    source: str  # "h0", "h1", "m2"
    tile: str  # its name
    cells: tuple[CellOption, ...]


def lobby_view(tr: Text, game: int, *, pet: bool, open_: bool = True,
               computers: Sequence[tuple[int, str]] = (),
               people: Sequence[tuple[int, str]] = ()) -> ItemsView | None:
    """Join / Leave / Add computer / Start / Cancel (and the pet-a-cat race); with computer
    seats, (seat, label) each, or people who joined, (user id, label) each, the host's select
    to remove one of them."""
    if not open_:
        return None
    view = ItemsView()
    view.add_item(items.button(ids.LobbyId("join", game), tr("lobby.join"),
                               discord.ButtonStyle.success, row=0))
    view.add_item(items.button(ids.LobbyId("leave", game), tr("lobby.leave"),
                               discord.ButtonStyle.secondary, row=0))
    view.add_item(items.button(ids.LobbyId("cpu", game), tr("lobby.cpu"),
                               discord.ButtonStyle.secondary, row=0, emoji="🤖"))
    view.add_item(items.button(ids.LobbyId("start", game), tr("lobby.start"),
                               discord.ButtonStyle.primary, row=1))
    view.add_item(items.button(ids.LobbyId("cancel", game), tr("lobby.cancel"),
                               discord.ButtonStyle.danger, row=1))
    if pet:
        view.add_item(items.button(ids.LobbyId("pet", game), tr("lobby.pet"),
                                   discord.ButtonStyle.secondary, row=2, emoji="🐈"))
    if computers or people:
        options = [discord.SelectOption(label=clip(label, 100), value=str(seat), emoji="🤖")
                   for seat, label in computers]
        options += [discord.SelectOption(label=clip(label, 100), value=f"u{user}", emoji="🚪")
                    for user, label in people]
        placeholder = tr("lobby.remove_someone" if people else "lobby.remove_cpu")
        view.add_item(items.select(ids.LobbyRemoveId(game), placeholder,
                                   options[:MAX_OPTIONS], row=3))
    return view


def draft_view(
    tr: Text, game: int, ply: int, options: Sequence[tuple[tuple[int, int, int], str, str]]
) -> ItemsView:
    """One select listing every arrangement (≤ 24): (order, label, description)."""
    view = ItemsView()
    select_options = [
        discord.SelectOption(label=clip(label, 100), value="".join(map(str, order)),
                             description=clip(desc, 100) or None)
        for order, label, desc in options[:MAX_OPTIONS]
    ]
    view.add_item(items.select(ids.DraftId(game, ply), tr("draft.placeholder"), select_options))
    return view


def draft_confirm_view(tr: Text, game: int, ply: int, order: tuple[int, int, int]) -> ItemsView:
    view = ItemsView()
    view.add_item(items.button(ids.DraftConfirmId(game, ply, order), tr("draft.confirm")))
    view.add_item(items.button(ids.DraftBackId(game, ply), tr("draft.back")))
    return view


def turn_view(tr: Text, game: int, ply: int, choices: Sequence[SourceChoice],
              *, market: bool = False) -> ItemsView:
    """One cell select per placeable tile (two hand tiles, or up to three market tiles)."""
    view = ItemsView()
    for row, choice in enumerate(choices[:5]):
        if not choice.cells:
            continue
        if market:
            placeholder = tr("panel.select_market", slot=int(choice.source[1:]) + 1,
                             tile=choice.tile)
        else:
            placeholder = tr("panel.select", tile=choice.tile)
        options = [
            discord.SelectOption(label=c.cell, value=c.cell,
                                 description=clip(c.description, 100) or None)
            for c in choice.cells[:MAX_OPTIONS]
        ]
        view.add_item(items.select(ids.CellId(game, ply, choice.source), clip(placeholder, 150),
                                   options, row=row))
    return view


def preview_view(
    tr: Text, game: int, ply: int, source: str, cell: str,
    market: Sequence[tuple[int, str]] | None,
) -> ItemsView:
    """After a cell is chosen: take one of the market tiles (commits), or Place; and Undo.

    ``market`` lists (slot, tile name) to take; None means the placement alone ends the turn
    (the 22nd tile, or a game without a hand).
    """
    view = ItemsView()
    if market is None:
        view.add_item(items.button(ids.TakeId(game, ply, source, cell, None), tr("panel.place"),
                                   discord.ButtonStyle.success, row=0))
    else:
        for slot, tile in market:
            label = clip(tr("panel.take", slot=slot + 1, tile=tile), 80)
            view.add_item(items.button(ids.TakeId(game, ply, source, cell, slot), label,
                                       discord.ButtonStyle.primary, row=0))
    view.add_item(items.button(ids.UndoId(game, ply), tr("panel.undo"), row=1))
    return view


def hand_view(tr: Text, game: int) -> ItemsView:
    """The thread's "Show my hand" button (works for whoever presses it)."""
    view = ItemsView()
    view.add_item(items.button(ids.HandId(game), tr("panel.show_hand")))
    return view


def game_choices(labelled: Iterable[tuple[str, int]],
                 current: str) -> list[discord.app_commands.Choice[int]]:
    """A game option's autocomplete: the (label, game id) pairs whose label holds what was
    typed (a leading ``#`` ignored), in order, each label clipped to Discord's 100 characters,
    at most Discord's 25."""
    typed = current.lstrip("#")
    out: list[discord.app_commands.Choice[int]] = []
    for label, game_id in labelled:
        if current and typed not in label:
            continue
        out.append(discord.app_commands.Choice(name=markup.clip(label, 100), value=game_id))
        if len(out) == 25:
            break
    return out

