"""Reviews and hints in the manager and the review service (issue #13), on both backends:
who may take a hint and what taking one marks, who may have which seat reviewed, the worker
pool's bound, stored reviews returned without work, and nothing secret in what is stored."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator

import pytest

from bot.core import leaving, queries, turns
from bot.core.game import FLAG_HINTS, LiveGame, evolve, hints_allowed
from bot.core.manager import Manager
from bot.core.models import GameStatus, ManagerError
from bot.core.review import store as review_store
from bot.core.review.service import Lane, ReviewsBusyError, ReviewService, game_states
from engine.ai.review import Review, decisions_from_states, review
from engine.rules import legal_moves
from engine.views import private_view
from tests.core.conftest import (
    ANN,
    BOB,
    GUILD,
    json_keys,
    new_game,
    play_out,
    snapshot,
    step,
)
from tests.engine.ai.test_fair_play import _hidden_twin


@pytest.fixture
async def service(manager: Manager) -> AsyncIterator[ReviewService]:
    # Few futures and short playouts: these tests are about the plumbing, not the numbers.
    s = ReviewService(manager.kernel, samples=2, depth=2)
    try:
        yield s
    finally:
        s.close()


async def _live(manager: Manager, game_id: int) -> LiveGame:
    row = await manager.store.load_game(game_id)
    assert row is not None
    return LiveGame.from_row(row)


# --------------------------------------------------------------------------- hints


async def test_who_gets_hints(manager: Manager) -> None:
    """Solo games always, shared games only with the lobby option, challenge games never."""
    solo = await _live(manager, (await new_game(manager)).id)
    duo = await _live(manager, (await new_game(manager, people=(BOB,))).id)
    duo_on = await _live(manager, (await new_game(manager, people=(BOB,), hints=True)).id)
    vs_cpu = await _live(manager, (await new_game(manager, computers=1)).id)
    assert hints_allowed(solo) and hints_allowed(duo_on)
    assert not hints_allowed(duo) and not hints_allowed(vs_cpu)
    assert not hints_allowed(evolve(solo, {"challenge_week": "2025-W48"}))
    assert not hints_allowed(evolve(duo_on, {"challenge_week": "2025-W48"}))
    assert (await queries.game(manager.kernel, solo.id)).hints_allowed
    assert not (await queries.game(manager.kernel, duo.id)).hints_allowed


async def test_take_hint_marks_the_game_once(manager: Manager) -> None:
    g = await new_game(manager, setup="beginner")
    assert g.status is GameStatus.PLAY and not g.hints_used
    grant = await turns.take_hint(manager.kernel, g.id, ANN.id, g.ply)
    assert grant.first and grant.game.hints_used and grant.seat == 0 and grant.seed == g.id
    assert grant.view.seat == 0 and grant.view.public.ply == g.ply  # the private view only
    row = await manager.store.load_game(g.id)
    assert row is not None and row.flags & FLAG_HINTS and row.version == g.version + 1
    again = await turns.take_hint(manager.kernel, g.id, ANN.id, g.ply)
    assert not again.first
    row2 = await manager.store.load_game(g.id)
    assert row2 is not None and row2.version == row.version  # nothing written the second time
    assert (await queries.game(manager.kernel, g.id, fresh=True)).hints_used


async def test_hint_refusals_change_nothing(manager: Manager) -> None:
    duo = await new_game(manager, people=(BOB,), setup="beginner")
    who = duo.current_user_id
    assert who is not None
    other = BOB.id if who == ANN.id else ANN.id
    before = await snapshot(manager, duo.id)
    for user, ply, code in ((who, duo.ply, "hints_off"), (other, duo.ply, "not_your_turn"),
                            (4242, duo.ply, "not_a_player")):
        with pytest.raises(ManagerError) as e:
            await turns.take_hint(manager.kernel, duo.id, user, ply)
        assert e.value.code == code
    assert await snapshot(manager, duo.id) == before

    on = await new_game(manager, people=(BOB,), setup="beginner", hints=True)
    who = on.current_user_id
    assert who is not None
    with pytest.raises(ManagerError) as e:
        await turns.take_hint(manager.kernel, on.id, who, on.ply + 1)
    assert e.value.code == "stale"
    assert (await turns.take_hint(manager.kernel, on.id, who, on.ply)).first

    drafting = await new_game(manager)  # standard setup: the goal draft first
    assert drafting.status is GameStatus.DRAFT
    with pytest.raises(ManagerError) as e:
        await turns.take_hint(manager.kernel, drafting.id, ANN.id, drafting.ply)
    assert e.value.code == "not_your_turn"


async def test_a_game_with_hints_counts_for_nothing(manager: Manager) -> None:
    """Every seat of a game in which someone took a hint is left out of the totals and the
    leaderboard: the totals are what they were before it."""
    plain = await play_out(manager, await new_game(manager, people=(BOB,), setup="beginner"),
                           random.Random(3))
    assert plain.status is GameStatus.OVER
    ann, bob = await queries.user_stats(manager.kernel,
                                        ANN.id, GUILD), await queries.user_stats(manager.kernel,
                                                                                 BOB.id, GUILD)
    board = await queries.leaderboard(manager.kernel, GUILD)
    g = await new_game(manager, people=(BOB,), setup="beginner", hints=True)
    who = g.current_user_id
    assert who is not None
    await turns.take_hint(manager.kernel, g.id, who, g.ply)
    g = await play_out(manager, await queries.game(manager.kernel, g.id), random.Random(4))
    assert g.status is GameStatus.OVER and g.hints_used
    assert all(not r.counted for r in await manager.store.results(g.id))
    assert await queries.user_stats(manager.kernel, ANN.id, GUILD) == ann
    assert await queries.user_stats(manager.kernel, BOB.id, GUILD) == bob
    assert await queries.leaderboard(manager.kernel, GUILD) == board


# --------------------------------------------------------------------------- reviews


async def test_review_refusals(manager: Manager, service: ReviewService) -> None:
    playing = await new_game(manager, setup="beginner")
    with pytest.raises(ManagerError) as e:
        await service.review(playing.id, ANN.id)
    assert e.value.code == "review_in_play"
    done = await play_out(manager, await new_game(manager, people=(BOB,), setup="beginner"),
                          random.Random(5))
    with pytest.raises(ManagerError) as e:
        await service.review(done.id, 4242)
    assert e.value.code == "not_a_player"
    left = await new_game(manager, people=(BOB,), setup="beginner")
    await leaving.leave_game(manager.kernel, left.id, BOB.id)
    left_done = await play_out(manager, await queries.game(manager.kernel,
                                                           left.id), random.Random(6))
    assert left_done.status is GameStatus.OVER
    with pytest.raises(ManagerError) as e:
        await service.review(left.id, BOB.id)
    assert e.value.code == "review_left"
    gone = await new_game(manager, setup="beginner")
    await leaving.abandon(manager.kernel, gone.id, ANN.id)
    with pytest.raises(ManagerError) as e:
        await service.review(gone.id, ANN.id)
    assert e.value.code == "review_unfinished"
    assert service.lane.stats.jobs == 0  # nothing was computed for a refusal


async def test_review_is_computed_once_then_stored(manager: Manager,
                                                   service: ReviewService) -> None:
    secret = 7_318_502_244_618_391_117  # a game seed as the bot draws them (63 random bits)
    manager.kernel.seed_source = lambda: secret  # the fixture's seeds are 1, 2, ...
    g = await play_out(manager, await new_game(manager, people=(BOB,)), random.Random(7))
    assert g.status is GameStatus.OVER and g.state is not None
    first, twin = await asyncio.gather(service.review(g.id, BOB.id), service.review(g.id, BOB.id))
    assert service.lane.stats.jobs == 1  # two requests at once share one computation
    assert first.computed and first.review == twin.review
    bob_seat = g.seat_of(BOB.id)
    assert first.seat == bob_seat and first.review.seat == bob_seat
    assert len(first.review.turns) == 22 and first.review.draft is not None
    assert first.review.samples == 2 and first.review.seed == g.id != g.state.seed
    final = next(r.total for r in await manager.store.results(g.id) if r.seat == bob_seat)
    assert first.review.final_score == final

    row = await review_store.review(manager.store, g.id, first.seat)
    assert row is not None and row.user_id == BOB.id and row.accuracy == first.review.accuracy
    # Nothing secret in what is stored: not the game's seed, not the bag, not a hand.
    data = json.loads(row.data)
    assert Review.from_json(data) == first.review
    text = row.data
    assert str(g.state.seed) not in text
    assert not {"bag", "hand", "hands", "state"} & json_keys(data)

    async def no_work(*args: object) -> object:
        raise AssertionError("a stored review is not computed again")

    service.lane.run = no_work  # type: ignore[method-assign,assignment]
    started = time.perf_counter()
    again = await service.review(g.id, BOB.id)
    assert not again.computed and again.review == first.review
    assert time.perf_counter() - started < 1.0
    count, mean = await service.accuracy(BOB.id)
    assert count == 1 and mean == pytest.approx(first.review.accuracy)
    assert await service.accuracy(ANN.id) == (0, None)


async def test_the_review_reads_nothing_the_seat_could_not_see(manager: Manager,
                                                              service: ReviewService) -> None:
    """Fair play through the bot's path: the stored review of a seat is the review of a game
    alike in everything that seat saw but with another unseen bag (its order and contents)
    and other hidden hands at every decision."""
    g = await play_out(manager, await new_game(manager, people=(BOB,)), random.Random(12))
    assert g.status is GameStatus.OVER
    seat = g.seat_of(ANN.id)
    assert seat is not None
    stored = (await service.review(g.id, ANN.id)).review
    states, moves = game_states(await service.record(g.id))
    twins = [_hidden_twin(s, seat) for s in states]
    assert all(t.bag != s.bag and t.rng != s.rng for s, t in zip(states, twins, strict=True))
    assert all(private_view(t, seat) == private_view(s, seat)
               for s, t in zip(states, twins, strict=True))
    twin = review(decisions_from_states(twins, moves, seat), samples=service.samples,
                  depth=service.depth, seed=g.id)
    assert twin == stored
    assert len(stored.turns) == 22 and stored.draft is not None


async def test_a_busy_hint_marks_nothing(manager: Manager, service: ReviewService) -> None:
    """When every worker is busy the hint is refused before the game is marked."""
    g = await new_game(manager, setup="beginner")
    service._hint_room = lambda: False  # type: ignore[method-assign]
    before = await snapshot(manager, g.id)
    with pytest.raises(ReviewsBusyError):
        await service.hints(g.id, ANN.id, g.ply)
    assert await snapshot(manager, g.id) == before
    assert not (await queries.game(manager.kernel, g.id, fresh=True)).hints_used




async def test_the_queue_is_bounded() -> None:
    """Past the workers and the waiting room, a job is refused at once (not queued)."""
    lane = Lane(workers=1, max_waiting=1)
    try:
        first = asyncio.ensure_future(lane.run(time.sleep, 1.0))
        second = asyncio.ensure_future(lane.run(time.sleep, 0.0))
        await asyncio.sleep(0)
        assert lane.in_flight == 2 and not lane.has_room()
        started = time.perf_counter()
        with pytest.raises(ReviewsBusyError) as e:
            await lane.run(time.sleep, 0.0)
        assert time.perf_counter() - started < 0.1
        assert e.value.code == "reviews_busy" and lane.stats.busy == 1
        await asyncio.gather(first, second)
        assert lane.in_flight == 0 and lane.has_room()
    finally:
        lane.close()


async def test_hints_through_the_service(manager: Manager, service: ReviewService) -> None:
    g = await new_game(manager, setup="beginner")
    for _ in range(3):
        g = await step(manager, g, ANN.id, random.Random(8))
    got = await service.hints(g.id, ANN.id, g.ply)
    assert got.first and got.game.hints_used and len(got.hints) == 3
    assert got.hints[0].engine and not any(h.engine for h in got.hints[1:])
    assert len({(h.cell, h.tile) for h in got.hints}) == 3
    assert g.state is not None
    legal = {m.text() for m in legal_moves(g.state, 0)}
    assert all(h.move in legal for h in got.hints)
    again = await service.hints(g.id, ANN.id, g.ply)
    assert not again.first and again.hints == got.hints  # kept: not worked out twice
    assert len(service.hint_seconds) == 1



async def test_hinted_games_are_left_out_of_the_average_accuracy(
        manager: Manager, service: ReviewService) -> None:
    plain = await play_out(manager, await new_game(manager, people=(BOB,), setup="beginner"),
                           random.Random(3))
    g = await new_game(manager, people=(BOB,), setup="beginner", hints=True)
    who = g.current_user_id
    assert who is not None
    await turns.take_hint(manager.kernel, g.id, who, g.ply)
    hinted = await play_out(manager, await queries.game(manager.kernel, g.id), random.Random(4))
    assert plain.status is hinted.status is GameStatus.OVER and hinted.hints_used
    mine = await service.review(plain.id, BOB.id)
    helped = await service.review(hinted.id, BOB.id)
    assert helped.computed  # the hinted game is reviewed all the same, on request
    count, mean = await service.accuracy(BOB.id)
    assert count == 1 and mean == pytest.approx(mine.review.accuracy)
    assert await review_store.review(manager.store, hinted.id, helped.seat) is not None
