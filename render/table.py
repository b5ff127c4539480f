"""The public table: cats with their patterns and needs, the market, whose turn, every quilt."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

from PIL import Image

from engine.config import CatRule, GameConfig
from engine.state import TURNS_PER_PLAYER, Phase
from engine.views import PublicView
from render import sprites, theme
from render.common import cat_need, fit_font, panel, paste_at, text
from render.geometry import quilt_layout
from render.glyphs import drawer
from render.quilt import draw_quilt
from render.strip import STRIP_RADIUS, draw_strip

TABLE_WIDTH = 640
MARGIN = 16
GAP = 12


def player_name(names: Sequence[str], seat: int) -> str:
    """The display name of ``seat``, or ``P1``, ``P2``... when the caller gave none."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"P{seat + 1}"


# --------------------------------------------------------------------------- cats


CARD_H = 156


NEED_Y = 108  # the centre line of a card's lower half: the need, and the patterns or words
NARROW_CARD = 240  # a card narrower than this carries its points on a badge (see _card_face)
CARD_INSET = 16  # a card's edge and its running stitch


def cat_card_base(cat_id: str, points: int, min_size: int,
                  shape: tuple[tuple[int, int], ...], width: int) -> Image.Image:
    """A cat's card without its patterns: face (in the cat's own colour), name, points, and what it
    needs on the left of the lower half (the table adds the patterns; the rules, words).
    A fresh copy, for the caller to draw on."""
    return _card_face(cat_id, points, min_size, shape, width)


# Neither the card nor its face is cached: a game pairs each cat with two of the six patterns
# at random, so whole cards hardly repeat across games (a cache of them held about 10 MB with
# 30 games at a time), and the faces of ten cats at two card widths held 2.5 MB to save about
# 0.4 ms a card (the panel, the token and the need's sprites are cached on their own).
def _card_face(cat_id: str, points: int, min_size: int,
               shape: tuple[tuple[int, int], ...], width: int) -> Image.Image:
    img = Image.new("RGBA", (width + 8, CARD_H + 8), (0, 0, 0, 0))
    panel(img, (0, 0, width, CARD_H), radius=16, stitch=True)
    tok = 19
    paste_at(img, sprites.cat_token(cat_id, tok), (16 + tok, 23 + tok))
    d = drawer(img)
    pts = str(points)
    name = cat_id.capitalize()
    name_x = 16 + 2 * tok + 8
    if width >= NARROW_CARD:
        # Points in a dark pill at the top right, like the score chips.
        f_pts = theme.font(27, theme.BLACK)
        pw = max(f_pts.getlength(pts) + 22, 40)
        d.rounded_rectangle((width - 14 - pw, 22, width - 14, 62), radius=20, fill=theme.INK)
        d.text((width - 14 - pw / 2, 42), pts, font=f_pts, fill=theme.SEAM, anchor="mm")
        name_room = width - 14 - pw - 8 - name_x
        cat_need(img, min_size, shape, (width * 0.27, NEED_Y), width * 0.44)
    else:
        # A narrow card (three on a 640 px table): the points on a dark badge at the face's
        # corner, so that the whole name fits beside the face; the need left of the patterns.
        f_pts = theme.font(21, theme.BLACK)
        br = max(14.0, f_pts.getlength(pts) / 2 + 7)
        bx, by = 16 + 2 * tok - 8, 23 + 2 * tok - 2
        d.ellipse((bx - br - 2, by - br - 2, bx + br + 2, by + br + 2), fill=theme.SEAM)
        d.ellipse((bx - br, by - br, bx + br, by + br), fill=theme.INK)
        d.text((bx, by + 1), pts, font=f_pts, fill=theme.SEAM, anchor="mm")
        name_x = round(bx + br + 4)
        name_room = width - 12 - name_x
        pr, xs = pattern_spots(width)
        left = xs[0] - pr * math.sqrt(3) / 2 - 6
        cat_need(img, min_size, shape, ((CARD_INSET + left) / 2, NEED_Y), left - CARD_INSET,
                 hex_radius=min(36, round((left - CARD_INSET) / 2.2)))
    text(img, (name_x, 42), name, 25, weight=theme.BLACK, anchor="lm", max_w=name_room)
    return img


