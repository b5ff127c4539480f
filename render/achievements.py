"""A player's achievements chart: the progress track (titles, one shape per point, the next
target) and every achievement, grouped as the rulebook groups them (scenarios, normal game,
rule restrictions), earned ones filled and marked, open ones pale.

The picture only reads the chart (``catalog.achievements``) and the ids the player holds; where
things sit is :func:`achievements_layout`, so tests and the bot can find a row's mark.
Words come from ``labels`` (keys of :data:`ACHIEVEMENT_LABELS`, English by default; the bot's
translations are ``achievements.image.<key>`` in ``bot/words/catalogue/*/achievements.json``).
A label may hold ``{placeholders}`` (``next``: ``{title}``, ``{target}``, ``{to_go}``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from data.catalog import AchievementChart, AchievementDef, AchievementMode
from engine.achievements import TrackPosition, progress
from render import sprites, theme
from render.common import panel, paste_at, text, wrap
from render.glyphs import drawer
from render.theme import RGB

WIDTH = 800
MARGIN = 16
PAD = 16  # inside a group panel
GAP = 12
HEAD_H = 66
TRACK_H = 194
GROUP_HEAD = 44
SCEN_R = 25
CHIP_H = 90
CHIP_GAP = 10
MARK_R = 9
NORMAL_PER_ROW = 6
# The smallest text: 17 px is a cap height of 6.5 px once the chart is shown 400 px wide.
TITLE_SIZE = 17
MIN_SIZE = 17

# Earned rows glow warm with a green tick; open rows stay pale linen with a hollow mark.
EARNED_FILL: RGB = (255, 236, 190)
EARNED_EDGE: RGB = theme.GOLD
OPEN_FILL: RGB = theme.SEAM
OPEN_EDGE: RGB = theme.INK_FAINT
SCENARIO_EARNED: RGB = theme.GOOD
SHAPE_OPEN: RGB = theme.SEAM

ACHIEVEMENT_LABELS: Mapping[str, str] = {
    "title": "Achievements",
    "points": "points",
    "score_points": "points",
    "no_title": "No title yet",
    "next": "Next: {title} at {target} points ({to_go} to go)",
    "complete": "Every achievement earned!",
    "group_scenario": "Scenarios",
    "group_normal": "Normal game (win)",
    "group_restriction": "Rule restrictions (win)",
    "level.budding-quilter": "Budding Quilter",
    "level.weekend-warrior": "Weekend Warrior",
    "level.impressive-skills": "Impressive Skills",
    "level.semi-pro": "Semi-Pro",
    "level.skilled-artisan": "Skilled Artisan",
    "level.master-quilter": "Calico Master Quilter!",
    "short.normal-rainbow": "Rainbow",
    "short.normal-no-buttons": "No buttons",
    "short.normal-no-cats": "No cats",
    "short.normal-no-goals": "No goals met",
    "short.normal-two-of-each-cat": "2 of each cat",
    "short.restriction-adjacent": "Next to a placed tile",
    "short.restriction-both-ways": "Goals only both ways",
    "short.restriction-no-hand": "No hand",
    "short.restriction-same-color": "Touch the same colour",
    "short.restriction-same-pattern": "Touch the same pattern",
}

MODES: tuple[AchievementMode, ...] = ("scenario", "normal", "restriction")
_CHIP_GROUPS: tuple[tuple[AchievementMode, int | None], ...] = (
    ("normal", NORMAL_PER_ROW), ("restriction", None))  # None: all on one line


def achievement_label(labels: Mapping[str, str] | None, key: str, **values: object) -> str:
    """The caller's text for ``key``, else the English default, formatted with ``values``
    (a translation with a wrong placeholder shows unformatted rather than failing)."""
    s = labels.get(key) if labels is not None else None
    if s is None:
        s = ACHIEVEMENT_LABELS.get(key, key)
    if not values:
        return s
    try:
        return s.format(**values)
    except (KeyError, IndexError, ValueError):
        return s


# --------------------------------------------------------------------------- layout

Box = tuple[float, float, float, float]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class AchievementsLayout:
    """Where everything sits in the image.

    ``boxes``: each shown achievement's chip (a scenario's circle box). ``marks``: the
    earned/open mark of each (a scenario: its circle's centre). ``swatches``: a point of each
    chip showing only its fill (earned or open colour). ``shapes``: the centre of each track
    shape, left to right. ``groups``: each mode's panel. ``size``: the image size.
    """

    size: tuple[int, int]
    track: Box
    shapes: tuple[Point, ...]
    shape_r: float
    level_spans: tuple[tuple[float, float], ...]  # x range of each title's stretch
    groups: Mapping[str, Box]
    boxes: Mapping[str, Box]
    marks: Mapping[str, Point]
    swatches: Mapping[str, Point]


@lru_cache(maxsize=8)
def achievements_layout(chart: AchievementChart, width: int = WIDTH) -> AchievementsLayout:
    """The layout of :func:`draw_achievements` for ``chart`` at ``width`` px."""
    inner_x0, inner_x1 = MARGIN + PAD, width - MARGIN - PAD
    inner_w = inner_x1 - inner_x0
    y = float(HEAD_H)

    # The track: stretches as wide as their shapes, but wide enough for the title under them.
    track = (MARGIN, y, width - MARGIN, y + TRACK_H)
    counts = [lv.shapes for lv in chart.track]
    gap = 10.0
    min_span = 104.0
    pitch = 24.0
    while pitch > 8:
        # A single-shape stretch (the last title) gets more room: its title is the longest.
        spans = [max(n * pitch, min_span * (1.2 if n == 1 else 1.0)) for n in counts]
        if sum(spans) + gap * (len(spans) - 1) <= inner_w:
            break
        pitch -= 1
        min_span = max(60.0, min_span - 4)
    total = sum(spans) + gap * (len(spans) - 1)
    x = inner_x0 + (inner_w - total) / 2
    shape_y = y + 84
    shapes: list[Point] = []
    level_spans: list[tuple[float, float]] = []
    for n, span in zip(counts, spans, strict=True):
        level_spans.append((x, x + span))
        first = x + (span - n * pitch) / 2 + pitch / 2
        shapes.extend((first + k * pitch, shape_y) for k in range(n))
        x += span + gap
    y += TRACK_H + GAP

    groups: dict[str, Box] = {}
    boxes: dict[str, Box] = {}
    marks: dict[str, Point] = {}
    swatches: dict[str, Point] = {}

    # Scenarios: one numbered circle each, in a row.
    rows = chart.of_mode("scenario")
    h = GROUP_HEAD + 2 * SCEN_R + 22
    groups["scenario"] = (MARGIN, y, width - MARGIN, y + h)
    step = inner_w / max(1, len(rows))
    cy = y + GROUP_HEAD + SCEN_R + 4
    for i, a in enumerate(rows):
        cx = inner_x0 + step * (i + 0.5)
        boxes[a.id] = (cx - SCEN_R, cy - SCEN_R, cx + SCEN_R, cy + SCEN_R)
        marks[a.id] = (cx, cy)
        swatches[a.id] = (cx - SCEN_R * 0.72, cy)
    y += h + GAP

    for mode, per_row in _CHIP_GROUPS:
        rows = chart.of_mode(mode)
        n = len(rows)
        per = per_row or max(1, n)
        lines = max(1, math.ceil(n / per))
        h = GROUP_HEAD + lines * CHIP_H + (lines - 1) * CHIP_GAP + PAD
        groups[mode] = (MARGIN, y, width - MARGIN, y + h)
        chip_w = (inner_w - (per - 1) * CHIP_GAP) / per
        for i, a in enumerate(rows):
            line, col = divmod(i, per)
            in_line = min(per, n - line * per)
            x0 = inner_x0 + (inner_w - in_line * chip_w - (in_line - 1) * CHIP_GAP) / 2
            x0 += col * (chip_w + CHIP_GAP)
            y0 = y + GROUP_HEAD + line * (CHIP_H + CHIP_GAP)
            boxes[a.id] = (x0, y0, x0 + chip_w, y0 + CHIP_H)
            marks[a.id] = (x0 + chip_w - MARK_R - 6, y0 + MARK_R + 6)
            swatches[a.id] = (x0 + 7, y0 + CHIP_H / 2)
        y += h + GAP

    return AchievementsLayout((width, math.ceil(y - GAP + MARGIN)), track, tuple(shapes),
                              min(pitch * 0.44, 11.0), tuple(level_spans), groups, boxes,
                              marks, swatches)


# --------------------------------------------------------------------------- drawing


def draw_achievements(
    chart: AchievementChart,
    earned: Collection[str],
    *,
    name: str | None = None,
    labels: Mapping[str, str] | None = None,
    width: int = WIDTH,
) -> Image.Image:
    """The chart of a player holding the achievement ids ``earned`` (RGB image)."""
    lay = achievements_layout(chart, width)
    have = frozenset(earned)
    pos = progress(chart, have)
    img = Image.new("RGB", lay.size, theme.BACKGROUND)

    text(img, (MARGIN + 4, HEAD_H * 0.52), achievement_label(labels, "title"), 32,
         weight=theme.BLACK, anchor="lm", max_w=width * 0.5)
    if name:
        text(img, (width - MARGIN - 4, HEAD_H * 0.52), name, 26, weight=theme.BOLD,
             fill=theme.INK_SOFT, anchor="rm", max_w=width * 0.42)

    _draw_track(img, chart, lay, pos, labels)
    for mode in MODES:
        _draw_group(img, chart, lay, mode, have, labels)
    return img


def _level_colors(n: int) -> list[RGB]:
    """A fabric colour per title, the last (the master's star) gold."""
    fabrics = [f for f, _ in theme.tile_palette()]
    order = (2, 3, 0, 4, 1, 5)  # light blue, magenta, dark blue, purple, green, yellow
    out = [fabrics[order[i % len(order)] % len(fabrics)] for i in range(n)]
    if n:
        out[-1] = theme.GOLD
    return out


def _draw_track(img: Image.Image, chart: AchievementChart, lay: AchievementsLayout,
                pos: TrackPosition, labels: Mapping[str, str] | None) -> None:
    x0, y0, x1, y1 = lay.track
    panel(img, lay.track, radius=16, stitch=True)
    levels = chart.track
    title = (achievement_label(labels, f"level.{levels[pos.title].id}")
             if pos.title is not None else achievement_label(labels, "no_title"))
    # Points so far in a dark pill on the right, the title reached on the left.
    d = drawer(img)
    pts = f"{pos.points}/{pos.total}"
    f = theme.font(26, theme.BLACK)
    pw = f.getlength(pts) + 28
    pill = (x1 - PAD - pw, y0 + 16, x1 - PAD, y0 + 52)
    d.rounded_rectangle(pill, radius=18, fill=theme.INK)
    d.text(((pill[0] + pill[2]) / 2, (pill[1] + pill[3]) / 2), pts, font=f, fill=theme.SEAM,
           anchor="mm")
    text(img, (pill[0] - 8, y0 + 34), achievement_label(labels, "points"), 17,
         fill=theme.INK_SOFT, anchor="rm", max_w=120)
    text(img, (x0 + PAD + 4, y0 + 34), title, 26, weight=theme.BLACK,
         fill=theme.INK if pos.title is not None else theme.INK_SOFT, anchor="lm",
         max_w=pill[0] - x0 - PAD - 140)

    colors = _level_colors(len(levels))
    k = 0
    for li, level in enumerate(levels):
        for _ in range(level.shapes):
            filled = k < pos.points
            at = lay.shapes[k]
            paste_at(img, track_shape(level.shape, round(lay.shape_r * 2) if level.shape ==
                                      "star" else round(lay.shape_r), colors[li] if filled
                                      else None, k == pos.next_shape), at)
            k += 1
        sx0, sx1 = lay.level_spans[li]
        # The title under its stretch, dark once reached, on up to three lines.
        reached = pos.title is not None and li <= pos.title
        # (Dark ink either way, big enough for a phone: the weight says which are reached.)
        ft = theme.font(TITLE_SIZE, theme.BLACK if reached else theme.BOLD)
        lines = wrap(achievement_label(labels, f"level.{level.id}"), ft, sx1 - sx0)[:3]
        ty = lay.shapes[0][1] + 28
        for n, line in enumerate(lines):
            text(img, ((sx0 + sx1) / 2, ty + n * (TITLE_SIZE + 2)), line, TITLE_SIZE,
                 weight=theme.BLACK if reached else theme.BOLD, fill=theme.INK, anchor="mm",
                 max_w=sx1 - sx0)
        if li:
            # A stitch between stretches.
            gx = sx0 - 5
            d.line([(gx, lay.shapes[0][1] - 14), (gx, lay.shapes[0][1] + 14)],
                   fill=theme.INK_FAINT, width=2)
    if pos.complete:
        note = achievement_label(labels, "complete")
    else:
        assert pos.next_level is not None and pos.to_next is not None
        note = achievement_label(labels, "next",
                                 title=achievement_label(labels,
                                                         f"level.{levels[pos.next_level].id}"),
                                 target=pos.next_target, to_go=pos.to_next)
    text(img, ((x0 + x1) / 2, y1 - 20), note, 18, weight=theme.BOLD,
         fill=theme.ACCENT, anchor="mm", max_w=x1 - x0 - 2 * PAD)


@lru_cache(maxsize=64)
def track_shape(kind: str, r: int, fill: RGB | None, is_next: bool) -> Image.Image:
    """One shape of the progress track: filled in ``fill`` once earned, else hollow; the next
    one to fill has a terracotta ring."""
    pen = sprites.Pen(2 * r + 8, r, (0, 0, 0, 0), mode="RGBA")
    body = fill if fill is not None else SHAPE_OPEN
    edge = theme.ACCENT if is_next else (theme.mix(body, theme.INK, 0.45) if fill is not None
                                         else theme.INK_FAINT)
    width = 0.2 if is_next else 0.11
    pts = _shape_points(kind)
    if kind == "button":
        pen.circle(0, 0, 0.9, fill=body, outline=edge, width=width)
        for dx, dy in ((-0.22, -0.22), (0.22, 0.22), (0.22, -0.22), (-0.22, 0.22)):
            pen.circle(dx, dy, 0.1, fill=edge if fill is not None else theme.INK_FAINT)
    elif kind == "heart":
        pen.circle(-0.42, -0.28, 0.46, fill=body)
        pen.circle(0.42, -0.28, 0.46, fill=body)
        pen.poly(pts, fill=body)
        pen.draw.arc((*pen.p(-0.88, -0.74), *pen.p(0.04, 0.18)), 135, 360, fill=edge,
                     width=max(1, round(width * pen.k)))
        pen.draw.arc((*pen.p(-0.04, -0.74), *pen.p(0.88, 0.18)), 180, 45, fill=edge,
                     width=max(1, round(width * pen.k)))
        pen.line([(-0.76, 0.05), (0.0, 0.86), (0.76, 0.05)], fill=edge, width=width)
    else:
        pen.poly(pts, fill=body, outline=edge, width=width)
        if kind == "spool":
            for y in (-0.3, 0.3):  # thread wound on it (the centre stays plain)
                pen.line([(-0.42, y), (0.42, y)], fill=edge, width=0.07)
    return pen.image()


def _shape_points(kind: str) -> list[tuple[float, float]]:
    if kind == "diamond":
        return [(0, -0.95), (0.72, 0), (0, 0.95), (-0.72, 0)]
    if kind == "heart":
        return [(-0.86, -0.2), (0.0, 0.86), (0.86, -0.2), (0.0, -0.3)]
    if kind == "spool":
        return [(-0.78, -0.9), (0.78, -0.9), (0.78, -0.66), (0.5, -0.56), (0.5, 0.56),
                (0.78, 0.66), (0.78, 0.9), (-0.78, 0.9), (-0.78, 0.66), (-0.5, 0.56),
                (-0.5, -0.56), (-0.78, -0.66)]
    if kind == "star":
        pts = []
        for i in range(10):
            a = -math.pi / 2 + i * math.pi / 5
            rr = 0.95 if i % 2 == 0 else 0.42
            pts.append((rr * math.cos(a), rr * math.sin(a) + 0.06))
        return pts
    return sprites.hex_points(0.92)  # hex, and anything unknown


def _draw_group(img: Image.Image, chart: AchievementChart, lay: AchievementsLayout,
                mode: AchievementMode, have: frozenset[str],
                labels: Mapping[str, str] | None) -> None:
    box = lay.groups[mode]
    panel(img, box, radius=16, stitch=False)
    rows = chart.of_mode(mode)
    got = sum(1 for a in rows if a.id in have)
    x0, y0, x1, _ = box
    text(img, (x0 + PAD + 4, y0 + GROUP_HEAD / 2 + 2), achievement_label(labels, f"group_{mode}"),
         21, weight=theme.BLACK, anchor="lm", max_w=(x1 - x0) * 0.7)
    text(img, (x1 - PAD - 4, y0 + GROUP_HEAD / 2 + 2), f"{got}/{len(rows)}", 21,
         weight=theme.BLACK, fill=theme.INK_SOFT, anchor="rm")
    for a in rows:
        if mode == "scenario":
            _scenario_circle(img, lay, a, a.id in have)
        else:
            _chip(img, lay, a, a.id in have, labels)


def _scenario_circle(img: Image.Image, lay: AchievementsLayout, a: AchievementDef,
                     earned: bool) -> None:
    cx, cy = lay.marks[a.id]
    d = drawer(img)
    r = SCEN_R
    if earned:
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=SCENARIO_EARNED,
                  outline=theme.mix(SCENARIO_EARNED, theme.INK, 0.4), width=3)
    else:
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=OPEN_FILL, outline=OPEN_EDGE, width=3)
    d.text((cx, cy + 1), str(a.scenario), font=theme.font(24, theme.BLACK),
           fill=theme.SEAM if earned else theme.INK_SOFT, anchor="mm")


