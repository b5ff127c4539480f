"""The game's buttons and selects as ``DynamicItem`` templates.

Each class matches one custom-id template of :mod:`bot.adapter.ui.custom_ids`. The client registers
them all once (``add_dynamic_items`` in ``setup_hook``), so a click on any message, sent before or
after a restart, is parsed back into its id value. A click then goes through the bot (the
:class:`~bot.adapter.context.App` protocol): ``admit`` first (refused while shutting down), then
``on_click``, which routes it to its handler in :mod:`bot.adapter.ui.flows`. This module imports
neither the flows nor the client: the flows import the views, the views these items.
``from_custom_id`` only parses (discord.py swallows errors raised there).
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import discord

from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids

_Id = TypeVar("_Id", bound=ids.ParsedId)


class _Routed:
    """What every item does with a click: ask the bot to admit it, then to route it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # passes DynamicItem its template

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await app_of(interaction).admit(interaction)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await app_of(interaction).on_click(self, interaction)  # type: ignore[arg-type]


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


class LobbyButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=ids.LOBBY_TEMPLATE):
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



class LobbyRemoveSelect(_Routed, discord.ui.DynamicItem[discord.ui.Select[Any]],
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



class DraftSelect(_Routed, discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=ids.DRAFT_TEMPLATE):
    def __init__(self, cid: ids.DraftId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(_select(cid.encode(), placeholder, options))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> DraftSelect:
        return cls(_parse(ids.DRAFT_TEMPLATE, match, ids.DraftId))



class DraftConfirmButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
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



class DraftBackButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
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



class CellSelect(_Routed, discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=ids.CELL_TEMPLATE):
    def __init__(self, cid: ids.CellId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None, *,
                 row: int | None = None) -> None:
        super().__init__(_select(cid.encode(), placeholder, options, row))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> CellSelect:
        return cls(_parse(ids.CELL_TEMPLATE, match, ids.CellId))



class TakeButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=ids.TAKE_TEMPLATE):
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



class UndoButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=ids.UNDO_TEMPLATE):
    def __init__(self, cid: ids.UndoId, label: str = "", *, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or "Undo",
                                           style=discord.ButtonStyle.secondary, row=row,
                                           emoji="↩️", custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> UndoButton:
        return cls(_parse(ids.UNDO_TEMPLATE, match, ids.UndoId))



class HandButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=ids.HAND_TEMPLATE):
    def __init__(self, cid: ids.HandId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Hand",
                                           style=discord.ButtonStyle.secondary, emoji="🧵",
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> HandButton:
        return cls(_parse(ids.HAND_TEMPLATE, match, ids.HandId))



class ReplayButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=ids.REPLAY_TEMPLATE):
    def __init__(self, cid: ids.ReplayId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Replay",
                                           style=discord.ButtonStyle.secondary, emoji="🎞️",
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> ReplayButton:
        return cls(_parse(ids.REPLAY_TEMPLATE, match, ids.ReplayId))


class RematchButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=ids.REMATCH_TEMPLATE):
    def __init__(self, cid: ids.RematchId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Rematch",
                                           style=discord.ButtonStyle.primary, emoji="🔁",
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> RematchButton:
        return cls(_parse(ids.REMATCH_TEMPLATE, match, ids.RematchId))


class PickSelect(_Routed, discord.ui.DynamicItem[discord.ui.Select[Any]],
                 template=ids.PICK_TEMPLATE):
    def __init__(self, cid: ids.PickId, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None, *,
                 row: int | None = None) -> None:
        super().__init__(_select(cid.encode(), placeholder, options, row))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> PickSelect:
        return cls(_parse(ids.PICK_TEMPLATE, match, ids.PickId))


class HintButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=ids.HINT_TEMPLATE):
    def __init__(self, cid: ids.HintId, label: str = "", *, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label or "Hint",
                                           style=discord.ButtonStyle.secondary, row=row,
                                           emoji="💡", custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /) -> HintButton:
        return cls(_parse(ids.HINT_TEMPLATE, match, ids.HintId))



class ReviewButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=ids.REVIEW_TEMPLATE):
    def __init__(self, cid: ids.ReviewId, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Review my game",
                                           style=discord.ButtonStyle.secondary, emoji="🔎",
                                           custom_id=cid.encode()))
        self.cid = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> ReviewButton:
        return cls(_parse(ids.REVIEW_TEMPLATE, match, ids.ReviewId))


ALL_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, LobbyRemoveSelect, DraftSelect, DraftConfirmButton, DraftBackButton, CellSelect,
    TakeButton, UndoButton, HandButton, ReplayButton, RematchButton, PickSelect, HintButton,
    ReviewButton,
)
