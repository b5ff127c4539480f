"""Every statement the stores run, written once for both backends, and the mapping between
result rows and :mod:`bot.core.storage.rows`.

Statements use ``?`` placeholders and PostgreSQL's row locks; :mod:`bot.core.storage.dialect`
spells them for each backend. Column names are only ever interpolated from the fixed lists of
:mod:`bot.core.storage.rows` (``GAME_COLUMNS``, ``USER_COLUMNS``, ``TABLES``), never from input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.clock import from_ms
from bot.core.notices import Notice
from bot.core.storage.rows import (
    GAME_COLUMNS,
    NEW_GAME_COLUMNS,
    TABLES,
    USER_COLUMNS,
    GameRow,
    NoticeDraft,
    ResultRow,
    SeatRow,
    TimerRow,
    UserRow,
)
from bot.core.storage.steps import Batch, Claim, Row

# --------------------------------------------------------------------------- columns

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
    "o.message_id, o.sent_at")
NOTICE_FROM = "outbox o LEFT JOIN games g ON g.id = o.game_id"
USER_FIELDS = "user_id, name, locale, reminders, dm_closed_at, last_reminder_at, describe"
RESULT_FIELDS = ("game_id, seat, user_id, guild_id, total, place, win, counted, breakdown, "
                 "finished_at")
MOVE_FIELDS = "game_id, ply, seat, move, played_by, events, created_at"
ACTIVE = "('lobby', 'draft', 'play')"

PRIMARY_KEYS = {
    "games": "id", "seats": "game_id, seat", "moves": "game_id, ply", "outbox": "id",
    "lanes": "game_id, recipient", "timers": "game_id, kind, seat", "users": "user_id",
    "results": "game_id, seat", "player_totals": "guild_id, user_id", "app_state": "key",
    "achievements": "user_id, achievement", "ratings": "scope, player", "challenges": "week",
    "challenge_entries": "week, user_id", "reviews": "game_id, seat", "guild_settings": "guild_id",
    "tournaments": "id", "tournament_entrants": "tournament_id, user_id",
    "tournament_tables": "tournament_id, round, table_no",
    "site_hidden": "user_id", "rating_history": "scope, player, game_id",
}


def prefixed(alias: str, fields: str) -> str:
    return ", ".join(f"{alias}.{f}" for f in fields.split(", "))


def checked(columns: Sequence[str], allowed: frozenset[str], what: str) -> None:
    bad = set(columns) - allowed
    if bad:
        raise ValueError(f"not {what} columns: {sorted(bad)}")


def known_table(table: str) -> str:
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}")
    return table


# --------------------------------------------------------------------------- games

LOAD_GAME = f"SELECT {GAME_FIELDS} FROM games WHERE id = ?"
SEATS = f"SELECT {SEAT_FIELDS} FROM seats WHERE game_id = ? ORDER BY seat"
GAME_VERSION = "SELECT version FROM games WHERE id = ?"


def insert_game(columns: Sequence[str]) -> str:
    checked(columns, NEW_GAME_COLUMNS, "game")
    marks = ", ".join("?" for _ in columns)
    return (f"INSERT INTO games ({', '.join(columns)}, created_at, updated_at) "
            f"VALUES ({marks}, ?, ?) RETURNING id")


def versioned_update(table: str, columns: Sequence[str]) -> str:
    """``UPDATE table SET columns..., version + 1, updated_at WHERE id AND version``: the
    optimistic write of a versioned row (a game, a tournament). Column names come from a
    caller's fixed list, checked with :func:`checked`."""
    sets = "".join(f"{c} = ?, " for c in columns)
    return (f"UPDATE {table} SET {sets}version = version + 1, updated_at = ? "
            "WHERE id = ? AND version = ?")


def update_game(columns: Sequence[str]) -> str:
    """The optimistic write: changes nothing unless the game is still at the version read."""
    checked(columns, GAME_COLUMNS, "game")
    return versioned_update("games", columns)


