"""The SQLite :class:`~bot.core.storage.base.Store`: every statement as a plain function run on
the writer thread (one hop per call; see :class:`~bot.core.storage.sqlite.db.Database`).

One process owns the file (the lock in ``db.py``), so claims and leases are kept exactly as on
PostgreSQL (the same rows, the same rules) but never contended; the tables and the semantics
are the ones the PostgreSQL store implements, and the same test suites run against both.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from bot.core.clock import from_ms
from bot.core.models import Notice, NoticeKind
from bot.core.storage.base import (
    GAME_COLUMNS,
    NEW_GAME_COLUMNS,
    TABLES,
    USER_COLUMNS,
    AchievementRow,
    ChallengeRow,
    DuplicateEntryError,
    EntryRow,
    GameRow,
    GameWrite,
    Lane,
    MoveRow,
    NewGame,
    NoticeDraft,
    NoticeStatus,
    OutboxStats,
    RatingKey,
    RatingRow,
    RatingUpdate,
    ResultRow,
    ReviewRow,
    SeatRow,
    StaleWriteError,
    Store,
    TimerRow,
    TotalsRow,
    UserRow,
)
from bot.core.storage.sqlite.db import Database, integrity_problems, transaction

# --------------------------------------------------------------------------- SQL (writer thread)


class Row(Protocol):
    """A result row of either driver (a tuple, an asyncpg Record): indexable by position."""

    def __getitem__(self, index: int, /) -> Any: ...


GAME_FIELDS = (
    "id, status, guild_id, channel_id, thread_id, lobby_message_id, host_id, options, "
    "first_user_id, engine_options, state, version, ply, deadline_at, end_reason, created_at, "
    "updated_at, flags, rematch_of, challenge_week")
SEAT_FIELDS = "seat, user_id, name, ai_level, left_game, fallback_sent"
TIMER_FIELDS = "game_id, kind, seat, due_at, deadline_at, reminders, failures"
# A notice about no game (game_id 0) finds no game row: LEFT JOIN, its own channel_id.
NOTICE_FIELDS = (
    "o.id, o.game_id, o.kind, o.user_id, o.ply, o.payload, o.key, o.attempts, o.created_at, "
    "coalesce(g.guild_id, 0), coalesce(g.channel_id, o.channel_id, 0), g.thread_id, o.status, "
    "o.message_id")
NOTICE_FROM = "outbox o LEFT JOIN games g ON g.id = o.game_id"
USER_FIELDS = "user_id, name, locale, reminders, dm_closed_at, last_reminder_at, describe"
RESULT_FIELDS = ("game_id, seat, user_id, guild_id, total, place, win, counted, breakdown, "
                 "finished_at")


def game_row(r: Row, seats: tuple[SeatRow, ...]) -> GameRow:
    return GameRow(
        id=r[0], status=r[1], guild_id=r[2], channel_id=r[3], thread_id=r[4],
        lobby_message_id=r[5], host_id=r[6], options=r[7], first_user_id=r[8],
        engine_options=r[9], state=r[10], version=r[11], ply=r[12], deadline_at=r[13],
        end_reason=r[14], created_at=r[15], updated_at=r[16], flags=r[17], rematch_of=r[18],
        challenge_week=r[19], seats=seats)


def seat_row(r: Row) -> SeatRow:
    return SeatRow(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]))


def timer_row(r: Row) -> TimerRow:
    return TimerRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6])


def notice_row(r: Row) -> Notice:
    return Notice(id=r[0], game_id=r[1], kind=NoticeKind(r[2]), user_id=r[3], ply=r[4],
                  payload=json.loads(r[5]), key=r[6], attempts=r[7], created_at=from_ms(r[8]),
                  guild_id=r[9], channel_id=r[10], thread_id=r[11], status=r[12],
                  message_id=r[13])


def user_row(r: Row) -> UserRow:
    return UserRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5], bool(r[6]))


def result_row(r: Row) -> ResultRow:
    return ResultRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7]), r[8], r[9])


def seat_params(game_id: int, seats: tuple[SeatRow, ...]) -> list[tuple[Any, ...]]:
    return [(game_id, s.seat, s.user_id, s.name, s.ai_level, int(s.left), int(s.fallback_sent))
            for s in seats]


def timer_params(game_id: int, timers: Sequence[TimerRow]) -> list[tuple[Any, ...]]:
    return [(game_id, t.kind, t.seat, t.due_at, t.deadline_at, t.reminders) for t in timers]


def notice_params(game_id: int, version: int, notices: Sequence[NoticeDraft],
                  now: int) -> list[tuple[Any, ...]]:
    return [(game_id, n.kind, n.user_id, n.recipient, n.ply, n.payload,
             n.key or f"{game_id}.{version}.{i}", now, now, n.channel_id)
            for i, n in enumerate(notices)]


def lane_params(game_id: int, notices: Sequence[NoticeDraft], now: int) -> list[tuple[Any, ...]]:
    return [(game_id, r, now) for r in dict.fromkeys(n.recipient for n in notices)]


def rating_row(r: Row) -> RatingRow:
    return RatingRow(r[0], r[1], float(r[2]), float(r[3]), float(r[4]), r[5], r[6])


def challenge_row(r: Row) -> ChallengeRow:
    return ChallengeRow(r[0], r[1], r[2], r[3], r[4], r[5])


def entry_row(r: Row) -> EntryRow:
    return EntryRow(r[0], r[1], r[2], r[3], r[4], r[5])


def rating_rank_of(r: Row) -> tuple[int | None, int]:
    """(rank or None, players ranked) from a RATING_RANK_SQL row."""
    ranked, above, mine = int(r[0]), int(r[1]), int(r[2])
    return (above + 1 if mine else None), ranked


def review_row(r: Row) -> ReviewRow:
    return ReviewRow(r[0], r[1], r[2], float(r[3]), r[4], r[5])


RATING_FIELDS = "scope, player, mu, sigma, ordinal, games, updated_at"
CHALLENGE_FIELDS = "week, seed, options, starts_at, ends_at, closed_at"
ENTRY_FIELDS = "week, user_id, game_id, guild_id, score, finished_at"
REVIEW_FIELDS = "game_id, seat, user_id, accuracy, data, created_at"
UPSERT_RATING = (
    f"INSERT INTO ratings ({RATING_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (scope, player) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
    "ordinal = excluded.ordinal, games = excluded.games, updated_at = excluded.updated_at")
INSERT_ACHIEVEMENT = (
    "INSERT INTO achievements (user_id, achievement, game_id, guild_id, earned_at) "
    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, achievement) DO NOTHING")
SWAP_DELETE = ("DELETE FROM achievements WHERE user_id = ? AND achievement = ? AND game_id = ? "
               "RETURNING guild_id")
INSERT_ENTRY = f"INSERT INTO challenge_entries ({ENTRY_FIELDS}) VALUES (?, ?, ?, ?, ?, ?)"
SCORE_ENTRY = ("UPDATE challenge_entries SET score = ?, finished_at = ? "
               "WHERE week = ? AND user_id = ? AND score IS NULL")
# A person's rating row names them "u:<id>": the user is found by that id (an index lookup),
# computer levels ("ai:<level>") find no user.
RATING_USER = ("CASE WHEN r.player LIKE 'u:%' THEN CAST(substr(r.player, 3) AS BIGINT) "
               "END")
RATING_BOARD_SQL = (
    f"SELECT {', '.join('r.' + f for f in RATING_FIELDS.split(', '))}, coalesce(u.name, '') "
    f"FROM ratings r LEFT JOIN users u ON u.user_id = {RATING_USER} "
    "WHERE r.scope = ? AND r.games >= ? ORDER BY r.ordinal DESC, r.player LIMIT ?")
# (players ranked, players ranked above this one, whether this one is ranked)
RATING_RANK_SQL = (
    "SELECT count(*), coalesce(sum(CASE WHEN o.ordinal > me.ordinal OR (o.ordinal = me.ordinal "
    "AND o.player < me.player) THEN 1 ELSE 0 END), 0), "
    "coalesce(max(CASE WHEN me.games >= ? THEN 1 ELSE 0 END), 0) "
    "FROM ratings o LEFT JOIN ratings me ON me.scope = o.scope AND me.player = ? "
    "WHERE o.scope = ? AND o.games >= ?")
CHALLENGE_RANK_SQL = (
    "SELECT count(*) FILTER (WHERE score > ?), count(*) FROM challenge_entries "
    "WHERE week = ? AND score IS NOT NULL{guild}")
CHALLENGE_GUILDS_SQL = (
    "SELECT guild_id, count(*) FROM challenge_entries WHERE week = ? AND score IS NOT NULL "
    "GROUP BY guild_id ORDER BY guild_id")
# A rematch is opened after its game, so it has a larger id: the scan starts there.
REMATCHES_SQL = "SELECT id FROM games WHERE id > ? AND rematch_of = ? ORDER BY id"
CHALLENGE_BOARD_SQL = (
    f"SELECT {', '.join('e.' + f for f in ENTRY_FIELDS.split(', '))}, coalesce(u.name, '') "
    "FROM challenge_entries e LEFT JOIN users u ON u.user_id = e.user_id "
    "WHERE e.week = ? AND e.score IS NOT NULL{guild} "
    "ORDER BY e.score DESC, e.finished_at, e.user_id LIMIT ?")


def result_params(results: Sequence[ResultRow]) -> list[tuple[Any, ...]]:
    return [(r.game_id, r.seat, r.user_id, r.guild_id, r.total, r.place, int(r.win),
             int(r.counted), r.breakdown, r.finished_at) for r in results]


def totals_params(results: Sequence[ResultRow]) -> list[tuple[Any, ...]]:
    """One row per (server, person) and per (every server, person) a result adds to."""
    out = []
    for r in results:
        if r.counted and r.user_id is not None:
            for guild in (r.guild_id, 0):
                out.append((guild, r.user_id, int(r.win), r.total))
    return out


INSERT_SEATS = (
    "INSERT INTO seats (game_id, seat, user_id, name, ai_level, left_game, fallback_sent) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)")
UPSERT_NAMES = (
    "INSERT INTO users (user_id, name, locale) VALUES (?, ?, ?) ON CONFLICT (user_id) "
    "DO UPDATE SET name = excluded.name, locale = coalesce(excluded.locale, users.locale)")
UPSERT_TIMERS = (
    "INSERT INTO timers (game_id, kind, seat, due_at, deadline_at, reminders) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, kind, seat) DO UPDATE SET "
    "due_at = excluded.due_at, deadline_at = excluded.deadline_at, "
    "reminders = excluded.reminders, owner = NULL, lease_until = NULL, failures = 0, "
    "last_error = NULL")
INSERT_NOTICES = (
    "INSERT INTO outbox (game_id, kind, user_id, recipient, ply, payload, key, due_at, "
    "created_at, channel_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING")
# A lane that is idle comes due now; one that is claimed or waiting for a retry keeps its time
# (the new notice waits its turn behind the lane's head). DO UPDATE, not DO NOTHING: on
# PostgreSQL it locks the lane row, which release_lane relies on.
UPSERT_LANES = (
    "INSERT INTO lanes (game_id, recipient, next_due) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id, recipient) DO UPDATE SET "
    "next_due = coalesce(lanes.next_due, excluded.next_due)")
INSERT_RESULTS = (
    f"INSERT INTO results ({RESULT_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (game_id, seat) DO NOTHING")
UPSERT_TOTALS = (
    "INSERT INTO player_totals (guild_id, user_id, games, wins, score_sum, best) "
    "VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
    "games = player_totals.games + 1, wins = player_totals.wins + excluded.wins, "
    "score_sum = player_totals.score_sum + excluded.score_sum, "
    "best = max(player_totals.best, excluded.best)")


def _seats(conn: sqlite3.Connection, game_id: int) -> tuple[SeatRow, ...]:
    rows = conn.execute(f"SELECT {SEAT_FIELDS} FROM seats WHERE game_id = ? ORDER BY seat",
                        (game_id,)).fetchall()
    return tuple(seat_row(r) for r in rows)


def _load_game(conn: sqlite3.Connection, game_id: int) -> GameRow | None:
    r = conn.execute(f"SELECT {GAME_FIELDS} FROM games WHERE id = ?", (game_id,)).fetchone()
    return None if r is None else game_row(r, _seats(conn, game_id))


def _game_version(conn: sqlite3.Connection, game_id: int) -> int | None:
    r = conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
    return None if r is None else int(r[0])


def _queue(conn: sqlite3.Connection, game_id: int, version: int,
           notices: Sequence[NoticeDraft], now: int) -> int:
    if not notices:
        return 0
    before = conn.total_changes
    conn.executemany(INSERT_NOTICES, notice_params(game_id, version, notices, now))
    inserted = conn.total_changes - before
    conn.executemany(UPSERT_LANES, lane_params(game_id, notices, now))
    return inserted


def _write_results(conn: sqlite3.Connection, results: Sequence[ResultRow]) -> None:
    if not results:
        return
    before = conn.total_changes
    conn.executemany(INSERT_RESULTS, result_params(results))
    if conn.total_changes - before == len(results):  # a result is counted once, ever
        for guild, user, win, total in totals_params(results):
            conn.execute(UPSERT_TOTALS, (guild, user, win, total, total))


@transaction
def _create_game(conn: sqlite3.Connection, g: NewGame) -> int:
    bad = set(g.columns) - NEW_GAME_COLUMNS
    if bad:
        raise ValueError(f"not game columns: {sorted(bad)}")
    names = ", ".join(g.columns)
    marks = ", ".join("?" for _ in g.columns)
    cur = conn.execute(
        f"INSERT INTO games ({names}, created_at, updated_at) VALUES ({marks}, ?, ?)",
        (*g.columns.values(), g.now, g.now))
    game_id = cur.lastrowid
    assert game_id is not None
    conn.executemany(INSERT_SEATS, seat_params(game_id, g.seats))
    if g.user_names:
        conn.executemany(UPSERT_NAMES, g.user_names)
    conn.executemany(UPSERT_TIMERS, timer_params(game_id, g.timers))
    _queue(conn, game_id, 0, g.notices, g.now)
    if g.challenge_entry is not None:
        e = g.challenge_entry
        try:
            conn.execute(INSERT_ENTRY, (e.week, e.user_id, game_id, e.guild_id, None, None))
        except sqlite3.IntegrityError:
            raise DuplicateEntryError(f"{e.user_id} already played {e.week}") from None
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
        conn.executemany(INSERT_SEATS, seat_params(gid, w.seats))
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
        conn.executemany(UPSERT_TIMERS, timer_params(gid, w.upsert_timers))
    if w.skip_pending:
        conn.execute("UPDATE outbox SET status = 'skipped', done_at = ? "
                     "WHERE game_id = ? AND status = 'pending'", (w.now, gid))
        conn.execute("UPDATE lanes SET next_due = NULL, owner = NULL, lease_until = NULL "
                     "WHERE game_id = ?", (gid,))
    inserted = _queue(conn, gid, w.expect_version + 1, w.notices, w.now)
    _write_results(conn, w.results)
    if w.user_names:
        conn.executemany(UPSERT_NAMES, w.user_names)
    for user_id, cols in w.user_updates:
        _update_user(conn, user_id, cols)
    if w.achievements:
        conn.executemany(INSERT_ACHIEVEMENT, [
            (a.user_id, a.achievement, a.game_id, a.guild_id, a.earned_at)
            for a in w.achievements])
    if w.ratings is not None:
        _rate(conn, w.ratings)
    if w.challenge_score is not None:
        week, user_id, score = w.challenge_score
        conn.execute(SCORE_ENTRY, (score, w.now, week, user_id))
    return inserted


def _rate(conn: sqlite3.Connection, update: RatingUpdate) -> None:
    before: dict[RatingKey, RatingRow | None] = {}
    for scope, player in update.keys:
        r = conn.execute(f"SELECT {RATING_FIELDS} FROM ratings WHERE scope = ? AND player = ?",
                         (scope, player)).fetchone()
        before[(scope, player)] = None if r is None else rating_row(r)
    conn.executemany(UPSERT_RATING, [
        (r.scope, r.player, r.mu, r.sigma, r.ordinal, r.games, r.updated_at)
        for r in update.rate(before)])


def _update_user(conn: sqlite3.Connection, user_id: int, cols: dict[str, Any]) -> None:
    bad = set(cols) - USER_COLUMNS
    if bad:
        raise ValueError(f"not user columns: {sorted(bad)}")
    conn.execute("INSERT INTO users (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING",
                 (user_id,))
    if cols:
        sets = ", ".join(f"{c} = ?" for c in cols)
        conn.execute(f"UPDATE users SET {sets} WHERE user_id = ?", (*cols.values(), user_id))


# -- outbox

@transaction
def _claim_lanes(conn: sqlite3.Connection, owner: str, now: int, lease_until: int,
                 limit: int) -> list[Lane]:
    rows = conn.execute(
        "SELECT game_id, recipient FROM lanes WHERE next_due <= ? ORDER BY next_due LIMIT ?",
        (now, limit)).fetchall()
    conn.executemany(
        "UPDATE lanes SET owner = ?, lease_until = ?, next_due = ? "
        "WHERE game_id = ? AND recipient = ?",
        [(owner, lease_until, lease_until, r[0], r[1]) for r in rows])
    return [Lane(r[0], r[1]) for r in rows]


def _lane_notices(conn: sqlite3.Connection, lane: Lane, limit: int) -> list[Notice]:
    rows = conn.execute(
        f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} "
        "WHERE o.game_id = ? AND o.recipient = ? AND o.status = 'pending' ORDER BY o.id LIMIT ?",
        (lane.game_id, lane.recipient, limit)).fetchall()
    return [notice_row(r) for r in rows]


def _finish_notice(conn: sqlite3.Connection, notice_id: int, status: str, now: int,
                   message_id: int | None, error: str | None) -> bool:
    cur = conn.execute(
        "UPDATE outbox SET status = ?, done_at = ?, attempts = attempts + 1, message_id = ?, "
        "last_error = coalesce(?, last_error) WHERE id = ? AND status = 'pending'",
        (status, now, message_id, None if error is None else error[:500], notice_id))
    return cur.rowcount == 1


def _retry_notice(conn: sqlite3.Connection, notice_id: int, due: int, error: str) -> None:
    conn.execute("UPDATE outbox SET attempts = attempts + 1, due_at = ?, last_error = ? "
                 "WHERE id = ? AND status = 'pending'", (due, error[:500], notice_id))


@transaction
def _release_lane(conn: sqlite3.Connection, lane: Lane, owner: str, due: int) -> None:
    held = conn.execute("SELECT owner FROM lanes WHERE game_id = ? AND recipient = ?",
                        (lane.game_id, lane.recipient)).fetchone()
    if held is None or held[0] != owner:
        return  # the lease ran out and someone else serves it now
    pending = conn.execute(
        "SELECT 1 FROM outbox WHERE game_id = ? AND recipient = ? AND status = 'pending' LIMIT 1",
        (lane.game_id, lane.recipient)).fetchone()
    conn.execute("UPDATE lanes SET owner = NULL, lease_until = NULL, next_due = ? "
                 "WHERE game_id = ? AND recipient = ?",
                 (due if pending else None, lane.game_id, lane.recipient))


def _all_notices(conn: sqlite3.Connection, game_id: int | None) -> list[Notice]:
    where = "" if game_id is None else "WHERE o.game_id = ?"
    rows = conn.execute(
        f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} {where} "
        "ORDER BY o.id", () if game_id is None else (game_id,)).fetchall()
    return [notice_row(r) for r in rows]


@transaction
def _skip_pending_dms(conn: sqlite3.Connection, user_id: int, now: int) -> list[int]:
    games = [r[0] for r in conn.execute(
        "SELECT DISTINCT game_id FROM outbox WHERE status = 'pending' AND recipient = ?",
        (user_id,))]
    conn.execute("UPDATE outbox SET status = 'skipped', done_at = ?, last_error = 'dm closed' "
                 "WHERE status = 'pending' AND recipient = ?", (now, user_id))
    return games


def _outbox_stats(conn: sqlite3.Connection, now: int) -> OutboxStats:
    pending, oldest = conn.execute(
        "SELECT count(*), min(created_at) FROM outbox WHERE status = 'pending'").fetchone()
    by_status = dict(conn.execute(
        "SELECT status, count(*) FROM outbox GROUP BY status").fetchall())
    due = conn.execute("SELECT count(*) FROM lanes WHERE next_due <= ?", (now,)).fetchone()[0]
    return OutboxStats(int(pending), oldest, {str(k): int(v) for k, v in by_status.items()},
                       int(due))


@transaction
def _prune(conn: sqlite3.Connection, before: int) -> int:
    cur = conn.execute("DELETE FROM outbox WHERE status <> 'pending' AND done_at < ?", (before,))
    conn.execute(
        "DELETE FROM lanes WHERE next_due IS NULL AND game_id IN "
        "(SELECT id FROM games WHERE status NOT IN ('lobby', 'draft', 'play') AND updated_at < ?)",
        (before,))
    return cur.rowcount


# -- timers

@transaction
def _claim_timers(conn: sqlite3.Connection, owner: str, now: int, lease_until: int,
                  limit: int) -> list[TimerRow]:
    rows = conn.execute(
        f"SELECT {TIMER_FIELDS} FROM timers WHERE due_at <= ? "
        "AND (lease_until IS NULL OR lease_until < ?) ORDER BY due_at, game_id, seat LIMIT ?",
        (now, now, limit)).fetchall()
    conn.executemany(
        "UPDATE timers SET owner = ?, lease_until = ? WHERE game_id = ? AND kind = ? AND seat = ?",
        [(owner, lease_until, r[0], r[1], r[2]) for r in rows])
    return [timer_row(r) for r in rows]


def _game_timers(conn: sqlite3.Connection, game_id: int) -> list[TimerRow]:
    rows = conn.execute(f"SELECT {TIMER_FIELDS} FROM timers WHERE game_id = ? ORDER BY kind, seat",
                        (game_id,)).fetchall()
    return [timer_row(r) for r in rows]


@transaction
def _timer_failed(conn: sqlite3.Connection, t: TimerRow, owner: str, due: int,
                  error: str) -> int:
    row = conn.execute(
        "UPDATE timers SET failures = failures + 1, due_at = ?, last_error = ?, owner = NULL, "
        "lease_until = NULL WHERE game_id = ? AND kind = ? AND seat = ? AND owner = ? "
        "RETURNING failures", (due, error[:500], t.game_id, t.kind, t.seat, owner)).fetchone()
    return 0 if row is None else int(row[0])


def _release_timer(conn: sqlite3.Connection, t: TimerRow, owner: str) -> None:
    conn.execute("UPDATE timers SET owner = NULL, lease_until = NULL "
                 "WHERE game_id = ? AND kind = ? AND seat = ? AND owner = ?",
                 (t.game_id, t.kind, t.seat, owner))


# -- games, users, stats

def _game_ids(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> list[int]:
    return [int(r[0]) for r in conn.execute(sql, args).fetchall()]


def game_ids_query(user_id: int | None, thread_id: int | None, channel_id: int | None,
                   guild_id: int | None, active_only: bool,
                   limit: int | None) -> tuple[str, list[Any]]:
    """The SELECT for :meth:`Store.game_ids` with ``?`` placeholders (shared by both stores)."""
    where: list[str] = []
    args: list[Any] = []
    join = ""
    order = "g.id"
    if user_id is not None:
        join = " JOIN seats s ON s.game_id = g.id"
        where.append("s.user_id = ? AND s.ai_level IS NULL")
        args.append(user_id)
        order = "g.updated_at DESC, g.id DESC"
    if thread_id is not None:
        where.append("g.thread_id = ?")
        args.append(thread_id)
        order = "g.id DESC"
    if channel_id is not None:
        where.append("(g.thread_id = ? OR g.channel_id = ?)")
        args += [channel_id, channel_id]
    if guild_id is not None:
        where.append("g.guild_id = ?")
        args.append(guild_id)
    if active_only:
        where.append("g.status IN ('lobby', 'draft', 'play')")
    sql = f"SELECT g.id FROM games g{join}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {order}"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return sql, args


WAITING_SQL = (
    "SELECT t.game_id FROM timers t JOIN seats s ON s.game_id = t.game_id AND s.seat = t.seat "
    "WHERE t.kind = 'turn' AND s.user_id = ? AND s.ai_level IS NULL "
    "ORDER BY t.deadline_at, t.game_id")
# games_guild is (guild_id, status): counting by status reads the index, not the games.
ACTIVE_GAMES_SQL = ("SELECT status, count(*) FROM games WHERE status IN ('lobby', 'draft', "
                    "'play') GROUP BY status")
COUNT_GAMES_SQL = (
    "SELECT count(DISTINCT g.id) FROM games g JOIN seats s ON s.game_id = g.id "
    "WHERE s.user_id = ? AND s.ai_level IS NULL AND g.status IN ({})")
LEADERBOARD_SQL = (
    "SELECT t.guild_id, t.user_id, coalesce(u.name, ''), t.games, t.wins, t.score_sum, t.best "
    "FROM player_totals t LEFT JOIN users u ON u.user_id = t.user_id "
    "WHERE t.guild_id = ? AND t.games >= ? "
    "ORDER BY t.wins DESC, CAST(t.score_sum AS REAL) / NULLIF(t.games, 0) DESC, t.games DESC, "
    "t.user_id "
    "LIMIT ?")
TOTALS_SQL = (
    "SELECT t.guild_id, t.user_id, coalesce(u.name, ''), t.games, t.wins, t.score_sum, t.best "
    "FROM player_totals t LEFT JOIN users u ON u.user_id = t.user_id "
    "WHERE t.guild_id = ? AND t.user_id = ?")


def _moves(conn: sqlite3.Connection, game_id: int, before_ply: int | None) -> list[MoveRow]:
    sql = ("SELECT game_id, ply, seat, move, played_by, events, created_at FROM moves "
           "WHERE game_id = ?")
    args: tuple[Any, ...] = (game_id,)
    if before_ply is not None:
        sql += " AND ply < ?"
        args = (game_id, before_ply)
    return [MoveRow(*r) for r in conn.execute(sql + " ORDER BY ply", args).fetchall()]


def _get_user(conn: sqlite3.Connection, user_id: int) -> UserRow | None:
    r = conn.execute(f"SELECT {USER_FIELDS} FROM users WHERE user_id = ?",
                     (user_id,)).fetchone()
    return None if r is None else user_row(r)


@transaction
def _set_user(conn: sqlite3.Connection, user_id: int, cols: dict[str, Any]) -> UserRow:
    _update_user(conn, user_id, cols)
    row = _get_user(conn, user_id)
    assert row is not None
    return row


def _rows(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in conn.execute(sql, args).fetchall()]


def _results(conn: sqlite3.Connection, game_id: int) -> list[ResultRow]:
    rows = conn.execute(f"SELECT {RESULT_FIELDS} FROM results WHERE game_id = ? ORDER BY seat",
                        (game_id,)).fetchall()
    return [result_row(r) for r in rows]


@transaction
def _set_state(conn: sqlite3.Connection, key: str, value: str, now: int) -> None:
    conn.execute("INSERT INTO app_state (key, value, updated_at) VALUES (?, ?, ?) "
                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                 "updated_at = excluded.updated_at", (key, value, now))


def _execute(conn: sqlite3.Connection, sql: str) -> None:
    conn.execute(sql)


def _incremental_vacuum(conn: sqlite3.Connection, pages: int) -> int:
    """Free up to ``pages`` pages; returns how many were free before. The pragma frees one page
    per step of its statement, and ``execute`` steps a statement without result columns only
    once (one page freed, whatever the count): ``executescript`` steps it to the end."""
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    conn.executescript(f"PRAGMA incremental_vacuum({int(pages)});")
    return free


def _write(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> None:
    conn.execute(sql, args)


@transaction
def _ensure_challenge(conn: sqlite3.Connection, c: ChallengeRow) -> ChallengeRow:
    conn.execute(f"INSERT INTO challenges ({CHALLENGE_FIELDS}) VALUES (?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (week) DO NOTHING",
                 (c.week, c.seed, c.options, c.starts_at, c.ends_at, c.closed_at))
    r = conn.execute(f"SELECT {CHALLENGE_FIELDS} FROM challenges WHERE week = ?",
                     (c.week,)).fetchone()
    return challenge_row(r)


@transaction
def _close_challenge(conn: sqlite3.Connection, week: str, now: int,
                     notices: Sequence[NoticeDraft]) -> bool:
    cur = conn.execute("UPDATE challenges SET closed_at = ? WHERE week = ? AND closed_at IS NULL",
                       (now, week))
    if cur.rowcount != 1:
        return False
    _queue(conn, 0, 0, notices, now)
    return True


class HeldError(Exception):
    """The new achievement is already held: roll the swap back."""


@transaction
def _swap_achievement(conn: sqlite3.Connection, user_id: int, game_id: int, old: str, new: str,
                      now: int) -> bool:
    row = conn.execute(SWAP_DELETE, (user_id, old, game_id)).fetchone()
    if row is None:
        return False
    if conn.execute(INSERT_ACHIEVEMENT, (user_id, new, game_id, row[0], now)).rowcount != 1:
        raise HeldError()
    return True


@transaction
def _save_review(conn: sqlite3.Connection, r: ReviewRow) -> ReviewRow:
    conn.execute(f"INSERT INTO reviews ({REVIEW_FIELDS}) VALUES (?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (game_id, seat) DO NOTHING",
                 (r.game_id, r.seat, r.user_id, r.accuracy, r.data, r.created_at))
    row = conn.execute(f"SELECT {REVIEW_FIELDS} FROM reviews WHERE game_id = ? AND seat = ?",
                       (r.game_id, r.seat)).fetchone()
    return review_row(row)


# --------------------------------------------------------------------------- the Store


class SqliteStore(Store):
    """The embedded default: one file, one process (see the module docstring)."""

    backend = "sqlite"

    def __init__(self, db: Database) -> None:
        super().__init__()
        self.db = db

    @classmethod
    async def open(cls, path: str | Path, *, exclusive: bool = True) -> SqliteStore:
        return cls(await Database.open(path, exclusive=exclusive))

    @property
    def location(self) -> str:
        return self.db.path

    @property
    def path(self) -> str:
        return self.db.path

    @property
    def schema_version(self) -> int:
        return self.db.version

    async def close(self) -> None:
        await self.db.close()

    # games
    async def create_game(self, new: NewGame) -> int:
        game_id = await self.db.run(_create_game, new)
        if new.notices:
            self.notices_added.set()
        return game_id

    async def load_game(self, game_id: int) -> GameRow | None:
        return await self.db.run(_load_game, game_id)

    async def game_version(self, game_id: int) -> int | None:
        return await self.db.run(_game_version, game_id)

    async def commit(self, write: GameWrite) -> int:
        inserted = await self.db.run(_commit, write)
        if inserted:
            self.notices_added.set()
        return inserted

    async def moves(self, game_id: int, before_ply: int | None = None) -> list[MoveRow]:
        return await self.db.run(_moves, game_id, before_ply)

    async def results(self, game_id: int) -> list[ResultRow]:
        return await self.db.run(_results, game_id)

    async def game_ids(self, *, user_id: int | None = None, thread_id: int | None = None,
                       channel_id: int | None = None, guild_id: int | None = None,
                       active_only: bool = False, limit: int | None = None) -> list[int]:
        sql, args = game_ids_query(user_id, thread_id, channel_id, guild_id, active_only, limit)
        return await self.db.run(_game_ids, sql, tuple(args))

    async def rematches(self, game_id: int) -> list[int]:
        return await self.db.run(_game_ids, REMATCHES_SQL, (game_id, game_id))

    async def waiting_games(self, user_id: int) -> list[int]:
        return await self.db.run(_game_ids, WAITING_SQL, (user_id,))

    async def active_games(self) -> dict[str, int]:
        rows = await self.db.run(_rows, ACTIVE_GAMES_SQL, ())
        return {str(r[0]): int(r[1]) for r in rows}

    async def count_games(self, user_id: int, statuses: Sequence[str]) -> int:
        sql = COUNT_GAMES_SQL.format(", ".join("?" for _ in statuses))
        rows = await self.db.run(_game_ids, sql, (user_id, *statuses))
        return rows[0] if rows else 0

    # outbox
    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int) -> list[Lane]:
        return await self.db.run(_claim_lanes, owner, now, now + lease_ms, limit)

    async def lane_notices(self, lane: Lane, limit: int) -> list[Notice]:
        return await self.db.run(_lane_notices, lane, limit)

    async def finish_notice(self, notice_id: int, status: NoticeStatus, now: int, *,
                            message_id: int | None = None, error: str | None = None) -> bool:
        return await self.db.run(_finish_notice, notice_id, status.value, now, message_id, error)

    async def retry_notice(self, notice_id: int, due: int, error: str) -> None:
        await self.db.run(_retry_notice, notice_id, due, error)

    async def release_lane(self, lane: Lane, owner: str, due: int) -> None:
        await self.db.run(_release_lane, lane, owner, due)

    async def notices(self, game_id: int | None = None) -> list[Notice]:
        return await self.db.run(_all_notices, game_id)

    async def skip_pending_dms(self, user_id: int, now: int) -> list[int]:
        return await self.db.run(_skip_pending_dms, user_id, now)

    async def outbox_stats(self, now: int) -> OutboxStats:
        return await self.db.run(_outbox_stats, now)

    async def prune_outbox(self, before: int) -> int:
        return await self.db.run(_prune, before)

    async def after_prune(self) -> None:
        # Hand the pages freed by pruning back to the file system, a bounded amount at a time.
        await self.db.run(_incremental_vacuum, 2000)

    # timers
    async def claim_timers(self, owner: str, now: int, lease_ms: int,
                           limit: int) -> list[TimerRow]:
        return await self.db.run(_claim_timers, owner, now, now + lease_ms, limit)

    async def timers(self, game_id: int) -> list[TimerRow]:
        return await self.db.run(_game_timers, game_id)

    async def timer_failed(self, timer: TimerRow, owner: str, due: int, error: str) -> int:
        return await self.db.run(_timer_failed, timer, owner, due, error)

    async def release_timer(self, timer: TimerRow, owner: str) -> None:
        await self.db.run(_release_timer, timer, owner)

    # users and stats
    async def get_user(self, user_id: int) -> UserRow | None:
        return await self.db.run(_get_user, user_id)

    async def set_user(self, user_id: int, **cols: Any) -> UserRow:
        return await self.db.run(_set_user, user_id, cols)

    async def totals(self, user_id: int, guild_id: int) -> TotalsRow | None:
        rows = await self.db.run(_rows, TOTALS_SQL, (guild_id, user_id))
        return TotalsRow(*rows[0]) if rows else None

    async def leaderboard(self, guild_id: int, limit: int, min_games: int = 1
                          ) -> list[TotalsRow]:
        rows = await self.db.run(_rows, LEADERBOARD_SQL, (guild_id, min_games, limit))
        return [TotalsRow(*r) for r in rows]

    async def achievements(self, user_id: int) -> list[AchievementRow]:
        rows = await self.db.run(
            _rows, "SELECT user_id, achievement, game_id, guild_id, earned_at FROM achievements "
            "WHERE user_id = ? ORDER BY earned_at, achievement", (user_id,))
        return [AchievementRow(*r) for r in rows]

    async def swap_achievement(self, user_id: int, game_id: int, old: str, new: str,
                               now: int) -> bool:
        try:
            return await self.db.run(_swap_achievement, user_id, game_id, old, new, now)
        except HeldError:
            return False

    async def rating(self, scope: int, player: str) -> RatingRow | None:
        rows = await self.db.run(
            _rows, f"SELECT {RATING_FIELDS} FROM ratings WHERE scope = ? AND player = ?",
            (scope, player))
        return rating_row(rows[0]) if rows else None

    async def rating_board(self, scope: int, limit: int, min_games: int
                           ) -> list[tuple[RatingRow, str]]:
        rows = await self.db.run(_rows, RATING_BOARD_SQL, (scope, min_games, limit))
        return [(rating_row(r), str(r[7])) for r in rows]

    async def rating_rank(self, scope: int, player: str, min_games: int
                          ) -> tuple[int | None, int]:
        rows = await self.db.run(_rows, RATING_RANK_SQL, (min_games, player, scope, min_games))
        return rating_rank_of(rows[0])

    # weekly challenge
    async def ensure_challenge(self, row: ChallengeRow) -> ChallengeRow:
        return await self.db.run(_ensure_challenge, row)

    async def challenge(self, week: str) -> ChallengeRow | None:
        rows = await self.db.run(
            _rows, f"SELECT {CHALLENGE_FIELDS} FROM challenges WHERE week = ?", (week,))
        return challenge_row(rows[0]) if rows else None

    async def challenge_entry(self, week: str, user_id: int) -> EntryRow | None:
        rows = await self.db.run(
            _rows, f"SELECT {ENTRY_FIELDS} FROM challenge_entries WHERE week = ? AND user_id = ?",
            (week, user_id))
        return entry_row(rows[0]) if rows else None

    async def challenge_board(self, week: str, guild_id: int | None, limit: int
                              ) -> list[tuple[EntryRow, str]]:
        args: tuple[Any, ...]
        if guild_id is None:
            sql, args = CHALLENGE_BOARD_SQL.format(guild=""), (week, limit)
        else:
            sql = CHALLENGE_BOARD_SQL.format(guild=" AND e.guild_id = ?")
            args = (week, guild_id, limit)
        rows = await self.db.run(_rows, sql, args)
        return [(entry_row(r), str(r[6])) for r in rows]

    async def challenge_rank(self, week: str, guild_id: int | None, score: int
                             ) -> tuple[int, int]:
        args: tuple[Any, ...]
        if guild_id is None:
            sql, args = CHALLENGE_RANK_SQL.format(guild=""), (score, week)
        else:
            sql = CHALLENGE_RANK_SQL.format(guild=" AND guild_id = ?")
            args = (score, week, guild_id)
        better, total = (await self.db.run(_rows, sql, args))[0]
        return int(better) + 1, int(total)

    async def challenge_guilds(self, week: str) -> dict[int, int]:
        rows = await self.db.run(_rows, CHALLENGE_GUILDS_SQL, (week,))
        return {int(g): int(n) for g, n in rows}

    async def challenges_to_close(self, now: int) -> list[ChallengeRow]:
        rows = await self.db.run(
            _rows, f"SELECT {CHALLENGE_FIELDS} FROM challenges WHERE closed_at IS NULL "
            "AND ends_at <= ? ORDER BY ends_at", (now,))
        return [challenge_row(r) for r in rows]

    async def close_challenge(self, week: str, now: int,
                              notices: Sequence[NoticeDraft]) -> bool:
        closed = await self.db.run(_close_challenge, week, now, notices)
        if closed and notices:
            self.notices_added.set()
        return closed

    # reviews
    async def review(self, game_id: int, seat: int) -> ReviewRow | None:
        rows = await self.db.run(
            _rows, f"SELECT {REVIEW_FIELDS} FROM reviews WHERE game_id = ? AND seat = ?",
            (game_id, seat))
        return review_row(rows[0]) if rows else None

    async def save_review(self, row: ReviewRow) -> ReviewRow:
        return await self.db.run(_save_review, row)

    async def review_accuracy(self, user_id: int,
                              without_flags: int = 0) -> tuple[int, float | None]:
        rows = await self.db.run(
            _rows, "SELECT count(*), avg(r.accuracy) FROM reviews r JOIN games g "
            "ON g.id = r.game_id WHERE r.user_id = ? AND (g.flags & ?) = 0",
            (user_id, without_flags))
        count, average = rows[0]
        return int(count), None if average is None else float(average)

    # servers
    async def guild_settings(self, guild_id: int) -> str | None:
        rows = await self.db.run(
            _rows, "SELECT data FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return str(rows[0][0]) if rows else None

    async def set_guild_settings(self, guild_id: int, data: str, now: int) -> None:
        await self.db.run(_write, "INSERT INTO guild_settings (guild_id, data, updated_at) "
                          "VALUES (?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
                          "data = excluded.data, updated_at = excluded.updated_at",
                          (guild_id, data, now))

    # shared state
    async def get_state(self, key: str) -> str | None:
        rows = await self.db.run(_rows, "SELECT value FROM app_state WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def set_state(self, key: str, value: str, now: int) -> None:
        await self.db.run(_set_state, key, value, now)

    # maintenance
    async def ping(self) -> None:
        await self.db.run(_rows, "SELECT 1", ())

    async def integrity_check(self) -> list[str]:
        return await self.db.run(integrity_problems)

    async def checkpoint(self) -> None:
        """Fold the WAL into the main file (tools and benchmarks measuring the file size)."""
        await self.db.run(_execute, "PRAGMA wal_checkpoint(TRUNCATE)")

    async def vacuum(self) -> None:
        """Rebuild the file without its free pages (maintenance; blocks writes meanwhile)."""
        await self.db.run(_execute, "VACUUM")
        await self.checkpoint()

    # copying
    async def table_columns(self, table: str) -> list[str]:
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        rows = await self.db.run(_rows, f"PRAGMA table_info({table})", ())
        return [str(r[1]) for r in rows]

    async def export_rows(self, table: str, columns: Sequence[str],
                          batch: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        cols = ", ".join(columns)
        offset = 0
        while True:
            rows = await self.db.run(
                _rows, f"SELECT {cols} FROM {table} ORDER BY {_order(table)} LIMIT ? OFFSET ?",
                (batch, offset))
            if not rows:
                return
            yield rows
            offset += len(rows)

    async def import_rows(self, table: str, columns: Sequence[str],
                          rows: Sequence[tuple[Any, ...]]) -> None:
        sql = (f"INSERT INTO {table} ({', '.join(columns)}) "
               f"VALUES ({', '.join('?' for _ in columns)})")
        await self.db.run(_insert_many, sql, rows)

    async def count_rows(self, table: str) -> int:
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        rows = await self.db.run(_rows, f"SELECT count(*) FROM {table}", ())
        return int(rows[0][0])


PRIMARY_KEYS = {
    "games": "id", "seats": "game_id, seat", "moves": "game_id, ply", "outbox": "id",
    "lanes": "game_id, recipient", "timers": "game_id, kind, seat", "users": "user_id",
    "results": "game_id, seat", "player_totals": "guild_id, user_id", "app_state": "key",
    "achievements": "user_id, achievement", "ratings": "scope, player", "challenges": "week",
    "challenge_entries": "week, user_id", "reviews": "game_id, seat", "guild_settings": "guild_id",
}


def _order(table: str) -> str:
    return PRIMARY_KEYS[table]


@transaction
def _insert_many(conn: sqlite3.Connection, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
    conn.executemany(sql, rows)
