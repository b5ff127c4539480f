"""The outbox lanes of the shared store (:class:`bot.core.storage.sqlstore.SqlStore`, both
backends): a lane queued with an express notice (a new game's thread to open) is claimed before
lanes that waited longer, an express claim takes only such lanes, and an express notice joining
a lane already due does not move it ahead of the others."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.notices import Ended, Lobby, OpenThread, TurnPrompt, encode
from bot.core.storage import (
    THREAD,
    GameWrite,
    Lane,
    NewGame,
    NoticeDraft,
    SeatRow,
    Store,
    open_store,
)
from tests.core.conftest import ANN, CHANNEL, GUILD

LEASE = 60_000


@pytest.fixture
async def store(db_path: str) -> AsyncIterator[Store]:
    opened = await open_store(db_path, exclusive=False)
    try:
        yield opened
    finally:
        await opened.close()


def draft(body: Ended | Lobby | OpenThread | TurnPrompt, user_id: int | None = None) -> NoticeDraft:
    return NoticeDraft(body.kind, user_id, 0, encode(body), express=body.express)


async def game_with(store: Store, now: int, *notices: NoticeDraft) -> int:
    return await store.create_game(NewGame(
        columns={"guild_id": GUILD, "channel_id": CHANNEL, "host_id": ANN.id, "options": "{}",
                 "status": "lobby"},
        seats=(SeatRow(0, ANN.id, ANN.name),), now=now, notices=list(notices)))


async def claimed(store: Store, now: int, limit: int = 10, *,
                  express: bool = False) -> set[tuple[int, int]]:
    lanes = await store.claim_lanes("me", now, LEASE, limit, express)
    return {(lane.game_id, lane.recipient) for lane in lanes}


async def test_an_express_lane_is_claimed_before_older_ones(store: Store) -> None:
    older = await game_with(store, 1000, draft(Ended()), draft(TurnPrompt(seat=0), ANN.id))
    store.notices_added.clear()
    new = await game_with(store, 2000, draft(OpenThread()), draft(Lobby()))
    assert store.notices_added.is_set()  # the dispatcher is woken at once
    assert await claimed(store, 3000, limit=1) == {(new, THREAD)}
    assert await claimed(store, 3000) == {(older, THREAD), (older, ANN.id)}


async def test_an_express_claim_takes_only_express_lanes(store: Store) -> None:
    older = await game_with(store, 1000, draft(Ended()))
    new = await game_with(store, 2000, draft(OpenThread()))
    assert await claimed(store, 3000, express=True) == {(new, THREAD)}
    assert await claimed(store, 3000, express=True) == set()  # leased now
    assert await claimed(store, 3000) == {(older, THREAD)}


async def test_an_express_notice_does_not_move_a_lane_already_due(store: Store) -> None:
    waiting = await game_with(store, 1000, draft(Ended()))
    row = await store.load_game(waiting)
    assert row is not None
    await store.commit(GameWrite(waiting, row.version, 2500, notices=[draft(Lobby())]))
    assert await claimed(store, 3000, express=True) == set()
    assert await claimed(store, 3000) == {(waiting, THREAD)}
    served = await store.lane_notices(Lane(waiting, THREAD), limit=10)
    assert [n.kind for n in served] == ["ended", "lobby"]  # in the order queued
