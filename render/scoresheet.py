"""The score sheet at the end: goals, cats, buttons and totals per player, and the winner; in a
solo scenario, whether it was passed and how each of its targets went."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image

from engine.events import ScenarioResult
from engine.scoring import rank
from engine.views import PublicView
from render import sprites, theme
from render.common import fit_font, panel, paste_at, text
from render.geometry import quilt_layout
from render.glyphs import drawer
from render.quilt import draw_quilt
from render.table import player_name
from render.theme import RGB

WIDTH = 800
MARGIN = 16
THUMB_RADIUS = 11
MEDALS: tuple[RGB, ...] = ((222, 168, 56), (176, 180, 188), (210, 148, 98))


def draw_scoresheet(
    view: PublicView,
    names: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    width: int = WIDTH,
    scenario: ScenarioResult | None = None,
) -> Image.Image:
    """Every player's final score, best first, with the Master Quilter marked; with
    ``scenario`` (a solo scenario's result), a panel saying whether it was passed and, for
    each target, what was needed and reached."""
    scores: list[dict[str, Any]] = [dict(s.score) for s in view.seats]
    places, winners, decided = rank(scores)
    order = sorted(range(len(scores)), key=lambda i: (places[i], i))
    lay = quilt_layout(THUMB_RADIUS, header=False)
    tw, th = lay.size
    row_h = th + 16
    title_h = 64
    head_h = 62
    note = _tiebreak_note(decided, len(scores), labels)
    foot_h = 56 if note else 12
    scenario_h = SCENARIO_H + 10 if scenario is not None else 0
    height = title_h + head_h + len(order) * (row_h + 10) + scenario_h + foot_h + MARGIN
    img = Image.new("RGB", (width, height), theme.BACKGROUND)

    text(img, (width / 2, title_h * 0.55), theme.label(labels, "final_scores"), 36,
         weight=theme.BLACK, anchor="mm", max_w=width - 2 * MARGIN)
    # Column centres: goals, cats, buttons, total.
    cols = (width - 320, width - 240, width - 160, width - 74)
    name_x = MARGIN + 16 + 46 + tw + 14
    _column_heads(img, cols, title_h + head_h / 2, labels)

    y = float(title_h + head_h)
    for i in order:
        won = i in winners
        fill = (255, 246, 222) if won else theme.PANEL
        panel(img, (MARGIN, y, width - MARGIN, y + row_h), fill=fill, radius=14,
              edge=theme.GOLD if won else theme.INK_FAINT, stitch=won)
        cy = y + row_h / 2
        _medal(img, (MARGIN + 16 + 20, cy), places[i])
        q = draw_quilt(view.seats[i], view.config, radius=THUMB_RADIUS, header=False,
                       hints=False, words=False)
        img.paste(q, (MARGIN + 16 + 46, round(y + 8)))
        name = player_name(names, i)
        max_name = cols[0] - 40 - name_x
        if won:
            text(img, (name_x, cy - 14), name, 26, weight=theme.BLACK, anchor="lm",
                 max_w=max_name)
            paste_at(img, rosette(15), (name_x + 14, cy + 22))
            text(img, (name_x + 34, cy + 22), theme.label(labels, "master_quilter"), 18,
                 weight=theme.BOLD, fill=theme.ACCENT, anchor="lm", max_w=max_name - 34)
        else:
            text(img, (name_x, cy), name, 26, weight=theme.BOLD, anchor="lm", max_w=max_name)
        s = scores[i]
        _value(img, cols[0], cy, s.get("goal_points", 0), None)
        _goal_marks(img, cols[0], cy + 22, s)
        _value(img, cols[1], cy, s.get("cat_points", 0), f"×{s.get('cat_tokens', 0)}")
        _value(img, cols[2], cy, s.get("button_points", 0), f"×{s.get('button_tokens', 0)}")
        d = drawer(img)
        d.rounded_rectangle((cols[3] - 40, cy - 26, cols[3] + 40, cy + 26), radius=26,
                            fill=theme.INK)
        d.text((cols[3], cy), str(s.get("total", 0)), font=theme.font(34, theme.BLACK),
               fill=theme.SEAM, anchor="mm")
        y += row_h + 10
    if scenario is not None:
        draw_scenario(img, scenario, (MARGIN, y, width - MARGIN, y + SCENARIO_H), labels)
        y += scenario_h
    if note:
        text(img, (width / 2, y + foot_h / 2 - 4), note, 22, weight=theme.BOLD,
             fill=theme.INK_SOFT, anchor="mm", max_w=width - 2 * MARGIN)
    return img


SCENARIO_H = 132
CHIP_H = 64


def draw_scenario(img: Image.Image, result: ScenarioResult,
                  box: tuple[float, float, float, float],
                  labels: Mapping[str, str] | None) -> None:
    """The scenario panel: "Scenario N: passed / not passed", then one chip per target with
    its name, reached/needed, green when met and red when missed."""
    x0, y0, x1, y1 = box
    ok = result.passed
    panel(img, box, fill=(236, 246, 232) if ok else (250, 236, 230), radius=14,
          edge=theme.GOOD if ok else theme.BAD, stitch=True)
    head_y = y0 + 30
    paste_at(img, verdict_mark(ok, 14), (x0 + 34, head_y))
    head = f"{theme.label(labels, 'scenario')} {result.number}: " + theme.label(
        labels, "scenario_passed" if ok else "scenario_failed")
    text(img, (x0 + 56, head_y), head, 24, weight=theme.BLACK,
         fill=theme.GOOD if ok else theme.BAD, anchor="lm", max_w=x1 - x0 - 72)
    n = max(1, len(result.conditions))
    gap = 10
    chip_w = (x1 - x0 - 32 - (n - 1) * gap) / n
    cy = y1 - 16 - CHIP_H / 2
    d = drawer(img)
    for k, (name, needed, reached, met) in enumerate(result.conditions):
        cx0 = x0 + 16 + k * (chip_w + gap)
        ink = theme.GOOD if met else theme.BAD
        d.rounded_rectangle((cx0, cy - CHIP_H / 2, cx0 + chip_w, cy + CHIP_H / 2), radius=12,
                            fill=theme.SEAM, outline=ink, width=3)
        paste_at(img, verdict_mark(bool(met), 9), (cx0 + 18, cy - 12))
        text(img, (cx0 + 32, cy - 12), theme.label(labels, f"cond_{name}"), 17,
             weight=theme.BOLD, fill=theme.INK_SOFT, anchor="lm", max_w=chip_w - 40)
        text(img, (cx0 + chip_w / 2, cy + 14), f"{reached}/{needed}", 24, weight=theme.BLACK,
             fill=ink, anchor="mm", max_w=chip_w - 16)


@lru_cache(maxsize=8)
def verdict_mark(ok: bool, r: int) -> Image.Image:
    """A round tick (met, green) or cross (missed, red)."""
    pen = sprites.Pen(2 * r + 4, r, (0, 0, 0, 0), mode="RGBA")
    pen.circle(0, 0, 1.0, fill=theme.GOOD if ok else theme.BAD)
    if ok:
        pen.line([(-0.45, 0.02), (-0.12, 0.36), (0.48, -0.32)], fill=theme.SEAM, width=0.22)
    else:
        pen.line([(-0.36, -0.36), (0.36, 0.36)], fill=theme.SEAM, width=0.22)
        pen.line([(0.36, -0.36), (-0.36, 0.36)], fill=theme.SEAM, width=0.22)
    return pen.image()


def _tiebreak_note(decided: str, players: int, labels: Mapping[str, str] | None) -> str:
    """Say what broke the tie, when points alone did not decide."""
    if players < 2 or decided == "score":
        return ""
    key = {"cats": "tiebreak_cats", "buttons": "tiebreak_buttons",
           "shared": "tiebreak_shared"}.get(decided)
    return theme.label(labels, key) if key else ""


def _column_heads(img: Image.Image, cols: tuple[int, ...], cy: float,
                  labels: Mapping[str, str] | None) -> None:
    icons = (_goal_icon(16), sprites.cat_token(None, 16), sprites.button_token(0, 16), None)
    keys = ("goals", "cats", "buttons", "total")
    for x, icon, key in zip(cols, icons, keys, strict=True):
        if icon is not None:
            paste_at(img, icon, (x, cy - 10))
        text(img, (x, cy + 19 if icon is not None else cy + 6), theme.label(labels, key), 17,
             weight=theme.BOLD, fill=theme.INK_SOFT, anchor="mm", max_w=88)


def _value(img: Image.Image, x: float, cy: float, points: object, detail: str | None) -> None:
    text(img, (x, cy - 8), str(points), 32, weight=theme.BLACK, anchor="mm")
    if detail:
        text(img, (x, cy + 22), detail, 17, weight=theme.BOLD, fill=theme.INK_SOFT, anchor="mm")


def _goal_marks(img: Image.Image, x: float, cy: float, score: Mapping[str, Any]) -> None:
    """A disc per goal tile: full when met both ways, half when one way, hollow when not."""
    goals = [g for g in score.get("goals", []) if g.get("goal") is not None]
    d = drawer(img)
    r = 6
    x0 = x - (len(goals) - 1) * (2 * r + 5) / 2
    for k, g in enumerate(goals):
        n = int(bool(g.get("colors"))) + int(bool(g.get("patterns")))
        cx = x0 + k * (2 * r + 5)
        box = (cx - r, cy - r, cx + r, cy + r)
        d.ellipse(box, fill=theme.SEAM, outline=theme.INK_SOFT, width=2)
        if n == 2:
            d.ellipse(box, fill=theme.GOOD, outline=theme.INK_SOFT, width=2)
        elif n == 1:
            d.pieslice(box, 90, 270, fill=theme.GOOD, outline=theme.INK_SOFT, width=2)


def _medal(img: Image.Image, at: tuple[float, float], place: int) -> None:
    d = drawer(img)
    x, y = at
    r = 19
    fill = MEDALS[place - 1] if place <= len(MEDALS) else theme.INK_FAINT
    d.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=theme.SEAM)
    d.ellipse((x - r, y - r, x + r, y + r), fill=fill)
    f = fit_font(str(place), 2 * r - 6, 24, theme.BLACK)
    d.text((x, y + 1), str(place), font=f, fill=theme.INK, anchor="mm")


@lru_cache(maxsize=8)
def rosette(r: int) -> Image.Image:
    """A prize rosette: ribbons under a pleated disc."""
    size = 2 * r + 8
    pen = sprites.Pen(size, r, (0, 0, 0, 0), mode="RGBA")
    for side in (-1, 1):
        pen.poly([(side * 0.15, 0.2), (side * 0.62, 1.05), (side * 0.4, 0.92),
                  (side * 0.25, 1.1), (side * -0.12, 0.3)], fill=theme.mix(theme.ACCENT,
                                                                            theme.INK, 0.2))
    pts = []
    for i in range(32):
        a = math.tau * i / 32
        rr = 0.8 if i % 2 else 0.68
        pts.append((rr * math.cos(a), -0.1 + rr * math.sin(a)))
    pen.poly(pts, fill=theme.ACCENT)
    pen.circle(0, -0.1, 0.46, fill=theme.GOLD)
    pen.circle(0, -0.1, 0.3, fill=(250, 218, 120))
    return pen.image()


@lru_cache(maxsize=8)
def _goal_icon(r: int) -> Image.Image:
    size = sprites.sprite_size(r)
    pen = sprites.Pen(size, r, (0, 0, 0, 0), mode="RGBA")
    pen.poly(sprites.hex_points(0.95), fill=theme.GOAL_FILL, outline=theme.GOAL_FRAME, width=0.14)
    img = pen.image()
    drawer(img).text((size / 2, size / 2), "≠", font=theme.font(round(r * 1.1),
                     theme.BLACK), fill=theme.INK, anchor="mm")
    return img
