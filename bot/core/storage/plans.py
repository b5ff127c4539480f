"""The stores' transactions, each written once as a plan (:mod:`bot.core.storage.steps`): the
statements in order, their arguments, and what is checked between them.

The version-checked commit of a game (:func:`commit`) is the heart of it: the game row is
updated only if it is still at the version read (else :class:`StaleWriteError`), and the
seats, move, timers, notices and their lanes, results and totals and user rows of the same
change follow in the same transaction, then the steps features added (a game's achievements,
ratings, a challenge score: :data:`~bot.core.storage.rows.GameStep`), with a notification to
other processes at the end (PostgreSQL). The features' own transactions are theirs
(``bot/core/<feature>/store.py``), on the same steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.storage import sql
from bot.core.storage.rows import (
    GameRow,
    GameWrite,
    Lane,
    NewGame,
    NoticeDraft,
    OutboxStats,
    ResultRow,
    StaleWriteError,
    UserRow,
)
from bot.core.storage.steps import (
    Claim,
    Execute,
    ExecuteMany,
    Insert,
    Notify,
    Plan,
    execute,
    execute_many,
    fetch,
    fetch_one,
    insert,
    notify,
)

# --------------------------------------------------------------------------- games


def load_game(game_id: int) -> Plan[GameRow | None]:
    r = yield from fetch_one(sql.LOAD_GAME, game_id)
    if r is None:
        return None
    seats = yield from fetch(sql.SEATS, game_id)
    return sql.game_row(r, tuple(sql.seat_row(s) for s in seats))


def create_game(g: NewGame) -> Plan[tuple[int, int]]:
    """A new game and everything it starts with; (its id, notices queued)."""
    row = yield from fetch_one(sql.insert_game(list(g.columns)), *g.columns.values(),
                               g.now, g.now)
    assert row is not None
    game_id = int(row[0])
    yield from execute_many(sql.INSERT_SEATS, sql.seat_params(game_id, g.seats))
    yield from execute_many(sql.UPSERT_NAMES, g.user_names)
    yield from execute_many(sql.UPSERT_TIMERS, sql.timer_params(game_id, g.timers))
    queued = yield from queue(game_id, 0, g.notices, g.now)
    for step in g.steps:
        yield from step(game_id)
    yield from notify(f"g:{game_id}:0" + (":n" if queued else ""))
    return game_id, queued


def commit(w: GameWrite) -> Plan[int]:
    """Apply one change of one game; returns the number of notices queued.

    The hot path of every move: steps are yielded directly (not through the typed helpers) and
    empty parts skipped before building anything, so that SQLite's one hop stays lean."""
    gid = w.game_id
    changed: int = yield Execute(sql.update_game(list(w.columns)),
                                 (*w.columns.values(), w.now, gid, w.expect_version))
    if changed != 1:
        raise StaleWriteError(f"game {gid} is no longer at version {w.expect_version}")
    if w.seats is not None:
        yield Execute(sql.DELETE_SEATS, (gid,))
        yield ExecuteMany(sql.INSERT_SEATS, sql.seat_params(gid, w.seats))
    if w.move is not None:
        m = w.move
        yield Execute(sql.INSERT_MOVE, (m.game_id, m.ply, m.seat, m.move, m.played_by, m.events,
                                        m.created_at))
    if w.clear_timers:
        yield Execute(sql.DELETE_TIMERS, (gid,))
    elif w.clear_turn_timers:
        yield Execute(sql.DELETE_TURN_TIMERS, (gid,))
    for kind, seat in w.delete_timers:
        yield Execute(sql.DELETE_TIMER, (gid, kind, seat))
    if w.upsert_timers:
        yield ExecuteMany(sql.UPSERT_TIMERS, sql.timer_params(gid, w.upsert_timers))
    if w.skip_pending:
        yield Execute(sql.SKIP_GAME_NOTICES, (w.now, gid))
        yield Execute(sql.IDLE_GAME_LANES, (gid,))
    version = w.expect_version + 1
    queued = (yield from queue(gid, version, w.notices, w.now)) if w.notices else 0
    if w.results:
        yield from write_results(w.results)
    if w.user_names:
        yield ExecuteMany(sql.UPSERT_NAMES, w.user_names)
    for user_id, cols in w.user_updates:
        yield from update_user(user_id, cols)
    for step in w.steps:
        yield from step(gid)
    yield Notify(f"g:{gid}:{version}:n" if queued else f"g:{gid}:{version}")
    return queued


