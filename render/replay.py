"""An animated GIF of a finished game: every quilt (laid out as on the table picture) filling
up placement by placement, tokens appearing on the tile that earned them, the finished quilts on
their own, then the final scores.

Frames, by decision: one per placement, so each player's tile appears on its own and the
"last placed" ring says whose it was (one per round would show four tiles appearing at once
with nothing to follow). A game of ``p`` players therefore has ``22 * p + 3`` frames: the start
(goals placed, quilts empty), the ``22 * p`` placements, the finished quilts with their tokens
and nothing over them (:data:`FINISHED_MS`, long enough to look at them), and the final scores
on the finished quilts themselves: each goal tile carries the points it scored, each quilt's
header its place (a medal) and total, the Master Quilter a rosette; nothing is covered.

Layout: as the table picture, two quilts a row for 2 to 4 players (thumbnails under a header
that reads at 400 px wide), so that the GIF is about as tall as wide and reads inline in
Discord without being opened (docs/pictures.md); one quilt alone at full size.

The start shows for :data:`START_MS`, the end for :data:`END_MS`, and each placement for
``PLAY_MS / (22 * p)`` ms (within :data:`MOVE_MS`), so any game replays in about a quarter of
a minute.

Colours: every frame shares one 255-colour palette that starts with the exact colours of the
table picture (each tile's fabric and motif, the board's printed patches, the ink, the linen,
the tokens: :func:`render.palette.fixed_colors`), the rest chosen from the first picture, the
finished quilts and the final scores; so a magenta tile stays the magenta of the table picture
in every frame.

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

from PIL import GifImagePlugin, Image, ImageChops

from engine.scoring import rank
from engine.state import TURNS_PER_PLAYER, Phase
from engine.views import PublicView
from render import sprites, theme
from render.common import paste_at, score_chips, text
from render.geometry import QuiltLayout, quilt_layout
from render.glyphs import drawer
from render.palette import palette_of
from render.quilt import draw_quilt
from render.scoresheet import MEDALS, rosette
from render.table import GRID_WIDTH, _quilt_radius, grid_header, per_row, player_name

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
GOAL_DISC = 0.62  # the disc of a goal's points on the final frame, as a share of the radius

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
    there), ``medals[seat]`` the centre of the medal in its header on the final frame."""

    size: tuple[int, int]
    quilt: QuiltLayout
    quilts: tuple[tuple[int, int], ...]
    medals: tuple[tuple[int, int], ...]


def replay_width(players: int) -> int:
    return WIDTH if players <= 1 else GRID_WIDTH


def medal_radius(lay: QuiltLayout) -> int:
    return max(9, round(lay.header * 0.36))


@lru_cache(maxsize=8)
def replay_layout(players: int, width: int | None = None) -> ReplayLayout:
    """The layout of a replay of a ``players``-seat game (``width``: by default 800 px for one
    quilt, else :data:`render.table.GRID_WIDTH`)."""
    width = width or replay_width(players)
    radius = _quilt_radius(players, width)
    lay = quilt_layout(radius, header_h=grid_header(players))
    qw, qh = lay.size
    cols = per_row(players)
    rows = math.ceil(players / cols)
    origins = []
    for i in range(players):
        row, col = divmod(i, cols)
        in_row = min(cols, players - row * cols)
        row_w = in_row * qw + (in_row - 1) * GAP
        origins.append((round((width - row_w) / 2 + col * (qw + GAP)),
                        BAR_H + row * (qh + GAP)))
    height = BAR_H + rows * (qh + GAP) - GAP + MARGIN
    mr = medal_radius(lay)
    cy = round(lay.header * 0.55 + lay.margin * 0.2)
    medals = tuple((x + lay.margin + mr, y + cy) for x, y in origins)
    return ReplayLayout((width, height), lay, tuple(origins), medals)


def frame_count(players: int) -> int:
    """Frames in the replay of a finished ``players``-seat game."""
    return TURNS_PER_PLAYER * players + 3


def move_ms(players: int) -> int:
    """How long each placement shows (GIF delays count in hundredths of a second)."""
    ms = PLAY_MS / (TURNS_PER_PLAYER * players)
    return int(min(MOVE_MS[1], max(MOVE_MS[0], round(ms / 10) * 10)))


# --------------------------------------------------------------------------- pictures


def _quilt(view: PublicView, seat: int, names: Sequence[str], lay: ReplayLayout,
           ring: bool, name: bool = True) -> Image.Image:
    sv = view.seats[seat]
    last = sv.placed[-1] if ring and sv.placed else None
    players = len(view.seats)
    return draw_quilt(sv, view.config, highlight=last,
                      name=player_name(names, seat) if name else None,
                      radius=lay.quilt.radius, hints=False, words=players <= 1,
                      header_h=grid_header(players))