def _chip(img: Image.Image, lay: AchievementsLayout, a: AchievementDef, earned: bool,
          labels: Mapping[str, str] | None) -> None:
    x0, y0, x1, y1 = lay.boxes[a.id]
    d = drawer(img)
    d.rounded_rectangle((x0, y0, x1, y1), radius=12, fill=EARNED_FILL if earned else OPEN_FILL,
                        outline=EARNED_EDGE if earned else OPEN_EDGE, width=3 if earned else 2)
    paste_at(img, _mark(earned, MARK_R), lay.marks[a.id])
    cx = (x0 + x1) / 2
    ink = theme.INK if earned else theme.INK_SOFT
    cond = a.condition
    if a.mode == "normal" and cond is not None and cond.min_score is not None and (
            not cond.rainbow and cond.max_buttons is None and cond.max_cats is None
            and cond.max_goals_met is None and cond.min_each_cat is None):
        text(img, (cx, y0 + 32), a.printed or f"{cond.min_score}+", 30, weight=theme.BLACK,
             fill=ink, anchor="mm", max_w=x1 - x0 - 2 * MARK_R - 16)
        text(img, (cx, y1 - 15), achievement_label(labels, "score_points"), MIN_SIZE, fill=ink,
             anchor="mm", max_w=x1 - x0 - 12)
        return
    caption = achievement_label(labels, f"short.{a.id}")
    if a.mode == "normal":
        # The icon in the upper half, the caption (one or two lines) under it.
        size, lines = fit_lines(caption, x1 - x0 - 12, MIN_SIZE, 2)
        # (The wide "cats x2" icon moves left, clear of the mark in the corner.)
        dx = -7 if a.id.endswith("two-of-each-cat") else 0
        paste_at(img, row_icon(a.id, 16), (cx + dx, y0 + (24 if len(lines) > 1 else 28)))
        step = size + 2
        top = y1 - 13 - step * (len(lines) - 1)
    else:
        # A restriction's chip is its caption, up to three lines, centred.
        size, lines = fit_lines(caption, x1 - x0 - 2 * MARK_R - 14, MIN_SIZE, 3)
        step = size + 2
        top = (y0 + y1) / 2 + 2 - step * (len(lines) - 1) / 2
    for n, line in enumerate(lines):
        text(img, (cx, top + n * step), line, size, fill=ink, anchor="mm",
             max_w=x1 - x0 - 10)


