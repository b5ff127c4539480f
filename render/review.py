"""Pictures of a game review (:mod:`engine.ai.review`): the score chart and a turn compared.

- :func:`draw_review_chart`: the seat's expected final score after each of its turns, the
  player's line (terracotta) and the engine's line (blue: the same turn played the engine's
  way), the costliest turns marked with a numbered gold badge over the gap between the lines.
  :func:`chart_layout` says where each point is drawn (for tests and for anything drawn over).
- A costly turn's picture is :mod:`render.review_turn`'s (the quilt around the two moves).

Both read only the review (plain data, as stored) and, for a turn, the seat's private view
before it: nothing secret reaches a picture. Words come from ``labels`` with the keys of
:data:`REVIEW_LABELS` (English fills any gap). They are kept apart from
:data:`render.theme.DEFAULT_LABELS` so that the bot's existing label lookup does not start
asking its catalogues for keys they do not have yet.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image

from engine.ai.review import Review
from engine.state import TURNS_PER_PLAYER
from render import theme
from render.common import badge, panel, text
from render.encode import to_png
from render.glyphs import drawer
from render.theme import RGB

PLAYER_LINE: RGB = theme.ACCENT  # terracotta
ENGINE_LINE: RGB = (52, 104, 176)  # blue, far from every other colour of the chart
MARK: RGB = theme.GOLD  # the costliest turns
GRID: RGB = (226, 214, 192)

PLOT_PAD = 14
CHART_WIDTH = 800
CHART_HEIGHT = 440
COMPARE_RADIUS = 22

REVIEW_LABELS: Mapping[str, str] = {
    "review_chart_title": "Expected final score",
    "review_you": "You",
    "review_engine": "Engine",
    "review_turn": "Turn",
    "review_before": "Before",
    "review_played": "You played",
    "review_engine_move": "Engine's move",
    "review_expected": "Expected",
    "review_took": "Took",
}


def review_label(labels: Mapping[str, str] | None, key: str) -> str:
    """The caller's text for ``key``, else the English of :data:`REVIEW_LABELS`."""
    if labels is not None and key in labels:
        return labels[key]
    return REVIEW_LABELS.get(key, key)


# --------------------------------------------------------------------------- chart


@dataclass(frozen=True, slots=True)
class ChartLayout:
    """Where the chart's plot area is and how turns and points map into it."""

    width: int
    height: int
    left: float  # plot area, in pixels
    top: float
    right: float
    bottom: float
    first: int  # turns shown on the x axis, first to last
    last: int
    lo: float  # points shown on the y axis, bottom to top
    hi: float

    def x(self, turn: int) -> float:
        pad = PLOT_PAD  # keep the first and last points (and their badges) off the frame
        return self.left + pad + (turn - self.first) * (self.right - self.left - 2 * pad) / max(
            1, self.last - self.first)

    def y(self, value: float) -> float:
        return self.bottom - (value - self.lo) * (self.bottom - self.top) / (self.hi - self.lo)

    def point(self, turn: int, value: float) -> tuple[float, float]:
        return self.x(turn), self.y(value)


def _grid_step(span: float) -> int:
    """Points between grid lines: at most about seven lines."""
    for step in (2, 5, 10, 20, 50):
        if span / step <= 7:
            return step
    return 100


def chart_layout(review: Review, width: int = CHART_WIDTH, height: int = CHART_HEIGHT
                 ) -> ChartLayout:
    """The layout :func:`draw_review_chart` uses for ``review`` at that size."""
    values = [v for t in review.turns for v in (t.ev_played, t.ev_engine)] or [0.0, 10.0]
    lo, hi = min(values), max(values)
    step = _grid_step(max(10.0, hi - lo + 4))
    lo = math.floor((lo - 1) / step) * step
    hi = math.ceil((hi + 1) / step) * step
    if hi - lo < 2 * step:
        hi = lo + 2 * step
    last = max([TURNS_PER_PLAYER, *(t.turn for t in review.turns)])
    return ChartLayout(width, height, left=58, top=74, right=width - 28, bottom=height - 66,
                       first=1, last=last, lo=lo, hi=hi)


