"""pytest fixtures for the fake Discord.

``discord_env`` yields a started :class:`~tests.fakediscord.env.DiscordEnv` (server listening,
discord.py redirected) and tears everything down afterwards; at teardown it fails the test if
the bot broke a Discord rule (``env.violations``) or discord.py logged an unhandled error.
Tune it per test with the ``fakediscord`` marker::

    @pytest.mark.fakediscord(interaction_deadline=0.2, fail_on_violations=False)

Register the fixture and marker from a conftest with::

    from tests.fakediscord.fixtures import discord_env, register_markers  # noqa: F401

    def pytest_configure(config):
        register_markers(config)
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from .env import DiscordEnv

MARKER = "fakediscord"


def register_markers(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(**options): options for the discord_env fixture (DiscordEnv keyword arguments, "
        "plus fail_on_violations=True and fail_on_client_errors=True)",
    )


@pytest_asyncio.fixture
async def discord_env(request: pytest.FixtureRequest) -> AsyncIterator[DiscordEnv]:
    marker = request.node.get_closest_marker(MARKER)
    options = dict(marker.kwargs) if marker is not None else {}
    fail_on_violations = bool(options.pop("fail_on_violations", True))
    fail_on_client_errors = bool(options.pop("fail_on_client_errors", True))
    env = DiscordEnv(**options)
    await env.start()
    try:
        yield env
    finally:
        await env.close()
    problems = env.problems(violations=fail_on_violations, client_errors=fail_on_client_errors)
    if problems:
        pytest.fail(
            "fake Discord saw problems (pop_violations()/pop_client_errors() expected ones):\n  "
            + "\n  ".join(problems),
            pytrace=False,
        )
