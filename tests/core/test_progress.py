"""Reasons to come back, in the manager (both backends): achievements and ratings stored with
the game's result (once), the rules about who earns and who is rated, multi-player scenarios,
rematches, replays and records."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from bot.core import leaving, lobby, queries, replays, turns
from bot.core.challenge import store as challenge_store
from bot.core.clock import FakeClock
from bot.core.game import FLAG_HINTS, LiveGame
from bot.core.manager import Manager
from bot.core.models import ErrorCode, GameInfo, GameStatus, LobbyOptions, ManagerError, UserRef
from bot.core.notices import NoticeKind
from bot.core.progress import achievements, ratings
from bot.core.progress import model as progress
from bot.core.progress import store as progress_store
from bot.core.progress.model import AchievementRow, RatingRow
from bot.core.progress.store import RatingUpdate
from bot.core.storage import GameWrite, ResultRow, SeatRow, StaleWriteError
from data import load_catalog
from engine.achievements import FinishedGame, evaluate
from engine.ai import make_player
from engine.config import Restriction
from engine.quilt_record import score_record
from engine.rules import legal_moves
from engine.views import private_view
from tests.core.conftest import ANN, BOB, CAT, GUILD, new_game, play_out, seeds, settled

CATALOG = load_catalog()
CHART = CATALOG.achievements


async def play_ai(m: Manager, g: GameInfo, level: str = "normal") -> GameInfo:
    """Play every person's moves with an engine computer player (seeded by the ply, as
    the seeds below were found) until the game ends."""
    for _ in range(500):
        g = await settled(m, g)  # the computers that think are queued: their moves first
        if not g.status.active:
            return g
        g = await play_ai_once(m, g, level)
    raise AssertionError("game did not end")


async def play_ai_once(m: Manager, g: GameInfo, level: str = "normal") -> GameInfo:
    """One person's move (a draft choice or a turn) by an engine computer player."""
    assert g.state is not None
    if g.status is GameStatus.DRAFT:
        uid = g.drafting_user_ids[0]
    else:
        uid = g.current_user_id  # type: ignore[assignment]
    seat = g.seat_of(uid)
    assert seat is not None
    move = make_player(level, g.ply).choose(private_view(g.state, seat),
                                            legal_moves(g.state, seat))
    if g.status is GameStatus.DRAFT:
        return (await turns.choose_goals(m.kernel, g.id, uid, g.ply, list(move.goals))).game  # type: ignore[attr-defined]
    return (await turns.play_turn(m.kernel, g.id, uid, g.ply, move.text())).game


def over_payload(notices: list[Any]) -> dict[str, Any]:
    over = [n for n in notices if n.kind == NoticeKind.GAME_OVER]
    assert len(over) == 1
    return dict(json.loads(over[0].payload))


async def held(m: Manager, user: UserRef) -> list[tuple[str, int]]:
    return [(a.achievement, a.game_id) for a in await progress_store.achievements(m.store, user.id)]


# --------------------------------------------------------------------------- achievements


async def test_the_winner_earns_the_rarest_normal_row_once(manager: Manager) -> None:
    """A two-person normal game (seed 1: 67 to 56): the winner earns one row, the rarest the
    win fits, stored with the result; the score sheet says so; the loser earns nothing."""
    g = await new_game(manager, people=(BOB,))
    g = await play_ai(manager, g)
    assert g.status is GameStatus.OVER and g.state is not None
    finished = FinishedGame.from_state(g.state)
    winner = finished.winners[0]
    expected = evaluate(CHART, finished, winner)
    assert expected.choices[:2] == ("normal-65", "normal-60")
    win_user = g.seats[winner].user_id
    lose_user = g.seats[1 - winner].user_id
    got = await progress_store.achievements(manager.store, win_user)  # type: ignore[arg-type]
    assert [(a.achievement, a.game_id, a.guild_id) for a in got] == [("normal-65", g.id, GUILD)]
    assert await progress_store.achievements(manager.store, lose_user) == []  # type: ignore[arg-type]
    info = over_payload(await manager.store.notices(g.id))["progress"]
    mine = next(e for e in info["earned"] if e["user_id"] == win_user)
    assert mine["ids"] == ["normal-65"] and mine["choices"] == ["normal-65", "normal-60"]
    assert mine["points"] == 1 and mine["title"] is None
    other = next(e for e in info["earned"] if e["user_id"] == lose_user)
    assert other["ids"] == [] and other["reason"] == "not_winner"
    assert info["rated"] is True
    # The same deal again: 65+ is held, so the next rarest row it fits (60+) is filled.
    manager.kernel.seed_source = seeds(1)
    g2 = await play_ai(manager, await new_game(manager, people=(BOB,)))
    assert g2.seats[winner].user_id == win_user
    assert await held(manager, UserRef(win_user, "")) == [  # type: ignore[arg-type]
        ("normal-60", g2.id), ("normal-65", g.id)]
    # And a third time: nothing new to fill.
    manager.kernel.seed_source = seeds(1)
    g3 = await play_ai(manager, await new_game(manager, people=(BOB,)))
    info3 = over_payload(await manager.store.notices(g3.id))["progress"]
    assert next(e for e in info3["earned"] if e["user_id"] == win_user)["reason"] == \
        "already_earned"
    assert len(await progress_store.achievements(manager.store, win_user)) == 2  # type: ignore[arg-type]


