"""Plans on the real databases (both backends): a plan's steps run in one transaction (an
error stores none of them, :class:`Rollback` undoes them and hands back its value); a unique
constraint's refusal comes back into the plan as :class:`ConflictError`; and the steps a
feature adds to a game's commit (or creation) run inside it, with the game's id, and their
failure undoes the whole of it."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.manager import Manager
from bot.core.notices import Ended, encode
from bot.core.storage import GameWrite, MoveRow, NewGame, NoticeDraft, SeatRow
from bot.core.storage.sql import GET_STATE, SET_STATE
from bot.core.storage.steps import ConflictError, Plan, Rollback, execute, fetch_one
from tests.core.conftest import ANN, CHANNEL, GUILD, new_game, snapshot

INSERT = "INSERT INTO app_state (key, value, updated_at) VALUES (?, ?, ?)"


async def stored(m: Manager) -> dict[str, str]:
    rows = await m.store.fetch("SELECT key, value FROM app_state ORDER BY key", ())
    return {str(r[0]): str(r[1]) for r in rows}


def writes(*keys: str, then: BaseException | None = None) -> Plan[int]:
    for key in keys:
        yield from execute(INSERT, key, "v", 0)
    if then is not None:
        raise then
    row = yield from fetch_one("SELECT count(*) FROM app_state")
    assert row is not None
    return int(row[0])


async def test_a_plan_runs_in_one_transaction(manager: Manager) -> None:
    assert await manager.store.transact(writes("a", "b")) == 2
    with pytest.raises(RuntimeError):
        await manager.store.transact(writes("c", "d", then=RuntimeError("midway")))
    assert await stored(manager) == {"a": "v", "b": "v"}


async def test_a_rollback_undoes_the_plan_and_hands_back_its_value(manager: Manager) -> None:
    got = await manager.store.transact(writes("c", "d", then=Rollback("kept out")))
    assert got == "kept out"
    assert await stored(manager) == {}


class TakenError(Exception):
    pass


def claim(key: str, who: str) -> Plan[str]:
    yield from execute(SET_STATE, "last claim", f"{key} by {who}", 0)
    try:
        yield from execute(INSERT, key, "mine", 0)
    except ConflictError:
        raise TakenError(key) from None  # the plan says what the refusal means
    return key


async def test_a_conflict_comes_back_into_the_plan(manager: Manager) -> None:
    assert await manager.store.transact(claim("seat-1", "ann")) == "seat-1"
    with pytest.raises(TakenError):
        await manager.store.transact(claim("seat-1", "bob"))
    # Nothing of Bob's attempt is stored, not even what came before the refusal.
    assert await stored(manager) == {"last claim": "seat-1 by ann", "seat-1": "mine"}


def remember(key: str, seen: list[int]) -> Any:
    """A feature's step: its own row, written in the game's transaction."""
    def step(game_id: int) -> Plan[None]:
        seen.append(game_id)
        yield from execute(SET_STATE, key, str(game_id), 0)
        row = yield from fetch_one(GET_STATE, key)
        assert row is not None and row[0] == str(game_id)

    return step


def refuse(_game_id: int) -> Plan[None]:
    yield from execute(INSERT, "refusal", "late", 0)
    raise TakenError("the feature refuses")


async def test_a_features_steps_go_with_the_games_commit_or_not_at_all(
        manager: Manager) -> None:
    m = manager
    g = await new_game(m, players=2, start=False)
    now = m.kernel.now_ms()
    seen: list[int] = []

    def write(steps: list[Any]) -> GameWrite:
        return GameWrite(g.id, g.version, now, columns={"lobby_message_id": 31},
                         move=MoveRow(g.id, 0, 0, "h0@C3>m2", "user", "[]", now),
                         notices=[NoticeDraft("ended", None, 0, encode(Ended()))],
                         steps=steps)

    before = await snapshot(m, g.id)
    with pytest.raises(TakenError):
        await m.store.commit(write([remember("first", seen), refuse]))
    assert await snapshot(m, g.id) == before  # the game, its move, its notices: untouched
    assert await stored(m) == {}
    assert seen == [g.id]
    assert await m.store.commit(write([remember("first", seen)])) == 1
    assert await stored(m) == {"first": str(g.id)}
    row = await m.store.load_game(g.id)
    assert row is not None and (row.version, row.lobby_message_id) == (g.version + 1, 31)
    assert len(await m.store.moves(g.id)) == 1


async def test_a_features_steps_go_with_a_new_game_or_not_at_all(manager: Manager) -> None:
    m = manager
    now = m.kernel.now_ms()
    seen: list[int] = []

    def new(steps: list[Any]) -> NewGame:
        return NewGame(columns={"guild_id": GUILD, "channel_id": CHANNEL, "host_id": ANN.id,
                                "options": "{}", "status": "lobby"},
                       seats=(SeatRow(0, ANN.id, ANN.name),), now=now,
                       notices=[NoticeDraft("ended", None, 0, encode(Ended()))], steps=steps)

    with pytest.raises(TakenError):
        await m.store.create_game(new([remember("entry", seen), refuse]))
    assert await m.store.game_ids(channel_id=CHANNEL) == []
    assert await m.store.notices() == [] and await stored(m) == {}
    game_id = await m.store.create_game(new([remember("entry", seen)]))
    assert await m.store.game_ids(channel_id=CHANNEL) == [game_id]
    assert seen[-1] == game_id and await stored(m) == {"entry": str(game_id)}
