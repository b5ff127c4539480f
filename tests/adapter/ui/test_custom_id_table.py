"""The custom-id table keeps the wire format byte for byte: buttons already posted in Discord
must keep working after a deploy. Every kind's encoding and regex are pinned to the literal
strings written before the table existed, every kind round-trips, and every kind has an item
class and a handler."""

from __future__ import annotations

import re

import pytest

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import flows, items

BIG = 10**19

WIRE: list[tuple[ids.CustomId, str]] = [
    (ids.LobbyId("join", 12), "calico:l:join:12"),
    (ids.LobbyId("leave", 12), "calico:l:leave:12"),
    (ids.LobbyId("cpu", 12), "calico:l:cpu:12"),
    (ids.LobbyId("start", 12), "calico:l:start:12"),
    (ids.LobbyId("cancel", 12), "calico:l:cancel:12"),
    (ids.LobbyId("pet", 12), "calico:l:pet:12"),
    (ids.LobbyRemoveId(BIG), "calico:lr:10000000000000000000"),
    (ids.DraftId(7, 0), "calico:g:7:0"),
    (ids.DraftConfirmId(7, 13, (3, 0, 2)), "calico:gc:7:13:302"),
    (ids.DraftBackId(7, 13), "calico:gb:7:13"),
    (ids.CellId(7, 42, "h1"), "calico:c:7:42:h1"),
    (ids.CellId(7, 42, "m2"), "calico:c:7:42:m2"),
    (ids.TakeId(7, 42, "h0", "E5", 2), "calico:t:7:42:h0:E5:2"),
    (ids.TakeId(7, 42, "h1", "A1", None), "calico:t:7:42:h1:A1:x"),
    (ids.TakeId(BIG, 9999, "m2", "C3", None), "calico:t:10000000000000000000:9999:m2:C3:x"),
    (ids.UndoId(7, 42), "calico:u:7:42"),
    (ids.HandId(7), "calico:hand:7"),
    (ids.ReplayId(7), "calico:replay:7"),
    (ids.RematchId(7), "calico:rematch:7"),
    (ids.PickId(7, 3), "calico:pick:7:3"),
    (ids.HintId(7, 42), "calico:hint:7:42"),
    (ids.HintId(7, 42, confirmed=True), "calico:hint:7:42:y"),
    (ids.ReviewId(7), "calico:rv:7"),
    (ids.TournamentJoinId(23), "calico:tj:23"),
    (ids.TournamentLeaveId(BIG), "calico:tl:10000000000000000000"),
]

TEMPLATES = {
    ids.LobbyId: r"calico:l:(?P<action>join|leave|cpu|start|cancel|pet):(?P<game>[0-9]{1,20})",
    ids.LobbyRemoveId: r"calico:lr:(?P<game>[0-9]{1,20})",
    ids.DraftId: r"calico:g:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4})",
    ids.DraftConfirmId:
        r"calico:gc:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4}):(?P<order>[0-9]{3})",
    ids.DraftBackId: r"calico:gb:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4})",
    ids.CellId: r"calico:c:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4}):(?P<src>[hm][0-9])",
    ids.TakeId: r"calico:t:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4}):(?P<src>[hm][0-9])"
                r":(?P<cell>[A-E][1-5]):(?P<slot>[0-9x])",
    ids.UndoId: r"calico:u:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4})",
    ids.HandId: r"calico:hand:(?P<game>[0-9]{1,20})",
    ids.ReplayId: r"calico:replay:(?P<game>[0-9]{1,20})",
    ids.RematchId: r"calico:rematch:(?P<game>[0-9]{1,20})",
    ids.PickId: r"calico:pick:(?P<game>[0-9]{1,20}):(?P<seat>[0-3])",
    ids.HintId: r"calico:hint:(?P<game>[0-9]{1,20}):(?P<ply>[0-9]{1,4})(?::(?P<ok>y))?",
    ids.ReviewId: r"calico:rv:(?P<game>[0-9]{1,20})",
    ids.TournamentJoinId: r"calico:tj:(?P<tournament>[0-9]{1,20})",
    ids.TournamentLeaveId: r"calico:tl:(?P<tournament>[0-9]{1,20})",
}


@pytest.mark.parametrize(("value", "wire"), WIRE, ids=lambda x: str(x))
def test_encoding_is_todays_wire_format(value: ids.CustomId, wire: str) -> None:
    assert value.encode() == wire
    assert ids.parse(wire) == value


def test_every_kind_is_pinned_and_sampled() -> None:
    """A new kind needs its literal wire form here (and once posted, it never changes)."""
    assert {k.cls for k in ids.KINDS} == set(TEMPLATES)
    assert {type(v) for v, _ in WIRE} == set(TEMPLATES)


@pytest.mark.parametrize("kind", ids.KINDS, ids=lambda k: k.cls.__name__)
def test_regex_is_todays_template(kind: ids.Kind) -> None:
    assert kind.template == TEMPLATES[kind.cls]
    assert items.ITEMS[kind.cls].__discord_ui_compiled_template__.pattern == kind.template


@pytest.mark.parametrize("kind", ids.KINDS, ids=lambda k: k.cls.__name__)
def test_every_kind_has_an_item_and_a_handler(kind: ids.Kind) -> None:
    cls = items.ITEMS[kind.cls]
    assert cls.__name__ == kind.cls.__name__.removesuffix("Id") + (
        "Button" if isinstance(kind.widget, ids.Button) else "Select")
    assert kind.cls in flows.ROUTES


@pytest.mark.parametrize(("value", "wire"), WIRE, ids=lambda x: str(x))
async def test_an_item_parses_its_own_click(value: ids.CustomId, wire: str) -> None:
    """What discord.py does with a click: match the item's template, then from_custom_id."""
    cls = items.ITEMS[type(value)]
    made = items.button(value) if issubclass(cls, items.IdButton) else items.select(value)
    assert made.custom_id == wire and type(made) is cls
    match = re.fullmatch(cls.__discord_ui_compiled_template__, wire)
    assert match is not None
    clicked = await cls.from_custom_id(None, made.item, match)  # type: ignore[arg-type]
    assert clicked.cid == value


def test_default_looks_are_kept() -> None:
    assert items.button(ids.LobbyId("pet", 1)).item.label == "pet"
    assert items.button(ids.UndoId(1, 2)).item.emoji.name == "↩️"  # type: ignore[union-attr]
    assert items.button(ids.TakeId(1, 2, "h0", "A1", None)).item.style.name == "primary"
    assert items.button(ids.ReviewId(1)).item.label == "Review my game"
    with pytest.raises(TypeError):
        items.button(ids.CellId(1, 2, "h0"))
