"""The game's buttons and selects as ``DynamicItem`` templates.

Each class matches one custom-id template of :mod:`bot.adapter.ui.custom_ids`. The client
registers them all once (``add_dynamic_items`` in ``setup_hook``), so a click on any message,
sent before or after a restart, is parsed back into its id value and handed to
:mod:`bot.adapter.ui.flows`, which talks to the game manager. ``from_custom_id`` only parses
(discord.py swallows errors raised there)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.adapter.ui import custom_ids as ids

if TYPE_CHECKING:
    from types import ModuleType

_Id = TypeVar("_Id", bound=ids.ParsedId)


def flows() -> ModuleType:
    """The click handlers (imported late: they import the views, which import these items)."""
    import bot.adapter.ui.flows

    return bot.adapter.ui.flows


def _parse(template: str, match: re.Match[str], kind: type[_Id]) -> _Id:
    """The id value of a click on an item of ``template`` (its regex ``match``)."""
    cid = ids.from_match(template, match)
    assert isinstance(cid, kind)
    return cid


def _select(custom_id: str, placeholder: str, options: list[discord.SelectOption] | None,
            row: int | None = None) -> discord.ui.Select[Any]:
    """A one-choice select (goal arrangements, cells, computer seats)."""
    return discord.ui.Select(custom_id=custom_id, placeholder=placeholder or None,
                             options=options or [], min_values=1, max_values=1, row=row)


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.LOBBY_TEMPLATE):
    def __init__(self, cid: ids.LobbyId, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, *,
                 row: int | None = None, emoji: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or cid.action, style=style, row=row,
                                           emoji=emoji, custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> LobbyButton:
        return cls(_parse(ids.LOBBY_TEMPLATE, match, ids.LobbyId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().lobby_click(interaction, self.cid)


class LobbyRemoveSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                        template=ids.LOBBY_REMOVE_TEMPLATE):
    def __init__(self, cid: ids.LobbyRemoveId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None, *,
                 row: int | None = None) -> None:
        super().__init__(_select(cid.encode(), placeholder, options, row))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> LobbyRemoveSelect:
        return cls(_parse(ids.LOBBY_REMOVE_TEMPLATE, match, ids.LobbyRemoveId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().lobby_remove(interaction, self.cid, list(self.item.values))


class DraftSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.DRAFT_TEMPLATE):
    def __init__(self, cid: ids.DraftId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(_select(cid.encode(), placeholder, options))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> DraftSelect:
        return cls(_parse(ids.DRAFT_TEMPLATE, match, ids.DraftId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().draft_pick(interaction, self.cid, list(self.item.values))


class DraftConfirmButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                         template=ids.DRAFT_CONFIRM_TEMPLATE):
    def __init__(self, cid: ids.DraftConfirmId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "OK", style=discord.ButtonStyle.success,
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> DraftConfirmButton:
        return cls(_parse(ids.DRAFT_CONFIRM_TEMPLATE, match, ids.DraftConfirmId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().draft_confirm(interaction, self.cid)


class DraftBackButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                      template=ids.DRAFT_BACK_TEMPLATE):
    def __init__(self, cid: ids.DraftBackId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Back",
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> DraftBackButton:
        return cls(_parse(ids.DRAFT_BACK_TEMPLATE, match, ids.DraftBackId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().draft_back(interaction, self.cid)


class CellSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.CELL_TEMPLATE):
    def __init__(self, cid: ids.CellId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None, *,
                 row: int | None = None) -> None:
        super().__init__(_select(cid.encode(), placeholder, options, row))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> CellSelect:
        return cls(_parse(ids.CELL_TEMPLATE, match, ids.CellId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().cell_pick(interaction, self.cid, list(self.item.values))


class TakeButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.TAKE_TEMPLATE):
    def __init__(self, cid: ids.TakeId, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.primary, *,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or "OK", style=style, row=row,
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> TakeButton:
        return cls(_parse(ids.TAKE_TEMPLATE, match, ids.TakeId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().take(interaction, self.cid)


class UndoButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.UNDO_TEMPLATE):
    def __init__(self, cid: ids.UndoId, label: str = "", *, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or "Undo",
                                           style=discord.ButtonStyle.secondary, row=row,
                                           emoji="↩️", custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> UndoButton:
        return cls(_parse(ids.UNDO_TEMPLATE, match, ids.UndoId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().undo(interaction, self.cid)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.HAND_TEMPLATE):
    def __init__(self, cid: ids.HandId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Hand",
                                           style=discord.ButtonStyle.secondary, emoji="🧵",
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> HandButton:
        return cls(_parse(ids.HAND_TEMPLATE, match, ids.HandId))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().show_hand(interaction, self.cid.game)


ALL_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, LobbyRemoveSelect, DraftSelect, DraftConfirmButton, DraftBackButton, CellSelect,
    TakeButton, UndoButton, HandButton,
)
