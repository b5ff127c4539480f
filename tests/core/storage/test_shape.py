"""The storage package's shape: neither backend imports the other (the SQL they share lives in
``bot.core.storage.sql`` and ``plans``), and the dialect spells one statement for each."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.core.storage import dialect, sql
from bot.core.storage.steps import Batch

STORAGE = Path(__file__).resolve().parents[3] / "bot" / "core" / "storage"


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize(("backend", "other"), [("sqlite", "postgres"), ("postgres", "sqlite")])
def test_a_backend_never_imports_the_other(backend: str, other: str) -> None:
    for path in (STORAGE / backend).glob("*.py"):
        assert not any(m.startswith(f"bot.core.storage.{other}") for m in imported(path)), path


def test_the_shared_modules_import_no_backend() -> None:
    for name in ("sql", "plans", "steps", "dialect", "sqlstore", "base", "rows"):
        mods = imported(STORAGE / f"{name}.py")
        assert not any(m.startswith(("bot.core.storage.sqlite", "bot.core.storage.postgres",
                                     "asyncpg", "sqlite3")) for m in mods), name


def test_the_dialect_spells_one_statement_for_each_backend() -> None:
    assert dialect.sqlite(sql.LANE_OWNER).endswith("recipient = ?")
    assert dialect.postgres(sql.LANE_OWNER).endswith("recipient = $2 FOR UPDATE")
    assert "greatest(player_totals.best, excluded.best)" in dialect.postgres(sql.UPSERT_TOTALS)
    assert "max(player_totals.best, excluded.best)" in dialect.sqlite(sql.UPSERT_TOTALS)
    claim = sql.claim_lanes("me", 10, 20, 4)
    assert dialect.postgres_claim(claim) == (
        "UPDATE lanes SET owner = $1, lease_until = $2, next_due = $3, served_since = "
        "coalesce(served_since, $4) FROM (SELECT game_id, recipient FROM lanes WHERE next_due "
        "<= $5 ORDER BY next_due LIMIT $6 FOR UPDATE SKIP LOCKED) c WHERE lanes.game_id = "
        "c.game_id AND lanes.recipient = c.recipient "
        "RETURNING lanes.game_id, lanes.recipient, lanes.served_since")
    assert dialect.claim_pick(claim) == (
        "SELECT game_id, recipient, served_since FROM lanes WHERE next_due <= ? "
        "ORDER BY next_due LIMIT ?")
    assert dialect.claim_lease(claim) == (
        "UPDATE lanes SET owner = ?, lease_until = ?, next_due = ?, served_since = "
        "coalesce(served_since, ?) WHERE game_id = ? AND recipient = ?")
    batch = Batch("INSERT INTO t (a, b)", ("bigint", "text"), "ON CONFLICT (a) DO NOTHING")
    assert dialect.sqlite_batch(batch) == (
        "INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO NOTHING")
    assert dialect.postgres_batch(batch) == (
        "INSERT INTO t (a, b) SELECT * FROM unnest($1::bigint[], $2::text[]) "
        "ON CONFLICT (a) DO NOTHING")
