"""The test-facing environment: one fake Discord (state + server) plus the bot clients under test.

:class:`DiscordEnv` starts the server on a random loopback port, redirects discord.py to it
(``discord.http.Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY``, restored on close), starts
any ``discord.Client`` subclass built by a test-supplied factory and waits until it is READY with
its guilds cached, stops/restarts it (a brand-new instance against the same fake state), builds
the world (users, guilds, channels, permissions), fires gateway events on demand, injects
failures, and exposes what the bot did with wait helpers.  User actions come from
:class:`~tests.fakediscord.actors.UserActions`.

Sharding: several clients may run at once (``start_client(..., alongside=True)``, e.g. two
``AutoShardedClient`` each holding half the shard ids), and bot processes started by the test
connect through :meth:`DiscordEnv.remote_environ` + ``remote.py``.  Nothing routes through the
client objects: ``env.client`` may be ``None`` while remote shards are connected.  The helpers
``add_guilds``, ``shard_for_guild``, ``guilds_on_shard``, ``connected_shards``, ``sessions``,
``deliveries_for``, ``kill_shard`` and ``wait_for_shards`` read and steer the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import discord
import discord.gateway
import discord.http
import yarl

from .actors import ActorError, ChannelRef, UserActions, UserRef
from .gateway import GatewayConnection, GatewaySession
from .ratelimits import RateLimits
from .remote import environ as remote_environ
from .server import FakeDiscordServer, HeldRequest, InjectedFailure
from .state import (
    DEFAULT_ATTACHMENT_SIZE_LIMIT,
    JSON,
    Delivery,
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
    ResumeRecord,
    Violation,
    perm_bits,
    snowflake_ms,
)

ClientT = TypeVar("ClientT", bound=discord.Client)
ClientFactory = Callable[[], ClientT | Awaitable[ClientT]]
T = TypeVar("T")


class _ErrorCollector(logging.Handler):
    """Collects ERROR records logged by discord.py (unhandled exceptions in commands, views...)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _client_session_ids(client: discord.Client) -> set[str]:
    """Gateway session ids of a client's websocket(s), to wait for exactly those to close."""
    sockets: list[Any] = []
    if isinstance(client, discord.AutoShardedClient):
        # ShardInfo has no public accessor for its websocket
        sockets = [info._parent.ws for info in client.shards.values()]
    else:
        sockets = [getattr(client, "ws", None)]
    return {ws.session_id for ws in sockets if ws is not None and ws.session_id}


def _format_record(record: logging.LogRecord) -> str:
    text = record.getMessage()
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        text += f": {type(exc).__name__}: {exc}"
    return f"[{record.name}] {text}"


