"""The stores' transactions, each written once as a plan (:mod:`bot.core.storage.steps`): the
statements in order, their arguments, and what is checked between them.

The version-checked commit of a game (:func:`commit`) is the heart of it: the game row is
updated only if it is still at the version read (else :class:`StaleWriteError`), and the
seats, move, timers, notices and their lanes, results and totals, user rows, achievements,
ratings and challenge score of the same change follow in the same transaction, with a
notification to other processes at the end (PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.core.storage import sql
from bot.core.storage.rows import (
    ChallengeRow,
    DuplicateEntryError,
    GameRow,
    GameWrite,
    Lane,
    NewGame,
    NoticeDraft,
    OutboxStats,
    RatingKey,
    RatingRow,
    RatingUpdate,
    ResultRow,
    ReviewRow,
    StaleWriteError,
    TournamentRow,
    TournamentWrite,
    UserRow,
)
from bot.core.storage.steps import (
    Claim,
    ConflictError,
    Execute,
    ExecuteMany,
    Insert,
    Notify,
    Plan,
    Rollback,
    execute,
    execute_many,
    fetch,
    fetch_one,
    insert,
    lock,
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
    if g.challenge_entry is not None:
        e = g.challenge_entry
        try:
            yield from execute(sql.INSERT_ENTRY, e.week, e.user_id, game_id, e.guild_id)
        except ConflictError:
            raise DuplicateEntryError(f"{e.user_id} already played {e.week}") from None
    if g.tournament_table is not None:
        tournament, round_no, table = g.tournament_table
        if (yield from execute(sql.LINK_TABLE, game_id, tournament, round_no, table)) != 1:
            raise StaleWriteError(f"table {g.tournament_table} has its game already")
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
    if w.achievements:
        yield ExecuteMany(sql.INSERT_ACHIEVEMENT, [
            (a.user_id, a.achievement, a.game_id, a.guild_id, a.earned_at)
            for a in w.achievements])
    if w.ratings is not None:
        yield from rate(w.ratings)
    if w.challenge_score is not None:
        week, user_id, score = w.challenge_score
        yield Execute(sql.SCORE_ENTRY, (score, w.now, week, user_id))
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


def write_results(results: Sequence[ResultRow]) -> Plan[None]:
    inserted = yield from insert(sql.INSERT_RESULTS, sql.result_params(results))
    if results and inserted == len(results):  # a result is counted once, ever
        yield from execute_many(sql.UPSERT_TOTALS, sql.totals_params(results))


def rate(update: RatingUpdate) -> Plan[None]:
    """Read the ratings ``update`` needs, locked, and write back what it makes of them."""
    before: dict[RatingKey, RatingRow | None] = {}
    # Sorted, so that two processes rating overlapping players lock in one order. A row that
    # does not exist yet cannot be locked: a lock on its key keeps a second game from rating
    # the same new player at once.
    for scope, player in sorted(update.keys):
        yield from lock(f"{scope}:{player}")
        r = yield from fetch_one(sql.RATING_FOR_UPDATE, scope, player)
        before[(scope, player)] = None if r is None else sql.rating_row(r)
    yield from execute_many(sql.UPSERT_RATING, [
        (r.scope, r.player, r.mu, r.sigma, r.ordinal, r.games, r.updated_at)
        for r in update.rate(before)])


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


# --------------------------------------------------------------------------- the rest


def swap_achievement(user_id: int, game_id: int, old: str, new: str, now: int) -> Plan[bool]:
    row = yield from fetch_one(sql.SWAP_DELETE, user_id, old, game_id)
    if row is None:
        return False
    if (yield from execute(sql.INSERT_ACHIEVEMENT, user_id, new, game_id, row[0], now)) != 1:
        raise Rollback(False)  # the new one is already held: keep the old one
    return True


def ensure_challenge(c: ChallengeRow) -> Plan[ChallengeRow]:
    yield from execute(sql.INSERT_CHALLENGE, c.week, c.seed, c.options, c.starts_at, c.ends_at,
                       c.closed_at)
    r = yield from fetch_one(sql.CHALLENGE, c.week)
    assert r is not None
    return sql.challenge_row(r)


def close_challenge(week: str, now: int, notices: Sequence[NoticeDraft]) -> Plan[bool]:
    if (yield from execute(sql.CLOSE_CHALLENGE, now, week)) != 1:
        return False
    if (yield from queue(0, 0, notices, now)):
        yield from notify("n")
    return True


def save_review(r: ReviewRow) -> Plan[ReviewRow]:
    yield from execute(sql.INSERT_REVIEW, r.game_id, r.seat, r.user_id, r.accuracy, r.data,
                       r.created_at)
    row = yield from fetch_one(sql.REVIEW, r.game_id, r.seat)
    assert row is not None
    return sql.review_row(row)


# --------------------------------------------------------------------------- tournaments


def create_tournament(t: TournamentRow,
                      notices: Callable[[int], Sequence[NoticeDraft]]) -> Plan[int]:
    """A new tournament and its first notices (``notices`` makes them from its id)."""
    row = yield from fetch_one(
        sql.INSERT_TOURNAMENT, t.guild_id, t.channel_id, t.organiser_id, t.name, t.format,
        t.rounds, t.table_size, t.options, t.signup_ends_at, t.starts_at, t.round_hours,
        t.status, t.created_at, t.updated_at)
    assert row is not None
    tid = int(row[0])
    if (yield from queue(0, 0, notices(tid), t.created_at)):
        yield from notify("n")
    return tid


def write_tournament(w: TournamentWrite) -> Plan[int]:
    """One step of a tournament; returns the notices queued. StaleWriteError (nothing
    written) when its version moved: another process took this step first."""
    tid = w.tournament_id
    if (yield from execute(sql.update_tournament(list(w.columns)), *w.columns.values(), w.now,
                           tid, w.expect_version)) != 1:
        raise StaleWriteError(f"tournament {tid} is no longer at version {w.expect_version}")
    for user_id in w.remove_entrants:
        yield from execute(sql.DELETE_ENTRANT, tid, user_id)
    if w.add_entrants:
        yield from execute_many(sql.INSERT_ENTRANT, [
            (e.tournament_id, e.user_id, e.name, e.joined_at, e.withdrawn)
            for e in w.add_entrants])
    for user_id, round_no in w.withdraw:
        yield from execute(sql.WITHDRAW_ENTRANT, round_no, tid, user_id)
    if w.tables:
        yield from execute_many(sql.INSERT_TABLE, [
            (t.tournament_id, t.round, t.table_no, t.players, t.game_id, t.outcome)
            for t in w.tables])
    for round_no, table, outcome in w.outcomes:
        yield from execute(sql.SET_OUTCOME, outcome, tid, round_no, table)
    queued = (yield from queue(0, 0, w.notices, w.now)) if w.notices else 0
    if queued:
        yield from notify("n")
    return queued
