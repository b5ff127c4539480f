"""A costly turn of a game review as one picture: the part of the quilt that matters, with the
player's move and the engine's move marked boldly on it.

The seat's quilt after the player's move is drawn big (hexes of 40 to 72 px) and cropped to
the two moves' cells and their neighbours (the design goals next to them included). The
player's tile is placed, ringed in the player's terracotta and tagged with "You"; the engine's
tile is drawn see-through on its own cell (it was not played), ringed in the engine's blue and
tagged with "Engine", with the tokens it would have earned. When both chose the same cell the
cell carries both rings and both tags. Under the crop, one line per move: where it went, the
expected final score after it, and the market tile it took.

It reads only the seat's private view before the turn and the review's row (plain data): no
secret reaches the picture. Words come from ``labels`` with the keys of
:data:`render.review.REVIEW_LABELS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from engine.ai.review import TurnReview, seat_after
from engine.hexgrid import parse_cell
from engine.views import PrivateView, SeatView
from render import sprites, theme
from render.common import panel, paste_at, text
from render.encode import to_png
from render.geometry import QuiltLayout, quilt_layout
from render.glyphs import drawer
from render.quilt import BUTTON_AT, CAT_AT, RAINBOW_AT, TOKEN_SCALE, draw_quilt
from render.review import ENGINE_LINE, PLAYER_LINE, review_label
from render.sprites import Pen, hex_points, sprite_size
from render.theme import RGB

WIDTH = 800
MARGIN = 16
TITLE_H = 60
ROW_H = 58
MAX_RADIUS = 72
MIN_RADIUS = 40
# Room kept around the two moves' cells, in hex widths sideways and radii up and down: their
# six neighbours (a design goal among them, often) and a little of the quilt beyond.
AROUND_X = 1.8
AROUND_Y = 2.3
MIN_SPAN_X = 4.4  # at least this many hex widths across, so the crop still looks like a quilt


@dataclass(frozen=True, slots=True)
class TurnLayout:
    """Where things are in :func:`draw_turn_compare`'s picture: the quilt is drawn with
    ``quilt`` and pasted so that its point (``crop[0]``, ``crop[1]``) lands on ``origin``."""

    size: tuple[int, int]
    quilt: QuiltLayout
    crop: tuple[int, int, int, int]  # in the quilt image
    origin: tuple[int, int]  # where the crop's top-left corner sits in the picture
    rows: tuple[float, float]  # the centre lines of the player's and the engine's rows

    @property
    def radius(self) -> int:
        return self.quilt.radius

    def center(self, cell: int) -> tuple[float, float]:
        """The pixel centre of ``cell`` in the picture."""
        x, y = self.quilt.center(cell)
        return x - self.crop[0] + self.origin[0], y - self.crop[1] + self.origin[1]


def _crop(lay: QuiltLayout, cells: tuple[int, ...],
          whole: tuple[int, ...] = ()) -> tuple[int, int, int, int]:
    """The window around ``cells``; any of the ``whole`` cells (the design goals) it reaches
    into is taken in entirely, so a goal is never cut at the edge."""
    w, h = lay.size
    xs = [lay.center(c)[0] for c in cells]
    ys = [lay.center(c)[1] for c in cells]
    hw = lay.hex_width
    half = max((max(xs) - min(xs)) / 2 + AROUND_X * hw, MIN_SPAN_X * hw / 2)
    mid = (max(xs) + min(xs)) / 2
    x0, x1 = mid - half, mid + half
    y0, y1 = min(ys) - AROUND_Y * lay.radius, max(ys) + AROUND_Y * lay.radius
    for c in whole:
        cx, cy = lay.center(c)
        gx0, gx1, gy0, gy1 = cx - hw / 2, cx + hw / 2, cy - lay.radius, cy + lay.radius
        if gx1 > x0 and gx0 < x1 and gy1 > y0 and gy0 < y1:
            x0, x1, y0, y1 = min(x0, gx0 - 4), max(x1, gx1 + 4), min(y0, gy0 - 4), max(y1, gy1 + 4)
    # Slide the window back inside the quilt rather than cut it short.
    if x0 < 0:
        x0, x1 = 0, x1 - x0
    if x1 > w:
        x0, x1 = max(0, x0 - (x1 - w)), w
    if y0 < 0:
        y0, y1 = 0, y1 - y0
    if y1 > h:
        y0, y1 = max(0, y0 - (y1 - h)), h
    return round(x0), round(y0), round(min(x1, w)), round(min(y1, h))


def turn_layout(played_cell: int, engine_cell: int, width: int = WIDTH,
                goals: tuple[int, ...] = ()) -> TurnLayout:
    """The layout of the picture of a turn whose moves went on those cells (``goals``: the
    design goals' cells, shown whole when the window reaches them)."""
    cells = (played_cell, engine_cell)
    radius = MIN_RADIUS
    for r in range(MAX_RADIUS, MIN_RADIUS - 1, -2):
        lay = quilt_layout(r, header=False)
        x0, _, x1, _ = _crop(lay, cells, goals)
        if x1 - x0 <= width - 2 * MARGIN:
            radius = r
            break
    lay = quilt_layout(radius, header=False)
    crop = _crop(lay, cells, goals)
    cw, ch = crop[2] - crop[0], crop[3] - crop[1]
    origin = ((width - cw) // 2, TITLE_H)
    top = TITLE_H + ch + 12
    rows = (top + ROW_H / 2, top + ROW_H * 1.5 + 6)
    return TurnLayout((width, round(top + 2 * ROW_H + 6 + MARGIN)), lay, crop, origin, rows)


# --------------------------------------------------------------------------- marks


@lru_cache(maxsize=16)
def move_ring(radius: int, colour: RGB, inset: float = 0.0) -> Image.Image:
    """A bold ring around a hex in ``colour``, edged in dark ink on both sides so it stands out
    on any fabric (at phone size it is still about 4 px wide)."""
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    r = 1.04 - inset
    pen.poly(hex_points(r), outline=theme.INK, width=0.26)
    pen.poly(hex_points(r - 0.02), outline=colour, width=0.18)
    return pen.image()


def _tag_box(at: tuple[float, float], words: str, size: int) -> tuple[float, float, float,
                                                                       float]:
    w = theme.font(size, theme.BLACK).getlength(words) + size
    h = size * 1.5
    return at[0] - w / 2 - 2, at[1] - h / 2 - 2, at[0] + w / 2 + 2, at[1] + h / 2 + 2


def _tag(img: Image.Image, at: tuple[float, float], words: str, fill: RGB, size: int) -> None:
    """A pill with ``words`` (cream on ``fill``) centred on ``at``."""
    f = theme.font(size, theme.BLACK)
    x0, y0, x1, y1 = _tag_box(at, words, size)
    d = drawer(img)
    d.rounded_rectangle((x0, y0, x1, y1), radius=(y1 - y0) / 2, fill=theme.SEAM)
    d.rounded_rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), radius=(y1 - y0) / 2 - 2, fill=fill)
    d.text(at, words, font=f, fill=theme.SEAM, anchor="mm")


