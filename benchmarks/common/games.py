"""Games through the manager as the Discord layer drives them: started games of two people,
random legal moves, the outbox dispatcher running, the outbox drained. The bot is imported
inside the functions (a benchmark of the engine loads none of it)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, MutableSequence
from typing import Any

from bot.core import lobby, turns

# --------------------------------------------------------------------------- the manager


async def two_player_game(m: Any, host: Any, guest: Any, *, guild_id: int, channel_id: int,
                          thread_id: int | None = None, message_id: int | None = None) -> Any:
    """A game of two people (``UserRef``s) created, given its thread, joined and started, as
    the Discord layer does it; without ``thread_id`` the thread and lobby message ids are made
    from the game's id."""
    from bot.core.models import LobbyOptions

    g = await lobby.create_game(m.kernel, host, guild_id=guild_id, channel_id=channel_id,
                            options=LobbyOptions(players=2))
    if thread_id is None:
        thread_id, message_id = 10**9 + g.id, 2 * 10**9 + g.id
    await lobby.attach_thread(m.kernel, g.id, thread_id, message_id)
    await lobby.join(m.kernel, g.id, guest)
    return await lobby.start(m.kernel, g.id, host.id)


async def numbered_game(m: Any, i: int, guild_id: int = 1) -> Any:
    """Game number ``i`` of a benchmark: people ``2i+1`` (host ``host{i}``) and ``2i+2``
    (``guest{i}``), channel ``100 + i % 50``, its own thread and lobby message."""
    from bot.core.models import UserRef

    return await two_player_game(m, UserRef(2 * i + 1, f"host{i}"),
                                 UserRef(2 * i + 2, f"guest{i}"), guild_id=guild_id,
                                 channel_id=100 + i % 50, thread_id=10_000_000 + i,
                                 message_id=20_000_000 + i)


def random_move(g: Any, rng: Any) -> tuple[int, str]:
    """Whoever must act in game ``g`` (one of the drafting people in the goal draft) and a
    random legal move of theirs, as text."""
    from bot.core.models import GameStatus
    from engine.rules import legal_moves

    user = rng.choice(g.drafting_user_ids) if g.status is GameStatus.DRAFT \
        else g.current_user_id
    seat = g.seat_of(user)
    assert user is not None and seat is not None and g.state is not None
    return user, rng.choice(legal_moves(g.state, seat)).text()


async def send_move(m: Any, g: Any, user: int, move: str) -> Any:
    """The manager call for ``move`` (text) by ``user`` in ``g``: its ``MoveResult``."""
    from bot.core.models import GameStatus

    if g.status is GameStatus.DRAFT:
        return await turns.choose_goals(m.kernel, g.id, user, g.ply, move[6:].split(","))
    return await turns.play_turn(m.kernel, g.id, user, g.ply, move)


async def play_random_move(m: Any, g: Any, rng: Any, *, gate: Any = None,
                           latencies: MutableSequence[float] | None = None) -> Any:
    """One random legal move in ``g``, sent holding ``gate`` (a semaphore: the moves in flight)
    when one is given, the manager call's wall time appended to ``latencies``; the game after
    it."""
    user, move = random_move(g, rng)
    async with gate if gate is not None else contextlib.nullcontext():
        t0 = time.perf_counter()
        result = await send_move(m, g, user, move)
        if latencies is not None:
            latencies.append(time.perf_counter() - t0)
    return result.game


@contextlib.asynccontextmanager
async def dispatching(m: Any, delivery: Any = None) -> AsyncIterator[Any]:
    """The manager's outbox dispatcher running for the block (to a no-op delivery unless
    ``delivery`` is given), stopped after it."""
    from bot.core.outbox import NullDelivery

    dispatcher = m.dispatcher(delivery if delivery is not None else NullDelivery())
    task = asyncio.create_task(dispatcher.run_forever())
    try:
        yield dispatcher
    finally:
        dispatcher.stop()
        await task


def wall_ms() -> int:
    return int(time.time() * 1000)


async def drained(store: Any, now: Callable[[], int] = wall_ms, every: float = 0.05) -> None:
    """Back once ``store`` has no pending notice (due by ``now()``), checking every ``every``
    seconds."""
    while (await store.outbox_stats(now())).pending:
        await asyncio.sleep(every)
