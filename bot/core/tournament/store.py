"""The tournaments' own storage: their rows, statements and transactions, on the storage's
small generic contract (:class:`~bot.core.storage.Database`: run a plan, read, write).

A tournament is a versioned row like a game: every step is one :func:`write` at the version
read (:class:`~bot.core.storage.StaleWriteError` when another process wrote first), with its
entrants, tables and posts (outbox notices about no game, in the tournament's channel). A
table's game is linked to it inside the game's own transaction (:func:`link_table`, a
:data:`~bot.core.storage.GameStep`), so a table never gets two games. The tables are created
by the core's numbered migrations, like every other table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core.storage import Database, GameStep, NoticeDraft, StaleWriteError
from bot.core.storage.plans import queue_notices
from bot.core.storage.sql import ACTIVE, checked, versioned_update
from bot.core.storage.steps import (
    Plan,
    Rollback,
    Row,
    execute,
    execute_many,
    fetch_one,
    lock,
    notify,
)
from bot.core.tournament.model import EntrantRow, TableRow, TournamentRow

# Columns a TournamentWrite may set (interpolated into SQL, so only these are accepted).
COLUMNS = frozenset({"status", "round", "rounds", "round_deadline_at", "signup_ends_at",
                     "starts_at", "message_id"})


# --------------------------------------------------------------------------- a step


@dataclass(slots=True)
class TournamentWrite:
    """One step of a tournament in one transaction: the row at ``expect_version`` (else
    :class:`StaleWriteError`) with its entrants, tables and notices."""

    tournament_id: int
    expect_version: int
    now: int
    columns: dict[str, Any] = field(default_factory=dict)
    add_entrants: list[EntrantRow] = field(default_factory=list)
    remove_entrants: list[int] = field(default_factory=list)
    withdraw: list[tuple[int, int]] = field(default_factory=list)  # (user id, round)
    tables: list[TableRow] = field(default_factory=list)
    outcomes: list[tuple[int, int, str]] = field(default_factory=list)  # (round, table, json)
    notices: list[NoticeDraft] = field(default_factory=list)


# --------------------------------------------------------------------------- statements

FIELDS = (
    "id, guild_id, channel_id, organiser_id, name, format, rounds, table_size, options, "
    "signup_ends_at, starts_at, round_hours, status, round, round_deadline_at, message_id, "
    "version, created_at, updated_at")
ENTRANT_FIELDS = "tournament_id, user_id, name, joined_at, withdrawn"
TABLE_FIELDS = "tournament_id, round, table_no, players, game_id, outcome"
NEW_COLUMNS = (
    "guild_id, channel_id, organiser_id, name, format, rounds, table_size, options, "
    "signup_ends_at, starts_at, round_hours, status, created_at, updated_at")
INSERT = (f"INSERT INTO tournaments ({NEW_COLUMNS}) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")
ONE = f"SELECT {FIELDS} FROM tournaments WHERE id = ?"
OF_GUILD = f"SELECT {FIELDS} FROM tournaments WHERE guild_id = ? ORDER BY id DESC LIMIT ?"
OPEN = "status IN ('signup', 'running', 'paused')"
OPEN_OF_GUILD = f"SELECT {FIELDS} FROM tournaments WHERE guild_id = ? AND {OPEN} ORDER BY id"
OPEN_OF_CHANNEL = (f"SELECT {FIELDS} FROM tournaments WHERE channel_id = ? AND {OPEN} "
                   "ORDER BY id")
COUNT_OPEN = f"SELECT count(*) FROM tournaments WHERE guild_id = ? AND {OPEN}"
# Sign-ups whose start came or whose sign-up just ended at its time (its message not edited
# since), and every running tournament (their rounds are checked).
DUE = (f"SELECT {FIELDS} FROM tournaments WHERE "
       "(status = 'signup' AND (starts_at <= ? OR (signup_ends_at <= ? "
       "AND updated_at < signup_ends_at))) OR status = 'running' ORDER BY id")
ENTRANTS = (f"SELECT {ENTRANT_FIELDS} FROM tournament_entrants WHERE tournament_id = ? "
            "ORDER BY joined_at, user_id")
INSERT_ENTRANT = f"INSERT INTO tournament_entrants ({ENTRANT_FIELDS}) VALUES (?, ?, ?, ?, ?)"
DELETE_ENTRANT = "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?"
WITHDRAW_ENTRANT = ("UPDATE tournament_entrants SET withdrawn = ? "
                    "WHERE tournament_id = ? AND user_id = ? AND withdrawn IS NULL")
TABLES_OF = (f"SELECT {TABLE_FIELDS} FROM tournament_tables WHERE tournament_id = ? "
             "ORDER BY round, table_no")
INSERT_TABLE = f"INSERT INTO tournament_tables ({TABLE_FIELDS}) VALUES (?, ?, ?, ?, ?, ?)"
SET_OUTCOME = ("UPDATE tournament_tables SET outcome = ? "
               "WHERE tournament_id = ? AND round = ? AND table_no = ?")
# The game of a table, linked once (in the transaction that creates the game).
LINK_TABLE = ("UPDATE tournament_tables SET game_id = ? "
              "WHERE tournament_id = ? AND round = ? AND table_no = ? AND game_id IS NULL")
TABLE_OF_GAME = f"SELECT {TABLE_FIELDS} FROM tournament_tables WHERE game_id = ?"
# Tables of a round still to be played: no game yet (not a bye), or a game still going.
OPEN_TABLES = (
    "SELECT count(*) FROM tournament_tables t LEFT JOIN games g ON g.id = t.game_id "
    "WHERE t.tournament_id = ? AND t.round = ? AND t.players LIKE '%,%' "
    f"AND (t.game_id IS NULL OR g.status IN {ACTIVE})")


def update(columns: Sequence[str]) -> str:
    """The optimistic write of a tournament (as a game's)."""
    checked(columns, COLUMNS, "tournament")
    return versioned_update("tournaments", columns)


def tournament_row(r: Row) -> TournamentRow:
    return TournamentRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
                         float(r[11]), r[12], r[13], r[14], r[15], r[16], r[17], r[18])


