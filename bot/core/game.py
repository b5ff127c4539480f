"""A game as the core holds it (:class:`LiveGame`: the stored row, parsed) and one change
being prepared (:class:`Tx`: the new game plus the notices, timers, results and user rows to
store with it in the same transaction). Pure values; no storage, no discord.

One model per purpose for a game:
- :class:`bot.core.storage.GameRow`: the stored row (columns as the database holds them); only
  storage and :meth:`LiveGame.from_row` see it.
- :class:`LiveGame` (here): the live game, parsed; the kernel caches it, the flow and the
  services change it through :class:`Tx`. Never leaves ``bot.core``.
- :class:`bot.core.models.GameInfo`: the read-only view the adapter gets (:meth:`LiveGame.info`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from bot.core.clock import from_ms
from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo
from bot.core.notices import Body, DmFallback
from bot.core.storage import GameRow, GameStep, MoveRow, ResultRow, SeatRow, TimerRow
from bot.core.storage.codec import decode_state, encode_config
from engine.config import STORED, GameOptions
from engine.state import GameState

FLAG_HINTS = 1  # someone took a hint in this game (no rating or leaderboard)
# Bit ``1 + seat``: that seat took a hint, so that seat earns no achievement (the others still
# may). A game flagged before these bits existed (FLAG_HINTS alone) voids every seat.
FLAG_HINT_SEAT0 = 2
# A deadline the whole game had to meet passed (a tournament round's): from now on every seat
# that must act is played by the computer (a person's on autopilot) through the computers'
# queue (bot.core.thinking) until the game ends. Above the seats' hint bits.
FLAG_PLAY_OUT = 1 << 8


def hint_flags(seat: int) -> int:
    """The flags a hint taken by ``seat`` sets."""
    return FLAG_HINTS | (FLAG_HINT_SEAT0 << seat)


def hinted_seats(flags: int, seats: int) -> frozenset[int]:
    """The seats that took a hint in a game with ``flags`` and ``seats`` seats (every seat
    for a game marked before the seat was recorded: who took it is not known)."""
    if not flags & FLAG_HINTS:
        return frozenset()
    marked = frozenset(s for s in range(seats) if flags & (FLAG_HINT_SEAT0 << s))
    return marked or frozenset(range(seats))


@dataclass(frozen=True, slots=True)
class LiveGame:
    """The live game: the stored row, parsed (state decoded, options validated). Held in the
    kernel's cache and changed only through a committed :class:`Tx`; the adapter gets
    :meth:`info`, never this."""

    id: int
    status: GameStatus
    guild_id: int
    channel_id: int
    thread_id: int | None
    lobby_message_id: int | None
    host_id: int
    options: LobbyOptions
    first_user_id: int | None
    engine_options: GameOptions | None
    state: GameState | None
    config_json: str | None  # the state's constant config part, encoded once
    version: int
    ply: int
    deadline_at: int | None
    end_reason: str | None
    created_at: int
    updated_at: int
    seats: tuple[SeatRow, ...]
    flags: int = 0
    rematch_of: int | None = None  # the game this one is a rematch of
    challenge_week: str | None = None  # the weekly challenge it plays (a solo game)

    @classmethod
    def from_row(cls, row: GameRow) -> LiveGame:
        state = None if row.state is None else decode_state(row.state)
        return cls(
            id=row.id, status=GameStatus(row.status), guild_id=row.guild_id,
            channel_id=row.channel_id, thread_id=row.thread_id,
            lobby_message_id=row.lobby_message_id, host_id=row.host_id,
            # STORED: rules about options added later do not stop a stored game from loading.
            options=LobbyOptions.model_validate_json(row.options, context=STORED),
            first_user_id=row.first_user_id,
            engine_options=None if row.engine_options is None
            else GameOptions.model_validate_json(row.engine_options, context=STORED),
            state=state, config_json=None if state is None else encode_config(state),
            version=row.version, ply=row.ply, deadline_at=row.deadline_at,
            end_reason=row.end_reason, created_at=row.created_at, updated_at=row.updated_at,
            seats=row.seats, flags=row.flags, rematch_of=row.rematch_of,
            challenge_week=row.challenge_week,
        )

    def person(self, user_id: int) -> SeatRow | None:
        """The seat this person still plays themself."""
        for s in self.seats:
            if s.user_id == user_id and s.ai_level is None:
                return s
        return None

    @property
    def people(self) -> list[SeatRow]:
        return [s for s in self.seats if s.ai_level is None]

    @property
    def clocked(self) -> bool:
        """Turn clocks keep a shared game moving; a person alone (with or without computer
        opponents) holds nobody up, so their game has no deadline, only the idle limit."""
        return len(self.people) >= 2

    def must_act(self, seat: int) -> bool:
        """Whether the game is waiting for ``seat`` (its turn, or its goal draft)."""
        st = self.state
        if st is None:
            return False
        if self.status is GameStatus.DRAFT:
            return bool(st.seats[seat].goal_offer)
        return self.status is GameStatus.PLAY and st.current_seat == seat


    def info(self) -> GameInfo:
        """The read-only view of this game that leaves the core."""
        return GameInfo(
            id=self.id, status=self.status, guild_id=self.guild_id, channel_id=self.channel_id,
            thread_id=self.thread_id, lobby_message_id=self.lobby_message_id,
            host_id=self.host_id, options=self.options,
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name, s.ai_level, s.left)
                        for s in self.seats),
            ply=self.ply, state=self.state,
            deadline_at=None if self.deadline_at is None else from_ms(self.deadline_at),
            created_at=from_ms(self.created_at), updated_at=from_ms(self.updated_at),
            version=self.version, end_reason=self.end_reason, first_user_id=self.first_user_id,
            hints_used=bool(self.flags & FLAG_HINTS),
            hinted=tuple(sorted(hinted_seats(self.flags, len(self.seats)))),
            rematch_of=self.rematch_of,
            challenge_week=self.challenge_week,
            hints_allowed=hints_allowed(self),
        )


def unborn(*, guild_id: int, channel_id: int, host_id: int, options: LobbyOptions,
           seats: tuple[SeatRow, ...], now: int, rematch_of: int | None = None,
           challenge_week: str | None = None) -> LiveGame:
    """A game not stored yet (id 0, a lobby): what ``kernel.commit_new`` stores."""
    return LiveGame(id=0, status=GameStatus.LOBBY, guild_id=guild_id, channel_id=channel_id,
                    thread_id=None, lobby_message_id=None, host_id=host_id, options=options,
                    first_user_id=None, engine_options=None, state=None, config_json=None,
                    version=0, ply=0, deadline_at=None, end_reason=None, created_at=now,
                    updated_at=now, seats=seats, rematch_of=rematch_of,
                    challenge_week=challenge_week)


def hints_allowed(g: LiveGame) -> bool:
    """Hints are offered when the lobby allowed them, and always in a solo game, except in the
    weekly challenge (a challenge game never offers them, whatever its options)."""
    if g.challenge_week is not None:
        return False
    return g.options.hints or len(g.seats) == 1


_GAME_FIELDS = tuple(f.name for f in fields(LiveGame))


def evolve(g: LiveGame, changes: dict[str, Any]) -> LiveGame:
    """``dataclasses.replace`` for the hot path (it re-runs ``__init__`` with introspection,
    about 30 us a call; this is a plain copy)."""
    new = object.__new__(LiveGame)
    for name in _GAME_FIELDS:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(g, name))
    return new


@dataclass
class Tx:
    """One change being prepared: the new in-memory game plus what else to store with it."""

    old: LiveGame
    g: LiveGame
    now: int
    dm_closed: Callable[[int], bool]
    notices: list[tuple[Body, int | None]] = field(default_factory=list)  # (body, DM user)
    move: MoveRow | None = None
    activity: bool = False  # a player did something: restart the idle clock
    clear_turn_timers: bool = False
    delete_timers: list[tuple[str, int]] = field(default_factory=list)
    upsert_timers: list[TimerRow] = field(default_factory=list)
    results: list[ResultRow] = field(default_factory=list)
    user_names: list[tuple[int, str, str | None]] = field(default_factory=list)
    user_updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    skip_pending: bool = False
    # What features add to the same transaction (a game's achievements, ratings, a challenge
    # entry or score, a tournament table's link): bot.core.hooks.
    steps: list[GameStep] = field(default_factory=list)

    def set(self, **changes: Any) -> None:
        self.g = evolve(self.g, changes)

    def set_seat(self, seat: int, **changes: Any) -> None:
        seats = list(self.g.seats)
        seats[seat] = replace(seats[seat], **changes)
        self.g = evolve(self.g, {"seats": tuple(seats)})

    def thread(self, body: Body) -> None:
        """A post in the game's thread."""
        self.notices.append((body, None))

    def dm(self, to_seat: int, body: Body) -> None:
        """A DM to the person in ``to_seat``; while their DMs are closed, the thread fallback."""
        row = self.g.seats[to_seat]
        if row.user_id is None or row.ai_level is not None:
            return
        if self.dm_closed(row.user_id):
            self.fallback(to_seat)
            return
        self.notices.append((body, row.user_id))

    def dm_user(self, user_id: int, body: Body) -> None:
        """A DM to a person whatever their seat (the host, about the table itself)."""
        self.notices.append((body, user_id))

    def fallback(self, seat: int) -> None:
        """Tell the thread once per game and person that their DMs are closed."""
        row = self.g.seats[seat]
        if row.user_id is None or row.fallback_sent:
            return
        self.set_seat(seat, fallback_sent=True)
        self.thread(DmFallback(user_id=row.user_id, seat=seat))

    def savepoint(self) -> tuple[int, int]:
        """Where the notices and steps stand (:meth:`restore` takes back what came after)."""
        return len(self.notices), len(self.steps)

    def restore(self, mark: tuple[int, int]) -> None:
        del self.notices[mark[0]:]
        del self.steps[mark[1]:]


def renumbered(seats: Sequence[SeatRow]) -> tuple[SeatRow, ...]:
    """The seats left in a lobby, numbered 0..n-1 again."""
    return tuple(replace(s, seat=i) for i, s in enumerate(seats))
