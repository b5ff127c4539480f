"""PNG encoding: one place that picks the speed and size trade-off for every image."""

from __future__ import annotations

from io import BytesIO

from PIL import Image

# Our pictures are flat colours with antialiased edges: 256 colours hold them with a mean error
# near 1/255, and a palette PNG is about a third of the RGB one and several times faster to
# write (no per-row filter search, a third of the bytes through zlib). Pillow's fast octree
# both picks the palette and maps the pixels in one pass; mapping onto a separately chosen
# palette is no faster, because its nearest-colour cache starts empty for every new palette.
PALETTE_COLORS = 256
# zlib level 1: on these palette images level 3 saves about 7 % for 30 % more time, and level
# 6 about 15 % for three times the time; every image stays far below the 300 KB budget.
COMPRESS_LEVEL = 1
# A tall picture (a table of three or four quilts one under the other, each big enough to
# read on a phone) holds about 2 MP: at 256 colours and level 1 a finished four-player table
# came to 362 KB, over the 300 KB budget. Above BIG_PIXELS it gets 128 colours (the tiles'
# colours still exact enough: mean error about 2/255) and level 5: 286 KB for 32 ms of zlib
# (level 1: 336 KB, 19 ms; level 6: 279 KB, 43 ms), in the background (the outbox posts the
# table, not an answer to a click).
BIG_PIXELS = 1_500_000
BIG_COLORS = 128
BIG_COMPRESS_LEVEL = 5


def quantize(img: Image.Image, colors: int = PALETTE_COLORS,
             palette: Image.Image | None = None) -> Image.Image:
    """``img`` reduced to an adaptive palette of ``colors``, or mapped onto ``palette`` (a
    palette image), without dithering."""
    rgb = img.convert("RGB") if img.mode != "RGB" else img
    if palette is not None:
        return rgb.quantize(palette=palette, dither=Image.Dither.NONE)
    return rgb.quantize(colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def to_png(img: Image.Image, palette: Image.Image | None = None) -> bytes:
    """``img`` as PNG bytes (palette mode; transparency is flattened: Discord shows none).
    ``palette``: a palette image chosen once for pictures of this kind
    (:func:`render.palette.game_palette`) to map onto instead of choosing one for this
    picture, which costs more than drawing it; a big picture still gets its own smaller one."""
    buf = BytesIO()
    big = img.width * img.height > BIG_PIXELS
    quantize(img, BIG_COLORS if big else PALETTE_COLORS, None if big else palette).save(
        buf, format="PNG", optimize=False,
        compress_level=BIG_COMPRESS_LEVEL if big else COMPRESS_LEVEL)
    return buf.getvalue()
