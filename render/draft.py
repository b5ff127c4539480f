"""The goal draft: the four offered design goal tiles, numbered, each with an example."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from PIL import Image

from data import load_catalog
from engine.config import GameConfig
from engine.views import SeatView
from render import sprites, theme
from render.common import badge, panel, paste_at, text
from render.geometry import quilt_layout
from render.quilt import draw_quilt

WIDTH = 800
MARGIN = 16
GOAL_RADIUS = 58
BOARD_RADIUS = 36  # the board under the offer: its cell names must read on a phone
# Colours for the examples, picked far apart in lightness: yellow, dark blue, magenta, green,
# light blue, purple.
_EXAMPLE_COLORS = (5, 0, 3, 1, 2, 4)


@lru_cache(maxsize=32)
def example_ring(counts: tuple[int, ...], radius: int) -> Image.Image:
    """Six little hexes around a goal, coloured to show one way of meeting ``counts``."""
    w = sprites.SQRT3
    # The six neighbours clockwise from the top right, in hex units.
    ring = [(w / 2, -1.5), (w, 0.0), (w / 2, 1.5), (-w / 2, 1.5), (-w, 0.0), (-w / 2, -1.5)]
    colours: list[int] = []
    for g, n in enumerate(sorted(counts, reverse=True)):
        colours += [_EXAMPLE_COLORS[g]] * n
    size = round(radius * 2 * (w + 1)) + 4
    pen = sprites.Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    palette = theme.tile_palette()
    for (x, y), ci in zip(ring, colours, strict=False):
        pen.poly([(x + hx, y + hy) for hx, hy in sprites.hex_points(0.92)], fill=palette[ci][0],
                 outline=theme.mix(palette[ci][0], theme.INK, 0.4), width=0.08)
    pen.poly(sprites.hex_points(0.92), fill=theme.GOAL_FILL, outline=theme.GOAL_FRAME, width=0.1)
    return pen.image()


def goal_card(img: Image.Image, box: tuple[float, float, float, float], symbol: str,
              counts: tuple[int, ...], one_way: int, both_ways: int,
              labels: Mapping[str, str] | None, *, number: int | None = None) -> None:
    """A design goal on a card (``box`` = x, y, width, height): the tile, its ``number`` badge
    (as the bot's buttons number the offer), a ring of neighbours meeting it, and its two
    values with their words."""
    x0, y0, card_w, card_h = box
    panel(img, (x0, y0, x0 + card_w, y0 + card_h), radius=16)
    cx = x0 + card_w / 2
    gy = y0 + 20 + GOAL_RADIUS
    paste_at(img, sprites.shadow_sprite(GOAL_RADIUS), (cx, gy))
    paste_at(img, sprites.goal_sprite(symbol, one_way, both_ways, GOAL_RADIUS), (cx, gy))
    if number is not None:
        badge(img, (cx, gy + GOAL_RADIUS + 4), str(number), 17)
    paste_at(img, example_ring(counts, 15), (cx, gy + GOAL_RADIUS + 86))
    # Values as two rows, label left and points right, so long words still fit.
    for row, (key, value, ink) in enumerate((("one_way", one_way, theme.INK_SOFT),
                                             ("both_ways", both_ways, theme.INK))):
        vy = y0 + card_h - 64 + row * 32
        text(img, (x0 + 18, vy), theme.label(labels, key), 17, weight=theme.BOLD,
             fill=theme.INK_SOFT, anchor="lm", max_w=card_w - 80)
        text(img, (x0 + card_w - 18, vy), str(value), 26, weight=theme.BLACK, fill=ink,
             anchor="rm")


def draw_draft(
    offer: Sequence[str],
    config: GameConfig,
    *,
    seat: SeatView | None = None,
    labels: Mapping[str, str] | None = None,
    width: int = WIDTH,
) -> Image.Image:
    """The goal tiles offered (numbered 1-4 like the bot's buttons), and, given ``seat``, the
    player's board with the three spots (B3, C4, D2) they go on."""
    symbols = {g.id: g.symbol for g in load_catalog().goals.values()}
    n = max(1, len(offer))
    title_h = 60
    card_w = (width - 2 * MARGIN - (n - 1) * 12) / n
    card_h = 350
    board_h = 0
    if seat is not None:
        board_h = quilt_layout(BOARD_RADIUS, header=False).size[1] + 12
    img = Image.new("RGB", (width, title_h + card_h + board_h + MARGIN), theme.BACKGROUND)
    text(img, (width / 2, title_h * 0.55), theme.label(labels, "choose_goals"), 32,
         weight=theme.BLACK, anchor="mm", max_w=width - 2 * MARGIN)
    for k, gid in enumerate(offer):
        rule = config.goal(gid)
        x0 = MARGIN + k * (card_w + 12)
        goal_card(img, (x0, float(title_h), card_w, card_h), symbols.get(gid, gid),
                  rule.counts, rule.one_way, rule.both_ways, labels, number=k + 1)
    if seat is not None:
        q = draw_quilt(seat, config, radius=BOARD_RADIUS, header=False, hints=False)
        img.paste(q, (round((width - q.width) / 2), title_h + card_h + 10))
    return img