class DiscordEnv(UserActions):
    """A fake Discord plus the client under test.  See the package docstring for an example."""

    def __init__(
        self,
        *,
        attachment_size_limit: int = DEFAULT_ATTACHMENT_SIZE_LIMIT,
        interaction_deadline: float = 3.0,
        token_lifetime: float = 15 * 60.0,
        id_base_ms: int | None = None,
        guild_ready_timeout: float = 0.05,
        populate: bool = True,
        max_concurrency: int = 16,
        recommended_shards: int | None = None,
        rate_limits: bool | RateLimits = False,
    ) -> None:
        self.state = FakeDiscordState(
            id_base_ms=id_base_ms,
            attachment_size_limit=attachment_size_limit,
            interaction_deadline=interaction_deadline,
            token_lifetime=token_lifetime,
            max_concurrency=max_concurrency,
            recommended_shards=recommended_shards,
        )
        if rate_limits:
            # Discord's rate limits enforced (tests/fakediscord/ratelimits.py).
            self.state.rate_limits = rate_limits if isinstance(rate_limits, RateLimits) \
                else RateLimits()
        self.server = FakeDiscordServer(self.state)
        self.guild_ready_timeout = guild_ready_timeout
        # The main client (``start_client`` without ``alongside``); more may run alongside it.
        self.client: discord.Client | None = None
        self.clients: list[discord.Client] = []
        self._tasks: dict[discord.Client, asyncio.Task[None]] = {}
        self._factory: ClientFactory[Any] | None = None
        self._errors = _ErrorCollector()
        self._saved: list[tuple[object, str, object]] = []
        self._started = False
        self.state.extra_failure_info = self._failure_info
        self.guild: FakeGuild
        self.channel: FakeChannel
        if populate:
            self.guild = self.add_guild("Calico Test Guild")
            self.channel = self.add_text_channel("general")
            self.add_text_channel("games")
            for name, locale in (("alice", "en-US"), ("bob", "fr"), ("carol", "de")):
                self.add_user(name, locale=locale)

    # -- lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the server and point discord.py at it."""
        await self.server.start()
        self._patch(discord.http.Route, "BASE", self.server.api_base)
        self._patch(
            discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.server.gateway_url)
        )
        logging.getLogger("discord").addHandler(self._errors)
        self._started = True

    async def close(self) -> None:
        """Stop the clients, the server, and undo every patch."""
        try:
            await self.stop_all_clients()
        finally:
            try:
                await self.server.stop()
            finally:
                logging.getLogger("discord").removeHandler(self._errors)
                while self._saved:
                    owner, attr, value = self._saved.pop()
                    setattr(owner, attr, value)
                self._started = False

    def _patch(self, owner: object, attr: str, value: object) -> None:
        self._saved.append((owner, attr, getattr(owner, attr)))
        setattr(owner, attr, value)

    async def __aenter__(self) -> DiscordEnv:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- the client under test -----------------------------------------------------------------
    async def start_client(
        self,
        factory: ClientFactory[ClientT],
        *,
        timeout: float = 10.0,
        alongside: bool = False,
    ) -> ClientT:
        """Build a client with ``factory()`` (sync or async), log it in against the fake and
        return once it is READY (``on_ready`` fired, guilds cached).

        ``alongside=True`` starts it next to the running client(s) instead of refusing (e.g. a
        second ``AutoShardedClient`` with other ``shard_ids``); the first client started
        without it is ``env.client``.  If ``start()`` ends before READY (e.g. discord.py raised
        ``ConnectionClosed`` for close code 4011), raises ``RuntimeError`` from that error."""
        if not self._started:
            raise RuntimeError("DiscordEnv.start() was not called")
        if self.client is not None and not alongside:
            raise RuntimeError(
                "a client is already running; stop_client() or restart_client() first "
                "(or start_client(..., alongside=True))"
            )
        made = factory()
        client: ClientT = await made if inspect.isawaitable(made) else made
        if not isinstance(client, discord.Client):
            raise TypeError(f"factory returned {client!r}, not a discord.Client")
        # documented client option, set after construction so any factory works
        client._connection.guild_ready_timeout = self.guild_ready_timeout
        if self.client is None:
            self._factory = factory
            self.client = client
        self.clients.append(client)
        task = asyncio.create_task(client.start(self.state.token), name="fakediscord-client")
        self._tasks[client] = task

        def ready() -> bool:
            return client.is_ready() or task.done()

        try:
            await self.state.wait_for(ready, timeout=timeout, what="the client to become READY")
        except TimeoutError:
            await self.stop_client(client)
            raise
        if task.done():
            self._forget(client)
            exc = task.exception()
            raise RuntimeError("the client stopped before becoming READY") from exc
        return client

    def _forget(self, client: discord.Client) -> None:
        self._tasks.pop(client, None)
        if self.client is client:
            self.client = None

    @property
    def running_clients(self) -> list[discord.Client]:
        """Clients started here whose ``start()`` is still running."""
        return [c for c, task in self._tasks.items() if not task.done()]

    async def stop_client(
        self, client: discord.Client | None = None, *, timeout: float = 5.0
    ) -> None:
        """Close a client (default: ``env.client``) like a process shutdown; the fake keeps all
        its state.  Waits until the client's gateway sessions are closed."""
        client = client or self.client
        if client is None:
            return
        task = self._tasks.get(client)
        sessions = _client_session_ids(client)
        self._forget(client)
        if not client.is_closed():
            await asyncio.wait_for(client.close(), timeout)
        if task is not None:
            done, _ = await asyncio.wait({task}, timeout=timeout)
            if not done:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            elif not task.cancelled() and task.exception() is not None:
                raise RuntimeError("the client crashed") from task.exception()
        gateway = self.server.gateway

        def closed() -> bool:
            if sessions:
                return not any(
                    s.connected for sid, s in gateway.sessions.items() if sid in sessions
                )
            # Session ids unknown (the client never got READY): wait for every session to go
            # unless other clients still run.
            return bool(self.running_clients) or not gateway.ready_connections

        await self.state.wait_for(closed, timeout=timeout, what="the gateway session to close")

    async def stop_all_clients(self, *, timeout: float = 5.0) -> None:
        for client in list(self._tasks):
            await self.stop_client(client, timeout=timeout)

    async def restart_client(
        self, factory: ClientFactory[ClientT] | None = None, *, timeout: float = 10.0
    ) -> ClientT:
        """Stop the client and start a brand-new instance (same factory unless given)."""
        factory = factory or self._factory
        if factory is None:
            raise RuntimeError("no client was started before")
        await self.stop_client()
        return await self.start_client(factory, timeout=timeout)

    @contextlib.asynccontextmanager
    async def run_client(
        self, factory: ClientFactory[ClientT], *, timeout: float = 10.0, alongside: bool = False
    ) -> AsyncIterator[ClientT]:
        """``async with env.run_client(MyBot) as bot:`` — READY inside, closed on exit."""
        client = await self.start_client(factory, timeout=timeout, alongside=alongside)
        try:
            yield client
        finally:
            if client in self._tasks:
                await self.stop_client(client)

    def local_command(
        self, name: str, guild_id: int | None, command_type: int
    ) -> tuple[JSON, bool] | None:
        """The command from the tree of ``env.client`` or else of a client running alongside
        (``None`` when only remote processes are connected: synced commands are used then)."""
        ordered = [self.client] if self.client is not None else []
        ordered += [c for c in self.running_clients if c is not self.client]
        ctype = discord.AppCommandType(command_type)
        scopes: list[discord.Object | None] = [None]
        if guild_id is not None:
            scopes.insert(0, discord.Object(guild_id))
        for client in ordered:
            tree = getattr(client._connection, "_command_tree", None)
            if tree is None:
                continue
            for scope in scopes:
                cmd = tree.get_command(name, guild=scope, type=ctype)
                if cmd is not None:
                    return cmd.to_dict(tree), scope is not None
        return None

    # -- world building --------------------------------------------------------------------------
    @property
    def bot_user(self) -> FakeUser:
        return self.state.bot_user

    @property
    def application_id(self) -> int:
        return self.state.application_id

    @property
    def token(self) -> str:
        return self.state.token

    def default_channel(self) -> FakeChannel:
        if not hasattr(self, "channel"):
            raise ActorError("no default channel (populate=False): pass channel=...")
        return self.channel

    def user(self, name: str) -> FakeUser:
        return self.resolve_user(name)

    def get_channel(self, ref: ChannelRef) -> FakeChannel:
        return self.resolve_channel(ref)

    def add_user(
        self,
        name: str,
        *,
        locale: str = "en-US",
        dms_open: bool = True,
        guild: FakeGuild | bool | None = True,
        bot: bool = False,
    ) -> FakeUser:
        """A user; joins the default guild unless ``guild=False`` (or the given guild)."""
        user = self.state.add_user(name, locale=locale, dms_open=dms_open, bot=bot)
        target = self.guild if guild is True and hasattr(self, "guild") else guild
        if isinstance(target, FakeGuild):
            self.state.add_member(target, user)
        return user

    def add_guild(
        self,
        name: str,
        *,
        locale: str = "en-US",
        owner: FakeUser | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A guild with @everyone, the bot's managed role, the owner and the bot as members.
        Add it before starting the client (or it only appears after a restart).
        ``shard=(i, n)`` gives it an id whose events go to shard ``i`` of ``n``."""
        return self.state.add_guild(name, locale=locale, owner=owner, shard=shard)

    def add_guilds(
        self, count: int, *, prefix: str = "Guild", spread: int | None = None
    ) -> list[FakeGuild]:
        """``count`` bare guilds, cheap enough for thousands (the 4011 test uses 2,600).
        ``spread=n`` spreads them evenly over ``n`` shards."""
        return self.state.add_guilds(count, prefix=prefix, spread=spread)

    def add_text_channel(
        self, name: str, *, guild: FakeGuild | None = None, topic: str | None = None
    ) -> FakeChannel:
        return self.state.add_text_channel(guild or self.guild, name, topic=topic)

    def add_member(
        self, user: UserRef, guild: FakeGuild | None = None, *, roles: list[FakeRole] | None = None
    ) -> FakeMember:
        return self.state.add_member(
            guild or self.guild, self.resolve_user(user), roles=roles or []
        )

    def add_role(
        self, name: str, permissions: int = 0, *, guild: FakeGuild | None = None
    ) -> FakeRole:
        return self.state.add_role(guild or self.guild, name, permissions)

    def set_dms_open(self, user: UserRef, dms_open: bool) -> None:
        """Closed DMs make the bot's DM sends fail with 403 / 50007."""
        self.resolve_user(user).dms_open = dms_open

    def set_locale(self, user: UserRef, locale: str) -> None:
        self.resolve_user(user).locale = locale

    async def set_bot_permissions(
        self,
        *,
        allow: tuple[str, ...] = (),
        deny: tuple[str, ...] = (),
        guild: FakeGuild | None = None,
    ) -> None:
        """Change the bot's managed role (dispatches GUILD_ROLE_UPDATE)."""
        g = guild or self.guild
        assert g.bot_role_id is not None
        role = g.roles[g.bot_role_id]
        role.permissions = (role.permissions | perm_bits(*allow)) & ~perm_bits(*deny)
        if deny:
            g.everyone.permissions &= ~perm_bits(*deny)
        await self.server.dispatch(
            "GUILD_ROLE_UPDATE", {"guild_id": str(g.id), "role": role.payload()}
        )
        if deny:
            await self.server.dispatch(
                "GUILD_ROLE_UPDATE", {"guild_id": str(g.id), "role": g.everyone.payload()}
            )

    async def deny_bot(self, channel: ChannelRef, *permissions: str) -> None:
        """Channel overwrite denying the bot ``permissions`` (threads: set on the parent).
        Requests needing them get 403 / 50013; ``app_permissions`` reflects it."""
        await self._bot_overwrite(channel, deny=perm_bits(*permissions))

    async def allow_bot(self, channel: ChannelRef, *permissions: str) -> None:
        await self._bot_overwrite(channel, allow=perm_bits(*permissions))

    async def _bot_overwrite(self, ref: ChannelRef, *, allow: int = 0, deny: int = 0) -> None:
        channel = self.resolve_channel(ref)
        if channel.is_thread and channel.parent_id is not None:
            channel = self.state.channels[channel.parent_id]
        ow = self.state.overwrite_for(channel, self.bot_user.id, 1)
        ow.allow = (ow.allow | allow) & ~deny
        ow.deny = (ow.deny | deny) & ~allow
        await self.server.dispatch("CHANNEL_UPDATE", self.state.channel_payload(channel))

    # -- gateway events on demand --------------------------------------------------------------
    async def dispatch(self, event: str, data: JSON, *, force: bool = False) -> int:
        """Send any gateway event to the sessions of its shard (its guild's; shard 0 for DMs and
        guild-less events), filtered by their intents unless ``force``.  Returns how many live
        connections got it."""
        return await self.server.dispatch(event, data, force=force)

    async def create_thread(
        self, user: UserRef, channel: ChannelRef | None, name: str, *, private: bool = False
    ) -> FakeChannel:
        """A user creates a thread (THREAD_CREATE)."""
        who = self.resolve_user(user)
        parent = self.resolve_channel(channel)
        thread = self.state.add_thread(parent, name, owner=who, type=12 if private else 11)
        data = self.state.thread_payload(thread)
        data["newly_created"] = True
        await self.server.dispatch("THREAD_CREATE", data)
        return thread

    async def update_thread(
        self,
        thread: ChannelRef,
        *,
        archived: bool | None = None,
        locked: bool | None = None,
        name: str | None = None,
    ) -> None:
        """Change a thread as a moderator/Discord would (THREAD_UPDATE)."""
        th = self.resolve_channel(thread)
        if archived is not None and archived != th.archived:
            th.archived = archived
            th.archive_timestamp_ms = snowflake_ms(self.state.next_id())
        if locked is not None:
            th.locked = locked
        if name is not None:
            th.name = name
        self.state.notify()
        await self.server.dispatch("THREAD_UPDATE", self.state.thread_payload(th))

    async def archive_thread(self, thread: ChannelRef, *, locked: bool = False) -> None:
        await self.update_thread(thread, archived=True, locked=locked or None)

    async def delete_channel(self, channel: ChannelRef) -> None:
        """Delete a channel or thread (CHANNEL_DELETE / THREAD_DELETE)."""
        ch = self.resolve_channel(channel)
        ch.deleted = True
        self.state.notify()
        if ch.is_thread:
            await self.server.dispatch(
                "THREAD_DELETE",
                {
                    "id": str(ch.id),
                    "guild_id": str(ch.guild_id),
                    "parent_id": str(ch.parent_id),
                    "type": ch.type,
                },
            )
        else:
            await self.server.dispatch("CHANNEL_DELETE", self.state.channel_payload(ch))
            for thread in self.state.threads_of(ch):
                thread.deleted = True

    async def remove_bot_from_guild(self, guild: FakeGuild | None = None) -> None:
        """The bot is kicked (GUILD_DELETE without ``unavailable``)."""
        g = guild or self.guild
        g.bot_present = False
        self.state.notify()
        await self.server.dispatch("GUILD_DELETE", {"id": str(g.id)})

    async def add_bot_to_guild(self, guild: FakeGuild) -> None:
        """The bot joins (or re-joins) a guild while running (GUILD_CREATE)."""
        guild.bot_present = True
        if self.bot_user.id not in guild.members:
            roles = [guild.roles[guild.bot_role_id]] if guild.bot_role_id else []
            self.state.add_member(guild, self.bot_user, roles=roles)
        self.state.notify()
        payload = self.state.guild_create_payload(guild)
        del payload["unavailable"]  # absent for a new join (→ on_guild_join, not guild_available)
        await self.server.dispatch("GUILD_CREATE", payload)

    async def remove_member(self, user: UserRef, guild: FakeGuild | None = None) -> None:
        """A member leaves (GUILD_MEMBER_REMOVE; delivered only with the members intent)."""
        g = guild or self.guild
        who = self.resolve_user(user)
        g.members.pop(who.id, None)
        self.state.notify()
        await self.server.dispatch(
            "GUILD_MEMBER_REMOVE", {"guild_id": str(g.id), "user": who.payload()}
        )

    # -- sharding --------------------------------------------------------------------------------
    def shard_for_guild(self, guild: FakeGuild | int, shard_count: int) -> int:
        """``(guild_id >> 22) % shard_count``: the shard a guild's events go to."""
        return self.state.shard_for_guild(guild, shard_count)

    def guilds_on_shard(self, shard_id: int, shard_count: int) -> list[FakeGuild]:
        return self.state.guilds_on_shard(shard_id, shard_count)

    @property
    def max_concurrency(self) -> int:
        return self.state.max_concurrency

    @max_concurrency.setter
    def max_concurrency(self, value: int) -> None:
        self.state.max_concurrency = value

    @property
    def recommended_shards(self) -> int:
        """What ``GET /gateway/bot`` recommends (set it to override Discord's rule)."""
        return self.state.recommended_shard_count()

    @recommended_shards.setter
    def recommended_shards(self, value: int | None) -> None:
        self.state.recommended_shards = value

    @property
    def sessions(self) -> list[GatewaySession]:
        """Every gateway session so far (live, disconnected-resumable and ended)."""
        return list(self.server.gateway.sessions.values())

    @property
    def live_sessions(self) -> list[GatewaySession]:
        return self.server.gateway.live_sessions

    @property
    def connected_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, shard_count)`` of every live session, sorted (unsharded: ``(0, 1)``)."""
        return self.server.gateway.connected_shards

    def connections_for_shard(self, shard_id: int) -> list[GatewayConnection]:
        return [
            s.connection
            for s in self.server.gateway.sessions_for_shard(shard_id)
            if s.connection is not None
        ]

    async def wait_for_shards(
        self, *shard_ids: int, shard_count: int | None = None, timeout: float = 10.0
    ) -> list[GatewaySession]:
        """Wait until each of ``shard_ids`` has a live session (READY or RESUMED sent)."""

        def found() -> list[GatewaySession] | None:
            out = []
            for shard_id in shard_ids:
                live = [
                    s
                    for s in self.server.gateway.sessions_for_shard(shard_id)
                    if shard_count is None or s.shard_count == shard_count
                ]
                if not live:
                    return None
                out.append(live[-1])
            return out

        return await self.wait_for(found, timeout=timeout, what=f"shards {list(shard_ids)} live")

    async def kill_shard(
        self, shard_id: int, *, code: int | None = None, resumable: bool = True
    ) -> list[GatewaySession]:
        """Cut the live connection(s) of a shard, as a crash or network loss would; returns
        their sessions.  ``code=None`` aborts TCP (discord.py then RESUMEs on its own); a close
        code sends that frame; ``resumable=False`` also ends the session (it must identify)."""
        gateway = self.server.gateway
        killed = gateway.sessions_for_shard(shard_id)
        if not killed:
            raise RuntimeError(f"no live session holds shard {shard_id}")
        for session in killed:
            if session.connection is not None:
                await gateway.kill(session.connection, code=code, resumable=resumable)
        return killed

    async def reconnect_shard(self, shard_id: int) -> list[GatewaySession]:
        """Ask the live connection(s) of a shard to reconnect (op 7); discord.py RESUMEs."""
        gateway = self.server.gateway
        sessions = gateway.sessions_for_shard(shard_id)
        if not sessions:
            raise RuntimeError(f"no live session holds shard {shard_id}")
        for session in sessions:
            if session.connection is not None:
                await gateway.request_reconnect(session.connection)
        return sessions

    async def kill_connection(
        self, conn: GatewayConnection, *, code: int | None = None, resumable: bool = True
    ) -> None:
        await self.server.gateway.kill(conn, code=code, resumable=resumable)

    @property
    def deliveries(self) -> list[Delivery]:
        """Every gateway dispatch and where it went (see :class:`Delivery`)."""
        return self.state.deliveries

    def deliveries_for(
        self,
        event: str | None = None,
        *,
        guild: FakeGuild | int | None = None,
        status: str | None = None,
        shard_id: int | None = None,
    ) -> list[Delivery]:
        gid = guild.id if isinstance(guild, FakeGuild) else guild
        return [
            d
            for d in self.state.deliveries
            if (event is None or d.event == event)
            and (gid is None or d.guild_id == gid)
            and (status is None or d.status == status)
            and (shard_id is None or d.shard_id == shard_id)
        ]

    @property
    def identifies(self) -> list[IdentifyRecord]:
        return self.state.identifies

    @property
    def resumes(self) -> list[ResumeRecord]:
        return self.state.resumes

    @property
    def gateway_closes(self) -> list[GatewayCloseRecord]:
        return self.state.gateway_closes

    def identify_breaches(self) -> list[IdentifyRecord]:
        """Identifies sooner than 5 s after the previous one of their bucket
        (``shard_id % max_concurrency``): the client did not pace its shards."""
        return self.state.identify_breaches()

    def remote_environ(self) -> dict[str, str]:
        """Environment variables that point a bot in another process at this fake (see
        ``remote.py``): ``FAKEDISCORD_API``, ``FAKEDISCORD_GATEWAY``, ``FAKEDISCORD_TOKEN``."""
        if not self._started:
            raise RuntimeError("DiscordEnv.start() was not called")
        return remote_environ(self.server.api_base, self.server.gateway_url, self.state.token)

    # -- failures and time -----------------------------------------------------------------------
    def hold_next(self, path: str | None = None, *, method: str | None = None) -> HeldRequest:
        """Hold the next request matching ``method`` and the glob ``path`` (relative to
        ``/api/v10``) on arrival until the returned hold's ``release`` is set; its ``reached``
        is set when it arrives."""
        hold = HeldRequest(method=method, path=path)
        self.server.holds.append(hold)
        return hold

    def fail_next(
        self,
        status: int,
        *,
        method: str | None = None,
        path: str | None = None,
        times: int = 1,
        retry_after: float = 0.05,
        code: int = 0,
        message: str = "",
        after: bool = False,
        delay: float = 0.0,
    ) -> InjectedFailure:
        """The next ``times`` requests matching ``method`` and the glob ``path`` (relative to
        ``/api/v10``, e.g. ``"/channels/*/messages"``) get ``status`` instead of being handled.
        429 answers carry ``Via`` and a JSON ``retry_after`` so discord.py retries them.
        ``after``: the request is handled first (it reached Discord), then answered with the
        failure, ``delay`` seconds later (a client's time-out may come first)."""
        return self.server.fail_next(
            status,
            method=method,
            path=path,
            times=times,
            retry_after=retry_after,
            code=code,
            message=message,
            after=after,
            delay=delay,
        )

    def rate_limit_next(
        self,
        path: str | None = None,
        *,
        method: str | None = None,
        retry_after: float = 0.05,
        times: int = 1,
    ) -> InjectedFailure:
        return self.fail_next(429, method=method, path=path, retry_after=retry_after, times=times)

    def server_error_next(
        self,
        path: str | None = None,
        *,
        method: str | None = None,
        status: int = 500,
        times: int = 1,
    ) -> InjectedFailure:
        """Note: discord.py waits 1 s before retrying a 5xx."""
        return self.fail_next(status, method=method, path=path, times=times)

    @property
    def interaction_deadline(self) -> float:
        return self.state.interaction_deadline

    @interaction_deadline.setter
    def interaction_deadline(self, seconds: float) -> None:
        self.state.interaction_deadline = seconds

    @property
    def token_lifetime(self) -> float:
        return self.state.token_lifetime

    @token_lifetime.setter
    def token_lifetime(self, seconds: float) -> None:
        self.state.token_lifetime = seconds

    @property
    def attachment_size_limit(self) -> int:
        return self.state.attachment_size_limit

    @attachment_size_limit.setter
    def attachment_size_limit(self, size: int) -> None:
        self.state.attachment_size_limit = size

    def advance_time(self, seconds: float) -> None:
        """Move the fake's clock (interaction deadlines, token expiry) and future ids forward."""
        self.state.advance_time(seconds)

    # -- reading what happened -------------------------------------------------------------------
    @property
    def violations(self) -> list[Violation]:
        return self.state.violations

    @property
    def errors(self) -> list[Any]:
        return self.state.errors

    @property
    def requests(self) -> list[Any]:
        return self.state.requests

    @property
    def command_syncs(self) -> list[Any]:
        return self.state.command_syncs

    @property
    def interactions(self) -> list[FakeInteraction]:
        return list(self.state.interactions.values())

    @property
    def client_errors(self) -> list[logging.LogRecord]:
        return self._errors.records

    def requests_to(self, method: str, path_glob: str) -> list[Any]:
        return [
            r
            for r in self.state.requests
            if r.method == method and fnmatch.fnmatchcase(r.path, path_glob)
        ]

    def messages(
        self, channel: ChannelRef | None = None, *, include_ephemeral: bool = False
    ) -> list[FakeMessage]:
        """Live (not deleted) messages of a channel/thread/DM, oldest first."""
        return self.state.channel_messages(
            self.resolve_channel(channel), include_ephemeral=include_ephemeral
        )

    def dm_messages(self, user: UserRef) -> list[FakeMessage]:
        who = self.resolve_user(user)
        channel_id = self.state.dm_channel_ids.get(who.id)
        return (
            []
            if channel_id is None
            else self.state.channel_messages(self.state.channels[channel_id])
        )

    def last_message(self, channel: ChannelRef | None = None) -> FakeMessage | None:
        msgs = self.messages(channel)
        return msgs[-1] if msgs else None

    def get_message(self, message_id: int) -> FakeMessage:
        return self.state.messages[message_id]

    def threads(self, channel: ChannelRef | None = None) -> list[FakeChannel]:
        return self.state.threads_of(self.resolve_channel(channel))

    @property
    def deleted_messages(self) -> list[FakeMessage]:
        return self.state.deleted_messages

    def sync_count(self, guild: FakeGuild | bool | None = None) -> int:
        """Number of ``tree.sync()`` calls: global (``None``), for a guild, or all (``True``)."""
        if guild is True:
            return len(self.state.command_syncs)
        gid = guild.id if isinstance(guild, FakeGuild) else None
        return sum(1 for s in self.state.command_syncs if s.guild_id == gid)

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until ``predicate()`` returns something truthy and return it."""
        return await self.state.wait_for(predicate, timeout=timeout, what=what)

    async def wait_for_message(
        self,
        channel: ChannelRef | None = None,
        predicate: Callable[[FakeMessage], Any] | None = None,
        *,
        timeout: float = 5.0,
        after: FakeMessage | None = None,
    ) -> FakeMessage:
        """First (non-ephemeral) message in ``channel`` matching ``predicate``."""
        chan = self.resolve_channel(channel)

        def find() -> FakeMessage | None:
            for msg in self.state.channel_messages(chan):
                if after is not None and msg.id <= after.id:
                    continue
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.wait_for(find, timeout=timeout, what=f"a message in {chan!r}")

    async def wait_for_dm(
        self,
        user: UserRef,
        predicate: Callable[[FakeMessage], Any] | None = None,
        *,
        timeout: float = 5.0,
    ) -> FakeMessage:
        who = self.resolve_user(user)

        def find() -> FakeMessage | None:
            for msg in self.dm_messages(who):
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.wait_for(find, timeout=timeout, what=f"a DM to {who!r}")

    async def wait_idle(self, quiet: float = 0.05, timeout: float = 5.0) -> None:
        """Wait until no REST request arrived for ``quiet`` seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            count = len(self.state.requests)
            await asyncio.sleep(quiet)
            if len(self.state.requests) == count:
                return
        raise TimeoutError("the bot kept making requests")

    # -- violations ------------------------------------------------------------------------------
    def pop_violations(self, kind: str | None = None) -> list[Violation]:
        """Remove and return violations (of one kind), e.g. after asserting an expected one."""
        taken = [v for v in self.state.violations if kind is None or v.kind == kind]
        self.state.violations[:] = [v for v in self.state.violations if v not in taken]
        return taken

    def pop_client_errors(self) -> list[logging.LogRecord]:
        taken = list(self._errors.records)
        self._errors.records.clear()
        return taken

    def assert_no_violations(self) -> None:
        if self.state.violations:
            raise AssertionError(
                "Discord API violations:\n" + "\n".join(f"  {v}" for v in self.state.violations)
            )

    def problems(self, *, violations: bool = True, client_errors: bool = True) -> list[str]:
        out: list[str] = []
        if violations:
            out += [f"violation: {v}" for v in self.state.violations]
        if client_errors:
            out += [f"client error: {_format_record(r)}" for r in self._errors.records]
        return out

    def _failure_info(self) -> str:
        lines = [f"\n  violation: {v}" for v in self.state.violations[-5:]]
        lines += [f"\n  client error: {_format_record(r)}" for r in self._errors.records[-5:]]
        lines += [f"\n  error answer: {e}" for e in self.state.errors[-5:]]
        return "".join(lines)
