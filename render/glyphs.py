"""Text drawn from kept glyph masks: :func:`drawer` is ``ImageDraw.Draw`` whose ``text`` keeps
the mask FreeType made for each line it drew (its words, font, anchor and where it fell between
pixels) and blends it again the next time, instead of asking FreeType for it again.

Why: the pictures redraw the same short texts every time (a goal's values, a cat's name, a
score, a market number, the have/need of a pattern): about 17 texts a turn prompt, a quarter
of its drawing (0.86 of 3.1 ms), every one of them a mask FreeType had already made. The mask
and the blend are Pillow's own (``getmask2`` and ``draw_bitmap``, as ``ImageDraw.text`` calls
them), so the pixels are the same. Only plain lines are kept: several lines, strokes, a
direction or features go through Pillow as before.
"""

from __future__ import annotations

import math
import threading
import weakref
from typing import Any

from PIL import Image, ImageDraw, ImageFont

# Masks kept, by font: a few hundred distinct texts in all the pictures of a game, most of them
# well under a KB (a number, a label), a name up to about 10 KB. Kept by font object, and gone
# when the font goes: fonts are made per thread, and the fallback fonts of other scripts are let
# go to free their memory (render.script.FACES_PER_THREAD), which a cache holding them would
# defeat. Past BUDGET bytes in all (new names keep coming), every mask is let go at once.
BUDGET = 4 << 20
Key = tuple[str, str, str, tuple[float, float]]
_kept: weakref.WeakKeyDictionary[ImageFont.FreeTypeFont, dict[Key, Any]] = (
    weakref.WeakKeyDictionary())
_held = 0  # bytes of the masks kept (of fonts gone too, until the next clearing)
_lock = threading.Lock()  # the render pool's threads share the table of fonts


def _mask(text: str, font: ImageFont.FreeTypeFont, mode: str, anchor: str,
          start: tuple[float, float]) -> tuple[Any, tuple[int, int]]:
    global _held
    key = (text, mode, anchor, start)
    with _lock:
        hit = _kept.get(font, {}).get(key)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    # The same call ImageDraw.text makes for a line (the ink only matters to colour fonts,
    # which these are not).
    made = font.getmask2(text, mode, None, None, None, 0, anchor, 0, start, stroke_filled=True)
    width, height = made[0].size
    with _lock:
        if _held + width * height > BUDGET:
            _kept.clear()
            _held = 0
        _kept.setdefault(font, {})[key] = made
        _held += width * height
    return made


class GlyphDraw(ImageDraw.ImageDraw):
    """``ImageDraw.ImageDraw`` drawing plain single lines of FreeType text from kept masks."""

    def text(self, xy: tuple[float, float], text: Any, fill: Any = None, font: Any = None,
             anchor: str | None = None, *args: Any, **kwargs: Any) -> None:
        if (args or kwargs or not isinstance(text, str) or "\n" in text
                or not isinstance(font, ImageFont.FreeTypeFont)
                or not isinstance(fill, tuple) or self.palette or self.fontmode != "L"):
            super().text(xy, text, fill, font, anchor, *args, **kwargs)
            return
        x, y = xy
        start = (math.modf(x)[0], math.modf(y)[0])
        # Pillow's default anchor for a line laid out left to right.
        mask, (dx, dy) = _mask(text, font, self.fontmode, anchor or "la", start)
        self.draw.draw_bitmap((int(x) + dx, int(y) + dy), mask, self.draw.draw_ink(fill))


def drawer(img: Image.Image) -> GlyphDraw:
    """A drawing context on ``img`` (RGB or RGBA) whose text comes from kept masks."""
    return GlyphDraw(img)


def kept() -> int:
    """How many masks are kept, over every font alive (tests read it)."""
    with _lock:
        return sum(len(masks) for masks in _kept.values())


def forget() -> None:
    """Let every kept mask go."""
    global _held
    with _lock:
        _kept.clear()
        _held = 0


def held() -> int:
    """Bytes of the masks kept (tests read it)."""
    return _held