async def test_a_scenario_with_two_players_counts_for_everyone_who_passes(
        manager: Manager) -> None:
    """Scenarios are playable by several people; every one who passes earns it, whoever wins.
    Two deals: in the first only Bob passes, in the second only Ann (as played by the normal
    player, seeded by the ply)."""
    earned: dict[int, list[int]] = {ANN.id: [], BOB.id: []}
    for seed in (1, 3):
        manager.kernel.seed_source = seeds(seed)
        g = await new_game(manager, people=(BOB,), scenario=1)
        assert g.options.scenario == 1 and len(g.seats) == 2
        g = await play_ai(manager, g)
        assert g.status is GameStatus.OVER and g.state is not None
        passed = FinishedGame.from_state(g.state).scenario_passed
        assert sorted(passed) == [False, True]  # one passes, one does not
        for seat in g.seats:
            if passed[seat.seat]:
                earned[seat.user_id or 0].append(g.id)
    assert all(len(ids) == 1 for ids in earned.values())  # each passed once
    assert await held(manager, ANN) == [("scenario-1", earned[ANN.id][0])]
    assert await held(manager, BOB) == [("scenario-1", earned[BOB.id][0])]


async def test_a_restriction_is_earned_by_the_winner_of_a_multiplayer_game(
        manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), restriction=Restriction.NO_HAND)
    g = await play_out(manager, g, random.Random(3))
    assert g.state is not None
    winners = FinishedGame.from_state(g.state).winners
    for seat in g.seats:
        expect = [("restriction-no-hand", g.id)] if seat.seat in winners else []
        assert await held(manager, UserRef(seat.user_id or 0, "")) == expect


async def test_computer_opponents_count_from_the_normal_level(manager: Manager) -> None:
    """A win against an easy computer alone is no multi-player game (nothing to earn); a
    game against a normal one is."""
    for level, reasons in (("easy", {"solo"}), ("normal", {"earned", "not_winner"})):
        g = await lobby.create_game(manager.kernel, ANN, GUILD, 1, LobbyOptions(
            players=2, restriction=Restriction.ADJACENT), computers=[level])
        g = await lobby.start(manager.kernel, g.id, ANN.id)
        g = await play_ai(manager, g, "normal")
        assert g.state is not None
        info = over_payload(await manager.store.notices(g.id))["progress"]
        assert next(e["reason"] for e in info["earned"]) in reasons
        won = 0 in FinishedGame.from_state(g.state).winners
        rows = [a for a, gid in await held(manager, ANN) if gid == g.id]
        assert rows == (["restriction-adjacent"] if level == "normal" and won else [])


