"""Where a click goes (:func:`bot.adapter.ui.flows.route`): each custom-id kind to its own
handler, with the id parsed from the button (and the choice made, for a select); the table
holds no route for a kind that is not declared; and an item nobody handles is answered with a
private refusal."""

from __future__ import annotations

from typing import Any

import pytest

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import flows, items, respond
from bot.adapter.ui import lobby as lobby_ui
from bot.adapter.ui import progress as progress_ui
from bot.adapter.ui import replays as replays_ui
from bot.adapter.ui import review as review_ui
from bot.adapter.ui import tournament as tournament_ui

#: One click of each kind, the handler it must reach (module, name), what the handler gets
#: after the interaction, and the values chosen (a select).
CLICKS: list[tuple[ids.CustomId, Any, str, list[str]]] = [
    (ids.LobbyId("join", 12), flows, "lobby_click", []),
    (ids.LobbyRemoveId(12), flows, "lobby_remove", ["u1002"]),
    (ids.DraftId(7, 0), flows, "draft_pick", ["012"]),
    (ids.DraftConfirmId(7, 13, (3, 0, 2)), flows, "draft_confirm", []),
    (ids.DraftBackId(7, 13), flows, "draft_back", []),
    (ids.CellId(7, 42, "h1"), flows, "cell_pick", ["C3"]),
    (ids.TakeId(7, 42, "h0", "E5", 2), flows, "take", []),
    (ids.UndoId(7, 42), flows, "undo", []),
    (ids.HandId(7), flows, "show_hand", []),
    (ids.ReplayId(7), replays_ui, "replay_click", []),
    (ids.RematchId(7), lobby_ui, "rematch_click", []),
    (ids.PickId(7, 3), progress_ui, "pick_click", ["normal-60"]),
    (ids.HintId(7, 42, confirmed=True), review_ui, "hint_click", []),
    (ids.ReviewId(7), review_ui, "review_click", []),
    (ids.TournamentJoinId(23), tournament_ui, "join_click", []),
    (ids.TournamentLeaveId(23), tournament_ui, "leave_click", []),
]


def test_every_declared_kind_and_no_other_has_a_route() -> None:
    declared = {kind.cls for kind in ids.KINDS}
    assert set(flows.ROUTES) == declared
    assert {type(cid) for cid, *_ in CLICKS} == declared  # each is clicked below


@pytest.mark.parametrize(("cid", "module", "handler", "values"), CLICKS,
                         ids=[type(c[0]).__name__ for c in CLICKS])
async def test_a_click_reaches_its_handler_with_its_id(
        monkeypatch: pytest.MonkeyPatch, cid: ids.CustomId, module: Any, handler: str,
        values: list[str]) -> None:
    got: list[tuple[Any, ...]] = []

    async def record(*args: Any) -> None:
        got.append(args)

    monkeypatch.setattr(module, handler, record)
    cls = items.ITEMS[type(cid)]
    item: Any = items.button(cid) if issubclass(cls, items.IdButton) else items.select(cid)
    if values:
        item.item._values = values  # what discord.py records of the choice made
    interaction = object()
    await flows.route(item, interaction)  # type: ignore[arg-type]
    [args] = got
    assert args[0] is interaction
    expected = cid.game if isinstance(cid, ids.HandId) else cid  # type: ignore[attr-defined]
    assert args[1] == expected
    assert list(args[2:]) == ([values] if values else [])


async def test_an_item_nobody_handles_is_refused_privately(
        monkeypatch: pytest.MonkeyPatch) -> None:
    refused: list[Any] = []

    async def refuse(interaction: Any, error: Any) -> None:
        refused.append((interaction, error))

    monkeypatch.setattr(respond, "refuse", refuse)
    interaction = object()
    for stranger in (object(), type("Item", (), {"cid": "calico:l:join:1"})()):
        await flows.route(stranger, interaction)  # type: ignore[arg-type]
    assert refused == [(interaction, "stale"), (interaction, "stale")]
