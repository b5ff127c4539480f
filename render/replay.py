"""An animated GIF of a finished game: every quilt (laid out as on the table picture) filling
up placement by placement, tokens appearing on the tile that earned them, the finished quilts on
their own, then the final scores.

Frames, by decision: one per placement, so each player's tile appears on its own and the
"last placed" ring says whose it was (one per round would show four tiles appearing at once
with nothing to follow). A game of ``p`` players therefore has ``22 * p + 3`` frames: the start
(goals placed, quilts empty), the ``22 * p`` placements, the finished quilts with their tokens
and nothing over them (:data:`FINISHED_MS`, long enough to look at them), and the final scores
(a card over the faded quilts). The start shows for :data:`START_MS`, the end for
:data:`END_MS`, and each placement for ``PLAY_MS / (22 * p)`` ms (within :data:`MOVE_MS`), so
any game replays in about a quarter of a minute.

Colours: every frame shares one 255-colour palette that starts with the exact colours of the
table picture (each tile's fabric and motif, the board's printed patches, the ink, the linen,
the tokens: :func:`fixed_colors`), the rest chosen from the first picture, the finished quilts
and the final card; so a magenta tile stays the magenta of the table picture in every frame.

Speed and size: only the quilts that changed are redrawn and re-mapped to it; each frame is
written as the rectangle that changed, with unchanged pixels transparent, and the GIF is
streamed frame by frame (Pillow's GIF frame writer), so memory stays at one picture whatever
the game's length. Only public views are drawn (see :func:`engine.serialize.replay_views`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from io import BytesIO

from PIL import GifImagePlugin, Image, ImageChops, ImageDraw

from data import load_catalog
from engine.scoring import rank
from engine.state import TURNS_PER_PLAYER, Phase
from engine.views import PublicView
from render import sprites, theme
from render.common import panel, paste_at, score_chips, text
from render.geometry import QuiltLayout, quilt_layout
from render.quilt import draw_quilt
from render.scoresheet import MEDALS, rosette
from render.table import PER_ROW, _quilt_radius, player_name

WIDTH = 800
MARGIN = 16
GAP = 12
BAR_H = 56
START_MS = 1500
FINISHED_MS = 3000
END_MS = 6000
PLAY_MS = 16000
MOVE_MS = (150, 600)
TRANSPARENT = 255  # the palette index left free for "unchanged" pixels
FADE = 0.55  # how far the quilts fade toward the linen under the final card

REPLAY_LABELS: Mapping[str, str] = {
    "replay_title": "Game replay",
    "final_scores": "Final scores",
    "master_quilter": "Master Quilter",
}


def replay_label(labels: Mapping[str, str] | None, key: str) -> str:
    if labels is not None and key in labels:
        return labels[key]
    return REPLAY_LABELS.get(key, key)


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True, slots=True)
class ReplayLayout:
    """Where things sit in every frame: ``quilts[seat]`` is the top-left corner of that
    seat's quilt picture (drawn with ``quilt``: its cells at ``quilt.center(cell)`` from
    there), ``card`` the final-scores card, ``card_rows[k]`` the centre of the medal of the
    k-th player in the final ranking."""

    size: tuple[int, int]
    quilt: QuiltLayout
    quilts: tuple[tuple[int, int], ...]
    card: tuple[int, int, int, int]
    card_rows: tuple[tuple[int, int], ...]


CARD_HEAD = 62
CARD_ROW = 54


@lru_cache(maxsize=8)
def replay_layout(players: int, width: int = WIDTH) -> ReplayLayout:
    """The layout of a replay of a ``players``-seat game, ``width`` px wide."""
    radius = _quilt_radius(players, width)
    lay = quilt_layout(radius)
    qw, qh = lay.size
    per_row = PER_ROW
    rows = math.ceil(players / per_row)
    origins = []
    for i in range(players):
        row, col = divmod(i, per_row)
        in_row = min(per_row, players - row * per_row)
        row_w = in_row * qw + (in_row - 1) * GAP
        origins.append((round((width - row_w) / 2 + col * (qw + GAP)),
                        BAR_H + row * (qh + GAP)))
    height = BAR_H + rows * (qh + GAP) - GAP + MARGIN
    card_w = min(560, width - 2 * MARGIN)
    card_h = CARD_HEAD + players * CARD_ROW + 14
    grid_mid = (BAR_H + height - MARGIN) // 2
    x0 = (width - card_w) // 2
    y0 = max(BAR_H + 8, grid_mid - card_h // 2)
    card = (x0, y0, x0 + card_w, y0 + card_h)
    rows_at = tuple((x0 + 40, y0 + CARD_HEAD + k * CARD_ROW + CARD_ROW // 2)
                    for k in range(players))
    return ReplayLayout((width, height), lay, tuple(origins), card, rows_at)


def frame_count(players: int) -> int:
    """Frames in the replay of a finished ``players``-seat game."""
    return TURNS_PER_PLAYER * players + 3


def move_ms(players: int) -> int:
    """How long each placement shows (GIF delays count in hundredths of a second)."""
    ms = PLAY_MS / (TURNS_PER_PLAYER * players)
    return int(min(MOVE_MS[1], max(MOVE_MS[0], round(ms / 10) * 10)))


# --------------------------------------------------------------------------- pictures


def _quilt(view: PublicView, seat: int, names: Sequence[str], lay: ReplayLayout,
           ring: bool) -> Image.Image:
    sv = view.seats[seat]
    last = sv.placed[-1] if ring and sv.placed else None
    return draw_quilt(sv, view.config, highlight=last, name=player_name(names, seat),
                      radius=lay.quilt.radius, hints=False)


def _bar(width: int, title: str, placed: int) -> Image.Image:
    """The top bar: the title on the left, tiles placed per quilt so far ``n/22`` right."""
    img = Image.new("RGB", (width, BAR_H), theme.BACKGROUND)
    cy = BAR_H * 0.55
    turn = f"{placed}/{TURNS_PER_PLAYER}"
    f = theme.font(26, theme.BLACK)
    right = width - MARGIN
    tw = f.getlength(turn)
    ImageDraw.Draw(img).text((right, cy), turn, font=f, fill=theme.INK, anchor="rm")
    paste_at(img, sprites.tile_sprite(35, 14), (right - tw - 20, cy))
    text(img, (MARGIN, cy), title, 28, weight=theme.BLACK, anchor="lm",
         max_w=width - 2 * MARGIN - tw - 60)
    return img


def _round(view: PublicView) -> int:
    """The round shown in the bar: the most tiles any quilt holds."""
    return max((len(s.placed) for s in view.seats), default=0)


def _card(img: Image.Image, view: PublicView, names: Sequence[str], lay: ReplayLayout,
          labels: Mapping[str, str] | None) -> None:
    """The final scores: players best first, medals, the Master Quilter, totals."""
    scores = [dict(s.score) for s in view.seats]
    places, winners, _ = rank(scores)
    order = sorted(range(len(scores)), key=lambda i: (places[i], i))
    x0, y0, x1, y1 = lay.card
    panel(img, (x0, y0, x1, y1), fill=theme.PANEL, edge=theme.GOLD, radius=18, stitch=True)
    text(img, ((x0 + x1) / 2, y0 + CARD_HEAD / 2 + 4), replay_label(labels, "final_scores"),
         30, weight=theme.BLACK, anchor="mm", max_w=x1 - x0 - 40)
    d = ImageDraw.Draw(img)
    for k, seat in enumerate(order):
        mx, cy = lay.card_rows[k]
        place = places[seat]
        r = 17
        fill = MEDALS[place - 1] if place <= len(MEDALS) else theme.INK_FAINT
        d.ellipse((mx - r - 2, cy - r - 2, mx + r + 2, cy + r + 2), fill=theme.SEAM)
        d.ellipse((mx - r, cy - r, mx + r, cy + r), fill=fill)
        d.text((mx, cy + 1), str(place), font=theme.font(21, theme.BLACK), fill=theme.INK,
               anchor="mm")
        left = score_chips(img, x1 - 24, cy, 15, scores[seat])
        name_x = mx + 32
        won = seat in winners
        if won:
            text(img, (name_x, cy - 10), player_name(names, seat), 22, weight=theme.BLACK,
                 anchor="lm", max_w=left - name_x - 12)
            paste_at(img, rosette(10), (name_x + 9, cy + 15))
            text(img, (name_x + 24, cy + 15), replay_label(labels, "master_quilter"), 17,
                 weight=theme.BOLD, fill=theme.ACCENT, anchor="lm", max_w=left - name_x - 36)
        else:
            text(img, (name_x, cy), player_name(names, seat), 22, weight=theme.BOLD,
                 anchor="lm", max_w=left - name_x - 12)


# --------------------------------------------------------------------------- the palette


@lru_cache(maxsize=1)
def fixed_colors() -> tuple[tuple[int, int, int], ...]:
    """The colours every replay's palette starts with: each tile's fabric and motif as placed
    and as the board prints them (muted), the look's own colours and the tokens' colours."""
    out: list[tuple[int, int, int]] = []
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


def _palette(pictures: Sequence[Image.Image]) -> Image.Image:
    """A palette image: :func:`fixed_colors`, then the colours of ``pictures`` (an octree of
    them, for the shades between: antialiased edges, shadows) up to 255 colours."""
    fixed = list(fixed_colors())
    # At half size: the octree only fills in shades between the fixed colours, and a tall
    # replay's three pictures hold 5 MP (300 ms to quantize whole, 80 ms halved).
    small = [p.reduce(2) for p in pictures]
    w = max(p.width for p in small)
    both = Image.new("RGB", (w, sum(p.height for p in small)))
    y = 0
    for p in small:
        both.paste(p, (0, y))
        y += p.height
    spare = TRANSPARENT - len(fixed)
    extra = both.quantize(spare, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat = extra.getpalette() or []
    colors = fixed + [(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in range(spare)
                      if 3 * i + 2 < len(flat)]
    colors = colors[:TRANSPARENT]
    pal = Image.new("P", (1, 1))
    pal.putpalette([v for c in colors for v in c] + [0, 0, 0] * (256 - len(colors)))
    return pal


# --------------------------------------------------------------------------- the GIF


class _GifStream:
    """Writes a GIF frame by frame: the first whole, then each change as the rectangle that
    changed (unchanged pixels transparent), all on the first frame's palette."""

    def __init__(self, first: Image.Image, duration: int) -> None:
        self.out = BytesIO()
        header, _ = GifImagePlugin.getheader(first.copy(), info={"loop": 0})
        for chunk in header:
            self.out.write(chunk)
        self.canvas = first
        # One frame is held back so that a frame showing no change can lengthen it instead.
        self.pending: tuple[Image.Image, tuple[int, int], int, bool] = (first, (0, 0),
                                                                         duration, False)
        self.frames = 1

    def add(self, new: Image.Image, dirty: tuple[int, int, int, int], duration: int) -> None:
        """``new``: the whole next picture (palette mode); only ``dirty`` may differ."""
        old = self.canvas.crop(dirty)
        cur = new.crop(dirty)
        delta = ImageChops.subtract_modulo(cur, old)
        box = delta.getbbox()
        self.canvas = new
        if box is None:
            im, at, ms, tr = self.pending
            self.pending = (im, at, ms + duration, tr)
            return
        frame = cur.crop(box)
        unchanged = delta.crop(box).point([255] + [0] * 255, "1")
        frame.paste(TRANSPARENT, mask=unchanged)
        self._flush()
        self.pending = (frame, (dirty[0] + box[0], dirty[1] + box[1]), duration, True)
        self.frames += 1

    def _flush(self) -> None:
        im, at, ms, transparent = self.pending
        params: dict[str, int] = {"duration": ms, "disposal": 1}
        if transparent:
            params["transparency"] = TRANSPARENT
        for chunk in GifImagePlugin.getdata(im, at, **params):
            self.out.write(chunk)

    def close(self) -> bytes:
        self._flush()
        self.out.write(b";")
        return self.out.getvalue()