async def test_a_seat_a_computer_finished_earns_nothing_the_others_still_may(
        manager: Manager) -> None:
    """Only the seat that left loses its achievements: the winner among the others earns
    the restriction's row as if nobody had left."""
    g = await new_game(manager, people=(BOB, CAT), restriction=Restriction.NO_HAND)
    g = await leaving.leave_game(manager.kernel, g.id, CAT.id)
    g = await play_out(manager, g, random.Random(6))
    assert g.status is GameStatus.OVER and g.state is not None
    winners = FinishedGame.from_state(g.state).winners
    left = next(s.seat for s in g.seats if s.user_id == CAT.id)
    assert left not in winners  # (this deal: a person wins, so the check below can fail)
    for s in g.seats:
        expect = [("restriction-no-hand", g.id)] if s.seat in winners and s.seat != left else []
        assert await held(manager, UserRef(s.user_id or 0, "")) == expect
    assert await held(manager, CAT) == []
    info = over_payload(await manager.store.notices(g.id))["progress"]
    reasons = {e["seat"]: e["reason"] for e in info["earned"]}
    assert left not in reasons  # the seat is a computer's now: not evaluated at all
    assert sorted(reasons.values()) == ["earned", "not_winner"]
    # Ratings: the one who left finished last (a forfeit); the computer seat is not rated.
    cat = await progress_store.rating(manager.store, GUILD, progress.person_key(CAT.id))
    assert cat is not None and cat.games == 1 and cat.mu < 25
    assert await progress_store.rating(manager.store, GUILD, "ai:random") is None


async def test_an_autopilot_move_voids_only_that_seat(manager: Manager,
                                                      clock: FakeClock) -> None:
    """One seat's autopilot move (its deadline passed): that seat earns nothing; the other
    person, who played every move, is evaluated as usual (not voided)."""
    g = await new_game(manager, people=(BOB,), turn_hours=1, timeout_action="autopilot")
    while g.status is not GameStatus.PLAY:
        g = await play_ai_once(manager, g)
    late = g.current_seat
    assert late is not None
    clock.advance(hours=2)
    await manager.sweep()  # that seat's turn ran out: the autopilot plays it
    g = await play_out(manager, await queries.game(manager.kernel, g.id), random.Random(1))
    assert g.status is GameStatus.OVER
    moves = await manager.store.moves(g.id)
    assert {m.seat for m in moves if m.played_by == "autopilot"} == {late}
    info = over_payload(await manager.store.notices(g.id))["progress"]
    reasons = {e["seat"]: e["reason"] for e in info["earned"]}
    assert reasons[late] == "computer_played"
    assert reasons[1 - late] in ("earned", "not_winner")


async def test_an_autopilot_move_earns_nothing(manager: Manager, clock: FakeClock) -> None:
    g = await new_game(manager, people=(BOB,), restriction=Restriction.NO_HAND,
                       timeout_action="autopilot", turn_hours=1)
    rng = random.Random(6)
    clock.advance(hours=2)
    await manager.sweep()  # the draft ran out: the computer chose both players' goals
    g = await queries.game(manager.kernel, g.id)
    assert g.status is GameStatus.PLAY
    g = await play_out(manager, g, rng)
    assert {m.played_by for m in await manager.store.moves(g.id)} >= {"autopilot"}
    assert await held(manager, ANN) == [] and await held(manager, BOB) == []


async def test_a_hint_voids_only_the_seat_that_took_it(manager: Manager) -> None:
    """A person takes a hint: their seat earns nothing (and says why); the other seat is
    evaluated as usual; the game is not rated."""
    g = await new_game(manager, people=(BOB,), hints=True)
    seat = None
    while seat is None or g.current_seat != seat:
        g = await play_ai_once(manager, g)
        if g.status is GameStatus.PLAY and seat is None:
            seat = g.current_seat
    assert seat is not None and g.state is not None
    user = g.seats[seat].user_id
    assert user is not None
    grant = await turns.take_hint(manager.kernel, g.id, user, g.ply)
    assert grant.first and grant.game.hinted == (seat,)
    g = await play_out(manager, grant.game, random.Random(1))
    assert g.state is not None and g.hinted == (seat,) and g.hints_used
    info = over_payload(await manager.store.notices(g.id))["progress"]
    reasons = {e["seat"]: e["reason"] for e in info["earned"]}
    assert reasons[seat] == "hints_used"
    assert reasons[1 - seat] in ("earned", "not_winner")
    assert info["rated"] is False


