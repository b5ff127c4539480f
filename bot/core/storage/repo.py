"""The Store: every SQL statement of the bot, as plain row types in and out.

The manager decides *what* changes; it hands the Store one :class:`GameWrite` per change, which
is applied as a single transaction: the game row with ``version = version + 1 WHERE version =
old`` (the optimistic check), the seats, the move log entry, the outbox notices, the timers,
results and user rows. Either all of it is committed or none of it. The dispatcher and the
sweep use the outbox and timer queries below.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.core.clock import from_ms
from bot.core.models import Notice, NoticeKind
from bot.core.storage.db import Database, StaleWriteError, transaction

ACTIVE_STATUSES = ("lobby", "draft", "play")

# Columns a GameWrite may set: names are interpolated into SQL, so only these are accepted.
GAME_COLUMNS = frozenset({
    "status", "thread_id", "lobby_message_id", "host_id", "first_user_id", "engine_options",
    "state", "ply", "deadline_at", "end_reason",
})
USER_COLUMNS = frozenset({"reminders", "dm_closed_at", "last_reminder_at"})


# --------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int | None
    name: str
    ai_level: str | None = None
    left: bool = False
    fallback_sent: bool = False


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    status: str
    guild_id: int
    channel_id: int
    thread_id: int | None
    lobby_message_id: int | None
    host_id: int
    options: str
    first_user_id: int | None
    engine_options: str | None
    state: str | None
    version: int
    ply: int
    deadline_at: int | None
    end_reason: str | None
    created_at: int
    updated_at: int
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True, slots=True)
class MoveRow:
    game_id: int
    ply: int
    seat: int
    move: str
    played_by: str
    events: str
    created_at: int


@dataclass(frozen=True, slots=True)
class TimerRow:
    game_id: int
    kind: str  # "turn" | "idle"
    seat: int  # -1 for whole-game timers
    due_at: int
    deadline_at: int | None = None
    reminders: int = 0


@dataclass(frozen=True, slots=True)
class NoticeDraft:
    kind: str
    user_id: int | None
    ply: int
    payload: str
    key: str


@dataclass(frozen=True, slots=True)
class ResultRow:
    game_id: int
    seat: int
    user_id: int | None
    guild_id: int
    total: int
    place: int
    win: bool
    counted: bool
    breakdown: str
    finished_at: int


@dataclass(frozen=True, slots=True)
class UserRow:
    user_id: int
    name: str
    locale: str | None
    reminders: bool
    dm_closed_at: int | None
    last_reminder_at: int | None


@dataclass(slots=True)
class GameWrite:
    """One committed change of one game (see the module docstring)."""

    game_id: int
    expect_version: int
    now: int
    columns: dict[str, Any] = field(default_factory=dict)
    seats: tuple[SeatRow, ...] | None = None  # replace all seats
    move: MoveRow | None = None
    notices: list[NoticeDraft] = field(default_factory=list)
    clear_timers: bool = False  # every timer of the game
    clear_turn_timers: bool = False
    delete_timers: list[tuple[str, int]] = field(default_factory=list)
    upsert_timers: list[TimerRow] = field(default_factory=list)
    results: list[ResultRow] = field(default_factory=list)
    user_names: list[tuple[int, str, str | None]] = field(default_factory=list)
    user_updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    skip_pending: bool = False  # drop the game's undelivered notices (its channel is gone)


@dataclass(frozen=True, slots=True)
class NewGame:
    status: str
    guild_id: int
    channel_id: int
    host_id: int
    options: str
    seats: tuple[SeatRow, ...]
    user_names: list[tuple[int, str, str | None]]
    now: int
    idle_due: int  # when the lobby ends as idle if nothing happens


# --------------------------------------------------------------------------- SQL (worker thread)

_GAME_SELECT = (
    "SELECT id, status, guild_id, channel_id, thread_id, lobby_message_id, host_id, options, "
    "first_user_id, engine_options, state, version, ply, deadline_at, end_reason, created_at, "
    "updated_at FROM games WHERE id = ?"
)


def _seat_rows(conn: sqlite3.Connection, game_id: int) -> tuple[SeatRow, ...]:
    rows = conn.execute(
        "SELECT seat, user_id, name, ai_level, left_game, fallback_sent FROM seats "
        "WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall()
    return tuple(SeatRow(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5])) for r in rows)


def _load_game(conn: sqlite3.Connection, game_id: int) -> GameRow | None:
    r = conn.execute(_GAME_SELECT, (game_id,)).fetchone()
    if r is None:
        return None
    return GameRow(
        id=r[0], status=r[1], guild_id=r[2], channel_id=r[3], thread_id=r[4],
        lobby_message_id=r[5], host_id=r[6], options=r[7], first_user_id=r[8],
        engine_options=r[9], state=r[10], version=r[11], ply=r[12], deadline_at=r[13],
        end_reason=r[14], created_at=r[15], updated_at=r[16], seats=_seat_rows(conn, game_id))


def _insert_seats(conn: sqlite3.Connection, game_id: int, seats: tuple[SeatRow, ...]) -> None:
    conn.executemany(
        "INSERT INTO seats (game_id, seat, user_id, name, ai_level, left_game, fallback_sent) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(game_id, s.seat, s.user_id, s.name, s.ai_level, int(s.left), int(s.fallback_sent))
         for s in seats])


def _upsert_user_names(conn: sqlite3.Connection, names: list[tuple[int, str, str | None]]) -> None:
    if names:
        conn.executemany(
            "INSERT INTO users (user_id, name, locale) VALUES (?, ?, ?) ON CONFLICT (user_id) "
            "DO UPDATE SET name = excluded.name, locale = coalesce(excluded.locale, locale)",
            names)


@transaction
def _create_game(conn: sqlite3.Connection, g: NewGame) -> int:
    cur = conn.execute(
        "INSERT INTO games (status, guild_id, channel_id, host_id, options, created_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (g.status, g.guild_id, g.channel_id, g.host_id, g.options, g.now, g.now))
    game_id = cur.lastrowid
    assert game_id is not None
    _insert_seats(conn, game_id, g.seats)
    _upsert_user_names(conn, g.user_names)
    conn.execute("INSERT INTO timers (game_id, kind, seat, due_at) VALUES (?, 'idle', -1, ?)",
                 (game_id, g.idle_due))
    return game_id


@transaction
def _commit(conn: sqlite3.Connection, w: GameWrite) -> int:
    bad = set(w.columns) - GAME_COLUMNS
    if bad:
        raise ValueError(f"not game columns: {sorted(bad)}")
    sets = "".join(f"{c} = ?, " for c in w.columns)
    cur = conn.execute(
        f"UPDATE games SET {sets}version = version + 1, updated_at = ? "
        "WHERE id = ? AND version = ?",
        (*w.columns.values(), w.now, w.game_id, w.expect_version))
    if cur.rowcount != 1:
        raise StaleWriteError(f"game {w.game_id} is no longer at version {w.expect_version}")
    gid = w.game_id
    if w.seats is not None:
        conn.execute("DELETE FROM seats WHERE game_id = ?", (gid,))
        _insert_seats(conn, gid, w.seats)
    if w.move is not None:
        m = w.move
        conn.execute(
            "INSERT INTO moves (game_id, ply, seat, move, played_by, events, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (m.game_id, m.ply, m.seat, m.move, m.played_by, m.events, m.created_at))
    if w.clear_timers:
        conn.execute("DELETE FROM timers WHERE game_id = ?", (gid,))
    elif w.clear_turn_timers:
        conn.execute("DELETE FROM timers WHERE game_id = ? AND kind = 'turn'", (gid,))
    for kind, seat in w.delete_timers:
        conn.execute("DELETE FROM timers WHERE game_id = ? AND kind = ? AND seat = ?",
                     (gid, kind, seat))
    if w.upsert_timers:
        conn.executemany(
            "INSERT INTO timers (game_id, kind, seat, due_at, deadline_at, reminders) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, kind, seat) DO UPDATE SET "
            "due_at = excluded.due_at, deadline_at = excluded.deadline_at, "
            "reminders = excluded.reminders",
            [(t.game_id, t.kind, t.seat, t.due_at, t.deadline_at, t.reminders)
             for t in w.upsert_timers])
    if w.skip_pending:
        conn.execute("UPDATE outbox SET status = 'skipped', done_at = ? "
                     "WHERE game_id = ? AND status = 'pending'", (w.now, gid))
    inserted = 0
    if w.notices:
        before = conn.total_changes
        conn.executemany(
            "INSERT INTO outbox (game_id, kind, user_id, ply, payload, key, due_at, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
            [(gid, n.kind, n.user_id, n.ply, n.payload, n.key, w.now, w.now) for n in w.notices])
        inserted = conn.total_changes - before
    if w.results:
        conn.executemany(
            "INSERT OR REPLACE INTO results (game_id, seat, user_id, guild_id, total, place, win, "
            "counted, breakdown, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(r.game_id, r.seat, r.user_id, r.guild_id, r.total, r.place, int(r.win),
              int(r.counted), r.breakdown, r.finished_at) for r in w.results])
    _upsert_user_names(conn, w.user_names)
    for user_id, cols in w.user_updates:
        _update_user(conn, user_id, cols)
    return inserted


def _update_user(conn: sqlite3.Connection, user_id: int, cols: dict[str, Any]) -> None:
    bad = set(cols) - USER_COLUMNS
    if bad:
        raise ValueError(f"not user columns: {sorted(bad)}")
    conn.execute("INSERT OR IGNORE INTO users (user_id) VALUES (?)", (user_id,))
    if cols:
        sets = ", ".join(f"{c} = ?" for c in cols)
        conn.execute(f"UPDATE users SET {sets} WHERE user_id = ?", (*cols.values(), user_id))


# Due pending notices, oldest first, except those queued behind a notice of the same lane (same
# game and recipient) that is waiting for a retry: a lane is delivered strictly in order.
_DUE_NOTICES = """
SELECT o.id, o.game_id, o.kind, o.user_id, o.ply, o.payload, o.key, o.attempts, o.created_at,
       g.guild_id, g.channel_id, g.thread_id
