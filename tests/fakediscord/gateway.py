"""The fake Discord gateway: websocket sessions, sharding, event routing and RESUME.

Owns everything that happens on the gateway websockets, for any number of connections at once
coming from any number of client processes.  Nothing here looks at a discord.py object: sessions,
shards and routing come only from what clients send on the wire, so the bot under test may run
in this process (``DiscordEnv.start_client``) or in another one (``remote.py``).

* HELLO, heartbeat ACKs, IDENTIFY, RESUME and member chunk requests (op 8).
* IDENTIFY checks, answered with Discord's close codes: 4004 (bad token), 4005 (identified
  twice on one connection), 4010 (invalid shard: ``shard_id >= shard_count``,
  ``shard_count < 1``, or a count that differs from the other connected sessions'), 4011
  (sharding required: the session would hold more than ``max_guilds_per_shard`` guilds, e.g. an
  unsharded bot in 2,600 guilds).  discord.py never retries these: ``Client.start()`` raises
  :class:`discord.ConnectionClosed` with the code.
* The identify rate limit: one identify per ``identify_window`` (5 s) per bucket
  ``shard_id % max_concurrency``.  Always recorded (``IdentifyRecord.too_soon``); refused with
  INVALID_SESSION only when ``state.enforce_identify_rate_limit`` is on.
* READY (with ``shard`` when the client sent one) and GUILD_CREATE for the identified shard's
  guilds only.
* Sessions: per-session sequence numbers and a buffer of what was dispatched, so RESUME after a
  dropped connection replays what the client missed (including dispatches queued while it was
  away) and answers RESUMED.  A clean client close (1000/1001) or a fatal close code ends the
  session; any other loss of the connection leaves it resumable.
* Routing: every dispatch goes to the sessions holding the shard it belongs to.  Guild events
  and guild interactions use ``(guild_id >> 22) % shard_count``; DMs, DM interactions and
  guild-less events belong to shard 0.  Each session's intents filter what it gets.  A dispatch
  whose shard no session holds is recorded as ``dropped``.
* Killing a connection on demand (TCP abort or a close code) to simulate a crash, and op 7
  RECONNECT on demand.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import Counter, deque
from typing import Any

from aiohttp import WSMsgType, web

from .state import (
    JSON,
    Delivery,
    FakeDiscordState,
    GatewayCloseRecord,
    IdentifyRecord,
    ResumeRecord,
    Violation,
    shard_for_guild,
)

# Gateway intents (bit numbers from the Discord docs)
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_GUILD_MESSAGE_REACTIONS = 1 << 10
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_DIRECT_MESSAGE_REACTIONS = 1 << 13
INTENT_MESSAGE_CONTENT = 1 << 15

# Opcodes
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Close codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes)
CLOSE_UNKNOWN_ERROR = 4000
CLOSE_AUTHENTICATION_FAILED = 4004
CLOSE_ALREADY_AUTHENTICATED = 4005
CLOSE_INVALID_SHARD = 4010
CLOSE_SHARDING_REQUIRED = 4011
CLOSE_DISALLOWED_INTENTS = 4014
# After these Discord does not let the session resume (discord.py does not even reconnect
# after 4004 and 4010-4014; 4007/4009 make it identify again).
FATAL_CLOSE_CODES = frozenset({4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014})

HEARTBEAT_INTERVAL_MS = 41250

_GUILDS_EVENTS = {
    "GUILD_CREATE",
    "GUILD_UPDATE",
    "GUILD_DELETE",
    "GUILD_ROLE_CREATE",
    "GUILD_ROLE_UPDATE",
    "GUILD_ROLE_DELETE",
    "CHANNEL_CREATE",
    "CHANNEL_UPDATE",
    "CHANNEL_DELETE",
    "CHANNEL_PINS_UPDATE",
    "THREAD_CREATE",
    "THREAD_UPDATE",
    "THREAD_DELETE",
    "THREAD_LIST_SYNC",
    "THREAD_MEMBER_UPDATE",
}
_MEMBER_EVENTS = {
    "GUILD_MEMBER_ADD",
    "GUILD_MEMBER_UPDATE",
    "GUILD_MEMBER_REMOVE",
    "THREAD_MEMBERS_UPDATE",
}
_MESSAGE_EVENTS = {"MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE", "MESSAGE_DELETE_BULK"}
_REACTION_EVENTS = {"MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE"}
# Events whose payload *is* the guild (its id is ``id``, not ``guild_id``).
_GUILD_OBJECT_EVENTS = {"GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"}


def required_intent(event: str, data: JSON) -> int | None:
    """The intent bit a gateway event needs, or ``None`` when it is always sent."""
    if event in _GUILDS_EVENTS:
        return INTENT_GUILDS
    if event in _MEMBER_EVENTS:
        return INTENT_GUILD_MEMBERS
    if event in _MESSAGE_EVENTS:
        return INTENT_GUILD_MESSAGES if data.get("guild_id") else INTENT_DIRECT_MESSAGES
    if event in _REACTION_EVENTS:
        return (
            INTENT_GUILD_MESSAGE_REACTIONS
            if data.get("guild_id")
            else INTENT_DIRECT_MESSAGE_REACTIONS
        )
    return None


def event_guild_id(event: str, data: JSON) -> int | None:
    """The guild a dispatch belongs to (``None``: a DM or guild-less event → shard 0)."""
    raw = data.get("id") if event in _GUILD_OBJECT_EVENTS else data.get("guild_id")
    try:
        return int(raw) if raw else None
    except (TypeError, ValueError):
        return None


def _parse_shard(raw: Any) -> tuple[int, int] | None:
    """``[shard_id, shard_count]`` from IDENTIFY, or ``None`` when Discord would say 4010."""
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        return None
    shard_id, count = raw
    if isinstance(shard_id, bool) or isinstance(count, bool):
        return None
    if not isinstance(shard_id, int) or not isinstance(count, int):
        return None
    if count < 1 or not 0 <= shard_id < count:
        return None
    return shard_id, count


class GatewayConnection:
    """One websocket a client opened.  It may carry a session (after IDENTIFY or RESUME)."""

    _ids = itertools.count(1)

    def __init__(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.id = next(self._ids)
        self.ws = ws
        self.request = request
        self.query = dict(request.query)
        self.path = request.path
        self.session: GatewaySession | None = None
        self.heartbeats = 0
        self.killed = False
        self.server_close_code: int | None = None
        self._lock = asyncio.Lock()

    @property
    def open(self) -> bool:
        return not self.ws.closed

    @property
    def identified(self) -> bool:
        return self.session is not None

    @property
    def ready(self) -> bool:
        """READY (or RESUMED) was sent on this connection and it still carries the session."""
        session = self.session
        return session is not None and session.established and session.connection is self

    @property
    def intents(self) -> int:
        return 0 if self.session is None else self.session.intents

    @property
    def session_id(self) -> str:
        return "" if self.session is None else self.session.session_id

    @property
    def shard(self) -> list[int] | None:
        """The ``[shard_id, shard_count]`` the client identified with (``None``: unsharded)."""
        session = self.session
        if session is None or not session.sharded:
            return None
        return [session.shard_id, session.shard_count]

    async def send(self, payload: JSON) -> bool:
        """Write one frame; False when the socket is gone (the caller keeps it for RESUME)."""
        async with self._lock:
            if self.ws.closed:
                return False
            try:
                await self.ws.send_str(json.dumps(payload))
            except (ConnectionError, RuntimeError):
                return False
            return True

    def __repr__(self) -> str:
        return f"<GatewayConnection #{self.id} session={self.session_id or None}>"


class GatewaySession:
    """An identified session: its shard, intents, sequence and the dispatches kept for RESUME.

    It outlives its connection: while disconnected (and not invalidated) dispatches for its
    shard are numbered and kept, then replayed when the client resumes."""

    def __init__(
        self,
        session_id: str,
        shard: tuple[int, int],
        *,
        sharded: bool,
        intents: int,
        buffer_size: int,
    ) -> None:
        self.session_id = session_id
        self.shard_id, self.shard_count = shard
        self.sharded = sharded
        self.intents = intents
        self.seq = 0
        self.buffer: deque[JSON] = deque(maxlen=buffer_size)
        self.connection: GatewayConnection | None = None
        self.established = False  # READY was sent (GUILD_CREATEs included)
        self.invalidated = False
        self.resumes = 0
        # Serialises numbering + sending, so sequence numbers reach the client in order even
        # when REST handlers dispatch while READY/GUILD_CREATE or a RESUME replay is going out.
        self.lock = asyncio.Lock()

    @property
    def shard(self) -> tuple[int, int]:
        return self.shard_id, self.shard_count

    @property
    def connected(self) -> bool:
        return self.connection is not None and self.connection.open

    @property
    def live(self) -> bool:
        """Connected, READY sent, not invalidated: dispatches reach the client right away."""
        return self.connected and self.established and not self.invalidated

    def holds(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0
        return shard_for_guild(guild_id, self.shard_count) == self.shard_id

    def wants(self, event: str, data: JSON) -> bool:
        bit = required_intent(event, data)
        return bit is None or bool(self.intents & bit)

    def invalidate(self) -> None:
        self.invalidated = True
        self.buffer.clear()

    def __repr__(self) -> str:
        state = "live" if self.live else "invalidated" if self.invalidated else "disconnected"
        return (
            f"<GatewaySession {self.session_id} shard=[{self.shard_id}, {self.shard_count}] "
            f"{state} seq={self.seq}>"
        )


class FakeGateway:
    """All gateway connections and sessions of one fake Discord."""

    def __init__(self, state: FakeDiscordState) -> None:
        self.state = state
        self.base_url = "ws://127.0.0.1:0"  # set by the server once it listens
        self.connections: list[GatewayConnection] = []
        self.sessions: dict[str, GatewaySession] = {}
        self.identify_count = 0
        self._session_counter = 0
        self._last_identify: dict[int, float] = {}
        self._background: set[asyncio.Task[Any]] = set()

    @property
    def url(self) -> str:
        return self.base_url + "/gateway"

    @property
    def resume_url(self) -> str:
        """``resume_gateway_url`` of READY (a separate path, so tests can see it was used)."""
        return self.base_url + "/resume-gateway"

    # -- views -----------------------------------------------------------------------------------
    @property
    def ready_connections(self) -> list[GatewayConnection]:
        return [c for c in self.connections if c.ready and c.open]

    @property
    def live_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if s.live]

    @property
    def connected_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, shard_count)`` of every live session (an unsharded one is ``(0, 1)``)."""
        return sorted(s.shard for s in self.live_sessions)

    def sessions_for_shard(self, shard_id: int, *, live_only: bool = True) -> list[GatewaySession]:
        return [
            s
            for s in self.sessions.values()
            if s.shard_id == shard_id and not s.invalidated and (s.live or not live_only)
        ]

    # -- the websocket endpoint ------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = GatewayConnection(ws, request)
        self.connections.append(conn)
        try:
            await conn.send({"op": OP_HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}})
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_message(conn, json.loads(msg.data))
                elif msg.type is WSMsgType.ERROR:
                    break
        finally:
            self._on_closed(conn)
        return ws

    def _on_closed(self, conn: GatewayConnection) -> None:
        if conn in self.connections:
            self.connections.remove(conn)
        session = conn.session
        raw_code = conn.server_close_code
        if raw_code is None:
            raw_code = conn.ws.close_code
        code = None if raw_code is None else int(raw_code)  # aiohttp gives WSCloseCode members
        if conn.killed:
            initiator = "kill"
        elif conn.server_close_code is not None:
            initiator = "server"
        else:
            initiator = "client"
        if session is not None and session.connection is conn:
            session.connection = None
            # Discord ends the session when the client closes cleanly (1000/1001: "your bot
            # will appear offline") or after a fatal close code; any other loss of the
            # connection can be resumed.
            if (initiator == "client" and code in (1000, 1001)) or code in FATAL_CLOSE_CODES:
                session.invalidate()
        self.state.gateway_closes.append(
            GatewayCloseRecord(
                at=self.state.clock(),
                connection_id=conn.id,
                session_id=None if session is None else session.session_id,
                shard_id=None if session is None else session.shard_id,
                shard_count=None if session is None else session.shard_count,
                code=code,
                initiator=initiator,
                resumable=session is not None and not session.invalidated,
            )
        )
        self.state.notify()

    async def _on_message(self, conn: GatewayConnection, payload: JSON) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == OP_HEARTBEAT:
            conn.heartbeats += 1
            await conn.send({"op": OP_HEARTBEAT_ACK})
        elif op == OP_IDENTIFY:
            await self._identify(conn, data if isinstance(data, dict) else {})
        elif op == OP_RESUME:
            await self._resume(conn, data if isinstance(data, dict) else {})
        elif op == OP_REQUEST_GUILD_MEMBERS:
            await self._request_members(conn, data if isinstance(data, dict) else {})
        # op 3 (presence) and 4 (voice) are accepted silently

    async def close(self, conn: GatewayConnection, code: int, reason: str = "") -> None:
        """Close a connection from Discord's side with ``code``."""
        conn.server_close_code = code
        await conn.ws.close(code=code, message=reason.encode())

    # -- IDENTIFY --------------------------------------------------------------------------------
    def _identify_problem(
        self, conn: GatewayConnection, data: JSON
    ) -> tuple[tuple[int, int], tuple[int, str] | None]:
        """The shard asked for and, if Discord would refuse the identify, (close code, why)."""
        state = self.state
        if conn.session is not None:
            return (0, 1), (CLOSE_ALREADY_AUTHENTICATED, "Already authenticated.")
        if data.get("token") != state.token:
            return (0, 1), (CLOSE_AUTHENTICATION_FAILED, "Authentication failed.")
        shard: tuple[int, int] = (0, 1)
        if data.get("shard") is not None:
            raw = data.get("shard")
            parsed = _parse_shard(raw)
            if parsed is None:
                # keep what the client sent in the record when it is at least two integers
                if isinstance(raw, list) and len(raw) == 2 and all(type(v) is int for v in raw):
                    shard = (raw[0], raw[1])
                return shard, (CLOSE_INVALID_SHARD, f"Invalid shard {raw!r}.")
            shard = parsed
        if state.strict_shard_count:
            counts = {
                s.shard_count for s in self.sessions.values() if s.connected and not s.invalidated
            }
            if counts and counts != {shard[1]}:
                return shard, (
                    CLOSE_INVALID_SHARD,
                    f"Invalid shard: count {shard[1]} while connected sessions use "
                    f"{sorted(counts)}.",
                )
        intents = int(data.get("intents", 0) or 0)
        if intents & INTENT_GUILD_MEMBERS and not state.members_intent_enabled:
            # The privileged intent is off in the developer portal.
            return shard, (CLOSE_DISALLOWED_INTENTS, "Disallowed intent(s).")
        held = len(state.guilds_on_shard(*shard))
        if held > state.max_guilds_per_shard:
            return shard, (
                CLOSE_SHARDING_REQUIRED,
                f"Sharding required: shard {list(shard)} would hold {held} guilds "
                f"(at most {state.max_guilds_per_shard}).",
            )
        return shard, None

    async def _identify(self, conn: GatewayConnection, data: JSON) -> None:
        state = self.state
        now = state.clock()
        (shard_id, shard_count), problem = self._identify_problem(conn, data)
        sharded = data.get("shard") is not None
        bucket = shard_id % max(1, state.max_concurrency)

        def record(outcome: str, **extra: Any) -> None:
            state.identifies.append(
                IdentifyRecord(
                    at=now,
                    connection_id=conn.id,
                    shard_id=shard_id,
                    shard_count=shard_count,
                    sharded=sharded,
                    bucket=bucket,
                    outcome=outcome,
                    **extra,
                )
            )
            state.notify()

        if problem is not None:
            code, reason = problem
            record("closed", close_code=code, reason=reason)
            await self.close(conn, code, reason)
            return
        if state.identify_held:
            # Discord never answers: the client stays "connecting" (a test stops it then).
            record("held")
            return
        last = self._last_identify.get(bucket)
        gap = None if last is None else now - last
        too_soon = gap is not None and gap < state.identify_window
        if too_soon and state.enforce_identify_rate_limit:
            reason = (
                f"identify of bucket {bucket} {gap:.2f}s after the previous one "
                f"(max_concurrency {state.max_concurrency}: one per {state.identify_window}s)"
            )
            record("invalid_session", reason=reason, too_soon=True)
            state.record_violation(
                Violation(
                    kind="identify_rate_limited",
                    message=reason,
                    detail=[shard_id, shard_count],
                )
            )
            await conn.send({"op": OP_INVALID_SESSION, "d": False})
            return
        self._last_identify[bucket] = now
        self.identify_count += 1
        self._session_counter += 1
        session = GatewaySession(
            f"fake-session-{self._session_counter:04d}",
            (shard_id, shard_count),
            sharded=sharded,
            intents=int(data.get("intents", 0) or 0),
            buffer_size=state.resume_buffer_size,
        )
        # Earlier sessions of this shard whose connection is gone can no longer be resumed once
        # the shard identified again; dropping them keeps a dead process's session from
        # collecting events forever (Discord expires such sessions after a while too).
        for old in self.sessions.values():
            if old.shard == session.shard and not old.connected:
                old.invalidate()
        self.sessions[session.session_id] = session
        session.connection = conn
        conn.session = session
        record("ready", session_id=session.session_id, too_soon=too_soon)
        guilds = state.guilds_on_shard(shard_id, shard_count)
        ready: JSON = {
            "v": 10,
            "user": {
                **state.bot_user.payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_url,
            "application": {"id": str(state.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
        }
        if sharded:
            # AutoShardedConnectionState.parse_ready reads data['shard'][0] unconditionally.
            ready["shard"] = [shard_id, shard_count]
        all_members = bool(session.intents & INTENT_GUILD_MEMBERS)
        async with session.lock:
            await self._send_locked(session, "READY", ready, initial=True)
            for guild in guilds:
                payload = state.guild_create_payload(guild, all_members=all_members)
                await self._send_locked(session, "GUILD_CREATE", payload, initial=True)
            session.established = True
        state.notify()

    # -- RESUME ----------------------------------------------------------------------------------
    async def _resume(self, conn: GatewayConnection, data: JSON) -> None:
        state = self.state
        now = state.clock()
        if data.get("token") != state.token:
            await self.close(conn, CLOSE_AUTHENTICATION_FAILED, "Authentication failed.")
            return
        if conn.session is not None:
            await self.close(conn, CLOSE_ALREADY_AUTHENTICATED, "Already authenticated.")
            return
        session = self.sessions.get(str(data.get("session_id") or ""))
        raw_seq = data.get("seq")
        seq = raw_seq if isinstance(raw_seq, int) and not isinstance(raw_seq, bool) else None

        def refuse() -> None:
            state.resumes.append(
                ResumeRecord(
                    at=now,
                    connection_id=conn.id,
                    session_id=str(data.get("session_id") or ""),
                    seq=seq,
                    ok=False,
                    shard_id=None if session is None else session.shard_id,
                    shard_count=None if session is None else session.shard_count,
                )
            )
            state.notify()

        if session is None or session.invalidated or not session.established:
            refuse()
            await conn.send({"op": OP_INVALID_SESSION, "d": False})
            return
        async with session.lock:
            last = seq or 0
            oldest = session.buffer[0]["s"] if session.buffer else session.seq + 1
            if last + 1 < oldest:
                # What the client missed is no longer kept: it must identify again.
                session.invalidate()
                refuse()
                await conn.send({"op": OP_INVALID_SESSION, "d": False})
                return
            old = session.connection
            if old is not None and old is not conn:
                # The old socket is still open on our side (the client gave up on it first):
                # detach it so its close does not end the resumed session.
                old.session = None
                if old.open:
                    task = asyncio.create_task(old.ws.close(code=CLOSE_UNKNOWN_ERROR))
                    self._background.add(task)
                    task.add_done_callback(self._background.discard)
            session.connection = conn
            conn.session = session
            session.resumes += 1
            replayed = 0
            for payload in list(session.buffer):
                if payload["s"] <= last:
                    continue
                ok = await conn.send(payload)
                self._record_payload(session, payload, "replayed" if ok else "queued")
                replayed += 1
            await self._send_locked(session, "RESUMED", {})
        state.resumes.append(
            ResumeRecord(
                at=now,
                connection_id=conn.id,
                session_id=session.session_id,
                seq=seq,
                ok=True,
                replayed=replayed,
                shard_id=session.shard_id,
                shard_count=session.shard_count,
            )
        )
        state.notify()

    # -- member chunks ---------------------------------------------------------------------------
    async def _request_members(self, conn: GatewayConnection, data: JSON) -> None:
        session = conn.session
        guild = self.state.guilds.get(int(data.get("guild_id", 0) or 0))
        if guild is None or session is None:
            return
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        if user_ids:
            wanted = {int(u) for u in (user_ids if isinstance(user_ids, list) else [user_ids])}
            members = [m for m in members if m.user.id in wanted]
        query = data.get("query")
        if query:
            members = [m for m in members if m.user.name.lower().startswith(str(query).lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        async with session.lock:
            await self._send_locked(session, "GUILD_MEMBERS_CHUNK", chunk)

    # -- dispatch and routing --------------------------------------------------------------------
    async def _send_locked(
        self, session: GatewaySession, event: str, data: JSON, *, initial: bool = False
    ) -> str:
        """Number a dispatch, keep it for RESUME and send it if the session is connected.
        Call with ``session.lock`` held.  ``initial``: READY/GUILD_CREATE of the identify
        itself, sent before the session counts as established."""
        session.seq += 1
        payload: JSON = {"op": OP_DISPATCH, "t": event, "d": data, "s": session.seq}
        session.buffer.append(payload)
        conn = session.connection
        sent = False
        if conn is not None and (session.established or initial):
            sent = await conn.send(payload)
        status = "sent" if sent else "queued"
        self._record_payload(session, payload, status)
        return status

    def _record_payload(self, session: GatewaySession, payload: JSON, status: str) -> None:
        event = str(payload.get("t"))
        data = payload.get("d") or {}
        conn = session.connection
        self._record(
            Delivery(
                event=event,
                status=status,
                guild_id=event_guild_id(event, data),
                shard_id=session.shard_id,
                shard_count=session.shard_count,
                session_id=session.session_id,
                seq=int(payload["s"]),
                at=self.state.clock(),
                interaction_id=_interaction_id(event, data),
                connection_id=None if conn is None else conn.id,
            )
        )

    def _record(self, delivery: Delivery) -> None:
        state = self.state
        state.deliveries.append(delivery)
        if delivery.interaction_id is not None:
            ix = state.interactions.get(delivery.interaction_id)
            if ix is not None:
                ix.deliveries.append(delivery)

    async def dispatch(self, event: str, data: JSON, *, force: bool = False) -> int:
        """Send a dispatch to every session holding its shard whose intents allow it (all of
        them with ``force``).  Returns how many live connections it was written to; sessions
        that are disconnected but resumable keep it for RESUME."""
        guild_id = event_guild_id(event, data)
        holders = [s for s in self.sessions.values() if not s.invalidated and s.holds(guild_id)]
        if not holders:
            self._record_drop(event, data, guild_id)
            return 0
        sent = 0
        for session in holders:
            if not (force or session.wants(event, data)):
                continue
            adapted = self._adapt_for_intents(session, event, data)
            async with session.lock:
                if session.invalidated:  # ended while we waited for the lock
                    continue
                status = await self._send_locked(session, event, adapted)
            if status == "sent":
                sent += 1
        return sent

    def _record_drop(self, event: str, data: JSON, guild_id: int | None) -> None:
        counts = Counter(s.shard_count for s in self.sessions.values() if not s.invalidated)
        count = counts.most_common(1)[0][0] if counts else None
        shard_id = None
        if count is not None:
            shard_id = 0 if guild_id is None else shard_for_guild(guild_id, count)
        self._record(
            Delivery(
                event=event,
                status="dropped",
                guild_id=guild_id,
                shard_id=shard_id,
                shard_count=count,
                session_id=None,
                seq=None,
                at=self.state.clock(),
                interaction_id=_interaction_id(event, data),
            )
        )
        self.state.notify()

    def _adapt_for_intents(self, session: GatewaySession, event: str, data: JSON) -> JSON:
        """Without the message-content intent Discord blanks other users' guild messages
        (unless they mention the bot)."""
        if (
            event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE")
            or session.intents & INTENT_MESSAGE_CONTENT
        ):
            return data
        author = data.get("author") or {}
        bot_id = str(self.state.bot_user.id)
        mentioned = any(str(m.get("id")) == bot_id for m in data.get("mentions") or [])
        if author.get("id") == bot_id or not data.get("guild_id") or mentioned:
            return data
        return {**data, "content": "", "embeds": [], "attachments": [], "components": []}

    async def dispatch_interaction(self, payload: JSON) -> int:
        """INTERACTION_CREATE to the sessions of the interaction's shard (a guild's shard, or
        shard 0 for DMs).  Raises only when no session exists at all (the test forgot to start
        a client); a shard nobody holds just drops it, as Discord would."""
        if all(s.invalidated for s in self.sessions.values()):
            raise RuntimeError("no bot client is connected to the fake gateway")
        return await self.dispatch("INTERACTION_CREATE", payload)

    # -- killing -----------------------------------------------------------------------------------
    async def kill(
        self,
        conn: GatewayConnection,
        *,
        code: int | None = None,
        resumable: bool = True,
        timeout: float = 5.0,
    ) -> None:
        """End a connection abruptly, as a crash or a network cut would.

        ``code=None`` aborts the TCP connection (no close frame; discord.py sees 1006 and
        resumes); a code sends that close frame.  ``resumable=False`` also ends the session
        (as if Discord had timed it out), so the client has to identify again."""
        conn.killed = True
        session = conn.session
        if not resumable and session is not None:
            session.invalidate()
        transport = conn.request.transport
        if code is None and transport is not None:
            transport.abort()
        else:
            conn.server_close_code = code if code is not None else CLOSE_UNKNOWN_ERROR
            await conn.ws.close(code=conn.server_close_code)
        await self.state.wait_for(
            lambda: conn not in self.connections, timeout=timeout, what=f"{conn!r} to close"
        )

    async def request_reconnect(self, conn: GatewayConnection) -> None:
        """Op 7 RECONNECT, as Discord sends before moving a session to another node: discord.py
        closes the socket itself (code 4000, so the session stays resumable) and RESUMEs."""
        await conn.send({"op": OP_RECONNECT, "d": None})

    async def close_all(self, code: int = 1001) -> None:
        for conn in list(self.connections):
            if not conn.ws.closed:
                conn.server_close_code = code
                await conn.ws.close(code=code)


def _interaction_id(event: str, data: JSON) -> int | None:
    if event != "INTERACTION_CREATE":
        return None
    try:
        return int(data["id"])
    except (KeyError, TypeError, ValueError):
        return None
