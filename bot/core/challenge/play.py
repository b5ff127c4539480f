"""Playing the weekly challenge: the week's deal, one attempt a person, its end (the score
recorded, the player told by DM), and what ``/calico challenge`` and the other commands may
show of it (the boards, a rank; nothing of an open week to those still to play it)."""

from __future__ import annotations

import secrets

from bot.core import flow, lobby
from bot.core.challenge import store
from bot.core.challenge.model import (
    BOARD_SIZE,
    OPTIONS,
    PLAYED,
    Board,
    BoardLine,
    ChallengeRow,
    EntryRow,
    Over,
    Standing,
    previous_week,
    week_of,
)
from bot.core.challenge.store import DuplicateEntryError
from bot.core.clock import from_ms
from bot.core.game import FLAG_HINTS, Tx, unborn
from bot.core.hooks import Ending
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, LobbyOptions, ManagerError, UserRef
from bot.core.notices import Events
from bot.core.storage import Database, ResultRow, SeatRow
from bot.core.storage.codec import event_dict
from engine.config import STORED

_SEED_BITS = 63
END_KINDS = frozenset({"goal_scored", "scenario_result", "game_over"})  # the score sheet's

async def this_week(kernel: Kernel, now: int | None = None) -> ChallengeRow:
    """The current week's challenge, created (with a fresh secret seed) if it is the first
    call of the week."""
    now = kernel.now_ms() if now is None else now
    week, start_ms, end = week_of(now)
    row = await store.challenge(kernel.store, week)
    if row is None:
        row = await store.ensure(kernel.store, ChallengeRow(
            week, secrets.randbits(_SEED_BITS), OPTIONS.model_dump_json(), start_ms, end))
    return row


async def start(kernel: Kernel, user: UserRef, guild_id: int, channel_id: int) -> GameInfo:
    """Deal this week's challenge to ``user`` (ManagerError ``challenge_played`` if they had
    their attempt). The game is a solo game without a thread: its turns come by DM."""
    now = kernel.now_ms()
    row = await this_week(kernel, now)
    if await store.entry(kernel.store, row.week, user.id) is not None:
        raise ManagerError(PLAYED, f"{user.id} already played {row.week}")
    await lobby.check_limits(kernel, user.id, hosting=False)  # a game like any other for the caps
    options = LobbyOptions.model_validate_json(row.options, context=STORED)
    g = unborn(guild_id=guild_id, channel_id=channel_id, host_id=user.id, options=options,
               seats=(SeatRow(0, user.id, user.name),), now=now, challenge_week=row.week)
    tx = Tx(old=g, g=g, now=now, dm_closed=kernel.dm_closed)
    tx.activity = True
    tx.user_names.append((user.id, user.name, user.locale))
    await kernel.user(user.id)
    flow.deal(kernel, tx, seed=row.seed)
    tx.steps.append(store.enter(row.week, user.id, guild_id))
    try:
        new = await kernel.commit_new(tx)
    except DuplicateEntryError:
        raise ManagerError(PLAYED, f"{user.id} already played {row.week}") from None
    return new.info()


async def game_over(kernel: Kernel, tx: Tx, ending: Ending) -> None:
    """At the end of a challenge game: record its score on the entry (same transaction) and
    DM the player their result (the game has no thread). Nothing for any other game."""
    g = tx.g
    if g.challenge_week is None:
        return
    row = await store.challenge(kernel.store, g.challenge_week)
    late = row is None or not row.open_at(tx.now)
    hints = bool(g.flags & FLAG_HINTS)
    seat = g.seats[0]
    score = ending.over.totals[0]
    recorded = not late and not hints and seat.user_id is not None and seat.ai_level is None
    if recorded:
        assert seat.user_id is not None
        tx.steps.append(store.score(g.challenge_week, seat.user_id, score, tx.now))
    ends = [d for d in map(event_dict, ending.events) if d["kind"] in END_KINDS]
    tx.dm(0, Over(week=g.challenge_week, score=score, recorded=recorded, late=late,
                  hints=hints, events=Events.of(ends)))


# --------------------------------------------------------------------------- standings


def _ranked(rows: list[tuple[EntryRow, str]]) -> tuple[BoardLine, ...]:
    out: list[BoardLine] = []
    for i, (e, name) in enumerate(rows):
        assert e.score is not None
        place = out[-1].rank if out and out[-1].score == e.score else i + 1
        out.append(BoardLine(place, e.user_id, name or str(e.user_id), e.score))
    return tuple(out)


async def board(db: Database, week: str, guild_id: int | None, score: int | None = None,
                limit: int = BOARD_SIZE) -> Board:
    """The week's best attempts (one server, or everywhere), with the rank of ``score``."""
    rows = await store.board(db, week, guild_id, limit)
    # (With no score of the reader's, any score counts the entrants; its rank is unused.)
    place, entrants = await store.rank(db, week, guild_id, 0 if score is None else score)
    return Board(_ranked(rows), entrants, None if score is None else place)


async def standing(kernel: Kernel, user_id: int, guild_id: int | None) -> Standing:
    db = kernel.store
    now = kernel.now_ms()
    row = await this_week(kernel, now)
    entry = await store.entry(db, row.week, user_id)
    game = None
    if entry is not None:
        try:
            game = await kernel.get_game(entry.game_id)
        except ManagerError:
            game = None
    server = everywhere = None
    if entry is not None and entry.score is not None:
        if guild_id is not None:
            server = await board(db, row.week, guild_id, entry.score)
        everywhere = await board(db, row.week, None, entry.score)
    last = await store.challenge(db, previous_week(row.starts_at))
    last_server = last_everywhere = None
    if last is not None and last.closed_at is not None:
        mine = await store.entry(db, last.week, user_id)
        score = mine.score if mine is not None else None
        if guild_id is not None:
            last_server = await board(db, last.week, guild_id, score, 3)
        last_everywhere = await board(db, last.week, None, score, 3)
    return Standing(row.week, from_ms(row.ends_at), entry, game, server, everywhere,
                    last.week if last is not None and last.closed_at is not None else None,
                    last_server, last_everywhere)


async def may_show(kernel: Kernel, game: GameInfo) -> bool:
    """Whether a challenge game's moves may be shown (replay, record): only once its week has
    closed, so that nobody learns the week's tiles from another's game."""
    if game.challenge_week is None:
        return True
    row = await store.challenge(kernel.store, game.challenge_week)
    return row is None or not row.open_at(kernel.now_ms())


async def hidden_result(kernel: Kernel, user_id: int, guild_id: int) -> ResultRow | None:
    """The counted result of ``user_id``'s challenge game of a week still open, if it is in
    the totals of ``guild_id`` (0: every server): what others must not learn from that
    person's stats until the week closes (issue #20)."""
    db = kernel.store
    week, start_ms, _end = week_of(kernel.now_ms())
    for name in (week, previous_week(start_ms)):  # last week, until the sweep closes it
        row = await store.challenge(db, name)
        if row is None or row.closed_at is not None:
            continue
        entry = await store.entry(db, name, user_id)
        if entry is None or entry.score is None:
            continue
        for r in await db.results(entry.game_id):
            if r.user_id == user_id and r.counted and guild_id in (0, r.guild_id):
                return r
    return None


async def rank(kernel: Kernel, week: str, guild_id: int | None, score: int) -> tuple[int, int]:
    """Where ``score`` ranks in a week (a server's board, or everyone's with ``guild_id``
    None), and how many finished that week there."""
    return await store.rank(kernel.store, week, guild_id, score)
