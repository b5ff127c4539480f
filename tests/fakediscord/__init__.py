"""A local stand-in for Discord (REST v10 + gateway) that drives the real discord.py client.

Public API re-exported here.  Typical use in a test (with the ``discord_env`` fixture)::

    async def test_start(discord_env: DiscordEnv) -> None:
        async with discord_env.run_client(lambda: CalicoBot(...)) as bot:
            ix = await discord_env.slash("alice", "calico", "start", options={"players": 2})
            await ix.wait_response()            # defer / message / modal ...
            msg = await ix.wait_followup()      # FakeMessage: content, embeds, rows, attachments
            png = msg.attachment("board.png").image()
            click = await discord_env.click("bob", msg, label="Join")
            ...
        bot2 = await discord_env.start_client(factory)   # restart: new client, same world

Modules: ``state`` (model and records), ``server`` (aiohttp REST + gateway), ``limits``
(Discord's validation rules), ``actors`` (acting as users), ``env`` (the environment object),
``fixtures`` (pytest fixtures).
"""

from __future__ import annotations

from . import limits
from .actors import ActorError, UserActions
from .env import DiscordEnv
from .server import DiscordHTTPError, FakeDiscordServer, InjectedFailure
from .state import (
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    CallbackRecord,
    CallbackType,
    ChannelType,
    CommandSync,
    Component,
    ErrorRecord,
    FakeAttachment,
    FakeChannel,
    FakeDiscordState,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionEvent,
    InteractionType,
    MessageSnapshot,
    RequestRecord,
    SelectOption,
    Violation,
    perm_bits,
)

__all__ = [
    "FLAG_COMPONENTS_V2",
    "FLAG_EPHEMERAL",
    "FLAG_LOADING",
    "ActorError",
    "CallbackRecord",
    "CallbackType",
    "ChannelType",
    "CommandSync",
    "Component",
    "DiscordEnv",
    "DiscordHTTPError",
    "ErrorRecord",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscordServer",
    "FakeDiscordState",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InjectedFailure",
    "InteractionEvent",
    "InteractionType",
    "MessageSnapshot",
    "RequestRecord",
    "SelectOption",
    "UserActions",
    "Violation",
    "limits",
    "perm_bits",
]