def fit_lines(s: str, max_w: float, size: int, max_lines: int) -> tuple[int, list[str]]:
    """The largest font size (down to :data:`MIN_SIZE`) at which ``s`` wraps into
    ``max_lines`` lines of at most ``max_w`` px, and those lines (the last ones dropped if even
    that size needs more)."""
    floor = min(size, MIN_SIZE)
    for sz in range(size, floor - 1, -1):
        f = theme.font(sz, theme.BOLD)
        lines = wrap(s, f, max_w)
        if len(lines) <= max_lines and all(f.getlength(line) <= max_w for line in lines):
            return sz, lines
    return floor, wrap(s, theme.font(floor, theme.BOLD), max_w)[:max_lines]


@lru_cache(maxsize=8)
def _mark(earned: bool, r: int) -> Image.Image:
    """Earned: a green disc with a tick. Open: a hollow ring."""
    pen = sprites.Pen(2 * r + 4, r, (0, 0, 0, 0), mode="RGBA")
    if earned:
        pen.circle(0, 0, 1.0, fill=theme.GOOD)
        pen.line([(-0.45, 0.02), (-0.12, 0.36), (0.48, -0.32)], fill=theme.SEAM, width=0.24)
    else:
        pen.circle(0, 0, 1.0, fill=OPEN_FILL, outline=OPEN_EDGE, width=0.2)
    return pen.image()


