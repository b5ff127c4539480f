"""Text from kept glyph masks (render.glyphs): the same pixels as Pillow's own text, the first
time and every time after, and the masks let go with their font."""

from __future__ import annotations

import gc

import pytest
from PIL import Image, ImageDraw, ImageFont

from render import theme
from render.glyphs import BUDGET, drawer, forget, held, kept

TEXTS = ["A1", "Rumi", "2/3", "15/22", "Zoë", "Market", "7+"]
ANCHORS: list[str | None] = [None, "la", "mm", "lm", "rm", "ls", "rb"]
# Where a text falls between pixels moves its antialiasing: these are kept apart.
SPOTS = [(40.0, 30.0), (40.5, 30.25), (41.76, 29.88), (40.04, 30.2)]


def pillow(mode: str, lines: list[tuple[tuple[float, float], str, str | None]],
           font: ImageFont.FreeTypeFont) -> bytes:
    img = Image.new(mode, (160, 70), (250, 240, 230, 255))
    d = ImageDraw.ImageDraw(img)
    for at, s, anchor in lines:
        d.text(at, s, font=font, fill=(30, 40, 50), anchor=anchor)
    return img.tobytes()


def kept_masks(mode: str, lines: list[tuple[tuple[float, float], str, str | None]],
               font: ImageFont.FreeTypeFont) -> bytes:
    img = Image.new(mode, (160, 70), (250, 240, 230, 255))
    d = drawer(img)
    for at, s, anchor in lines:
        d.text(at, s, font=font, fill=(30, 40, 50), anchor=anchor)
    return img.tobytes()


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_kept_text_has_pillows_pixels_first_time_and_after(mode: str) -> None:
    font = theme.font(22, theme.BOLD)
    for s in TEXTS:
        for anchor in ANCHORS:
            lines = [(at, s, anchor) for at in SPOTS]
            want = pillow(mode, lines, font)
            assert kept_masks(mode, lines, font) == want, (s, anchor)  # masks made
            assert kept_masks(mode, lines, font) == want, (s, anchor)  # masks kept


def test_text_over_text_blends_as_pillows() -> None:
    font = theme.font(30, theme.BLACK)
    lines = [((20.3, 20.6), "Ann", "la"), ((24.0, 22.0), "Bob", "la"), ((60, 35), "88", "mm")]
    assert kept_masks("RGB", lines, font) == pillow("RGB", lines, font)


def test_what_is_not_a_plain_line_is_drawn_by_pillow() -> None:
    font = theme.font(18, theme.REGULAR)
    img, ref = Image.new("RGB", (120, 90), "white"), Image.new("RGB", (120, 90), "white")
    for d in (drawer(img), ImageDraw.ImageDraw(ref)):
        d.text((5, 5), "two\nlines", font=font, fill=(0, 0, 0))
        d.text((5, 50), "named", font=font, fill="red")
        d.text((60, 50), "stroke", font=font, fill=(0, 0, 0), stroke_width=1)
    assert img.tobytes() == ref.tobytes()
    assert ImageDraw.ImageDraw(ref).textbbox((5, 5), "two\nlines", font=font)[3] > 40


def test_masks_go_with_their_font() -> None:
    forget()
    font = ImageFont.truetype(str(theme.static_font_file(theme.BOLD)), 41)
    before = kept()
    img = Image.new("RGB", (200, 60), "white")
    for i in range(5):
        drawer(img).text((10, 10), f"text {i}", font=font, fill=(0, 0, 0))
    drawer(img).text((10, 10), "text 0", font=font, fill=(0, 0, 0))  # already kept
    assert kept() == before + 5
    del font
    gc.collect()
    assert kept() == before


def test_the_masks_kept_stay_within_their_budget() -> None:
    # Names keep coming (new players): past the budget every mask is let go, then kept again.
    forget()
    font = ImageFont.truetype(str(theme.static_font_file(theme.BOLD)), 60)
    img = Image.new("RGB", (900, 90), "white")
    most = 0
    for i in range(400):
        drawer(img).text((1, 1), f"A rather long player name {i:04d}", font=font, fill=(0, 0, 0))
        most = max(most, held())
    assert most > BUDGET * 0.9  # it was filled...
    assert held() <= BUDGET  # ...and never went past it
    assert kept() >= 1