DELETE_SEATS = "DELETE FROM seats WHERE game_id = ?"
INSERT_SEATS = (
    "INSERT INTO seats (game_id, seat, user_id, name, ai_level, left_game, fallback_sent) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)")
INSERT_MOVE = f"INSERT INTO moves ({MOVE_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
MOVES = f"SELECT {MOVE_FIELDS} FROM moves WHERE game_id = ? ORDER BY ply"
MOVES_BEFORE = f"SELECT {MOVE_FIELDS} FROM moves WHERE game_id = ? AND ply < ? ORDER BY ply"
RESULTS = f"SELECT {RESULT_FIELDS} FROM results WHERE game_id = ? ORDER BY seat"
INSERT_RESULTS = Batch(
    f"INSERT INTO results ({RESULT_FIELDS})",
    ("bigint", "int", "bigint", "bigint", "int", "int", "int", "int", "text", "bigint"),
    "ON CONFLICT (game_id, seat) DO NOTHING")
UPSERT_TOTALS = (
    "INSERT INTO player_totals (guild_id, user_id, games, wins, score_sum, best) "
    "VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
    "games = player_totals.games + 1, wins = player_totals.wins + excluded.wins, "
    "score_sum = player_totals.score_sum + excluded.score_sum, "
    "best = max(player_totals.best, excluded.best)")
# A rematch is opened after its game, so it has a larger id: the scan starts there.
REMATCHES = "SELECT id FROM games WHERE id > ? AND rematch_of = ? ORDER BY id"
WAITING = (
    "SELECT t.game_id FROM timers t JOIN seats s ON s.game_id = t.game_id AND s.seat = t.seat "
    "WHERE t.kind = 'turn' AND s.user_id = ? AND s.ai_level IS NULL "
    "ORDER BY t.deadline_at, t.game_id")
# games_guild is (guild_id, status): counting by status reads the index, not the games.
ACTIVE_GAMES = f"SELECT status, count(*) FROM games WHERE status IN {ACTIVE} GROUP BY status"


def count_games(statuses: int) -> str:
    marks = ", ".join("?" for _ in range(statuses))
    return ("SELECT count(DISTINCT g.id) FROM games g JOIN seats s ON s.game_id = g.id "
            f"WHERE s.user_id = ? AND s.ai_level IS NULL AND g.status IN ({marks})")


def game_ids(user_id: int | None, thread_id: int | None, channel_id: int | None,
             guild_id: int | None, active_only: bool,
             limit: int | None) -> tuple[str, tuple[Any, ...]]:
    """The SELECT of :meth:`GameStore.game_ids` and its arguments."""
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
        where.append(f"g.status IN {ACTIVE}")
    sql = f"SELECT g.id FROM games g{join}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {order}"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return sql, tuple(args)


# --------------------------------------------------------------------------- outbox

INSERT_NOTICES = Batch(
    "INSERT INTO outbox (game_id, kind, user_id, recipient, ply, payload, key, due_at, "
    "created_at, channel_id)",
    ("bigint", "text", "bigint", "bigint", "int", "text", "text", "bigint", "bigint", "bigint"),
    "ON CONFLICT (key) DO NOTHING")
# A lane that is idle comes due now; one that is claimed or waiting for a retry keeps its time
# (the new notice waits its turn behind the lane's head). DO UPDATE, not DO NOTHING: on
# PostgreSQL it locks the lane row, which release_lane relies on.
UPSERT_LANES = Batch(
    "INSERT INTO lanes (game_id, recipient, next_due)", ("bigint", "bigint", "bigint"),
    "ON CONFLICT (game_id, recipient) DO UPDATE SET "
    "next_due = coalesce(lanes.next_due, excluded.next_due)")
SKIP_GAME_NOTICES = ("UPDATE outbox SET status = 'skipped', done_at = ? "
                     "WHERE game_id = ? AND status = 'pending'")
IDLE_GAME_LANES = ("UPDATE lanes SET next_due = NULL, owner = NULL, lease_until = NULL "
                   "WHERE game_id = ?")
