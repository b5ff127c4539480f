"""The statements, written once (:mod:`bot.core.storage.sql` and each feature's ``store.py``):
every one of them, as the dialect spells it, is valid on both backends against the migrated
schema (compiled by the database, not run); column and table names only ever come from the
fixed lists; and the game queries filter as they say."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from bot.core import lobby as lobby_ops
from bot.core.challenge import store as challenge_store
from bot.core.manager import Manager
from bot.core.progress import store as progress_store
from bot.core.review import store as review_store
from bot.core.storage import dialect, sql
from bot.core.storage.rows import GAME_COLUMNS, NEW_GAME_COLUMNS, TABLES, USER_COLUMNS
from bot.core.storage.steps import Batch, Claim
from bot.core.tournament import store as tournament_store
from tests.core.conftest import ANN, BOB, CHANNEL, GUILD, new_game, opts

MODULES = (sql, challenge_store, progress_store, tournament_store, review_store)
VERBS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH ")

Statement = str | Batch | Claim


def statements() -> list[Statement]:
    """Every statement the stores run: the module constants, and the built ones in each of
    their forms."""
    found: list[Statement] = []
    for module in MODULES:
        for name, value in sorted(vars(module).items()):
            if name.startswith("_"):
                continue  # fragments of statements
            if (isinstance(value, str) and value.startswith(VERBS)) or isinstance(value, Batch):
                found.append(value)
    found += [
        sql.insert_game(sorted(NEW_GAME_COLUMNS)), sql.update_game(sorted(GAME_COLUMNS)),
        sql.update_user(sorted(USER_COLUMNS)), sql.count_games(3),
        sql.claim_lanes("me", 1, 2, 3), sql.claim_lanes("me", 1, 2, 3, express=True),
        sql.claim_timers("me", 1, 2, 3), tournament_store.update(sorted(tournament_store.COLUMNS)),
        *(sql.count_rows(t) for t in TABLES),
        sql.export_rows("games", ["id", "status"]), sql.import_rows("app_state", ["key"]),
        *(sql.game_ids(user, None, channel, guild, active, limit)[0]
          for user in (None, 1) for channel in (None, 2) for guild in (None, 3)
          for active in (False, True) for limit in (None, 4)),
        sql.game_ids(None, 7, None, None, False, None)[0],
        *(query(week="2026-W01", guild_id=guild, **extra)[0]
          for query, extra in ((challenge_store.board_query, {"limit": 3}),
                               (challenge_store.rank_query, {"score": 50}))
          for guild in (None, 5)),
    ]
    return found


def _compile_sqlite(conn: sqlite3.Connection, texts: list[str]) -> list[str]:
    problems = []
    for text in texts:
        try:
            conn.execute("EXPLAIN " + text, [None] * text.count("?"))
        except sqlite3.Error as e:
            problems.append(f"{e}: {text}")
    return problems


async def test_every_statement_compiles_on_both_backends(manager: Manager) -> None:
    store: Any = manager.store
    found = statements()
    assert len(found) > 80  # the walk found the modules' statements
    if store.backend == "sqlite":
        texts: list[str] = []
        for s in found:
            if isinstance(s, Batch):
                texts.append(dialect.sqlite_batch(s))
            elif isinstance(s, Claim):
                texts += [dialect.sqlite(dialect.claim_pick(s)), dialect.claim_lease(s)]
            else:
                texts.append(dialect.sqlite(s))
        problems = await store.db.run(_compile_sqlite, texts)
    else:
        problems = []
        async with store.pool.acquire() as conn:
            for s in found:
                text = (dialect.postgres_batch(s) if isinstance(s, Batch) else
                        dialect.postgres_claim(s) if isinstance(s, Claim) else
                        dialect.postgres(s))
                try:
                    await conn.prepare(text)
                except Exception as e:
                    problems.append(f"{e}: {text}")
    assert problems == []


def test_names_only_come_from_the_fixed_lists() -> None:
    with pytest.raises(ValueError, match="game"):
        sql.update_game(["ply", "ply = 0; DROP TABLE games; --"])
    with pytest.raises(ValueError, match="game"):
        sql.insert_game(["version"])  # set by the store, never by a caller
    with pytest.raises(ValueError, match="user"):
        sql.update_user(["user_id"])
    with pytest.raises(ValueError, match="tournament"):
        tournament_store.update(["id"])
    for table in ("sqlite_master", "games; --", "pg_user"):
        with pytest.raises(ValueError, match="unknown table"):
            sql.count_rows(table)
        with pytest.raises(ValueError, match="unknown table"):
            sql.import_rows(table, ["x"])


async def test_game_queries_filter_as_they_say(manager: Manager) -> None:
    m = manager
    lobby = await new_game(m, players=3, start=False)
    playing = await new_game(m, host=BOB, people=(ANN,), setup="beginner")
    other = await lobby_ops.create_game(m.kernel, BOB, GUILD + 1, CHANNEL + 1, opts())
    await lobby_ops.cancel(m.kernel, other.id, BOB.id)
    ids = m.store.game_ids
    assert await ids() == [lobby.id, playing.id, other.id]
    assert await ids(user_id=ANN.id) == [playing.id, lobby.id]  # last changed first
    assert await ids(thread_id=playing.thread_id) == [playing.id]
    assert await ids(channel_id=CHANNEL) == [lobby.id, playing.id]
    assert await ids(channel_id=lobby.thread_id) == [lobby.id]  # its thread is in it too
    assert await ids(guild_id=GUILD + 1) == [other.id]
    assert await ids(user_id=BOB.id, active_only=True) == [playing.id]
    assert await ids(limit=2) == [lobby.id, playing.id]
    assert await m.store.count_games(ANN.id, ["lobby", "play"]) == 2
    assert await m.store.count_games(BOB.id, ["cancelled"]) == 1