def table_row(r: Row) -> TableRow:
    return TableRow(r[0], r[1], r[2], r[3], r[4], r[5])


# --------------------------------------------------------------------------- transactions


def create_plan(t: TournamentRow, notices: Callable[[int], Sequence[NoticeDraft]],
                cap: int | None = None) -> Plan[int]:
    """A new tournament and its first notices (``notices`` makes them from its id); 0 (nothing
    stored) when its server has ``cap`` open already (counted under a lock: two creates at
    once count one after the other)."""
    if cap is not None:
        yield from lock(f"tournaments:{t.guild_id}")
        counted = yield from fetch_one(COUNT_OPEN, t.guild_id)
        if counted is not None and int(counted[0]) >= cap:
            raise Rollback(0)
    row = yield from fetch_one(
        INSERT, t.guild_id, t.channel_id, t.organiser_id, t.name, t.format, t.rounds,
        t.table_size, t.options, t.signup_ends_at, t.starts_at, t.round_hours, t.status,
        t.created_at, t.updated_at)
    assert row is not None
    tid = int(row[0])
    yield from queue_notices(notices(tid), t.created_at)
    return tid


def write_plan(w: TournamentWrite) -> Plan[int]:
    """One step of a tournament; returns the notices queued. StaleWriteError (nothing
    written) when its version moved: another process took this step first."""
    tid = w.tournament_id
    if (yield from execute(update(list(w.columns)), *w.columns.values(), w.now, tid,
                           w.expect_version)) != 1:
        raise StaleWriteError(f"tournament {tid} is no longer at version {w.expect_version}")
    for user_id in w.remove_entrants:
        yield from execute(DELETE_ENTRANT, tid, user_id)
    yield from execute_many(INSERT_ENTRANT, [
        (e.tournament_id, e.user_id, e.name, e.joined_at, e.withdrawn) for e in w.add_entrants])
    for user_id, round_no in w.withdraw:
        yield from execute(WITHDRAW_ENTRANT, round_no, tid, user_id)
    yield from execute_many(INSERT_TABLE, [
        (t.tournament_id, t.round, t.table_no, t.players, t.game_id, t.outcome)
        for t in w.tables])
    for round_no, table, outcome in w.outcomes:
        yield from execute(SET_OUTCOME, outcome, tid, round_no, table)
    yield from notify(f"x:{topic(tid)}")  # other processes' waiters (Kernel.wait_until)
    return (yield from queue_notices(w.notices, w.now))


