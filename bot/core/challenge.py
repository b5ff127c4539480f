"""The weekly challenge (issue #12): every player gets the same solo game each ISO week.

- **One deal a week.** The first ``/calico challenge`` of a week stores the week's challenge
  (:meth:`~bot.core.storage.Store.ensure_challenge`): a seed made with :mod:`secrets` and the
  options (:data:`OPTIONS`, a standard solo game). Processes racing to create it agree on the
  stored one. Everyone's game is dealt from that seed, so the boards, cats, goals offered and
  the tile sequence are the same for all. The seed is secret like every game's: no message,
  picture or record shows it.
- **One attempt.** The game and the person's entry are written in one transaction
  (``NewGame.challenge_entry``); a second attempt that week is refused (``challenge_played``),
  whatever process it reaches.
- **No spoilers.** A challenge game has no thread (its turns and its end come by DM), its
  replay and record wait for the week to close, and the week's boards are shown only to those
  who finished their attempt (everyone may see a closed week's).
- **Scores.** A challenge game's score is recorded on its entry in the transaction that ends
  it (:func:`game_over`); a game that ends after its week closed, or in which hints were used,
  is not recorded.
- **Closing.** The sweep (:func:`bot.core.sweep.sweep`) calls :func:`close_due`: each week whose
  end has passed is closed once across processes
  (:meth:`~bot.core.storage.Store.close_challenge` is atomic), and in that same transaction a
  summary notice is queued for every server that had finished attempts and has a challenge
  channel (``guild_settings`` JSON, key :data:`CHANNEL_KEY`, set by ``/calico admin``): a notice
  about no game (game 0) posted in that channel by the delivery.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.core import flow
from bot.core.clock import from_ms, to_ms
from bot.core.game import FLAG_HINTS, LiveGame, Tx
from bot.core.kernel import Kernel
from bot.core.models import (
    GameInfo,
    GameStatus,
    LobbyOptions,
    ManagerError,
    NoticeKind,
    UserRef,
)
from bot.core.storage import ChallengeStore, NoticeDraft, SeatRow, ServerStore
from bot.core.storage.base import ChallengeRow, DuplicateEntryError, EntryRow, ResultRow
from bot.core.storage.codec import event_dict
from engine.config import STORED
from engine.events import Event, GameOver

log = logging.getLogger("calico.challenge")

OPTIONS = LobbyOptions(players=1)  # the week's game: solo, standard setup
CHANNEL_KEY = "challenge_channel_id"  # guild_settings JSON: where the summary is posted
LANGUAGE_KEY = "language"  # guild_settings JSON: the server's language, when set
PLAYED = "challenge_played"  # ManagerError code: one attempt a week
NOT_YET = "challenge_not_yet"  # ManagerError code: a replay or record before the week closes
BOARD_SIZE = 10
_SEED_BITS = 63
WEEK_MS = 7 * 86_400_000
END_KINDS = frozenset({"goal_scored", "scenario_result", "game_over"})  # the score sheet's


# --------------------------------------------------------------------------- weeks


def week_of(ms: int) -> tuple[str, int, int]:
    """The ISO week holding ``ms`` (UTC): its name (``2026-W48``), start and end (Monday
    00:00 UTC to the next Monday), in ms."""
    when = from_ms(ms).astimezone(dt.UTC)
    year, week, weekday = when.isocalendar()
    monday = dt.datetime(when.year, when.month, when.day, tzinfo=dt.UTC) - dt.timedelta(
        days=weekday - 1)
    start = to_ms(monday)
    return f"{year}-W{week:02d}", start, start + WEEK_MS


def previous_week(week_start: int) -> str:
    return week_of(week_start - 1)[0]


async def this_week(kernel: Kernel, now: int | None = None) -> ChallengeRow:
    """The current week's challenge, created (with a fresh secret seed) if it is the first
    call of the week."""
    now = kernel.now_ms() if now is None else now
    week, start, end = week_of(now)
    row = await kernel.store.challenge(week)
    if row is None:
        row = await kernel.store.ensure_challenge(ChallengeRow(
            week, secrets.randbits(_SEED_BITS), OPTIONS.model_dump_json(), start, end))
    return row


def is_open(row: ChallengeRow, now: int) -> bool:
    return row.closed_at is None and now < row.ends_at


# --------------------------------------------------------------------------- playing


async def start(kernel: Kernel, user: UserRef, guild_id: int, channel_id: int) -> GameInfo:
    """Deal this week's challenge to ``user`` (ManagerError ``challenge_played`` if they had
    their attempt). The game is a solo game without a thread: its turns come by DM."""
    store = kernel.store
    now = kernel.now_ms()
    row = await this_week(kernel, now)
    if await store.challenge_entry(row.week, user.id) is not None:
        raise ManagerError(PLAYED, f"{user.id} already played {row.week}")
    await kernel.check_limits(user.id, hosting=False)  # a game like any other for the caps
    options = LobbyOptions.model_validate_json(row.options, context=STORED)
    g = LiveGame(id=0, status=GameStatus.LOBBY, guild_id=guild_id, channel_id=channel_id,
                 thread_id=None, lobby_message_id=None, host_id=user.id, options=options,
                 first_user_id=None, engine_options=None, state=None, config_json=None,
                 version=0, ply=0, deadline_at=None, end_reason=None, created_at=now,
                 updated_at=now, seats=(SeatRow(0, user.id, user.name),),
                 challenge_week=row.week)
    tx = Tx(old=g, g=g, now=now, dm_closed=kernel.dm_closed)
    tx.activity = True
    tx.user_names.append((user.id, user.name, user.locale))
    await kernel.user(user.id)
    flow.deal(kernel, tx, seed=row.seed)
    try:
        new = await kernel.commit_new(tx, EntryRow(row.week, user.id, 0, guild_id))
    except DuplicateEntryError:
        raise ManagerError(PLAYED, f"{user.id} already played {row.week}") from None
    return new.info()


async def game_over(kernel: Kernel, tx: Tx, g: LiveGame, events: Sequence[Event],
                    over: GameOver) -> dict[str, Any]:
    """At the end of a challenge game: record its score on the entry (same transaction) and
    DM the player their result (the game has no thread)."""
    assert g.challenge_week is not None
    row = await kernel.store.challenge(g.challenge_week)
    late = row is None or not is_open(row, tx.now)
    hints = bool(g.flags & FLAG_HINTS)
    seat = g.seats[0]
    score = over.totals[0]
    recorded = not late and not hints and seat.user_id is not None and seat.ai_level is None
    if recorded:
        assert seat.user_id is not None
        tx.challenge_score = (g.challenge_week, seat.user_id, score)
    info = {"week": g.challenge_week, "score": score, "recorded": recorded, "late": late,
            "hints": hints}
    ends = [d for d in map(event_dict, events) if d["kind"] in END_KINDS]
    tx.dm(0, NoticeKind.CHALLENGE_OVER, events=ends, **info)
    return info


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class BoardLine:
    rank: int
    user_id: int
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class Board:
    lines: tuple[BoardLine, ...]
    entrants: int  # finished attempts
    mine: int | None = None  # the reader's rank, when they finished


@dataclass(frozen=True, slots=True)
class Standing:
    """What ``/calico challenge`` shows one person."""

    week: str
    ends_at: dt.datetime
    entry: EntryRow | None
    game: GameInfo | None  # their attempt
    server: Board | None  # None: not theirs to see yet (they have not finished)
    everywhere: Board | None
    last_week: str | None = None  # the previous week, when it closed with finishers
    last_server: Board | None = None
    last_everywhere: Board | None = None


def _ranked(rows: list[tuple[EntryRow, str]]) -> tuple[BoardLine, ...]:
    out: list[BoardLine] = []
    for i, (e, name) in enumerate(rows):
        assert e.score is not None
        rank = out[-1].rank if out and out[-1].score == e.score else i + 1
        out.append(BoardLine(rank, e.user_id, name or str(e.user_id), e.score))
    return tuple(out)


async def board(store: ChallengeStore, week: str, guild_id: int | None, score: int | None = None,
                limit: int = BOARD_SIZE) -> Board:
    """The week's best attempts (one server, or everywhere), with the rank of ``score``."""
    rows = await store.challenge_board(week, guild_id, limit)
    # (With no score of the reader's, any score counts the entrants; its rank is unused.)
    rank, entrants = await store.challenge_rank(week, guild_id, 0 if score is None else score)
    return Board(_ranked(rows), entrants, None if score is None else rank)


