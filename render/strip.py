"""The hand and market strip: tiles numbered like the bot's buttons (hand 1-2, market 1-3)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

from PIL import Image

from render import sprites, theme
from render.common import badge, panel, paste_at, text
from render.glyphs import drawer
from render.sprites import Pen, hex_points, sprite_size

STRIP_RADIUS = 40


@lru_cache(maxsize=16)
def empty_slot_sprite(radius: int) -> Image.Image:
    """An empty market slot (the bag ran out)."""
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    pen.poly(hex_points(1.0 - sprites.SEAM), fill=(*theme.EMPTY_DIM, 255))
    sprites.running_stitch(pen, 0.86, theme.INK_FAINT, 0.03)
    return pen.image()


@lru_cache(maxsize=16)
def bag_sprite(radius: int) -> Image.Image:
    """The cloth bag the tiles come from."""
    size = 2 * radius + 4
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    cloth = (190, 150, 104)
    dark = theme.mix(cloth, theme.INK, 0.45)
    # Sides flare out from the tied neck into a round bottom.
    bottom = [(0.88 * math.cos(t), 0.22 + 0.7 * math.sin(t))
              for t in (math.pi * (1 - i / 30) for i in range(31))]
    body = [(-0.32, -0.42), (-0.8, -0.05), *bottom[::-1], (0.8, -0.05), (0.32, -0.42)]
    pen.poly(body, fill=cloth, outline=dark, width=0.06)
    pen.poly([(-0.5, -0.95), (0.5, -0.95), (0.3, -0.45), (-0.3, -0.45)], fill=cloth,
             outline=dark, width=0.06)
    pen.line([(-0.42, -0.45), (0.42, -0.45)], fill=dark, width=0.1)
    return pen.image()


def strip_size(hand_len: int, width: int | None, radius: int = STRIP_RADIUS,
               bag: bool = True) -> tuple[int, int]:
    slot = sprites.SQRT3 * radius + radius * 0.42
    pad = radius * 0.4
    w = 0.0
    if hand_len:
        w += hand_len * slot + 2 * pad + radius * 0.4
    w += 3 * slot + 2 * pad + (radius * 1.5 if bag else 0)
    w += radius * 0.6
    height = round(radius * 3.5)
    return max(width or 0, math.ceil(w)), height


def draw_strip(
    hand: Sequence[int],
    market: Sequence[int | None],
    *,
    width: int | None = None,
    bag_count: int | None = None,
    selected: int | None = None,
    last_turn: bool = False,
    labels: Mapping[str, str] | None = None,
    radius: int = STRIP_RADIUS,
    background: tuple[int, int, int] = theme.BACKGROUND,
    text_scale: float = 1.0,
) -> Image.Image:
    """Hand tiles (dark badges 1, 2) and market tiles (terracotta badges 1-3) side by side.

    ``last_turn``: the player's 22nd turn, which takes nothing from the market, so the market
    is shown faded, without numbers, under the words for "last tile". ``text_scale`` enlarges
    the words and numbers alone (a strip in a wider picture, whose tiles keep a radius whose
    sprites are already drawn).
    """
    w, h = strip_size(len(hand), width, radius, bag_count is not None)
    img = Image.new("RGB", (w, h), background)
    slot = sprites.SQRT3 * radius + radius * 0.42
    pad = radius * 0.4
    gap = radius * 0.4
    hand_w = len(hand) * slot + 2 * pad if hand else 0.0
    market_w = 3 * slot + 2 * pad + (radius * 1.5 if bag_count is not None else 0)
    total = hand_w + market_w + (gap if hand else 0)
    x = (w - total) / 2
    top = radius * 0.2
    bottom = h - radius * 0.25
    tile_y = top + radius * 0.75 + radius * 1.05
    if hand:
        _group(img, (x, top, x + hand_w, bottom), theme.label(labels, "hand"), radius,
               text_scale=text_scale)
        for i, tile in enumerate(hand):
            cx = x + pad + slot * (i + 0.5)
            if selected == i:
                paste_at(img, _selected_ring(radius), (cx, tile_y))
            paste_at(img, sprites.placed_sprite(tile, radius), (cx, tile_y))
            badge(img, (cx, tile_y + radius * 0.98), str(i + 1), radius * 0.36 * text_scale)
        x += hand_w + gap
    title = theme.label(labels, "last_turn" if last_turn else "market")
    _group(img, (x, top, x + market_w, bottom), title, radius,
           ink=theme.ACCENT if last_turn else theme.INK_SOFT, text_scale=text_scale)
    for i, t in enumerate(market[:3]):
        cx = x + pad + slot * (i + 0.5)
        if t is None:
            paste_at(img, empty_slot_sprite(radius), (cx, tile_y))
        elif last_turn:
            paste_at(img, _faded_sprite(t, radius), (cx, tile_y))
        else:
            paste_at(img, sprites.placed_sprite(t, radius), (cx, tile_y))
            badge(img, (cx, tile_y + radius * 0.98), str(i + 1), radius * 0.36 * text_scale,
                  fill=theme.ACCENT)
    if bag_count is not None:
        bx = x + pad + 3 * slot + radius * 0.6
        paste_at(img, bag_sprite(round(radius * 0.55)), (bx, tile_y - radius * 0.1))
        f = theme.font(max(8, round(radius * 0.45 * text_scale)), theme.BLACK)
        drawer(img).text((bx, tile_y + radius * 0.14), str(bag_count), font=f,
                         fill=theme.INK, anchor="mm")
    return img


def _group(img: Image.Image, box: tuple[float, float, float, float], title: str,
           radius: int, ink: tuple[int, int, int] = theme.INK_SOFT,
           text_scale: float = 1.0) -> None:
    panel(img, box, radius=radius * 0.35, stitch=False)
    x0, y0, x1, _ = box
    text(img, (x0 + radius * 0.35, y0 + radius * 0.5), title,
         max(9, round(radius * 0.46 * text_scale)), weight=theme.BOLD, fill=ink, anchor="lm",
         max_w=x1 - x0 - radius * 0.6)


@lru_cache(maxsize=64)
def _faded_sprite(tile: int, radius: int) -> Image.Image:
    sp = sprites.tile_sprite(tile, radius).copy()
    sp.putalpha(sp.getchannel("A").point(lambda v: v * 40 // 100))
    return sp


@lru_cache(maxsize=16)
def _selected_ring(radius: int) -> Image.Image:
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    pen.poly(hex_points(1.12), fill=theme.ACCENT)
    return pen.image()
