"""The lobby service: creating a game and everything done before it is dealt.

Create (with computer seats, the thread opened by the outbox, or dealt at once), attach the
thread, setup failure, join, leave, add and remove computers, the pet-a-cat race, cancel and
start; and a finished game's rematch (a new lobby with the same options). Built on the
kernel's public API and the flow (:func:`bot.core.flow.deal`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import flow, guards, limits, notices
from bot.core.game import LiveGame, Tx, renumbered, unborn
from bot.core.kernel import Kernel
from bot.core.models import (
    ErrorCode,
    FirstPlayer,
    GameInfo,
    GameStatus,
    LobbyOptions,
    ManagerError,
    UserRef,
)
from bot.core.storage import SeatRow


async def check_limits(k: Kernel, user_id: int, *, hosting: bool) -> None:
    """Refuse (``LimitError``) a person who holds as many games, or hosts as many open
    lobbies, as the configuration allows, or (``hosting``) who has opened as many new
    lobbies lately as the hourly allowance lets them. Checked again by every change that
    seats them; the Discord layer asks first so that the refusal is private."""
    config = k.config
    if hosting:
        k.new_lobbies.check(user_id)
    if config.max_lobbies is None and config.max_active_games is None:
        return

    async def game_host(game_id: int) -> tuple[str, int]:
        g = await k.load(game_id)
        return g.status.value, g.host_id

    await limits.check_new_game(k.store, user_id,
                                limits.GameLimits(config.max_lobbies, config.max_active_games),
                                hosting=hosting, game_host=game_host)


async def create_game(k: Kernel, host: UserRef, guild_id: int, channel_id: int,
                      options: LobbyOptions | None = None, *,
                      computers: Sequence[str] = (), open_thread: bool = False,
                      start: bool = False, rematch_of: int | None = None) -> GameInfo:
    """A new lobby with the host in seat 0 (and ``computers``, levels, after it), written in
    one transaction with everything it starts with: ``open_thread`` queues the thread's opening
    and the lobby post (express notices), ``start`` deals at once (a solo game), ``rematch_of``
    names the finished game it follows. Refused (``LimitError``) past the person's limits."""
    options = options or LobbyOptions()
    for level in computers:
        guards.check_level(level)
    if 1 + len(computers) > options.players:
        raise ManagerError(ErrorCode.GAME_FULL, "more seats than players")
    async with k.user_lock(host.id):  # one new game at a time per person: limits hold
        await check_limits(k, host.id, hosting=not start)
        if start:
            return await _create_game(k, host, guild_id, channel_id, options, computers,
                                      open_thread, start, rematch_of)
        k.new_lobbies.take(host.id)  # a lobby, cancelled at once or not, uses its share
        try:
            return await _create_game(k, host, guild_id, channel_id, options, computers,
                                      open_thread, start, rematch_of)
        except BaseException:
            k.new_lobbies.refund(host.id)
            raise


async def _create_game(k: Kernel, host: UserRef, guild_id: int, channel_id: int,
                       options: LobbyOptions, computers: Sequence[str], open_thread: bool,
                       start: bool, rematch_of: int | None) -> GameInfo:
    now = k.now_ms()
    seats = (SeatRow(0, host.id, host.name),
             *(SeatRow(i + 1, None, f"Computer ({lv})", lv) for i, lv in enumerate(computers)))
    g = unborn(guild_id=guild_id, channel_id=channel_id, host_id=host.id, options=options,
               seats=seats, now=now, rematch_of=rematch_of)
    tx = Tx(old=g, g=g, now=now, dm_closed=k.dm_closed)
    tx.activity = True
    tx.user_names.append((host.id, host.name, host.locale))
    await k.user(host.id)
    if open_thread:
        tx.thread(notices.OpenThread())
        if not start:
            tx.thread(notices.Lobby())
    if start:
        flow.deal(k, tx)
    new = await k.commit_new(tx)
    if start:
        new = await flow.run_computers(k, new)
    return new.info()