# Due lanes, longest-waiting first, leased to one claimer (see steps.Claim).


# ``served_since`` is kept when already set (a serve that never gave the lane back: its
# process died); a lane claimed back with it earlier than ``now`` may have a notice in flight
# (SQLite returns the value before the claim, PostgreSQL after: either is read that way).


# The due time of an express lane (a new game's thread to open): before every other.
EXPRESS_DUE = 0


def claim_lanes(owner: str, now: int, lease_until: int, limit: int,
                express: bool = False) -> Claim:
    """Lease the ``limit`` longest-waiting due lanes (``express``: only express lanes)."""
    return Claim("lanes", ("game_id", "recipient"), ("game_id", "recipient", "served_since"),
                 "WHERE next_due <= ? ORDER BY next_due LIMIT ?",
                 "owner = ?, lease_until = ?, next_due = ?, "
                 "served_since = coalesce(served_since, ?)",
                 (EXPRESS_DUE if express else now, limit), (owner, lease_until, lease_until, now))


LANE_NOTICES = (
    f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} "
    "WHERE o.game_id = ? AND o.recipient = ? AND o.status = 'pending' ORDER BY o.id LIMIT ?")
FINISH_NOTICE = (
    "UPDATE outbox SET status = ?, done_at = ?, attempts = attempts + 1, message_id = ?, "
    "last_error = coalesce(?, last_error) WHERE id = ? AND status = 'pending'")
# A failed attempt may still have reached Discord (a timeout, a 5xx after the post): its time
# is kept (the first one), so a retry past the nonce window looks before posting.
RETRY_NOTICE = ("UPDATE outbox SET attempts = attempts + 1, due_at = ?, last_error = ?, "
                "sent_at = coalesce(sent_at, ?) WHERE id = ? AND status = 'pending'")
# A notice that may be out without being recorded (its lane's serve never ended, or was cut).
MARK_SENT = ("UPDATE outbox SET sent_at = coalesce(sent_at, ?) "
             "WHERE id = ? AND status = 'pending'")
# A lease renewed by its holder: next_due moves with it, because a claim reads only next_due.
RENEW_LANE = ("UPDATE lanes SET lease_until = ?, next_due = ? "
              "WHERE game_id = ? AND recipient = ? AND owner = ?")
# The row lock first: a commit queuing a notice upserts this row, so either it committed
# before (and the next statement, with a fresh snapshot, sees its notice) or it waits for the
# release and then makes the idle lane due again.
LANE_OWNER = "SELECT owner FROM lanes WHERE game_id = ? AND recipient = ? FOR UPDATE"
LANE_PENDING = ("SELECT 1 FROM outbox WHERE game_id = ? AND recipient = ? "
                "AND status = 'pending' LIMIT 1")
RELEASE_LANE = ("UPDATE lanes SET owner = NULL, lease_until = NULL, next_due = ?, "
                "served_since = NULL WHERE game_id = ? AND recipient = ?")
ALL_NOTICES = f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} ORDER BY o.id"
GAME_NOTICES = f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} WHERE o.game_id = ? ORDER BY o.id"
SKIP_DMS = ("UPDATE outbox SET status = 'skipped', done_at = ?, last_error = 'dm closed' "
            "WHERE status = 'pending' AND recipient = ? RETURNING game_id")
PENDING_STATS = "SELECT count(*), min(created_at) FROM outbox WHERE status = 'pending'"
STATUS_COUNTS = "SELECT status, count(*) FROM outbox GROUP BY status"
LANES_DUE = "SELECT count(*) FROM lanes WHERE next_due <= ?"
PRUNE_NOTICES = "DELETE FROM outbox WHERE status <> 'pending' AND done_at < ?"
PRUNE_LANES = (
    "DELETE FROM lanes WHERE next_due IS NULL AND game_id IN "
    f"(SELECT id FROM games WHERE status NOT IN {ACTIVE} AND updated_at < ?)")

# --------------------------------------------------------------------------- timers

