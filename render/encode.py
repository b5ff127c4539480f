"""PNG encoding: one place that picks the speed and size trade-off for every image, and
writes the PNG itself (:func:`png_bytes`) so that the deflate is ISA-L's, not zlib's."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Any

from isal import isal_zlib
from PIL import Image

# Our pictures are flat colours with antialiased edges: 256 colours hold them with a mean error
# near 1/255, and a palette PNG is about a third of the RGB one and several times faster to
# write (no per-row filter search, a third of the bytes through zlib). Pillow's fast octree
# both picks the palette and maps the pixels in one pass; mapping onto a separately chosen
# palette is no faster, because its nearest-colour cache starts empty for every new palette.
PALETTE_COLORS = 256
# Deflate level 1, by ISA-L (Intel's, vectorised; any x86-64 or ARM64): on a two-player table
# (960 x 851 palette pixels) 0.85 ms against zlib's 3.9 ms at level 1, for the same 134 KB;
# zlib-ng's level 1 took 1.3 ms for 158 KB, libdeflate's 2.7 ms for 122 KB. Deflate was most
# of a table's encoding and a third of the site's cost for a picture it draws (see
# docs/performance.md). zlib's level 3 saved about 7 % for 30 % more time and level 6 about
# 15 % for three times the time; every image stays far below the 300 KB budget.
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


# The long C calls of an encoding (mapping a table onto the palette, 1 ms; its deflate, 0.85 ms)
# are made in this many pieces: Python runs a signal's handler only between bytecodes, and the
# site's pictures' worker offers the CPU to the bot's threads from one every half millisecond
# (bot.web.giveway). Whole, the two were a third of a table's time in stretches over 1 ms; in
# pieces the mapping costs about 0.2 ms more (each piece fills its colour cache again), the
# deflate nothing, and the pixels are the same.
PIECES = 4
PIECE = 256 << 10  # bytes deflated at a time: about 0.25 ms of ISA-L's level 1
BIG_PIECE = 32 << 10  # and of zlib's level 5, about 0.5 ms


def quantize(img: Image.Image, colors: int = PALETTE_COLORS,
             palette: Image.Image | None = None) -> Image.Image:
    """``img`` reduced to an adaptive palette of ``colors``, or mapped onto ``palette`` (a
    palette image), without dithering (so each pixel on its own: the mapping is made in
    horizontal bands)."""
    rgb = img.convert("RGB") if img.mode != "RGB" else img
    if palette is None:
        return rgb.quantize(colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    width, height = rgb.size
    step = max(1, -(-height // PIECES))
    bands = [rgb.crop((0, top, width, min(height, top + step))).quantize(
        palette=palette, dither=Image.Dither.NONE) for top in range(0, height, step)]
    if len(bands) == 1:
        return bands[0]
    out = Image.new("P", (width, height))
    out.putpalette(bands[0].getpalette() or [])
    for i, band in enumerate(bands):
        out.paste(band, (0, i * step))
    return out


def _in_pieces(compressor: Any, data: bytes, step: int) -> bytes:
    """``data`` through a zlib-style ``compressor`` ``step`` bytes at a time, then flushed: a
    stream that decompresses to the same bytes as one call's, with bytecodes between."""
    view = memoryview(data)
    parts = [compressor.compress(view[i:i + step]) for i in range(0, len(data), step)]
    return b"".join([*parts, compressor.flush()])


def to_png(img: Image.Image, palette: Image.Image | None = None) -> bytes:
    """``img`` as PNG bytes (palette mode; transparency is flattened: Discord shows none).
    ``palette``: a palette image chosen once for pictures of this kind
    (:func:`render.palette.game_palette`) to map onto instead of choosing one for this
    picture, which costs more than drawing it; a big picture still gets its own smaller one."""
    if img.width * img.height > BIG_PIXELS:
        # zlib's level 5: ISA-L's levels stop at 3, which is no smaller than its level 1.
        return png_bytes(quantize(img, BIG_COLORS), lambda rows: _in_pieces(
            zlib.compressobj(BIG_COMPRESS_LEVEL), rows, BIG_PIECE))
    return png_bytes(quantize(img, PALETTE_COLORS, palette), lambda rows: _in_pieces(
        isal_zlib.compressobj(COMPRESS_LEVEL), rows, PIECE))


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(data, zlib.crc32(kind)))


def png_bytes(img: Image.Image, deflate: Callable[[bytes], bytes]) -> bytes:
    """A palette image (mode P, 8 bits, no transparency) as a PNG whose pixel rows (each with
    filter 0, none: a palette picture gains nothing from the others) go through ``deflate``,
    which returns a zlib stream. Pillow's own writer has no choice of compressor."""
    if img.mode != "P" or "transparency" in img.info:
        raise ValueError(f"a palette image without transparency, not {img.mode}")
    width, height = img.size
    # Each row's filter byte, 0, as a column of zeros left of the pixels: one copy in C.
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(img, (1, 0))
    rows = framed.tobytes()
    palette = bytes(img.getpalette() or [0, 0, 0])
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit palette, no interlace
    return b"".join((PNG_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", palette),
                     _chunk(b"IDAT", deflate(rows)), _chunk(b"IEND", b"")))