FROM outbox o JOIN games g ON g.id = o.game_id
WHERE o.status = 'pending' AND o.due_at <= :now
  AND NOT EXISTS (
      SELECT 1 FROM outbox p
      WHERE p.status = 'pending' AND p.game_id = o.game_id AND p.user_id IS o.user_id
        AND p.id < o.id AND p.due_at > :now)
ORDER BY o.id
LIMIT :limit
"""


def _notice(r: tuple[Any, ...], status: str = "pending") -> Notice:
    return Notice(id=r[0], game_id=r[1], kind=NoticeKind(r[2]), user_id=r[3], ply=r[4],
                  payload=json.loads(r[5]), key=r[6], attempts=r[7], created_at=from_ms(r[8]),
                  guild_id=r[9], channel_id=r[10], thread_id=r[11], status=status)


def _due_notices(conn: sqlite3.Connection, now: int, limit: int) -> list[Notice]:
    rows = conn.execute(_DUE_NOTICES, {"now": now, "limit": limit}).fetchall()
    return [_notice(r) for r in rows]


def _all_notices(conn: sqlite3.Connection, game_id: int | None) -> list[Notice]:
    where = "" if game_id is None else "WHERE o.game_id = ?"
    rows = conn.execute(
        "SELECT o.id, o.game_id, o.kind, o.user_id, o.ply, o.payload, o.key, o.attempts, "
        "o.created_at, g.guild_id, g.channel_id, g.thread_id, o.status FROM outbox o "
        f"JOIN games g ON g.id = o.game_id {where} ORDER BY o.id",
        () if game_id is None else (game_id,)).fetchall()
    return [_notice(r[:12], r[12]) for r in rows]


@transaction
def _mark_done(conn: sqlite3.Connection, ids: list[int], now: int) -> None:
    conn.executemany(
        "UPDATE outbox SET status = 'done', done_at = ?, attempts = attempts + 1 "
        "WHERE id = ? AND status = 'pending'", [(now, i) for i in ids])


def _mark_retry(conn: sqlite3.Connection, notice_id: int, due: int, error: str) -> None:
    conn.execute("UPDATE outbox SET attempts = attempts + 1, due_at = ?, last_error = ? "
                 "WHERE id = ? AND status = 'pending'", (due, error[:500], notice_id))


def _mark_failed(conn: sqlite3.Connection, notice_id: int, now: int, error: str) -> None:
    conn.execute("UPDATE outbox SET status = 'failed', attempts = attempts + 1, done_at = ?, "
                 "last_error = ? WHERE id = ? AND status = 'pending'",
                 (now, error[:500], notice_id))


@transaction
def _skip_pending_dms(conn: sqlite3.Connection, user_id: int, now: int) -> list[int]:
    games = [r[0] for r in conn.execute(
        "SELECT DISTINCT game_id FROM outbox WHERE status = 'pending' AND user_id = ?",
        (user_id,))]
    conn.execute("UPDATE outbox SET status = 'skipped', done_at = ?, last_error = 'dm closed' "
                 "WHERE status = 'pending' AND user_id = ?", (now, user_id))
    return games


def _prune(conn: sqlite3.Connection, before: int) -> int:
    cur = conn.execute("DELETE FROM outbox WHERE status <> 'pending' AND done_at < ?", (before,))
    return cur.rowcount


def _due_timers(conn: sqlite3.Connection, now: int, limit: int) -> list[TimerRow]:
    rows = conn.execute(
        "SELECT game_id, kind, seat, due_at, deadline_at, reminders FROM timers "
        "WHERE due_at <= ? ORDER BY due_at, game_id, seat LIMIT ?", (now, limit)).fetchall()
    return [TimerRow(*r) for r in rows]


def _game_timers(conn: sqlite3.Connection, game_id: int) -> list[TimerRow]:
    rows = conn.execute(
        "SELECT game_id, kind, seat, due_at, deadline_at, reminders FROM timers "
        "WHERE game_id = ? ORDER BY kind, seat", (game_id,)).fetchall()
    return [TimerRow(*r) for r in rows]


def _waiting_games(conn: sqlite3.Connection, user_id: int) -> list[int]:
    rows = conn.execute(
        "SELECT t.game_id FROM timers t JOIN seats s ON s.game_id = t.game_id AND s.seat = t.seat "
        "WHERE t.kind = 'turn' AND s.user_id = ? AND s.ai_level IS NULL "
        "ORDER BY t.deadline_at, t.game_id", (user_id,)).fetchall()
    return [r[0] for r in rows]


def _game_ids(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> list[int]:
    return [r[0] for r in conn.execute(sql, args).fetchall()]


def _moves(conn: sqlite3.Connection, game_id: int, before_ply: int | None) -> list[MoveRow]:
    sql = ("SELECT game_id, ply, seat, move, played_by, events, created_at FROM moves "
           "WHERE game_id = ?")
    args: tuple[Any, ...] = (game_id,)
    if before_ply is not None:
        sql += " AND ply < ?"
        args = (game_id, before_ply)
    return [MoveRow(*r) for r in conn.execute(sql + " ORDER BY ply", args).fetchall()]


def _get_user(conn: sqlite3.Connection, user_id: int) -> UserRow | None:
    r = conn.execute("SELECT user_id, name, locale, reminders, dm_closed_at, last_reminder_at "
                     "FROM users WHERE user_id = ?", (user_id,)).fetchone()
    return None if r is None else UserRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5])


@transaction
def _set_user(conn: sqlite3.Connection, user_id: int, cols: dict[str, Any]) -> UserRow:
    _update_user(conn, user_id, cols)
    row = _get_user(conn, user_id)
    assert row is not None
    return row


def _user_stats(conn: sqlite3.Connection, user_id: int,
                guild_id: int | None) -> tuple[int, int, float | None, int | None]:
    sql = ("SELECT count(*), coalesce(sum(win), 0), avg(total), max(total) FROM results "
           "WHERE user_id = ? AND counted = 1")
    args: tuple[Any, ...] = (user_id,)
    if guild_id is not None:
        sql += " AND guild_id = ?"
        args = (user_id, guild_id)
    r = conn.execute(sql, args).fetchone()
    return int(r[0]), int(r[1]), r[2], r[3]


def _leaderboard(conn: sqlite3.Connection, guild_id: int,
                 limit: int) -> list[tuple[int, str, int, int, float, int]]:
    rows = conn.execute(
        "SELECT r.user_id, coalesce(u.name, ''), count(*) AS games, sum(r.win) AS wins, "
        "avg(r.total) AS average, max(r.total) FROM results r "
        "LEFT JOIN users u ON u.user_id = r.user_id "
        "WHERE r.guild_id = ? AND r.counted = 1 GROUP BY r.user_id "
        "ORDER BY wins DESC, average DESC, games DESC, r.user_id LIMIT ?",
        (guild_id, limit)).fetchall()
    return [(r[0], r[1], r[2], r[3], float(r[4]), r[5]) for r in rows]


def _results(conn: sqlite3.Connection, game_id: int) -> list[ResultRow]:
    rows = conn.execute(
        "SELECT game_id, seat, user_id, guild_id, total, place, win, counted, breakdown, "
        "finished_at FROM results WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall()
    return [ResultRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7]), r[8], r[9])
            for r in rows]


def _checkpoint(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _vacuum(conn: sqlite3.Connection) -> None:
    conn.execute("VACUUM")


# --------------------------------------------------------------------------- the Store


class Store:
    """Async access to the database; each method is one trip to the database thread."""

    def __init__(self, db: Database) -> None:
        self.db = db
        # Set after a commit that queued notices, so the dispatcher wakes at once instead of
        # waiting for its next poll.
        self.notices_added = asyncio.Event()

    @classmethod
    async def open(cls, path: str | Path) -> Store:
        return cls(await Database.open(path))

    async def close(self) -> None:
        await self.db.close()

    @property
    def path(self) -> str:
        return self.db.path

    # games
    async def create_game(self, new: NewGame) -> int:
        return await self.db.run(_create_game, new)

    async def load_game(self, game_id: int) -> GameRow | None:
        return await self.db.run(_load_game, game_id)

    async def commit(self, write: GameWrite) -> None:
        """Apply ``write`` in one transaction; StaleWriteError if the version moved."""
        if await self.db.run(_commit, write):
            self.notices_added.set()

    async def moves(self, game_id: int, before_ply: int | None = None) -> list[MoveRow]:
        return await self.db.run(_moves, game_id, before_ply)

    async def results(self, game_id: int) -> list[ResultRow]:
        return await self.db.run(_results, game_id)

    async def game_ids_for_user(self, user_id: int, active_only: bool,
                                limit: int = 25) -> list[int]:
        sql = ("SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id "
               "WHERE s.user_id = ? AND s.ai_level IS NULL")
        if active_only:
            sql += " AND g.status IN ('lobby', 'draft', 'play')"
        return await self.db.run(
            _game_ids, sql + " ORDER BY g.updated_at DESC, g.id DESC LIMIT ?", (user_id, limit))

    async def game_ids_for_thread(self, thread_id: int) -> list[int]:
        return await self.db.run(
            _game_ids, "SELECT id FROM games WHERE thread_id = ? ORDER BY id DESC", (thread_id,))

    async def game_ids_in_channel(self, channel_id: int) -> list[int]:
        return await self.db.run(
            _game_ids, "SELECT id FROM games WHERE thread_id = ? OR channel_id = ? ORDER BY id",
            (channel_id, channel_id))

    async def game_ids_in_guild(self, guild_id: int) -> list[int]:
        return await self.db.run(
            _game_ids, "SELECT id FROM games WHERE guild_id = ? ORDER BY id", (guild_id,))

    async def game_ids_of_member(self, guild_id: int, user_id: int) -> list[int]:
        return await self.db.run(
            _game_ids,
            "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id WHERE g.guild_id = ? "
            "AND s.user_id = ? AND s.ai_level IS NULL AND g.status IN ('lobby', 'draft', 'play') "
            "ORDER BY g.id", (guild_id, user_id))

    # timers
    async def due_timers(self, now: int, limit: int) -> list[TimerRow]:
        return await self.db.run(_due_timers, now, limit)

    async def timers(self, game_id: int) -> list[TimerRow]:
        return await self.db.run(_game_timers, game_id)

    async def waiting_games(self, user_id: int) -> list[int]:
        """Games waiting for this person to act (their turn or their goal draft)."""
        return await self.db.run(_waiting_games, user_id)

    # outbox
    async def due_notices(self, now: datetime | int, limit: int) -> list[Notice]:
        ms = now if isinstance(now, int) else int(now.timestamp() * 1000)
        return await self.db.run(_due_notices, ms, limit)

    async def notices(self, game_id: int | None = None) -> list[Notice]:
        """Every notice still stored (any status), oldest first: for tests and tools."""
        return await self.db.run(_all_notices, game_id)

    async def mark_done(self, ids: list[int], now: int) -> None:
        if ids:
            await self.db.run(_mark_done, ids, now)

    async def mark_retry(self, notice_id: int, due: int, error: str) -> None:
        await self.db.run(_mark_retry, notice_id, due, error)

    async def mark_failed(self, notice_id: int, now: int, error: str) -> None:
        await self.db.run(_mark_failed, notice_id, now, error)

    async def skip_pending_dms(self, user_id: int, now: int) -> list[int]:
        """Drop this user's undelivered DMs; returns the games they were about."""
        return await self.db.run(_skip_pending_dms, user_id, now)

    async def prune_outbox(self, before: int) -> int:
        return await self.db.run(_prune, before)

    # users and stats
    async def get_user(self, user_id: int) -> UserRow | None:
        return await self.db.run(_get_user, user_id)

    async def set_user(self, user_id: int, **cols: Any) -> UserRow:
        return await self.db.run(_set_user, user_id, cols)

    async def user_stats(self, user_id: int,
                         guild_id: int | None) -> tuple[int, int, float | None, int | None]:
        return await self.db.run(_user_stats, user_id, guild_id)

    async def leaderboard(self, guild_id: int,
                          limit: int) -> list[tuple[int, str, int, int, float, int]]:
        return await self.db.run(_leaderboard, guild_id, limit)

    async def checkpoint(self) -> None:
        """Fold the WAL into the main file (tools and benchmarks measuring the file size)."""
        await self.db.run(_checkpoint)

    async def vacuum(self) -> None:
        """Rebuild the file without its free pages (maintenance; blocks writes meanwhile)."""
        await self.db.run(_vacuum)
        await self.db.run(_checkpoint)
