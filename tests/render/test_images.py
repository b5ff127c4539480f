"""Turn image, hand and market strip, table, score sheet and goal draft; labels; threads."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import ImageChops

import render
from engine.state import GameState
from engine.views import PublicView, private_view, public_view
from render import (
    draw_turn,
    quilt_layout,
    render_draft,
    render_hand_market,
    render_quilt,
    render_scoresheet,
    render_strip,
    render_table,
    render_turn,
    strip_offset,
)
from render.quilt import draw_quilt
from render.samples import best_preview
from render.scoresheet import draw_scoresheet
from render.strip import draw_strip
from render.table import table_width
from render.theme import DEFAULT_LABELS, label

from .helpers import decode, diff_bbox, mean_abs_diff

LIMIT = 300 * 1024


def test_turn_image_is_quilt_over_strip(two_mid: GameState) -> None:
    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    prev, legal, source = best_preview(two_mid)
    data = render_turn(view, name="Ann", preview=prev, legal=legal, selected=source)
    assert len(data) <= LIMIT
    img = decode(data)
    qw, qh = quilt_layout().size
    assert img.width == qw and img.height > qh
    assert strip_offset() == qh
    quilt = draw_quilt(view.public.seats[seat], view.public.config, preview=prev, legal=legal,
                       name="Ann")
    # The quilt part is the quilt image (up to palette rounding), so cell_center holds.
    assert mean_abs_diff(img.crop((0, 0, qw, qh)), quilt) < 2.0
    raw = draw_turn(view, name="Ann", preview=prev, legal=legal, selected=source)
    assert raw.crop((0, 0, qw, qh)).tobytes() == quilt.tobytes()


def test_strip_numbers_hand_and_market(two_mid: GameState) -> None:
    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    assert len(view.hand) == 2
    img = decode(render_hand_market(view))
    assert img.height < 200
    both = draw_strip(view.hand, view.public.market)
    market_only = draw_strip((), view.public.market)
    assert market_only.width < both.width
    # Selecting a hand tile rings it.
    sel = draw_strip(view.hand, view.public.market, selected=0)
    assert diff_bbox(both, sel) is not None
    # An empty market slot (bag ran out) still draws.
    market = (view.public.market[0], None, view.public.market[2])
    assert decode(render_strip(view.hand, market, bag_count=0)).width > 0


def test_table_for_every_player_count(two_mid: GameState, four_mid: GameState,
                                      family_mid: GameState) -> None:
    heights = {}
    for state in (two_mid, family_mid, four_mid):
        view = public_view(state)
        names = [f"Player {i}" for i in range(len(view.seats))]
        data = render_table(view, names)
        assert len(data) <= LIMIT
        img = decode(data)
        assert img.width == table_width(len(view.seats))
        heights[len(view.seats)] = img.height
    assert heights[2] < heights[3] <= heights[4]


def test_table_marks_whose_turn(four_mid: GameState) -> None:
    view = public_view(four_mid)
    names = ["Ann", "Bob", "Cyd", "Dee"]
    a = decode(render_table(view, names))
    nxt = (view.current_seat or 0) + 1
    other = dataclasses.replace(view, current_seat=nxt % 4)
    b = decode(render_table(other, names))
    assert diff_bbox(a, b) is not None
    # Missing names fall back to P1, P2...
    assert decode(render_table(view, [])).size == a.size


def _tied(view: PublicView, cats: tuple[int, int], buttons: tuple[int, int]) -> PublicView:
    seats = []
    for seat, c, b in zip(view.seats, cats, buttons, strict=True):
        score = dict(seat.score)
        score.update(total=50, cat_tokens=c, button_tokens=b)
        seats.append(dataclasses.replace(seat, score=score))
    return dataclasses.replace(view, seats=tuple(seats))


def test_scoresheet_winner_and_tiebreak(two_end: GameState) -> None:
    view = public_view(two_end)
    names = ["Ann", "Bob"]
    plain = draw_scoresheet(view, names)
    assert len(render_scoresheet(view, names)) <= LIMIT
    by_cats = draw_scoresheet(_tied(view, (2, 1), (0, 0)), names)
    by_buttons = draw_scoresheet(_tied(view, (1, 1), (3, 2)), names)
    shared = draw_scoresheet(_tied(view, (1, 1), (2, 2)), names)
    # A tie-break adds its explanation under the table.
    assert by_cats.height > plain.height
    assert by_cats.height == by_buttons.height == shared.height
    foot = (0, by_cats.height - 60, by_cats.width, by_cats.height)
    assert diff_bbox(by_cats.crop(foot), by_buttons.crop(foot)) is not None
    assert diff_bbox(by_buttons.crop(foot), shared.crop(foot)) is not None
    # A shared victory marks both players Master Quilter: the second row changes too.
    assert diff_bbox(by_cats, shared) is not None


def test_draft_shows_the_offer(draft_start: GameState) -> None:
    view = private_view(draft_start, 0)
    assert len(view.goal_offer) == 4
    data = render_draft(view.goal_offer, draft_start.config, seat=view.public.seats[0])
    assert len(data) <= LIMIT
    img = decode(data)
    assert img.width == 800
    alone = decode(render_draft(view.goal_offer, draft_start.config))
    assert alone.height < img.height
    three = decode(render_draft(view.goal_offer[:3], draft_start.config))
    assert three.size == alone.size


def test_labels_translate_words_and_fall_back(two_mid: GameState) -> None:
    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    english = decode(render_turn(view))
    polish = decode(render_turn(view, labels={"hand": "Ręka", "market": "Targ"}))
    assert english.size == polish.size
    assert diff_bbox(english, polish) is not None
    partial = decode(render_turn(view, labels={"unknown": "x"}))
    assert ImageChops.difference(english, partial).getbbox() is None
    assert label(None, "master_quilter") == DEFAULT_LABELS["master_quilter"]
    assert label({"master_quilter": "Mistrz"}, "master_quilter") == "Mistrz"


def test_rendering_is_thread_safe(two_mid: GameState, four_mid: GameState) -> None:
    views = [public_view(s) for s in (two_mid, four_mid)]
    jobs = [(v, i) for v in views for i in range(len(v.seats))] * 3

    def one(job: tuple[PublicView, int]) -> bytes:
        v, i = job
        return render_quilt(v.seats[i], v.config, name=f"P{i}", highlight=v.seats[i].placed[-1])

    serial = [one(j) for j in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(one, jobs))
    assert parallel == serial


def test_same_input_same_bytes(two_end: GameState) -> None:
    view = public_view(two_end)
    assert render_scoresheet(view, ["a", "b"]) == render_scoresheet(view, ["a", "b"])


@pytest.mark.parametrize("name", [n for n in render.__all__ if n.startswith("render_")])
def test_public_renderers_take_views_not_state(name: str) -> None:
    fn = getattr(render, name)
    hints = typing.get_type_hints(fn)
    for param, hint in hints.items():
        assert "GameState" not in str(hint), (name, param)
    assert "state" not in inspect.signature(fn).parameters


def test_no_hand_and_solo_turns() -> None:
    from engine.config import GameOptions, Restriction
    from render.samples import play_until

    for opts, seed, moves in ((GameOptions(players=2, restriction=Restriction.NO_HAND), 4, 12),
                              (GameOptions(players=1, scenario=5), 6, 8)):
        state = play_until(opts, seed, moves)
        seat = state.current_seat
        assert seat is not None
        view = private_view(state, seat)
        prev, legal, _ = best_preview(state)
        img = decode(render_turn(view, preview=prev, legal=legal))
        assert img.width == quilt_layout().size[0]
        table = decode(render_table(public_view(state), ["Solo"]))
        assert table.width == table_width(state.config.players)


def test_last_turn_fades_the_market(two_mid: GameState) -> None:
    from render.theme import ACCENT

    from .helpers import share_near

    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    normal = draw_strip(view.hand, view.public.market)
    last = draw_strip(view.hand, view.public.market, last_turn=True)
    assert normal.size == last.size
    right = (normal.width // 2, 0, normal.width, normal.height)
    # The terracotta number badges go: the market cannot be taken from.
    assert share_near(normal, right, ACCENT, 12) > share_near(last, right, ACCENT, 12) + 0.005
    left = (0, 0, normal.width // 3, normal.height)
    assert diff_bbox(normal.crop(left), last.crop(left)) is None


def test_scoresheet_shows_the_scenario_targets() -> None:
    """A solo scenario's sheet adds a panel: passed or not, then one chip per target, green
    when met and red when missed, in the targets' order."""
    from engine.config import GameOptions
    from engine.events import ScenarioResult
    from render import theme
    from render.samples import play_until
    from render.scoresheet import CHIP_H, MARGIN, SCENARIO_H

    from .helpers import share_near

    state = play_until(GameOptions(players=1, scenario=8), 3, None, own_chooser=True)
    view = public_view(state)
    plain = draw_scoresheet(view, ["Ann"])
    conditions = (("goals_met", 2, 2, True), ("goals_both", 1, 0, False),
                  ("each_cat", 3, 3, True), ("rainbow", 1, 1, True), ("score", 66, 58, False))
    result = ScenarioResult(0, 8, False, conditions)
    sheet = draw_scoresheet(view, ["Ann"], scenario=result)
    assert sheet.height == plain.height + SCENARIO_H + 10
    top = plain.height - 12 - MARGIN  # the panel goes under the players' rows
    above = (0, 0, plain.width, top)
    assert diff_bbox(plain.crop(above), sheet.crop(above)) is None
    # The chips sit at the bottom of the panel, spread evenly.
    chip_y = top + SCENARIO_H - 16 - CHIP_H // 2
    n = len(conditions)
    chip_w = (sheet.width - 2 * MARGIN - 32 - (n - 1) * 10) / n
    for k, (_, _, _, met) in enumerate(conditions):
        x = MARGIN + 16 + k * (chip_w + 10)
        edge = (round(x), chip_y - CHIP_H // 2, round(x + chip_w), chip_y + CHIP_H // 2 + 1)
        want, other = (theme.GOOD, theme.BAD) if met else (theme.BAD, theme.GOOD)
        assert share_near(sheet, edge, want, tol=30) > 0.05, k
        assert share_near(sheet, edge, other, tol=30) < 0.01, k
    head = (MARGIN, top, sheet.width - MARGIN, top + 56)
    assert share_near(sheet, head, theme.BAD, tol=30) > share_near(sheet, head, theme.GOOD,
                                                                     tol=30)
    passed = draw_scoresheet(view, ["Ann"], scenario=ScenarioResult(
        0, 8, True, tuple((c[0], c[1], c[1], True) for c in conditions)))
    assert share_near(passed, head, theme.GOOD, tol=30) > share_near(passed, head, theme.BAD,
                                                                       tol=30)


@pytest.mark.parametrize("players", [1, 4])
def test_cat_cards_are_whole(players: int) -> None:
    """On the table of 1 player (640 px: narrow cards) and of 4 (960 px), every cat's card
    holds its whole name (no ellipsis) and both pattern hexes inside its edge: nothing but the
    card's soft shadow lies right of it."""
    from data import load_catalog
    from engine.config import CatRule
    from render.table import CARD_H, GAP, MARGIN, cat_card

    from .legibility import recording

    width = (table_width(players) - 2 * MARGIN - 2 * GAP) // 3
    for cat in load_catalog().cats.values():
        rule = CatRule(cat.id, cat.points, cat.min_size or 0, tuple(cat.shape or ()), (0, 3))
        with recording() as marks:
            card = cat_card(rule, width)
        drawn = [m.text for m in marks]
        assert cat.id.capitalize() in drawn, (cat.id, drawn)
        beyond = card.getchannel("A").crop((width + 1, 0, card.width, CARD_H))
        most = beyond.getextrema()[1]
        assert isinstance(most, int) and most <= 60, (cat.id, most)


def test_a_game_s_card_row_is_its_three_cards_as_drawn_one_by_one(two_mid: GameState) -> None:
    """The row of cards the table pastes (and the web site keeps) is pixel for pixel the three
    cards pasted one by one onto the table's background."""
    from PIL import Image

    from render import table, theme

    cfg = public_view(two_mid).config
    width = table_width(2)
    card_w = (width - 2 * table.MARGIN - 2 * table.GAP) // 3
    by_hand = Image.new("RGB", (width, table.CARD_H + 8), theme.BACKGROUND)
    for i, cat in enumerate(cfg.cats):
        card = table.cat_card(cat, card_w)
        by_hand.paste(card, (table.MARGIN + i * (card_w + table.GAP), 0), card)
    drawn = Image.new("RGB", by_hand.size, theme.BACKGROUND)
    table.draw_cats(drawn, cfg, 0, width)
    assert ImageChops.difference(by_hand, drawn).getbbox() is None


def test_a_table_drawn_with_its_cards_kept_is_the_same_picture(
        two_mid: GameState, four_mid: GameState) -> None:
    """The web site's pictures' worker keeps games' cards drawn between their steps; the
    table it draws must be the one drawn from scratch, pixel for pixel, and it keeps as many
    games' cards as it was told (1, 2), none by default."""
    from render import table

    two, four = public_view(two_mid), public_view(four_mid)
    fresh = table.draw_table(two, ["Ann", "Bo"])
    assert table.cat_rows_kept() == 0
    try:
        table.keep_cat_rows(2)
        first = table.draw_table(two, ["Ann", "Bo"])
        again = table.draw_table(two, ["Ann", "Bo"])
        assert table.cat_rows_kept() == 1
        assert ImageChops.difference(fresh, first).getbbox() is None
        assert ImageChops.difference(fresh, again).getbbox() is None
        table.draw_table(four, ["Ann", "Bo", "Cy", "Di"])
        assert table.cat_rows_kept() == 2
        table.keep_cat_rows(1)
        table.draw_table(two, ["Ann", "Bo"])
        table.draw_table(four, ["Ann", "Bo", "Cy", "Di"])
        assert table.cat_rows_kept() == 1
    finally:
        table.keep_cat_rows(0)
    assert table.cat_rows_kept() == 0
