"""A small seeded generator (SplitMix64) whose whole state is one int kept in the game state.

Python's ``random`` would work too, but its state is 625 words; one int keeps stored games small
and makes "the generator state is secret" easy to check.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int) -> int:
    """The starting generator state for a user-facing seed (any int)."""
    return (seed * 0xD1B54A32D192ED03 + 0x632BE59BD9B4E019) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Advance ``state``; return ``(new_state, 64 random bits)``."""
    state = (state + _GOLDEN) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform-enough int in ``[0, n)`` (bias < n / 2**64)."""
    state, x = next_u64(state)
    return state, x % n


def shuffled(state: int, items: list[T]) -> tuple[int, list[T]]:
    """A Fisher-Yates shuffled copy of ``items``."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, out