def draw_review_chart(review: Review, *, labels: Mapping[str, str] | None = None,
                      width: int = CHART_WIDTH, height: int = CHART_HEIGHT) -> Image.Image:
    """The expected final score after each turn: the player's and the engine's lines, the
    costliest turns (``review.mistakes``) marked 1, 2, 3 over the gap between the lines."""
    lay = chart_layout(review, width, height)
    img = Image.new("RGB", (width, height), theme.BACKGROUND)
    panel(img, (lay.left - 12, lay.top - 14, lay.right + 14, lay.bottom + 12), radius=12,
          stitch=False)
    _axes(img, lay, labels)
    _lines(img, lay, review)
    for rank, m in enumerate(review.mistakes, 1):
        row = next((t for t in review.turns if t.turn == m.turn), None)
        if row is None:
            continue
        top = min(lay.y(row.ev_played), lay.y(row.ev_engine))
        badge(img, (lay.x(row.turn), max(lay.top + 8, top - 22)), str(rank), 14,
              fill=MARK, ink=theme.INK)
    if review.final_score is not None and review.turns:
        x, y = lay.point(review.turns[-1].turn, review.turns[-1].ev_played)
        text(img, (x - 10, y + 16), str(review.final_score), 18, weight=theme.BLACK,
             fill=PLAYER_LINE, anchor="rm")
    _title_and_legend(img, lay, labels)
    return img


def render_review_chart(review: Review, *, labels: Mapping[str, str] | None = None,
                        width: int = CHART_WIDTH, height: int = CHART_HEIGHT) -> bytes:
    """:func:`draw_review_chart` as PNG bytes."""
    return to_png(draw_review_chart(review, labels=labels, width=width, height=height))


def _axes(img: Image.Image, lay: ChartLayout, labels: Mapping[str, str] | None) -> None:
    d = drawer(img)
    step = _grid_step(lay.hi - lay.lo)
    v = lay.lo
    while v <= lay.hi + 1e-9:
        y = lay.y(v)
        d.line([(lay.left, y), (lay.right, y)], fill=GRID, width=1)
        text(img, (lay.left - 10, y), f"{v:g}", 17, weight=theme.BOLD, fill=theme.INK_SOFT,
             anchor="rm")
        v += step
    f = theme.font(17, theme.BOLD)
    for turn in range(lay.first, lay.last + 1):
        x = lay.x(turn)
        # Below the plot's card and its shadow, on the linen.
        d.text((x, lay.bottom + 19), str(turn), font=f, fill=theme.INK_SOFT, anchor="ma")
    text(img, ((lay.left + lay.right) / 2, lay.height - 6), review_label(labels, "review_turn"),
         17, weight=theme.BOLD, fill=theme.INK_SOFT, anchor="mb")


def _lines(img: Image.Image, lay: ChartLayout, review: Review) -> None:
    """Both lines, drawn at twice the size and reduced, for smooth edges; the engine's under
    the player's, the gaps of the costliest turns between them."""
    k = 2
    big = Image.new("RGBA", (lay.width * k, lay.height * k), (0, 0, 0, 0))
    d = drawer(big)
    marked = {m.turn for m in review.mistakes}
    for t in review.turns:
        if t.turn in marked:
            x = lay.x(t.turn) * k
            d.line([(x, lay.y(t.ev_engine) * k), (x, lay.y(t.ev_played) * k)], fill=MARK,
                   width=5 * k)
    for colour, values in ((ENGINE_LINE, [t.ev_engine for t in review.turns]),
                           (PLAYER_LINE, [t.ev_played for t in review.turns])):
        pts = [(lay.x(t.turn) * k, lay.y(v) * k) for t, v in zip(review.turns, values,
                                                                   strict=True)]
        if len(pts) > 1:
            d.line(pts, fill=colour, width=3 * k, joint="curve")
        r = 4 * k
        for x, y in pts:
            d.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    small = big.reduce(k)
    img.paste(small, (0, 0), small)


def _title_and_legend(img: Image.Image, lay: ChartLayout, labels: Mapping[str, str] | None
                      ) -> None:
    d = drawer(img)
    x = lay.right
    cy = 30.0
    for colour, key in ((ENGINE_LINE, "review_engine"), (PLAYER_LINE, "review_you")):
        w = text(img, (x, cy), review_label(labels, key), 17, weight=theme.BOLD,
                 fill=theme.INK, anchor="rm", max_w=160)
        x -= w + 10
        d.line([(x - 30, cy), (x, cy)], fill=colour, width=4)
        d.ellipse((x - 19, cy - 5, x - 11, cy + 5), fill=colour)
        x -= 30 + 22
    text(img, (lay.left - 40, cy), review_label(labels, "review_chart_title"), 24,
         weight=theme.BLACK, anchor="lm", max_w=x - lay.left + 20)
