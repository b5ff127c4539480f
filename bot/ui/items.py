"""The game's buttons and selects as ``DynamicItem`` templates.

Each class matches one custom-id template of :mod:`bot.ui.custom_ids`. The client registers them
all once (``add_dynamic_items`` in ``setup_hook``), so a click on any message, sent before or after
a restart, is parsed back into its id value and handed to :mod:`bot.ui.flows`, which talks to the
game manager. ``from_custom_id`` only parses (discord.py swallows errors raised there).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from bot.ui import custom_ids as ids

if TYPE_CHECKING:
    from types import ModuleType


def flows() -> ModuleType:
    """The click handlers (imported late: they import the views, which import these items)."""
    import bot.ui.flows

    return bot.ui.flows


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
        cid = ids.from_match(ids.LOBBY_TEMPLATE, match)
        assert isinstance(cid, ids.LobbyId)
        return cls(cid)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().lobby_click(interaction, self.cid)


class DraftSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.DRAFT_TEMPLATE):
    def __init__(self, cid: ids.DraftId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=cid.encode(), placeholder=placeholder or None,
                                           options=options or [], min_values=1, max_values=1))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> DraftSelect:
        cid = ids.from_match(ids.DRAFT_TEMPLATE, match)
        assert isinstance(cid, ids.DraftId)
        return cls(cid)

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
        cid = ids.from_match(ids.DRAFT_CONFIRM_TEMPLATE, match)
        assert isinstance(cid, ids.DraftConfirmId)
        return cls(cid)

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
        cid = ids.from_match(ids.DRAFT_BACK_TEMPLATE, match)
        assert isinstance(cid, ids.DraftBackId)
        return cls(cid)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().draft_back(interaction, self.cid)


class CellSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.CELL_TEMPLATE):
    def __init__(self, cid: ids.CellId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None, *,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=cid.encode(), placeholder=placeholder or None,
                                           options=options or [], min_values=1, max_values=1,
                                           row=row))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> CellSelect:
        cid = ids.from_match(ids.CELL_TEMPLATE, match)
        assert isinstance(cid, ids.CellId)
        return cls(cid)

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
        cid = ids.from_match(ids.TAKE_TEMPLATE, match)
        assert isinstance(cid, ids.TakeId)
        return cls(cid)

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
        cid = ids.from_match(ids.UNDO_TEMPLATE, match)
        assert isinstance(cid, ids.UndoId)
        return cls(cid)

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
        cid = ids.from_match(ids.HAND_TEMPLATE, match)
        assert isinstance(cid, ids.HandId)
        return cls(cid)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await flows().show_hand(interaction, self.cid.game)


ALL_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, DraftSelect, DraftConfirmButton, DraftBackButton, CellSelect, TakeButton,
    UndoButton, HandButton,
)
