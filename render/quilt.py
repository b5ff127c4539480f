"""One player's quilt board: border, patches, goal tiles, tokens, labels, hints and markers."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from data import load_catalog
from engine.config import GameConfig
from engine.events import ButtonSewn, CatAttracted, Event, RainbowSewn
from engine.hexgrid import BORDER, CELL_BY_NAME, INNER, NEIGHBOURS, cell_name
from engine.progress import GoalProgress, goal_progress, way_state
from engine.tiles import EMPTY
from engine.views import SeatView
from render import sprites, theme
from render.common import paste_at, score_chips, stitch_rect, text
from render.geometry import DEFAULT_RADIUS, QuiltLayout, quilt_layout
from render.glyphs import drawer
from render.progress import draw_progress
from render.sprites import Pen, hex_points, sprite_size
from render.theme import RGB

# Where tokens sit on a tile, as a share of the hex radius from its centre: low, so the
# colour badge at the top stays visible.
CAT_AT = (-0.36, 0.34)
BUTTON_AT = (0.36, 0.34)
RAINBOW_AT = (0.0, -0.02)
TOKEN_SCALE = 0.33


@dataclass(frozen=True, slots=True)
class Preview:
    """A tile the player is considering: drawn see-through on ``cell`` with what it would earn
    (the events :func:`engine.rules.preview` returns)."""

    cell: int
    tile: int
    events: Sequence[Event] = ()


# --------------------------------------------------------------------------- goal hints


def goal_states(quilt: Sequence[int], spot: int, counts: tuple[int, ...]) -> tuple[str, str]:
    """(colours, patterns) of the goal on ``spot``, each ``met``, ``open`` or ``failed``, by
    the tiles around it alone (:func:`engine.progress.way_state`); the picture's discs also
    count the tiles gone elsewhere (:func:`engine.progress.goal_progress`)."""
    tiles = [quilt[n] for n in NEIGHBOURS[spot]]
    filled = [t for t in tiles if t >= 0]
    surrounded = len(filled) == len(tiles)
    return (way_state([t // 6 for t in filled], counts, surrounded),
            way_state([t % 6 for t in filled], counts, surrounded))


# --------------------------------------------------------------------------- cached pieces


@lru_cache(maxsize=32)
def _board_base(border: tuple[tuple[int, int], ...], board: str,
                lay: QuiltLayout, words: bool = True) -> Image.Image:
    """The board with nothing placed: linen, the stitched backing, printed patches and every
    inner cell empty and labelled. Cached per board, so a render only pastes what changed."""
    radius = lay.radius
    w, h = lay.size
    stitch = theme.BOARD_STITCH.get(board, theme.INK_SOFT)
    img = Image.new("RGB", (w, h), theme.BACKGROUND)
    _backing(img, lay, stitch)
    for cell, t in border:
        # Drawn afresh: the base is cached, so the printed patches are never pasted again.
        sp = sprites.draw_tile(t, radius, border=True)
        paste_at(img, sp, lay.center(cell))
    for cell in INNER:
        paste_at(img, _draw_empty(cell_name(cell) if words else "", radius, "plain"),
                 lay.center(cell))
    return img


def _backing(img: Image.Image, lay: QuiltLayout, stitch: RGB) -> None:
    """A rounded fabric panel in a tint of the board's stitching, with a running stitch."""
    w, h = img.size
    k = sprites.SUPERSAMPLE
    m = lay.margin * 0.35
    top = lay.header + m
    panel = theme.mix(stitch, theme.BACKGROUND, 0.72)
    big = Image.new("RGBA", (w * k, h * k), (0, 0, 0, 0))
    d = drawer(big)
    rad = lay.radius * 0.5 * k
    d.rounded_rectangle((m * k, top * k + 3 * k, (w - m) * k, (h - m) * k + 3 * k), rad,
                        fill=(60, 40, 20, 40))
    d.rounded_rectangle((m * k, top * k, (w - m) * k, (h - m) * k), rad, fill=panel)
    inset = lay.margin * 0.35 * k
    x0, y0, x1, y1 = m * k + inset, top * k + inset, (w - m) * k - inset, (h - m) * k - inset
    dash, gap = lay.radius * 0.22 * k, lay.radius * 0.14 * k
    wd = max(1, round(lay.radius * 0.045 * k))
    col = theme.mix(stitch, theme.INK, 0.15)
    stitch_rect(d, (x0, y0, x1, y1), rad - inset, dash, gap, col, wd)
    small = big.reduce(k)
    img.paste(small, (0, 0), small)


@lru_cache(maxsize=512)
def _empty_sprite(name: str, radius: int, state: str) -> Image.Image:
    """:func:`_draw_empty`, cached: the cells a turn marks legal or dim, pasted over the base."""
    return _draw_empty(name, radius, state)


