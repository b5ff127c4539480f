"""The database: creation and migration, refusing newer, foreign or damaged files without
touching them (SQLite) and foreign or newer databases (PostgreSQL), one process per SQLite file,
the pragmas, the integrity check on demand, the optimistic version check (both backends), and
the fast state encoder."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from bot.core import lobby, queries
from bot.core.manager import Manager
from bot.core.storage import GameWrite, StaleWriteError, StorageError, open_store
from bot.core.storage.codec import decode_state, encode_config, encode_state
from bot.core.storage.sqlite.db import SecondProcessError, check, latest_version
from bot.core.storage.sqlite.store import SqliteStore
from data import load_catalog
from engine.config import GameOptions, Restriction, Setup
from engine.rules import apply, legal_moves
from engine.serialize import state_to_json
from engine.setup import new_game
from engine.state import Phase
from tests.core.conftest import ANN
from tests.core.conftest import new_game as make_game


async def test_new_file_is_created_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    store = await SqliteStore.open(path)
    try:
        assert store.schema_version == latest_version() >= 2
        journal = await store.db.run(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0])
        fks = await store.db.run(lambda c: c.execute("PRAGMA foreign_keys").fetchone()[0])
        busy = await store.db.run(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0])
        vacuum = await store.db.run(lambda c: c.execute("PRAGMA auto_vacuum").fetchone()[0])
        assert (journal, fks, vacuum) == ("wal", 1, 2) and busy > 0
    finally:
        await store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "seats", "moves", "outbox", "timers", "users", "results", "lanes",
            "player_totals", "app_state"} <= tables
    conn.close()


async def test_empty_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    store = await SqliteStore.open(path)
    assert store.schema_version == latest_version()
    await store.close()


async def test_reopen_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    m = await Manager.open(path)
    g = await lobby.create_game(m.kernel, ANN, 1, 2)
    await m.close()
    m = await Manager.open(path)
    assert (await queries.game(m.kernel, g.id)).host_id == ANN.id
    assert m.store.schema_version == latest_version()
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
        await SqliteStore.open(path)
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


async def test_not_a_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 100)
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not a SQLite database"):
        await SqliteStore.open(path)
    assert path.read_bytes() == before


async def test_damaged_schema_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    m = await Manager.open(path)
    await lobby.create_game(m.kernel, ANN, 1, 2)
    await m.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = random.Random(1).randbytes(3996)  # the schema page, after the header
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StorageError):
        await SqliteStore.open(path)
    assert path.read_bytes() == before


async def test_open_is_cheap_and_the_full_check_is_on_demand(tmp_path: Path) -> None:
    """Opening reads the header and the schema only (start-up must not grow with history);
    damaged data pages are found by ``calico-bot check`` (the full integrity check)."""
    path = tmp_path / "big.db"
    m = await Manager.open(path)
    for _ in range(300):
        await lobby.create_game(m.kernel, ANN, 1, 2)
    await m.store.checkpoint()  # type: ignore[attr-defined]
    await m.close()
    assert await check(path) == []
    conn = sqlite3.connect(path)
    leaves = [r[0] for r in conn.execute(
        "SELECT pageno FROM dbstat WHERE name = 'games' AND pagetype = 'leaf'")]
    conn.close()
    assert len(leaves) > 3
    data = bytearray(path.read_bytes())
    page = 4096
    for p in leaves:  # scribble over the games table's data pages
        data[(p - 1) * page + 8: (p - 1) * page + 200] = random.Random(p).randbytes(192)
    path.write_bytes(bytes(data))
    store = await SqliteStore.open(path)  # not refused: nothing read them
    try:
        assert await store.integrity_check() != []
    finally:
        await store.close()
    assert await check(path) != []


async def test_a_foreign_sqlite_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "theirs.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not calico-bot's"):
        await SqliteStore.open(path)
    assert path.read_bytes() == before


async def test_a_second_process_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    """SQLite serves one bot process; a second one is told to use PostgreSQL (another OS
    process, as a host running two workers would start it)."""
    import subprocess
    import sys

    path = tmp_path / "one.db"
    m = await Manager.open(path)
    try:
        code = (
            "import asyncio, sys\n"
            "from bot.core.storage import open_store\n"
            "from bot.core.storage.sqlite.db import SecondProcessError\n"
            "async def main():\n"
            f"    try:\n        await open_store({str(path)!r})\n"
            "    except SecondProcessError as e:\n        print(e); sys.exit(3)\n"
            "asyncio.run(main())\n")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                timeout=60, check=False)
        assert result.returncode == 3, result.stderr
        assert "PostgreSQL" in result.stdout
        with pytest.raises(SecondProcessError):
            await open_store(path)
    finally:
        await m.close()
    again = await open_store(path)  # the lock went with the first process's store
    await again.close()


async def test_migration_failure_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    import bot.core.storage.sqlite.db as db

    good = db.migrations()
    monkeypatch.setattr(db, "migrations", lambda: [*good, (len(good) + 1, "CREATE TABLE x (;")])
    path = tmp_path / "rollback.db"
    with pytest.raises(sqlite3.Error):
        await SqliteStore.open(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name='games'").fetchone()[0] == 0
    conn.close()


async def test_a_foreign_or_newer_postgres_database_is_refused(pg_db: str) -> None:
    import asyncpg

    url = pg_db
    conn = await asyncpg.connect(url)
    await conn.execute("CREATE TABLE invoices (id int)")
    await conn.close()
    with pytest.raises(StorageError, match="not calico-bot's"):
        await open_store(url)
    conn = await asyncpg.connect(url)
    assert await conn.fetchval("SELECT to_regclass('games')") is None  # untouched
    await conn.execute("DROP TABLE invoices")
    await conn.close()
    store = await open_store(url)  # empty: created and migrated
    await store.close()
    conn = await asyncpg.connect(url)
    await conn.execute("UPDATE calico_schema SET version = version + 1")
    await conn.close()
    with pytest.raises(StorageError, match="newer"):
        await open_store(url)


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


async def test_exclusive_is_released_on_pooled_connections(pg_db: str) -> None:
    """Pooled PostgreSQL connections are not reset when they go back to the pool, so the one
    lock the store takes on them must be gone after its block, also when the block failed: a
    second store (another process) gets it at once, every time, through every connection."""
    first = await open_store(pg_db, exclusive=False)
    second = await open_store(pg_db, exclusive=False)
    try:
        for attempt in range(6):  # more than the pool's idle connections
            async with first.exclusive("sync") as held:
                assert held
                async with second.exclusive("sync") as also:
                    assert not also  # held by the other process meanwhile
            async with second.exclusive("sync") as held:
                assert held
            with pytest.raises(RuntimeError):
                async with first.exclusive("sync") as held:
                    assert held
                    raise RuntimeError(f"failed block {attempt}")
            async with second.exclusive("sync") as held:
                assert held
    finally:
        await first.close()
        await second.close()
