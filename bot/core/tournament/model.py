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

from bot.core.models import LobbyOptions, ManagerError
from bot.core.notices import Body, Part, declare, declare_part

HOUR_MS = 3_600_000
MAX_ROUNDS = 20
MAX_ROUND_HOURS = 24 * 30  # a round lasts at most 30 days (as /calico tournament create)
MAX_SIGNUP_HOURS = 24 * 30  # the sign-up stays open at most 30 days
MAX_START_HOURS = 24 * 60  # round 1 starts at most 60 days from the tournament's creation
MAX_NAME = 80
MIN_TABLE, MAX_TABLE = 2, 4
# Entrant caps (issue #28). A Swiss round of 1,024 is paired in a worker thread in well under a
# second (benchmarks/bench_tournament.py); a round-robin is capped so that everyone meets
# everyone within MAX_ROUNDS rounds (tests/core/tournament/test_pairing.py checks every count).
MAX_SWISS_ENTRANTS = 1024
ROUND_ROBIN_ENTRANTS = {2: 20, 3: 24, 4: 32}
# Tournaments in sign-up or under way at once in one server (each posts in its channel).
MAX_OPEN_PER_SERVER = 5


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
    each as ``error.<code>``, with the :class:`TournamentError` error's ``params``)."""

    UNKNOWN = "tournament_unknown"
    ORGANISER_ONLY = "tournament_organiser_only"
    SIGNUP_CLOSED = "tournament_signup_closed"
    ALREADY_IN = "tournament_already_in"
    NOT_IN = "tournament_not_in"
    NOT_NOW = "tournament_not_now"
    BAD = "tournament_bad"
    FULL = "tournament_full"  # params: count (the format's cap)
    TOO_MANY = "tournament_too_many"  # params: count (the server's cap)
    OPTION = "tournament_option"  # params: option, low, high (an option out of its range)
    WHICH = "tournament_which"  # params: choices (several could be meant: name one)
    NONE_OF_YOURS = "tournament_none_of_yours"  # nothing of the caller's to act on


(UNKNOWN, ORGANISER_ONLY, SIGNUP_CLOSED, ALREADY_IN, NOT_IN, NOT_NOW, BAD, FULL, TOO_MANY,
 OPTION, WHICH, NONE_OF_YOURS) = tuple(Refusal)


class TournamentError(ManagerError):
    """A tournament refusal with the numbers its words need (``params``: the cap reached, the
    option and its range...)."""

    def __init__(self, code: Refusal, message: str = "", **params: object) -> None:
        super().__init__(code, message)
        self.params = params


def max_entrants(format: str, table_size: int) -> int:
    """How many may sign up for a tournament of ``format`` at tables of ``table_size``."""
    if format == ROUND_ROBIN:
        return ROUND_ROBIN_ENTRANTS.get(table_size, ROUND_ROBIN_ENTRANTS[MIN_TABLE])
    return MAX_SWISS_ENTRANTS


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
    CHANNEL_GONE = "channel_gone"  # by DM to the organiser: its channel was deleted, paused
    NO_ACCESS = "no_access"  # by DM to the organiser: the bot may no longer post there


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