def _draw_empty(name: str, radius: int, state: str) -> Image.Image:
    """An empty inner cell with its name. ``state``: ``plain``, ``legal`` (where the tile may
    go: warm and bold) or ``dim`` (not allowed now). The plain cells are drawn only into the
    cached board base, so they are not cached themselves."""
    size = sprite_size(radius)
    r = 1.0 - sprites.SEAM
    fill = {"legal": theme.LEGAL_FILL, "dim": theme.EMPTY_DIM}.get(state, theme.EMPTY_FILL)
    pen = Pen(size, radius, fill)
    edge = theme.ACCENT if state == "legal" else theme.INK_FAINT
    sprites.running_stitch(pen, r - 0.1, edge, 0.035 if state == "legal" else 0.026)
    img = pen.image().convert("RGBA")
    img.putalpha(sprites.hex_mask(radius, radius * sprites.SEAM))
    d = drawer(img)
    if not name:
        return img
    # Even a dimmed cell's name stays readable (WCAG 4.5): the fill and weight say it is dim.
    ink = {"legal": theme.INK}.get(state, theme.INK_SOFT)
    weight = theme.BLACK if state == "legal" else theme.BOLD
    f = theme.font(max(8, round(radius * 0.5)), weight)
    d.text((size / 2, size / 2 + radius * 0.02), name, font=f, fill=ink, anchor="mm")
    return img


@lru_cache(maxsize=64)
def _slot_sprite(radius: int, name: str) -> Image.Image:
    """A goal spot whose tile is not chosen yet (during the draft), named B3, C4 or D2."""
    size = sprite_size(radius)
    pen = Pen(size, radius, theme.GOAL_FILL)
    pen.poly(hex_points(1.0 - sprites.SEAM - 0.02), outline=theme.GOAL_FRAME, width=0.07)
    sprites.running_stitch(pen, 0.8, theme.INK_FAINT, 0.025)
    img = pen.image().convert("RGBA")
    img.putalpha(sprites.hex_mask(radius, radius * sprites.SEAM))
    d = drawer(img)
    f = theme.font(max(8, round(radius * 0.5)), theme.BLACK)
    d.text((size / 2, size / 2), name, font=f, fill=theme.INK, anchor="mm")
    return img


@lru_cache(maxsize=32)
def _ring_sprite(radius: int, kind: str) -> Image.Image:
    """An outline around a hex: ``last`` (the tile just placed), ``preview`` or ``group``."""
    size = sprite_size(radius)
    pen = Pen(size, radius, (0, 0, 0, 0), mode="RGBA")
    if kind == "last":
        pen.poly(hex_points(1.0), outline=theme.INK, width=0.17)
        pen.poly(hex_points(0.98), outline=theme.HIGHLIGHT, width=0.1)
    elif kind == "preview":
        pen.poly(hex_points(1.0), outline=theme.INK, width=0.13)
        sprites.running_stitch(pen, 0.985, theme.HIGHLIGHT, 0.07)
    else:
        sprites.running_stitch(pen, 0.9, theme.HIGHLIGHT, 0.07)
    return pen.image()


