"""Tournaments (issue #23): a server's Swiss or round-robin event, run by the bot over days.

A tournament is a versioned row (:class:`~bot.core.storage.TournamentStore`) like a game: each
step is one transaction at the version read, with its entrants, tables and posts (outbox
notices about no game, in the tournament's channel), so a restart or a second process never
takes a step twice (the loser's write finds the version moved and reads again):

- **sign-up**: :func:`create` posts the sign-up message (Join / Leave buttons); :func:`join` and
  :func:`leave` until the window closes (:func:`close_signup` closes it early);
- **round start**: at the start time (then each time a round ends) the sweep calls
  :func:`tick`, which pairs the round (:mod:`bot.core.pairing`) and stores its tables in the
  same write that ends the previous round; each table's game is then created like a lobby that
  starts at once with its players, and linked to its table in the game's own transaction (a
  table never gets two games: see ``NewGame.tournament_table``); games opened later (the
  process that paired the round died first) get the whole round from then;
- **round end**: when every table's game has ended, or at the round deadline (open tables are
  then played out the way their timeout action says: the seat the game waits for plays on
  autopilot, or becomes a computer with ``timeout: computer``), the outcomes are recorded, the
  standings posted, and the next round paired, or the podium posted after the last one.

Withdrawing (:func:`leave` once it runs, or the organiser's :func:`remove`) drops a player from
later rounds; their seats in open games become computer players
(:func:`bot.core.leaving.leave_game`). Results feed ratings and achievements as any game's
do; :func:`game_over` adds the tournament's name and round to a table's score sheet.
Nothing here imports discord.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from bot.core import leaving, pairing
from bot.core import tournament_tables as tables_io
from bot.core.clock import from_ms
from bot.core.faults import crash_point
from bot.core.game import Tx
from bot.core.kernel import Kernel
from bot.core.models import (
    ErrorCode,
    FirstPlayer,
    LobbyOptions,
    ManagerError,
    NoticeKind,
    UserRef,
)
from bot.core.storage.base import (
    EntrantRow,
    NoticeDraft,
    StaleWriteError,
    TableRow,
    TournamentRow,
    TournamentWrite,
)
from bot.core.storage.codec import dumps
from engine.config import STORED
from engine.events import Event, GameOver

log = logging.getLogger("calico.tournament")

T = TypeVar("T")
HOUR_MS = 3_600_000
SWISS, ROUND_ROBIN = "swiss", "round_robin"
FORMATS = (SWISS, ROUND_ROBIN)
SIGNUP, RUNNING, PAUSED, OVER, CANCELLED = "signup", "running", "paused", "over", "cancelled"
MAX_ROUNDS = 20
# ManagerError codes (the adapter words each as ``error.<code>``).
UNKNOWN = "tournament_unknown"
ORGANISER_ONLY = "tournament_organiser_only"
SIGNUP_CLOSED = "tournament_signup_closed"
ALREADY_IN = "tournament_already_in"
NOT_IN = "tournament_not_in"
NOT_NOW = "tournament_not_now"
BAD = "tournament_bad"


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

    @property
    def active(self) -> tuple[Entrant, ...]:
        return tuple(e for e in self.entrants if e.withdrawn is None)

    def name_of(self, user_id: int) -> str:
        return next((e.name for e in self.entrants if e.user_id == user_id), str(user_id))


def _info(row: TournamentRow, entrants: Sequence[EntrantRow]) -> TournamentInfo:
    return TournamentInfo(
        row.id, row.guild_id, row.channel_id, row.organiser_id, row.name, row.format,
        row.rounds, row.table_size, LobbyOptions.model_validate_json(row.options, context=STORED),
        from_ms(row.signup_ends_at), from_ms(row.starts_at), row.round_hours, row.status,
        row.round, None if row.round_deadline_at is None else from_ms(row.round_deadline_at),
        row.message_id, row.version,
        tuple(Entrant(e.user_id, e.name, e.withdrawn) for e in entrants))


def _table(t: TableRow) -> Table:
    outcome = json.loads(t.outcome) if t.outcome else None
    return Table(t.round, t.table_no, tuple(json.loads(t.players)), t.game_id,
                 None if outcome is None else tuple(outcome["points"]),
                 None if outcome is None else tuple(outcome["scores"]))


async def get(k: Kernel, tournament_id: int) -> TournamentInfo:
    row = await _row(k, tournament_id)
    return _info(row, await k.store.entrants(row.id))


async def _row(k: Kernel, tournament_id: int) -> TournamentRow:
    row = await k.store.tournament(tournament_id) if 0 < tournament_id < 1 << 63 else None
    if row is None:
        raise ManagerError(UNKNOWN, f"no tournament {tournament_id}")
    return row


async def tables(k: Kernel, tournament_id: int) -> list[Table]:
    return [_table(t) for t in await k.store.tournament_tables(tournament_id)]


async def listed(k: Kernel, guild_id: int, limit: int = 10) -> list[TournamentInfo]:
    """A server's tournaments, newest first."""
    return [_info(r, await k.store.entrants(r.id))
            for r in await k.store.tournaments(guild_id, limit)]


