"""A tournament's rounds, advanced by the sweep (:func:`tick`, the feature's periodic work).

- **sign-up closing**: when the sign-up ends at its time, the sign-up message is edited once
  (its Join button goes);
- **round start**: at the start time (then each time a round ends) the round is paired
  (:mod:`bot.core.tournament.pairing`, in the computers' worker processes, or a thread: a big
  Swiss search never holds the event loop) and its tables stored in the same write that ends
  the previous round; each table's game is then created like a lobby that starts at once with
  its players, and linked to its table in the game's own transaction (a table never gets two
  games: :func:`bot.core.tournament.store.link_table`); games opened later (the process that
  paired the round died first) get the whole round from then;
- **round end**: when every table's game has ended, the outcomes are recorded, the standings
  posted and the next round paired, or the podium posted after the last one (standings and
  podium in one post). At the round deadline the tables still open are handed to the
  computers' queue (:func:`bot.core.tournament.tables.play_out`: one quick mark per game, the
  moves played by :mod:`bot.core.thinking`, never inside the sweep); the round ends at a
  later sweep, once they ended.

**Results** (:func:`_outcome`): places make half points (:func:`pairing.table_points`), except
that a seat a computer finished (its person withdrew, was removed, left the game or the server,
or timed out into a computer) counts as last at its table, as the ratings count it
(:func:`bot.core.progress.ratings.rated_players`), and scores 0 for the tie-break. In a
round-robin, a withdrawn player's later seats are forfeited: the others at that table play on
and each counts one more opponent beaten; left alone at a table, a player has a bye.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bot.core.faults import crash_point
from bot.core.kernel import Kernel
from bot.core.models import LobbyOptions, ManagerError
from bot.core.progress import store as ratings
from bot.core.progress.model import person_key
from bot.core.storage import StaleWriteError
from bot.core.tournament import pairing, records, store, tables
from bot.core.tournament.model import (
    CANCELLED,
    HOUR_MS,
    OVER,
    ROUND_ROBIN,
    RUNNING,
    SIGNUP,
    EntrantRow,
    PostKind,
    Table,
    TableRow,
    TournamentRow,
)
from bot.core.tournament.store import TournamentWrite
from engine.config import STORED

log = logging.getLogger("calico.tournament")

T = TypeVar("T")


async def tick(k: Kernel, now: int) -> int:
    """Take every tournament step now due (the sweep calls it): start, end and pair rounds,
    open the games of a round, hand a round's open games to the computers at its deadline.
    Returns the steps taken. A failing tournament is logged and never holds the others."""
    done = 0
    for row in await store.due(k.store, now):
        try:
            done += await _advance(k, row, now)
        except Exception:
            log.exception("tournament %s: step failed", row.id)
    return done


async def _advance(k: Kernel, row: TournamentRow, now: int) -> int:
    if row.status == SIGNUP:
        if now < row.starts_at:
            return await _signup_closed(k, row.id, now)
        return await _next_round(k, row, now)
    opened = await _open_games(k, row)
    if opened:
        # The round's games open only now: the process that paired it died first (or was
        # down). Its players get the whole round from now, as after a pause; played out at a
        # deadline that passed meanwhile, the games would end before anyone saw them, and
        # before their threads were made.
        return opened + await _restart_deadline(k, row.id, row.round, now)
    if await store.open_tables(k.store, row.id, row.round):
        if row.round_deadline_at is None or now < row.round_deadline_at:
            return 0
        # Handed to the computers' queue (quick marks); the round ends once they ended.
        handed = 0
        for t in await records.tables(k, row.id):
            if t.round == row.round and t.game_id is not None and t.points is None:
                try:
                    handed += await tables.play_out(k, t.game_id)
                except ManagerError:
                    continue  # the game is gone
                if handed:
                    crash_point("tournament.played_out")  # one game handed over, not all
        return handed
    return await _next_round(k, row, now)


async def _signup_closed(k: Kernel, tournament_id: int, now: int) -> int:
    """The sign-up ended at its time: its message is edited once (no more Join)."""
    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int]:
        if row.status != SIGNUP or not row.updated_at < row.signup_ends_at <= now:
            return None, 0
        w = records.write(row, now)
        w.notices.append(records.post(row, 0, PostKind.SIGNUP))
        return w, 1

    return await records.step(k, tournament_id, change)


async def _restart_deadline(k: Kernel, tournament_id: int, round_no: int, now: int) -> int:
    """The round's deadline at least a whole round from ``now`` (1: moved)."""
    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int]:
        deadline = now + int(row.round_hours * HOUR_MS)
        if row.status != RUNNING or row.round != round_no \
                or (row.round_deadline_at or 0) >= deadline:
            return None, 0
        return records.write(row, now, round_deadline_at=deadline), 1

    return await records.step(k, tournament_id, change)


