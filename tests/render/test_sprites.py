"""Tile sprites: the 36 tiles stay tellable apart in greyscale and for colour-blind players.

The metric. A tile is judged as a player sees it: the sprite of a default quilt (hex radius
44 px in a 600 px image) scaled to a phone's 400 px display width (radius about 29 px), put on
the linen background, turned to greyscale with ITU-R 601 luma (what ``convert("L")`` and
greyscale printing use), and blurred by a 0.8 px Gaussian so that detail finer than the display
can show does not count. Two tiles are compared by the mean absolute difference of those grey
values over the pixels inside both hexes (0-255).

The threshold, 20. Same pattern in two colours: a mean difference of 20 is a lightness step of
about 8 % of the full range over the whole tile, several times the 1-2 % Weber contrast at
which large patches stop being distinguishable, so the two read as different at a glance and
not only side by side. Two patterns: 20 means that a large share of the tile flips between
ground and motif (the motif contrast is over 100 levels), which is a different picture, not a
shift. The measured minimum is printed by ``test_greyscale_separation`` (24.4 at the time of
writing), leaving room for palette tweaks.
"""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from PIL import Image, ImageChops, ImageFilter, ImageStat

from render import sprites, theme

QUILT_RADIUS = 44
DISPLAY_SCALE = 400 / 600
THRESHOLD = 20.0
# Machado, Oliveira & Fernandes (2009) dichromacy matrices, severity 1, for linear RGB.
DICHROMATS = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
_TO_LINEAR = [round(255 * (((v / 255 + 0.055) / 1.055) ** 2.4 if v > 10 else v / 255 / 12.92))
              for v in range(256)] * 3
_TO_SRGB = [round(255 * (1.055 * (v / 255) ** (1 / 2.4) - 0.055 if v > 0 else 0.0))
            for v in range(256)] * 3


@cache
def seen(tile: int, vision: str = "normal") -> tuple[Image.Image, Image.Image]:
    """(grey image, inside-the-hex mask) of a tile as shown on a phone."""
    sp = sprites.tile_sprite(tile, QUILT_RADIUS)
    size = round(sp.width * DISPLAY_SCALE)
    small = sp.resize((size, size), Image.Resampling.BOX)
    rgb = Image.new("RGB", small.size, theme.BACKGROUND)
    rgb.paste(small, (0, 0), small)
    if vision != "normal":
        m = DICHROMATS[vision]
        matrix = tuple(x for row in m for x in (*row, 0.0))
        rgb = rgb.point(_TO_LINEAR).convert("RGB", matrix).point(_TO_SRGB)
    grey = rgb.convert("L").filter(ImageFilter.GaussianBlur(0.8))
    mask = small.getchannel("A").point(lambda v: 255 if v >= 250 else 0)
    return grey, mask


def distance(a: int, b: int, vision: str = "normal") -> float:
    ga, ma = seen(a, vision)
    gb, mb = seen(b, vision)
    both = ImageChops.multiply(ma, mb)
    return float(ImageStat.Stat(ImageChops.difference(ga, gb), both).mean[0])


def _worst(vision: str) -> tuple[float, int, int]:
    return min((distance(a, b, vision), a, b) for a, b in itertools.combinations(range(36), 2))


def test_greyscale_separation() -> None:
    d, a, b = _worst("normal")
    print(f"closest tiles in greyscale: {a} and {b}, mean abs difference {d:.1f}")
    assert d >= THRESHOLD, (a, b, d)


@pytest.mark.parametrize("vision", sorted(DICHROMATS))
def test_dichromat_separation(vision: str) -> None:
    """Even judged by lightness alone after simulating dichromacy (they also keep one colour
    axis, so this understates what they see), every pair stays clearly apart."""
    d, a, b = _worst(vision)
    print(f"{vision}: closest {a} and {b}: {d:.1f}")
    assert d >= 14.0, (vision, a, b, d)


def test_colour_symbols_differ() -> None:
    """The colour-blind badge (moon, drop, blossom, leaf, ring, mushroom) differs per colour:
    compare the badges alone, on the same pattern, after flattening the ground colour."""
    r = QUILT_RADIUS
    badges = []
    for color in range(6):
        sp = sprites.tile_sprite(color * 6, r)
        c = sp.width / 2
        y = c + sprites.BADGE_Y * r
        k = sprites.BADGE_R * r * 0.8
        crop = sp.crop((round(c - k), round(y - k), round(c + k), round(y + k)))
        badges.append(crop.convert("L").point(lambda v: 0 if v < 120 else 255))
    for a, b in itertools.combinations(range(6), 2):
        d = ImageStat.Stat(ImageChops.difference(badges[a], badges[b])).mean[0]
        assert d >= 25, (a, b, d)


def test_fabric_lightness_is_spread() -> None:
    lumas = sorted(theme.luma(fabric) for fabric, _ in theme.tile_palette())
    gaps = [b - a for a, b in itertools.pairwise(lumas)]
    assert min(gaps) >= 25, lumas


def test_motif_contrasts_with_its_fabric() -> None:
    for fabric, motif in theme.tile_palette():
        assert abs(theme.luma(fabric) - theme.luma(motif)) >= 80


def test_sprites_are_cached_and_sized() -> None:
    a = sprites.tile_sprite(7, 44)
    assert sprites.tile_sprite(7, 44) is a
    assert a.size == (sprites.sprite_size(44),) * 2
    assert a.mode == "RGBA"
    # The border version is a different, muted sprite.
    border = sprites.tile_sprite(7, 44, border=True)
    assert border is not a
    ga = ImageStat.Stat(a.convert("RGB")).stddev
    gb = ImageStat.Stat(border.convert("RGB")).stddev
    assert sum(gb) < sum(ga)


def test_catalogue_colours_keep_their_hue() -> None:
    """Tile colours come from the catalogue's rgb, moved in lightness only: the dominant
    channel of each stays the same."""
    from data import load_catalog

    for color, (fabric, _) in zip(load_catalog().colors, theme.tile_palette(), strict=True):
        assert max(range(3), key=lambda i: color.rgb[i]) == max(range(3), key=lambda i: fabric[i])