async def standings(k: Kernel, tournament_id: int,
                    upto: int | None = None) -> list[pairing.Standing]:
    """Standings after round ``upto`` (default: every round scored so far)."""
    row = await _row(k, tournament_id)
    return _standings(row, await k.store.entrants(row.id), await tables(k, row.id), upto)


def _standings(row: TournamentRow, entrants: Sequence[EntrantRow], all_tables: Sequence[Table],
               upto: int | None = None) -> list[pairing.Standing]:
    played = [pairing.Played(t.round, t.players, t.points, t.scores or (0,) * len(t.players))
              for t in all_tables
              if t.points is not None and (upto is None or t.round <= upto)]
    return pairing.standings([e.user_id for e in entrants], played,
                             buchholz=row.format == SWISS)


async def games_of(k: Kernel, tournament_id: int, user_id: int) -> list[Table]:
    """The tables this entrant sat at (their games), round by round."""
    return [t for t in await tables(k, tournament_id) if user_id in t.players]


# --------------------------------------------------------------------------- steps


def _notice(row: TournamentRow, index: int, what: str, **extra: Any) -> NoticeDraft:
    payload = {"tournament": row.id, "what": what, "guild_id": row.guild_id, **extra}
    return NoticeDraft(NoticeKind.TOURNAMENT.value, None, 0, dumps(payload),
                       f"t{row.id}.{row.version + 1}.{index}", channel_id=row.channel_id)


Change = Callable[[TournamentRow], Awaitable[tuple[TournamentWrite | None, T]]]


async def _step(k: Kernel, tournament_id: int, change: Change[T]) -> T:
    """Run ``change`` on the stored row and write what it returns at that version; when
    another process wrote first, read again and redo it (a few times)."""
    for _ in range(5):
        row = await _row(k, tournament_id)
        write, result = await change(row)
        if write is None:
            return result
        try:
            await k.store.write_tournament(write)
        except StaleWriteError:
            continue
        return result
    raise ManagerError(ErrorCode.STALE, "the tournament changed meanwhile")


def _write(row: TournamentRow, now: int, **columns: Any) -> TournamentWrite:
    return TournamentWrite(row.id, row.version, now, dict(columns))


def _check_organiser(row: TournamentRow, by_user_id: int, privileged: bool) -> None:
    if by_user_id != row.organiser_id and not privileged:
        raise ManagerError(ORGANISER_ONLY, "only the organiser can do that")


async def create(k: Kernel, organiser: UserRef, guild_id: int, channel_id: int,
                 spec: Spec) -> TournamentInfo:
    """A new tournament in its sign-up, with its sign-up message queued (one transaction)."""
    now = k.now_ms()
    name = " ".join(spec.name.split())
    if not 1 <= len(name) <= 80 or spec.format not in FORMATS \
            or not 2 <= spec.table_size <= 4 or not 1 <= spec.rounds <= MAX_ROUNDS \
            or not now <= spec.signup_ends_at <= spec.starts_at or spec.round_hours <= 0:
        raise ManagerError(BAD, "name, format, size, rounds or times out of range")
    try:
        # Every table starts at once: no lobby race for the first player.
        options = LobbyOptions.model_validate({
            **spec.options.model_dump(), "players": spec.table_size,
            "first": FirstPlayer.RANDOM})
    except ValidationError as e:
        raise ManagerError(BAD, str(e.errors()[0].get("msg", ""))) from None
    row = TournamentRow(0, guild_id, channel_id, organiser.id, name, spec.format, spec.rounds,
                        spec.table_size, options.model_dump_json(), spec.signup_ends_at,
                        spec.starts_at, spec.round_hours, SIGNUP, 0, None, None, 0, now, now)

    def notices(tid: int) -> list[NoticeDraft]:
        payload = dumps({"tournament": tid, "what": "signup", "guild_id": guild_id})
        return [NoticeDraft(NoticeKind.TOURNAMENT.value, None, 0, payload, f"t{tid}.0.0",
                            channel_id=channel_id)]

    tid = await k.store.create_tournament(row, notices)
    return await get(k, tid)