def queue(game_id: int, version: int, notices: Sequence[NoticeDraft], now: int) -> Plan[int]:
    """Queue notices and make their lanes due; returns how many were new."""
    if not notices:
        return 0
    inserted: int = yield Insert(sql.INSERT_NOTICES,
                                 sql.notice_params(game_id, version, notices, now))
    yield Insert(sql.UPSERT_LANES, sql.lane_params(game_id, notices, now))
    return inserted


def queue_notices(notices: Sequence[NoticeDraft], now: int) -> Plan[int]:
    """Queue notices about no game (game 0: each names its channel), telling other processes;
    returns how many were new. The caller wakes this process's dispatcher
    (``notices_added``) once its transaction is committed."""
    queued = yield from queue(0, 0, notices, now)
    if queued:
        yield from notify("n")
    return queued


def write_results(results: Sequence[ResultRow]) -> Plan[None]:
    inserted = yield from insert(sql.INSERT_RESULTS, sql.result_params(results))
    if results and inserted == len(results):  # a result is counted once, ever
        yield from execute_many(sql.UPSERT_TOTALS, sql.totals_params(results))


def update_user(user_id: int, cols: dict[str, Any]) -> Plan[None]:
    sets = sql.update_user(list(cols))
    yield from execute(sql.ENSURE_USER, user_id)
    if cols:
        yield from execute(sets, *cols.values(), user_id)
    yield from notify(f"u:{user_id}")


def set_user(user_id: int, cols: dict[str, Any]) -> Plan[UserRow]:
    yield from update_user(user_id, cols)
    r = yield from fetch_one(sql.GET_USER, user_id)
    assert r is not None
    return sql.user_row(r)


# --------------------------------------------------------------------------- outbox, timers


def claim(c: Claim) -> Plan[list[Any]]:
    """Lease due rows (atomic by itself on either backend: see :class:`Claim`)."""
    rows: list[Any] = yield c
    return rows


def release_lane(lane: Lane, owner: str, due: int) -> Plan[None]:
    held = yield from fetch_one(sql.LANE_OWNER, lane.game_id, lane.recipient)
    if held is None or held[0] != owner:
        return  # the lease ran out and someone else serves it now
    pending = yield from fetch_one(sql.LANE_PENDING, lane.game_id, lane.recipient)
    yield from execute(sql.RELEASE_LANE, due if pending else None, lane.game_id,
                       lane.recipient)


def finish_notices(notice_ids: Sequence[int], status: str, now: int, message_id: int | None,
                   error: str | None) -> Plan[int]:
    """Several notices shown in one post, recorded together (a run)."""
    finished = 0
    for notice_id in notice_ids:
        finished += yield from execute(sql.FINISH_NOTICE, status, now, message_id, error,
                                       notice_id)
    return finished


def outbox_stats(now: int) -> Plan[OutboxStats]:
    head = (yield from fetch(sql.PENDING_STATS))[0]
    pending, oldest = head[0], head[1]
    by_status = {str(r[0]): int(r[1]) for r in (yield from fetch(sql.STATUS_COUNTS))}
    due = (yield from fetch(sql.LANES_DUE, now))[0][0]
    return OutboxStats(int(pending), None if oldest is None else int(oldest), by_status,
                       int(due))


def prune_outbox(before: int) -> Plan[int]:
    pruned = yield from execute(sql.PRUNE_NOTICES, before)
    yield from execute(sql.PRUNE_LANES, before)
    return pruned
