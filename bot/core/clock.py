"""The time source for the core (the kernel), the timers and the outbox: injectable so that
tests can jump days ahead without sleeping.

All times are aware UTC datetimes. Storage keeps them as integer milliseconds since the epoch
(:func:`to_ms` / :func:`from_ms`) so that "is it due?" is an integer comparison in SQL.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock that only moves when told to (tests, the load generator's simulated days)."""

    def __init__(self, start: datetime | None = None) -> None:
        start = start or datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | float = 0.0, /, **kwargs: float) -> datetime:
        """Move forward by ``delta`` (a timedelta or seconds) plus any timedelta keywords, e.g.
        ``advance(hours=12)``; returns the new time."""
        step = delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        step += timedelta(**kwargs)
        if step < timedelta(0):
            raise ValueError("time only moves forward")
        self._now += step
        return self._now

    def set(self, when: datetime) -> None:
        if when.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = when.astimezone(UTC)


def to_ms(when: datetime) -> int:
    """Milliseconds since the Unix epoch (what the database stores)."""
    return int(when.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def iso_at(ms: int | None) -> str | None:
    """A stored time (ms) as ISO 8601, for notices."""
    return None if ms is None else from_ms(ms).isoformat()


def span_ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)