async def attach_message(k: Kernel, tournament_id: int, message_id: int) -> None:
    """Record the sign-up message (posted by the outbox). Repeating it is harmless."""
    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        if row.message_id == message_id:
            return None, None
        return _write(row, k.now_ms(), message_id=message_id), None

    await _step(k, tournament_id, change)


async def join(k: Kernel, tournament_id: int, user: UserRef) -> TournamentInfo:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        if row.status != SIGNUP or now >= row.signup_ends_at:
            raise ManagerError(SIGNUP_CLOSED, "sign-up is closed")
        if any(e.user_id == user.id for e in await k.store.entrants(row.id)):
            raise ManagerError(ALREADY_IN, "you are signed up already")
        w = _write(row, now)
        w.add_entrants.append(EntrantRow(row.id, user.id, user.name[:80], now))
        return w, None

    await _step(k, tournament_id, change)
    return await get(k, tournament_id)


async def leave(k: Kernel, tournament_id: int, user_id: int) -> TournamentInfo:
    """Leave the sign-up, or withdraw from a tournament under way."""
    return await _drop(k, tournament_id, user_id)


async def remove(k: Kernel, tournament_id: int, by_user_id: int, user_id: int,
                 privileged: bool = False) -> TournamentInfo:
    """The organiser removes an entrant (as :func:`leave`)."""
    _check_organiser(await _row(k, tournament_id), by_user_id, privileged)
    return await _drop(k, tournament_id, user_id)


async def _drop(k: Kernel, tournament_id: int, user_id: int) -> TournamentInfo:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int | None]:
        entrant = next((e for e in await k.store.entrants(row.id) if e.user_id == user_id),
                       None)
        if entrant is None or entrant.withdrawn is not None:
            raise ManagerError(NOT_IN, "not an entrant")
        w = _write(row, now)
        if row.status == SIGNUP:
            w.remove_entrants.append(user_id)
            return w, None
        if row.status not in (RUNNING, PAUSED):
            raise ManagerError(NOT_NOW, "the tournament is over")
        w.withdraw.append((user_id, row.round))
        return w, row.round

    round_no = await _step(k, tournament_id, change)
    if round_no is not None:
        # Their open games go on without them: each seat becomes a computer player.
        for t in await games_of(k, tournament_id, user_id):
            if t.round == round_no and t.game_id is not None:
                with contextlib.suppress(ManagerError):  # that game had ended
                    await leaving.leave_game(k, t.game_id, user_id)
    return await get(k, tournament_id)


async def close_signup(k: Kernel, tournament_id: int, by_user_id: int,
                       privileged: bool = False) -> TournamentInfo:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status != SIGNUP or now >= row.signup_ends_at:
            raise ManagerError(SIGNUP_CLOSED, "sign-up is closed")
        w = _write(row, now, signup_ends_at=now)
        w.notices.append(_notice(row, 0, "signup"))
        return w, None

    await _step(k, tournament_id, change)
    return await get(k, tournament_id)


async def pause(k: Kernel, tournament_id: int, by_user_id: int, paused: bool,
                privileged: bool = False) -> TournamentInfo:
    """Pause a running tournament (no round starts or ends), or resume it (a deadline that
    passed meanwhile starts again from now)."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status != (RUNNING if paused else PAUSED):
            raise ManagerError(NOT_NOW, "not running" if paused else "not paused")
        cols: dict[str, Any] = {"status": PAUSED if paused else RUNNING}
        if not paused and (row.round_deadline_at or 0) <= now:
            cols["round_deadline_at"] = now + int(row.round_hours * HOUR_MS)
        w = _write(row, now, **cols)
        w.notices.append(_notice(row, 0, "paused" if paused else "resumed"))
        return w, None

    await _step(k, tournament_id, change)
    return await get(k, tournament_id)


async def cancel(k: Kernel, tournament_id: int, by_user_id: int,
                 privileged: bool = False) -> TournamentInfo:
    """End the tournament (its open games go on as ordinary games)."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status not in (SIGNUP, RUNNING, PAUSED):
            raise ManagerError(NOT_NOW, "the tournament has ended")
        w = _write(row, now, status=CANCELLED, round_deadline_at=None)
        w.notices += [_notice(row, 0, "cancelled"), _notice(row, 1, "signup")]
        return w, None

    await _step(k, tournament_id, change)
    return await get(k, tournament_id)


