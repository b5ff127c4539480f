"""A rating's history as an inline SVG line chart, drawn on the server (no script): one point
per rated game, axes labelled with the lowest and highest rating."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT, PAD = 600, 220, 36


@dataclass(frozen=True, slots=True)
class Plot:
    points: str  # the polyline's "x,y x,y ..."
    dots: tuple[tuple[float, float], ...]
    low: str
    high: str
    width: int = WIDTH
    height: int = HEIGHT
    pad: int = PAD


def rating_plot(values: Sequence[float]) -> Plot | None:
    """None with no point to draw."""
    if not values:
        return None
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    n = len(values)
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    flat = high == low  # one value (or all equal): a line across the middle
    dots = tuple(
        (round(PAD + (inner_w * i / (n - 1) if n > 1 else inner_w / 2), 1),
         round(PAD + inner_h / 2 if flat else PAD + inner_h - inner_h * (v - low) / span, 1))
        for i, v in enumerate(values))
    return Plot(" ".join(f"{x},{y}" for x, y in dots), dots, f"{low:.1f}", f"{high:.1f}")
