"""Nunito's static weights (render/fonts/README.md) set text exactly as the variable font did:
the same characters, the same widths (so no name is cut or moved), the same ink to within
antialiasing."""

from __future__ import annotations

import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageChops, ImageDraw, ImageFont, ImageStat

from render import theme

SAMPLE = "Marguerite Zbigniew Amélie Łukasz Żółć Владимир 0123456789 ≠ × … 22/22 +5"


def _variable(size: int, weight: int) -> ImageFont.FreeTypeFont:
    f = ImageFont.truetype(str(theme.FONT_FILE), size, layout_engine=ImageFont.Layout.BASIC)
    f.set_variation_by_axes([weight])
    return f


def _ink(f: ImageFont.FreeTypeFont) -> Image.Image:
    img = Image.new("L", (1400, 60))
    ImageDraw.Draw(img).text((4, 8), SAMPLE, font=f, fill=255)
    return img


@pytest.mark.parametrize("weight", sorted(theme.STATIC_WEIGHTS))
def test_static_weight_has_every_character_of_the_variable_font(weight: int) -> None:
    static = TTFont(theme.static_font_file(weight), lazy=True).getBestCmap()
    variable = TTFont(theme.FONT_FILE, lazy=True).getBestCmap()
    assert set(static) == set(variable)


@pytest.mark.parametrize("weight", sorted(theme.STATIC_WEIGHTS))
def test_static_weight_sets_text_like_the_variable_font(weight: int) -> None:
    for size in (9, 14, 18, 22, 25, 30, 36):
        got = theme.font(size, weight)
        want = _variable(size, weight)
        assert got.path == str(theme.static_font_file(weight))
        assert got.getlength(SAMPLE) == want.getlength(SAMPLE), size
        a, b = _ink(got), _ink(want)
        assert a.getbbox() == b.getbbox(), size
        # Antialiasing may differ by a few levels on edge pixels, never in what is drawn.
        assert ImageStat.Stat(ImageChops.difference(a, b)).mean[0] < 1.0, size


def test_other_weights_still_come_from_the_variable_font() -> None:
    f = theme.font(20, 700)
    assert f.getlength(SAMPLE) == _variable(20, 700).getlength(SAMPLE)
