"""A tournament table's game (issue #23): opened like a lobby that starts at once with its
players, linked to its table in the game's own transaction, played out the way its timeout
action says at a round deadline, and, at its end, the line its score sheet carries (the
feature's ``game_over``). On the kernel's public API and the flow, like the other services;
:mod:`bot.core.tournament.rounds` decides when."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import flow, notices
from bot.core.game import Tx, unborn
from bot.core.hooks import Ending
from bot.core.kernel import Kernel, StaleError
from bot.core.models import GameStatus, LobbyOptions, TimeoutAction
from bot.core.storage import SeatRow, StaleWriteError
from bot.core.tournament import store
from bot.core.tournament.model import ScoreSheetLine


async def open_game(k: Kernel, guild_id: int, channel_id: int, options: LobbyOptions,
                    table: tuple[int, int, int], players: Sequence[tuple[int, str]]) -> int:
    """Create and deal the game of ``table`` (tournament, round, table number) for
    ``players`` (user id, name), its thread opened by the outbox; 0 if another process did
    (the link is written with the game: a table never gets two), else 1."""
    now = k.now_ms()
    seats = tuple(SeatRow(i, uid, name) for i, (uid, name) in enumerate(players))
    g = unborn(guild_id=guild_id, channel_id=channel_id, host_id=players[0][0],
               options=options, seats=seats, now=now)
    tx = Tx(old=g, g=g, now=now, dm_closed=k.dm_closed)
    tx.activity = True
    for uid, name in players:
        await k.user(uid)  # their closed DMs are known before their first prompt
        tx.user_names.append((uid, name, None))
    tx.thread(notices.OpenThread())
    flow.deal(k, tx)
    tx.steps.append(store.link_table(*table))  # StaleWriteError: that table has its game
    try:
        new = await k.commit_new(tx)
    except StaleWriteError:
        return 0
    k.changed(store.topic(table[0]))  # the round's post waits for its tables' games
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


async def game_over(k: Kernel, tx: Tx, _ending: Ending) -> ScoreSheetLine | None:
    """A tournament table's score sheet names its tournament and round (nothing for any
    other game)."""
    table = await store.table_of_game(k.store, tx.g.id)
    if table is None:
        return None
    row = await store.tournament(k.store, table.tournament_id)
    if row is None:
        return None
    return ScoreSheetLine(id=row.id, name=row.name, round=table.round, rounds=row.rounds)