def _bar(width: int, title: str, placed: int, winner: str | None = None) -> Image.Image:
    """The top bar: the title on the left, tiles placed per quilt so far ``n/22`` right (on
    the final frame, ``winner``: the Master Quilter's rosette and title instead)."""
    img = Image.new("RGB", (width, BAR_H), theme.BACKGROUND)
    cy = BAR_H * 0.55
    right = width - MARGIN
    if winner is not None:
        tw = text(img, (right, cy), winner, 22, weight=theme.BOLD, fill=theme.ACCENT,
                  anchor="rm", max_w=width * 0.45)
        paste_at(img, rosette(13), (right - tw - 20, cy))
        left_room = width - 2 * MARGIN - tw - 50
    else:
        turn = f"{placed}/{TURNS_PER_PLAYER}"
        f = theme.font(26, theme.BLACK)
        tw = f.getlength(turn)
        drawer(img).text((right, cy), turn, font=f, fill=theme.INK, anchor="rm")
        paste_at(img, sprites.tile_sprite(35, 14), (right - tw - 20, cy))
        left_room = width - 2 * MARGIN - tw - 60
    text(img, (MARGIN, cy), title, 28, weight=theme.BLACK, anchor="lm", max_w=left_room)
    return img


def _round(view: PublicView) -> int:
    """The round shown in the bar: the most tiles any quilt holds."""
    return max((len(s.placed) for s in view.seats), default=0)


def _results(img: Image.Image, view: PublicView, names: Sequence[str],
             lay: ReplayLayout) -> None:
    """The final scores on the finished quilts: each goal tile's points on a disc (green when
    it scored), and in each header the place's medal, the name and the totals (the quilts'
    own chips), the Master Quilter with a rosette."""
    scores = [dict(s.score) for s in view.seats]
    places, winners, _ = rank(scores)
    q = lay.quilt
    r = q.radius
    d = drawer(img)
    f_goal = theme.font(max(10, round(r * 0.8)), theme.BLACK)
    mr = medal_radius(q)
    f_medal = theme.font(max(9, round(mr * 1.25)), theme.BLACK)
    for seat, (ox, oy) in enumerate(lay.quilts):
        for spot, goal in zip(view.config.goal_spots, scores[seat].get("goals", []),
                              strict=False):
            cx, cy = q.center(spot)
            cx, cy = cx + ox, cy + oy
            points = int(goal.get("points", 0))
            k = r * GOAL_DISC
            fill = theme.GOOD if points > 0 else theme.INK_SOFT
            d.ellipse((cx - k - 2, cy - k - 2, cx + k + 2, cy + k + 2), fill=theme.SEAM)
            d.ellipse((cx - k, cy - k, cx + k, cy + k), fill=fill)
            d.text((cx, cy + 1), str(points), font=f_goal, fill=theme.SEAM, anchor="mm")
        mx, my = lay.medals[seat]
        place = places[seat]
        fill = MEDALS[place - 1] if place <= len(MEDALS) else theme.INK_FAINT
        d.ellipse((mx - mr - 2, my - mr - 2, mx + mr + 2, my + mr + 2), fill=theme.SEAM)
        d.ellipse((mx - mr, my - mr, mx + mr, my + mr), fill=fill)
        d.text((mx, my + 1), str(place), font=f_medal, fill=theme.INK, anchor="mm")
        x = float(mx + mr + 8)
        if seat in winners:
            paste_at(img, rosette(round(mr * 0.8)), (x + mr * 0.8, my))
            x += mr * 1.6 + 6
        # Where the quilt's own chips (drawn by its header) start.
        chips = score_chips(img, ox + q.size[0] - q.margin, my, q.header * 0.38, scores[seat],
                            draw=False)
        # A little larger than the quilt's own name, so that shrunk to fit beside the medal
        # it still reads at 400 px wide.
        text(img, (x, my), player_name(names, seat), max(9, round(q.header * 0.58)),
             anchor="lm", max_w=chips - x - q.header * 0.3)


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
    width: int | None = None,
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

    # The finished quilts and the final scores, drawn now so that the palette holds their
    # colours too.
    finished = rgb.copy()
    end = views[-1]
    for s in range(players):
        finished.paste(_quilt(end, s, names, lay, False), lay.quilts[s])
    finished.paste(_bar(w, title, TURNS_PER_PLAYER), (0, 0))
    final = finished.copy()
    for s in range(players):
        final.paste(_quilt(end, s, names, lay, False, name=False), lay.quilts[s])
    _results(final, end, names, lay)
    _, winners, _ = rank([dict(seat.score) for seat in end.seats])
    final.paste(_bar(w, replay_label(labels, "final_scores"), TURNS_PER_PLAYER,
                     winner=replay_label(labels, "master_quilter") if winners else None),
                (0, 0))

    palette = palette_of((rgb, finished, final), TRANSPARENT)

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