async def standing(kernel: Kernel, user_id: int, guild_id: int | None) -> Standing:
    store = kernel.store
    now = kernel.now_ms()
    row = await this_week(kernel, now)
    entry = await store.challenge_entry(row.week, user_id)
    game = None
    if entry is not None:
        try:
            game = await kernel.get_game(entry.game_id)
        except ManagerError:
            game = None
    server = everywhere = None
    if entry is not None and entry.score is not None:
        if guild_id is not None:
            server = await board(store, row.week, guild_id, entry.score)
        everywhere = await board(store, row.week, None, entry.score)
    last = await store.challenge(previous_week(row.starts_at))
    last_server = last_everywhere = None
    if last is not None and last.closed_at is not None:
        mine = await store.challenge_entry(last.week, user_id)
        score = mine.score if mine is not None else None
        if guild_id is not None:
            last_server = await board(store, last.week, guild_id, score, 3)
        last_everywhere = await board(store, last.week, None, score, 3)
    return Standing(row.week, from_ms(row.ends_at), entry, game, server, everywhere,
                    last.week if last is not None and last.closed_at is not None else None,
                    last_server, last_everywhere)


async def may_show(kernel: Kernel, game: GameInfo) -> bool:
    """Whether a challenge game's moves may be shown (replay, record): only once its week has
    closed, so that nobody learns the week's tiles from another's game."""
    if game.challenge_week is None:
        return True
    row = await kernel.store.challenge(game.challenge_week)
    return row is None or not is_open(row, kernel.now_ms())


