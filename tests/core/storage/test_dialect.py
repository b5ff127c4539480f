"""What the dialect (:mod:`bot.core.storage.dialect`) spells for each backend: placeholders
(numbered in order on PostgreSQL), row locks (kept on PostgreSQL, dropped on SQLite, whose
writers are serialised anyway) and the larger of two values (``greatest`` on PostgreSQL; the
aggregate ``max(x)`` stays as written); and a statement written once runs on both."""

from __future__ import annotations

from bot.core.manager import Manager
from bot.core.storage import dialect
from bot.core.storage.steps import Plan, fetch_one


def test_placeholders_are_numbered_in_order_on_postgresql_only() -> None:
    text = "SELECT " + ", ".join("?" for _ in range(12))
    assert dialect.postgres(text) == "SELECT " + ", ".join(f"${i}" for i in range(1, 13))
    assert dialect.sqlite(text) == text


def test_row_locks_are_postgresqls() -> None:
    for lock in (" FOR UPDATE", " FOR UPDATE SKIP LOCKED"):
        text = f"SELECT id FROM lanes WHERE next_due <= ? LIMIT ?{lock}"
        assert dialect.postgres(text) == f"SELECT id FROM lanes WHERE next_due <= $1 LIMIT $2{lock}"
        assert dialect.sqlite(text) == "SELECT id FROM lanes WHERE next_due <= ? LIMIT ?"


def test_the_larger_of_two_values_and_the_aggregate() -> None:
    text = "SELECT max(total), max(t.best, ?) FROM t"
    assert dialect.postgres(text) == "SELECT max(total), greatest(t.best, $1) FROM t"
    assert dialect.sqlite(text) == text


def _spelled(key: str) -> Plan[tuple[int, str]]:
    row = yield from fetch_one("SELECT max(updated_at, ?), value FROM app_state "
                               "WHERE key = ? FOR UPDATE", 25, key)
    assert row is not None
    return int(row[0]), str(row[1])


async def test_one_statement_runs_on_both_backends(manager: Manager) -> None:
    await manager.store.set_state("shards", "4", 10)
    assert await manager.store.transact(_spelled("shards")) == (25, "4")
    await manager.store.set_state("shards", "5", 40)
    assert await manager.store.transact(_spelled("shards")) == (40, "5")