@lru_cache(maxsize=16)
def row_icon(achievement_id: str, r: int) -> Image.Image:
    """The icon of a normal-game row that is not a score: what the chart's legend shows (a
    rainbow button; a button, a cat or a goal crossed out; cats twice)."""
    size = 6 * r
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    c = size / 2
    cross = True
    if achievement_id.endswith("rainbow"):
        paste_at(img, sprites.button_token(-1, r), (c, c))
        cross = False
    elif achievement_id.endswith("no-buttons"):
        paste_at(img, sprites.button_token(0, r), (c, c))
    elif achievement_id.endswith("no-cats"):
        paste_at(img, sprites.cat_token(None, r), (c, c))
    elif achievement_id.endswith("no-goals"):
        pen = sprites.Pen(2 * r + 8, r, (0, 0, 0, 0), mode="RGBA")
        pen.poly(sprites.hex_points(0.95), fill=theme.GOAL_FILL, outline=theme.GOAL_FRAME,
                 width=0.14)
        goal = pen.image()
        drawer(goal).text((goal.width / 2, goal.height / 2), "≠",
                          font=theme.font(round(r * 1.1), theme.BLACK), fill=theme.INK,
                          anchor="mm")
        paste_at(img, goal, (c, c))
    else:  # two of each cat: the three cat faces, "×2"
        cross = False
        small = max(6, round(r * 0.72))
        for i, cat in enumerate(("leo", "callie", "millie")):
            paste_at(img, sprites.cat_token(cat, small), (c - 1.9 * small + i * 1.55 * small, c))
        drawer(img).text((c + 2.4 * small, c), "×2", font=theme.font(
            round(r * 1.05), theme.BLACK), fill=theme.INK, anchor="lm")
    if cross:
        d = drawer(img)
        k = r * 1.05
        d.line([(c - k, c + k), (c + k, c - k)], fill=theme.BAD, width=max(3, r // 4))
    return img
