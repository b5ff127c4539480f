"""Pictures for ``/calico rules``: the ten cats, the six design goals, buttons and the rainbow.

They show the game's pieces, not a game, so they take no view: only the catalogue and the
reader's words (``labels``). The cards are the very ones the table and the goal draft draw
(:func:`render.table.cat_card_base`, :func:`render.draft.goal_card`), so a player learns the
look they will meet in play.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from PIL import Image

from data import load_catalog
from render import sprites, theme
from render.common import panel, paste_at, text, wrap
from render.draft import goal_card
from render.glyphs import drawer
from render.table import CARD_H, NEED_Y, cat_card_base

WIDTH = 800
MARGIN = 16
GAP = 12
TITLE_H = 60
NOTE_H = 56
CAT_COLUMNS = 2  # size cats on the left, shape cats on the right, rows by points
GOAL_COLUMNS = 3
GOAL_CARD_H = 350


def _canvas(height: int, title: str, width: int) -> Image.Image:
    img = Image.new("RGB", (width, height), theme.BACKGROUND)
    text(img, (width / 2, TITLE_H * 0.55), title, 32, weight=theme.BLACK, anchor="mm",
         max_w=width - 2 * MARGIN)
    return img


def _paragraph(img: Image.Image, x: float, cy: float, words: str, max_w: float, *,
               size: int = 17, max_lines: int = 3, anchor: str = "l") -> None:
    """``words`` wrapped into at most ``max_lines`` lines (the font shrinks to fit, down to
    three quarters of ``size``), centred vertically on ``cy``."""
    smallest = max(8, round(size * 0.75))
    lines = wrap(words, theme.font(size, theme.BOLD), max_w)
    while len(lines) > max_lines and size > smallest:
        size -= 1
        lines = wrap(words, theme.font(size, theme.BOLD), max_w)
    lines = lines[:max_lines]
    step = size * 1.2
    y = cy - (len(lines) - 1) * step / 2
    for line in lines:
        text(img, (x, y), line, size, weight=theme.BOLD, fill=theme.INK_SOFT,
             anchor=anchor + "m", max_w=max_w)
        y += step


# --------------------------------------------------------------------------- cats


def cat_card_positions(width: int = WIDTH) -> list[tuple[str, tuple[int, int]]]:
    """(cat id, top-left corner) of each cat's card: size cats in the left column, shape cats
    in the right one, each row one value of points (a cat and the one on its back)."""
    cats = sorted(load_catalog().cats.values(), key=lambda c: (c.points, c.need != "size"))
    card_w = (width - 2 * MARGIN - (CAT_COLUMNS - 1) * GAP) // CAT_COLUMNS
    out = []
    for i, cat in enumerate(cats):
        row, col = divmod(i, CAT_COLUMNS)
        out.append((cat.id, (MARGIN + col * (card_w + GAP), TITLE_H + row * (CARD_H + GAP))))
    return out


def draw_rules_cats(labels: Mapping[str, str] | None = None, *,
                    width: int = WIDTH) -> Image.Image:
    """The ten cats: each with its points and its need (a size, or a shape drawn as hexes),
    and a word on what that means."""
    catalog = load_catalog()
    places = cat_card_positions(width)
    rows = -(-len(places) // CAT_COLUMNS)
    card_w = (width - 2 * MARGIN - (CAT_COLUMNS - 1) * GAP) // CAT_COLUMNS
    height = TITLE_H + rows * (CARD_H + GAP) + NOTE_H + MARGIN
    img = _canvas(height, theme.label(labels, "rules_cats"), width)
    for cat_id, (x, y) in places:
        cat = catalog.cats[cat_id]
        shape = tuple((q, r) for q, r in cat.shape or ())
        card = cat_card_base(cat.id, cat.points, cat.min_size or 0, shape, card_w)
        words = theme.label(labels, "need_shape" if shape else "need_size")
        left = card_w * 0.52
        _paragraph(card, left, NEED_Y, words, card_w - 16 - left)
        img.paste(card, (x, y), card)
    note_y = TITLE_H + rows * (CARD_H + GAP) + NOTE_H / 2 - 4
    _paragraph(img, width / 2, note_y, theme.label(labels, "cats_note"), width - 2 * MARGIN,
               size=19, max_lines=2, anchor="m")
    return img


# --------------------------------------------------------------------------- goals


def draw_rules_goals(labels: Mapping[str, str] | None = None, *,
                     width: int = WIDTH) -> Image.Image:
    """The six design goal tiles, each with its two values and a ring of neighbours that
    meets it."""
    goals = list(load_catalog().goals.values())
    rows = -(-len(goals) // GOAL_COLUMNS)
    card_w = (width - 2 * MARGIN - (GOAL_COLUMNS - 1) * GAP) / GOAL_COLUMNS
    height = TITLE_H + rows * (GOAL_CARD_H + GAP) + NOTE_H + MARGIN
    img = _canvas(height, theme.label(labels, "rules_goals"), width)
    for i, goal in enumerate(goals):
        row, col = divmod(i, GOAL_COLUMNS)
        box = (MARGIN + col * (card_w + GAP), TITLE_H + row * (GOAL_CARD_H + GAP), card_w,
               GOAL_CARD_H)
        goal_card(img, box, goal.symbol, tuple(sorted(goal.counts, reverse=True)),
                  goal.one_way, goal.both_ways, labels)
    note_y = TITLE_H + rows * (GOAL_CARD_H + GAP) + NOTE_H / 2 - 4
    _paragraph(img, width / 2, note_y, theme.label(labels, "goals_note"), width - 2 * MARGIN,
               size=19, max_lines=2, anchor="m")
    return img


# --------------------------------------------------------------------------- buttons

BUTTON_ROW_H = 150


def draw_rules_buttons(labels: Mapping[str, str] | None = None, *,
                       width: int = WIDTH) -> Image.Image:
    """Three touching patches of one colour sew a button (3 points); buttons in all six
    colours add the rainbow button (3 more)."""
    height = TITLE_H + 2 * (BUTTON_ROW_H + GAP) + MARGIN
    img = _canvas(height, theme.label(labels, "rules_buttons"), width)
    for row, (draw, key) in enumerate(((_group_row, "button_group"),
                                       (_rainbow_row, "button_rainbow"))):
        y = TITLE_H + row * (BUTTON_ROW_H + GAP)
        panel(img, (MARGIN, y, width - MARGIN, y + BUTTON_ROW_H), radius=16)
        cy = y + BUTTON_ROW_H / 2
        right = draw(img, cy)
        _points_pill(img, (width - MARGIN - 56, cy), "+3")
        _paragraph(img, right + 24, cy, theme.label(labels, key),
                   width - MARGIN - 112 - (right + 24), size=19)
    return img


def _group_row(img: Image.Image, cy: float) -> float:
    """Three touching yellow patches (three patterns) with a yellow button on them."""
    r = 34
    w = sprites.SQRT3 * r
    yellow = 5
    x0 = MARGIN + 24 + w / 2
    spots = ((x0, cy - 0.75 * r), (x0 + w, cy - 0.75 * r), (x0 + w / 2, cy + 0.75 * r))
    for k, at in enumerate(spots):
        paste_at(img, sprites.tile_sprite(yellow * 6 + k * 2, r), at)
    paste_at(img, sprites.button_token(yellow, 17), (x0 + w / 2, cy - 0.25 * r))
    return x0 + 1.5 * w


def _rainbow_row(img: Image.Image, cy: float) -> float:
    """The six colours' buttons, then the rainbow button they earn."""
    tok = 17
    x = MARGIN + 24 + tok
    for color in range(6):
        paste_at(img, sprites.button_token(color, tok), (x, cy))
        x += 2 * tok + 6
    paste_at(img, sprites.arrow_sprite(14), (x + 12, cy))
    x += 40 + 26
    paste_at(img, sprites.button_token(-1, 26), (x, cy))
    return x + 26


def _points_pill(img: Image.Image, at: tuple[float, float], points: str) -> None:
    d = drawer(img)
    x, y = at
    d.rounded_rectangle((x - 38, y - 24, x + 38, y + 24), radius=24, fill=theme.INK)
    d.text((x, y), points, font=theme.font(28, theme.BLACK), fill=theme.SEAM, anchor="mm")


# --------------------------------------------------------------------------- by topic

RULES_PICTURES: Final[Mapping[str, Callable[..., Image.Image]]] = {
    "cats": draw_rules_cats,
    "goals": draw_rules_goals,
    "buttons": draw_rules_buttons,
}
__all__ = ["RULES_PICTURES", "cat_card_positions", "draw_rules_buttons",
           "draw_rules_cats", "draw_rules_goals"]