def topic(tournament_id: int) -> str:
    """What a tournament's waiters watch (:meth:`bot.core.kernel.Kernel.wait_until`), and the
    notification other processes get when a table of it gets its game."""
    return f"tournament:{tournament_id}"


def link_table(tournament_id: int, round_no: int, table_no: int) -> GameStep:
    """The step that links a new game to its table, in the game's own transaction: nothing is
    stored (StaleWriteError) when that table has its game already (another process's)."""
    def step(game_id: int) -> Plan[None]:
        if (yield from execute(LINK_TABLE, game_id, tournament_id, round_no, table_no)) != 1:
            raise StaleWriteError(f"table {tournament_id}/{round_no}/{table_no} has its game")
        yield from notify(f"x:{topic(tournament_id)}")

    return step


# --------------------------------------------------------------------------- reads and writes


async def create(db: Database, row: TournamentRow,
                 notices: Callable[[int], Sequence[NoticeDraft]], cap: int | None = None) -> int:
    """Store a new tournament (``row.id`` ignored) with the notices ``notices`` makes from
    its id, in one transaction; returns the id (0: its server has ``cap`` open already)."""
    tid = await db.transact(create_plan(row, notices, cap))
    if tid:
        db.notices_added.set()
    return int(tid)


async def write(db: Database, w: TournamentWrite) -> int:
    """Apply one step in one transaction (StaleWriteError if the version moved); returns
    the notices queued."""
    queued = await db.transact(write_plan(w))
    if queued:
        db.notices_added.set()
    return queued


async def tournament(db: Database, tournament_id: int) -> TournamentRow | None:
    rows = await db.fetch(ONE, (tournament_id,))
    return tournament_row(rows[0]) if rows else None


async def of_guild(db: Database, guild_id: int, limit: int) -> list[TournamentRow]:
    """A server's tournaments, newest first."""
    return [tournament_row(r) for r in await db.fetch(OF_GUILD, (guild_id, limit))]


async def due(db: Database, now: int) -> list[TournamentRow]:
    """Sign-ups whose start time came or whose sign-up just ended, and every running
    tournament."""
    return [tournament_row(r) for r in await db.fetch(DUE, (now, now))]


async def open_of(db: Database, *, guild_id: int | None = None,
                  channel_id: int | None = None) -> list[TournamentRow]:
    """A server's (or a channel's) tournaments in sign-up or under way, oldest first."""
    if channel_id is not None:
        return [tournament_row(r) for r in await db.fetch(OPEN_OF_CHANNEL, (channel_id,))]
    return [tournament_row(r) for r in await db.fetch(OPEN_OF_GUILD, (guild_id,))]


async def entrants(db: Database, tournament_id: int) -> list[EntrantRow]:
    """In sign-up order."""
    return [EntrantRow(*r) for r in await db.fetch(ENTRANTS, (tournament_id,))]


async def tables(db: Database, tournament_id: int) -> list[TableRow]:
    """Every table of every round, in order."""
    return [table_row(r) for r in await db.fetch(TABLES_OF, (tournament_id,))]


async def table_of_game(db: Database, game_id: int) -> TableRow | None:
    """The tournament table a game is played at (None: not a tournament game)."""
    rows = await db.fetch(TABLE_OF_GAME, (game_id,))
    return table_row(rows[0]) if rows else None


async def open_tables(db: Database, tournament_id: int, round_no: int) -> int:
    """Tables of the round without a game yet (byes aside) or whose game goes on."""
    rows = await db.fetch(OPEN_TABLES, (tournament_id, round_no))
    return int(rows[0][0]) if rows else 0
