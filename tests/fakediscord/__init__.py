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

Sharding::

        guilds = discord_env.add_guilds(8, spread=4)      # two guilds on each of 4 shards
        low = await discord_env.start_client(lambda: Bot(shard_ids=[0, 1], shard_count=4))
        high = await discord_env.start_client(
            lambda: Bot(shard_ids=[2, 3], shard_count=4), alongside=True
        )
        ix = await discord_env.slash("alice", "demo", "hello", channel=...)
        assert ix.delivered_shards == [discord_env.shard_for_guild(ix.guild_id, 4)]
        await discord_env.kill_shard(2)                   # discord.py RESUMEs it

Modules: ``state`` (model, shard maths and records), ``server`` (aiohttp REST),
``gateway`` (websocket sessions, sharding, routing, RESUME), ``limits`` (Discord's validation
rules), ``actors`` (acting as users), ``env`` (the environment object), ``remote`` (pointing a
bot in another process at the fake), ``fixtures`` (pytest fixtures).
"""

from __future__ import annotations

from . import limits, remote
from .actors import ActorError, UserActions
from .env import DiscordEnv
from .gateway import (
    CLOSE_INVALID_SHARD,
    CLOSE_SHARDING_REQUIRED,
    FakeGateway,
    GatewayConnection,
    GatewaySession,
)
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
    Delivery,
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
    GatewayCloseRecord,
    IdentifyRecord,
    InteractionEvent,
    InteractionType,
    MessageSnapshot,
    RequestRecord,
    ResumeRecord,
    SelectOption,
    Violation,
    perm_bits,
    shard_for_guild,
)

__all__ = [
    "CLOSE_INVALID_SHARD",
    "CLOSE_SHARDING_REQUIRED",
    "FLAG_COMPONENTS_V2",
    "FLAG_EPHEMERAL",
    "FLAG_LOADING",
    "ActorError",
    "CallbackRecord",
    "CallbackType",
    "ChannelType",
    "CommandSync",
    "Component",
    "Delivery",
    "DiscordEnv",
    "DiscordHTTPError",
    "ErrorRecord",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscordServer",
    "FakeDiscordState",
    "FakeGateway",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "GatewayCloseRecord",
    "GatewayConnection",
    "GatewaySession",
    "IdentifyRecord",
    "InjectedFailure",
    "InteractionEvent",
    "InteractionType",
    "MessageSnapshot",
    "RequestRecord",
    "ResumeRecord",
    "SelectOption",
    "UserActions",
    "Violation",
    "limits",
    "perm_bits",
    "remote",
    "shard_for_guild",
]