def _hits(box: tuple[float, float, float, float], centre: tuple[float, float],
          r: float) -> bool:
    """Whether ``box`` reaches into the circle of radius ``r`` round ``centre``."""
    x = min(max(centre[0], box[0]), box[2])
    y = min(max(centre[1], box[1]), box[3])
    return (x - centre[0]) ** 2 + (y - centre[1]) ** 2 < r * r


def _tag_spot(lay: TurnLayout, cell: int, words: str, size: int,
              avoid: list[tuple[float, float, float, float]], goals: tuple[int, ...],
              prefer_below: bool = False) -> tuple[float, float]:
    """Where a cell's tag goes: above the cell, else below it, else on it, whichever first
    covers no design goal (their values are read there), no other tag and stays in the
    crop."""
    x, y = lay.center(cell)
    r = lay.radius
    spots = [(x, y - r * 0.95), (x, y + r * 0.95)]
    if prefer_below:
        spots.reverse()
    ox, oy = lay.origin
    frame = (ox, oy, ox + lay.crop[2] - lay.crop[0], oy + lay.crop[3] - lay.crop[1])
    for at in spots:
        box = _tag_box(at, words, size)
        inside = (box[0] >= frame[0] and box[2] <= frame[2] and box[1] >= frame[1]
                  and box[3] <= frame[3])
        clear = not any(_hits(box, lay.center(g), r * 0.92) for g in goals)
        apart = not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                        for b in avoid)
        if inside and clear and apart:
            return at
    return x, y


