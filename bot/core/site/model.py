"""The web site's plain values: a game's steps as everyone saw them, a point of a rating's
history, a line of a server's recent games. Read by :mod:`bot.web` without the kernel."""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import Event
from engine.views import PublicView

SITE_KEY = "web_site"  # the /calico admin settings key (bot.core.servers keeps unknown keys)


@dataclass(frozen=True, slots=True)
class Step:
    """The table after one placement (``seat`` placed, ``events`` what followed), or, with
    ``seat`` None, the table when play started. A public view: no hand, no bag, no seed."""

    ply: int
    seat: int | None
    view: PublicView
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class RatingPoint:
    game_id: int
    at: int  # ms
    ordinal: float


@dataclass(frozen=True, slots=True)
class RecentGame:
    game_id: int
    status: str
    updated_at: int  # ms
    version: int
