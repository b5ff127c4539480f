"""A PROTOTYPE of a faster PostgreSQL store, for the benchmarks only (the bot never imports it):
the same tables, rows and guarantees as ``bot.core.storage.postgres.store.PostgresStore``, with
fewer round trips. It exists to measure what these changes would buy before anyone makes them
in ``bot/``:

1. the pool does not send asyncpg's reset query (``SELECT pg_advisory_unlock_all(); CLOSE ALL;
   UNLISTEN *; RESET ALL``) each time a connection goes back to the pool: one round trip saved
   on every store call (the store never leaves session state behind: ``exclusive`` unlocks its
   advisory lock itself, and LISTEN is on its own connection);
2. a plain move (the game row, its move log entry, turn timers, notices and lanes, the change
   notification: no seats, results, user rows or skipped notices) is ONE statement (data-
   modifying CTEs that all hang off the version-checked ``UPDATE games``), so one round trip
   and an implicit transaction instead of BEGIN + 8 statements + COMMIT; anything else goes
   the regular way;
3. ``release_lane`` is one call of a PL/pgSQL function running the same three statements in the
   same order (the lane row locked first, then the pending check with a fresh snapshot, then
   the update), instead of BEGIN + 3 statements + COMMIT.

4. (switch ``outbox_async``, off by default) the outbox's own bookkeeping (claiming lanes,
   recording a delivery, releasing a lane) on a second small pool whose sessions have
   ``synchronous_commit = off``: those commits no longer wait for the WAL flush. A server crash
   may then forget the last fraction of a second of delivery records, so those few notices are
   delivered again (with the same nonce, which Discord refuses as a duplicate for a while);
   game commits still wait for the flush.

What stays the same: the optimistic version check (a stale write changes nothing and raises
StaleWriteError), atomicity (one statement is one transaction), the lane row lock the notice
upsert takes in the commit's transaction (which ``release_lane`` relies on), NOTIFY at commit.
Within one statement a row must not be modified twice, so the timers the move upserts are
excluded from the DELETE of the turn timers (the upsert rewrites them anyway).
"""

from __future__ import annotations

from typing import Any

import asyncpg

from bot.core.storage.base import (
    GAME_COLUMNS,
    THREAD,
    GameWrite,
    Lane,
    NoticeStatus,
    StaleWriteError,
)
from bot.core.storage.postgres.store import (
    CHANNEL,
    SQL_CLAIM_LANES,
    StorageError,
    _migrate,
    redact,
)
from bot.core.storage.postgres.store import PostgresStore as _Base

RELEASE_FUNCTION = """
CREATE OR REPLACE FUNCTION calico_bench_release_lane(p_game bigint, p_recipient bigint,
                                                     p_owner text, p_due bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE held text;
BEGIN
    SELECT owner INTO held FROM lanes WHERE game_id = p_game AND recipient = p_recipient
        FOR UPDATE;
    IF held IS DISTINCT FROM p_owner THEN
        RETURN;
    END IF;
    UPDATE lanes SET owner = NULL, lease_until = NULL,
        next_due = CASE WHEN EXISTS (SELECT 1 FROM outbox WHERE game_id = p_game
                                     AND recipient = p_recipient AND status = 'pending')
                        THEN p_due END
        WHERE game_id = p_game AND recipient = p_recipient;
END $$;
"""

# Column types, for the casts of the SET clause.
_TYPES = {"status": "text", "thread_id": "bigint", "lobby_message_id": "bigint",
          "host_id": "bigint", "first_user_id": "bigint", "engine_options": "text",
          "state": "text", "ply": "int", "deadline_at": "bigint", "end_reason": "text",
          "flags": "int"}


def _move_sql(columns: tuple[str, ...]) -> str:
    """The one-statement commit for a game write that sets ``columns``. Parameters:
    $1 game id, $2 expected version, $3 now, $4 has a move, $5..$10 the move,
    $11 clear all timers, $12 clear turn timers, $13/$14 timers to delete (kinds, seats),
    $15..$19 timers to upsert, $20..$27 notices, $28/$29 lanes, $30 notify payload,
    then the game columns from $31."""
    sets = "".join(f"{c} = ${31 + i}::{_TYPES[c]}, " for i, c in enumerate(columns))
    return f"""
WITH g AS (
    UPDATE games SET {sets}version = version + 1, updated_at = $3
    WHERE id = $1 AND version = $2 RETURNING id),
mv AS (
    INSERT INTO moves (game_id, ply, seat, move, played_by, events, created_at)
    SELECT g.id, $5::int, $6::int, $7::text, $8::text, $9::text, $10::bigint FROM g
    WHERE $4::bool),
dt AS (
    DELETE FROM timers t WHERE t.game_id IN (SELECT id FROM g)
    AND ($11::bool OR ($12::bool AND t.kind = 'turn')
         OR (t.kind, t.seat) IN (SELECT * FROM unnest($13::text[], $14::int[])))
    AND (t.kind, t.seat) NOT IN (SELECT * FROM unnest($15::text[], $16::int[]))),
ut AS (
    INSERT INTO timers (game_id, kind, seat, due_at, deadline_at, reminders)
    SELECT g.id, u.* FROM g, unnest($15::text[], $16::int[], $17::bigint[], $18::bigint[],
                                    $19::int[]) u
    ON CONFLICT (game_id, kind, seat) DO UPDATE SET
    due_at = excluded.due_at, deadline_at = excluded.deadline_at,
    reminders = excluded.reminders, owner = NULL, lease_until = NULL, failures = 0,
    last_error = NULL),
n AS (
    INSERT INTO outbox (game_id, kind, user_id, recipient, ply, payload, key, due_at,
                        created_at)
    SELECT g.id, x.* FROM g, unnest($20::text[], $21::bigint[], $22::bigint[], $23::int[],
                                    $24::text[], $25::text[], $26::bigint[], $27::bigint[]) x
    ON CONFLICT (key) DO NOTHING RETURNING 1),
l AS (
    INSERT INTO lanes (game_id, recipient, next_due)
    SELECT g.id, x.* FROM g, unnest($28::bigint[], $29::bigint[]) x
    ON CONFLICT (game_id, recipient) DO UPDATE SET
    next_due = coalesce(lanes.next_due, excluded.next_due)),
nt AS (
    SELECT pg_notify('{CHANNEL}', $30::text || CASE WHEN EXISTS (SELECT 1 FROM n)
                                                 THEN ':n' ELSE '' END) FROM g)
SELECT (SELECT count(*) FROM g), (SELECT count(*) FROM n), (SELECT count(*) FROM nt)
"""