async def attach_thread(k: Kernel, game_id: int, thread_id: int | None,
                        lobby_message_id: int | None = None) -> GameInfo:
    """Record the game's thread (and its lobby message). Repeating it is harmless."""
    async def change(g: LiveGame) -> GameInfo:
        lobby = lobby_message_id if lobby_message_id is not None else g.lobby_message_id
        if g.thread_id == thread_id and g.lobby_message_id == lobby:
            return g.info()
        tx = await k.begin(g)
        tx.set(thread_id=thread_id, lobby_message_id=lobby)
        return (await k.commit(tx)).info()

    return await k.mutate(game_id, change)


async def setup_failed(k: Kernel, game_id: int, reason: str) -> GameInfo:
    """The game's thread could not be opened: the game is cancelled, its host told by DM."""
    async def change(g: LiveGame) -> GameInfo:
        if not g.status.active:
            return g.info()
        tx = await k.begin(g)
        tx.set(status=GameStatus.CANCELLED, end_reason="no_thread", deadline_at=None)
        tx.skip_pending = True  # nothing queued for the thread can go anywhere
        tx.dm_user(g.host_id, notices.SetupFailed(reason=reason))
        return (await k.commit(tx)).info()

    return await k.mutate(game_id, change)


async def join(k: Kernel, game_id: int, user: UserRef) -> GameInfo:
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        if g.person(user.id) is not None:
            raise ManagerError(ErrorCode.ALREADY_JOINED, "you are already in this game")
        if user.id in g.options.barred:
            raise ManagerError(ErrorCode.REMOVED, "the host removed you from this lobby")
        if len(g.seats) >= g.options.players:
            raise ManagerError(ErrorCode.GAME_FULL, "every seat is taken")
        await check_limits(k, user.id, hosting=False)
        tx = await k.begin(g)
        tx.set(seats=(*g.seats, SeatRow(len(g.seats), user.id, user.name)))
        tx.user_names.append((user.id, user.name, user.locale))
        return await _lobby_changed(k, tx)

    return await k.mutate(game_id, change)


async def _lobby_changed(k: Kernel, tx: Tx) -> GameInfo:
    """Commit a change someone made in the lobby: it counts as activity, and the lobby
    message is refreshed."""
    tx.activity = True
    tx.thread(notices.Lobby())
    return (await k.commit(tx)).info()


async def leave_lobby(k: Kernel, game_id: int, user_id: int) -> GameInfo:
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        return (await leave(k, g, user_id)).info()

    return await k.mutate(game_id, change)


async def leave(k: Kernel, g: LiveGame, user_id: int) -> LiveGame:
    """``user_id`` leaves the lobby ``g`` (under its lock): the host passes to the next
    person; the last person leaving cancels it."""
    seat = guards.require_person(g, user_id)
    rest = [s for s in g.seats if s.seat != seat.seat]
    tx = await k.begin(g)
    tx.activity = True
    people = [s for s in rest if s.ai_level is None]
    if not people:
        tx.set(seats=renumbered(rest), status=GameStatus.CANCELLED, end_reason="cancelled")
        tx.thread(notices.Lobby())
        tx.thread(notices.Ended(reason="cancelled"))
        return await k.commit(tx)
    host = g.host_id if g.host_id != user_id else people[0].user_id
    assert host is not None
    tx.set(seats=renumbered(rest), host_id=host,
           first_user_id=None if g.first_user_id == user_id else g.first_user_id)
    tx.thread(notices.Lobby())
    return await k.commit(tx)


async def add_computer(k: Kernel, game_id: int, by_user_id: int,
                       level: str | None = None) -> GameInfo:
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        guards.require_host(g, by_user_id)
        chosen = level or g.options.ai_level
        guards.check_level(chosen)
        if len(g.seats) >= g.options.players:
            raise ManagerError(ErrorCode.GAME_FULL, "every seat is taken")
        tx = await k.begin(g)
        tx.set(seats=(*g.seats, SeatRow(len(g.seats), None, f"Computer ({chosen})", chosen)))
        return await _lobby_changed(k, tx)

    return await k.mutate(game_id, change)


async def remove_computer(k: Kernel, game_id: int, by_user_id: int, seat: int) -> GameInfo:
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        guards.require_host(g, by_user_id)
        if not 0 <= seat < len(g.seats) or g.seats[seat].ai_level is None:
            raise ManagerError(ErrorCode.NOT_ALLOWED, f"seat {seat} is not a computer")
        rest = [s for s in g.seats if s.seat != seat]
        tx = await k.begin(g)
        tx.set(seats=renumbered(rest))
        return await _lobby_changed(k, tx)

    return await k.mutate(game_id, change)


