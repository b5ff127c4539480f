"""Discord life events: a thread or channel deleted, the bot removed from a server, a member
leaving, and DMs failing (the manager side of the fallback)."""

from __future__ import annotations

from bot.core.manager import Manager
from bot.core.models import GameStatus, NoticeKind
from tests.core.conftest import ANN, BOB, CAT, CHANNEL, GUILD, new_game


async def test_channel_gone_ends_its_games_silently(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    other = await new_game(manager, host=CAT, computers=1, setup="beginner")
    assert g.thread_id is not None
    ended = await manager.channel_gone(g.thread_id)
    assert ended == [g.id]
    after = await manager.get_game(g.id)
    assert after.status is GameStatus.ABANDONED and after.end_reason == "channel_gone"
    pending = [n for n in await manager.store.notices(g.id) if n.status == "pending"]
    assert pending == []  # nowhere to post: nothing is left queued for it
    assert (await manager.get_game(other.id)).status is GameStatus.PLAY
    # The parent channel takes every game started in it.
    assert await manager.channel_gone(CHANNEL) == [other.id]


async def test_guild_gone_ends_all_its_games(manager: Manager) -> None:
    a = await new_game(manager, people=(BOB,))
    b = await new_game(manager, host=CAT, players=2, start=False)
    elsewhere = await manager.create_game(ANN, GUILD + 1, CHANNEL)
    assert sorted(await manager.guild_gone(GUILD)) == sorted([a.id, b.id])
    assert (await manager.get_game(b.id)).status is GameStatus.CANCELLED
    assert (await manager.get_game(elsewhere.id)).status is GameStatus.LOBBY


async def test_member_left_hands_seats_to_computers(manager: Manager) -> None:
    playing = await new_game(manager, people=(BOB,), setup="beginner")
    lobby = await new_game(manager, host=CAT, players=3, people=(BOB,), start=False)
    touched = await manager.member_left(GUILD, BOB.id)
    assert sorted(touched) == sorted([playing.id, lobby.id])
    p = await manager.get_game(playing.id)
    assert p.seat_of(BOB.id) is None and p.seats[1].ai_level is not None
    assert p.status is GameStatus.PLAY and p.current_user_id == ANN.id
    [changed] = [n for n in await manager.store.notices(p.id)
                 if n.kind is NoticeKind.SEAT_CHANGED]
    assert changed.payload["reason"] == "member_left"
    lb = await manager.get_game(lobby.id)
    assert [s.user_id for s in lb.seats] == [CAT.id]


async def test_dm_failed_marks_closed_and_posts_one_fallback(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner")
    await manager.dm_failed(g.id, BOB.id)
    await manager.dm_failed(g.id, BOB.id)
    fallbacks = [n for n in await manager.store.notices(g.id)
                 if n.kind is NoticeKind.DM_FALLBACK]
    assert len(fallbacks) == 1 and fallbacks[0].user_id is None
    assert (await manager.get_settings(BOB.id)).dm_closed_at is not None
    # Bob's queued DMs were dropped.
    assert not [n for n in await manager.store.notices(g.id)
                if n.user_id == BOB.id and n.status == "pending"]