async def _no_reset(_conn: Any) -> None:
    """Nothing to reset: the store leaves no session state on pooled connections."""


class FastPostgresStore(_Base):
    """See the module docstring. ``reset``/``one_statement``/``release_function`` switch each
    change on or off (to measure them one at a time)."""

    reset = False
    one_statement = True
    release_function = True
    outbox_async = False
    outbox_pool: asyncpg.Pool | None = None

    @classmethod
    async def open(cls, url: str, *, min_size: int = 2, max_size: int = 10,
                   listen: bool = True, **switches: bool) -> FastPostgresStore:  # type: ignore[override]
        try:
            conn = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError) as e:
            raise StorageError(f"cannot connect to {redact(url)}: {e}") from e
        try:
            version = await _migrate(conn)
            await conn.execute(RELEASE_FUNCTION)
        finally:
            await conn.close()
        reset = switches.get("reset", cls.reset)
        kwargs: dict[str, Any] = {} if reset else {"reset": _no_reset}
        pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size, **kwargs)
        assert pool is not None
        store = cls(pool, url, version)
        store.reset = reset
        store.one_statement = switches.get("one_statement", cls.one_statement)
        store.release_function = switches.get("release_function", cls.release_function)
        store.outbox_async = switches.get("outbox_async", cls.outbox_async)
        if store.outbox_async:
            store.outbox_pool = await asyncpg.create_pool(
                url, min_size=1, max_size=4, server_settings={"synchronous_commit": "off"},
                **kwargs)
        if listen:
            await store._listen()
        return store

    async def commit(self, write: GameWrite) -> int:
        w = write
        plain = (w.seats is None and not w.results and not w.user_names and not w.user_updates
                 and not w.skip_pending)
        if not self.one_statement or not plain:
            return await super().commit(w)
        bad = set(w.columns) - GAME_COLUMNS
        if bad:
            raise ValueError(f"not game columns: {sorted(bad)}")
        gid = w.game_id
        m = w.move
        move_args = (m is not None, *(
            (m.ply, m.seat, m.move, m.played_by, m.events, m.created_at) if m is not None
            else (None,) * 6))
        version = w.expect_version + 1
        notices = [(n.kind, n.user_id, n.user_id or THREAD, n.ply, n.payload,
                    n.key or f"{gid}.{version}.{i}", w.now, w.now)
                   for i, n in enumerate(w.notices)]
        recipients = list(dict.fromkeys(n.user_id or THREAD for n in w.notices))
        ups = w.upsert_timers
        args = [
            gid, w.expect_version, w.now, *move_args,
            w.clear_timers, w.clear_turn_timers,
            [k for k, _ in w.delete_timers], [s for _, s in w.delete_timers],
            [t.kind for t in ups], [t.seat for t in ups], [t.due_at for t in ups],
            [t.deadline_at for t in ups], [t.reminders for t in ups],
            *([r[i] for r in notices] for i in range(8)),
            recipients, [w.now] * len(recipients),
            f"g:{gid}:{version}",
            *w.columns.values(),
        ]
        row = await self.pool.fetchrow(_move_sql(tuple(w.columns)), *args)
        assert row is not None
        if row[0] != 1:
            raise StaleWriteError(f"game {gid} is no longer at version {w.expect_version}")
        inserted = int(row[1])
        if inserted:
            self.notices_added.set()
        return inserted

    async def release_lane(self, lane: Lane, owner: str, due: int) -> None:
        if not self.release_function:
            await super().release_lane(lane, owner, due)
            return
        pool = self.outbox_pool or self.pool
        await pool.execute("SELECT calico_bench_release_lane($1, $2, $3, $4)",
                           lane.game_id, lane.recipient, owner, due)

    async def claim_lanes(self, owner: str, now: int, lease_ms: int, limit: int) -> list[Lane]:
        if self.outbox_pool is None:
            return await super().claim_lanes(owner, now, lease_ms, limit)
        rows = await self.outbox_pool.fetch(SQL_CLAIM_LANES, owner, now + lease_ms, now, limit)
        return [Lane(int(r[0]), int(r[1])) for r in rows]

    async def finish_notice(self, notice_id: int, status: NoticeStatus, now: int, *,
                            message_id: int | None = None, error: str | None = None) -> bool:
        if self.outbox_pool is None:
            return await super().finish_notice(notice_id, status, now,
                                               message_id=message_id, error=error)
        result = await self.outbox_pool.execute(
            "UPDATE outbox SET status = $1, done_at = $2, attempts = attempts + 1, "
            "message_id = $3, last_error = coalesce($4, last_error) "
            "WHERE id = $5 AND status = 'pending'",
            status.value, now, message_id, None if error is None else error[:500], notice_id)
        return result.rsplit(" ", 1)[-1] == "1"

    async def close(self) -> None:
        if self.outbox_pool is not None:
            await self.outbox_pool.close()
            self.outbox_pool = None
        await super().close()
