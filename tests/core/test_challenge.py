"""The weekly challenge in the manager (both backends): one secret deal a week, the same for
everyone, one attempt each (also when two processes race), the score recorded with the
game's end, boards, and the week closed once with its summaries."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import UTC, datetime

import pytest

from bot.core import lobby, queries, replays
from bot.core.challenge import closing as challenge_closing
from bot.core.challenge import model as challenge
from bot.core.challenge import play as challenge_play
from bot.core.challenge import store as challenge_store
from bot.core.challenge.model import Over, Summary
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, ManagerError, UserRef
from bot.core.progress import ratings
from bot.core.progress import store as progress_store
from engine.views import public_view
from tests.core.conftest import ANN, BOB, CAT, CHANNEL, DAN, GUILD, play_out

OTHER_GUILD = 501


def test_iso_weeks() -> None:
    # 2025-01-01 is a Wednesday of ISO week 2025-W01 (Monday 2024-12-30).
    week, start, end = challenge.week_of(to_ms(datetime(2025, 1, 1, 12, tzinfo=UTC)))
    assert week == "2025-W01"
    assert start == to_ms(datetime(2024, 12, 30, tzinfo=UTC))
    assert end - start == 7 * 86_400_000
    assert challenge.week_of(end)[0] == "2025-W02"
    assert challenge.week_of(end - 1)[0] == "2025-W01"
    assert challenge.previous_week(start) == "2024-W52"
    assert challenge.week_of(to_ms(datetime(2026, 12, 31, tzinfo=UTC)))[0] == "2026-W53"
    assert len(challenge_closing.summary_key("2026-W53", 9999)) <= 25


async def test_everyone_gets_the_same_secret_deal_once(manager: Manager) -> None:
    games = [await challenge_play.start(manager.kernel, u, GUILD, CHANNEL) for u in (ANN, BOB)]
    games.append(await challenge_play.start(manager.kernel, CAT, OTHER_GUILD, CHANNEL + 1))
    states = [g.state for g in games]
    assert all(s is not None for s in states)
    first = states[0]
    assert first is not None
    for g, s in zip(games, states, strict=True):
        assert s is not None and g.challenge_week == "2025-W01" and g.thread_id is None
        assert g.status is GameStatus.DRAFT and len(g.seats) == 1
        # The same boards, cats, goals offered, hands, market and bag (the tile sequence).
        assert s.config == first.config
        assert s.seats == first.seats and s.market == first.market and s.bag == first.bag
        assert s.rng == first.rng and s.seed == first.seed
    row = await challenge_store.challenge(manager.store, "2025-W01")
    assert row is not None and row.seed == first.seed and row.closed_at is None
    # It is a fresh secret (not the manager's test seed source, which starts at 1).
    assert row.seed > 1 << 20
    with pytest.raises(ManagerError) as err:
        await challenge_play.start(manager.kernel, ANN, OTHER_GUILD, CHANNEL)
    assert err.value.code == "challenge_played"
    # No thread: the turns and the end come by DM; nothing names the seed.
    for g in games:
        notices = await manager.store.notices(g.id)
        assert notices and all(n.user_id is not None for n in notices)
        assert all(str(row.seed) not in n.payload for n in notices)


async def test_two_processes_racing_give_one_attempt_and_one_deal(manager: Manager,
                                                                  db_path: str) -> None:
    other = await Manager.open(db_path, clock=manager.kernel.clock, exclusive=False)
    try:
        found = await asyncio.gather(
            challenge_play.start(manager.kernel, ANN, GUILD, CHANNEL),
            challenge_play.start(other.kernel, ANN, GUILD, CHANNEL), return_exceptions=True)
        started = [x for x in found if isinstance(x, GameInfo)]
        refused = [x for x in found if isinstance(x, ManagerError)]
        assert len(started) == 1 and [e.code for e in refused] == ["challenge_played"]
        # Both processes agree on the week's deal.
        g2 = await challenge_play.start(other.kernel, BOB, GUILD, CHANNEL)
        assert g2.state is not None and started[0].state is not None
        assert g2.state.seed == started[0].state.seed
    finally:
        await other.close()


async def test_an_attempt_finished_after_a_restart_still_counts(manager: Manager,
                                                                db_path: str) -> None:
    g = await challenge_play.start(manager.kernel, ANN, GUILD, CHANNEL)
    # Another process (or this one after a restart) knows the game only from the database.
    other = await Manager.open(db_path, clock=manager.kernel.clock, exclusive=False)
    try:
        ann = await play_out(other, g, random.Random(4))
    finally:
        await other.close()
    assert ann.challenge_week == "2025-W01" and ann.status is GameStatus.OVER
    entry = await challenge_store.entry(manager.store, "2025-W01", ANN.id)
    total = public_view(ann.state).seats[0].score["total"]  # type: ignore[arg-type]
    assert entry is not None and entry.game_id == g.id and entry.score == total


async def play_attempt(m: Manager, user: UserRef, guild: int, seed: int) -> GameInfo:
    g = await challenge_play.start(m.kernel, user, guild, CHANNEL)
    return await play_out(m, g, random.Random(seed))


async def test_scores_boards_and_spoilers(manager: Manager) -> None:
    ann = await play_attempt(manager, ANN, GUILD, 1)
    entry = await challenge_store.entry(manager.store, "2025-W01", ANN.id)
    total = public_view(ann.state).seats[0].score["total"]  # type: ignore[arg-type]
    assert entry is not None and entry.score == total and entry.game_id == ann.id
    # The end came by DM, with the score; no thread post at all.
    over = [n for n in await manager.store.notices(ann.id)
            if n.kind == Over.kind]
    assert len(over) == 1 and over[0].user_id == ANN.id and over[0].body.recorded
    assert over[0].body.score == total
    # Bob has not finished: no board for him (no spoilers); Ann sees hers.
    bob_game = await challenge_play.start(manager.kernel, BOB, GUILD, CHANNEL)
    bob = await challenge_play.standing(manager.kernel, BOB.id, GUILD)
    assert bob.entry is not None and bob.server is None and bob.everywhere is None
    mine = await challenge_play.standing(manager.kernel, ANN.id, GUILD)
    assert mine.server is not None and mine.server.mine == 1 and mine.server.entrants == 1
    assert [(x.rank, x.name, x.score) for x in mine.server.lines] == [(1, "Ann", total)]
    # Replays and records of a challenge game wait for the week to close.
    with pytest.raises(ManagerError) as err:
        await replays.replay(manager.kernel, ann.id)
    assert err.value.code == "challenge_not_yet"
    await play_out(manager, bob_game, random.Random(2))
    await play_attempt(manager, CAT, OTHER_GUILD, 3)
    everywhere = (await challenge_play.standing(manager.kernel, CAT.id, OTHER_GUILD)).everywhere
    assert everywhere is not None and everywhere.entrants == 3
    assert [x.score for x in everywhere.lines] == sorted((x.score for x in everywhere.lines),
                                                         reverse=True)
    assert await challenge_store.guilds(manager.store, "2025-W01") == {GUILD: 2, OTHER_GUILD: 1}


async def test_the_week_closes_once_with_one_summary_per_server(manager: Manager,
                                                                clock: FakeClock,
                                                                db_path: str) -> None:
    await play_attempt(manager, ANN, GUILD, 1)
    await play_attempt(manager, BOB, GUILD, 2)
    await play_attempt(manager, CAT, OTHER_GUILD, 3)  # that server chose no channel
    late = await challenge_play.start(manager.kernel,
                                      DAN, GUILD, CHANNEL)  # unfinished at the close
    now = to_ms(clock.now())
    await manager.store.set_guild_settings(GUILD, json.dumps({"challenge_channel_id": 4242}),
                                           now)
    await manager.store.set_guild_settings(OTHER_GUILD, json.dumps({"language": "fr"}), now)
    assert (await manager.sweep()).features.get("challenge", 0) == 0  # the week is still on
    clock.set(datetime(2025, 1, 6, 0, 0, 1, tzinfo=UTC))  # Monday: a new week
    other = await Manager.open(db_path, clock=clock, exclusive=False)
    try:
        reports = await asyncio.gather(manager.sweep(), other.sweep())
    finally:
        await other.close()
    assert sorted(r.features.get("challenge", 0) for r in reports) == [0, 1]
    assert (await manager.sweep()).features.get("challenge", 0) == 0
    row = await challenge_store.challenge(manager.store, "2025-W01")
    assert row is not None and row.closed_at is not None
    summaries = [n for n in await manager.store.notices(0)
                 if n.kind == Summary.kind]
    assert len(summaries) == 1
    s = summaries[0]
    assert s.channel_id == 4242 and s.game_id == 0 and s.user_id is None
    assert s.body.week == "2025-W01" and s.body.entrants == 2
    assert [line[1] for line in s.body.top] == [
        e.user_id for e, _ in await challenge_store.board(manager.store, "2025-W01", GUILD, 10)]
    assert s.body.everywhere == 3
    assert str(row.seed) not in s.payload
    # A game finished after the close is not recorded (the board was posted).
    done = await play_out(manager, late, random.Random(4))
    assert done.status is GameStatus.OVER
    entry = await challenge_store.entry(manager.store, "2025-W01", DAN.id)
    assert entry is not None and entry.score is None
    dm = [n for n in await manager.store.notices(late.id) if n.kind == Over.kind]
    assert dm[0].body.late and not dm[0].body.recorded
    # A new week, a new deal; last week's board is anyone's to see now.
    g = await challenge_play.start(manager.kernel, ANN, GUILD, CHANNEL)
    assert g.challenge_week == "2025-W02" and g.state is not None and g.state.seed != row.seed
    standing = await challenge_play.standing(manager.kernel, DAN.id, GUILD)
    assert standing.last_week == "2025-W01" and standing.last_server is not None
    assert len(standing.last_server.lines) == 2
    # Now the closed week's games may be replayed.
    ann_game = (await challenge_store.entry(manager.store, "2025-W01", ANN.id))
    assert ann_game is not None
    assert len((await replays.replay(manager.kernel, ann_game.game_id)).views) == 23


async def test_stats_read_by_others_leave_out_an_open_week(manager: Manager,
                                                          clock: FakeClock) -> None:
    """Issue #20, players 4: while the week is open, someone else's ``/calico stats`` of Ann
    leaves out her challenge game (games, wins, average, best); her own include it; once the
    week closes, it counts for everyone."""
    plain = await lobby.create_game(manager.kernel,
                                    ANN, GUILD, CHANNEL, options=None, open_thread=True,
                                      start=True)
    plain = await play_out(manager, plain, random.Random(5))
    solo = public_view(plain.state).seats[0].score["total"]  # type: ignore[arg-type]
    attempt = await play_attempt(manager, ANN, GUILD, 1)
    week = public_view(attempt.state).seats[0].score["total"]  # type: ignore[arg-type]
    for scope in (GUILD, None):
        mine = await queries.user_stats(manager.kernel, ANN.id, scope, viewer_id=ANN.id)
        assert (mine.games, mine.best) == (2, max(solo, week))
        assert mine.average == pytest.approx((solo + week) / 2)
        seen = await queries.user_stats(manager.kernel, ANN.id, scope, viewer_id=BOB.id)
        assert (seen.games, seen.best, seen.average) == (1, solo, pytest.approx(solo))
    # Only the challenge game: to others, nothing yet.
    await play_attempt(manager, BOB, GUILD, 2)
    assert (await queries.user_stats(manager.kernel, BOB.id, GUILD, viewer_id=ANN.id)).games == 0
    clock.set(datetime(2025, 1, 6, 0, 0, 1, tzinfo=UTC))  # Monday: the week is over
    assert (await manager.sweep()).features.get("challenge", 0) == 1
    seen = await queries.user_stats(manager.kernel, ANN.id, GUILD, viewer_id=BOB.id)
    assert (seen.games, seen.best) == (2, max(solo, week))
    assert seen.average == pytest.approx((solo + week) / 2)


async def test_public_boards_leave_out_an_open_week(manager: Manager, clock: FakeClock) -> None:
    """Issue #20 (a cousin of players 4): the public ``/calico leaderboard`` (most wins, and
    the rating board's wins and average) leaves out challenge games of a week still open, in
    one server and everywhere; once the week closes they count."""
    from bot.core.progress.model import RatingRow
    from bot.core.progress.store import RatingUpdate
    from bot.core.storage import GameWrite

    plain = await lobby.create_game(manager.kernel,
                                    ANN, GUILD, CHANNEL, options=None, open_thread=True,
                                      start=True)
    plain = await play_out(manager, plain, random.Random(5))
    solo = public_view(plain.state).seats[0].score["total"]  # type: ignore[arg-type]
    attempt = await play_attempt(manager, ANN, GUILD, 1)
    week = public_view(attempt.state).seats[0].score["total"]  # type: ignore[arg-type]
    await play_attempt(manager, BOB, GUILD, 2)  # Bob played only this week's challenge
    for scope in (GUILD, 0):
        board = await queries.leaderboard(manager.kernel, scope)
        assert [(e.user_id, e.games, e.best) for e in board] == [(ANN.id, 1, solo)]
        assert board[0].average == pytest.approx(solo)
    # The rating board's results columns too (a rating row for Ann, as a rated game leaves).
    row = await manager.store.load_game(plain.id)
    assert row is not None
    rating = RatingRow(GUILD, f"u:{ANN.id}", 30, 2, 24, 4, 1)
    await manager.store.commit(GameWrite(plain.id, row.version, 1,
                                         steps=[progress_store.apply_ratings(RatingUpdate(
        [(rating.scope, rating.player)], lambda found: [rating]))]))
    [entry] = await ratings.rating_board(manager.kernel, GUILD)
    assert (entry.games, entry.average) == (1, pytest.approx(solo))
    clock.set(datetime(2025, 1, 6, 0, 0, 1, tzinfo=UTC))  # Monday: the week is over
    assert (await manager.sweep()).features.get("challenge", 0) == 1
    board = await queries.leaderboard(manager.kernel, GUILD)
    ann = next(e for e in board if e.user_id == ANN.id)
    assert (ann.games, ann.best) == (2, max(solo, week))
    assert ann.average == pytest.approx((solo + week) / 2)
    assert BOB.id in [e.user_id for e in board]
    [entry] = await ratings.rating_board(manager.kernel, GUILD)
    assert entry.games == 2
