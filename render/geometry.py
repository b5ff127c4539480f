"""Hex geometry: where each quilt cell sits in an image (pointy-top, odd rows shifted right)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from engine.hexgrid import CELLS, SIZE, row_col

SQRT3 = math.sqrt(3.0)
DEFAULT_RADIUS = 44


def hex_corners(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex, clockwise from the top."""
    return [
        (cx + radius * math.sin(math.radians(60 * i)), cy - radius * math.cos(math.radians(60 * i)))
        for i in range(6)
    ]


@dataclass(frozen=True, slots=True)
class QuiltLayout:
    """Where the board sits in a quilt image drawn with hexes of ``radius`` (centre to corner)."""

    radius: int
    margin: int
    header: int  # height of the name and score bar above the board

    @property
    def hex_width(self) -> float:
        return SQRT3 * self.radius

    @property
    def size(self) -> tuple[int, int]:
        w = 2 * self.margin + 7.5 * self.hex_width
        h = self.header + 2 * self.margin + (2 + 1.5 * (SIZE - 1)) * self.radius
        return math.ceil(w), math.ceil(h)

    def center(self, cell: int) -> tuple[float, float]:
        r, c = row_col(cell)
        w = self.hex_width
        x = self.margin + w / 2 + c * w + (w / 2 if r & 1 else 0.0)
        y = self.header + self.margin + self.radius + r * 1.5 * self.radius
        return x, y

    def cell_at(self, x: float, y: float) -> int | None:
        """The cell whose hex contains the point (x, y), or None outside the board."""
        best, best_d = None, float("inf")
        for cell in range(CELLS):
            cx, cy = self.center(cell)
            d = (cx - x) ** 2 + (cy - y) ** 2
            if d < best_d:
                best, best_d = cell, d
        return best if best_d <= self.radius**2 else None


@lru_cache(maxsize=32)
def quilt_layout(radius: int = DEFAULT_RADIUS, *, header: bool = True,
                 header_h: int | None = None) -> QuiltLayout:
    """The layout ``render_quilt`` uses for hexes of ``radius`` px (the default: a DM quilt);
    ``header=False`` for the thumbnails on the score sheet; ``header_h``: a header taller than
    the radius (small quilts in a grid whose names and scores must still read)."""
    margin = max(4, round(radius * 0.32))
    head = (header_h if header_h is not None else max(18, radius)) if header else 0
    return QuiltLayout(radius, margin, head)


def cell_center(cell: int, radius: int = DEFAULT_RADIUS, *, header: bool = True) -> tuple[int, int]:
    """Pixel centre of ``cell`` (0..48, ``r * 7 + c``) in a quilt image of that ``radius``.

    The turn image puts the quilt at its top-left corner, so the same centres hold there.
    """
    x, y = quilt_layout(radius, header=header).center(cell)
    return round(x), round(y)
