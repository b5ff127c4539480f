"""Live progress drawn on a quilt during play (the turn picture and the quilt picture): where
each design goal stands and the pattern groups growing toward a cat (:mod:`engine.progress`).

- A goal tile's two values say what it can still give: the value it scores once met sits on a
  green pill; a value it can no longer reach is struck through in red (both struck: the goal
  is lost), counting the tiles every player can see are gone (the seat view's
  ``elsewhere``). The small discs under them say which way (colours, patterns) is met, open or
  lost.
- Each unscored pattern group that can still become a cat's (two tiles or more, at most two
  per cat, the nearest first: :func:`engine.progress.growing_groups`) is ringed inside its
  cells in that cat's own colour, with a pill on its newest tile: the cat's initials (a cue
  besides colour) and ``have/need`` (a size cat's group: its size; a shape cat's: the most of
  its cells one placement of the shape still to be completed covers), below the need until the
  cat comes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from PIL import Image

from engine.config import GameConfig, Restriction
from engine.progress import CatGroup, GoalProgress, goal_progress, growing_groups
from engine.views import SeatView
from render import theme
from render.common import paste_at
from render.geometry import QuiltLayout
from render.glyphs import drawer
from render.sprites import Pen, hex_points, sprite_size
from render.theme import RGB

GROUPS_PER_CAT = 2
VALUES_Y = 0.3  # the goal tile's values row, as a share of the radius (sprites.goal_sprite)
VALUES_X = 0.34
TEXT_SCALE = 0.39  # the values' font size, as a share of the radius (sprites.goal_sprite)


def shown_groups(config: GameConfig, seat: SeatView) -> tuple[CatGroup, ...]:
    """The groups the picture rings: still able to become their cat's, two per cat at most
    (:func:`engine.progress.growing_groups`, which the alt text lists too)."""
    return growing_groups(config, seat.quilt, [c for c, _ in seat.cats], GROUPS_PER_CAT)


def draw_progress(img: Image.Image, lay: QuiltLayout, seat: SeatView, config: GameConfig,
                  goals: Sequence[GoalProgress] | None = None) -> None:
    """Both kinds of progress on a quilt drawn with ``lay`` (goal tiles and tokens already
    drawn); ``goals``: the seat's goal progress when already worked out."""
    if goals is None and seat.goals is not None:
        goals = goal_progress(config, seat.quilt, seat.goals, seat.elsewhere)
    for goal in goals or ():
        _goal(img, lay, config, goal)
    for group in shown_groups(config, seat):
        _group(img, lay, config, seat, group)


def _goal(img: Image.Image, lay: QuiltLayout, config: GameConfig, g: GoalProgress) -> None:
    rule = config.goal(g.goal)
    r = lay.radius
    cx, cy = lay.center(g.spot)
    vy = cy + VALUES_Y * r
    d = drawer(img)
    ways_ok = [s != "failed" for s in (g.colors, g.patterns)]
    both_only = config.restriction is Restriction.BOTH_WAYS
    one_ok = any(ways_ok) and not both_only
    both_ok = g.both
    f = theme.font(max(8, round(r * TEXT_SCALE)), theme.BLACK)
    for dx, value, ok in ((-VALUES_X, rule.one_way, one_ok), (VALUES_X, rule.both_ways,
                                                                both_ok)):
        x = cx + dx * r
        scored = g.state == "met" and value == g.points and ok
        if scored:
            w = max(f.getlength(str(value)) + r * 0.22, r * 0.5)
            h = r * 0.46
            d.rounded_rectangle((x - w / 2, vy - h / 2, x + w / 2, vy + h / 2), radius=h / 2,
                                fill=theme.GOOD)
            d.text((x, vy), str(value), font=f, fill=theme.SEAM, anchor="mm")
        elif not ok:
            k = r * 0.17
            d.line([(x - k, vy + k * 0.8), (x + k, vy - k * 0.8)], fill=theme.BAD,
                   width=max(2, round(r / 13)))


@lru_cache(maxsize=64)
def group_ring(radius: int, fur: RGB) -> Image.Image:
    """A ring inside a cell in a cat's colour, edged in ink so that any colour shows on any
    fabric (and is not taken for the ring of the tile just placed, which is on the edge)."""
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    pen.poly(hex_points(0.84), outline=theme.INK, width=0.17)
    pen.poly(hex_points(0.82), outline=fur, width=0.11)
    return pen.image()


def _ink_on(fill: RGB) -> RGB:
    """Ink or cream, whichever reads better on ``fill``."""
    return theme.INK if theme.luma(fill) >= 110 else theme.SEAM


def _group(img: Image.Image, lay: QuiltLayout, config: GameConfig, seat: SeatView,
           g: CatGroup) -> None:
    cat = config.cats[g.cat].id
    fur = theme.cat_fur(cat)
    r = lay.radius
    ring = group_ring(r, fur)
    for c in g.cells:
        paste_at(img, ring, lay.center(c))
    order = {c: k for k, c in enumerate(seat.placed)}
    anchor = max(g.cells, key=lambda c: (order.get(c, -1), -c))
    x, y = lay.center(anchor)
    y -= r * 0.1  # between the tile's colour badge and its tokens
    words = f"{g.have}/{g.need}"
    initial = theme.cat_initial(cat)  # the cue besides colour: which cat this ring is for
    f = theme.font(max(8, round(r * TEXT_SCALE)), theme.BLACK)
    gap = max(3.0, r * 0.1)
    h = r * 0.5
    iw = f.getlength(initial)
    w = iw + gap * 2 + f.getlength(words) + h * 0.6
    d = drawer(img)
    x0, x1 = x - w / 2, x + w / 2
    d.rounded_rectangle((x0 - 2, y - h / 2 - 2, x1 + 2, y + h / 2 + 2), radius=h / 2 + 2,
                        fill=theme.INK)
    d.rounded_rectangle((x0, y - h / 2, x1, y + h / 2), radius=h / 2, fill=fur)
    ink = _ink_on(fur)
    left = x0 + h * 0.3
    d.text((left, y), initial, font=f, fill=ink, anchor="lm")
    sep = left + iw + gap
    d.line([(sep, y - h * 0.3), (sep, y + h * 0.3)], fill=ink, width=max(1, round(r / 24)))
    d.text((x1 - h * 0.3, y), words, font=f, fill=ink, anchor="rm")
