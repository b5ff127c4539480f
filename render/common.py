"""Small drawing helpers shared by every image: pasting sprites, text, panels, badges, chips."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw
from PIL.ImageFont import FreeTypeFont

from render import script, sprites, theme
from render.glyphs import drawer
from render.theme import RGB


def paste_at(img: Image.Image, sprite: Image.Image, at: tuple[float, float]) -> None:
    """Paste ``sprite`` centred on ``at`` (through its alpha when it has one)."""
    x = round(at[0] - sprite.width / 2)
    y = round(at[1] - sprite.height / 2)
    img.paste(sprite, (x, y), sprite if sprite.mode == "RGBA" else None)


def fit(text: str, f: FreeTypeFont, max_w: float) -> str:
    """``text`` cut with an ellipsis so it fits ``max_w`` px in font ``f``."""
    if f.getlength(text) <= max_w:
        return text
    while text and f.getlength(text + "…") > max_w:
        text = text[:-1]
    return text + "…"


def fit_font(text: str, max_w: float, size: int, weight: int, min_size: int = 8) -> FreeTypeFont:
    """The largest font up to ``size`` in which ``text`` fits ``max_w`` (or the smallest)."""
    while size > min_size:
        f = theme.font(size, weight)
        if f.getlength(text) <= max_w:
            return f
        size -= 1
    return theme.font(min_size, weight)


def panel(img: Image.Image, box: tuple[float, float, float, float], *, fill: RGB = theme.PANEL,
          edge: RGB = theme.INK_FAINT, radius: float = 14, stitch: bool = True) -> None:
    """A soft fabric card with a drop shadow and, optionally, a running stitch inside its edge."""
    x0, y0, x1, y1 = box
    card = panel_sprite(round(x1 - x0), round(y1 - y0), fill, edge, round(radius), stitch)
    img.paste(card, (round(x0), round(y0)), card)


@lru_cache(maxsize=64)
def panel_sprite(w: int, h: int, fill: RGB, edge: RGB, radius: int, stitch: bool) -> Image.Image:
    k = 2
    big = Image.new("RGBA", ((w + 8) * k, (h + 8) * k), (0, 0, 0, 0))
    d = drawer(big)
    d.rounded_rectangle((0, 3 * k, w * k, (h + 3) * k), radius * k, fill=(70, 45, 25, 38))
    d.rounded_rectangle((0, 0, w * k, h * k), radius * k, fill=fill)
    if stitch:
        inset = 6 * k
        r = max(0, radius * k - inset)
        stitch_rect(d, (inset, inset, w * k - inset, h * k - inset), r, 9 * k, 6 * k, edge,
                    2 * k)
    return big.reduce(k)


def dashed(d: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float],
           dash: float, gap: float, fill: RGB, width: int) -> None:
    """A running stitch from ``a`` to ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = (dx * dx + dy * dy) ** 0.5
    if length == 0:
        return
    ux, uy = dx / length, dy / length
    pos = 0.0
    while pos < length:
        e = min(length, pos + dash)
        d.line([(a[0] + ux * pos, a[1] + uy * pos), (a[0] + ux * e, a[1] + uy * e)],
               fill=fill, width=width)
        pos += dash + gap


def stitch_rect(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], corner: float,
                dash: float, gap: float, fill: RGB, width: int) -> None:
    """Running stitches along the straight sides of a rounded rectangle."""
    x0, y0, x1, y1 = box
    r = corner
    for a, b in (((x0 + r, y0), (x1 - r, y0)), ((x0 + r, y1), (x1 - r, y1)),
                 ((x0, y0 + r), (x0, y1 - r)), ((x1, y0 + r), (x1, y1 - r))):
        dashed(d, a, b, dash, gap, fill, width)


def badge(img: Image.Image, at: tuple[float, float], text: str, r: float, *,
          fill: RGB = theme.INK, ink: RGB = theme.SEAM) -> None:
    """A round numbered badge (the numbers match the bot's buttons)."""
    d = drawer(img)
    x, y = at
    d.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=theme.SEAM)
    d.ellipse((x - r, y - r, x + r, y + r), fill=fill)
    f = theme.font(max(8, round(r * 1.25)), theme.BLACK)
    d.text((x, y + r * 0.04), text, font=f, fill=ink, anchor="mm")