async def remove_person(k: Kernel, game_id: int, by_user_id: int, user_id: int) -> GameInfo:
    """The host removes someone who joined their lobby (issue #20); that person may not join
    this lobby again (``options.barred``). The host leaves with Leave, not this."""
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        guards.require_host(g, by_user_id)
        if user_id == g.host_id:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "the host leaves with Leave")
        guards.require_person(g, user_id)
        rest = [s for s in g.seats if s.user_id != user_id]
        tx = await k.begin(g)
        barred = (*g.options.barred, user_id)
        tx.set(seats=renumbered(rest), options=g.options.model_copy(update={"barred": barred}),
               first_user_id=None if g.first_user_id == user_id else g.first_user_id)
        return await _lobby_changed(k, tx)

    return await k.mutate(game_id, change)


async def claim_first(k: Kernel, game_id: int, user_id: int) -> GameInfo:
    """The "who most recently pet a cat" race: the first seated person to click goes first.
    A later click by someone else is refused with ``not_allowed``."""
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        if g.options.first is not FirstPlayer.PET:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "the first player is drawn at random")
        guards.require_person(g, user_id)
        if g.first_user_id == user_id:
            return g.info()
        if g.first_user_id is not None:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "someone else pet the cat first")
        tx = await k.begin(g)
        tx.set(first_user_id=user_id)
        return await _lobby_changed(k, tx)

    return await k.mutate(game_id, change)


async def cancel(k: Kernel, game_id: int, by_user_id: int) -> GameInfo:
    async def change(g: LiveGame) -> GameInfo:
        guards.require_lobby(g)
        guards.require_host(g, by_user_id)
        return (await flow.end(k, g, GameStatus.CANCELLED, "cancelled")).info()

    return await k.mutate(game_id, change)


async def start(k: Kernel, game_id: int, by_user_id: int) -> GameInfo:
    """Deal the game with the seats filled so far (at least one person)."""
    async def change(g: LiveGame) -> LiveGame:
        guards.require_lobby(g)
        guards.require_host(g, by_user_id)
        if not g.people:
            raise ManagerError(ErrorCode.NOT_ENOUGH_PLAYERS, "a person must play")
        tx = await k.begin(g)
        tx.thread(notices.Lobby())
        flow.deal(k, tx)
        return await k.commit(tx)

    await k.mutate(game_id, change)
    async with k.lock(game_id):
        g = await flow.run_computers(k, await k.load(game_id))
    return g.info()


# --------------------------------------------------------------------------- rematch


async def rematch(kernel: Kernel, game_id: int, user: UserRef) -> tuple[GameInfo, bool]:
    """A new lobby for a finished game, opened by one of its players: same options, the same
    computer seats, in a new thread of the same channel (``rematch_of`` set; the lobby message
    pings the previous players). If a rematch lobby of this game is still open, that one is
    returned instead (``False``): two players pressing Rematch get one table."""
    async with kernel.lock(game_id):
        g = await kernel.reload(game_id)
        if g.status is not GameStatus.OVER:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "only a finished game has a rematch")
        if g.challenge_week is not None:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "a challenge is played once a week")
        if not any(s.user_id == user.id for s in g.seats):
            raise ManagerError(ErrorCode.NOT_A_PLAYER, "only its players ask for a rematch")
        for other in await kernel.store.rematches(game_id):
            info = await kernel.get_game(other, fresh=True)
            if info.status is GameStatus.LOBBY:
                return info, False
        computers = [s.ai_level for s in g.seats if s.ai_level is not None and not s.left]
        # The same options; whom the old lobby's host removed is that lobby's matter.
        options = g.options.model_copy(update={"barred": ()})
        info = await create_game(kernel, user, g.guild_id, g.channel_id, options,
                                 computers=computers, open_thread=True, rematch_of=game_id)
        return info, True


def previous_people(game: GameInfo) -> list[int]:
    """The people who played ``game`` (for a rematch's invitation), in seat order."""
    return [s.user_id for s in game.seats if s.user_id is not None]
