"""A tournament table's game (issue #23): opened like a lobby that starts at once with its
players, linked to its table in the game's own transaction, handed to the computers' queue at a
round deadline (the way its timeout action says), and, at its end, the line its score sheet
carries (the feature's ``game_over``). On the kernel's public API and the flow, like the other
services; :mod:`bot.core.tournament.rounds` decides when."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import flow, notices
from bot.core.game import FLAG_PLAY_OUT, LiveGame, Tx, unborn
from bot.core.hooks import Ending
from bot.core.kernel import Kernel
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
    # A round opens its tables in bulk (512 for a thousand entrants), nobody looking at them
    # yet: they are read again when first needed rather than kept parsed (a heap that grows
    # by hundreds of games at once makes the garbage collector's pauses long).
    k.forget(new.id)
    return 1


async def play_out(k: Kernel, game_id: int) -> int:
    """At the round deadline, hand the game to the computers (one quick change; the moves are
    the computers' queue's, never the sweep's): with ``timeout: computer`` the seats it waits
    for become computer players first while another person is left (each then counts as last
    at the table, a forfeit, as the ratings count it); every move left is then played by the
    computer, a person's on autopilot (:func:`bot.core.flow.play_out`). Returns 1 when it was
    handed over now (0: it had been, and is queued again, or it is over)."""
    async def change(g: LiveGame) -> int:
        if not g.status.started:
            if g.status is GameStatus.LOBBY:
                await flow.end(k, g, GameStatus.CANCELLED, "round_deadline")
            return 0
        if not g.status.active:
            return 0
        fresh = not g.flags & FLAG_PLAY_OUT
        if fresh and g.options.timeout_action is TimeoutAction.COMPUTER:
            for seat in range(len(g.seats)):
                if g.must_act(seat) and g.seats[seat].ai_level is None and len(g.people) > 1:
                    g = await flow.convert(k, g, seat, "timeout")
        await flow.play_out(k, g)
        return int(fresh)

    return await k.mutate(game_id, change)


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
