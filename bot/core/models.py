"""The values the core exchanges with its callers (the Discord layer, the offline demo, tests,
the load generator): lobby options, game and seat snapshots, stats, and the one error type with
its stable codes (the notices are :mod:`bot.core.notices`). Nothing here imports discord.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from engine.config import GameOptions, Restriction, Setup, is_stored
from engine.events import Event
from engine.state import GameState

# --------------------------------------------------------------------------- errors


class ErrorCode(StrEnum):
    UNKNOWN_GAME = "unknown_game"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    GAME_FULL = "game_full"
    ALREADY_JOINED = "already_joined"
    LOBBY_ONLY = "lobby_only"
    HOST_ONLY = "host_only"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    GAME_OVER = "game_over"
    NOT_ALLOWED = "not_allowed"
    ALREADY_HELD = "already_held"  # an achievement row another game filled already
    REMOVED = "removed"  # the host removed this person from the lobby: no joining again


class ManagerError(Exception):
    """A refused call. ``code`` is stable (the Discord layer picks its message by it)."""

    def __init__(self, code: ErrorCode | str, message: str = "") -> None:
        self.code = str(code)
        self.message = message or self.code
        super().__init__(f"{self.code}: {self.message}")


# --------------------------------------------------------------------------- options


class GameStatus(StrEnum):
    LOBBY = "lobby"
    DRAFT = "draft"  # players choose their design goals (standard setup)
    PLAY = "play"
    OVER = "over"  # finished and scored
    CANCELLED = "cancelled"  # ended in the lobby
    ABANDONED = "abandoned"  # ended before the last tile

    @property
    def active(self) -> bool:
        return self in (GameStatus.LOBBY, GameStatus.DRAFT, GameStatus.PLAY)

    @property
    def started(self) -> bool:
        return self in (GameStatus.DRAFT, GameStatus.PLAY)


class TimeoutAction(StrEnum):
    """What happens when a player's turn time runs out."""

    REMIND = "remind"  # keep reminding every half period, up to the stall cut-off
    AUTOPILOT = "autopilot"  # a computer plays this one move; the seat stays the player's
    COMPUTER = "computer"  # the seat becomes a computer player for the rest of the game


class FirstPlayer(StrEnum):
    RANDOM = "random"  # the engine draws the first player from the game's seed
    PET = "pet"  # "who most recently pet a cat": the first lobby member to click goes first


AI_LEVELS: Final = ("easy", "normal", "strong")


class LobbyOptions(BaseModel):
    """What the host chose when creating the game."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: int = Field(default=2, ge=1, le=4)  # seats to fill (the game may start with fewer)
    setup: Setup = Setup.STANDARD
    family: bool = False
    lower_variance: bool = False
    restriction: Restriction | None = None
    scenario: int | None = Field(default=None, ge=1, le=10)
    turn_hours: float = Field(default=24.0, gt=0, le=24 * 30)
    timeout_action: TimeoutAction = TimeoutAction.AUTOPILOT
    first: FirstPlayer = FirstPlayer.RANDOM
    ai_level: str = "normal"
    hints: bool = False  # players may ask for hints (the game then counts for no rating)
    cats: tuple[str, str, str] | None = None  # the host's three cats (None: drawn at random)
    # People the host removed from the lobby: they may not join it again (issue #20).
    barred: tuple[int, ...] = ()

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> LobbyOptions:
        # Checked here so that a bad lobby is refused at creation, not when the host presses
        # start; the engine re-checks everything when the game is set up.
        if self.scenario is not None and self.family:
            raise ValueError("scenarios need design goals, so not the family variant")
        if self.lower_variance and self.players > 2:
            raise ValueError("the lower-variance variant is for one or two players")
        # Lobbies stored before this rule existed still load (engine.config.STORED).
        if self.family and self.setup is Setup.BEGINNER and not is_stored(info):
            raise ValueError("the family variant is played with the standard setup")
        if self.cats is not None:
            # The rulebook's choice of cats belongs to the standard setup: a scenario and the
            # beginner setup name their own (the engine would silently use theirs).
            if len(set(self.cats)) != 3:
                raise ValueError("choose three different cats")
            if self.scenario is not None:
                raise ValueError("a scenario names its own cats")
            if self.setup is Setup.BEGINNER:
                raise ValueError("the beginner setup names its own cats")
        if self.ai_level not in AI_LEVELS and self.ai_level != "random":
            raise ValueError(f"ai_level is one of {', '.join(AI_LEVELS)}")
        return self

    def engine_options(self, players: int, first_seat: int | None) -> GameOptions:
        """The engine's options for a game that starts with ``players`` seats."""
        return GameOptions(
            players=players,
            setup=self.setup,
            family=self.family,
            lower_variance=self.lower_variance,
            restriction=self.restriction,
            scenario=self.scenario,
            cats=self.cats,
            first_seat=first_seat,
        )