async def test_a_game_marked_before_seats_were_recorded_voids_everyone(
        manager: Manager) -> None:
    """An old flag (no seat bits: who took the hint is unknown) still voids every seat."""
    g = await new_game(manager, people=(BOB,), restriction=Restriction.NO_HAND)

    async def flag(live: LiveGame) -> None:
        tx = await manager.kernel.begin(live)
        tx.set(flags=live.flags | FLAG_HINTS)
        await manager.kernel.commit(tx)

    await manager.kernel.mutate(g.id, flag)
    g = await play_out(manager, await queries.game(manager.kernel, g.id), random.Random(7))
    assert g.status is GameStatus.OVER and g.hints_used
    assert await held(manager, ANN) == [] and await held(manager, BOB) == []
    assert await progress_store.rating(manager.store, GUILD, progress.person_key(ANN.id)) is None
    info = over_payload(await manager.store.notices(g.id))["progress"]
    assert info["rated"] is False


# --------------------------------------------------------------------------- ratings


async def test_ratings_move_the_right_way_in_both_scopes(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), computers=1)
    g = await play_out(manager, g, random.Random(8))
    results = {r.seat: r for r in await manager.store.results(g.id)}
    keys = {0: progress.person_key(ANN.id), 1: progress.person_key(BOB.id), 2: "ai:random"}
    for scope in (GUILD, 0):
        rows = {seat: await progress_store.rating(manager.store, scope, key)
                for seat, key in keys.items()}
        assert all(r is not None and r.games == 1 for r in rows.values())
        best = min(results.values(), key=lambda r: r.place)
        worst = max(results.values(), key=lambda r: r.place)
        assert rows[best.seat].mu > 25 > rows[worst.seat].mu  # type: ignore[union-attr]
        for r in rows.values():
            assert r is not None and r.sigma < 25 / 3
            assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)
    # A solo game is not rated.
    solo = await play_out(manager, await new_game(manager), random.Random(9))
    assert solo.status is GameStatus.OVER
    ann = await progress_store.rating(manager.store, 0, keys[0])
    assert ann is not None and ann.games == 1


def test_ties_share_a_place() -> None:
    before: dict[str, RatingRow | None] = {"u:1": None, "u:2": None, "u:3": None}
    rows = {r.player: r for r in ratings.rate([("u:1", 1), ("u:2", 1), ("u:3", 3)], before,
                                               0, 0)}
    assert rows["u:1"].mu == pytest.approx(rows["u:2"].mu)
    assert rows["u:1"].mu > 25 > rows["u:3"].mu
    # One computer level at two seats is one rated player: one game, the mean of its seats.
    two = ratings.rate([("u:1", 1), ("ai:easy", 2), ("ai:easy", 3)],
                        {"u:1": None, "ai:easy": None}, 0, 0)
    assert sorted(r.player for r in two) == ["ai:easy", "u:1"]
    assert all(r.games == 1 for r in two)


async def test_concurrent_results_never_lose_a_rating_update(manager: Manager,
                                                             db_path: str) -> None:
    """Two games rating the same new player commit at once (two stores, as two processes):
    both updates land."""
    other = await Manager.open(db_path, clock=manager.kernel.clock, exclusive=False)
    try:
        games = []
        for m in (manager, other):
            g = await new_game(m, people=(BOB,), start=False)
            games.append((m, g))
        key = (0, "u:42")

        def update(now: int) -> RatingUpdate:
            def rate(found: dict[Any, RatingRow | None]) -> list[RatingRow]:
                old = found[key]
                games_before = 0 if old is None else old.games
                return [RatingRow(0, "u:42", 25.0, 8.0, 1.0, games_before + 1, now)]
            return RatingUpdate([key], rate)

        writes = []
        for m, g in games:
            row = await m.store.load_game(g.id)
            assert row is not None
            writes.append(m.store.commit(GameWrite(g.id, row.version, 1,
                                                   steps=[progress_store.apply_ratings(update(1))])))
        await asyncio.gather(*writes)
        got = await progress_store.rating(manager.store, 0, "u:42")
        assert got is not None and got.games == 2
    finally:
        await other.close()


