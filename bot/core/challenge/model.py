"""The weekly challenge as plain values: its weeks, rows, boards, what ``/calico challenge``
shows one person, and its two notices (the DM at the end of an attempt, the week's summary in
a server's channel). The words read these without loading the service, the kernel or the
storage."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from bot.core.clock import from_ms, to_ms
from bot.core.models import GameInfo, LobbyOptions
from bot.core.notices import Body, Events, declare

OPTIONS = LobbyOptions(players=1)  # the week's game: solo, standard setup
CHANNEL_KEY = "challenge_channel_id"  # guild_settings JSON: where the summary is posted
LANGUAGE_KEY = "language"  # guild_settings JSON: the server's language, when set
PLAYED = "challenge_played"  # ManagerError code: one attempt a week
NOT_YET = "challenge_not_yet"  # ManagerError code: a replay or record before the week closes
BOARD_SIZE = 10
WEEK_MS = 7 * 86_400_000


def week_of(ms: int) -> tuple[str, int, int]:
    """The ISO week holding ``ms`` (UTC): its name (``2026-W48``), start and end (Monday
    00:00 UTC to the next Monday), in ms."""
    when = from_ms(ms).astimezone(dt.UTC)
    year, week, weekday = when.isocalendar()
    monday = dt.datetime(when.year, when.month, when.day, tzinfo=dt.UTC) - dt.timedelta(
        days=weekday - 1)
    start = to_ms(monday)
    return f"{year}-W{week:02d}", start, start + WEEK_MS


def previous_week(week_start: int) -> str:
    return week_of(week_start - 1)[0]


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    week: str
    seed: int
    options: str
    starts_at: int
    ends_at: int
    closed_at: int | None = None

    def open_at(self, now: int) -> bool:
        return self.closed_at is None and now < self.ends_at


@dataclass(frozen=True, slots=True)
class EntryRow:
    week: str
    user_id: int
    game_id: int
    guild_id: int
    score: int | None = None
    finished_at: int | None = None


# --------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class BoardLine:
    rank: int
    user_id: int
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class Board:
    lines: tuple[BoardLine, ...]
    entrants: int  # finished attempts
    mine: int | None = None  # the reader's rank, when they finished


@dataclass(frozen=True, slots=True)
class Standing:
    """What ``/calico challenge`` shows one person."""

    week: str
    ends_at: dt.datetime
    entry: EntryRow | None
    game: GameInfo | None  # their attempt
    server: Board | None  # None: not theirs to see yet (they have not finished)
    everywhere: Board | None
    last_week: str | None = None  # the previous week, when it closed with finishers
    last_server: Board | None = None
    last_everywhere: Board | None = None


# --------------------------------------------------------------------------- notices


@declare("challenge_over")
@dataclass(frozen=True, slots=True)
class Over(Body):
    """DM: your attempt is over (the game has no thread): its score, and whether it counts."""

    week: str
    score: int
    recorded: bool  # on the week's board
    late: bool  # ended after the week closed
    hints: bool  # a hint was taken
    events: Events = field(default_factory=Events)


@declare("challenge_summary")
@dataclass(frozen=True, slots=True)
class Summary(Body):
    """A closed week's board, posted in a server's challenge channel (a notice about no game)."""

    week: str
    guild_id: int
    entrants: int  # finished attempts in this server
    language: str | None
    top: tuple[tuple[int, int, str, int], ...]  # (rank, user id, name, score)
    everywhere: int  # finished attempts everywhere
    best: int | None  # the best score everywhere