def pattern_spots(width: int) -> tuple[int, tuple[float, float]]:
    """The radius of a card's two pattern hexes and their centres' x: both inside the card's
    right part, clear of its stitched edge, however narrow the card."""
    inset = CARD_INSET
    room = width * 0.56 - inset  # from where the need ends to the inner edge
    pr = max(12, min(30, math.floor(room / (2 * math.sqrt(3) + 0.3))))
    hw = pr * math.sqrt(3) / 2  # half a pattern hex's width
    right = width - inset - hw
    return pr, (right - 2 * hw - 0.3 * pr, right)


def cat_card(cat: CatRule, width: int) -> Image.Image:
    """One cat's card: face, name, points, what it needs and the two patterns it likes."""
    img = cat_card_base(cat.id, cat.points, cat.min_size, cat.shape, width)
    pr, xs = pattern_spots(width)
    for x, p in zip(xs, cat.patterns, strict=True):
        paste_at(img, sprites.pattern_sprite(p, pr), (x, NEED_Y))
    return img


def cat_row(cats: tuple[CatRule, ...], width: int) -> Image.Image:
    """A game's three cards side by side on a transparent strip as wide as the table (each
    card copied as it is: they do not overlap, so pasting the strip is pasting each card)."""
    card_w = (width - 2 * MARGIN - 2 * GAP) // 3
    row = Image.new("RGBA", (width, CARD_H + 8), (0, 0, 0, 0))
    for i, cat in enumerate(cats):
        row.paste(cat_card(cat, card_w), (MARGIN + i * (card_w + GAP), 0))
    return row


# A game's cards never change, and a third of a two-player table's drawing is its cards, but
# the bot draws the tables of many games in turn (a row is 630 KB at 960 px): by default
# nothing is kept. A process that draws many steps of the same few games (the web site's
# pictures' worker) keeps the last few rows (keep_cat_rows).
_row = cat_row


def keep_cat_rows(rows: int) -> None:
    """Keep the cards of the last ``rows`` games drawn (0: none) in this process."""
    global _row
    _row = functools.lru_cache(maxsize=rows)(cat_row) if rows > 0 else cat_row


def cat_rows_kept() -> int:
    """How many games' cards this process holds drawn."""
    info = getattr(_row, "cache_info", None)
    return info().currsize if info is not None else 0


def draw_cats(img: Image.Image, config: GameConfig, top: float, width: int) -> float:
    row = _row(config.cats, width)
    img.paste(row, (0, round(top)), row)
    return top + CARD_H


# --------------------------------------------------------------------------- the table


# How the table reads inline in Discord (docs/pictures.md): a picture much taller than wide
# is shrunk until its height fits the chat's box, so the quilts of 2 to 4 players go two to a
# row, as thumbnails (no cell names or goal texts, which a phone could not read anyway) under
# a header tall enough for names and scores to read at 400 px wide. One quilt alone keeps the
# turn picture's size, words and all.
QUILT_RADIUS = 44
GRID_WIDTH = 960
GRID_HEADER = 48


def per_row(players: int) -> int:
    """Quilts side by side: one alone, else two."""
    return 1 if players <= 1 else 2


def table_width(players: int) -> int:
    return TABLE_WIDTH if players <= 1 else GRID_WIDTH


def grid_header(players: int) -> int | None:
    """The quilts' header height on the table and the replay (None: the quilt's own)."""
    return None if players <= 1 else GRID_HEADER


