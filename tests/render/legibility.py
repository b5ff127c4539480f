"""How a picture reads on a phone (about 400 px wide): every piece of text it draws, its size
once the picture is scaled to 400 px wide, and its contrast against what lies under it.

:func:`recording` watches every ``ImageDraw.text`` call while a picture is drawn (the sprite
caches are emptied first, so text drawn into cached sprites is seen too). For each text it
notes the font's cap height (the height of "H" from the glyph's bounding box) and the colours
under the text's box just before the text goes on, from the actual pixels of the image drawn
on. Sprites are pasted at their own size, so a cap height in a sprite is a cap height in the
picture; :func:`problems` scales them to ``PHONE`` px of picture width.

Thresholds: a cap height of at least :data:`MIN_CAP` px at phone width (the font then is about
8.5 px: the smallest a legend can be and still be read), and the WCAG contrast ratio: 4.5 for
small text, 3 for large text (cap height 13 px and more, WCAG's 14 pt bold).

Marks that carry meaning without words are held to the same floor: :data:`MARKS` lists the
sprite makers watched (the goal tiles' way discs: met, open or lost by colours and by
patterns) and the share of the sprite's radius their symbol spans; that symbol must be at
least :data:`MIN_CAP` px tall at phone width, like a letter.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from PIL import Image, ImageDraw

PHONE = 400
MIN_CAP = 6.0
LARGE_CAP = 13.0
SMALL_RATIO = 4.5
LARGE_RATIO = 3.0

RGB = tuple[int, int, int]


# sprite maker (in render.sprites) -> the height of its symbol, as a multiple of its radius
MARKS = {"goal_status_icon": 1.24}


@dataclass(frozen=True)
class TextMark:
    text: str
    cap: float  # px, as drawn
    fill: RGB
    under: tuple[RGB, ...]  # the colours covering at least a fifth of the text's box
    canvas: tuple[int, int]  # the size of the image it was drawn on


@dataclass(frozen=True)
class IconMark:
    """A mark drawn without words: its symbol's height in px as drawn."""

    text: str  # "<maker>", so that lists of marks still read as texts
    height: float