async def _next_round(k: Kernel, row: TournamentRow, now: int) -> int:
    """End the round being played (scored from its games) and pair the next, or finish: one
    write at the version read, then the new round's games."""
    entrants = await store.entrants(k.store, row.id)
    all_tables = await records.tables(k, row.id)
    schedule: list[pairing.Pairing] = []
    if row.format == ROUND_ROBIN:
        # The fixed schedule, from every entrant in sign-up order (withdrawn ones too: their
        # seats are forfeits), computed off the event loop.
        schedule = await _off_loop(k, pairing.round_robin, [e.user_id for e in entrants],
                                   row.table_size)
    w = records.write(row, now)
    scored = list(all_tables)
    if row.round:
        for i, t in enumerate(scored):
            if t.round == row.round and t.points is None:
                points, scores = await _outcome(k, row, t, schedule)
                w.outcomes.append((t.round, t.table_no,
                                   json.dumps({"points": points, "scores": scores})))
                scored[i] = Table(t.round, t.table_no, t.players, t.game_id, tuple(points),
                                  tuple(scores))
    active = [e for e in entrants if e.withdrawn is None]
    if row.round == 0 and len(active) < 2:
        w.columns.update(status=CANCELLED)
        w.notices += [records.post(row, 0, PostKind.TOO_FEW),
                      records.post(row, 1, PostKind.SIGNUP)]
        return await _commit(k, w, None)
    rounds = row.rounds
    if row.round == 0 and row.format == ROUND_ROBIN:
        # ``rounds`` is honoured as the most to play: the whole schedule when it fits.
        rounds = max(1, min(row.rounds, len(schedule)))
    if row.round >= rounds or len(active) < 2:
        # The last round ended, or nobody is left to play: one final post, standings and
        # podium together, and the sign-up message says it is over.
        w.columns.update(status=OVER, round_deadline_at=None)
        w.notices += [records.post(row, 0, PostKind.PODIUM, row.round),
                      records.post(row, 1, PostKind.SIGNUP)]
        return await _commit(k, w, None)
    new = await _pair(k, row, entrants, scored, row.round + 1, schedule)
    w.columns.update(status=RUNNING, round=row.round + 1, rounds=rounds,
                     round_deadline_at=now + int(row.round_hours * HOUR_MS))
    w.tables = new
    index = 0
    if row.round:
        w.notices.append(records.post(row, index, PostKind.STANDINGS, row.round))
        index += 1
    w.notices += [records.post(row, index, PostKind.SIGNUP),
                  records.post(row, index + 1, PostKind.ROUND, row.round + 1)]
    return await _commit(k, w, row)


async def _commit(k: Kernel, w: TournamentWrite, row: TournamentRow | None) -> int:
    try:
        await store.write(k.store, w)
    except StaleWriteError:
        return 0  # another process took this step
    # tests/e2e/test_tournament_processes.py kills the bot at each of these: the step is
    # written, none of its posts or games made yet.
    if w.outcomes and w.tables:
        crash_point("tournament.round_ended")  # a round ended and the next is paired
    elif w.outcomes:
        crash_point("tournament.finished")  # the last round ended, the podium queued
    elif w.tables:
        crash_point("tournament.round_paired")  # round 1 paired
    if row is not None:
        fresh = await store.tournament(k.store, row.id)
        if fresh is not None:
            await _open_games(k, fresh)
    return 1