def _quilt_radius(players: int, width: int) -> int:
    cols = per_row(players)
    room = (width - 2 * MARGIN - (cols - 1) * GAP) / cols
    # A layout's width is 7.5 hex widths plus two margins of 0.32 radius.
    fit = math.floor(room / (7.5 * math.sqrt(3) + 0.64))
    return max(12, min(QUILT_RADIUS, fit))


def table_radius(players: int) -> int:
    """The quilts' radius on the table of ``players``."""
    return _quilt_radius(players, table_width(players))


def draw_table(
    view: PublicView,
    names: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    highlight_last: bool = True,
) -> Image.Image:
    """The table everyone sees in the game's thread."""
    cfg = view.config
    n = len(view.seats)
    width = table_width(n)
    radius = _quilt_radius(n, width)
    lay = quilt_layout(radius, header_h=grid_header(n))
    qw, qh = lay.size
    cols = per_row(n)
    rows = math.ceil(n / cols)
    head_h = 56
    # In the wide grid the market's tiles take the quilts' full radius (their sprites are the
    # turn picture's, already drawn and cached) and its words and numbers grow a little more,
    # so that they read at 400 px wide.
    wide = width > TABLE_WIDTH
    strip = draw_strip((), view.market, width=width, bag_count=view.bag_count, labels=labels,
                       background=theme.BACKGROUND,
                       radius=QUILT_RADIUS if wide else STRIP_RADIUS,
                       text_scale=1.12 if wide else 1.0)
    height = (head_h + CARD_H + GAP + strip.height + GAP + rows * (qh + GAP) + MARGIN)
    img = Image.new("RGB", (width, height), theme.BACKGROUND)

    _draw_turn_bar(img, view, names, labels, head_h)
    y = float(head_h)
    y = draw_cats(img, cfg, y, width) + GAP
    img.paste(strip, (0, round(y)))
    y += strip.height + GAP

    for i, seat in enumerate(view.seats):
        row, col = divmod(i, cols)
        in_row = min(cols, n - row * cols)
        row_w = in_row * qw + (in_row - 1) * GAP
        x = (width - row_w) / 2 + col * (qw + GAP)
        qy = y + row * (qh + GAP)
        current = view.current_seat == i
        if current:
            d = drawer(img)
            d.rounded_rectangle((x - 5, qy - 5, x + qw + 5, qy + qh + 5), radius=radius * 0.6,
                                outline=theme.ACCENT, width=4)
        last = seat.placed[-1] if highlight_last and seat.placed else None
        q = draw_quilt(seat, cfg, highlight=last, name=player_name(names, i), radius=radius,
                       hints=False, words=cols == 1, header_h=grid_header(n))
        img.paste(q, (round(x), round(qy)))
    return img


def _draw_turn_bar(img: Image.Image, view: PublicView, names: Sequence[str],
                   labels: Mapping[str, str] | None, h: int) -> None:
    cy = h * 0.55
    x = float(MARGIN)
    if view.phase is Phase.PLAY and view.current_seat is not None:
        seat = view.seats[view.current_seat]
        lbl = theme.label(labels, "to_play")
        x += text(img, (x, cy), lbl, 24, weight=theme.BOLD, fill=theme.INK_SOFT, anchor="lm",
                  max_w=TABLE_WIDTH * 0.35)
        x += 12
        paste_at(img, sprites.arrow_sprite(14), (x + 10, cy))
        x += 30
        text(img, (x, cy), player_name(names, view.current_seat), 30, weight=theme.BLACK,
             anchor="lm", max_w=img.width - x - 170)
        # Which of their 22 tiles this turn places: a small hex and "n/22".
        turn = f"{min(len(seat.placed) + 1, TURNS_PER_PLAYER)}/{TURNS_PER_PLAYER}"
        f = fit_font(turn, 120, 26, theme.BLACK)
        right = img.width - MARGIN
        tw = f.getlength(turn)
        drawer(img).text((right, cy), turn, font=f, fill=theme.INK, anchor="rm")
        paste_at(img, sprites.tile_sprite(35, 14), (right - tw - 20, cy))
