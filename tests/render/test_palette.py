"""The game pictures' palette (render.palette): chosen once from sample games, holding every
fixed colour exactly, and as faithful on a game it was not made from as a palette chosen for
the picture itself."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageChops, ImageStat

from engine.config import GameOptions
from engine.views import public_view
from render import render_scoresheet, render_table
from render.encode import quantize, to_png
from render.palette import fixed_colors, game_palette
from render.samples import play_until
from render.table import draw_table


def colours(palette: Image.Image) -> set[tuple[int, int, int]]:
    flat = palette.getpalette() or []
    return {(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)}


def mean_error(mapped: Image.Image, original: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(mapped.convert("RGB"), original)).mean) / 3


def test_the_palette_holds_every_fixed_colour_exactly() -> None:
    pal = game_palette()
    assert set(fixed_colors()) <= colours(pal)
    assert len(pal.getpalette() or []) == 3 * 256
    assert game_palette() is pal  # made once


def test_a_game_it_was_not_made_from_maps_as_well_as_its_own_palette() -> None:
    # Three players, seed 21, 30 moves in: not one of the sample games.
    view = public_view(play_until(GameOptions(players=3), 21, 30, own_chooser=True))
    img = draw_table(view, ["Ann", "Bob", "Zoë"])
    own = mean_error(quantize(img), img)
    shared = mean_error(img.quantize(palette=game_palette(), dither=Image.Dither.NONE), img)
    assert shared <= 1.5 and shared <= own + 0.3, (shared, own)


def test_tables_and_score_sheets_are_written_with_it() -> None:
    view = public_view(play_until(GameOptions(players=2), 21, None, own_chooser=True))
    want = (game_palette().getpalette() or [])[:3 * 200]
    for png in (render_table(view, ["Ann", "Bob"]), render_scoresheet(view, ["Ann", "Bob"])):
        got = Image.open(BytesIO(png))
        assert got.mode == "P" and (got.getpalette() or [])[:3 * 200] == want


def test_a_picture_with_transparency_is_flattened_onto_the_palette_too() -> None:
    view = public_view(play_until(GameOptions(players=2), 21, 20, own_chooser=True))
    img = draw_table(view, ["Ann", "Bob"])
    rgba = Image.open(BytesIO(to_png(img.convert("RGBA"), game_palette())))
    rgb = Image.open(BytesIO(to_png(img, game_palette())))
    assert rgba.mode == rgb.mode == "P" and rgba.tobytes() == rgb.tobytes()