def _luminance(rgb: RGB) -> float:
    def lin(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio of two sRGB colours."""
    la, lb = _luminance(a), _luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def _rgb(fill: object, mode: str) -> RGB | None:
    if isinstance(fill, tuple) and len(fill) >= 3:
        return int(fill[0]), int(fill[1]), int(fill[2])
    if isinstance(fill, int) and mode in ("L", "P"):
        return fill, fill, fill
    return None


def _under(img: Image.Image, box: tuple[int, int, int, int]) -> tuple[RGB, ...]:
    x0, y0, x1, y1 = (max(0, box[0]), max(0, box[1]), min(img.width, box[2]),
                      min(img.height, box[3]))
    if x1 <= x0 or y1 <= y0:
        return ()
    crop = img.crop((x0, y0, x1, y1))
    if crop.mode == "RGBA":
        colours = [(n, c) for n, c in crop.getcolors(crop.width * crop.height) or []
                   if c[3] >= 200]
        rgb = [(n, (c[0], c[1], c[2])) for n, c in colours]
    else:
        rgb = [(n, c[:3]) for n, c in crop.convert("RGB").getcolors(
            crop.width * crop.height) or []]
    total = sum(n for n, _ in rgb)
    if total < 0.3 * crop.width * crop.height:
        return ()  # drawn on something see-through: what shows under it is not known here
    # Colours near each other count together (antialiased edges, shading).
    groups: list[tuple[int, RGB]] = []
    for n, c in sorted(rgb, reverse=True):
        for k, (m, g) in enumerate(groups):
            if sum(abs(a - b) for a, b in zip(c, g, strict=True)) <= 24:
                groups[k] = (m + n, g)
                break
        else:
            groups.append((n, c))
    return tuple(g for m, g in groups if m >= 0.2 * total)


def _clear_render_caches() -> None:
    for name, mod in list(sys.modules.items()):
        if name == "render" or name.startswith("render."):
            for value in vars(mod).values():
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


@contextmanager
def recording() -> Iterator[list[TextMark | IconMark]]:
    """Every text drawn inside the block (caches emptied before and after)."""
    from render.glyphs import GlyphDraw
    from render.palette import game_palette

    marks: list[TextMark | IconMark] = []
    plain, kept = ImageDraw.ImageDraw.text, GlyphDraw.text

    def record(self: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, fill: object,
               font: object, anchor: str | None, kwargs: dict[str, object]) -> None:
        img = self._image
        if text.strip() and font is not None:
            box = self.textbbox(xy, text, font=font, anchor=anchor)  # type: ignore[arg-type]
            hb = font.getbbox("H")  # type: ignore[attr-defined]
            rgb = _rgb(fill if fill is not None else kwargs.get("fill"), img.mode)
            if rgb is not None:
                marks.append(TextMark(text, float(hb[3] - hb[1]), rgb,
                                      _under(img, tuple(round(v) for v in box)), img.size))

    # The pictures draw through render.glyphs (text from kept masks), which hands Pillow what it
    # does not keep: each text is recorded once, where it was asked for.
    def plain_text(self: ImageDraw.ImageDraw, xy: tuple[float, float], text: str,
                   fill: object = None, font: object = None, anchor: str | None = None,
                   *args: object, **kwargs: object) -> None:
        if not isinstance(self, GlyphDraw):
            record(self, xy, text, fill, font, anchor, kwargs)
        plain(self, xy, text, fill, font, anchor, *args, **kwargs)  # type: ignore[arg-type]

    def kept_text(self: GlyphDraw, xy: tuple[float, float], text: str, fill: object = None,
                  font: object = None, anchor: str | None = None, *args: object,
                  **kwargs: object) -> None:
        record(self, xy, text, fill, font, anchor, kwargs)
        kept(self, xy, text, fill, font, anchor, *args, **kwargs)

    from render import sprites

    makers = {name: getattr(sprites, name) for name in MARKS}

    def watched(name: str) -> object:
        made = makers[name]

        def make(*args: object, **kwargs: object) -> object:
            radius = kwargs.get("radius", args[-1] if args else 0)
            assert isinstance(radius, int | float)
            marks.append(IconMark(f"<{name}>", MARKS[name] * radius))  # type: ignore[arg-type]
            return made(*args, **kwargs)
        return make

    _clear_render_caches()
    # The game pictures' palette is drawn from sample games once per process: its text is
    # not the picture's (made again here, after the caches were emptied).
    game_palette()
    ImageDraw.ImageDraw.text = plain_text  # type: ignore[method-assign]
    GlyphDraw.text = kept_text  # type: ignore[method-assign]
    for name in MARKS:
        setattr(sprites, name, watched(name))
    try:
        yield marks
    finally:
        ImageDraw.ImageDraw.text = plain  # type: ignore[method-assign]
        GlyphDraw.text = kept  # type: ignore[method-assign]
        for name, made in makers.items():
            setattr(sprites, name, made)
        _clear_render_caches()


def problems(marks: list[TextMark | IconMark], width: int, phone: int = PHONE) -> list[str]:
    """What would not read at ``phone`` px wide, for a picture ``width`` px wide."""
    scale = phone / width
    out = []
    for m in marks:
        if isinstance(m, IconMark):
            if m.height * scale < MIN_CAP - 1e-6:
                out.append(f"{m.text}: symbol {m.height * scale:.1f} px at {phone} px wide")
            continue
        cap = m.cap * scale
        if cap < MIN_CAP - 1e-6:
            out.append(f"{m.text!r}: cap height {cap:.1f} px at {phone} px wide")
        need = LARGE_RATIO if cap >= LARGE_CAP else SMALL_RATIO
        for bg in m.under:
            ratio = contrast(m.fill, bg)
            if ratio < need:
                out.append(f"{m.text!r}: contrast {ratio:.2f} ({m.fill} on {bg})")
    return sorted(set(out))
