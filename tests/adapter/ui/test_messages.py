"""What a player sees of a small real game (:mod:`bot.adapter.ui.messages`): the turn panel
of the player to move (their hand, one select of legal cells per tile, a hint button only where
hints are offered) and of the one waiting (no controls); the preview step (take a market tile,
or undo); the thread's post of a move (who did what, the next player pinged only while it is
still their turn); and the score sheet (each player's total, the buttons under it)."""

from __future__ import annotations

from typing import Any

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import images, messages
from bot.adapter.ui.messages import PanelStep
from bot.core import lobby, queries, turns
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus
from bot.words import terms
from bot.words.catalogue import Text
from engine.hexgrid import cell_name
from engine.rules import legal_moves, placements
from engine.views import private_view
from tests.core.conftest import ANN, BOB, any_move, new_game, to_last_move

EN = Text("en")


def controls(view: Any) -> list[tuple[ids.CustomId | None, bool, list[str]]]:
    """(parsed id, enabled, option values) of each control of a message."""
    if view is None:
        return []
    return [(ids.parse(c.item.custom_id), not c.item.disabled,
             [o.value for o in getattr(c.item, "options", [])]) for c in view.children]


async def ann_to_play(m: Manager, **options: Any) -> GameInfo:
    g = await new_game(m, people=(BOB,), setup="beginner", first="pet", start=False, **options)
    await lobby.claim_first(m.kernel, g.id, ANN.id)
    return await lobby.start(m.kernel, g.id, ANN.id)


async def test_the_turn_panel_of_the_player_to_move(manager: Manager) -> None:
    g = await ann_to_play(manager)
    assert g.state is not None and g.current_user_id == ANN.id
    panel = await messages.turn_panel(EN, g, ANN.id)
    assert f"#{g.id}" in panel.content
    for tile in private_view(g.state, 0).hand:
        assert terms.tile_code_name(EN, g.state.config, tile) in panel.content
    legal: dict[int, list[str]] = {}
    for src, cell in placements(g.state, 0):
        legal.setdefault(src, []).append(cell_name(cell))
    assert controls(panel.view) == [
        (ids.CellId(g.id, g.ply, f"h{src}"), True, sorted(cells))
        for src, cells in sorted(legal.items())]
    assert [name for name, _ in panel.files] == [images.TURN_PNG]
    assert panel.descriptions.get(images.TURN_PNG)  # the picture's alt text

    waiting = await messages.turn_panel(EN, g, BOB.id)
    assert waiting.view is None or not waiting.view.children  # not his turn: nothing to press
    assert [name for name, _ in waiting.files] == [images.TURN_PNG]
    outsider = await messages.turn_panel(EN, g, 4242)
    assert outsider.files == [] and outsider.view is None


async def test_a_hint_button_only_where_hints_are_offered(manager: Manager) -> None:
    for hints in (False, True):
        g = await ann_to_play(manager, hints=hints)
        kinds = [type(cid) for cid, _, _ in controls((await messages.turn_panel(
            EN, g, ANN.id)).view)]
        assert (ids.HintId in kinds) is hints


async def test_the_preview_offers_the_market_or_undo(manager: Manager) -> None:
    g = await ann_to_play(manager)
    assert g.state is not None
    src, cell = placements(g.state, 0)[0]
    step = PanelStep(source=f"h{src}", cell=cell_name(cell))
    panel = await messages.turn_panel(EN, g, ANN.id, step)
    takes = [cid for cid, enabled, _ in controls(panel.view) if enabled]
    market = [k for k, t in enumerate(g.state.market) if t is not None]
    assert takes == [*(ids.TakeId(g.id, g.ply, step.source, step.cell, k) for k in market),
                     ids.UndoId(g.id, g.ply)]
    assert step.cell in panel.content


async def test_the_thread_post_of_a_move(manager: Manager) -> None:
    g = await ann_to_play(manager)
    done = await turns.play_turn(manager.kernel, g.id, ANN.id, g.ply, any_move(g, ANN.id))
    after = done.game
    post = await messages.table_post(EN, after, after.state, 0, done.events,
                                     autoplayed=False, current=True)
    assert ANN.name in post.content.splitlines()[0]  # who did it
    assert post.ping == [BOB.id] and f"<@{BOB.id}>" in post.content  # whose turn it is now
    assert [name for name, _ in post.files] == [images.QUILT_PNG]
    assert controls(post.view) == [(ids.HandId(g.id), True, [])]
    later = await messages.table_post(EN, after, after.state, 0, done.events,
                                      autoplayed=False, current=False)
    assert later.ping == [] and f"<@{BOB.id}>" not in later.content  # the game moved on


async def test_the_score_sheet(manager: Manager) -> None:
    g = await to_last_move(manager, await ann_to_play(manager))
    seat = g.current_seat
    assert g.state is not None and seat is not None
    user = g.seats[seat].user_id
    assert user is not None
    done = await turns.play_turn(manager.kernel, g.id, user, g.ply,
                                 legal_moves(g.state, seat)[0].text())
    over = await queries.game(manager.kernel, g.id)
    assert over.status is GameStatus.OVER
    sheet = await messages.game_over_message(EN, over, done.events)
    totals = done.events[-1].totals  # type: ignore[attr-defined]
    for s, total in zip(over.seats, totals, strict=True):
        assert any(s.name in line and str(total) in line for line in sheet.content.splitlines())
    assert [name for name, _ in sheet.files] == [images.SCORES_PNG]
    assert controls(sheet.view) == [(ids.ReviewId(g.id), True, [])]
    post = await messages.table_post(EN, over, over.state, seat, done.events,
                                     autoplayed=False, current=True)
    assert post.view is None and post.ping == []  # nothing left to play, nobody to ping
