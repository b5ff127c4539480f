"""The leaving service: people and places going away.

A person leaving a started game (their seat becomes a computer player), the host or an admin
abandoning it, and Discord life: a thread or channel deleted, the bot leaving a server, a
member leaving it, a person's DMs found closed. Built on the kernel's public API and the flow
(:func:`bot.core.flow.convert`, :func:`bot.core.flow.end`).
"""

from __future__ import annotations

from bot.core import flow, guards, lobby, servers
from bot.core.game import LiveGame
from bot.core.hooks import AccessLost, ChannelGone, GuildGone, MemberLeft
from bot.core.kernel import Kernel
from bot.core.models import ErrorCode, GameInfo, GameStatus, ManagerError


async def leave_game(k: Kernel, game_id: int, user_id: int) -> GameInfo:
    """Leave a started game: the seat becomes a computer player and the game goes on (in
    the lobby this is :func:`bot.core.lobby.leave_lobby`)."""
    async def change(g: LiveGame) -> LiveGame:
        if g.status is GameStatus.LOBBY:
            return await lobby.leave(k, g, user_id)
        guards.require_started(g)
        seat = guards.require_person(g, user_id).seat
        g = await flow.convert(k, g, seat, "left")
        return await flow.run_computers(k, g)

    return (await k.mutate(game_id, change)).info()


async def abandon(k: Kernel, game_id: int, by_user_id: int, is_admin: bool = False) -> GameInfo:
    """End a game early (the host, or a server admin). A lobby is cancelled instead."""
    async def change(g: LiveGame) -> GameInfo:
        if not g.status.active:
            raise ManagerError(ErrorCode.GAME_OVER, "the game has ended")
        if not is_admin:
            guards.require_host(g, by_user_id)
        if g.status is GameStatus.LOBBY:
            return (await flow.end(k, g, GameStatus.CANCELLED, "cancelled")).info()
        return (await flow.end(k, g, GameStatus.ABANDONED, "abandoned")).info()

    return await k.mutate(game_id, change)


async def _end_silently(k: Kernel, game_id: int, reason: str) -> bool:
    async def change(g: LiveGame) -> bool:
        if g.status.active:
            status = GameStatus.CANCELLED if g.status is GameStatus.LOBBY \
                else GameStatus.ABANDONED
            await flow.end(k, g, status, reason, notify=False)
            return True
        tx = await k.begin(g)
        tx.skip_pending = True
        await k.commit(tx)
        return False

    try:
        return await k.mutate(game_id, change)
    except ManagerError:
        return False


async def channel_gone(k: Kernel, channel_id: int, guild_id: int | None = None) -> list[int]:
    """A thread or channel was deleted: its games end (no post: there is nowhere to post), a
    server option naming it is cleared (``guild_id`` known), and the features hear of it (a
    tournament posting there pauses). Returns the ids of the games that ended."""
    ended = []
    for game_id in await k.store.game_ids(channel_id=channel_id):
        if await _end_silently(k, game_id, "channel_gone"):
            ended.append(game_id)
    if guild_id:
        await servers.channel_gone(k, guild_id, channel_id)
    await k.hooks.life(k, ChannelGone(channel_id, guild_id))
    return ended


async def access_lost(k: Kernel, channel_id: int, guild_id: int | None = None) -> None:
    """Discord refused the bot a post in a channel (missing access or permissions): its games'
    own posts fail one by one, but the features hear of it (a tournament posting there pauses
    and its organiser is told)."""
    await k.hooks.life(k, AccessLost(channel_id, guild_id))


async def guild_gone(k: Kernel, guild_id: int) -> list[int]:
    """The bot left (or lost) a server: all its games end, and the features hear of it (its
    tournaments are cancelled)."""
    ended = []
    for game_id in await k.store.game_ids(guild_id=guild_id):
        if await _end_silently(k, game_id, "guild_gone"):
            ended.append(game_id)
    await k.hooks.life(k, GuildGone(guild_id))
    return ended


async def member_left(k: Kernel, guild_id: int, user_id: int) -> list[int]:
    """A member left the server: they leave its lobbies, and their seats in its started
    games become computer players. Returns the games touched."""
    touched = []
    for game_id in await k.store.game_ids(guild_id=guild_id, user_id=user_id,
                                          active_only=True):
        async def change(g: LiveGame) -> bool:
            seat = g.person(user_id)
            if seat is None or not g.status.active:
                return False
            if g.status is GameStatus.LOBBY:
                await lobby.leave(k, g, user_id)
            else:
                g = await flow.convert(k, g, seat.seat, "member_left")
                await flow.run_computers(k, g)
            return True

        if await k.mutate(game_id, change):
            touched.append(game_id)
    await k.hooks.life(k, MemberLeft(guild_id, user_id))  # out of its tournaments too
    return sorted(touched)


async def dm_failed(k: Kernel, game_id: int, user_id: int) -> None:
    """A DM to this user failed for good (called by the dispatcher). Their DMs count as
    closed for ``dm_retry_after``: queued DMs are dropped, and each game they play gets one
    fallback post in its thread ("use /calico hand")."""
    now = k.now_ms()
    await k.user(user_id)
    others = await k.store.skip_pending_dms(user_id, now)
    playing = await k.store.game_ids(user_id=user_id, active_only=True)
    for gid in dict.fromkeys([game_id, *others, *playing]):
        async def change(g: LiveGame, gid: int = gid) -> None:
            tx = await k.begin(g)
            if gid == game_id:
                tx.user_updates.append((user_id, {"dm_closed_at": now}))
            seat = g.person(user_id)
            if seat is not None and g.status.active:
                tx.fallback(seat.seat)
            if tx.notices or tx.user_updates:
                await k.commit(tx)

        try:
            await k.mutate(gid, change)
        except ManagerError:
            continue
    cached = k.users.get(user_id)
    if cached is None or cached.dm_closed_at != now:
        # The game itself was gone: still remember the closed DMs.
        k.users.keep(await k.store.set_user(user_id, dm_closed_at=now))
