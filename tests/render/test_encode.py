"""The PNG writer (render.encode): what it writes is a valid PNG that any decoder reads back
to exactly the palette pixels, no bigger than Pillow's own writer at the same level."""

from __future__ import annotations

import sys
import zlib
from io import BytesIO

import pytest
from PIL import Image

from engine.config import GameOptions
from engine.views import public_view
from render.encode import BIG_COLORS, BIG_PIXELS, png_bytes, quantize, to_png
from render.palette import game_palette
from render.samples import play_until
from render.table import draw_table


def decoded(png: bytes) -> Image.Image:
    Image.open(BytesIO(png)).verify()  # every chunk's CRC, the stream's end
    img = Image.open(BytesIO(png))
    img.load()
    return img


def same_picture(got: Image.Image, want: Image.Image) -> None:
    assert got.mode == "P" and got.size == want.size
    assert got.convert("RGB").tobytes() == want.convert("RGB").tobytes()


@pytest.fixture(scope="module")
def table() -> Image.Image:
    view = public_view(play_until(GameOptions(players=2), 21, 24, own_chooser=True))
    return draw_table(view, ["Ann", "Bob"])


def test_a_table_reads_back_as_exactly_its_palette_pixels(table: Image.Image) -> None:
    want = quantize(table, palette=game_palette())
    got = decoded(to_png(table, game_palette()))
    same_picture(got, want)
    assert got.tobytes() == want.tobytes()
    assert got.getpalette() == want.getpalette()


def test_it_is_no_bigger_than_pillow_s_own_writer(table: Image.Image) -> None:
    q = quantize(table, palette=game_palette())
    buf = BytesIO()
    q.save(buf, format="PNG", optimize=False, compress_level=1)
    assert len(to_png(table, game_palette())) <= len(buf.getvalue()) * 1.05


@pytest.mark.parametrize("size", [(1, 1), (1, 7), (7, 1), (255, 3), (256, 2)])
def test_the_smallest_and_narrowest_pictures_read_back(size: tuple[int, int]) -> None:
    img = Image.new("RGB", size, (200, 30, 40))
    img.putpixel((size[0] - 1, size[1] - 1), (10, 220, 90))
    got = decoded(to_png(img))
    same_picture(got, img)  # two colours: exact
    assert got.getpixel((0, 0)) != got.getpixel((size[0] - 1, size[1] - 1)) or size == (1, 1)


def test_a_big_picture_gets_fewer_colours_and_still_reads_back(table: Image.Image) -> None:
    tall = Image.new("RGB", (table.width, table.height * 2 + 2))
    tall.paste(table, (0, 0))
    tall.paste(table, (0, table.height + 2))
    assert tall.width * tall.height > BIG_PIXELS
    got = decoded(to_png(tall, game_palette()))
    same_picture(got, quantize(tall, BIG_COLORS))
    assert len(got.getcolors(256) or []) <= BIG_COLORS


def test_the_compressor_is_the_one_given() -> None:
    img = Image.new("P", (3, 2))
    img.putpalette([0, 0, 0, 255, 255, 255])
    img.putpixel((1, 1), 1)
    streams: list[bytes] = []

    def stored(rows: bytes) -> bytes:
        streams.append(rows)
        return zlib.compress(rows, 0)

    same_picture(decoded(png_bytes(img, stored)), img)
    assert streams == [b"\0\0\0\0" + b"\0\0\1\0"]  # each row: filter 0, then its pixels


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_only_palette_pictures_are_written(mode: str) -> None:
    with pytest.raises(ValueError):
        png_bytes(Image.new(mode, (2, 2)), zlib.compress)


def test_a_palette_with_transparency_is_refused() -> None:
    img = Image.new("P", (2, 2))
    img.info["transparency"] = 0
    with pytest.raises(ValueError):
        png_bytes(img, zlib.compress)


def whole_mapping(img: Image.Image, palette: Image.Image) -> Image.Image:
    return img.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)


@pytest.mark.parametrize("height", [1, 2, 3, 5, 851])
def test_mapping_onto_the_palette_in_bands_is_the_same_as_in_one_go(
        table: Image.Image, height: int) -> None:
    img = table.crop((0, 0, table.width, height))
    got = quantize(img, palette=game_palette())
    want = whole_mapping(img, game_palette())
    assert got.size == want.size and got.tobytes() == want.tobytes()
    assert got.getpalette() == want.getpalette()


def test_encoding_is_made_of_short_c_calls_that_a_signal_handler_runs_between(
        table: Image.Image, monkeypatch: pytest.MonkeyPatch) -> None:
    # Python runs a signal's handler (the site's offer of the CPU) only between bytecodes: the
    # palette mapping and the deflate are each cut into pieces, with Python between them.
    calls: dict[str, int] = {"map": 0, "deflate": 0}
    original = Image.Image.quantize

    def counted(self: Image.Image, *args: object, **kwargs: object) -> Image.Image:
        calls["map"] += 1
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") == "compress":
            calls["deflate"] += 1

    monkeypatch.setattr(Image.Image, "quantize", counted)
    sys.setprofile(profile)
    try:
        png = to_png(table, game_palette())
    finally:
        sys.setprofile(None)
    assert calls["map"] >= 4 and calls["deflate"] >= 3  # 818 KB of rows, 256 KB at a time
    same_picture(decoded(png), whole_mapping(table, game_palette()))
