"""Achievements and ratings as plain values: who is rated as what, what one person earned
from one game (and the score sheet's part made of it), a person's chart and rating, a line of
the rating board, and the stored rows. The words (:mod:`bot.words.progress`) read these
without loading the service, the kernel or the storage."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.notices import Part, declare_part
from engine.achievements import TrackPosition

MIN_RATED_GAMES = 3  # rated games before a player appears on the rating leaderboard
EVERYWHERE = 0  # the scope of ratings across every server
PUBLIC = 0  # the reader of a public board: nobody in particular (no user has id 0)
# Computer levels that make a game multi-player for the normal-game and restriction rows.
COUNTING_LEVELS = frozenset({"normal", "strong"})


def person_key(user_id: int) -> str:
    return f"u:{user_id}"


def computer_key(level: str) -> str:
    return f"ai:{level}"


def user_of(player: str) -> int | None:
    """The user id of a ``u:<id>`` rated player (None for a computer level)."""
    if player.startswith("u:") and player[2:].isdigit():
        return int(player[2:])
    return None


def level_of(player: str) -> str | None:
    return player[3:] if player.startswith("ai:") else None


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class AchievementRow:
    user_id: int
    achievement: str
    game_id: int
    guild_id: int
    earned_at: int


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player's skill rating in one scope (a server id, 0: every server). ``player`` is
    ``u:<user id>`` or ``ai:<level>``; ``ordinal`` the conservative figure ranks use."""

    scope: int
    player: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    updated_at: int


# --------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class Earned:
    """What one person earned from one game, for the score sheet."""

    seat: int
    user_id: int
    ids: tuple[str, ...]  # stored now (0 or 1)
    choices: tuple[str, ...]  # a normal game: every new row the win fit, rarest first
    reason: str
    points: int  # achievement points after this game
    title: int | None  # a title reached with this game (index in the chart's track), else None


@declare_part("progress")
@dataclass(frozen=True, slots=True)
class Progress(Part):
    """The score sheet's part: what each person earned, and whether the game was rated."""

    earned: tuple[Earned, ...] = ()
    rated: bool = False


@dataclass(frozen=True, slots=True)
class PlayerAchievements:
    rows: tuple[AchievementRow, ...]  # oldest first
    position: TrackPosition

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.achievement for r in self.rows)


@dataclass(frozen=True, slots=True)
class RatingStanding:
    """A player's rating in one scope (a server, or 0: every server)."""

    scope: int
    row: RatingRow | None  # None: never rated there
    rank: int | None  # on the leaderboard (None: fewer than MIN_RATED_GAMES rated games)
    ranked: int  # players on that leaderboard


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One line of the rating board: the rating, and for a person their results."""

    rank: int
    player: str
    name: str
    rating: RatingRow
    games: int | None = None  # finished games (people only; from the results totals)
    wins: int | None = None
    average: float | None = None