async def test_a_refused_write_keeps_neither_result_nor_progress(manager: Manager) -> None:
    """Achievements, ratings and the challenge score go with the result, or not at all."""
    g = await new_game(manager, people=(BOB,), start=False)
    row = await manager.store.load_game(g.id)
    assert row is not None
    result = ResultRow(g.id, 0, ANN.id, GUILD, 60, 1, True, True, "{}", 1)
    write = GameWrite(
        g.id, row.version + 5, 1, results=[result],
        steps=[progress_store.add_achievements([
                   AchievementRow(ANN.id, "normal-60", g.id, GUILD, 1)]),
               progress_store.apply_ratings(RatingUpdate(
                   [(0, "u:1")], lambda found: [RatingRow(0, "u:1", 30, 5, 15, 1, 1)])),
               challenge_store.score("2025-W01", ANN.id, 60, 1)])
    with pytest.raises(StaleWriteError):
        await manager.store.commit(write)
    assert await manager.store.results(g.id) == []
    assert await progress_store.achievements(manager.store, ANN.id) == []
    assert await progress_store.rating(manager.store, 0, "u:1") is None
    write.expect_version = row.version
    await manager.store.commit(write)
    await manager.store.commit(GameWrite(g.id, row.version + 1, 2, steps=[
        progress_store.add_achievements([AchievementRow(ANN.id, "normal-60", 999, GUILD, 2)])]))
    held_now = await progress_store.achievements(manager.store, ANN.id)
    assert [(a.achievement, a.game_id) for a in held_now] == [
        ("normal-60", g.id)]  # kept once: the first game that earned it


async def test_rating_ranks_and_board(manager: Manager) -> None:
    store = manager.store
    g = await new_game(manager, people=(BOB,), start=False)
    row = await store.load_game(g.id)
    assert row is not None
    rows = [RatingRow(GUILD, f"u:{ANN.id}", 30, 2, 24, 5, 1),
            RatingRow(GUILD, f"u:{BOB.id}", 28, 2, 22, 5, 1),
            RatingRow(GUILD, "ai:strong", 35, 1, 32, 9, 1),
            RatingRow(GUILD, f"u:{CAT.id}", 40, 1, 37, 2, 1)]  # too few games to rank
    await store.commit(GameWrite(g.id, row.version, 1,
                                 steps=[progress_store.apply_ratings(RatingUpdate(
        [(r.scope, r.player) for r in rows], lambda found: rows))]))
    assert await progress_store.rating_rank(store, GUILD, f"u:{ANN.id}", 3) == (2, 3)
    assert await progress_store.rating_rank(store, GUILD, "ai:strong", 3) == (1, 3)
    assert await progress_store.rating_rank(store, GUILD, f"u:{CAT.id}", 3) == (None, 3)
    assert await progress_store.rating_rank(store, GUILD + 1, f"u:{ANN.id}", 3) == (None, 0)
    board = await ratings.rating_board(manager.kernel, GUILD)
    assert [(e.rank, e.player, e.name) for e in board] == [
        (1, "ai:strong", ""), (2, f"u:{ANN.id}", "Ann"), (3, f"u:{BOB.id}", "Bob")]
    standing = await ratings.rating_of(manager.kernel, f"u:{CAT.id}", GUILD)
    assert standing.rank is None and standing.ranked == 3 and standing.row is not None


# --------------------------------------------------------------------------- rematch


async def test_rematch_opens_one_new_lobby_with_the_same_table(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), computers=1, restriction=Restriction.NO_HAND,
                       turn_hours=6, cats=("leo", "callie", "cira"))
    assert g.state is not None and [c.id for c in g.state.config.cats] == ["leo", "callie", "cira"]
    with pytest.raises(ManagerError) as err:
        await lobby.rematch(manager.kernel, g.id, BOB)
    assert err.value.code == ErrorCode.NOT_ALLOWED  # not finished yet
    g = await play_out(manager, g, random.Random(10))
    table, created = await lobby.rematch(manager.kernel, g.id, BOB)
    assert created and table.status is GameStatus.LOBBY and table.rematch_of == g.id
    assert table.host_id == BOB.id and table.options == g.options
    assert table.options.cats == ("leo", "callie", "cira")  # the host's cats kept
    assert [(s.user_id, s.ai_level) for s in table.seats] == [(BOB.id, None), (None, "random")]
    kinds = [n.kind for n in await manager.store.notices(table.id)]
    assert kinds == [NoticeKind.OPEN_THREAD, NoticeKind.LOBBY]
    again, created = await lobby.rematch(manager.kernel, g.id, ANN)
    assert not created and again.id == table.id  # one table for both clicks
    with pytest.raises(ManagerError) as err:
        await lobby.rematch(manager.kernel, g.id, CAT)
    assert err.value.code == ErrorCode.NOT_A_PLAYER
    await lobby.cancel(manager.kernel, table.id, BOB.id)
    third, created = await lobby.rematch(manager.kernel, g.id, ANN)
    assert created and third.id != table.id and third.host_id == ANN.id
    assert await manager.store.rematches(g.id) == [table.id, third.id]