# --------------------------------------------------------------------------- snapshots


@dataclass(frozen=True, slots=True)
class UserRef:
    """A Discord user as the core knows it."""

    id: int
    name: str
    locale: str = "en-US"


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    user_id: int | None  # kept after the person left, so results can name them
    name: str
    ai_level: str | None  # None: a person plays this seat
    left: bool  # the person left (or was replaced); the seat is now a computer player

    @property
    def is_computer(self) -> bool:
        return self.ai_level is not None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The read-only view of one game that leaves the core (the adapter, the demo, the tests
    get it; made by :meth:`bot.core.game.LiveGame.info`). ``state`` holds secrets (seed, bag):
    render views, not it."""

    id: int
    status: GameStatus
    guild_id: int
    channel_id: int
    thread_id: int | None
    lobby_message_id: int | None
    host_id: int
    options: LobbyOptions
    seats: tuple[SeatInfo, ...]
    ply: int
    state: GameState | None
    deadline_at: datetime | None
    created_at: datetime
    updated_at: datetime
    version: int = 0  # bumps with every stored change (the optimistic-lock counter)
    end_reason: str | None = None  # for cancelled / abandoned games
    first_user_id: int | None = None  # the "pet a cat" winner while in the lobby
    hints_used: bool = False  # someone took a hint (no rating or leaderboard)
    hinted: tuple[int, ...] = ()  # the seats that took a hint (they earn no achievement)
    rematch_of: int | None = None  # the game this one is a rematch of
    challenge_week: str | None = None  # the weekly challenge it plays (a solo game, no thread)
    hints_allowed: bool = False  # the turn panel offers hints (bot.core.game.hints_allowed)

    def seat_of(self, user_id: int) -> int | None:
        """The seat this person plays (None if not in the game or replaced by a computer)."""
        for s in self.seats:
            if s.user_id == user_id and s.ai_level is None:
                return s.seat
        return None

    @property
    def current_seat(self) -> int | None:
        return None if self.state is None else self.state.current_seat

    @property
    def current_user_id(self) -> int | None:
        """The person whose turn it is (None in the lobby, the draft, or a computer's turn)."""
        seat = self.current_seat
        if seat is None or self.status is not GameStatus.PLAY:
            return None
        info = self.seats[seat]
        return info.user_id if info.ai_level is None else None

    @property
    def drafting_user_ids(self) -> tuple[int, ...]:
        """People who still have to choose their goal tiles."""
        if self.state is None or self.status is not GameStatus.DRAFT:
            return ()
        return tuple(
            s.user_id
            for s, st in zip(self.seats, self.state.seats, strict=True)
            if st.goal_offer and s.ai_level is None and s.user_id is not None
        )


@dataclass(frozen=True, slots=True)
class MoveResult:
    game: GameInfo  # after the move and any computer moves that followed it
    events: list[Event]  # what this move did


# --------------------------------------------------------------------------- users and stats


@dataclass(frozen=True, slots=True)
class UserSettings:
    user_id: int
    reminders: bool = True
    dm_closed_at: datetime | None = None  # last time a DM to them failed for good
    describe: bool = False  # "describe pictures in text": alt text in the message too


@dataclass(frozen=True, slots=True)
class UserStats:
    user_id: int
    games: int  # finished games in which they held their seat to the end
    wins: int
    average: float | None  # mean final score
    best: int | None


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    user_id: int
    name: str
    games: int
    wins: int
    average: float
    best: int


@dataclass(frozen=True, slots=True)
class SweepReport:
    """What one ``Manager.sweep()`` did (for logs and tests)."""

    reminders: int = 0  # reminder notices enqueued (by DM or, DMs closed, in the thread)
    reminders_skipped: int = 0  # due reminders not sent (setting off, rate limit)
    autoplayed: int = 0  # moves played for an absent player
    converted: int = 0  # seats turned into computer players on timeout
    computer_moves: int = 0  # computer turns picked up (e.g. after a restart)
    stalled: int = 0  # turns that reached the reminder cut-off
    ended: int = 0  # games ended as idle
    pruned: int = 0  # old delivered notices deleted
    reminders_in_thread: int = 0  # of ``reminders``: posted in the thread (their DMs closed)
    failed: int = 0  # timers whose firing failed (each backs off; see Manager.sweep)
    busy: int = 0  # no longer counted: computer turns wait in the queue (bot.core.thinking)
    # Steps each feature's periodic work took (bot.core.hooks): {"challenge": weeks closed,
    # "tournament": rounds started or ended...}; features that did nothing are left out.
    features: dict[str, int] = field(default_factory=dict)
    details: list[str] = field(default_factory=list)
