"""The database file: creation and migration, refusing newer or corrupt files without touching
them, the pragmas, the optimistic version check, and the fast state encoder."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from bot.core.manager import Manager
from bot.core.storage import GameWrite, StaleWriteError, StorageError, Store, latest_version
from bot.core.storage.codec import decode_state, encode_config, encode_state
from data import load_catalog
from engine.config import GameOptions, Restriction, Setup
from engine.rules import apply, legal_moves
from engine.serialize import state_to_json
from engine.setup import new_game
from engine.state import Phase
from tests.bot.conftest import ANN
from tests.bot.conftest import new_game as make_game


async def test_new_file_is_created_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    store = await Store.open(path)
    try:
        assert store.db.version == latest_version() >= 1
        journal = await store.db.run(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0])
        fks = await store.db.run(lambda c: c.execute("PRAGMA foreign_keys").fetchone()[0])
        busy = await store.db.run(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0])
        assert (journal, fks) == ("wal", 1) and busy > 0
    finally:
        await store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "seats", "moves", "outbox", "timers", "users", "results"} <= tables
    conn.close()


async def test_empty_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    store = await Store.open(path)
    assert store.db.version == latest_version()
    await store.close()


async def test_reopen_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    m = await Manager.open(path)
    g = await m.create_game(ANN, 1, 2)
    await m.close()
    m = await Manager.open(path)
    assert (await m.get_game(g.id)).host_id == ANN.id
    assert m.store.db.version == latest_version()
    await m.close()


async def test_newer_schema_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match="newer"):
        await Store.open(path)
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


async def test_not_a_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 100)
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not a SQLite database"):
        await Store.open(path)
    assert path.read_bytes() == before


async def test_damaged_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("CREATE INDEX t_body ON t (body)")
    conn.executemany("INSERT INTO t (body) VALUES (?)", [(f"row {i}" * 20,) for i in range(400)])
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 6 * page
    for p in range(2, len(data) // page):  # scribble over every page but the first
        data[p * page + 8: p * page + 200] = bytes(random.Random(p).randbytes(192))
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StorageError):
        await Store.open(path)
    assert path.read_bytes() == before


async def test_migration_failure_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    import bot.core.storage.db as db

    good = db.migrations()
    monkeypatch.setattr(db, "migrations", lambda: [*good, (len(good) + 1, "CREATE TABLE x (;")])
    path = tmp_path / "rollback.db"
    with pytest.raises(sqlite3.Error):
        await Store.open(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name='games'").fetchone()[0] == 0
    conn.close()


async def test_stale_write_changes_nothing(manager: Manager) -> None:
    g = await make_game(manager, computers=1)
    row = await manager.store.load_game(g.id)
    assert row is not None
    with pytest.raises(StaleWriteError):
        await manager.store.commit(GameWrite(game_id=g.id, expect_version=row.version - 1,
                                             now=0, columns={"ply": 99}))
    assert await manager.store.load_game(g.id) == row


def _states(options: GameOptions, seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    state = new_game(load_catalog(), options, seed)
    yield state
    while state.phase is not Phase.OVER:
        state, _ = apply(state, rng.choice(legal_moves(state)))
        yield state


@pytest.mark.parametrize("options", [
    GameOptions(players=1),
    GameOptions(players=2, setup=Setup.BEGINNER),
    GameOptions(players=3, restriction=Restriction.NO_HAND),
    GameOptions(players=4, family=True),
    GameOptions(players=1, scenario=3),
])
def test_fast_encoder_matches_the_engine(options: GameOptions) -> None:
    config = None
    for i, state in enumerate(_states(options, 11)):
        config = config or encode_config(state)
        text = encode_state(state, config)
        assert json.loads(text) == json.loads(json.dumps(state_to_json(state))), i
        assert decode_state(text) == state


def test_fast_event_dicts_match_the_engine() -> None:
    from bot.core.storage.codec import dumps, event_dict, splice
    from engine.events import event_from_dict, event_to_dict

    rng = random.Random(4)
    state = new_game(load_catalog(), GameOptions(players=2, scenario=None), 4)
    kinds = set()
    while state.phase is not Phase.OVER:
        state, events = apply(state, rng.choice(legal_moves(state)))
        for e in events:
            kinds.add(e.kind)
            fast = json.loads(dumps(event_dict(e)))
            assert fast == json.loads(json.dumps(event_to_dict(e)))
            assert event_from_dict(fast) == e
    assert {"game_over", "tile_placed", "goals_chosen"} <= kinds
    assert json.loads(splice({"a": 1}, {"b": "[1,2]"})) == {"a": 1, "b": [1, 2]}
    assert json.loads(splice({}, {"b": "{}"})) == {"b": {}}