# --------------------------------------------------------------------------- replays


async def test_replay_views_and_record_hold_no_secret(manager: Manager) -> None:
    manager.kernel.seed_source = lambda: 8_675_309_123_457  # a seed that reads as one
    g = await new_game(manager, people=(BOB,))
    with pytest.raises(ManagerError) as err:
        await replays.replay(manager.kernel, g.id)
    assert err.value.code == "not_finished"
    g = await play_out(manager, g, random.Random(11))
    assert g.state is not None
    rp = await replays.replay(manager.kernel, g.id)
    assert len(rp.views) == 1 + 22 * 2 and rp.views[-1].phase.value == "over"
    rec = await replays.record(manager.kernel, g.id, BOB.id)
    text = json.dumps(rec)
    assert str(g.state.seed) not in text and "seed" not in text and "bag" not in text
    assert len(rec["moves"]) == g.ply
    for seat, quilt in enumerate(rec["quilts"]):
        assert score_record(CATALOG, quilt) == rec["players"][seat]["score"]
    with pytest.raises(ManagerError) as err:
        await replays.record(manager.kernel, g.id, CAT.id)
    assert err.value.code == ErrorCode.NOT_A_PLAYER


def test_seat_rules() -> None:
    person = SeatRow(0, 1, "A")
    left = SeatRow(1, 2, "B", "normal", left=True)
    easy = SeatRow(2, None, "C", "easy")
    strong = SeatRow(3, None, "D", "strong")
    assert not achievements.multiplayer([person, easy])
    assert achievements.multiplayer([person, strong])
    assert achievements.multiplayer([person, SeatRow(1, 2, "B")])
    assert achievements.computer_seats([person, left], []) == {1}
    assert achievements.computer_seats([person, SeatRow(1, 2, "B")], [0, 0]) == {0}
    assert achievements.computer_seats([person, easy], []) == set()
    assert ratings.rated_players([person, left, easy], [2, 1, 3]) == [
        ("u:1", 2), ("u:2", 4), ("ai:easy", 3)]


async def test_the_winner_may_fill_another_row_the_win_fits(manager: Manager) -> None:
    g = await play_ai(manager, await new_game(manager, people=(BOB,)))
    assert g.state is not None
    winner = FinishedGame.from_state(g.state).winners[0]
    win = g.seats[winner].user_id
    lose = g.seats[1 - winner].user_id
    assert win is not None and lose is not None
    assert await achievements.pick(manager.kernel,
                                   g.id, win, "normal-65") is None  # already that one
    assert await achievements.pick(manager.kernel, g.id, win, "normal-60") == "normal-65"
    assert await held(manager, UserRef(win, "")) == [("normal-60", g.id)]
    for user, row, code in ((win, "normal-85", "stale"), (lose, "normal-60", "stale"),
                            (CAT.id, "normal-60", "not_a_player")):
        with pytest.raises(ManagerError) as err:
            await achievements.pick(manager.kernel, g.id, user, row)
        assert err.value.code == code
    assert await achievements.pick(manager.kernel, g.id, win, "normal-65") == "normal-60"
    # A row held from another game cannot be swapped in (the store refuses it atomically).
    other = await new_game(manager, people=(BOB,), start=False)
    row = await manager.store.load_game(other.id)
    assert row is not None
    await manager.store.commit(GameWrite(other.id, row.version, 1,
                                         steps=[progress_store.add_achievements([
        AchievementRow(win, "normal-70", other.id, GUILD, 1)])]))
    assert not await progress_store.swap_achievement(manager.store, win, g.id, "normal-65",
                                                     "normal-70", 2)
    assert sorted(await held(manager, UserRef(win, ""))) == [
        ("normal-65", g.id), ("normal-70", other.id)]
    # Asking for it says what really happened: the row is theirs already, from that game.
    with pytest.raises(ManagerError) as err:
        await achievements.pick(manager.kernel, g.id, win, "normal-70")
    assert err.value.code == ErrorCode.ALREADY_HELD == "already_held"