DELETE_TIMERS = "DELETE FROM timers WHERE game_id = ?"
DELETE_TURN_TIMERS = "DELETE FROM timers WHERE game_id = ? AND kind = 'turn'"
DELETE_TIMER = "DELETE FROM timers WHERE game_id = ? AND kind = ? AND seat = ?"
UPSERT_TIMERS = (
    "INSERT INTO timers (game_id, kind, seat, due_at, deadline_at, reminders) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, kind, seat) DO UPDATE SET "
    "due_at = excluded.due_at, deadline_at = excluded.deadline_at, "
    "reminders = excluded.reminders, owner = NULL, lease_until = NULL, failures = 0, "
    "last_error = NULL")


def claim_timers(owner: str, now: int, lease_until: int, limit: int) -> Claim:
    """Due timers not leased (or whose lease ran out), oldest first."""
    return Claim("timers", ("game_id", "kind", "seat"), tuple(TIMER_FIELDS.split(", ")),
                 "WHERE due_at <= ? AND (lease_until IS NULL OR lease_until < ?) "
                 "ORDER BY due_at, game_id, seat LIMIT ?",
                 "owner = ?, lease_until = ?", (now, now, limit), (owner, lease_until))


GAME_TIMERS = f"SELECT {TIMER_FIELDS} FROM timers WHERE game_id = ? ORDER BY kind, seat"
TIMER_FAILED = (
    "UPDATE timers SET failures = failures + 1, due_at = ?, last_error = ?, owner = NULL, "
    "lease_until = NULL WHERE game_id = ? AND kind = ? AND seat = ? AND owner = ? "
    "RETURNING failures")
RELEASE_TIMER = ("UPDATE timers SET owner = NULL, lease_until = NULL "
                 "WHERE game_id = ? AND kind = ? AND seat = ? AND owner = ?")

# --------------------------------------------------------------------------- people

GET_USER = f"SELECT {USER_FIELDS} FROM users WHERE user_id = ?"
ENSURE_USER = "INSERT INTO users (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING"
UPSERT_NAMES = (
    "INSERT INTO users (user_id, name, locale) VALUES (?, ?, ?) ON CONFLICT (user_id) "
    "DO UPDATE SET name = excluded.name, locale = coalesce(excluded.locale, users.locale)")


def update_user(columns: Sequence[str]) -> str:
    checked(columns, USER_COLUMNS, "user")
    sets = ", ".join(f"{c} = ?" for c in columns)
    return f"UPDATE users SET {sets} WHERE user_id = ?"


_TOTALS = (
    "SELECT t.guild_id, t.user_id, coalesce(u.name, ''), t.games, t.wins, t.score_sum, t.best "
    "FROM player_totals t LEFT JOIN users u ON u.user_id = t.user_id ")
TOTALS = _TOTALS + "WHERE t.guild_id = ? AND t.user_id = ?"
BEST_WITHOUT = (
    "SELECT max(total) FROM results WHERE user_id = ? AND counted = 1 AND game_id <> ? "
    "AND (? = 0 OR guild_id = ?)")
# The games of weekly challenges still open: their scores stay off the public boards until
# the week closes (issue #20; a person's own /calico stats leaves them out the same way for
# others, bot.core.queries.user_stats).
_OPEN_CHALLENGE_GAMES = (
    "SELECT e.game_id FROM challenge_entries e JOIN challenges c ON c.week = e.week "
    "WHERE c.closed_at IS NULL")
_HIDDEN = (
    "SELECT r.user_id, count(*) AS games, sum(r.win) AS wins, sum(r.total) AS total "
    f"FROM results r WHERE r.counted = 1 AND r.game_id IN ({_OPEN_CHALLENGE_GAMES}) "
    "AND (? = 0 OR r.guild_id = ?) GROUP BY r.user_id")
