"""Views stay within Discord's component limits and carry parseable ids; the turn panel never
shows another player's hand."""

from __future__ import annotations

import asyncio

import discord

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import views
from bot.adapter.ui.messages import source_choices
from bot.words.catalogue import Text
from data import load_catalog
from engine.config import GameOptions, Restriction
from engine.setup import new_game

EN = Text("en")


def _check(view: views.ItemsView) -> None:
    rows: dict[int, int] = {}
    for child in view.children:
        item = child.item  # type: ignore[attr-defined]
        assert ids.parse(item.custom_id) is not None
        assert len(item.custom_id) <= 100
        options = getattr(item, "options", None)
        if options is not None:
            assert 1 <= len(options) <= 25
        rows[child._rendered_row or 0] = rows.get(child._rendered_row or 0, 0) + 1
    assert len(view.children) <= 25


def test_lobby_and_hand_views() -> None:
    _check(views.lobby_view(EN, 12, pet=True))  # type: ignore[arg-type]
    assert views.lobby_view(EN, 12, pet=False, open_=False) is None
    plain = views.lobby_view(EN, 12, pet=True)
    assert plain is not None and not any(
        isinstance(c.item, discord.ui.Select) for c in plain.children)  # type: ignore[attr-defined]
    with_cpu = views.lobby_view(EN, 12, pet=True, computers=[(1, "Seat 2: Computer")])
    assert with_cpu is not None
    _check(with_cpu)
    [select] = [c.item for c in with_cpu.children  # type: ignore[attr-defined]
                if isinstance(c.item, discord.ui.Select)]  # type: ignore[attr-defined]
    assert ids.parse(select.custom_id) == ids.LobbyRemoveId(12)
    assert [(o.label, o.value) for o in select.options] == [("Seat 2: Computer", "1")]
    _check(views.hand_view(EN, 12))


def test_turn_view_for_hand_and_no_hand_games() -> None:
    async def go() -> None:
        catalog = load_catalog()
        for restriction in (None, Restriction.NO_HAND):
            state = new_game(catalog, GameOptions(players=2, setup="beginner",
                                                  restriction=restriction), 7)
            seat = state.current_seat
            assert seat is not None
            choices = source_choices(EN, state, seat)
            assert all(len(c.cells) <= 22 for c in choices)
            view = views.turn_view(EN, 1, state.ply, choices, market=restriction is not None)
            _check(view)
            _check(views.preview_view(EN, 1, state.ply, choices[0].source, "C3",
                                      [(0, "a"), (1, "b"), (2, "c")]))

    asyncio.run(go())


def test_draft_view_has_every_arrangement() -> None:
    options = [((a, b, c), f"{a}{b}{c}", "") for a in range(4) for b in range(4)
               for c in range(4) if len({a, b, c}) == 3]
    view = views.draft_view(EN, 3, 0, options)
    _check(view)
    assert len(view.children[0].item.options) == 24  # type: ignore[attr-defined]


def test_an_edit_can_keep_the_pictures() -> None:
    """discord.py sends no ``attachments`` when the edit leaves them out, which Discord reads
    as "keep the message's files"; ``[]`` would remove them. The commit answer relies on it."""
    from discord.http import handle_message_parameters

    from bot.adapter.ui.outgoing import Outgoing

    keep = Outgoing("Turn played", keep_attachments=True).edit_kwargs()
    assert "attachments" not in keep and keep["view"] is None
    with handle_message_parameters(**keep) as params:
        assert "attachments" not in params.payload  # type: ignore[operator]
        assert params.payload["components"] == []  # type: ignore[index]  # buttons removed
    replace = Outgoing("Preview", [("turn.png", b"png")]).edit_kwargs()
    with handle_message_parameters(**replace) as params:
        assert params.multipart is not None  # the new picture is uploaded, replacing the old
        assert '"attachments"' in str(params.multipart[0]["value"])
    with handle_message_parameters(**Outgoing("Plain").edit_kwargs()) as params:
        assert params.payload["attachments"] == []  # type: ignore[index]
