"""The ``/calico rules`` pictures: ten cat cards with their points and needs, the six goal
tiles with their values, buttons and the rainbow; words from the labels."""

from __future__ import annotations

import pytest

from data import load_catalog
from render import RULES_TOPICS, render_rules, theme
from render.rules import CAT_COLUMNS, GOAL_CARD_H, GOAL_COLUMNS, MARGIN, TITLE_H, cat_card_positions
from render.table import CARD_H, NEED_Y

from .helpers import dark_pixels, decode, diff_bbox, share_near

CATALOG = load_catalog()


def test_cats_picture_has_ten_cards_paired_by_points() -> None:
    img = decode(render_rules("cats"))
    places = cat_card_positions()
    assert img.width == 800
    assert img.height > TITLE_H + 5 * CARD_H
    assert sorted(cat for cat, _ in places) == sorted(CATALOG.cats)
    card_w = (img.width - 2 * MARGIN - 12) // CAT_COLUMNS
    rows: dict[int, list[str]] = {}
    for cat_id, (x, y) in places:
        cat = CATALOG.cats[cat_id]
        rows.setdefault(y, []).append(cat_id)
        card = (x, y, x + card_w, y + CARD_H)
        assert share_near(img, card, theme.PANEL, tol=12) > 0.4, cat_id  # a card is there
        # The points pill (dark) at its top right, with the number in it.
        pill = (x + card_w - 60, y + 26, x + card_w - 18, y + 58)
        assert share_near(img, pill, theme.INK, tol=20) > 0.4, cat_id
        # The need on the left of the lower half: the pale size hex, or the shape's hexes.
        need = (x + round(card_w * 0.27) - 30, y + NEED_Y - 20,
                x + round(card_w * 0.27) + 30, y + NEED_Y + 20)
        if cat.need == "size":
            assert share_near(img, need, theme.LEGAL_FILL, tol=12) > 0.2, cat_id
        else:
            assert share_near(img, need, theme.INK_SOFT, tol=20) > 0.2, cat_id
        # Words on the right of the lower half.
        words = (x + card_w // 2 + 20, y + NEED_Y - 30, x + card_w - 16, y + NEED_Y + 30)
        assert dark_pixels(img, words, below=150) > 100, cat_id
    # Each row holds a size cat and a shape cat worth the same (a cat and its back).
    for ids in rows.values():
        cats = [CATALOG.cats[i] for i in ids]
        assert {c.need for c in cats} == {"size", "shape"}
        assert len({c.points for c in cats}) == 1


def test_goals_picture_has_the_six_tiles() -> None:
    img = decode(render_rules("goals"))
    assert img.width == 800 and img.height > TITLE_H + 2 * GOAL_CARD_H
    card_w = (img.width - 2 * MARGIN - (GOAL_COLUMNS - 1) * 12) / GOAL_COLUMNS
    for i in range(len(CATALOG.goals)):
        row, col = divmod(i, GOAL_COLUMNS)
        cx = round(MARGIN + col * (card_w + 12) + card_w / 2)
        top = TITLE_H + row * (GOAL_CARD_H + 12)
        tile = (cx - 30, top + 40, cx + 30, top + 120)
        assert share_near(img, tile, theme.GOAL_FILL, tol=10) > 0.3, i
        values = (round(cx + card_w / 2) - 50, top + GOAL_CARD_H - 80, round(cx + card_w / 2)
                  - 16, top + GOAL_CARD_H - 20)
        assert dark_pixels(img, values) > 50, i  # the two values, big and dark


def test_buttons_picture_shows_the_rainbow() -> None:
    img = decode(render_rules("buttons"))
    assert img.width == 800
    colours = {c for _, c in img.getcolors(img.width * img.height) or []}
    palette = [fabric for fabric, _ in theme.tile_palette()]
    for fabric in palette:  # a button of every colour
        assert any(sum(abs(a - b) for a, b in zip(c, fabric, strict=True)) < 12
                   for c in colours), fabric


@pytest.mark.parametrize("topic", RULES_TOPICS)
def test_labels_only_change_the_words(topic: str) -> None:
    english = decode(render_rules(topic))
    words = dict.fromkeys(theme.DEFAULT_LABELS, "Ééé " * 3)
    other = decode(render_rules(topic, labels=words))
    assert other.size == english.size
    box = diff_bbox(english, other)
    assert box is not None  # the title at least
    assert box[1] < TITLE_H


def test_unknown_topic_is_refused() -> None:
    with pytest.raises(ValueError, match="cats"):
        render_rules("turn")
