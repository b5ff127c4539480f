"""A review and a hint as the Discord layer shows them: plain values (the words read them
without loading the service)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.core.models import GameInfo
from engine.ai.hints import Hint
from engine.ai.review import Review
from engine.views import PrivateView


@dataclass(frozen=True, slots=True)
class ReviewOutcome:
    """A review as the Discord layer shows it."""

    game: GameInfo
    seat: int
    review: Review
    created_at: datetime  # when it was computed (and stored)
    computed: bool  # computed for this request (False: it was stored already)
    seconds: float | None = None  # wall seconds of the computation, when computed here
    cpu: float | None = None  # CPU seconds the worker spent on it, when computed here


@dataclass(frozen=True, slots=True)
class HintsOutcome:
    game: GameInfo  # after the hint was taken (marked)
    seat: int
    view: PrivateView
    hints: tuple[Hint, ...]
    samples: int  # sampled futures behind each value
    first: bool  # this request marked the game