@lru_cache(maxsize=64)
def _preview_sprite(tile: int, radius: int) -> Image.Image:
    sp = sprites.tile_sprite(tile, radius).copy()
    sp.putalpha(sp.getchannel("A").point(lambda v: v * 78 // 100))
    return sp


def _token_at(lay: QuiltLayout, cell: int, where: tuple[float, float]) -> tuple[float, float]:
    cx, cy = lay.center(cell)
    return cx + where[0] * lay.radius, cy + where[1] * lay.radius


# --------------------------------------------------------------------------- the quilt


def draw_quilt(
    seat: SeatView,
    config: GameConfig,
    *,
    highlight: int | None = None,
    preview: Preview | None = None,
    legal: Collection[int] | None = None,
    name: str | None = None,
    radius: int = DEFAULT_RADIUS,
    header: bool = True,
    hints: bool = True,
    words: bool = True,
    header_h: int | None = None,
) -> Image.Image:
    """The quilt as a Pillow image (RGB); see :func:`render.render_quilt`. ``words=False``
    leaves out the cell names and the goal tiles' symbols and values (a thumbnail, too small
    for them to be read); ``header_h`` sets the header's height (:func:`quilt_layout`)."""
    lay = quilt_layout(radius, header=header, header_h=header_h)
    quilt = seat.quilt
    border = tuple((c, quilt[c]) for c in BORDER if quilt[c] >= 0)
    img = _board_base(border, seat.board, lay, words).copy()
    for cell in INNER:
        if quilt[cell] >= 0:
            paste_at(img, sprites.placed_sprite(quilt[cell], radius), lay.center(cell))
    if legal is not None:
        legal_set = set(legal)
        for cell in INNER:
            if quilt[cell] == EMPTY and (preview is None or cell != preview.cell):
                state = "legal" if cell in legal_set else "dim"
                paste_at(img, _empty_sprite(cell_name(cell), radius, state), lay.center(cell))
    # The goals' progress, once for the discs and the values (tiles gone elsewhere count).
    goals = (goal_progress(config, seat.quilt, seat.goals, seat.elsewhere)
             if hints and words and seat.goals is not None else ())
    _draw_goals(img, lay, seat, config, goals, words)
    tok = round(radius * TOKEN_SCALE)
    for cell, ci in seat.cats:
        paste_at(img, sprites.cat_token(config.cats[ci].id, tok), _token_at(lay, cell, CAT_AT))
    for cell, color in seat.buttons:
        paste_at(img, sprites.button_token(color, tok), _token_at(lay, cell, BUTTON_AT))
    if seat.rainbow is not None:
        paste_at(img, sprites.button_token(-1, tok), _token_at(lay, seat.rainbow, RAINBOW_AT))
    if hints and words:
        draw_progress(img, lay, seat, config, goals)
    if highlight is not None and 0 <= highlight < len(quilt):
        paste_at(img, _ring_sprite(radius, "last"), lay.center(highlight))
    if preview is not None:
        _draw_preview(img, lay, config, preview)
    if header:
        _draw_header(img, lay, seat, name)
    return img


def _draw_goals(img: Image.Image, lay: QuiltLayout, seat: SeatView, config: GameConfig,
                progress: Sequence[GoalProgress], words: bool = True) -> None:
    """The goal tiles; with ``progress`` (hints), each way's disc under them."""
    symbols = {g.id: g.symbol for g in load_catalog().goals.values()}
    radius = lay.radius
    for i, spot in enumerate(config.goal_spots):
        at = lay.center(spot)
        if seat.goals is None:
            paste_at(img, _slot_sprite(radius, cell_name(spot) if words else "")
                     if seat.drafting
                      else sprites.goal_back_sprite(radius), at)
            continue
        gid = seat.goals[i]
        rule = config.goal(gid)
        paste_at(img, sprites.goal_sprite(symbols.get(gid, gid), rule.one_way, rule.both_ways,
                                           radius, words), at)
        if not progress:
            continue
        by_color, by_pattern = progress[i].colors, progress[i].patterns
        # Big enough that the symbol in each disc (colours, patterns) is as tall as a capital
        # of the smallest text once the picture is 400 px wide (tests/render/legibility.py).
        icon_r = max(4, round(radius * 0.2))
        for dx, kind, state in ((-0.25, "colors", by_color), (0.25, "patterns", by_pattern)):
            icon = sprites.goal_status_icon(kind, state, icon_r)
            paste_at(img, icon, (at[0] + dx * radius, at[1] + 0.63 * radius))


def _cell_of_name(name: str) -> int | None:
    if name.startswith("border:"):
        try:
            return int(name.split(":", 1)[1])
        except ValueError:
            return None
    return CELL_BY_NAME.get(name)


def _draw_preview(img: Image.Image, lay: QuiltLayout, config: GameConfig,
                  preview: Preview) -> None:
    radius = lay.radius
    group_ring = _ring_sprite(radius, "group")
    for ev in preview.events:
        if isinstance(ev, ButtonSewn | CatAttracted):
            for n in ev.group:
                c = _cell_of_name(n)
                if c is not None and c != preview.cell:
                    paste_at(img, group_ring, lay.center(c))
    at = lay.center(preview.cell)
    # A blank backdrop first, so the cell's name does not show through the see-through tile.
    paste_at(img, _empty_sprite("", radius, "legal"), at)
    paste_at(img, _preview_sprite(preview.tile, radius), at)
    paste_at(img, _ring_sprite(radius, "preview"), at)
    tok = round(radius * TOKEN_SCALE)
    for ev in preview.events:
        if isinstance(ev, ButtonSewn) and ev.color in config.colors:
            sp = sprites.button_token(config.colors.index(ev.color), tok)
            paste_at(img, sp, _token_at(lay, preview.cell, BUTTON_AT))
        elif isinstance(ev, CatAttracted):
            if all(c.id != ev.cat for c in config.cats):
                continue
            paste_at(img, sprites.cat_token(ev.cat, tok), _token_at(lay, preview.cell, CAT_AT))
        elif isinstance(ev, RainbowSewn):
            paste_at(img, sprites.button_token(-1, tok),
                      _token_at(lay, preview.cell, RAINBOW_AT))


# --------------------------------------------------------------------------- header


def _draw_header(img: Image.Image, lay: QuiltLayout, seat: SeatView, name: str | None) -> None:
    """Name on the left; cat tokens, buttons and points so far on the right."""
    h = lay.header
    cy = h * 0.55 + lay.margin * 0.2
    score = seat.score if isinstance(seat.score, dict) else {}
    left = score_chips(img, img.width - lay.margin, cy, h * 0.38, score)
    if name:
        text(img, (lay.margin, cy), name, max(9, round(h * 0.5)), anchor="lm",
             max_w=left - lay.margin - h * 0.3)
