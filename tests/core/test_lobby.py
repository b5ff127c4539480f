"""The lobby: joining, leaving, computer seats, the "pet a cat" race, starting and cancelling,
and every refusal (with its error code, changing nothing)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from bot.core import leaving, lobby, queries, turns
from bot.core.manager import Manager
from bot.core.models import GameStatus, LobbyOptions, ManagerError, UserRef
from bot.core.notices import NoticeKind
from engine.config import STORED, Setup
from tests.core.conftest import ANN, BOB, CAT, CHANNEL, DAN, GUILD, new_game, opts, snapshot


async def refused(m: Manager, game_id: int, code: str, call) -> None:  # type: ignore[no-untyped-def]
    before = await snapshot(m, game_id)
    with pytest.raises(ManagerError) as err:
        await call
    assert err.value.code == code
    assert await snapshot(m, game_id) == before


async def test_create_join_and_start(manager: Manager) -> None:
    g = await lobby.create_game(manager.kernel, ANN, GUILD, CHANNEL, opts(players=3))
    assert g.status is GameStatus.LOBBY and g.state is None and g.host_id == ANN.id
    assert [s.user_id for s in g.seats] == [ANN.id]
    assert await manager.store.notices(g.id) == []  # the caller posts the lobby itself
    g = await lobby.attach_thread(manager.kernel, g.id, 77, 88)
    assert (g.thread_id, g.lobby_message_id) == (77, 88)
    g = await lobby.join(manager.kernel, g.id, BOB)
    g = await lobby.add_computer(manager.kernel, g.id, ANN.id, "random")
    assert [(s.seat, s.user_id, s.ai_level) for s in g.seats] == [
        (0, ANN.id, None), (1, BOB.id, None), (2, None, "random")]
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    assert g.status is GameStatus.DRAFT and g.state is not None
    assert g.state.config.players == 3
    # The computer drafted at once; both people have a draft prompt in their DMs.
    assert set(g.drafting_user_ids) == {ANN.id, BOB.id}
    kinds = [(n.kind, n.user_id) for n in await manager.store.notices(g.id)]
    assert (NoticeKind.STARTED, None) in kinds
    assert (NoticeKind.DRAFT_PROMPT, ANN.id) in kinds and (NoticeKind.DRAFT_PROMPT, BOB.id) in kinds
    assert g.deadline_at is not None


async def test_start_with_fewer_seats_shrinks_the_game(manager: Manager) -> None:
    g = await new_game(manager, players=4, people=(BOB,), start=False)
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    assert g.state is not None and g.state.config.players == 2 and len(g.seats) == 2


async def test_beginner_setup_goes_straight_to_play(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    assert g.status is GameStatus.PLAY and g.current_user_id in (ANN.id, BOB.id)
    prompts = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.TURN_PROMPT]
    assert [n.user_id for n in prompts] == [g.current_user_id]


async def test_leave_lobby_renumbers_and_passes_host(manager: Manager) -> None:
    g = await new_game(manager, players=4, people=(BOB, CAT), start=False)
    g = await lobby.leave_lobby(manager.kernel, g.id, BOB.id)
    assert [(s.seat, s.user_id) for s in g.seats] == [(0, ANN.id), (1, CAT.id)]
    g = await lobby.leave_lobby(manager.kernel, g.id, ANN.id)
    assert g.host_id == CAT.id and g.status is GameStatus.LOBBY
    g = await lobby.leave_lobby(manager.kernel, g.id, CAT.id)
    assert g.status is GameStatus.CANCELLED and g.end_reason == "cancelled"


async def test_remove_computer(manager: Manager) -> None:
    g = await new_game(manager, players=3, computers=2, start=False)
    g = await lobby.remove_computer(manager.kernel, g.id, ANN.id, 1)
    assert [s.seat for s in g.seats] == [0, 1] and g.seats[1].ai_level == "random"
    await refused(manager, g.id, "not_allowed", lobby.remove_computer(manager.kernel,
                                                                      g.id, ANN.id, 0))


async def test_pet_a_cat_race_sets_the_first_player(manager: Manager) -> None:
    g = await new_game(manager, players=3, people=(BOB, CAT), first="pet", start=False,
                       setup="beginner")
    results = await asyncio.gather(
        *(lobby.claim_first(manager.kernel,
                            g.id, u.id) for u in (CAT, BOB, ANN)), return_exceptions=True)
    winners = [r for r in results if not isinstance(r, Exception)]
    losers = [r for r in results if isinstance(r, ManagerError)]
    assert len(winners) == 1 and len(losers) == 2
    assert all(e.code == "not_allowed" for e in losers)
    assert winners[0].first_user_id == CAT.id  # the first click wins
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    assert g.state is not None and g.state.first_seat == 2 and g.current_user_id == CAT.id


async def test_random_first_player_refuses_the_race(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), start=False)
    await refused(manager, g.id, "not_allowed", lobby.claim_first(manager.kernel, g.id, BOB.id))


async def test_lobby_refusals_change_nothing(manager: Manager) -> None:
    g = await new_game(manager, players=2, people=(BOB,), start=False)
    await refused(manager, g.id, "game_full", lobby.join(manager.kernel, g.id, CAT))
    await refused(manager, g.id, "game_full", lobby.add_computer(manager.kernel, g.id, ANN.id))
    await refused(manager, g.id, "already_joined", lobby.join(manager.kernel, g.id, BOB))
    await refused(manager, g.id, "host_only", lobby.start(manager.kernel, g.id, BOB.id))
    await refused(manager, g.id, "host_only", lobby.cancel(manager.kernel, g.id, BOB.id))
    await refused(manager, g.id, "host_only", lobby.add_computer(manager.kernel, g.id, BOB.id))
    await refused(manager, g.id, "not_a_player", lobby.leave_lobby(manager.kernel, g.id, DAN.id))
    await refused(manager, g.id, "not_allowed", turns.play_turn(manager.kernel,
                                                                g.id, ANN.id, 0, "h0@C3>m0"))
    await refused(manager, g.id, "unknown_game", lobby.join(manager.kernel, 999_999, CAT))
    await lobby.start(manager.kernel, g.id, ANN.id)
    await refused(manager, g.id, "lobby_only", lobby.join(manager.kernel, g.id, CAT))
    await refused(manager, g.id, "lobby_only", lobby.start(manager.kernel, g.id, ANN.id))
    await refused(manager, g.id, "lobby_only", lobby.add_computer(manager.kernel, g.id, ANN.id))
    await refused(manager, g.id, "lobby_only", lobby.cancel(manager.kernel, g.id, ANN.id))
    await refused(manager, g.id, "lobby_only", lobby.leave_lobby(manager.kernel, g.id, BOB.id))


async def test_cancel_ends_the_lobby(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), start=False)
    g = await lobby.cancel(manager.kernel, g.id, ANN.id)
    assert g.status is GameStatus.CANCELLED
    ended = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.ENDED]
    assert [n.body.reason for n in ended] == ["cancelled"]
    await refused(manager, g.id, "game_over", lobby.join(manager.kernel, g.id, CAT))
    await refused(manager, g.id, "game_over", leaving.abandon(manager.kernel, g.id, ANN.id, True))


def test_lobby_options_are_checked() -> None:
    with pytest.raises(ValidationError):
        LobbyOptions(players=5)
    with pytest.raises(ValidationError):
        LobbyOptions(players=2, scenario=3, family=True)
    assert LobbyOptions(players=3, scenario=3).scenario == 3  # scenarios with several players
    with pytest.raises(ValidationError):
        LobbyOptions(players=3, lower_variance=True)
    with pytest.raises(ValidationError):
        LobbyOptions(ai_level="godlike")
    with pytest.raises(ValidationError):
        LobbyOptions(setup=Setup.BEGINNER, family=True)
    assert LobbyOptions().turn_hours == 24
    # A lobby stored before the family-needs-standard rule still loads.
    old = LobbyOptions.model_validate({"setup": "beginner", "family": True}, context=STORED)
    assert old.family and old.setup is Setup.BEGINNER


async def test_a_user_plays_many_games_across_servers(manager: Manager) -> None:
    ids = []
    for guild in (1, 2, 3):
        g = await lobby.create_game(manager.kernel,
                                    ANN, guild, CHANNEL, opts(players=2, setup="beginner"))
        await lobby.add_computer(manager.kernel, g.id, ANN.id)
        ids.append((await lobby.start(manager.kernel, g.id, ANN.id)).id)
    mine = await queries.games_for_user(manager.kernel, ANN.id)
    assert sorted(g.id for g in mine) == sorted(ids)
    assert {g.guild_id for g in mine} == {1, 2, 3}


async def test_user_locale_is_what_discord_last_said(manager: Manager) -> None:
    """The language of a person's DMs: the locale stored when they opened or joined a table."""
    assert await queries.user_locale(manager.kernel, 4242) == "en-US"  # never seen
    assert await queries.user_locale(manager.kernel, 4242, default="") == ""
    await queries.get_settings(manager.kernel,
                               CAT.id)  # cached before anything is stored about them
    g = await lobby.create_game(manager.kernel,
                                UserRef(CAT.id, "Cat", "fr"), GUILD, CHANNEL, opts(players=2))
    assert await queries.user_locale(manager.kernel, CAT.id) == "fr"
    await lobby.join(manager.kernel, g.id, UserRef(DAN.id, "Dan", "pl"))
    assert await queries.user_locale(manager.kernel, DAN.id) == "pl"


