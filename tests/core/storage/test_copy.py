"""``calico-bot migrate-db FROM TO``: a SQLite database copied into PostgreSQL and back loses
nothing (every table's rows, checked by count and by content), games go on after the move, and
a target that is not empty is refused untouched."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.storage import StorageError, open_store
from bot.core.storage.base import TABLES
from bot.core.storage.copy import copy_database
from tests.core.conftest import BOB, CAT, RecordingDelivery, new_game, play_out, seeds, step


async def rows_of(location: str) -> dict[str, list[tuple[object, ...]]]:
    store = await open_store(location, exclusive=False)
    try:
        out = {}
        for table in TABLES:
            columns = sorted(await store.table_columns(table))
            out[table] = [r async for batch in store.export_rows(table, columns) for r in batch]
        return out
    finally:
        await store.close()


async def filled(path: Path, clock: FakeClock) -> None:
    m = await Manager.open(path, clock=clock, seed_source=seeds())
    over = await new_game(m, people=(BOB,), setup="beginner")
    await play_out(m, over, random.Random(2))
    g = await new_game(m, host=CAT, computers=1)
    await step(m, g, CAT.id)
    await m.dispatcher(RecordingDelivery()).run_once()
    await queries.set_settings(m.kernel, BOB.id, reminders=False)
    await m.close()


async def test_sqlite_to_postgresql_and_back_keeps_every_row(
        tmp_path: Path, pg_db: str) -> None:
    clock = FakeClock()
    source = tmp_path / "small.sqlite3"
    await filled(source, clock)
    before = await rows_of(str(source))
    report = await copy_database(str(source), pg_db)
    assert {t: n for t, (n, _) in report.items()} == {t: len(r) for t, r in before.items()}
    assert await rows_of(pg_db) == before
    back = tmp_path / "back.sqlite3"
    await copy_database(pg_db, str(back))
    assert await rows_of(str(back)) == before
    # The game goes on on PostgreSQL (ids continue after the copied ones).
    m = await Manager.open(pg_db, clock=clock, seed_source=seeds(50))
    try:
        playing = await queries.games_for_user(m.kernel, CAT.id)
        assert len(playing) == 1 and playing[0].status.active
        fresh = await new_game(m, people=(BOB,))
        assert fresh.id > max(g.id for g in playing)
        assert (await queries.get_settings(m.kernel, BOB.id)).reminders is False
    finally:
        await m.close()


async def test_a_target_with_data_is_refused_untouched(tmp_path: Path, pg_db: str) -> None:
    clock = FakeClock()
    source = tmp_path / "a.sqlite3"
    await filled(source, clock)
    await copy_database(str(source), pg_db)
    before = await rows_of(pg_db)
    with pytest.raises(StorageError, match="empty"):
        await copy_database(str(source), pg_db)
    assert await rows_of(pg_db) == before


def test_the_command_reports_each_table(tmp_path: Path, pg_db: str,
                                        capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import bot.__main__

    # The command sets up logging for a terminal; the test keeps pytest's own.
    monkeypatch.setattr(bot.__main__.logs, "configure", lambda *a, **k: None)

    source = tmp_path / "cmd.sqlite3"
    asyncio.run(filled(source, FakeClock()))
    assert main(["migrate-db", str(source), pg_db]) == 0
    out = capsys.readouterr().out
    assert "games: " in out and "every table's row count matches" in out
    assert main(["migrate-db", str(source), pg_db]) == 1  # not empty any more
    assert "empty" in capsys.readouterr().err
