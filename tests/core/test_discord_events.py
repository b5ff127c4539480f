"""Discord life events: a thread or channel deleted, the bot removed from a server, a member
leaving, and DMs failing (the manager side of the fallback)."""

from __future__ import annotations

from bot.core import leaving, lobby, queries, servers
from bot.core.manager import Manager
from bot.core.models import GameStatus
from bot.core.notices import NoticeKind
from tests.core.conftest import ANN, BOB, CAT, CHANNEL, GUILD, new_game


async def test_channel_gone_ends_its_games_silently(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    other = await new_game(manager, host=CAT, computers=1, setup="beginner")
    assert g.thread_id is not None
    ended = await leaving.channel_gone(manager.kernel, g.thread_id)
    assert ended == [g.id]
    after = await queries.game(manager.kernel, g.id)
    assert after.status is GameStatus.ABANDONED and after.end_reason == "channel_gone"
    pending = [n for n in await manager.store.notices(g.id) if n.status == "pending"]
    assert pending == []  # nowhere to post: nothing is left queued for it
    assert (await queries.game(manager.kernel, other.id)).status is GameStatus.PLAY
    # The parent channel takes every game started in it.
    assert await leaving.channel_gone(manager.kernel, CHANNEL) == [other.id]


async def test_guild_gone_ends_all_its_games(manager: Manager) -> None:
    a = await new_game(manager, people=(BOB,))
    b = await new_game(manager, host=CAT, players=2, start=False)
    elsewhere = await lobby.create_game(manager.kernel, ANN, GUILD + 1, CHANNEL)
    assert sorted(await leaving.guild_gone(manager.kernel, GUILD)) == sorted([a.id, b.id])
    assert (await queries.game(manager.kernel, b.id)).status is GameStatus.CANCELLED
    assert (await queries.game(manager.kernel, elsewhere.id)).status is GameStatus.LOBBY


async def test_member_left_hands_seats_to_computers(manager: Manager) -> None:
    playing = await new_game(manager, people=(BOB,), setup="beginner")
    lobby = await new_game(manager, host=CAT, players=3, people=(BOB,), start=False)
    touched = await leaving.member_left(manager.kernel, GUILD, BOB.id)
    assert sorted(touched) == sorted([playing.id, lobby.id])
    p = await queries.game(manager.kernel, playing.id)
    assert p.seat_of(BOB.id) is None and p.seats[1].ai_level is not None
    assert p.status is GameStatus.PLAY and p.current_user_id == ANN.id
    [changed] = [n for n in await manager.store.notices(p.id)
                 if n.kind == NoticeKind.SEAT_CHANGED]
    assert changed.body.reason == "member_left"
    lb = await queries.game(manager.kernel, lobby.id)
    assert [s.user_id for s in lb.seats] == [CAT.id]


async def test_dm_failed_marks_closed_and_posts_one_fallback(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    await leaving.dm_failed(manager.kernel, g.id, BOB.id)
    await leaving.dm_failed(manager.kernel, g.id, BOB.id)
    fallbacks = [n for n in await manager.store.notices(g.id)
                 if n.kind == NoticeKind.DM_FALLBACK]
    assert len(fallbacks) == 1 and fallbacks[0].user_id is None
    assert (await queries.get_settings(manager.kernel, BOB.id)).dm_closed_at is not None
    # Bob's queued DMs were dropped.
    assert not [n for n in await manager.store.notices(g.id)
                if n.user_id == BOB.id and n.status == "pending"]


async def test_a_deleted_channel_is_cleared_from_the_servers_settings(manager: Manager) -> None:
    """Issue #28: a games channel that no longer exists refused every /calico start until an
    admin reset it. Cleared when it is deleted, and noted once for the next /calico admin."""
    k = manager.kernel
    await servers.update(k, GUILD, {"games_channel_id": 777, "challenge_channel_id": 777,
                                    "starter_role_id": 5})
    assert await servers.take_cleared(k, GUILD) == ()
    await leaving.channel_gone(k, 888, GUILD)  # another channel: nothing changes
    assert (await servers.settings(k, GUILD)).games_channel_id == 777
    await leaving.channel_gone(k, 777, GUILD)
    after = await servers.settings(k, GUILD)
    assert (after.games_channel_id, after.challenge_channel_id, after.starter_role_id) == (
        None, None, 5)
    assert await servers.take_cleared(k, GUILD) == ("challenge_channel", "games_channel")
    assert await servers.take_cleared(k, GUILD) == ()  # said once


async def test_the_features_hear_of_discords_life(manager: Manager) -> None:
    """Each event reaches the features' ``life`` hook after the games took it in."""
    from bot.core.hooks import AccessLost, ChannelGone, Feature, GuildGone, Life, MemberLeft

    heard: list[Life] = []

    async def life(_k: object, event: Life) -> int:
        heard.append(event)
        return 1

    manager.kernel.hooks.add(Feature("listener", life=life))
    await leaving.channel_gone(manager.kernel, 11, GUILD)
    await leaving.access_lost(manager.kernel, 12, GUILD)
    await leaving.guild_gone(manager.kernel, GUILD + 5)
    await leaving.member_left(manager.kernel, GUILD, BOB.id)
    assert heard == [ChannelGone(11, GUILD), AccessLost(12, GUILD), GuildGone(GUILD + 5),
                     MemberLeft(GUILD, BOB.id)]
