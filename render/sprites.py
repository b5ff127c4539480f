"""Tile, pattern, symbol, goal and token sprites: drawn once, supersampled, cached by their key.

Every sprite is a square RGBA image centred on its hex (or token), returned from an lru_cache:
callers paste from it and never draw on it, which keeps the caches safe to share between
threads. A tile that only goes into another cached picture is drawn afresh (:func:`draw_tile`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter

from data import load_catalog
from render import theme
from render.glyphs import drawer
from render.theme import RGB

SUPERSAMPLE = 4
SQRT3 = math.sqrt(3.0)
Point = tuple[float, float]
Ink = float | tuple[int, ...] | None


class Pen:
    """Draws in unit coordinates (the hex or token radius is 1, the centre 0, 0) on a
    supersampled square canvas; ``image()`` gives it back at the final size."""

    def __init__(self, size: int, unit: float, background: float | tuple[int, ...],
                 mode: str = "RGB") -> None:
        self.size = size
        self.k = unit * SUPERSAMPLE
        self.c = size * SUPERSAMPLE / 2
        self.img = Image.new(mode, (size * SUPERSAMPLE, size * SUPERSAMPLE), background)
        self.draw = drawer(self.img)

    def p(self, x: float, y: float) -> tuple[float, float]:
        return self.c + x * self.k, self.c + y * self.k

    def circle(self, x: float, y: float, r: float, fill: Ink = None,
               outline: Ink = None, width: float = 0) -> None:
        cx, cy = self.p(x, y)
        rr = r * self.k
        self.draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=fill, outline=outline,
                          width=max(0, round(width * self.k)))

    def poly(self, pts: Iterable[Point], fill: Ink = None, outline: Ink = None,
             width: float = 0) -> None:
        xy = [self.p(x, y) for x, y in pts]
        self.draw.polygon(xy, fill=fill, outline=outline, width=max(0, round(width * self.k)))

    def line(self, pts: Sequence[Point], fill: Ink, width: float) -> None:
        w = max(1, round(width * self.k))
        self.draw.line([self.p(x, y) for x, y in pts], fill=fill, width=w, joint="curve")
        # Round caps, so thick lines look sewn rather than cut.
        for x, y in (pts[0], pts[-1]):
            self.circle(x, y, width / 2, fill=fill)

    def ellipse(self, x: float, y: float, rx: float, ry: float, angle: float,
                fill: Ink) -> None:
        """An ellipse turned by ``angle`` radians (as a polygon: ImageDraw cannot rotate)."""
        ca, sa = math.cos(angle), math.sin(angle)
        pts = []
        for i in range(28):
            t = 2 * math.pi * i / 28
            ex, ey = rx * math.cos(t), ry * math.sin(t)
            pts.append((x + ex * ca - ey * sa, y + ex * sa + ey * ca))
        self.poly(pts, fill=fill)

    def image(self) -> Image.Image:
        return self.img.reduce(SUPERSAMPLE)


def hex_points(r: float) -> list[Point]:
    return [(r * math.sin(math.radians(60 * i)), -r * math.cos(math.radians(60 * i)))
            for i in range(6)]


def sprite_size(radius: int) -> int:
    """Side of the square canvas a hex sprite of ``radius`` is drawn on (room for a glow)."""
    return 2 * radius + 8


# --------------------------------------------------------------------------- patterns
# Each pattern fills the whole unit square around the hex in the motif colour; the hex
# mask trims it. Shapes are chosen to differ in kind (round, linear, leafy, lattice) so
# they stay apart at thumbnail size and in greyscale.

def _dots(pen: Pen, fg: RGB, bg: RGB) -> None:
    for row in range(-4, 5):
        y = row * 0.34
        shift = 0.2 if row & 1 else 0.0
        for col in range(-4, 5):
            pen.circle(col * 0.4 + shift, y, 0.105, fill=fg)


def _stripes(pen: Pen, fg: RGB, bg: RGB) -> None:
    period = 0.42
    for i in range(-4, 5):
        x = i * period
        pen.poly([(x - 0.085, -1.2), (x + 0.085, -1.2), (x + 0.085, 1.2), (x - 0.085, 1.2)],
                 fill=fg)
        xm = x + period / 2
        pen.poly([(xm - 0.018, -1.2), (xm + 0.018, -1.2), (xm + 0.018, 1.2),
                  (xm - 0.018, 1.2)], fill=fg)


def _frond(pen: Pen, x0: float, y0: float, length: float, angle: float, fg: RGB) -> None:
    dx, dy = math.cos(angle), math.sin(angle)
    pen.line([(x0, y0), (x0 + dx * length, y0 + dy * length)], fill=fg, width=0.04)
    n = 6
    for i in range(n):
        t = 0.08 + i * (length - 0.12) / n
        px, py = x0 + dx * t, y0 + dy * t
        size = 0.26 * (1 - 0.55 * i / n)
        for side in (-1, 1):
            a = angle + side * 0.9
            lx, ly = px + math.cos(a) * size * 0.5, py + math.sin(a) * size * 0.5
            pen.ellipse(lx, ly, size * 0.55, size * 0.2, a, fill=fg)
    pen.ellipse(x0 + dx * length, y0 + dy * length, 0.08, 0.045, angle, fill=fg)


def _ferns(pen: Pen, fg: RGB, bg: RGB) -> None:
    angle = -math.radians(60)
    dx, dy = math.cos(angle), math.sin(angle)
    nx, ny = -dy, dx
    for row, off in enumerate((-1.2, -0.6, 0.0, 0.6, 1.2)):
        stagger = 0.55 if row & 1 else 0.0
        for k in range(-2, 2):
            t = k * 1.1 + stagger
            _frond(pen, nx * off + dx * t, ny * off + dy * t, 0.95, angle, fg)


def _flower(pen: Pen, x: float, y: float, r: float, fg: RGB, bg: RGB) -> None:
    for i in range(5):
        a = math.radians(72 * i - 90)
        pen.circle(x + math.cos(a) * r * 0.95, y + math.sin(a) * r * 0.95, r * 0.68, fill=fg)
    pen.circle(x, y, r * 0.5, fill=bg)
    pen.circle(x, y, r * 0.26, fill=fg)


def _flowers(pen: Pen, fg: RGB, bg: RGB) -> None:
    _flower(pen, 0.0, 0.18, 0.3, fg, bg)
    for x, y in ((-0.62, -0.5), (0.62, -0.5), (-0.72, 0.78), (0.72, 0.78), (0.0, -1.05)):
        _flower(pen, x, y, 0.21, fg, bg)
    for x, y in ((-0.55, 0.2), (0.55, 0.2), (-0.25, -0.45), (0.25, -0.45), (0.0, 0.85)):
        pen.circle(x, y, 0.045, fill=fg)


def _quatrefoil_shape(pen: Pen, x: float, y: float, r: float, fg: RGB, bg: RGB) -> None:
    for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
        pen.circle(x + dx * r * 0.55, y + dy * r * 0.55, r * 0.52, fill=fg)
    pen.poly([(x - r * 0.55, y), (x, y - r * 0.55), (x + r * 0.55, y), (x, y + r * 0.55)],
             fill=fg)
    pen.circle(x, y, r * 0.22, fill=bg)


def _quatrefoil(pen: Pen, fg: RGB, bg: RGB) -> None:
    step = 0.66
    for i in range(-2, 3):
        for j in range(-2, 3):
            x, y = i * step, j * step + 0.1
            _quatrefoil_shape(pen, x, y, 0.3, fg, bg)
            cx, cy = x + step / 2, y + step / 2
            pen.poly([(cx - 0.08, cy), (cx, cy - 0.08), (cx + 0.08, cy), (cx, cy + 0.08)],
                     fill=fg)


def _vines(pen: Pen, fg: RGB, bg: RGB) -> None:
    freq = 4.2
    for x0 in (-0.46, 0.46):
        pts = [(x0 + 0.19 * math.sin(y * freq), y)
               for y in (-1.2 + 2.4 * i / 60 for i in range(61))]
        pen.line(pts, fill=fg, width=0.07)
        for i in range(-3, 4):
            # A leaf at each bend, on the outside of the curve, and a curl inside it.
            y = (i * math.pi + math.pi / 2) / freq
            side = 1 if math.sin(y * freq) > 0 else -1
            x = x0 + 0.19 * side
            pen.ellipse(x + side * 0.17, y - 0.07, 0.17, 0.075, -side * 0.6, fill=fg)
            pen.ellipse(x + side * 0.12, y + 0.13, 0.12, 0.055, side * 0.5, fill=fg)
            pen.circle(x - side * 0.15, y + 0.2, 0.075, outline=fg, width=0.04)


PATTERN_DRAWERS: dict[str, Callable[[Pen, RGB, RGB], None]] = {
    "dots": _dots,
    "ferns": _ferns,
    "flowers": _flowers,
    "quatrefoil": _quatrefoil,
    "stripes": _stripes,
    "vines": _vines,
}


# --------------------------------------------------------------------------- colour symbols
# The printed game's colour-blind marks, drawn in a cream badge at the top of each tile.

def draw_symbol(pen: Pen, name: str, x: float, y: float, b: float, ink: RGB, bg: RGB) -> None:
    if name == "moon":
        pen.circle(x, y, 0.8 * b, fill=ink)
        pen.circle(x + 0.38 * b, y - 0.24 * b, 0.7 * b, fill=bg)
    elif name == "drop":
        pts = []
        for i in range(40):
            t = 2 * math.pi * i / 40
            pts.append((x + 0.62 * b * math.sin(t) * math.sin(t / 2) ** 1.3,
                        y + 0.1 * b - 0.82 * b * math.cos(t)))
        pen.poly(pts, fill=ink)
    elif name == "blossom":
        for i in range(5):
            a = math.radians(72 * i - 90)
            pen.circle(x + math.cos(a) * 0.44 * b, y + math.sin(a) * 0.44 * b, 0.34 * b, fill=ink)
        pen.circle(x, y, 0.2 * b, fill=bg)
    elif name == "leaf":
        a = -math.pi / 4
        pts = []
        for i in range(31):
            t = -1 + 2 * i / 30
            pts.append((t, 0.42 * (1 - t * t)))
        for i in range(31):
            t = 1 - 2 * i / 30
            pts.append((t, -0.42 * (1 - t * t)))
        ca, sa = math.cos(a), math.sin(a)
        pen.poly([(x + 0.85 * b * (u * ca - v * sa), y + 0.85 * b * (u * sa + v * ca))
                  for u, v in pts], fill=ink)
        pen.line([(x - 0.55 * b * ca, y - 0.55 * b * sa), (x + 0.95 * b * ca, y + 0.95 * b * sa)],
                 fill=bg, width=0.12 * b)
    elif name == "ring":
        pen.circle(x, y, 0.78 * b, fill=ink)
        pen.circle(x, y, 0.42 * b, fill=bg)
    elif name == "mushroom":
        cap = [(x + 0.82 * b * math.cos(t), y + 0.12 * b - 0.78 * b * math.sin(t))
               for t in (math.pi * i / 24 for i in range(25))]
        pen.poly(cap, fill=ink)
        pen.poly([(x - 0.24 * b, y + 0.1 * b), (x + 0.24 * b, y + 0.1 * b),
                  (x + 0.3 * b, y + 0.82 * b), (x - 0.3 * b, y + 0.82 * b)], fill=ink)
        pen.circle(x - 0.32 * b, y - 0.22 * b, 0.13 * b, fill=bg)
        pen.circle(x + 0.2 * b, y - 0.4 * b, 0.11 * b, fill=bg)
    else:
        pen.circle(x, y, 0.5 * b, fill=ink)


BADGE_Y = -0.66
BADGE_R = 0.21


# --------------------------------------------------------------------------- tiles

def _hex_mask(size: int, radius: float) -> Image.Image:
    pen = Pen(size, 1.0, 0, mode="L")
    pen.poly(hex_points(radius), fill=255)
    return pen.image()


@lru_cache(maxsize=64)
def hex_mask(radius: int, inset: float = 0.0) -> Image.Image:
    """Antialiased hex of ``radius - inset`` px on a sprite canvas."""
    return _hex_mask(sprite_size(radius), radius - inset)


SEAM = 0.045  # gap between neighbouring patches, as a share of the radius


@lru_cache(maxsize=512)
def tile_sprite(tile: int, radius: int, border: bool = False) -> Image.Image:
    """A patch tile (``color * 6 + pattern``) as an RGBA hex of ``radius`` px, cached: for
    pictures that paste a tile alone (a preview, a faded market tile, a rules example). See
    :func:`draw_tile`."""
    return draw_tile(tile, radius, border)


def draw_tile(tile: int, radius: int, border: bool = False) -> Image.Image:
    """A patch tile (``color * 6 + pattern``) as an RGBA hex of ``radius`` px, drawn afresh.

    ``border`` draws the board's printed patch instead: muted toward the linen, with a
    running stitch inside its edge and no shadow, so it never looks like a placed tile.

    Not cached here: most tiles are drawn into another cached picture (a placed tile with its
    shadow, a board's printed border) and never pasted alone; caching those too held two
    copies of every tile at every size (about 5 MB over a soak's mix of pictures).
    """
    color, pattern = divmod(tile, 6)
    fabric, motif = theme.tile_palette()[color]
    patterns = load_catalog().pattern_ids
    if border:
        fabric = theme.mix(fabric, theme.BACKGROUND, 0.5)
        motif = theme.mix(motif, theme.BACKGROUND, 0.5)
    size = sprite_size(radius)
    r = 1.0 - SEAM
    pen = Pen(size, radius, fabric)
    PATTERN_DRAWERS[patterns[pattern]](pen, motif, fabric)
    badge_bg = theme.mix(theme.SEAM, theme.BACKGROUND, 0.4) if border else theme.SEAM
    badge_ink = theme.INK_SOFT if border else theme.INK
    pen.circle(0, BADGE_Y, BADGE_R, fill=badge_bg, outline=theme.mix(fabric, theme.INK, 0.5),
               width=0.025)
    draw_symbol(pen, theme.color_symbols()[color], 0, BADGE_Y, BADGE_R * 0.78, badge_ink,
                badge_bg)
    if border:
        running_stitch(pen, r - 0.1, theme.mix(theme.INK_SOFT, fabric, 0.2), 0.028)
    else:
        pen.poly(hex_points(r - 0.012), outline=theme.mix(fabric, theme.INK, 0.45), width=0.03)
    rgb = pen.image()
    out = rgb.convert("RGBA")
    out.putalpha(_hex_mask(size, radius * r))
    return out


def running_stitch(pen: Pen, r: float, color: RGB, width: float) -> None:
    """A dashed line around a hex of radius ``r``: the quilting stitch."""
    corners = hex_points(r)
    for i in range(6):
        (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 6]
        n = 5
        for k in range(n):
            a = (k + 0.2) / n
            b = (k + 0.7) / n
            pen.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a),
                      (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)], fill=color, width=width)


@lru_cache(maxsize=512)
def placed_sprite(tile: int, radius: int) -> Image.Image:
    """A placed tile with its shadow baked in: one paste per tile instead of two. Pasted in
    row order, each tile covers the shadows that fell on it from the tiles before."""
    out = shadow_sprite(radius).copy()
    out.alpha_composite(draw_tile(tile, radius))
    return out


@lru_cache(maxsize=32)
def shadow_sprite(radius: int) -> Image.Image:
    """A soft shadow under a placed tile, offset down and right so tiles look laid on top."""
    size = sprite_size(radius)
    mask = _hex_mask(size, radius * (1.0 - SEAM))
    shifted = Image.new("L", (size, size), 0)
    off = max(1, round(radius * 0.06))
    shifted.paste(mask, (off // 2, off))
    shifted = shifted.filter(ImageFilter.GaussianBlur(max(1.0, radius * 0.05)))
    shade = Image.new("RGBA", (size, size), (60, 36, 20, 0))
    shade.putalpha(shifted.point(lambda v: v * 45 // 100))
    return shade


# --------------------------------------------------------------------------- tokens


def token_size(radius: float) -> int:
    return 2 * math.ceil(radius) + 4


@lru_cache(maxsize=64)
def cat_token(cat_id: str | None, radius: int) -> Image.Image:
    """A round cardboard token with the face of cat ``cat_id`` in its own colour
    (:func:`render.theme.cat_fur`; None: a cat token in general)."""
    size = token_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    fur = theme.cat_fur(cat_id)
    face = theme.mix(fur, theme.SEAM, 0.6)
    # A dark outline, so that a pale cat (Coconut) still stands out from the cream token.
    edge = theme.mix(fur, theme.INK, 0.6)
    pen.circle(0, 0.06, 1.0, fill=(40, 24, 16, 90))
    pen.circle(0, 0, 1.0, fill=theme.SEAM)
    pen.circle(0, 0, 0.9, fill=theme.INK)
    pen.circle(0, 0, 0.82, fill=(246, 236, 218))
    for side in (-1, 1):
        pen.poly([(side * 0.6, 0.04), (side * 0.53, -0.72), (side * 0.06, -0.38)], fill=edge)
        pen.poly([(side * 0.56, 0.02), (side * 0.5, -0.66), (side * 0.1, -0.36)], fill=fur)
        pen.poly([(side * 0.45, -0.1), (side * 0.44, -0.48), (side * 0.22, -0.3)],
                 fill=(232, 150, 150))
    pen.ellipse(0, 0.12, 0.61, 0.51, 0.0, fill=edge)
    pen.ellipse(0, 0.12, 0.56, 0.46, 0.0, fill=fur)
    pen.ellipse(0, 0.3, 0.26, 0.16, 0.0, fill=face)
    eye = (250, 236, 170) if theme.luma(fur) < 90 else theme.INK
    for side in (-1, 1):
        pen.ellipse(side * 0.22, 0.04, 0.075, 0.1, 0.0, fill=eye)
    pen.poly([(-0.07, 0.2), (0.07, 0.2), (0.0, 0.28)], fill=(214, 110, 120))
    return pen.image()


@lru_cache(maxsize=64)
def button_token(color: int, radius: int) -> Image.Image:
    """A sewn button in colour ``color``; ``color == -1`` draws the rainbow button."""
    size = token_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    pen.circle(0, 0.06, 1.0, fill=(40, 24, 16, 90))
    pen.circle(0, 0, 1.0, fill=theme.SEAM)
    pen.circle(0, 0, 0.88, fill=theme.INK)
    palette = theme.tile_palette()
    if color < 0:
        box = (*pen.p(-0.8, -0.8), *pen.p(0.8, 0.8))
        for i, (fabric, _) in enumerate(palette):
            pen.draw.pieslice(box, -90 + 60 * i, -30 + 60 * i, fill=fabric)
        rim = theme.SEAM
    else:
        fabric = palette[color][0]
        pen.circle(0, 0, 0.8, fill=fabric)
        rim = theme.mix(fabric, theme.INK, 0.35)
    pen.circle(0, 0, 0.58, outline=rim, width=0.08)
    thread = theme.SEAM
    for dx, dy in ((-0.2, -0.2), (0.2, 0.2), (0.2, -0.2), (-0.2, 0.2)):
        pen.circle(dx, dy, 0.11, fill=theme.INK)
    pen.line([(-0.2, -0.2), (0.2, 0.2)], fill=thread, width=0.09)
    pen.line([(0.2, -0.2), (-0.2, 0.2)], fill=thread, width=0.09)
    return pen.image()


# --------------------------------------------------------------------------- goal tiles


@lru_cache(maxsize=64)
def goal_sprite(symbol: str, one_way: int, both_ways: int, radius: int,
                text: bool = True) -> Image.Image:
    """A design goal tile: its symbol (``≠``, ``AAA-BBB``...) and its two values (without
    ``text``: the tile alone, for thumbnails)."""
    size = sprite_size(radius)
    r = 1.0 - SEAM
    pen = Pen(size, radius, theme.GOAL_FILL)
    pen.poly(hex_points(r - 0.02), outline=theme.GOAL_FRAME, width=0.07)
    running_stitch(pen, r - 0.16, theme.INK_FAINT, 0.022)
    img = pen.image().convert("RGBA")
    img.putalpha(_hex_mask(size, radius * r))
    d = drawer(img)
    c = size / 2
    if not text:
        return img  # a thumbnail: too small for words to be read
    lines = symbol_lines(symbol)
    if len(lines) == 1 and len(symbol) <= 2:
        _fit_text(d, symbol, c, c - radius * 0.3, radius * 1.3, round(radius * 0.75), theme.INK)
    else:
        # Long symbols go on two lines split at a dash, big enough to read on a phone.
        size = round(radius * 0.39)
        for i, line in enumerate(lines):
            y = c - radius * (0.46 - 0.37 * i) if len(lines) == 2 else c - radius * 0.3
            _fit_text(d, line, c, y, radius * (1.4 if i == 0 else 1.5), size, theme.INK)
    f = theme.font(max(8, round(radius * 0.39)), theme.BOLD)
    vy = c + radius * 0.3
    d.text((c - radius * 0.34, vy), str(one_way), font=f, fill=theme.INK_SOFT, anchor="mm")
    d.text((c + radius * 0.34, vy), str(both_ways), font=f, fill=theme.INK, anchor="mm")
    d.line([(c, vy - radius * 0.14), (c, vy + radius * 0.14)], fill=theme.INK_FAINT,
           width=max(1, radius // 30))
    return img


@lru_cache(maxsize=16)
def goal_back_sprite(radius: int) -> Image.Image:
    """A face-down goal tile (family variant): quilted backing, nothing to read."""
    size = sprite_size(radius)
    r = 1.0 - SEAM
    back = (214, 196, 170)
    pen = Pen(size, radius, back)
    line = theme.mix(back, theme.INK, 0.25)
    for i in range(-6, 7):
        o = i * 0.32
        pen.line([(o - 1.2, -1.2 * 0.577 * 2), (o + 1.2, 1.2 * 0.577 * 2)], fill=line, width=0.03)
        pen.line([(o + 1.2, -1.2 * 0.577 * 2), (o - 1.2, 1.2 * 0.577 * 2)], fill=line, width=0.03)
    pen.poly(hex_points(r - 0.02), outline=theme.GOAL_FRAME, width=0.07)
    img = pen.image().convert("RGBA")
    img.putalpha(_hex_mask(size, radius * r))
    return img


def symbol_lines(symbol: str) -> list[str]:
    """``AA-BB-C-D`` as ``["AA-BB", "C-D"]``: the split at a dash with the shortest long line."""
    parts = symbol.split("-")
    if len(parts) < 2:
        return [symbol]
    best = min(range(1, len(parts)),
               key=lambda k: max(len("-".join(parts[:k])), len("-".join(parts[k:]))))
    return ["-".join(parts[:best]), "-".join(parts[best:])]


def _fit_text(d: ImageDraw.ImageDraw, text: str, x: float, y: float, max_w: float, size: int,
              fill: RGB, weight: int = theme.BLACK) -> None:
    """Centred text, shrunk until it fits ``max_w``."""
    while size > 7:
        f = theme.font(size, weight)
        if f.getlength(text) <= max_w:
            break
        size -= 1
    d.text((x, y), text, font=theme.font(size, weight), fill=fill, anchor="mm")


@lru_cache(maxsize=32)
def goal_status_icon(kind: str, state: str, radius: int) -> Image.Image:
    """A small disc saying whether a goal is met by colours (``kind="colors"``) or patterns:
    ``state`` is ``met``, ``open`` (still possible) or ``failed``."""
    size = token_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    ring = {"met": theme.GOOD, "failed": theme.BAD}.get(state, theme.INK_FAINT)
    pen.circle(0, 0, 1.0, fill=ring)
    pen.circle(0, 0, 0.78, fill=theme.SEAM)
    if kind == "colors":
        box = (*pen.p(-0.62, -0.62), *pen.p(0.62, 0.62))
        palette = theme.tile_palette()
        for i, ci in enumerate((5, 3, 0)):
            pen.draw.pieslice(box, -90 + 120 * i, 30 + 120 * i, fill=palette[ci][0])
    else:
        for i in range(-2, 3):
            x = i * 0.26
            h = math.sqrt(max(0.0, 0.62**2 - x * x))
            pen.line([(x, -h + 0.06), (x, h - 0.06)], fill=theme.INK_SOFT, width=0.12)
    img = pen.image()
    if state == "open":
        img.putalpha(img.getchannel("A").point(lambda v: v * 55 // 100))
    elif state == "failed":
        d = drawer(img)
        c = size / 2
        k = radius * 0.7
        d.line([(c - k, c + k), (c + k, c - k)], fill=theme.BAD, width=max(2, radius // 4))
    return img


@lru_cache(maxsize=64)
def pattern_sprite(pattern: int, radius: int) -> Image.Image:
    """A pattern alone, dark on cream: the black-and-white pattern tiles dealt to the cats."""
    size = sprite_size(radius)
    r = 1.0 - SEAM
    bg = (250, 244, 230)
    pen = Pen(size, radius, bg)
    PATTERN_DRAWERS[load_catalog().pattern_ids[pattern]](pen, theme.INK_SOFT, bg)
    pen.poly(hex_points(r - 0.02), outline=theme.INK, width=0.06)
    out = pen.image().convert("RGBA")
    out.putalpha(_hex_mask(size, radius * r))
    return out


@lru_cache(maxsize=4)
def arrow_sprite(r: int, fill: RGB = theme.ACCENT) -> Image.Image:
    """A stitched arrowhead pointing right (what comes next)."""
    pen = Pen(2 * r + 4, r, (0, 0, 0, 0), mode="RGBA")
    pen.poly([(-0.9, -0.8), (0.9, 0.0), (-0.9, 0.8), (-0.45, 0.0)], fill=fill)
    return pen.image()


@lru_cache(maxsize=8)
def size_hex_sprite(radius: int) -> Image.Image:
    """The pale hex behind a size cat's "5+" (how big its group must be)."""
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    pen.poly(hex_points(0.95), fill=theme.LEGAL_FILL, outline=theme.INK_SOFT, width=0.05)
    return pen.image()


@lru_cache(maxsize=64)
def shape_sprite(shape: tuple[tuple[int, int], ...], cell_radius: int,
                 fill: RGB = theme.INK_SOFT) -> Image.Image:
    """A cat's shape (axial offsets) drawn as little hexes, centred, on a transparent square."""
    w = SQRT3
    pts = [(w * (q + r / 2), 1.5 * r) for q, r in shape]
    cx = (min(p[0] for p in pts) + max(p[0] for p in pts)) / 2
    cy = (min(p[1] for p in pts) + max(p[1] for p in pts)) / 2
    span = max(max(abs(p[0] - cx) for p in pts) + w / 2, max(abs(p[1] - cy) for p in pts) + 1)
    size = math.ceil(2 * span * cell_radius) + 4
    pen = Pen(size, cell_radius, (0, 0, 0, 0), mode="RGBA")
    for x, y in pts:
        pen.poly([(x - cx + hx, y - cy + hy) for hx, hy in hex_points(0.9)], fill=fill)
    return pen.image()

