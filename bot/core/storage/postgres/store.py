"""The PostgreSQL :class:`~bot.core.storage.base.Store` (asyncpg): several bot processes on one
database, with the same tables and meaning as the SQLite store.

What makes several processes correct is PostgreSQL's own machinery, nothing home-made:

- a move's write checks ``version`` (``UPDATE ... WHERE version = old``), so two clicks on two
  processes make one move and the other learns it is stale;
- lanes and timers are claimed with ``FOR UPDATE SKIP LOCKED`` and a lease in the row, so each
  is served by one process and reclaimed when a dead process's lease runs out;
- ``release_lane`` locks the lane row before it looks for pending notices, and queuing a notice
  upserts the lane row (locking it): whichever commits first, the other sees it;
- every commit sends ``NOTIFY calico`` (game id and version, whether notices were queued), so
  other processes drop a cached game at once and their dispatchers wake up;
- advisory locks for the one-at-a-time jobs (migrations, command sync, cluster slots).

Connection strings are ``postgresql://user:password@host:port/database`` (asyncpg's format);
the password never appears in logs (:attr:`PostgresStore.location`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import zlib
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.core.models import Notice
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
    StaleWriteError,
    StorageError,
    Store,
    TimerRow,
    TotalsRow,
    UserRow,
)
from bot.core.storage.sqlite.store import (
    ACTIVE_GAMES_SQL,
    CHALLENGE_BOARD_SQL,
    CHALLENGE_FIELDS,
    CHALLENGE_GUILDS_SQL,
    CHALLENGE_RANK_SQL,
    COUNT_GAMES_SQL,
    ENTRY_FIELDS,
    GAME_FIELDS,
    INSERT_ACHIEVEMENT,
    INSERT_RESULTS,
    INSERT_SEATS,
    LEADERBOARD_SQL,
    NOTICE_FIELDS,
    NOTICE_FROM,
    PRIMARY_KEYS,
    RATING_BOARD_SQL,
    RATING_FIELDS,
    RATING_RANK_SQL,
    REMATCHES_SQL,
    RESULT_FIELDS,
    REVIEW_FIELDS,
    SCORE_ENTRY,
    SEAT_FIELDS,
    SWAP_DELETE,
    TIMER_FIELDS,
    TOTALS_SQL,
    UPSERT_NAMES,
    UPSERT_RATING,
    UPSERT_TIMERS,
    USER_FIELDS,
    WAITING_SQL,
    HeldError,
    challenge_row,
    entry_row,
    game_ids_query,
    game_row,
    lane_params,
    notice_params,
    notice_row,
    rating_rank_of,
    rating_row,
    result_params,
    result_row,
    review_row,
    seat_params,
    seat_row,
    timer_params,
    timer_row,
    totals_params,
    user_row,
)

log = logging.getLogger("calico.storage")

CHANNEL = "calico"
SCHEMA_TABLE = "calico_schema"
# Advisory lock keys (one namespace per use; the second number is the slot or hashed name).
LOCK_MIGRATE = 0x6361_6C69  # "cali"
LOCK_NAMED = 0x636F_0001
LOCK_SLOT = 0x636F_0002
LOCK_RATING = 0x636F_0003
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
_MARK = re.compile(r"\?")


def pg(sql: str) -> str:
    """SQLite's ``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (our SQL has no ``?`` in
    literals); ``max(a, b)`` of two values is ``greatest`` there."""
    counter = iter(range(1, 10_000))
    text = _MARK.sub(lambda _: f"${next(counter)}", sql)
    return text.replace("max(player_totals.best, excluded.best)",
                        "greatest(player_totals.best, excluded.best)")


def migrations() -> list[tuple[int, str]]:
    folder = resources.files("bot.core.storage.postgres").joinpath("migrations")
    found: list[tuple[int, str]] = []
    for entry in folder.iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            found.append((int(m[1]), entry.read_text(encoding="utf-8")))
    found.sort()
    if [v for v, _ in found] != list(range(1, len(found) + 1)):
        raise StorageError("migration files must be numbered 0001, 0002, ... without gaps")
    return found


def latest_version() -> int:
    return len(migrations())


def redact(url: str) -> str:
    """The URL without its password (for logs and messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def _count(status: str) -> int:
    """Rows touched, from asyncpg's command status (``UPDATE 3``, ``INSERT 0 2``)."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def name_key(name: str) -> int:
    """A stable 31-bit key for an advisory lock named ``name``."""
    return zlib.crc32(name.encode()) & 0x7FFF_FFFF


async def _schema_version(conn: asyncpg.Connection) -> int:
    """The schema version of the database (0: empty); refuses a foreign or newer one."""
    has_schema = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", SCHEMA_TABLE)
    if not has_schema:
        others = await conn.fetch(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name LIMIT 5")
        if others:
            names = ", ".join(r[0] for r in others)
            raise StorageError(
                f"the database already holds tables that are not calico-bot's ({names}); "
                "refusing to touch it: use an empty database")
        return 0
    version = int(await conn.fetchval(f"SELECT version FROM {SCHEMA_TABLE}") or 0)
    latest = latest_version()
    if version > latest:
        raise StorageError(
            f"the database has schema version {version}, newer than this bot knows "
            f"({latest}): it was written by a newer calico-bot; upgrade the bot")
    return version


async def _migrate(conn: asyncpg.Connection) -> int:
    """Apply pending migrations in one transaction, one process at a time."""
    await conn.execute("SELECT pg_advisory_lock($1)", LOCK_MIGRATE)
    try:
        current = await _schema_version(conn)
        pending = [(v, sql) for v, sql in migrations() if v > current]
        if not pending:
            return current
        async with conn.transaction():
            if current == 0:
                await conn.execute(f"CREATE TABLE {SCHEMA_TABLE} (version integer NOT NULL)")
                await conn.execute(f"INSERT INTO {SCHEMA_TABLE} VALUES (0)")
            for version, sql in pending:
                await conn.execute(sql)
                await conn.execute(f"UPDATE {SCHEMA_TABLE} SET version = $1", version)
        log.info("database migrated to schema version %d", pending[-1][0])
        return pending[-1][0]
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_MIGRATE)


# Statements, converted once.
SQL_LOAD_GAME = pg(f"SELECT {GAME_FIELDS} FROM games WHERE id = ?")
SQL_SEATS = pg(f"SELECT {SEAT_FIELDS} FROM seats WHERE game_id = ? ORDER BY seat")
SQL_INSERT_SEATS = pg(INSERT_SEATS)
SQL_UPSERT_NAMES = pg(UPSERT_NAMES)
SQL_UPSERT_TIMERS = pg(UPSERT_TIMERS)
SQL_INSERT_RESULTS = pg(INSERT_RESULTS)
SQL_INSERT_ACHIEVEMENT = pg(INSERT_ACHIEVEMENT)
SQL_UPSERT_RATING = pg(UPSERT_RATING)
SQL_SCORE_ENTRY = pg(SCORE_ENTRY)
SQL_UPSERT_TOTALS = pg(
    "INSERT INTO player_totals (guild_id, user_id, games, wins, score_sum, best) "
    "VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
    "games = player_totals.games + 1, wins = player_totals.wins + excluded.wins, "
    "score_sum = player_totals.score_sum + excluded.score_sum, "
    "best = max(player_totals.best, excluded.best)")
# Many notices in one statement (one round trip); the count comes back in the status.
SQL_INSERT_NOTICES = (
    "INSERT INTO outbox (game_id, kind, user_id, recipient, ply, payload, key, due_at, "
    "created_at, channel_id) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], "
    "$4::bigint[], $5::int[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], "
    "$10::bigint[]) ON CONFLICT (key) DO NOTHING")
SQL_UPSERT_LANES = (
    "INSERT INTO lanes (game_id, recipient, next_due) "
    "SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) "
    "ON CONFLICT (game_id, recipient) DO UPDATE SET "
    "next_due = coalesce(lanes.next_due, excluded.next_due)")
SQL_CLAIM_LANES = (
    "UPDATE lanes l SET owner = $1, lease_until = $2, next_due = $2 FROM ("
    "SELECT game_id, recipient FROM lanes WHERE next_due <= $3 ORDER BY next_due LIMIT $4 "
    "FOR UPDATE SKIP LOCKED) c WHERE l.game_id = c.game_id AND l.recipient = c.recipient "
    "RETURNING l.game_id, l.recipient")
SQL_LANE_NOTICES = pg(
    f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} "
    "WHERE o.game_id = ? AND o.recipient = ? AND o.status = 'pending' ORDER BY o.id LIMIT ?")
SQL_CLAIM_TIMERS = (
    "UPDATE timers t SET owner = $1, lease_until = $2 FROM ("
    "SELECT game_id, kind, seat FROM timers WHERE due_at <= $3 "
    "AND (lease_until IS NULL OR lease_until < $3) ORDER BY due_at, game_id, seat LIMIT $4 "
    "FOR UPDATE SKIP LOCKED) c WHERE t.game_id = c.game_id AND t.kind = c.kind "
    f"AND t.seat = c.seat RETURNING {', '.join('t.' + f for f in TIMER_FIELDS.split(', '))}")


# Generic in the type stubs only: spelled as a string so nothing subscripts them at run time.
Conn: TypeAlias = "asyncpg.Connection[Any] | PoolConnectionProxy[Any]"


def _columns(values: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Rows as per-column lists (for ``unnest``)."""
    return [[row[i] for row in values] for i in range(width)]


class PostgresStore(Store):
    """Several processes on one PostgreSQL database (see the module docstring)."""

    backend = "postgresql"
    shared = True

    def __init__(self, pool: asyncpg.Pool, url: str, version: int) -> None:
        super().__init__()
        self.pool = pool
        self.url = url
        self._version = version
        self._listener: asyncpg.Connection | None = None
        self._closed = False

    @classmethod
    async def open(cls, url: str, *, min_size: int = 2, max_size: int = 10,
                   listen: bool = True) -> PostgresStore:
        try:
            conn = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError) as e:
            raise StorageError(f"cannot connect to {redact(url)}: {e}") from e
        try:
            version = await _migrate(conn)
        finally:
            await conn.close()
        # No reset query when a connection goes back to the pool (asyncpg's default sends four
        # statements each time: a round trip and server work on every store call, about a
        # fifth of the server's CPU per move). asyncpg still rolls back an open transaction;
        # the only other session state the store ever leaves is ``exclusive``'s advisory lock,
        # which that method releases itself (or closes the connection).
        pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size,
                                         reset=_no_reset)
        assert pool is not None
        store = cls(pool, url, version)
        if listen:
            await store._listen()
        return store

    async def _listen(self) -> None:
        conn = await asyncpg.connect(self.url)
        await conn.add_listener(CHANNEL, self._notified)
        self._listener = conn

    def _notified(self, _conn: Conn, _pid: int, _channel: str, payload: object) -> None:
        # "g:<id>:<version>[:n]" after a game commit, "n" when notices were queued,
        # "u:<id>" after a user row changed.
        parts = str(payload).split(":")
        if parts[0] == "g" and len(parts) >= 3:
            self._game_changed(int(parts[1]), int(parts[2]))
            if len(parts) > 3:
                self.notices_added.set()
        elif parts[0] == "u" and len(parts) == 2:
            self._user_changed(int(parts[1]))
        elif parts[0] == "n":
            self.notices_added.set()

    @property
    def location(self) -> str:
        return redact(self.url)

    @property
    def schema_version(self) -> int:
        return self._version

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()
            self._listener = None
        await self.pool.close()

    # -- games
    async def create_game(self, new: NewGame) -> int:
        bad = set(new.columns) - NEW_GAME_COLUMNS
        if bad:
            raise ValueError(f"not game columns: {sorted(bad)}")
        names = ", ".join(new.columns)
        marks = ", ".join(f"${i}" for i in range(1, len(new.columns) + 3))
        async with self.pool.acquire() as conn, conn.transaction():
            game_id = int(await conn.fetchval(
                f"INSERT INTO games ({names}, created_at, updated_at) VALUES ({marks}) "
                "RETURNING id", *new.columns.values(), new.now, new.now))
            await conn.executemany(SQL_INSERT_SEATS, seat_params(game_id, new.seats))
            if new.user_names:
                await conn.executemany(SQL_UPSERT_NAMES, new.user_names)
            if new.timers:
                await conn.executemany(SQL_UPSERT_TIMERS, timer_params(game_id, new.timers))
            queued = await self._queue(conn, game_id, 0, new)
            if new.challenge_entry is not None:
                e = new.challenge_entry
                try:
                    await conn.execute(
                        "INSERT INTO challenge_entries (" + ENTRY_FIELDS + ") VALUES "
                        "($1, $2, $3, $4, NULL, NULL)", e.week, e.user_id, game_id, e.guild_id)
                except asyncpg.UniqueViolationError:
                    raise DuplicateEntryError(f"{e.user_id} already played {e.week}") from None
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL,
                               f"g:{game_id}:0" + (":n" if queued else ""))
        if queued:
            self.notices_added.set()
        return game_id

    async def _queue(self, conn: Conn, game_id: int, version: int,
                     write: GameWrite | NewGame) -> int:
        if not write.notices:
            return 0
        return await self._queue_drafts(conn, game_id, version, write.notices, write.now)

    async def _queue_drafts(self, conn: Conn, game_id: int, version: int,
                            notices: Sequence[NoticeDraft], now: int) -> int:
        if not notices:
            return 0
        rows = notice_params(game_id, version, notices, now)
        status = await conn.execute(SQL_INSERT_NOTICES, *_columns(rows, 10))
        lanes = lane_params(game_id, notices, now)
        await conn.execute(SQL_UPSERT_LANES, *_columns(lanes, 3))
        return _count(status)

    async def load_game(self, game_id: int) -> GameRow | None:
        async with self.pool.acquire() as conn:
            r = await conn.fetchrow(SQL_LOAD_GAME, game_id)
            if r is None:
                return None
            seats = tuple(seat_row(s) for s in await conn.fetch(SQL_SEATS, game_id))
        return game_row(r, seats)

    async def game_version(self, game_id: int) -> int | None:
        v = await self.pool.fetchval("SELECT version FROM games WHERE id = $1", game_id)
        return None if v is None else int(v)

    async def commit(self, write: GameWrite) -> int:
        w = write
        bad = set(w.columns) - GAME_COLUMNS
        if bad:
            raise ValueError(f"not game columns: {sorted(bad)}")
        sets = "".join(f"{c} = ${i}, " for i, c in enumerate(w.columns, start=1))
        n = len(w.columns)
        gid = w.game_id
        async with self.pool.acquire() as conn, conn.transaction():
            status = await conn.execute(
                f"UPDATE games SET {sets}version = version + 1, updated_at = ${n + 1} "
                f"WHERE id = ${n + 2} AND version = ${n + 3}",
                *w.columns.values(), w.now, gid, w.expect_version)
            if _count(status) != 1:
                raise StaleWriteError(f"game {gid} is no longer at version {w.expect_version}")
            if w.seats is not None:
                await conn.execute("DELETE FROM seats WHERE game_id = $1", gid)
                await conn.executemany(SQL_INSERT_SEATS, seat_params(gid, w.seats))
            if w.move is not None:
                m = w.move
                await conn.execute(
                    "INSERT INTO moves (game_id, ply, seat, move, played_by, events, created_at) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    m.game_id, m.ply, m.seat, m.move, m.played_by, m.events, m.created_at)
            if w.clear_timers:
                await conn.execute("DELETE FROM timers WHERE game_id = $1", gid)
            elif w.clear_turn_timers:
                await conn.execute("DELETE FROM timers WHERE game_id = $1 AND kind = 'turn'", gid)
            for kind, seat in w.delete_timers:
                await conn.execute(
                    "DELETE FROM timers WHERE game_id = $1 AND kind = $2 AND seat = $3",
                    gid, kind, seat)
            if w.upsert_timers:
                await conn.executemany(SQL_UPSERT_TIMERS, timer_params(gid, w.upsert_timers))
            if w.skip_pending:
                await conn.execute("UPDATE outbox SET status = 'skipped', done_at = $1 "
                                   "WHERE game_id = $2 AND status = 'pending'", w.now, gid)
                await conn.execute("UPDATE lanes SET next_due = NULL, owner = NULL, "
                                   "lease_until = NULL WHERE game_id = $1", gid)
            inserted = await self._queue(conn, gid, w.expect_version + 1, w)
            if w.results:
                status = await conn.execute(
                    "INSERT INTO results (" + RESULT_FIELDS + ") SELECT * FROM unnest("
                    "$1::bigint[], $2::int[], $3::bigint[], $4::bigint[], $5::int[], $6::int[], "
                    "$7::int[], $8::int[], $9::text[], $10::bigint[]) "
                    "ON CONFLICT (game_id, seat) DO NOTHING",
                    *_columns(result_params(w.results), 10))
                if _count(status) == len(w.results):
                    totals = [(g, u, win, total, total)
                              for g, u, win, total in totals_params(w.results)]
                    if totals:
                        await conn.executemany(SQL_UPSERT_TOTALS, totals)
            if w.user_names:
                await conn.executemany(SQL_UPSERT_NAMES, w.user_names)
            for user_id, cols in w.user_updates:
                await self._update_user(conn, user_id, cols)
            if w.achievements:
                await conn.executemany(SQL_INSERT_ACHIEVEMENT, [
                    (a.user_id, a.achievement, a.game_id, a.guild_id, a.earned_at)
                    for a in w.achievements])
            if w.ratings is not None:
                await self._rate(conn, w.ratings)
            if w.challenge_score is not None:
                week, user_id, score = w.challenge_score
                await conn.execute(SQL_SCORE_ENTRY, score, w.now, week, user_id)
            payload = f"g:{gid}:{w.expect_version + 1}" + (":n" if inserted else "")
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
        if inserted:
            self.notices_added.set()
        return inserted

    @staticmethod
    async def _rate(conn: Conn, update: RatingUpdate) -> None:
        before: dict[RatingKey, RatingRow | None] = {}
        # Sorted, so that two processes rating overlapping players lock in one order. A row
        # that does not exist yet cannot be locked: an advisory lock on its key (held to the
        # end of the transaction) keeps a second game from rating the same new player at once.
        for scope, player in sorted(update.keys):
            await conn.execute("SELECT pg_advisory_xact_lock($1, $2)", LOCK_RATING,
                               name_key(f"{scope}:{player}"))
            r = await conn.fetchrow(
                f"SELECT {RATING_FIELDS} FROM ratings WHERE scope = $1 AND player = $2 "
                "FOR UPDATE", scope, player)
            before[(scope, player)] = None if r is None else rating_row(r)
        after = update.rate(before)
        if after:
            await conn.executemany(SQL_UPSERT_RATING, [
                (r.scope, r.player, r.mu, r.sigma, r.ordinal, r.games, r.updated_at)
                for r in after])

    @staticmethod
    async def _update_user(conn: Conn, user_id: int, cols: dict[str, Any]) -> None:
        bad = set(cols) - USER_COLUMNS
        if bad:
            raise ValueError(f"not user columns: {sorted(bad)}")
        await conn.execute(
            "INSERT INTO users (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING", user_id)
        if cols:
            sets = ", ".join(f"{c} = ${i}" for i, c in enumerate(cols, start=1))
            await conn.execute(f"UPDATE users SET {sets} WHERE user_id = ${len(cols) + 1}",
                               *cols.values(), user_id)
        await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"u:{user_id}")

    async def moves(self, game_id: int, before_ply: int | None = None) -> list[MoveRow]:
        sql = ("SELECT game_id, ply, seat, move, played_by, events, created_at FROM moves "
               "WHERE game_id = $1")
        args: list[Any] = [game_id]
        if before_ply is not None:
            sql += " AND ply < $2"
            args.append(before_ply)
        rows = await self.pool.fetch(sql + " ORDER BY ply", *args)
        return [MoveRow(*r) for r in rows]

    async def results(self, game_id: int) -> list[ResultRow]:
        rows = await self.pool.fetch(
            f"SELECT {RESULT_FIELDS} FROM results WHERE game_id = $1 ORDER BY seat", game_id)
        return [result_row(r) for r in rows]

    async def game_ids(self, *, user_id: int | None = None, thread_id: int | None = None,
                       channel_id: int | None = None, guild_id: int | None = None,
                       active_only: bool = False, limit: int | None = None) -> list[int]:
        sql, args = game_ids_query(user_id, thread_id, channel_id, guild_id, active_only, limit)
        return [int(r[0]) for r in await self.pool.fetch(pg(sql), *args)]

    async def rematches(self, game_id: int) -> list[int]:
        return [int(r[0]) for r in await self.pool.fetch(pg(REMATCHES_SQL), game_id, game_id)]

    async def waiting_games(self, user_id: int) -> list[int]:
        return [int(r[0]) for r in await self.pool.fetch(pg(WAITING_SQL), user_id)]

    async def active_games(self) -> dict[str, int]:
        return {str(r[0]): int(r[1]) for r in await self.pool.fetch(ACTIVE_GAMES_SQL)}

    async def count_games(self, user_id: int, statuses: Sequence[str]) -> int:
        sql = pg(COUNT_GAMES_SQL.format(", ".join("?" for _ in statuses)))
        return int(await self.pool.fetchval(sql, user_id, *statuses) or 0)

    # -- outbox
    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int) -> list[Lane]:
        rows = await self.pool.fetch(SQL_CLAIM_LANES, owner, now + lease_ms, now, limit)
        return [Lane(int(r[0]), int(r[1])) for r in rows]

    async def lane_notices(self, lane: Lane, limit: int) -> list[Notice]:
        rows = await self.pool.fetch(SQL_LANE_NOTICES, lane.game_id, lane.recipient, limit)
        return [notice_row(r) for r in rows]

    async def finish_notice(self, notice_id: int, status: NoticeStatus, now: int, *,
                            message_id: int | None = None, error: str | None = None) -> bool:
        result = await self.pool.execute(
            "UPDATE outbox SET status = $1, done_at = $2, attempts = attempts + 1, "
            "message_id = $3, last_error = coalesce($4, last_error) "
            "WHERE id = $5 AND status = 'pending'",
            status.value, now, message_id, None if error is None else error[:500], notice_id)
        return _count(result) == 1

    async def retry_notice(self, notice_id: int, due: int, error: str) -> None:
        await self.pool.execute(
            "UPDATE outbox SET attempts = attempts + 1, due_at = $1, last_error = $2 "
            "WHERE id = $3 AND status = 'pending'", due, error[:500], notice_id)

    async def release_lane(self, lane: Lane, owner: str, due: int) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            # The row lock first: a commit queuing a notice upserts this row, so either it
            # committed before (and the next statement, with a fresh snapshot, sees its notice)
            # or it waits for us and then makes the idle lane due again.
            held = await conn.fetchval(
                "SELECT owner FROM lanes WHERE game_id = $1 AND recipient = $2 FOR UPDATE",
                lane.game_id, lane.recipient)
            if held != owner:
                return
            pending = await conn.fetchval(
                "SELECT 1 FROM outbox WHERE game_id = $1 AND recipient = $2 "
                "AND status = 'pending' LIMIT 1", lane.game_id, lane.recipient)
            await conn.execute(
                "UPDATE lanes SET owner = NULL, lease_until = NULL, next_due = $1 "
                "WHERE game_id = $2 AND recipient = $3",
                due if pending else None, lane.game_id, lane.recipient)

    async def notices(self, game_id: int | None = None) -> list[Notice]:
        where = "" if game_id is None else "WHERE o.game_id = $1"
        rows = await self.pool.fetch(
            f"SELECT {NOTICE_FIELDS} FROM {NOTICE_FROM} {where} "
            "ORDER BY o.id", *(() if game_id is None else (game_id,)))
        return [notice_row(r) for r in rows]

    async def skip_pending_dms(self, user_id: int, now: int) -> list[int]:
        async with self.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                "UPDATE outbox SET status = 'skipped', done_at = $1, last_error = 'dm closed' "
                "WHERE status = 'pending' AND recipient = $2 RETURNING game_id", now, user_id)
        return sorted({int(r[0]) for r in rows})

    async def outbox_stats(self, now: int) -> OutboxStats:
        async with self.pool.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT count(*), min(created_at) FROM outbox WHERE status = 'pending'")
            assert row is not None
            pending, oldest = row[0], row[1]
            by_status = {str(r[0]): int(r[1]) for r in await conn.fetch(
                "SELECT status, count(*) FROM outbox GROUP BY status")}
            due = await conn.fetchval("SELECT count(*) FROM lanes WHERE next_due <= $1", now)
        return OutboxStats(int(pending), None if oldest is None else int(oldest), by_status,
                           int(due))

    async def prune_outbox(self, before: int) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            status = await conn.execute(
                "DELETE FROM outbox WHERE status <> 'pending' AND done_at < $1", before)
            await conn.execute(
                "DELETE FROM lanes WHERE next_due IS NULL AND game_id IN (SELECT id FROM games "
                "WHERE status NOT IN ('lobby', 'draft', 'play') AND updated_at < $1)", before)
        return _count(status)

    # -- timers
    async def claim_timers(self, owner: str, now: int, lease_ms: int,
                           limit: int) -> list[TimerRow]:
        rows = await self.pool.fetch(SQL_CLAIM_TIMERS, owner, now + lease_ms, now, limit)
        timers = [timer_row(r) for r in rows]
        timers.sort(key=lambda t: (t.due_at, t.game_id, t.seat))
        return timers

    async def timers(self, game_id: int) -> list[TimerRow]:
        rows = await self.pool.fetch(
            f"SELECT {TIMER_FIELDS} FROM timers WHERE game_id = $1 ORDER BY kind, seat", game_id)
        return [timer_row(r) for r in rows]

    async def timer_failed(self, timer: TimerRow, owner: str, due: int, error: str) -> int:
        v = await self.pool.fetchval(
            "UPDATE timers SET failures = failures + 1, due_at = $1, last_error = $2, "
            "owner = NULL, lease_until = NULL WHERE game_id = $3 AND kind = $4 AND seat = $5 "
            "AND owner = $6 RETURNING failures",
            due, error[:500], timer.game_id, timer.kind, timer.seat, owner)
        return 0 if v is None else int(v)

    async def release_timer(self, timer: TimerRow, owner: str) -> None:
        await self.pool.execute(
            "UPDATE timers SET owner = NULL, lease_until = NULL "
            "WHERE game_id = $1 AND kind = $2 AND seat = $3 AND owner = $4",
            timer.game_id, timer.kind, timer.seat, owner)

    # -- users and stats
    async def get_user(self, user_id: int) -> UserRow | None:
        r = await self.pool.fetchrow(f"SELECT {USER_FIELDS} FROM users WHERE user_id = $1",
                                     user_id)
        return None if r is None else user_row(r)

    async def set_user(self, user_id: int, **cols: Any) -> UserRow:
        async with self.pool.acquire() as conn, conn.transaction():
            await self._update_user(conn, user_id, cols)
            r = await conn.fetchrow(f"SELECT {USER_FIELDS} FROM users WHERE user_id = $1",
                                    user_id)
        assert r is not None
        return user_row(r)

    async def totals(self, user_id: int, guild_id: int) -> TotalsRow | None:
        r = await self.pool.fetchrow(pg(TOTALS_SQL), guild_id, user_id)
        return None if r is None else TotalsRow(*r)

    async def leaderboard(self, guild_id: int, limit: int, min_games: int = 1
                          ) -> list[TotalsRow]:
        rows = await self.pool.fetch(pg(LEADERBOARD_SQL), guild_id, min_games, limit)
        return [TotalsRow(*r) for r in rows]

    async def achievements(self, user_id: int) -> list[AchievementRow]:
        rows = await self.pool.fetch(
            "SELECT user_id, achievement, game_id, guild_id, earned_at FROM achievements "
            "WHERE user_id = $1 ORDER BY earned_at, achievement", user_id)
        return [AchievementRow(*r) for r in rows]

    async def swap_achievement(self, user_id: int, game_id: int, old: str, new: str,
                               now: int) -> bool:
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                guild = await conn.fetchval(pg(SWAP_DELETE), user_id, old, game_id)
                if guild is None:
                    return False
                status = await conn.execute(pg(INSERT_ACHIEVEMENT), user_id, new, game_id,
                                            guild, now)
                if _count(status) != 1:
                    raise HeldError()  # rolls the delete back
        except HeldError:
            return False
        return True

    async def rating(self, scope: int, player: str) -> RatingRow | None:
        r = await self.pool.fetchrow(
            f"SELECT {RATING_FIELDS} FROM ratings WHERE scope = $1 AND player = $2",
            scope, player)
        return None if r is None else rating_row(r)

    async def rating_board(self, scope: int, limit: int, min_games: int
                           ) -> list[tuple[RatingRow, str]]:
        rows = await self.pool.fetch(pg(RATING_BOARD_SQL), scope, min_games, limit)
        return [(rating_row(r), str(r[7])) for r in rows]

    async def rating_rank(self, scope: int, player: str, min_games: int
                          ) -> tuple[int | None, int]:
        r = await self.pool.fetchrow(pg(RATING_RANK_SQL), min_games, player, scope, min_games)
        assert r is not None
        return rating_rank_of(r)

    # -- weekly challenge
    async def ensure_challenge(self, row: ChallengeRow) -> ChallengeRow:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"INSERT INTO challenges ({CHALLENGE_FIELDS}) VALUES ($1, $2, $3, $4, $5, $6) "
                "ON CONFLICT (week) DO NOTHING", row.week, row.seed, row.options,
                row.starts_at, row.ends_at, row.closed_at)
            r = await conn.fetchrow(
                f"SELECT {CHALLENGE_FIELDS} FROM challenges WHERE week = $1", row.week)
        assert r is not None
        return challenge_row(r)

    async def challenge(self, week: str) -> ChallengeRow | None:
        r = await self.pool.fetchrow(
            f"SELECT {CHALLENGE_FIELDS} FROM challenges WHERE week = $1", week)
        return None if r is None else challenge_row(r)

    async def challenge_entry(self, week: str, user_id: int) -> EntryRow | None:
        r = await self.pool.fetchrow(
            f"SELECT {ENTRY_FIELDS} FROM challenge_entries WHERE week = $1 AND user_id = $2",
            week, user_id)
        return None if r is None else entry_row(r)

    async def challenge_board(self, week: str, guild_id: int | None, limit: int
                              ) -> list[tuple[EntryRow, str]]:
        if guild_id is None:
            rows = await self.pool.fetch(pg(CHALLENGE_BOARD_SQL.format(guild="")), week, limit)
        else:
            rows = await self.pool.fetch(
                pg(CHALLENGE_BOARD_SQL.format(guild=" AND e.guild_id = ?")), week, guild_id,
                limit)
        return [(entry_row(r), str(r[6])) for r in rows]

    async def challenge_rank(self, week: str, guild_id: int | None, score: int
                             ) -> tuple[int, int]:
        if guild_id is None:
            r = await self.pool.fetchrow(pg(CHALLENGE_RANK_SQL.format(guild="")), score, week)
        else:
            r = await self.pool.fetchrow(
                pg(CHALLENGE_RANK_SQL.format(guild=" AND guild_id = ?")), score, week, guild_id)
        assert r is not None
        return int(r[0]) + 1, int(r[1])

    async def challenge_guilds(self, week: str) -> dict[int, int]:
        rows = await self.pool.fetch(pg(CHALLENGE_GUILDS_SQL), week)
        return {int(g): int(n) for g, n in rows}

    async def challenges_to_close(self, now: int) -> list[ChallengeRow]:
        rows = await self.pool.fetch(
            f"SELECT {CHALLENGE_FIELDS} FROM challenges WHERE closed_at IS NULL "
            "AND ends_at <= $1 ORDER BY ends_at", now)
        return [challenge_row(r) for r in rows]

    async def close_challenge(self, week: str, now: int,
                              notices: Sequence[NoticeDraft]) -> bool:
        async with self.pool.acquire() as conn, conn.transaction():
            status = await conn.execute(
                "UPDATE challenges SET closed_at = $1 WHERE week = $2 AND closed_at IS NULL",
                now, week)
            if _count(status) != 1:
                return False
            queued = await self._queue_drafts(conn, 0, 0, notices, now)
            if queued:
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, "n")
        if notices:
            self.notices_added.set()
        return True

    # -- reviews
    async def review(self, game_id: int, seat: int) -> ReviewRow | None:
        r = await self.pool.fetchrow(
            f"SELECT {REVIEW_FIELDS} FROM reviews WHERE game_id = $1 AND seat = $2",
            game_id, seat)
        return None if r is None else review_row(r)

    async def save_review(self, row: ReviewRow) -> ReviewRow:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"INSERT INTO reviews ({REVIEW_FIELDS}) VALUES ($1, $2, $3, $4, $5, $6) "
                "ON CONFLICT (game_id, seat) DO NOTHING", row.game_id, row.seat, row.user_id,
                row.accuracy, row.data, row.created_at)
            r = await conn.fetchrow(
                f"SELECT {REVIEW_FIELDS} FROM reviews WHERE game_id = $1 AND seat = $2",
                row.game_id, row.seat)
        assert r is not None
        return review_row(r)

    async def review_accuracy(self, user_id: int,
                              without_flags: int = 0) -> tuple[int, float | None]:
        r = await self.pool.fetchrow(
            "SELECT count(*), avg(r.accuracy) FROM reviews r JOIN games g ON g.id = r.game_id "
            "WHERE r.user_id = $1 AND (g.flags & $2) = 0", user_id, without_flags)
        assert r is not None
        return int(r[0]), None if r[1] is None else float(r[1])

    # -- servers
    async def guild_settings(self, guild_id: int) -> str | None:
        v = await self.pool.fetchval("SELECT data FROM guild_settings WHERE guild_id = $1",
                                     guild_id)
        return None if v is None else str(v)

    async def set_guild_settings(self, guild_id: int, data: str, now: int) -> None:
        await self.pool.execute(
            "INSERT INTO guild_settings (guild_id, data, updated_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data, "
            "updated_at = excluded.updated_at", guild_id, data, now)

    # -- shared state
    async def get_state(self, key: str) -> str | None:
        v = await self.pool.fetchval("SELECT value FROM app_state WHERE key = $1", key)
        return None if v is None else str(v)

    async def set_state(self, key: str, value: str, now: int) -> None:
        await self.pool.execute(
            "INSERT INTO app_state (key, value, updated_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
            "updated_at = excluded.updated_at", key, value, now)

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """An advisory lock named ``name`` held on one connection for the block (yields False,
        at once, when another process holds it)."""
        async with self.pool.acquire() as conn:
            got = bool(await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LOCK_NAMED,
                                           name_key(name)))
            try:
                yield got
            finally:
                if got:
                    try:
                        await conn.execute("SELECT pg_advisory_unlock($1, $2)", LOCK_NAMED,
                                           name_key(name))
                    except BaseException:
                        # Never back in the pool holding the lock (pooled connections are
                        # not reset): closing the session frees it.
                        conn.terminate()
                        raise

    # -- maintenance
    async def ping(self) -> None:
        await self.pool.fetchval("SELECT 1")
        if self._listener is not None and self._listener.is_closed() and not self._closed:
            log.warning("the LISTEN connection was lost: reconnecting")
            await self._listen()

    async def integrity_check(self) -> list[str]:
        # PostgreSQL checks its pages itself; what we can check cheaply is that every table
        # reads to the end (amcheck needs superuser rights).
        problems = []
        for table in TABLES:
            try:
                await self.pool.fetchval(f"SELECT count(*) FROM {table}")
            except asyncpg.PostgresError as e:
                problems.append(f"{table}: {e}")
        return problems

    # -- copying
    async def table_columns(self, table: str) -> list[str]:
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        rows = await self.pool.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = $1 ORDER BY ordinal_position", table)
        return [str(r[0]) for r in rows]

    async def export_rows(self, table: str, columns: Sequence[str],
                          batch: int = 5000) -> AsyncIterator[list[tuple[Any, ...]]]:
        cols = ", ".join(columns)
        async with self.pool.acquire() as conn, conn.transaction():
            cursor = conn.cursor(f"SELECT {cols} FROM {table} ORDER BY {PRIMARY_KEYS[table]}")
            chunk: list[tuple[Any, ...]] = []
            async for r in cursor:
                chunk.append(tuple(r))
                if len(chunk) >= batch:
                    yield chunk
                    chunk = []
            if chunk:
                yield chunk

    async def import_rows(self, table: str, columns: Sequence[str],
                          rows: Sequence[tuple[Any, ...]]) -> None:
        async with self.pool.acquire() as conn:
            await conn.copy_records_to_table(table, records=rows, columns=list(columns))

    async def count_rows(self, table: str) -> int:
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        return int(await self.pool.fetchval(f"SELECT count(*) FROM {table}"))

    async def after_import(self) -> None:
        for table in ("games", "outbox"):
            await self.pool.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)")


async def _no_reset(_conn: asyncpg.Connection) -> None:
    """The pool's reset: nothing beyond asyncpg's own rollback (see ``PostgresStore.open``)."""


async def hold_slot(url: str, slots: int) -> tuple[int, asyncpg.Connection] | None:
    """Claim a free cluster slot: the first of ``0..slots-1`` whose advisory lock is free.
    The lock lives as long as the returned connection (a process that dies frees its slot)."""
    conn = await asyncpg.connect(url)
    for slot in range(slots):
        if await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LOCK_SLOT, slot):
            return slot, conn
    await conn.close()
    return None


async def wait_for_slot(url: str, slots: int, poll: float = 5.0
                        ) -> tuple[int, asyncpg.Connection]:
    """:func:`hold_slot`, waiting as a standby until one is free."""
    announced = False
    while True:
        got = await hold_slot(url, slots)
        if got is not None:
            return got
        if not announced:
            log.info("every cluster slot (%d) is taken: standing by for a free one", slots)
            announced = True
        await asyncio.sleep(poll)
