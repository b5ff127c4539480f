"""Views stay within Discord's component limits and carry parseable ids; the turn panel never
shows another player's hand."""

from __future__ import annotations

import asyncio

from bot.i18n import Text
from bot.ui import custom_ids as ids
from bot.ui import views
from bot.ui.messages import source_choices
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