# --------------------------------------------------------------------------- rounds


async def tick(k: Kernel) -> int:
    """Take every tournament step now due (the sweep calls it): start, end and pair rounds,
    open the games of a round. Returns the steps taken. A failing tournament is logged and
    never holds the others."""
    now = k.now_ms()
    done = 0
    for row in await k.store.due_tournaments(now):
        try:
            done += await _advance(k, row, now)
        except Exception:
            log.exception("tournament %s: step failed", row.id)
    return done


async def _advance(k: Kernel, row: TournamentRow, now: int) -> int:
    if row.status == SIGNUP:
        return await _next_round(k, row, now)
    opened = await _open_games(k, row)
    if opened:
        # The round's games open only now: the process that paired it died first (or was
        # down). Its players get the whole round from now, as after a pause; played out at a
        # deadline that passed meanwhile, the games would end before anyone saw them, and
        # before their threads were made.
        return opened + await _restart_deadline(k, row.id, row.round, now)
    if await k.store.open_tables(row.id, row.round):
        if row.round_deadline_at is None or now < row.round_deadline_at:
            return opened
        for t in await tables(k, row.id):
            if t.round == row.round and t.game_id is not None:
                await tables_io.play_out(k, t.game_id)
        if await k.store.open_tables(row.id, row.round):
            return opened
    return opened + await _next_round(k, row, now)


async def _restart_deadline(k: Kernel, tournament_id: int, round_no: int, now: int) -> int:
    """The round's deadline at least a whole round from ``now`` (1: moved)."""
    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int]:
        deadline = now + int(row.round_hours * HOUR_MS)
        if row.status != RUNNING or row.round != round_no \
                or (row.round_deadline_at or 0) >= deadline:
            return None, 0
        return _write(row, now, round_deadline_at=deadline), 1

    return await _step(k, tournament_id, change)


async def _next_round(k: Kernel, row: TournamentRow, now: int) -> int:
    """End the round being played (scored from its games) and pair the next, or finish: one
    write at the version read, then the new round's games."""
    entrants = await k.store.entrants(row.id)
    all_tables = await tables(k, row.id)
    w = _write(row, now)
    scored = list(all_tables)
    if row.round:
        for i, t in enumerate(scored):
            if t.round == row.round and t.points is None:
                points, scores = await _outcome(k, row, t)
                w.outcomes.append((t.round, t.table_no,
                                   json.dumps({"points": points, "scores": scores})))
                scored[i] = Table(t.round, t.table_no, t.players, t.game_id, tuple(points),
                                  tuple(scores))
    active = [e for e in entrants if e.withdrawn is None]
    if row.round == 0 and len(active) < 2:
        w.columns.update(status=CANCELLED)
        w.notices += [_notice(row, 0, "too_few"), _notice(row, 1, "signup")]
        return await _commit(k, w, None)
    index = 0
    if row.round:
        w.notices.append(_notice(row, index, "standings", round=row.round))
        index += 1
    rounds = row.rounds
    new: list[TableRow] = []
    if row.round == 0 and row.format == ROUND_ROBIN:
        rounds = max(1, len(pairing.round_robin([e.user_id for e in entrants],
                                                row.table_size)))
    if row.round < rounds:
        new = await _pair(k, row, entrants, scored, row.round + 1)
    if not new or all(len(json.loads(t.players)) < 2 for t in new):
        w.columns.update(status=OVER, round_deadline_at=None)
        w.notices.append(_notice(row, index, "podium", round=row.round))
        return await _commit(k, w, None)
    w.columns.update(status=RUNNING, round=row.round + 1, rounds=rounds,
                     round_deadline_at=now + int(row.round_hours * HOUR_MS))
    w.tables = new
    if row.round == 0:
        w.notices.append(_notice(row, index, "signup"))
        index += 1
    w.notices.append(_notice(row, index, "round", round=row.round + 1))
    return await _commit(k, w, row)


