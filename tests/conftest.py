"""Settings and fixtures for the whole test suite.

Under CI (``CI`` set) hypothesis draws the same examples on every run, so a result depends on
the code and not on the draw; locally it explores fresh examples each time.

``pg_admin``: the PostgreSQL server the storage tests run against (``CALICO_TEST_PG``, or a
throwaway one started for the session, see :mod:`tests.pgserver`). When it cannot start, every
PostgreSQL test is skipped with the reason, and the run ends with a banner saying so.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings

from tests.pgserver import fresh_database, server_url

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

_PG_PROBLEM: list[str] = []


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[tuple[str | None, str]]:
    """(admin URL of a PostgreSQL server, or None; why there is none)."""
    with server_url() as (url, reason):
        if url is None:
            _PG_PROBLEM.append(reason)
        yield url, reason


@pytest.fixture
async def pg_db(pg_admin: tuple[str | None, str]) -> AsyncIterator[str]:
    """A fresh PostgreSQL database for one test (see :func:`tests.pgserver.fresh_database`)."""
    async with fresh_database(pg_admin) as url:
        yield url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _PG_PROBLEM:
        terminalreporter.section("PostgreSQL tests were SKIPPED", sep="!", red=True, bold=True)
        terminalreporter.line(_PG_PROBLEM[0], red=True)
