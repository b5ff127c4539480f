"""What a tournament is, as plain values: its formats and statuses, the organiser's choices
(:class:`Spec`), the read-only view that leaves the core (:class:`TournamentInfo`, its
:class:`Entrant` s and :class:`Table` s), the stored rows, and the notices it posts (channel
posts about no game, :class:`Post`; a line on a table's score sheet, :class:`ScoreSheetLine`).

Plain data only: the words (:mod:`bot.words.tournament`) and the pictures read these without
loading the service, the kernel or the storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.core.models import LobbyOptions
from bot.core.notices import Body, Part, declare, declare_part

HOUR_MS = 3_600_000
MAX_ROUNDS = 20
MAX_ROUND_HOURS = 24 * 30  # a round lasts at most 30 days (as /calico tournament create)


class Format(StrEnum):
    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"


class Status(StrEnum):
    SIGNUP = "signup"
    RUNNING = "running"
    PAUSED = "paused"
    OVER = "over"
    CANCELLED = "cancelled"

    @property
    def under_way(self) -> bool:
        """Running or paused: its rounds are being played."""
        return self in (Status.RUNNING, Status.PAUSED)

    @property
    def ended(self) -> bool:
        return self in (Status.OVER, Status.CANCELLED)


SWISS, ROUND_ROBIN = Format.SWISS, Format.ROUND_ROBIN
FORMATS = tuple(Format)
SIGNUP, RUNNING, PAUSED, OVER, CANCELLED = tuple(Status)


class Refusal(StrEnum):
    """The :class:`~bot.core.models.ManagerError` codes of tournaments (the adapter words
    each as ``error.<code>``)."""

    UNKNOWN = "tournament_unknown"
    ORGANISER_ONLY = "tournament_organiser_only"
    SIGNUP_CLOSED = "tournament_signup_closed"
    ALREADY_IN = "tournament_already_in"
    NOT_IN = "tournament_not_in"
    NOT_NOW = "tournament_not_now"
    BAD = "tournament_bad"


UNKNOWN, ORGANISER_ONLY, SIGNUP_CLOSED, ALREADY_IN, NOT_IN, NOT_NOW, BAD = tuple(Refusal)


# --------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class Spec:
    """What the organiser chose (times in ms)."""

    name: str
    format: str
    rounds: int
    table_size: int
    options: LobbyOptions
    signup_ends_at: int
    starts_at: int
    round_hours: float


@dataclass(frozen=True, slots=True)
class Entrant:
    user_id: int
    name: str
    withdrawn: int | None  # the round after which they left (None: still in)


@dataclass(frozen=True, slots=True)
class Table:
    round: int
    table_no: int
    players: tuple[int, ...]  # one: a bye
    game_id: int | None
    points: tuple[int, ...] | None  # half points, once the round ended
    scores: tuple[int, ...] | None

    @property
    def bye(self) -> bool:
        return len(self.players) == 1


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """The read-only view of a tournament that leaves the core."""

    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    format: str
    rounds: int
    table_size: int
    options: LobbyOptions
    signup_ends_at: datetime
    starts_at: datetime
    round_hours: float
    status: str
    round: int
    round_deadline_at: datetime | None
    message_id: int | None
    version: int
    entrants: tuple[Entrant, ...]
    signup_open: bool = False  # people may join now (in its sign-up, before it closes)

    @property
    def active(self) -> tuple[Entrant, ...]:
        return tuple(e for e in self.entrants if e.withdrawn is None)

    def name_of(self, user_id: int) -> str:
        return next((e.name for e in self.entrants if e.user_id == user_id), str(user_id))


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    format: str  # Format
    rounds: int
    table_size: int
    options: str  # LobbyOptions JSON
    signup_ends_at: int
    starts_at: int
    round_hours: float
    status: str  # Status
    round: int
    round_deadline_at: int | None
    message_id: int | None
    version: int
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class EntrantRow:
    tournament_id: int
    user_id: int
    name: str
    joined_at: int
    withdrawn: int | None = None  # the round after which they left (None: still in)


@dataclass(frozen=True, slots=True)
class TableRow:
    tournament_id: int
    round: int
    table_no: int
    players: str  # JSON list of user ids (one: a bye)
    game_id: int | None = None
    outcome: str | None = None  # JSON {"points": [...], "scores": [...]} once scored


# --------------------------------------------------------------------------- notices


class PostKind(StrEnum):
    """What a tournament post in its channel is."""

    SIGNUP = "signup"  # the sign-up message: posted once, then edited in place
    ROUND = "round"  # a round's tables
    STANDINGS = "standings"  # after a round
    PODIUM = "podium"  # after the last round
    CANCELLED = "cancelled"
    PAUSED = "paused"
    RESUMED = "resumed"
    TOO_FEW = "too_few"  # cancelled at the start: fewer than two entrants


@declare("tournament")
@dataclass(frozen=True, slots=True)
class Post(Body):
    """A post in a tournament's channel (a notice about no game)."""

    tournament: int
    what: PostKind
    guild_id: int
    round: int | None = None


@declare_part("tournament")
@dataclass(frozen=True, slots=True)
class ScoreSheetLine(Part):
    """A tournament table's score sheet names its tournament and round."""

    id: int
    name: str
    round: int
    rounds: int