async def _commit(k: Kernel, w: TournamentWrite, row: TournamentRow | None) -> int:
    try:
        await k.store.write_tournament(w)
    except StaleWriteError:
        return 0  # another process took this step
    if w.outcomes:
        # A round ended and the next is paired (or the podium queued); none of its posts or
        # games made yet (tests/e2e/test_tournament_processes.py kills the bot here).
        crash_point("tournament.round_ended")
    if row is not None:
        fresh = await k.store.tournament(row.id)
        if fresh is not None:
            await _open_games(k, fresh)
    return 1


async def _pair(k: Kernel, row: TournamentRow, entrants: Sequence[EntrantRow],
                scored: Sequence[Table], round_no: int) -> list[TableRow]:
    active = [e.user_id for e in entrants if e.withdrawn is None]
    if row.format == ROUND_ROBIN:
        schedule = pairing.round_robin([e.user_id for e in entrants], row.table_size)
        if round_no > len(schedule):
            return []
        planned = schedule[round_no - 1]
        seated = [tuple(u for u in t if u in active) for t in planned.tables]
        if planned.bye is not None and planned.bye in active:
            seated.append((planned.bye,))
        groups = [t for t in seated if t]
    else:
        done = [pairing.Played(t.round, t.players, t.points,
                               t.scores or (0,) * len(t.players))
                for t in scored if t.points is not None]
        board = {s.user_id: s for s in pairing.standings(active, done)}
        seeds = []
        for uid in active:
            rating = await k.store.rating(row.guild_id, f"u:{uid}")
            seeds.append(pairing.Seed(uid, board[uid].points,
                                      rating.ordinal if rating is not None else 0.0,
                                      board[uid].byes))
        found = pairing.swiss_round(seeds, done, row.table_size)
        groups = [*found.tables, *([(found.bye,)] if found.bye is not None else [])]
    return [TableRow(row.id, round_no, i + 1, json.dumps(list(g)))
            for i, g in enumerate(groups)]


async def _outcome(k: Kernel, row: TournamentRow, t: Table) -> tuple[list[int], list[int]]:
    """Half points and scores of a table whose round ended (a bye: a win; a game that ended
    without a result: nothing for anyone)."""
    if t.bye:
        return [pairing.bye_points(row.table_size)], [0]
    results = await k.store.results(t.game_id) if t.game_id is not None else []
    by_user = {r.user_id: r for r in results}
    if not results or any(u not in by_user for u in t.players):
        return [0] * len(t.players), [0] * len(t.players)
    points = pairing.table_points([by_user[u].place for u in t.players])
    return list(points), [by_user[u].total for u in t.players]


async def _open_games(k: Kernel, row: TournamentRow) -> int:
    """Create the games of the round's tables that have none yet (after a crash, or the
    write that paired them): each like a lobby that starts at once with its players."""
    if row.status != RUNNING:
        return 0
    waiting = [t for t in await tables(k, row.id)
               if t.round == row.round and t.game_id is None and not t.bye]
    if not waiting:
        return 0
    names = {e.user_id: e.name for e in await k.store.entrants(row.id)}
    options = LobbyOptions.model_validate_json(row.options, context=STORED)
    opened = 0
    for t in waiting:
        opened += await tables_io.open_game(k, row.guild_id, row.channel_id, options,
                                            (row.id, t.round, t.table_no),
                                            [(u, names.get(u, str(u))) for u in t.players])
    return opened


# --------------------------------------------------------------------------- the score sheet


async def game_over(k: Kernel, tx: Tx, events: Sequence[Event],
                    over: GameOver) -> dict[str, Any]:
    """What a tournament table's score sheet says (its tournament and round); nothing for
    any other game. Never stops a game from ending."""
    try:
        table = await k.store.table_of_game(tx.g.id)
        if table is None:
            return {}
        row = await k.store.tournament(table.tournament_id)
        if row is None:
            return {}
        return {"tournament": {"id": row.id, "name": row.name, "round": table.round,
                               "rounds": row.rounds}}
    except Exception:
        log.exception("tournament of game %s", tx.g.id)
        return {}