async def test_the_host_removes_someone_who_joined_and_they_cannot_rejoin(
        manager: Manager) -> None:
    """Issue #20, players 8: the host removes a person from the lobby; the removal is stored
    (a fresh read, another process, sees it), and that person's Join is refused."""
    g = await new_game(manager, players=4, people=(BOB, CAT), start=False)
    await refused(manager, g.id, "host_only", lobby.remove_person(manager.kernel,
                                                                  g.id, BOB.id, CAT.id))
    await refused(manager, g.id, "not_allowed", lobby.remove_person(manager.kernel,
                                                                    g.id, ANN.id, ANN.id))
    await refused(manager, g.id, "not_a_player", lobby.remove_person(manager.kernel,
                                                                     g.id, ANN.id, DAN.id))
    g = await lobby.remove_person(manager.kernel, g.id, ANN.id, BOB.id)
    assert [(s.seat, s.user_id) for s in g.seats] == [(0, ANN.id), (1, CAT.id)]
    assert (await queries.game(manager.kernel, g.id, fresh=True)).options.barred == (BOB.id,)
    manager.kernel.forget(g.id)  # read back from storage: the removal was written
    await refused(manager, g.id, "removed", lobby.join(manager.kernel, g.id, BOB))
    g = await lobby.join(manager.kernel, g.id, DAN)  # others still may
    assert len(g.seats) == 3
    await lobby.start(manager.kernel, g.id, ANN.id)  # the game starts with its options as chosen
