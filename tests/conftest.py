"""Settings, markers and fixtures for the whole test suite.

Under CI (``CI`` set) hypothesis draws the same examples on every run, so a result depends on
the code and not on the draw; locally it explores fresh examples each time.

Markers, applied here at collection (see :func:`pytest_collection_modifyitems`), so no test file
needs to remember them:

- ``e2e``: everything under ``tests/e2e`` (the bot against the fake Discord); also ``slow``;
- ``postgres``: a test that uses a PostgreSQL database (the ``pg_db`` or ``pg_admin`` fixture,
  or the ``postgresql`` case of a test parametrised over both backends);
- ``slow``: e2e, plus the tests listed in :data:`SLOW` (over about 3 s on this machine, or
  starting subprocesses).

``python -m pytest`` runs everything (CI does); ``python -m pytest -m "not slow and not
postgres"`` is the fast selection for local work. Every test has a time limit (``timeout`` in
``pyproject.toml``, pytest-timeout) so a hang fails fast; the long ones carry a larger
``@pytest.mark.timeout``.

``pg_admin``: the PostgreSQL server the storage tests run against (``CALICO_TEST_PG``, or a
throwaway one started for the session, see :mod:`tests.pgserver`). When it cannot start, every
PostgreSQL test is skipped with the reason, and the run ends with a banner saying so.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.pgserver import fresh_database, server_url

# No per-example deadline anywhere: speed is measured in benchmarks, and a deadline only makes a
# property test fail on a busy machine (a 517 ms example of the round-robin schedule at load 15).
settings.register_profile("local", deadline=None)
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "local")

_PG_PROBLEM: list[str] = []
ROOT = Path(__file__).resolve().parent.parent

# Slow tests outside tests/e2e: file -> names, or None for every test of the file. A name is a
# test function's, or a fixture's: then every test of the file using it is slow (a module
# fixture that takes seconds to build). Measured with --durations on 2 shared cores: about 3 s
# or more, or a test per subprocess. Kept short on purpose: the fast selection still covers
# every layer (the review, for one, keeps its quicker tests).
SLOW: dict[str, frozenset[str] | None] = {
    "tests/core/test_review.py": frozenset({
        "test_the_review_reads_nothing_the_seat_could_not_see",  # 21-23 s
        "test_hinted_games_are_left_out_of_the_average_accuracy",  # 17-22 s
        "test_review_is_computed_once_then_stored",  # 7-11 s
    }),
    "tests/engine/ai/test_review.py": frozenset({
        "copied", "randomly",  # fixtures: whole games played (and reviewed), 5-7 s each
        "test_review_ignores_hidden_information",  # 8 s
        "test_same_input_same_review",  # two whole reviews: 15-40 s
    }),
    # Three whole 4-player replay GIFs with every drawn character checked: 2-5 s each.
    "tests/render/test_scripts.py": frozenset({"test_replay_names"}),
    "tests/core/test_processes.py": None,  # OS processes on PostgreSQL, 4-6 s each
    "tests/core/test_computer_seats.py": frozenset({"test_the_demo_previews_the_move_it_plays"}),
    # One fresh interpreter per adapter module (31, about 36 s together); the import circles
    # they would reveal are found statically, in a second, by tests/test_import_graph.py.
    "tests/test_layers.py": frozenset({"test_each_adapter_module_imports_first"}),
    # Operator commands and worker pools as real processes: 1-3 s each (issue 20, 10-13).
    "tests/test_cli.py": None,
    "tests/core/test_workers.py": None,
    # Every text of a whole 4-player replay, drawn with empty sprite caches: 3-7 s.
    "tests/render/test_legibility.py": frozenset({"test_replay_frames_read_at_phone_width"}),
    # The live progress against the brute-force reading, about 3,000 quilts: 4-7 s of CPU
    # each (8-14 s at load 11).
    "tests/engine/test_progress_truth.py": frozenset({
        "test_random_move_games_match_the_brute_force",
        "test_computer_games_match_the_brute_force",
        "test_random_quilts_match_the_brute_force",
    }),
    # The web site through the real client and the stand-in (5-8 s), and in a real browser.
    "tests/web/test_discord.py": None,
    "tests/web/test_browser.py": None,
    "tests/web/test_serve.py": None,  # calico-bot web as a process
}

# Longer limits than the default ``timeout`` (pyproject.toml), in seconds: file -> limit for
# each of its tests. A @pytest.mark.timeout(...) in the test file itself takes precedence.
TIMEOUTS: dict[str, int] = {
    "tests/e2e/test_three_processes.py": 1500,  # 40 games in 3 processes: 5-10 min
    "tests/e2e/test_backup.py": 400,  # 68 s under load 8
    "tests/e2e/test_flood.py": 400,  # 49 s under load 8
}

E2E_DIR = "tests/e2e/"


def _relative(item: pytest.Item) -> str:
    """The test's file relative to the repository root, as ``tests/…/test_x.py``."""
    try:
        return item.path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return ""


def _uses_postgres(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "postgres" in callspec.id:
        return True
    names = getattr(item, "fixturenames", ())
    if "pg_db" in names:
        return True
    if "pg_admin" in names:
        # A fixture parametrised over both backends (``db_path``) asks for ``pg_admin`` in its
        # SQLite case too: only its PostgreSQL case (caught above) uses the server.
        return callspec is None or not any(
            isinstance(v, str) and v in ("sqlite", "postgresql") for v in callspec.params.values())
    return False


def _is_slow(item: pytest.Item, relative: str) -> bool:
    if relative not in SLOW:
        return False
    names = SLOW[relative]
    return names is None or getattr(item, "originalname", item.name) in names or \
        not names.isdisjoint(getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        relative = _relative(item)
        if relative.startswith(E2E_DIR):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)
        elif _is_slow(item, relative):
            item.add_marker(pytest.mark.slow)
        if _uses_postgres(item):
            item.add_marker(pytest.mark.postgres)
        if relative in TIMEOUTS:
            item.add_marker(pytest.mark.timeout(TIMEOUTS[relative]))


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