def score_chips(img: Image.Image, right: float, cy: float, r: float,
                score: Mapping[str, object], *, draw: bool = True) -> float:
    """Draw ``[cat] n  [button] n  (total)`` ending at ``right``; return where it starts
    (``draw=False``: only where it would start)."""
    total = _int(score.get("total"))
    cats = _int(score.get("cat_tokens"))
    buttons = _int(score.get("button_tokens"))
    f = theme.font(max(9, round(r * 1.3)), theme.BLACK)
    fs = theme.font(max(9, round(r * 1.15)), theme.BOLD)
    tw = f.getlength(str(total))
    x1 = right
    x0 = x1 - max(tw + r * 1.4, r * 2.1)
    d = drawer(img)
    if draw:
        d.rounded_rectangle((x0, cy - r * 1.05, x1, cy + r * 1.05), radius=r * 1.05,
                            fill=theme.INK)
        d.text(((x0 + x1) / 2, cy), str(total), font=f, fill=theme.SEAM, anchor="mm")
    x = x0 - r * 0.6
    tok = max(4, round(r * 0.8))
    for sprite, n in ((sprites.button_token(5, tok), buttons),
                      (sprites.cat_token(None, tok), cats)):
        text = str(n)
        if draw:
            d.text((x, cy), text, font=fs, fill=theme.INK_SOFT, anchor="rm")
        x -= fs.getlength(text) + r * 0.3 + tok
        if draw:
            paste_at(img, sprite, (x, cy))
        x -= tok + r * 0.7
    return x


def _int(v: object) -> int:
    try:
        return int(str(v))
    except ValueError:
        return 0


def text(img: Image.Image, at: tuple[float, float], s: str, size: int, *,
         weight: int = theme.BOLD, fill: RGB = theme.INK, anchor: str = "la",
         max_w: float | None = None) -> float:
    """Draw ``s``, in any script (:mod:`render.script`: names people chose). With ``max_w``,
    shrink it (to three quarters of ``size`` at most, so it stays readable) and then cut it
    with an ellipsis. Returns its width."""
    if max_w is not None:
        floor = max(8, round(size * 0.75))
        width = script.length(s, size, weight)
        if width > max_w and not script.simple(script.clean(s)):
            # Widths grow with the size: start near the size that fits, so that few sizes of
            # a fallback font are opened (each is a FreeType face of its own).
            size = max(floor, min(size, int(size * max_w / width) + 1))
        while size > floor and script.length(s, size, weight) > max_w:
            size -= 1
        s = script.fit(s, size, weight, max_w)
    return script.draw(drawer(img), at, s, size, weight, fill, anchor)


def cat_need(img: Image.Image, min_size: int, shape: Sequence[tuple[int, int]],
             at: tuple[float, float], max_w: float, *, hex_radius: int = 36,
             max_cell: int = 16) -> None:
    """What a cat needs, centred on ``at``: its shape as little hexes (at most ``max_w`` px
    wide), or, for a size cat, ``min_size+`` on a pale hex of ``hex_radius``."""
    if shape:
        xs = [q + r / 2 for q, r in shape]
        units = (max(xs) - min(xs) + 1) * math.sqrt(3)
        cell_r = max(6, min(max_cell, int(max_w / units)))
        paste_at(img, sprites.shape_sprite(tuple(shape), cell_r), at)
        return
    paste_at(img, sprites.size_hex_sprite(hex_radius), at)
    f = theme.font(round(hex_radius * 30 / 36), theme.BLACK)
    drawer(img).text((at[0], at[1] + 1), f"{min_size}+", font=f, fill=theme.INK,
                     anchor="mm")


def wrap(s: str, f: FreeTypeFont, max_w: float) -> list[str]:
    """``s`` broken into lines at spaces so each fits ``max_w`` px in font ``f``."""
    lines: list[str] = []
    for word in s.split():
        if lines and f.getlength(lines[-1] + " " + word) <= max_w:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
