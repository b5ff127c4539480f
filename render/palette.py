"""Palettes shared by many pictures: :func:`fixed_colors` (the exact colours of the game's
pictures), :func:`palette_of` (those, then the shades of some pictures), and
:func:`game_palette`, the one palette every table and score sheet is mapped onto.

Why one palette for the game pictures: choosing a palette for each picture (Pillow's fast
octree) was a third of a two-player table's cost (5 of 14 ms, with 4.5 to draw and 4 to
encode); mapping onto a palette chosen once is about a quarter of that, with the same error
(mean 0.87/255 against 0.85 on tables of six games it was not made from; worst pixel 52 against
51). The site draws a picture for each step of each game it is asked for, the bot one for each
move it posts, so this is most of the saving. It is made once per process (under a second) from
seeded sample games, so it is the same in every process and for every picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from PIL import Image

from data import load_catalog
from render import theme

Color = tuple[int, int, int]


@lru_cache(maxsize=1)
def fixed_colors() -> tuple[Color, ...]:
    """Each tile's fabric and motif as placed and as the board prints them (muted), the
    look's own colours and the tokens' colours: what a palette must hold exactly."""
    out: list[Color] = []
    for fabric, motif in theme.tile_palette():
        out += [fabric, motif, theme.mix(fabric, theme.BACKGROUND, 0.5),
                theme.mix(motif, theme.BACKGROUND, 0.5),
                theme.mix(fabric, theme.INK, 0.45)]
    out += [theme.BACKGROUND, theme.BACKGROUND_DARK, theme.PANEL, theme.INK, theme.INK_SOFT,
            theme.INK_FAINT, theme.SEAM, theme.EMPTY_FILL, theme.GOAL_FILL, theme.GOAL_FRAME,
            theme.ACCENT, theme.GOOD, theme.BAD, theme.GOLD, theme.HIGHLIGHT,
            *(theme.mix(c, theme.BACKGROUND, 0.72) for c in theme.BOARD_STITCH.values())]
    out += [cat.fur for cat in load_catalog().cats.values()]
    return tuple(dict.fromkeys(out))


def palette_of(pictures: Sequence[Image.Image], size: int = 256) -> Image.Image:
    """A palette image of ``size`` colours at most: :func:`fixed_colors`, then the colours of
    ``pictures`` (an octree of them, for the shades between: antialiased edges, shadows)."""
    fixed = list(fixed_colors())
    # At half size: the octree only fills in shades between the fixed colours (a tall replay's
    # three pictures hold 5 MP: 300 ms to quantize whole, 80 ms halved).
    small = [(p if p.mode == "RGB" else p.convert("RGB")).reduce(2) for p in pictures]
    sheet = Image.new("RGB", (max(p.width for p in small), sum(p.height for p in small)))
    y = 0
    for p in small:
        sheet.paste(p, (0, y))
        y += p.height
    spare = size - len(fixed)
    extra = sheet.quantize(spare, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat = extra.getpalette() or []
    colors = fixed + [(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in range(spare)
                      if 3 * i + 2 < len(flat)]
    colors = colors[:size]
    pal = Image.new("P", (1, 1))
    pal.putpalette([v for c in colors for v in c] + [0, 0, 0] * (256 - len(colors)))
    return pal


@lru_cache(maxsize=1)
def game_palette() -> Image.Image:
    """The tables' and score sheets' palette: from the finished tables of seeded games of one
    to four players (every tile, cat, token and button on them) and a score sheet."""
    # Here, not at the top: the sample games and the pictures import the renderer, which
    # imports this module.
    from engine.config import GameOptions
    from engine.views import public_view
    from render.samples import play_until
    from render.scoresheet import draw_scoresheet
    from render.table import draw_table

    pictures = []
    for players, seed in ((1, 3), (2, 11), (3, 7), (4, 5)):
        view = public_view(play_until(GameOptions(players=players), seed, None,
                                      own_chooser=True))
        names = [f"Player {i + 1}" for i in range(players)]
        pictures.append(draw_table(view, names))
        if players == 2:
            pictures.append(draw_scoresheet(view, names))
    return palette_of(pictures)
