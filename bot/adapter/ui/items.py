"""The game's buttons and selects as ``DynamicItem`` templates, one per custom-id kind.

The classes are not written out: each is derived from its kind's entry in
:mod:`bot.adapter.ui.custom_ids` (its regex is the template, its widget the default look), named
after it (``TakeId`` → ``TakeButton``, ``CellId`` → ``CellSelect``). Views make them with
:func:`button` and :func:`select`, which pick the class from the id value.

The client registers them all once (``add_dynamic_items(*ALL_ITEMS)`` in ``setup_hook``), so a
click on any message, sent before or after a restart, is parsed back into its id value. A click
then goes through the bot (the :class:`~bot.adapter.context.App` protocol): ``admit`` first
(refused while shutting down), then ``on_click``, which routes it by the id's type to its
handler in :mod:`bot.adapter.ui.flows`. This module imports neither the flows nor the client: the
flows import the views, the views these items. ``from_custom_id`` only parses (discord.py
swallows errors raised there).
"""

from __future__ import annotations

import re
import types
from typing import Any, ClassVar, Generic, TypeVar, cast

import discord

from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids

_Id = TypeVar("_Id", bound=ids.CustomId)

# The generic bases' template: it matches nothing, and the bases are never registered.
_NO_TEMPLATE = r"(?!)"


class _Routed:
    """What every item does with a click: ask the bot to admit it, then to route it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # passes DynamicItem its template

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await app_of(interaction).admit(interaction)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await app_of(interaction).on_click(self, interaction)  # type: ignore[arg-type]


def _fields(cid: ids.CustomId) -> dict[str, Any]:
    return {p.attr: getattr(cid, p.attr) for p in type(cid).kind.parts}


class IdButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]], Generic[_Id],
               template=_NO_TEMPLATE):
    """A button carrying a custom id of one kind (``kind`` is set on each derived class)."""

    kind: ClassVar[ids.Kind]

    def __init__(self, cid: _Id, label: str = "", style: discord.ButtonStyle | None = None,
                 *, row: int | None = None, emoji: str | None = None) -> None:
        look = self.kind.widget
        assert isinstance(look, ids.Button)
        super().__init__(discord.ui.Button(
            label=label or look.label.format(**_fields(cid)),
            style=style if style is not None else discord.ButtonStyle[look.style],
            row=row, emoji=emoji if emoji is not None else look.emoji,
            custom_id=cid.encode()))
        self.cid: _Id = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> IdButton[_Id]:
        return cls(cast("_Id", cls.kind.read(match)))


class IdSelect(_Routed, discord.ui.DynamicItem[discord.ui.Select[Any]], Generic[_Id],
               template=_NO_TEMPLATE):
    """A one-choice select carrying a custom id of one kind (goal arrangements, cells,
    computer seats, the row a win fills)."""

    kind: ClassVar[ids.Kind]

    def __init__(self, cid: _Id, placeholder: str = "",
                 options: list[discord.SelectOption] | None = None, *,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=cid.encode(),
                                           placeholder=placeholder or None,
                                           options=options or [], min_values=1, max_values=1,
                                           row=row))
        self.cid: _Id = cid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str], /
                             ) -> IdSelect[_Id]:
        return cls(cast("_Id", cls.kind.read(match)))


Item = IdButton[Any] | IdSelect[Any]


def _item_class(kind: ids.Kind) -> type[IdButton[Any]] | type[IdSelect[Any]]:
    """The ``DynamicItem`` class of ``kind``: its template is the kind's regex."""
    is_button = isinstance(kind.widget, ids.Button)
    base: type[Any] = IdButton if is_button else IdSelect
    name = kind.cls.__name__.removesuffix("Id") + ("Button" if is_button else "Select")

    def body(ns: dict[str, Any]) -> None:
        ns.update(kind=kind, __module__=__name__, __qualname__=name)

    return types.new_class(name, (base,), {"template": kind.template}, body)


ITEMS: dict[type[ids.CustomId], type[IdButton[Any]] | type[IdSelect[Any]]] = {
    kind.cls: _item_class(kind) for kind in ids.KINDS
}
ALL_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = tuple(ITEMS.values())


def button(cid: _Id, label: str = "", style: discord.ButtonStyle | None = None, *,
           row: int | None = None, emoji: str | None = None) -> IdButton[_Id]:
    """The button for ``cid`` (its kind must be declared with a ``Button`` widget)."""
    cls = ITEMS[type(cid)]
    if not issubclass(cls, IdButton):
        raise TypeError(f"{type(cid).__name__} is not a button")
    return cls(cid, label, style, row=row, emoji=emoji)


def select(cid: _Id, placeholder: str = "", options: list[discord.SelectOption] | None = None,
           *, row: int | None = None) -> IdSelect[_Id]:
    """The select for ``cid`` (its kind must be declared with a ``Select`` widget)."""
    cls = ITEMS[type(cid)]
    if not issubclass(cls, IdSelect):
        raise TypeError(f"{type(cid).__name__} is not a select")
    return cls(cid, placeholder, options, row=row)