def _union(a: tuple[int, int, int, int] | None,
           b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    if a is None:
        return b
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def render_replay(
    views: Sequence[PublicView],
    names: Sequence[str] = (),
    *,
    labels: Mapping[str, str] | None = None,
    width: int = WIDTH,
) -> bytes:
    """The replay GIF of a finished game from its public views (start, then one per
    placement: :func:`engine.serialize.replay_views`). ``names[seat]`` label the quilts.
    ValueError unless the views run from the start to the end of one game."""
    if len(views) < 2 or views[-1].phase is not Phase.OVER:
        raise ValueError("a replay needs the views of a whole game, up to its end")
    players = len(views[0].seats)
    if any(len(s.placed) for s in views[0].seats):
        raise ValueError("the first view must be the start of play")
    lay = replay_layout(players, width)
    w, h = lay.size
    qw, qh = lay.quilt.size

    def quilt_box(seat: int) -> tuple[int, int, int, int]:
        x, y = lay.quilts[seat]
        return x, y, x + qw, y + qh

    title = replay_label(labels, "replay_title")
    rgb = Image.new("RGB", (w, h), theme.BACKGROUND)
    rgb.paste(_bar(w, title, 0), (0, 0))
    for s in range(players):
        rgb.paste(_quilt(views[0], s, names, lay, False), lay.quilts[s])

    # The finished quilts and the final card, drawn now so that the palette holds their
    # colours too.
    finished = rgb.copy()
    end = views[-1]
    for s in range(players):
        finished.paste(_quilt(end, s, names, lay, False), lay.quilts[s])
    finished.paste(_bar(w, title, TURNS_PER_PLAYER), (0, 0))
    final = finished.copy()
    grid = (0, BAR_H, w, h)
    faded = Image.blend(final.crop(grid), Image.new("RGB", (w, h - BAR_H), theme.BACKGROUND),
                        FADE)
    final.paste(faded, grid[:2])
    final.paste(_bar(w, replay_label(labels, "final_scores"), TURNS_PER_PLAYER), (0, 0))
    _card(final, end, names, lay, labels)

    palette = _palette((rgb, finished, final))

    def to_p(im: Image.Image) -> Image.Image:
        return im.quantize(palette=palette, dither=Image.Dither.NONE)

    canvas = to_p(rgb)
    gif = _GifStream(canvas, START_MS)
    step = move_ms(players)
    ringed: int | None = None
    bar_round = 0
    prev = views[0]
    for view in views[1:]:
        movers = [s for s in range(players) if len(view.seats[s].placed)
                  != len(prev.seats[s].placed)]
        redraw = sorted(set(movers) | ({ringed} if ringed is not None else set()))
        ringed = movers[-1] if movers else ringed
        new = canvas.copy()
        dirty: tuple[int, int, int, int] | None = None
        for s in redraw:
            q = to_p(_quilt(view, s, names, lay, s == ringed))
            new.paste(q, lay.quilts[s])
            dirty = _union(dirty, quilt_box(s))
        rnd = _round(view)
        if rnd != bar_round:
            bar_round = rnd
            new.paste(to_p(_bar(w, title, rnd)), (0, 0))
            dirty = _union(dirty, (0, 0, w, BAR_H))
        prev = view
        if dirty is None:
            continue
        gif.add(new, dirty, step)
        canvas = new
    # The finished quilts on their own (no ring, nothing over them), then the scores.
    gif.add(to_p(finished), (0, 0, w, h), FINISHED_MS)
    gif.add(to_p(final), (0, 0, w, h), END_MS)
    return gif.close()