def _engine_tokens(img: Image.Image, quilt: QuiltLayout, before: SeatView, after: SeatView,
                   cell: int, config_cats: tuple[str, ...], at: tuple[float, float]) -> None:
    """The tokens the engine's move would have earned, on its cell."""
    tok = round(quilt.radius * TOKEN_SCALE)
    r = quilt.radius

    def spot(where: tuple[float, float]) -> tuple[float, float]:
        return at[0] + where[0] * r, at[1] + where[1] * r

    for c, ci in set(after.cats) - set(before.cats):
        if c == cell:
            paste_at(img, sprites.cat_token(config_cats[ci], tok), spot(CAT_AT))
    for c, color in set(after.buttons) - set(before.buttons):
        if c == cell:
            paste_at(img, sprites.button_token(color, tok), spot(BUTTON_AT))
    if after.rainbow is not None and before.rainbow is None and after.rainbow == cell:
        paste_at(img, sprites.button_token(-1, tok), spot(RAINBOW_AT))


@lru_cache(maxsize=64)
def _ghost(tile: int, radius: int) -> Image.Image:
    """The engine's tile, see-through on a blank cell (the cell's name hidden): a move that
    was not played."""
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    pen.poly(hex_points(1.0 - sprites.SEAM), fill=(*theme.EMPTY_FILL, 255))
    out = pen.image()
    sp = sprites.tile_sprite(tile, radius).copy()
    sp.putalpha(sp.getchannel("A").point(lambda v: v * 80 // 100))
    out.alpha_composite(sp)
    return out


# --------------------------------------------------------------------------- the picture


def draw_turn_compare(view: PrivateView, row: TurnReview, *,
                      labels: Mapping[str, str] | None = None,
                      width: int = WIDTH, radius: int | None = None) -> Image.Image:
    """The turn of ``row`` (``view``: the seat's private view before it) as one picture: the
    quilt around the two moves, the player's placed and the engine's see-through, both ringed
    and tagged, and a line for each with its expected final score and the tile it took.
    ``radius`` is accepted for callers of the former three-quilt picture and ignored."""
    del radius
    cfg = view.public.config
    before = view.public.seats[view.seat]
    mine = parse_cell(row.played.cell)
    theirs = parse_cell(row.engine.cell)
    goals = tuple(cfg.goal_spots)
    lay = turn_layout(mine, theirs, width, goals)
    played = seat_after(view, row.played)
    engine = seat_after(view, row.engine)
    img = Image.new("RGB", lay.size, theme.BACKGROUND)

    title = f"{review_label(labels, 'review_turn')} {row.turn}"
    w = text(img, (MARGIN, TITLE_H / 2), title, 30, weight=theme.BLACK, anchor="lm")
    if row.loss > 0:
        text(img, (MARGIN + w + 16, TITLE_H / 2), f"−{row.loss:.1f}", 28, weight=theme.BLACK,
             fill=theme.BAD, anchor="lm")

    q = draw_quilt(played, cfg, radius=lay.radius, header=False, hints=True)
    img.paste(q.crop(lay.crop), lay.origin)
    d = drawer(img)
    cx0, cy0 = lay.origin
    cw, ch = lay.crop[2] - lay.crop[0], lay.crop[3] - lay.crop[1]
    d.rectangle((cx0, cy0, cx0 + cw - 1, cy0 + ch - 1), outline=theme.INK_FAINT, width=2)

    r = lay.radius
    you = review_label(labels, "review_you")
    bot = review_label(labels, "review_engine")
    tag_size = max(17, round(r * 0.36))
    at_mine, at_theirs = lay.center(mine), lay.center(theirs)
    if theirs != mine:
        # The engine's tile where it would have gone (the player's tile is not there).
        paste_at(img, _ghost(row.engine.tile, r), at_theirs)
        _engine_tokens(img, lay.quilt, before, engine, theirs,
                       tuple(c.id for c in cfg.cats), at_theirs)
        paste_at(img, move_ring(r, ENGINE_LINE), at_theirs)
        paste_at(img, move_ring(r, PLAYER_LINE), at_mine)
        at_you = _tag_spot(lay, mine, you, tag_size, [], goals)
        at_bot = _tag_spot(lay, theirs, bot, tag_size, [_tag_box(at_you, you, tag_size)],
                           goals)
    else:
        paste_at(img, move_ring(r, PLAYER_LINE), at_mine)
        paste_at(img, move_ring(r, ENGINE_LINE, inset=0.22), at_mine)
        at_you = _tag_spot(lay, mine, you, tag_size, [], goals)
        at_bot = _tag_spot(lay, mine, bot, tag_size, [_tag_box(at_you, you, tag_size)],
                           goals, prefer_below=True)
    _tag(img, at_you, you, PLAYER_LINE, tag_size)
    _tag(img, at_bot, bot, ENGINE_LINE, tag_size)

    for k, (key, placement, ev, colour) in enumerate((
            ("review_played", row.played, row.ev_played, PLAYER_LINE),
            ("review_engine_move", row.engine, row.ev_engine, ENGINE_LINE))):
        _move_row(img, lay.rows[k], review_label(labels, key), placement.cell, placement.tile,
                  placement.pick, f"{review_label(labels, 'review_expected')} {ev:.1f}", colour,
                  review_label(labels, "review_took"))
    return img


def _move_row(img: Image.Image, cy: float, what: str, cell: str, tile: int, pick: int | None,
              expected: str, colour: RGB, took: str) -> None:
    """``[ring] You played [tile] E3   Expected 55.5   Took [tile]`` on a card."""
    x0, x1 = MARGIN, img.width - MARGIN
    panel(img, (x0, cy - ROW_H / 2, x1, cy + ROW_H / 2), radius=14, stitch=False)
    d = drawer(img)
    d.rounded_rectangle((x0 + 10, cy - 14, x0 + 22, cy + 14), radius=6, fill=colour)
    x: float = x0 + 32
    x += text(img, (x, cy), what, 20, weight=theme.BLACK, anchor="lm", max_w=230) + 10
    paste_at(img, sprites.placed_sprite(tile, 18), (x + 16, cy))
    x += 40
    x += text(img, (x, cy), cell, 20, weight=theme.BLACK, anchor="lm") + 18
    right: float = x1 - 12
    if pick is not None:
        paste_at(img, sprites.placed_sprite(pick, 18), (right - 16, cy))
        right -= 40
        right -= text(img, (right, cy), took, 18, weight=theme.BOLD, fill=theme.INK_SOFT,
                      anchor="rm", max_w=110) + 16
    text(img, (right, cy), expected, 20, weight=theme.BLACK, fill=theme.mix(colour, theme.INK,
                                                                             0.25),
         anchor="rm", max_w=max(60.0, right - x))


def render_turn_compare(view: PrivateView, row: TurnReview, *,
                        labels: Mapping[str, str] | None = None,
                        radius: int | None = None) -> bytes:
    """:func:`draw_turn_compare` as PNG bytes."""
    return to_png(draw_turn_compare(view, row, labels=labels, radius=radius))
