"""Fixtures for the adapter's tests without a client: a core on a temporary SQLite file (the
messages and notices are built from real games)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from tests.core.conftest import seeds


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[Manager]:
    m = await Manager.open(tmp_path / "calico.db", clock=FakeClock(), seed_source=seeds())
    try:
        yield m
    finally:
        await m.close()
