"""Shared fixtures for the rules-engine tests (helpers live in ``tests.engine.helpers``)."""

from __future__ import annotations

import pytest

from data import Catalog
from tests.engine.helpers import CATALOG


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The game's catalogue, loaded once."""
    return CATALOG
