"""A pytest plugin that runs the project's own test suites with the PROTOTYPE PostgreSQL store
(``benchmarks/pg_fast_store.py``) in place of the bot's, to check that the prototype keeps
every behaviour the suites pin down (it changes no file under ``bot/`` or ``tests/``):

    .venv/bin/python -m pytest -p benchmarks.pg_fast_store_plugin tests/bot -k postgresql
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    import bot.core.storage.postgres.store as pg_store
    from benchmarks.pg_fast_store import FastPostgresStore

    pg_store.PostgresStore = FastPostgresStore  # type: ignore[misc]
    config.addinivalue_line("markers", "prototype_store: run with the prototype PG store")


def pytest_report_header(config: pytest.Config) -> str:
    return "PostgreSQL store: the PROTOTYPE in benchmarks/pg_fast_store.py"