async def hidden_result(kernel: Kernel, user_id: int, guild_id: int) -> ResultRow | None:
    """The counted result of ``user_id``'s challenge game of a week still open, if it is in
    the totals of ``guild_id`` (0: every server): what others must not learn from that
    person's stats until the week closes (issue #20)."""
    store = kernel.store
    now = kernel.now_ms()
    week, start, _end = week_of(now)
    for name in (week, previous_week(start)):  # last week, until the sweep closes it
        row = await store.challenge(name)
        if row is None or row.closed_at is not None:
            continue
        entry = await store.challenge_entry(name, user_id)
        if entry is None or entry.score is None:
            continue
        for r in await store.results(entry.game_id):
            if r.user_id == user_id and r.counted and guild_id in (0, r.guild_id):
                return r
    return None


async def rank(kernel: Kernel, week: str, guild_id: int | None, score: int) -> tuple[int, int]:
    """Where ``score`` ranks in a week (a server's board, or everyone's with ``guild_id``
    None), and how many finished that week there."""
    return await kernel.store.challenge_rank(week, guild_id, score)


# --------------------------------------------------------------------------- closing


def guild_setting(data: str | None, key: str) -> Any:
    """One value of a server's settings JSON (None when unset or unreadable)."""
    if not data:
        return None
    try:
        settings = json.loads(data)
    except ValueError:
        return None
    return settings.get(key) if isinstance(settings, dict) else None


async def challenge_channel(store: ServerStore, guild_id: int) -> int | None:
    """The channel a server chose for the weekly summary (``/calico admin``), if any."""
    value = guild_setting(await store.guild_settings(guild_id), CHANNEL_KEY)
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def summary_key(week: str, index: int) -> str:
    """The notice key (the Discord nonce, at most 25 characters) of one server's summary."""
    return f"cw{week}.{index}"


class SummaryStore(ChallengeStore, ServerStore, Protocol):
    """What a week's summary reads: the challenge's boards and each server's settings."""


async def summary_notices(store: SummaryStore, row: ChallengeRow) -> list[NoticeDraft]:
    """One summary per server with finished attempts and a challenge channel."""
    guilds = await store.challenge_guilds(row.week)
    if not guilds:
        return []
    everywhere = await board(store, row.week, None, None, 3)
    notices = []
    for index, (guild_id, entrants) in enumerate(sorted(guilds.items())):
        channel = await challenge_channel(store, guild_id)
        if channel is None:
            continue
        top = await board(store, row.week, guild_id)
        language = guild_setting(await store.guild_settings(guild_id), LANGUAGE_KEY)
        payload = {
            "week": row.week, "guild_id": guild_id, "entrants": entrants,
            "language": language if isinstance(language, str) else None,
            "top": [[x.rank, x.user_id, x.name, x.score] for x in top.lines],
            "everywhere": everywhere.entrants,
            "best": everywhere.lines[0].score if everywhere.lines else None,
        }
        notices.append(NoticeDraft(NoticeKind.CHALLENGE_SUMMARY.value, None, 0,
                                   json.dumps(payload), summary_key(row.week, index),
                                   channel_id=channel))
    return notices


async def close_due(kernel: Kernel, now: int) -> int:
    """Close every week whose end has passed (once, across processes), queueing each
    server's summary in the closing transaction. Returns how many this call closed."""
    closed = 0
    try:
        due = await kernel.store.challenges_to_close(now)
    except Exception:
        log.exception("reading the challenges to close failed")
        return 0
    for row in due:
        try:
            notices = await summary_notices(kernel.store, row)
            if await kernel.store.close_challenge(row.week, now, notices):
                closed += 1
                log.info("weekly challenge %s closed: %d summaries", row.week, len(notices))
        except Exception:
            log.exception("closing the weekly challenge %s failed", row.week)
    return closed
