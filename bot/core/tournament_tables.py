"""A tournament table's game (issue #23): opened like a lobby that starts at once with its
players, linked to its table in the game's own transaction, and, at a round deadline, played
out the way its timeout action says. On the kernel's public API and the flow, like the other
services; :mod:`bot.core.tournament` decides when."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import flow
from bot.core.game import LiveGame, Tx
from bot.core.kernel import Kernel, StaleError
from bot.core.models import GameStatus, LobbyOptions, NoticeKind, TimeoutAction
from bot.core.storage.base import SeatRow, StaleWriteError


async def open_game(k: Kernel, guild_id: int, channel_id: int, options: LobbyOptions,
                    table: tuple[int, int, int], players: Sequence[tuple[int, str]]) -> int:
    """Create and deal the game of ``table`` (tournament, round, table number) for
    ``players`` (user id, name), its thread opened by the outbox; 0 if another process did
    (the link is written with the game: a table never gets two), else 1."""
    now = k.now_ms()
    seats = tuple(SeatRow(i, uid, name) for i, (uid, name) in enumerate(players))
    g = LiveGame(id=0, status=GameStatus.LOBBY, guild_id=guild_id, channel_id=channel_id,
                 thread_id=None, lobby_message_id=None, host_id=players[0][0], options=options,
                 first_user_id=None, engine_options=None, state=None, config_json=None,
                 version=0, ply=0, deadline_at=None, end_reason=None, created_at=now,
                 updated_at=now, seats=seats)
    tx = Tx(old=g, g=g, now=now, dm_closed=k.dm_closed)
    tx.activity = True
    for uid, name in players:
        await k.user(uid)  # their closed DMs are known before their first prompt
        tx.user_names.append((uid, name, None))
    tx.thread(NoticeKind.OPEN_THREAD)
    flow.deal(k, tx)
    try:
        new = await k.commit_new(tx, tournament_table=table)
    except StaleWriteError:
        return 0
    await flow.run_computers(k, new)
    return 1


async def play_out(k: Kernel, game_id: int) -> None:
    """Finish a game at the round deadline: the seat it waits for plays on autopilot (or,
    with ``timeout: computer``, becomes a computer player while another person is left), and
    computers play their turns, until the game ends."""
    for _ in range(4 * 30):
        async with k.lock(game_id):
            g = await k.reload(game_id)
            if not g.status.started:
                if g.status is GameStatus.LOBBY:
                    await flow.end(k, g, GameStatus.CANCELLED, "round_deadline")
                return
            try:
                if flow.computer_to_move(g) is not None:
                    await flow.run_computers(k, g, strict=True)
                    continue
                seat = next(i for i in range(len(g.seats)) if g.must_act(i))
                if g.options.timeout_action is TimeoutAction.COMPUTER and len(g.people) > 1:
                    await flow.convert(k, g, seat, "timeout")
                    continue
                assert g.state is not None
                move = await flow.choose(k, g.state, seat, g.options.ai_level)
                await flow.apply_move(k, g, seat, move, "autopilot")
            except StaleError:
                continue
