"""Reading a tournament (its view, tables, standings) and the one way it changes: a
versioned step (:func:`step`), on the kernel's versioned-write loop like a game's change.

Each step is one transaction at the version read, with its entrants, tables and posts, so a
restart or a second process never takes a step twice: the loser's write finds the version
moved, reads again and redoes its change on what the winner wrote.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot.core.clock import from_ms
from bot.core.kernel import Kernel
from bot.core.models import LobbyOptions, ManagerError
from bot.core.notices import encode
from bot.core.storage import NoticeDraft
from bot.core.tournament import pairing, store
from bot.core.tournament.model import (
    SIGNUP,
    SWISS,
    UNKNOWN,
    Entrant,
    EntrantRow,
    Post,
    PostKind,
    Table,
    TableRow,
    TournamentInfo,
    TournamentRow,
)
from bot.core.tournament.store import TournamentWrite
from engine.config import STORED

T = TypeVar("T")

Change = Callable[[TournamentRow], Awaitable[tuple[TournamentWrite | None, T]]]


def info(row: TournamentRow, entrants: Sequence[EntrantRow], now: int) -> TournamentInfo:
    """The view of a tournament as it stands at ``now``."""
    return TournamentInfo(
        row.id, row.guild_id, row.channel_id, row.organiser_id, row.name, row.format,
        row.rounds, row.table_size, LobbyOptions.model_validate_json(row.options, context=STORED),
        from_ms(row.signup_ends_at), from_ms(row.starts_at), row.round_hours, row.status,
        row.round, None if row.round_deadline_at is None else from_ms(row.round_deadline_at),
        row.message_id, row.version,
        tuple(Entrant(e.user_id, e.name, e.withdrawn) for e in entrants),
        signup_open=row.status == SIGNUP and now < row.signup_ends_at)


def table(t: TableRow) -> Table:
    outcome = json.loads(t.outcome) if t.outcome else None
    return Table(t.round, t.table_no, tuple(json.loads(t.players)), t.game_id,
                 None if outcome is None else tuple(outcome["points"]),
                 None if outcome is None else tuple(outcome["scores"]))


async def row(k: Kernel, tournament_id: int) -> TournamentRow:
    found = await store.tournament(k.store, tournament_id) if 0 < tournament_id < 1 << 63 \
        else None
    if found is None:
        raise ManagerError(UNKNOWN, f"no tournament {tournament_id}")
    return found


async def get(k: Kernel, tournament_id: int) -> TournamentInfo:
    found = await row(k, tournament_id)
    return info(found, await store.entrants(k.store, found.id), k.now_ms())


async def tables(k: Kernel, tournament_id: int) -> list[Table]:
    return [table(t) for t in await store.tables(k.store, tournament_id)]


async def round_tables(k: Kernel, tournament_id: int, round_no: int, *,
                       wait: float = 0.0) -> list[Table]:
    """A round's tables; with ``wait``, once every table that is not a bye has its game (the
    games open right after the pairing is stored), woken as each opens, at most ``wait``
    seconds."""
    async def read(_fresh: bool) -> list[Table]:
        return [t for t in await tables(k, tournament_id) if t.round == round_no]

    def opened(found: list[Table]) -> bool:
        return all(t.bye or t.game_id is not None for t in found)

    return await k.wait_until(store.topic(tournament_id), read, opened, wait)


async def posted(k: Kernel, tournament_id: int, timeout: float) -> TournamentInfo:
    """The tournament once its sign-up message is posted, or once it is no longer in its
    sign-up (paused: the post was refused), or as it stands after ``timeout`` seconds."""
    async def read(_fresh: bool) -> TournamentInfo:
        return await get(k, tournament_id)

    def ready(t: TournamentInfo) -> bool:
        return t.message_id is not None or t.status != SIGNUP

    return await k.wait_until(store.topic(tournament_id), read, ready, timeout)


async def listed(k: Kernel, guild_id: int, limit: int = 10) -> list[TournamentInfo]:
    """A server's tournaments, newest first."""
    return [info(r, await store.entrants(k.store, r.id), k.now_ms())
            for r in await store.of_guild(k.store, guild_id, limit)]


async def standings(k: Kernel, tournament_id: int,
                    upto: int | None = None) -> list[pairing.Standing]:
    """Standings after round ``upto`` (default: every round scored so far)."""
    found = await row(k, tournament_id)
    return ranked(found, await store.entrants(k.store, found.id),
                  await tables(k, found.id), upto)


def ranked(row: TournamentRow, entrants: Sequence[EntrantRow], all_tables: Sequence[Table],
           upto: int | None = None) -> list[pairing.Standing]:
    played = [pairing.Played(t.round, t.players, t.points, t.scores or (0,) * len(t.players))
              for t in all_tables
              if t.points is not None and (upto is None or t.round <= upto)]
    return pairing.standings([e.user_id for e in entrants], played,
                             buchholz=row.format == SWISS)


async def games_of(k: Kernel, tournament_id: int, user_id: int) -> list[Table]:
    """The tables this entrant sat at (their games), round by round."""
    return [t for t in await tables(k, tournament_id) if user_id in t.players]


# --------------------------------------------------------------------------- changing one


def post(row: TournamentRow, index: int, what: PostKind, round_no: int | None = None,
         *, version: int | None = None) -> NoticeDraft:
    """A post in the tournament's channel, queued with the step that writes version
    ``version`` (default: the next one)."""
    v = row.version + 1 if version is None else version
    body = Post(tournament=row.id, what=what, guild_id=row.guild_id, round=round_no)
    return NoticeDraft(body.kind, None, 0, encode(body), f"t{row.id}.{v}.{index}",
                       channel_id=row.channel_id)


def dm(row: TournamentRow, index: int, what: PostKind, user_id: int) -> NoticeDraft:
    """A private message about the tournament (to its organiser: its channel was lost),
    queued with the step that writes the next version."""
    body = Post(tournament=row.id, what=what, guild_id=row.guild_id)
    return NoticeDraft(body.kind, user_id, 0, encode(body), f"t{row.id}.{row.version + 1}.{index}",
                       channel_id=row.channel_id)


def write(row: TournamentRow, now: int, **columns: Any) -> TournamentWrite:
    """An empty step of ``row`` at its version, setting ``columns``."""
    return TournamentWrite(row.id, row.version, now, dict(columns))


async def step(k: Kernel, tournament_id: int, change: Change[T]) -> T:
    """Run ``change`` on the stored row and write what it returns at that version (None: no
    write); another process's write first: read again and redo it (the kernel's loop). This
    process's steps of one tournament run one at a time (a burst of clicks on Join would
    otherwise race each other until one ran out of attempts)."""
    async def apply(found: TournamentRow) -> T:
        w, result = await change(found)
        if w is not None:
            await store.write(k.store, w)
            k.changed(store.topic(tournament_id))  # (other processes: the write notifies)
        return result

    async with k.lock(store.topic(tournament_id)):
        return await k.versioned(lambda: row(k, tournament_id), apply, what="the tournament")
