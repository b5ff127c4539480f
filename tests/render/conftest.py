"""Seeded games shared by the rendering tests (played once per session, with the samples' own
random chooser so that changes to the engine's computer players do not move the goldens)."""

from __future__ import annotations

import pytest

from engine.config import GameOptions
from engine.state import GameState
from render.samples import play_until


@pytest.fixture(scope="session")
def two_mid() -> GameState:
    """Two players, standard setup, 25 turns in (after both goal drafts)."""
    return play_until(GameOptions(players=2), 11, 2 + 25, own_chooser=True)


@pytest.fixture(scope="session")
def two_end() -> GameState:
    return play_until(GameOptions(players=2), 11, None, own_chooser=True)


@pytest.fixture(scope="session")
def four_mid() -> GameState:
    return play_until(GameOptions(players=4), 5, 4 + 40, own_chooser=True)


@pytest.fixture(scope="session")
def family_mid() -> GameState:
    return play_until(GameOptions(players=3, family=True), 3, 3 * 12, own_chooser=True)


@pytest.fixture(scope="session")
def draft_start() -> GameState:
    return play_until(GameOptions(players=2), 11, 0, own_chooser=True)


@pytest.fixture(scope="session")
def solo_end() -> GameState:
    """A solo scenario game (scenario 3) played to its end."""
    return play_until(GameOptions(players=1, scenario=3), 2, None, own_chooser=True)
