"""Patch tiles as small ints: ``color * 6 + pattern``; quilt cells hold a tile, EMPTY or GOAL."""

from __future__ import annotations

EMPTY = -1
GOAL = -2
KINDS = 36


def tile(color: int, pattern: int) -> int:
    return color * 6 + pattern


def color_of(t: int) -> int:
    return t // 6


def pattern_of(t: int) -> int:
    return t % 6


def tile_name(t: int, colors: tuple[str, ...], patterns: tuple[str, ...]) -> str:
    """``"yellow dots"``: how logs and tests show a tile."""
    return f"{colors[color_of(t)]} {patterns[pattern_of(t)]}"