async def _pair(k: Kernel, row: TournamentRow, entrants: Sequence[EntrantRow],
                scored: Sequence[Table], round_no: int,
                schedule: Sequence[pairing.Pairing]) -> list[TableRow]:
    active = [e.user_id for e in entrants if e.withdrawn is None]
    if row.format == ROUND_ROBIN:
        planned = schedule[round_no - 1] if round_no <= len(schedule) else pairing.Pairing(())
        still = set(active)
        seated = [tuple(u for u in t if u in still) for t in planned.tables]
        if planned.bye is not None and planned.bye in still:
            seated.append((planned.bye,))
        groups = [t for t in seated if t]
    else:
        done = [pairing.Played(t.round, t.players, t.points,
                               t.scores or (0,) * len(t.players))
                for t in scored if t.points is not None]
        # Their rating in this server (the progress feature's) orders equal points.
        rated = await ratings.ordinals(k.store, row.guild_id)
        by_user = {uid: rated[person_key(uid)] for uid in active if person_key(uid) in rated}
        # The standings and the search take up to a few hundred milliseconds with a thousand
        # entrants: off the event loop, so that every server's clicks go on meanwhile.
        found = await _off_loop(k, pairing.next_swiss, active, done, by_user, row.table_size)
        groups = [*found.tables, *([(found.bye,)] if found.bye is not None else [])]
    return [TableRow(row.id, round_no, i + 1, json.dumps(list(g)))
            for i, g in enumerate(groups)]


async def _off_loop(k: Kernel, fn: Callable[..., T], *args: Any) -> T:
    """Pure work that may take long (a pairing), off the event loop: in the computers' worker
    processes when the bot has them (they share no interpreter lock with the loop), else in a
    thread."""
    if k.computers is not None:
        return await k.computers.run(fn, *args, bounded=False)
    return await asyncio.to_thread(fn, *args)


async def _outcome(k: Kernel, row: TournamentRow, t: Table,
                   schedule: Sequence[pairing.Pairing]) -> tuple[list[int], list[int]]:
    """Half points and scores of a table whose round ended (a bye: a win; a game that ended
    without a result: nothing for anyone; see the module docstring for forfeits)."""
    if t.bye:
        return [pairing.bye_points(row.table_size)], [0]
    results = await k.store.results(t.game_id) if t.game_id is not None else []
    by_user = {r.user_id: r for r in results}
    if not results or any(u not in by_user for u in t.players):
        return [0] * len(t.players), [0] * len(t.players)
    try:
        kept = k.cached(t.game_id or 0) is not None
        game = await k.get_game(t.game_id or 0, fresh=True)
        if not kept:
            k.forget(game.id)  # a round's games read in bulk are not kept parsed
        left = {s.user_id for s in game.seats if s.left}
    except ManagerError:
        left = set()
    places = [by_user[u].place for u in t.players]
    last = max(places) + 1
    places = [last if u in left else p for u, p in zip(t.players, places, strict=True)]
    # Seats of this round-robin table that a withdrawn player would have taken: last too.
    forfeits = _forfeited(schedule, t)
    points = pairing.table_points([*places, *([last] * forfeits)])[:len(t.players)]
    return list(points), [0 if u in left else by_user[u].total for u in t.players]


def _forfeited(schedule: Sequence[pairing.Pairing], t: Table) -> int:
    """How many seats of ``t``'s scheduled round-robin table are empty (their players
    withdrew before the round); 0 for a Swiss table."""
    if not schedule or t.round > len(schedule):
        return 0
    for planned in schedule[t.round - 1].tables:
        if t.players[0] in planned:
            return len(planned) - len(t.players)
    return 0


async def _open_games(k: Kernel, row: TournamentRow) -> int:
    """Create the games of the round's tables that have none yet (after a crash, or the
    write that paired them): each like a lobby that starts at once with its players."""
    if row.status != RUNNING:
        return 0
    waiting = [t for t in await records.tables(k, row.id)
               if t.round == row.round and t.game_id is None and not t.bye]
    if not waiting:
        return 0
    names = {e.user_id: e.name for e in await store.entrants(k.store, row.id)}
    options = LobbyOptions.model_validate_json(row.options, context=STORED)
    opened = 0
    for t in waiting:
        opened += await tables.open_game(k, row.guild_id, row.channel_id, options,
                                         (row.id, t.round, t.table_no),
                                         [(u, names.get(u, str(u))) for u in t.players])
        if opened:
            crash_point("tournament.game_opened")  # one game of the round open, not all
    return opened
