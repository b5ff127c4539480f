"""Registers the fake-Discord fixtures (``discord_env``) and the ``fakediscord`` marker."""

from __future__ import annotations

import pytest

from tests.fakediscord.fixtures import discord_env, register_markers

__all__ = ["discord_env"]


def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