_GAMES = "(t.games - coalesce(h.games, 0))"
_WINS = "(t.wins - coalesce(h.wins, 0))"
_SUM = "(t.score_sum - coalesce(h.total, 0))"
# Params: the scope four times (best, hidden), the scope, min games, limit.
LEADERBOARD = (
    f"SELECT t.guild_id, t.user_id, coalesce(u.name, ''), {_GAMES}, {_WINS}, {_SUM}, "
    "CASE WHEN h.user_id IS NULL THEN t.best ELSE (SELECT max(r.total) FROM results r "
    "WHERE r.user_id = t.user_id AND r.counted = 1 AND (? = 0 OR r.guild_id = ?) "
    f"AND r.game_id NOT IN ({_OPEN_CHALLENGE_GAMES})) END "
    "FROM player_totals t LEFT JOIN users u ON u.user_id = t.user_id "
    f"LEFT JOIN ({_HIDDEN}) h ON h.user_id = t.user_id "
    f"WHERE t.guild_id = ? AND {_GAMES} >= ? AND {_GAMES} > 0 "
    f"ORDER BY {_WINS} DESC, CAST({_SUM} AS REAL) / NULLIF({_GAMES}, 0) DESC, {_GAMES} DESC, "
    "t.user_id LIMIT ?")
# --------------------------------------------------------------------------- servers

GUILD_SETTINGS = "SELECT data FROM guild_settings WHERE guild_id = ?"
SET_GUILD_SETTINGS = (
    "INSERT INTO guild_settings (guild_id, data, updated_at) VALUES (?, ?, ?) "
    "ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at")
GET_STATE = "SELECT value FROM app_state WHERE key = ?"
SET_STATE = ("INSERT INTO app_state (key, value, updated_at) VALUES (?, ?, ?) "
             "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
             "updated_at = excluded.updated_at")
PING = "SELECT 1"


def count_rows(table: str) -> str:
    return f"SELECT count(*) FROM {known_table(table)}"


def export_rows(table: str, columns: Sequence[str]) -> str:
    """Every row of ``table`` in primary key order (a backend pages through it its way)."""
    return f"SELECT {', '.join(columns)} FROM {known_table(table)} ORDER BY {PRIMARY_KEYS[table]}"


def import_rows(table: str, columns: Sequence[str]) -> str:
    return (f"INSERT INTO {known_table(table)} ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)})")


# --------------------------------------------------------------------------- row mapping


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
    return Notice(id=r[0], game_id=r[1], kind=r[2], user_id=r[3], ply=r[4],
                  payload=r[5], key=r[6], attempts=r[7], created_at=from_ms(r[8]),
                  guild_id=r[9], channel_id=r[10], thread_id=r[11], status=r[12],
                  message_id=r[13], sent_at=None if r[14] is None else from_ms(r[14]))


def user_row(r: Row) -> UserRow:
    return UserRow(r[0], r[1], r[2], bool(r[3]), r[4], r[5], bool(r[6]))


def result_row(r: Row) -> ResultRow:
    return ResultRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), bool(r[7]), r[8], r[9])


# --------------------------------------------------------------------------- arguments


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
    """Each lane the notices go to, due now; an express notice's lane is due since the epoch
    (:data:`EXPRESS_DUE`), so claims take it first (an idle lane only: a lane already due
    keeps its place, see ``UPSERT_LANES``)."""
    due: dict[int, int] = {}
    for n in notices:
        due[n.recipient] = EXPRESS_DUE if n.express else due.get(n.recipient, now)
    return [(game_id, r, d) for r, d in due.items()]


def result_params(results: Sequence[ResultRow]) -> list[tuple[Any, ...]]:
    return [(r.game_id, r.seat, r.user_id, r.guild_id, r.total, r.place, int(r.win),
             int(r.counted), r.breakdown, r.finished_at) for r in results]


def totals_params(results: Sequence[ResultRow]) -> list[tuple[Any, ...]]:
    """One row per (server, person) and per (every server, person) a result adds to."""
    out = []
    for r in results:
        if r.counted and r.user_id is not None:
            for guild in (r.guild_id, 0):
                out.append((guild, r.user_id, int(r.win), r.total, r.total))
    return out
