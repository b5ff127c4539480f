"""aiohttp application that impersonates Discord's REST API (v10) and gateway on 127.0.0.1.

Owns routing, request parsing (JSON and multipart ``payload_json`` + ``files[n]``), the rules
Discord enforces on each endpoint (permissions, interaction deadlines, single acknowledgement,
token lifetime, size limits), error answers shaped like Discord's (``{"code", "message",
"errors"}`` with ``Content-Type: application/json`` exactly, which discord.py requires),
injected failures (429 with ``Via`` + ``retry_after``, 5xx, anything), and ``GET /gateway/bot``
(recommended shard count, session start limit).  The websocket side (sessions, sharding, routing
of events to shards, RESUME) lives in ``gateway.py``; the server mounts it on ``/gateway`` and
``/resume-gateway``.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from aiohttp import web

from . import limits
from .gateway import (
    FakeGateway,
    GatewayConnection,
)
from .ratelimits import Verdict
from .state import (
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    JSON,
    CallbackRecord,
    CallbackType,
    ChannelType,
    CommandSync,
    ErrorRecord,
    FakeChannel,
    FakeDiscordState,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    InteractionEvent,
    InteractionType,
    RequestRecord,
    Upload,
    Violation,
    iso,
    snowflake_ms,
)

API_PREFIX = "/api/v10"
BODY_KEY: web.RequestKey[Any] = web.RequestKey("fakediscord_body", object)
UPLOADS_KEY: web.RequestKey[list[Upload]] = web.RequestKey("fakediscord_uploads", list)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """JSON answer with ``Content-Type: application/json`` exactly (discord.py compares the
    header for equality; aiohttp's ``json_response`` appends ``; charset=utf-8``)."""
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    return web.Response(body=json.dumps(data).encode(), status=status, headers=all_headers)


def no_content() -> web.Response:
    return web.Response(status=204)


class DiscordHTTPError(Exception):
    """Raised by handlers; the middleware turns it into Discord's error JSON."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        errors: JSON | None = None,
        violation: str | None = None,
        interaction: FakeInteraction | None = None,
        detail: Any = None,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.violation = violation
        self.interaction = interaction
        self.detail = detail

    def body(self) -> JSON:
        data: JSON = {"code": self.code, "message": self.message}
        if self.errors is not None:
            data["errors"] = self.errors
        return data


def form_error(
    field_errors: list[limits.FieldError], *, interaction: FakeInteraction | None = None
) -> DiscordHTTPError:
    body = limits.form_body_error(field_errors)
    return DiscordHTTPError(
        400,
        50035,
        "Invalid Form Body",
        errors=body["errors"],
        violation="invalid_form_body",
        interaction=interaction,
        detail=[str(e) for e in field_errors],
    )


def unknown(what: str, code: int) -> DiscordHTTPError:
    return DiscordHTTPError(404, code, f"Unknown {what}")


def missing_permissions(names: list[str]) -> DiscordHTTPError:
    return DiscordHTTPError(403, 50013, "Missing Permissions", detail=names)


def missing_access() -> DiscordHTTPError:
    return DiscordHTTPError(403, 50001, "Missing Access")


@dataclass
class InjectedFailure:
    """A failure the next matching request(s) will get instead of being handled."""

    status: int
    method: str | None = None
    path: str | None = None
    times: int = 1
    retry_after: float = 0.05
    code: int = 0
    message: str = ""
    is_global: bool = False
    hits: int = 0
    # The request is done first, then answered with the failure (it reached Discord), after
    # ``delay`` seconds (a client's time-out may come first).
    after: bool = False
    delay: float = 0.0

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method.upper() != method.upper():
            return False
        return self.path is None or fnmatch.fnmatchcase(path, self.path)

    def response(self) -> web.Response:
        if self.status == 429:
            body = {
                "message": self.message or "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
                "code": self.code,
            }
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, int(self.retry_after + 0.999))),
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
            return json_response(body, 429, headers)
        message = self.message or f"{self.status}: injected failure"
        return json_response({"code": self.code, "message": message}, self.status)


@dataclass
class HeldRequest:
    """The next request matching ``method`` and ``path`` is held on arrival (``reached`` set)
    until ``release`` is set, then handled as usual: a test can act while a client waits on a
    call it made (a click being answered), knowing the call was made."""

    method: str | None = None
    path: str | None = None
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    taken: bool = False

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method.upper() != method.upper():
            return False
        return self.path is None or fnmatch.fnmatchcase(path, self.path)


class FakeDiscordServer:
    """The REST + gateway server bound to a :class:`FakeDiscordState`."""

    def __init__(self, state: FakeDiscordState) -> None:
        self.state = state
        self.port = 0
        self.failures: list[InjectedFailure] = []
        self.holds: list[HeldRequest] = []
        self.gateway = FakeGateway(state)
        self._runner: web.AppRunner | None = None

    # -- lifecycle --------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return self.gateway.url

    async def start(self) -> None:
        app = web.Application(client_max_size=200 * 1024 * 1024, middlewares=[self._middleware])
        self._add_routes(app)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1])
        self.state.base_url = self.base_url
        self.gateway.base_url = f"ws://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        await self.gateway.close_all(1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- failure injection ------------------------------------------------------------------------
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
        is_global: bool = False,
        after: bool = False,
        delay: float = 0.0,
    ) -> InjectedFailure:
        failure = InjectedFailure(
            status=status,
            method=method,
            path=path,
            times=times,
            retry_after=retry_after,
            code=code,
            message=message,
            is_global=is_global,
            after=after,
            delay=delay,
        )
        self.failures.append(failure)
        return failure

    def _take_failure(self, method: str, path: str) -> InjectedFailure | None:
        for failure in self.failures:
            if failure.hits < failure.times and failure.matches(method, path):
                failure.hits += 1
                return failure
        return None

    # -- gateway (see gateway.py) ------------------------------------------------------------------
    @property
    def connections(self) -> list[GatewayConnection]:
        return self.gateway.connections

    @property
    def identify_count(self) -> int:
        return self.gateway.identify_count

    @property
    def ready_connections(self) -> list[GatewayConnection]:
        return self.gateway.ready_connections

    async def dispatch(self, event: str, data: JSON, *, force: bool = False) -> int:
        """Send a gateway event to the sessions of its shard whose intents allow it."""
        return await self.gateway.dispatch(event, data, force=force)

    async def dispatch_interaction(self, payload: JSON) -> int:
        return await self.gateway.dispatch_interaction(payload)

    # -- middleware -------------------------------------------------------------------------------
    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API_PREFIX + "/"):
            return await handler(request)
        state = self.state
        rel = request.path[len(API_PREFIX) :]
        body, uploads = await self._read_body(request)
        request[BODY_KEY] = body
        request[UPLOADS_KEY] = uploads
        record = RequestRecord(
            method=request.method,
            path=rel,
            query=dict(request.query),
            body=body,
            uploads=uploads,
            at=state.clock(),
        )
        state.requests.append(record)
        for hold in self.holds:
            if not hold.taken and hold.matches(request.method, rel):
                hold.taken = True
                hold.reached.set()
                await hold.release.wait()
                break
        failure = self._take_failure(request.method, rel)
        verdict: Verdict | None = None
        if failure is None and state.rate_limits is not None and self._authorized(request, rel):
            verdict = state.rate_limits.check(request.method, rel, state.clock())
        if verdict is not None and verdict.refusal is not None:
            status, payload, headers = verdict.refusal
            if isinstance(payload, str):
                resp = web.Response(text=payload, status=status, headers=headers)
            else:
                resp = json_response(payload, status, headers)
            state.errors.append(ErrorRecord(request.method, rel, status, 0, "rate limited"))
        elif failure is not None and not failure.after:
            resp: web.StreamResponse = failure.response()
            state.errors.append(
                ErrorRecord(
                    request.method, rel, failure.status, failure.code, "injected", injected=True
                )
            )
        else:
            try:
                self._check_auth(request, rel)
                resp = await handler(request)
            except DiscordHTTPError as exc:
                resp = json_response(exc.body(), exc.status)
                state.errors.append(
                    ErrorRecord(request.method, rel, exc.status, exc.code, exc.message)
                )
                if exc.interaction is not None:
                    exc.interaction.events.append(
                        InteractionEvent(
                            "rejected", state.clock(), status=exc.status, code=exc.code
                        )
                    )
                if exc.violation is not None:
                    state.record_violation(
                        Violation(
                            kind=exc.violation,
                            message=exc.message,
                            method=request.method,
                            path=rel,
                            status=exc.status,
                            code=exc.code,
                            interaction_id=None if exc.interaction is None else exc.interaction.id,
                            detail=exc.detail,
                        )
                    )
            except web.HTTPException as exc:
                if exc.status not in (404, 405):
                    raise
                resp = json_response({"code": 0, "message": "404: Not Found"}, 404)
                state.errors.append(ErrorRecord(request.method, rel, 404, 0, "unsupported route"))
                state.record_violation(
                    Violation(
                        kind="unsupported_route",
                        message="the fake Discord does not implement this route",
                        method=request.method,
                        path=rel,
                        status=404,
                    )
                )
        if failure is not None and failure.after:
            # The request reached Discord and was done; the answer is lost on the way back (a
            # 5xx from the edge, or no answer in time: ``delay``).
            if failure.delay:
                await asyncio.sleep(failure.delay)
            resp = failure.response()
            state.errors.append(
                ErrorRecord(request.method, rel, failure.status, failure.code,
                            "injected after the request was done", injected=True))
        if verdict is not None and verdict.refusal is None:
            resp.headers.update(verdict.headers)
        limits_ = state.rate_limits
        if limits_ is not None and limits_.answered(resp.status, dict(resp.headers),
                                                    state.clock()):
            state.record_violation(
                Violation(
                    kind="invalid_request_ban",
                    message=f"{limits_.invalid_limit} answers of 401, 403 or 429 within "
                    f"{limits_.invalid_window * limits_.scale:.0f} s: banned at the edge",
                    method=request.method,
                    path=rel,
                    status=429,
                )
            )
        record.status = resp.status
        state.notify()
        return resp

    def _authorized(self, request: web.Request, rel: str) -> bool:
        """Counted against the rate limits: what passes the token check (a 401 is answered
        before any bucket, as Discord does)."""
        if rel.startswith(("/interactions/", "/webhooks/")):
            return True
        return request.headers.get("Authorization") == f"Bot {self.state.token}"

    def _check_auth(self, request: web.Request, rel: str) -> None:
        if rel.startswith(("/interactions/", "/webhooks/")):
            return
        if request.headers.get("Authorization") != f"Bot {self.state.token}":
            raise DiscordHTTPError(401, 0, "401: Unauthorized")

    async def _read_body(self, request: web.Request) -> tuple[Any, list[Upload]]:
        uploads: list[Upload] = []
        if request.content_type.startswith("multipart/"):
            body: Any = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not hasattr(part, "read"):
                    continue
                name = getattr(part, "name", None) or ""
                raw = await part.read(decode=False)  # type: ignore[union-attr]
                if name == "payload_json":
                    body = json.loads(bytes(raw).decode())
                elif name.startswith("files[") and name.endswith("]"):
                    uploads.append(
                        Upload(
                            index=int(name[6:-1]),
                            filename=getattr(part, "filename", None) or name,
                            data=bytes(raw),
                            content_type=part.headers.get(
                                "Content-Type", "application/octet-stream"
                            ),
                        )
                    )
            return body, uploads
        raw_body = await request.read()
        if not raw_body:
            return None, uploads
        try:
            return json.loads(raw_body), uploads
        except ValueError:
            return raw_body.decode(errors="replace"), uploads

    # -- routes -----------------------------------------------------------------------------------
    def _add_routes(self, app: web.Application) -> None:
        a = API_PREFIX
        r = app.router
        r.add_get("/gateway", self.gateway.handle)
        r.add_get("/resume-gateway", self.gateway.handle)
        r.add_get("/attachments/{attachment_id}/{filename}", self.get_attachment)
        r.add_get(a + "/gateway", self.get_gateway)
        r.add_get(a + "/gateway/bot", self.get_gateway_bot)
        r.add_get(a + "/users/@me", self.get_me)
        r.add_post(a + "/users/@me/channels", self.create_dm)
        r.add_get(a + "/users/{user_id}", self.get_user)
        r.add_get(a + "/oauth2/applications/@me", self.get_application)
        r.add_get(a + "/applications/@me", self.get_application)
        # channels
        ch = a + "/channels/{channel_id}"
        r.add_get(ch, self.get_channel)
        r.add_patch(ch, self.edit_channel)
        r.add_delete(ch, self.delete_channel)
        r.add_post(ch + "/typing", self.typing)
        r.add_get(ch + "/messages", self.list_messages)
        r.add_post(ch + "/messages", self.create_message)
        msg = ch + "/messages/{message_id}"
        r.add_get(msg, self.get_message)
        r.add_patch(msg, self.edit_message)
        r.add_delete(msg, self.delete_message)
        r.add_post(msg + "/threads", self.create_thread_from_message)
        r.add_put(msg + "/reactions/{emoji}/{user}", self.add_reaction)
        r.add_delete(msg + "/reactions/{emoji}/{user}", self.remove_reaction)
        r.add_post(ch + "/threads", self.create_thread)
        r.add_put(ch + "/thread-members/{user_id}", self.add_thread_member)
        r.add_delete(ch + "/thread-members/{user_id}", self.remove_thread_member)
        # guilds
        g = a + "/guilds/{guild_id}"
        r.add_get(g, self.get_guild)
        r.add_get(g + "/channels", self.get_guild_channels)
        r.add_get(g + "/roles", self.get_guild_roles)
        r.add_get(g + "/members/{user_id}", self.get_member)
        r.add_get(g + "/threads/active", self.get_active_threads)
        # application commands
        for base in (
            a + "/applications/{app_id}/commands",
            a + "/applications/{app_id}/guilds/{guild_id}/commands",
        ):
            r.add_get(base, self.list_commands)
            r.add_put(base, self.bulk_overwrite_commands)
            r.add_post(base, self.upsert_command)
            r.add_get(base + "/{command_id}", self.get_command)
            r.add_patch(base + "/{command_id}", self.edit_command)
            r.add_delete(base + "/{command_id}", self.delete_command)
        # interactions
        r.add_post(a + "/interactions/{interaction_id}/{token}/callback", self.interaction_callback)
        wh = a + "/webhooks/{app_id}/{token}"
        r.add_post(wh, self.webhook_execute)
        r.add_get(wh + "/messages/{message_id}", self.webhook_get_message)
        r.add_patch(wh + "/messages/{message_id}", self.webhook_edit_message)
        r.add_delete(wh + "/messages/{message_id}", self.webhook_delete_message)

    # -- small helpers ----------------------------------------------------------------------------
    @staticmethod
    def _body(request: web.Request) -> Any:
        return request[BODY_KEY]

    @staticmethod
    def _json_body(request: web.Request) -> JSON:
        body = request[BODY_KEY]
        return body if isinstance(body, dict) else {}

    @staticmethod
    def _uploads(request: web.Request) -> list[Upload]:
        return request[UPLOADS_KEY]

    @staticmethod
    def _int(request: web.Request, key: str) -> int:
        try:
            return int(request.match_info[key])
        except ValueError:
            raise DiscordHTTPError(
                400,
                50035,
                "Invalid Form Body",
                errors={key: {"_errors": [{"code": "NUMBER_TYPE_COERCE"}]}},
            ) from None

    def _guild_for_bot(self, guild_id: int) -> FakeGuild:
        guild = self.state.guilds.get(guild_id)
        if guild is None:
            raise unknown("Guild", 10004)
        if not guild.bot_present:
            raise missing_access()
        return guild

    def _channel_for_bot(self, channel_id: int) -> FakeChannel:
        channel = self.state.channels.get(channel_id)
        if channel is None or channel.deleted:
            raise unknown("Channel", 10003)
        if channel.is_dm:
            return channel
        guild = self.state.guild_of(channel)
        if guild is None or not guild.bot_present:
            raise missing_access()
        if not self.state.permissions_in(channel, self.state.bot_user.id):
            raise missing_access()
        return channel

    def _require(self, channel: FakeChannel, *names: str) -> None:
        if channel.is_dm:
            return
        lacking = self.state.lacking_permissions(channel, self.state.bot_user.id, *names)
        if lacking:
            raise missing_permissions(lacking)

    def _message_in(self, channel: FakeChannel, message_id: int) -> FakeMessage:
        msg = self.state.messages.get(message_id)
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise unknown("Message", 10008)
        return msg

    def _message_event(self, msg: FakeMessage) -> JSON:
        data = self.state.message_payload(msg)
        if msg.guild_id is not None:
            guild = self.state.guilds.get(msg.guild_id)
            member = guild.members.get(msg.author.id) if guild else None
            if member is not None:
                data["member"] = member.payload(with_user=False)
        return data

    async def _dispatch_message_create(self, msg: FakeMessage) -> None:
        if not msg.ephemeral and not msg.loading:
            await self.dispatch("MESSAGE_CREATE", self._message_event(msg))

    async def _dispatch_thread(self, event: str, thread: FakeChannel, **extra: Any) -> None:
        data = self.state.thread_payload(thread)
        data.update(extra)
        await self.dispatch(event, data)

    # -- message building -------------------------------------------------------------------------
    def _check_files(self, uploads: list[Upload]) -> None:
        limit = self.state.attachment_size_limit
        for up in uploads:
            if len(up.data) > limit:
                raise DiscordHTTPError(
                    413,
                    40005,
                    "Request entity too large",
                    violation="attachment_too_large",
                    detail={"filename": up.filename, "size": len(up.data), "limit": limit},
                )

    def _validate_message_body(
        self,
        body: JSON,
        uploads: list[Upload],
        *,
        creating: bool,
        interaction: FakeInteraction | None = None,
    ) -> None:
        errors = limits.check_message(body, creating=creating, file_count=len(uploads))
        if errors:
            raise form_error(errors, interaction=interaction)
        self._check_files(uploads)
        if creating and limits.is_empty_message(body, len(uploads)):
            raise DiscordHTTPError(
                400,
                50006,
                "Cannot send an empty message",
                violation="empty_message",
                interaction=interaction,
            )

    def _new_attachments(self, body: JSON, uploads: list[Upload], *, ephemeral: bool) -> list[Any]:
        meta = {}
        for item in body.get("attachments") or []:
            if isinstance(item, dict) and "id" in item:
                meta[str(item["id"])] = item
        out = []
        for up in sorted(uploads, key=lambda u: u.index):
            info = meta.get(str(up.index), {})
            out.append(
                self.state.make_attachment(
                    info.get("filename") or up.filename,
                    up.data,
                    description=info.get("description"),
                    ephemeral=ephemeral,
                )
            )
        return out

    def _build_message(
        self,
        channel: FakeChannel,
        body: JSON,
        uploads: list[Upload],
        *,
        author: FakeUser,
        flags_mask: int = FLAG_COMPONENTS_V2 | 4 | 4096,
        extra_flags: int = 0,
    ) -> FakeMessage:
        flags = (int(body.get("flags") or 0) & flags_mask) | extra_flags
        ephemeral = bool(flags & FLAG_EPHEMERAL)
        msg = FakeMessage(
            id=self.state.next_id(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=self._new_attachments(body, uploads, ephemeral=ephemeral),
            flags=flags,
            tts=bool(body.get("tts", False)),
            created_at=self.state.clock(),
            mentions=limits.pinged_users(str(body.get("content") or ""),
                                         body.get("allowed_mentions")),
        )
        ref = body.get("message_reference")
        if isinstance(ref, dict) and ref.get("message_id"):
            msg.message_reference = {
                "message_id": str(ref["message_id"]),
                "channel_id": str(ref.get("channel_id") or channel.id),
                "guild_id": None if channel.guild_id is None else str(channel.guild_id),
                "type": ref.get("type", 0),
            }
            msg.type = 19
        return msg

    def _apply_edit(self, msg: FakeMessage, body: JSON, uploads: list[Upload]) -> None:
        """Edit semantics of Discord: fields present replace; ``attachments`` lists what to keep
        (by id) plus new uploads (by index); without it, uploads are appended."""
        new_attachments = list(msg.attachments)
        if "attachments" in body:
            keep = []
            by_id = {str(a.id): a for a in msg.attachments}
            uploads_by_index = {str(u.index): u for u in uploads}
            used: set[str] = set()
            for item in body.get("attachments") or []:
                key = str(item.get("id")) if isinstance(item, dict) else ""
                if key in by_id:
                    keep.append(by_id[key])
                elif key in uploads_by_index:
                    up = uploads_by_index[key]
                    used.add(key)
                    keep.append(
                        self.state.make_attachment(
                            item.get("filename") or up.filename,
                            up.data,
                            description=item.get("description"),
                            ephemeral=msg.ephemeral,
                        )
                    )
            for key, up in uploads_by_index.items():
                if key not in used:
                    keep.append(
                        self.state.make_attachment(up.filename, up.data, ephemeral=msg.ephemeral)
                    )
            new_attachments = keep
        elif uploads:
            new_attachments += self._new_attachments({}, uploads, ephemeral=msg.ephemeral)
        msg.history.append(msg.snapshot())
        if "content" in body:
            msg.content = str(body.get("content") or "")
            msg.mentions = limits.pinged_users(msg.content, body.get("allowed_mentions"))
        if "embeds" in body:
            msg.embeds = list(body.get("embeds") or [])
        if "components" in body:
            msg.components = list(body.get("components") or [])
        if body.get("flags") is not None:
            keep_bits = msg.flags & FLAG_EPHEMERAL
            msg.flags = (int(body["flags"]) & (FLAG_COMPONENTS_V2 | 4)) | keep_bits
        msg.flags &= ~FLAG_LOADING
        msg.attachments = new_attachments
        msg.edited_at_ms = snowflake_ms(self.state.next_id())

    def _validate_edit(
        self,
        msg: FakeMessage,
        body: JSON,
        uploads: list[Upload],
        *,
        interaction: FakeInteraction | None = None,
    ) -> None:
        merged = {
            "content": body.get("content", msg.content) if "content" in body else msg.content,
            "embeds": body.get("embeds") if "embeds" in body else msg.embeds,
            "components": body.get("components") if "components" in body else msg.components,
            "flags": body.get("flags") if body.get("flags") is not None else msg.flags,
            "allowed_mentions": body.get("allowed_mentions"),
        }
        if "attachments" in body:
            merged["attachments"] = body.get("attachments") or []
        errors = limits.check_message(merged, creating=False, file_count=len(uploads))
        if errors:
            raise form_error(errors, interaction=interaction)
        self._check_files(uploads)
        kept = len(body.get("attachments") or []) if "attachments" in body else len(msg.attachments)
        if limits.is_empty_message(merged, kept + len(uploads)) and not msg.loading:
            raise DiscordHTTPError(
                400,
                50006,
                "Cannot send an empty message",
                violation="empty_message",
                interaction=interaction,
            )

    async def _unarchive_for_send(self, channel: FakeChannel) -> None:
        if not channel.is_thread or not channel.archived:
            return
        if channel.locked and self.state.lacking_permissions(
            channel, self.state.bot_user.id, "manage_threads"
        ):
            raise DiscordHTTPError(400, 50083, "Thread is archived")
        channel.archived = False
        channel.archive_timestamp_ms = snowflake_ms(self.state.next_id())
        await self._dispatch_thread("THREAD_UPDATE", channel)

    # -- attachments (CDN) ----------------------------------------------------------------------
    async def get_attachment(self, request: web.Request) -> web.StreamResponse:
        att = self.state.attachments.get(self._int(request, "attachment_id"))
        if att is None:
            return web.Response(status=404, text="Not Found")
        return web.Response(
            body=att.data, headers={"Content-Type": att.content_type or "application/octet-stream"}
        )

    # -- meta -------------------------------------------------------------------------------------
    async def get_gateway(self, request: web.Request) -> web.StreamResponse:
        return json_response({"url": self.gateway_url})

    async def get_gateway_bot(self, request: web.Request) -> web.StreamResponse:
        """The recommended shard count (one per 1,000 guilds, or ``state.recommended_shards``)
        and the session start limit with ``state.max_concurrency``."""
        state = self.state
        total = state.session_start_total
        return json_response(
            {
                "url": self.gateway_url,
                "shards": state.recommended_shard_count(),
                "session_start_limit": {
                    "total": total,
                    "remaining": max(0, total - self.gateway.identify_count),
                    "reset_after": 24 * 3600 * 1000,
                    "max_concurrency": state.max_concurrency,
                },
            }
        )

    async def get_me(self, request: web.Request) -> web.StreamResponse:
        me = self.state.bot_user.payload()
        me.update({"verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"})
        return json_response(me)

    async def get_application(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        return json_response(
            {
                "id": str(state.application_id),
                "name": state.bot_user.name,
                "description": "fake application",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": state.owner.payload(),
                "verify_key": "0" * 64,
                "flags": 0,
                "team": None,
                "summary": "",
                "rpc_origins": [],
                "interactions_endpoint_url": None,
                "bot": state.bot_user.payload(),
            }
        )

    async def get_user(self, request: web.Request) -> web.StreamResponse:
        user = self.state.users.get(self._int(request, "user_id"))
        if user is None:
            raise unknown("User", 10013)
        return json_response(user.payload())

    async def create_dm(self, request: web.Request) -> web.StreamResponse:
        body = self._json_body(request)
        try:
            user = self.state.users.get(int(body.get("recipient_id", 0)))
        except (TypeError, ValueError):
            user = None
        if user is None:
            raise unknown("User", 10013)
        channel = self.state.dm_channel(user)
        return json_response(self.state.channel_payload(channel))

    # -- channels ---------------------------------------------------------------------------------
    async def get_channel(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        return json_response(self.state.channel_payload(channel))

    async def edit_channel(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        body = self._json_body(request)
        bot_id = state.bot_user.id
        if channel.is_dm:
            raise DiscordHTTPError(403, 50003, "Cannot execute action on a DM channel")
        if channel.is_thread:
            manage = not state.lacking_permissions(channel, bot_id, "manage_threads")
            owner = channel.owner_id == bot_id
            if ("locked" in body or "invitable" in body) and not manage:
                raise missing_permissions(["manage_threads"])
            if "archived" in body and not (manage or (owner and not channel.locked)):
                raise missing_permissions(["manage_threads"])
            if ("name" in body or "auto_archive_duration" in body) and not (manage or owner):
                raise missing_permissions(["manage_threads"])
            if "name" in body:
                name = str(body["name"] or "")
                if not 1 <= len(name) <= 100:
                    raise form_error(
                        [
                            limits.FieldError(
                                ("name",),
                                "BASE_TYPE_BAD_LENGTH",
                                "Must be between 1 and 100 in length.",
                            )
                        ]
                    )
                channel.name = name
            if "locked" in body:
                channel.locked = bool(body["locked"])
            if "invitable" in body:
                channel.invitable = bool(body["invitable"])
            if "auto_archive_duration" in body:
                channel.auto_archive_duration = int(body["auto_archive_duration"])
            if "archived" in body and bool(body["archived"]) != channel.archived:
                channel.archived = bool(body["archived"])
                channel.archive_timestamp_ms = snowflake_ms(state.next_id())
            await self._dispatch_thread("THREAD_UPDATE", channel)
            return json_response(state.thread_payload(channel))
        self._require(channel, "manage_channels")
        if "name" in body:
            channel.name = str(body["name"])
        if "topic" in body:
            channel.topic = body["topic"]
        payload = state.channel_payload(channel)
        await self.dispatch("CHANNEL_UPDATE", payload)
        return json_response(payload)

    async def delete_channel(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        if channel.is_dm:
            return json_response(state.channel_payload(channel))
        if channel.is_thread:
            self._require(channel, "manage_threads")
            payload = state.thread_payload(channel)
            channel.deleted = True
            await self.dispatch(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(channel.guild_id),
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
            )
            return json_response(payload)
        self._require(channel, "manage_channels")
        payload = state.channel_payload(channel)
        channel.deleted = True
        await self.dispatch("CHANNEL_DELETE", payload)
        return json_response(payload)

    async def typing(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        self._require(channel, "send_messages_in_threads" if channel.is_thread else "send_messages")
        return no_content()

    # -- messages ---------------------------------------------------------------------------------
    async def list_messages(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        if state.lacking_permissions(channel, state.bot_user.id, "read_message_history"):
            return json_response([])
        msgs = state.channel_messages(channel)
        q = request.query
        limit = max(1, min(100, int(q.get("limit", "50"))))
        if "before" in q:
            msgs = [m for m in msgs if m.id < int(q["before"])]
        if "after" in q:
            msgs = [m for m in msgs if m.id > int(q["after"])]
            msgs = msgs[:limit]
        if "around" in q:
            around = int(q["around"])
            older = [m for m in msgs if m.id <= around][-(limit // 2 + 1) :]
            newer = [m for m in msgs if m.id > around][: limit - len(older)]
            msgs = older + newer
        msgs = list(reversed(msgs))[:limit]
        return json_response([state.message_payload(m) for m in msgs])

    async def create_message(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        body = self._json_body(request)
        uploads = self._uploads(request)
        if channel.is_dm:
            recipient = state.users.get(channel.recipient_id or 0)
            if recipient is None or not recipient.dms_open or recipient.bot:
                raise DiscordHTTPError(403, 50007, "Cannot send messages to this user")
        else:
            needed = ["send_messages_in_threads" if channel.is_thread else "send_messages"]
            if uploads:
                needed.append("attach_files")
            if body.get("embeds"):
                needed.append("embed_links")
            if body.get("message_reference"):
                needed.append("read_message_history")
            self._require(channel, *needed)
        self._validate_message_body(body, uploads, creating=True)
        nonce = body.get("nonce")
        key = (channel.id, str(nonce)) if nonce is not None else None
        if key is not None and body.get("enforce_nonce"):
            seen = state.nonces.get(key)
            if seen is not None and state.clock() - seen[1] <= state.nonce_window:
                first = state.messages.get(seen[0])
                if first is not None and not first.deleted:
                    state.nonce_duplicates.append(key)
                    state.nonce_duplicate_times.append((seen[1], state.clock()))
                    return json_response(state.message_payload(first))
        if channel.is_thread:
            if channel.locked and state.lacking_permissions(
                channel, state.bot_user.id, "manage_threads"
            ):
                raise missing_permissions(["manage_threads"])
            await self._unarchive_for_send(channel)
        msg = self._build_message(channel, body, uploads, author=state.bot_user)
        if key is not None:
            msg.nonce = key[1]
            state.nonces[key] = (msg.id, state.clock())
        state.add_message(msg)
        await self._dispatch_message_create(msg)
        return json_response(state.message_payload(msg))

    async def get_message(self, request: web.Request) -> web.StreamResponse:
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        self._require(channel, "read_message_history")
        msg = self._message_in(channel, self._int(request, "message_id"))
        return json_response(self.state.message_payload(msg))

    async def edit_message(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        msg = self._message_in(channel, self._int(request, "message_id"))
        body = self._json_body(request)
        uploads = self._uploads(request)
        if msg.author.id != state.bot_user.id:
            only_flags = set(body) <= {"flags"}
            if not only_flags:
                raise DiscordHTTPError(403, 50005, "Cannot edit a message authored by another user")
            self._require(channel, "manage_messages")
        if uploads and not channel.is_dm:
            self._require(channel, "attach_files")
        self._validate_edit(msg, body, uploads)
        self._apply_edit(msg, body, uploads)
        state.notify()
        await self.dispatch("MESSAGE_UPDATE", self._message_event(msg))
        return json_response(state.message_payload(msg))

    async def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        self.state.deleted_messages.append(msg)
        self.state.notify()
        if not msg.ephemeral:
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            await self.dispatch("MESSAGE_DELETE", data)

    async def delete_message(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        msg = self._message_in(channel, self._int(request, "message_id"))
        if msg.author.id != state.bot_user.id:
            if channel.is_dm:
                raise DiscordHTTPError(403, 50003, "Cannot execute action on a DM channel")
            self._require(channel, "manage_messages")
        await self._delete(msg)
        return no_content()

    async def add_reaction(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        self._require(channel, "read_message_history")
        msg = self._message_in(channel, self._int(request, "message_id"))
        emoji = request.match_info["emoji"]
        if request.match_info["user"] != "@me":
            raise DiscordHTTPError(400, 50035, "Invalid Form Body")
        if emoji not in msg.reactions:
            self._require(channel, "add_reactions")
        msg.reactions.setdefault(emoji, set()).add(state.bot_user.id)
        return no_content()

    async def remove_reaction(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        channel = self._channel_for_bot(self._int(request, "channel_id"))
        msg = self._message_in(channel, self._int(request, "message_id"))
        emoji = request.match_info["emoji"]
        who = request.match_info["user"]
        user_id = state.bot_user.id if who == "@me" else int(who)
        if user_id != state.bot_user.id:
            self._require(channel, "manage_messages")
        msg.reactions.get(emoji, set()).discard(user_id)
        return no_content()

    # -- threads ----------------------------------------------------------------------------------
    def _thread_name(self, body: JSON) -> str:
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise form_error(
                [
                    limits.FieldError(
                        ("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
                    )
                ]
            )
        return name

    async def create_thread(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        parent = self._channel_for_bot(self._int(request, "channel_id"))
        if parent.is_dm or parent.is_thread:
            raise DiscordHTTPError(400, 50024, "Cannot execute action on this channel type")
        body = self._json_body(request)
        name = self._thread_name(body)
        ttype = int(body.get("type") or ChannelType.PRIVATE_THREAD)
        if ttype not in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD):
            raise form_error(
                [limits.FieldError(("type",), "BASE_TYPE_CHOICES", "Value must be 11 or 12.")]
            )
        self._require(
            parent,
            "create_public_threads"
            if ttype == ChannelType.PUBLIC_THREAD
            else "create_private_threads",
        )
        thread = state.add_thread(
            parent,
            name,
            owner=state.bot_user,
            type=ttype,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            invitable=bool(body.get("invitable", True)),
        )
        await self._dispatch_thread("THREAD_CREATE", thread, newly_created=True)
        state.notify()
        return json_response(state.thread_payload(thread), 201)

    async def create_thread_from_message(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        parent = self._channel_for_bot(self._int(request, "channel_id"))
        if parent.is_dm or parent.is_thread:
            raise DiscordHTTPError(400, 50024, "Cannot execute action on this channel type")
        msg = self._message_in(parent, self._int(request, "message_id"))
        body = self._json_body(request)
        name = self._thread_name(body)
        self._require(parent, "create_public_threads", "read_message_history")
        if msg.thread_id is not None:
            raise DiscordHTTPError(
                400, 160004, "A thread has already been created for this message"
            )
        thread = state.add_thread(
            parent,
            name,
            owner=state.bot_user,
            type=ChannelType.PUBLIC_THREAD,
            thread_id=msg.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
        msg.thread_id = thread.id
        await self._dispatch_thread("THREAD_CREATE", thread, newly_created=True)
        state.notify()
        return json_response(state.thread_payload(thread), 201)

    async def add_thread_member(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        thread = self._channel_for_bot(self._int(request, "channel_id"))
        if not thread.is_thread:
            raise DiscordHTTPError(400, 50024, "Cannot execute action on this channel type")
        who = request.match_info["user_id"]
        user_id = state.bot_user.id if who == "@me" else self._int(request, "user_id")
        if thread.archived:
            raise DiscordHTTPError(400, 50083, "Thread is archived")
        guild = state.guild_of(thread)
        if guild is None or user_id not in guild.members:
            raise unknown("Member", 10007)
        if user_id != state.bot_user.id:
            self._require(thread, "send_messages_in_threads")
            private = thread.type == ChannelType.PRIVATE_THREAD
            if private and not thread.invitable and state.bot_user.id != thread.owner_id:
                self._require(thread, "manage_threads")
        added = user_id not in thread.member_ids
        thread.member_ids.add(user_id)
        if added:
            await self.dispatch(
                "THREAD_MEMBERS_UPDATE",
                {
                    "id": str(thread.id),
                    "guild_id": str(thread.guild_id),
                    "member_count": len(thread.member_ids),
                    "added_members": [
                        {
                            "id": str(thread.id),
                            "user_id": str(user_id),
                            "join_timestamp": iso(snowflake_ms(state.next_id())),
                            "flags": 0,
                        }
                    ],
                },
            )
        state.notify()
        return no_content()

    async def remove_thread_member(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        thread = self._channel_for_bot(self._int(request, "channel_id"))
        if not thread.is_thread:
            raise DiscordHTTPError(400, 50024, "Cannot execute action on this channel type")
        who = request.match_info["user_id"]
        user_id = state.bot_user.id if who == "@me" else self._int(request, "user_id")
        if user_id != state.bot_user.id:
            self._require(thread, "manage_threads")
        thread.member_ids.discard(user_id)
        state.notify()
        return no_content()

    # -- guilds -----------------------------------------------------------------------------------
    async def get_guild(self, request: web.Request) -> web.StreamResponse:
        guild = self._guild_for_bot(self._int(request, "guild_id"))
        data = self.state.guild_payload(guild)
        if request.query.get("with_counts") in ("true", "1", "True"):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return json_response(data)

    async def get_guild_channels(self, request: web.Request) -> web.StreamResponse:
        guild = self._guild_for_bot(self._int(request, "guild_id"))
        chans = [
            self.state.channels[c] for c in guild.channel_ids if not self.state.channels[c].deleted
        ]
        return json_response([self.state.channel_payload(c) for c in chans])

    async def get_guild_roles(self, request: web.Request) -> web.StreamResponse:
        guild = self._guild_for_bot(self._int(request, "guild_id"))
        return json_response([r.payload() for r in guild.roles.values()])

    async def get_member(self, request: web.Request) -> web.StreamResponse:
        guild = self._guild_for_bot(self._int(request, "guild_id"))
        member = guild.members.get(self._int(request, "user_id"))
        if member is None:
            raise unknown("Member", 10007)
        return json_response(member.payload())

    async def get_active_threads(self, request: web.Request) -> web.StreamResponse:
        guild = self._guild_for_bot(self._int(request, "guild_id"))
        threads = [
            c
            for c in self.state.channels.values()
            if c.guild_id == guild.id and c.is_thread and not c.archived and not c.deleted
        ]
        return json_response(
            {"threads": [self.state.thread_payload(t) for t in threads], "members": []}
        )

    # -- application commands ---------------------------------------------------------------------
    def _command_store(self, request: web.Request) -> tuple[int | None, dict[str, JSON]]:
        if self._int(request, "app_id") != self.state.application_id:
            raise DiscordHTTPError(403, 50001, "Missing Access")
        if "guild_id" in request.match_info:
            guild_id = self._int(request, "guild_id")
            self._guild_for_bot(guild_id)
            return guild_id, self.state.guild_commands.setdefault(guild_id, {})
        return None, self.state.global_commands

    @staticmethod
    def _command_key(cmd: JSON) -> str:
        ctype = int(cmd.get("type", 1) or 1)
        return str(cmd.get("name")) if ctype == 1 else f"{ctype}:{cmd.get('name')}"

    def _echo_command(self, cmd: JSON, guild_id: int | None, existing: JSON | None) -> JSON:
        out = dict(cmd)
        out["id"] = existing["id"] if existing else str(self.state.next_id())
        out["application_id"] = str(self.state.application_id)
        out["version"] = str(self.state.next_id())
        out["type"] = int(cmd.get("type", 1) or 1)
        out.setdefault("description", "")
        out.setdefault("options", [])
        out.setdefault("default_member_permissions", None)
        out.setdefault("nsfw", False)
        out.setdefault("name_localizations", None)
        out.setdefault("description_localizations", None)
        if guild_id is not None:
            out["guild_id"] = str(guild_id)
        return out

    def _check_command(self, cmd: Any, index: int | None) -> None:
        prefix: tuple[str | int, ...] = () if index is None else (index,)
        errs: list[limits.FieldError] = []
        if not isinstance(cmd, dict):
            raise form_error(
                [limits.FieldError(prefix, "DICT_TYPE_CONVERT", "Only dictionaries may be used")]
            )
        name = str(cmd.get("name") or "")
        if not 1 <= len(name) <= 32:
            errs.append(
                limits.FieldError(
                    (*prefix, "name"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length."
                )
            )
        if int(cmd.get("type", 1) or 1) == 1:
            desc = str(cmd.get("description") or "")
            if not 1 <= len(desc) <= 100:
                errs.append(
                    limits.FieldError(
                        (*prefix, "description"),
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
                )
        if len(cmd.get("options") or []) > 25:
            errs.append(
                limits.FieldError(
                    (*prefix, "options"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            )
        if errs:
            raise form_error(errs)

    async def list_commands(self, request: web.Request) -> web.StreamResponse:
        _, store = self._command_store(request)
        return json_response(list(store.values()))

    async def bulk_overwrite_commands(self, request: web.Request) -> web.StreamResponse:
        guild_id, store = self._command_store(request)
        body = self._body(request)
        if not isinstance(body, list):
            raise form_error(
                [limits.FieldError((), "LIST_TYPE_CONVERT", "Only iterables may be used")]
            )
        for i, cmd in enumerate(body):
            self._check_command(cmd, i)
        previous = dict(store)
        store.clear()
        for cmd in body:
            key = self._command_key(cmd)
            store[key] = self._echo_command(cmd, guild_id, previous.get(key))
        self.state.command_syncs.append(
            CommandSync(guild_id=guild_id, commands=list(body), at=self.state.clock())
        )
        return json_response(list(store.values()))

    async def upsert_command(self, request: web.Request) -> web.StreamResponse:
        guild_id, store = self._command_store(request)
        body = self._json_body(request)
        self._check_command(body, None)
        key = self._command_key(body)
        existing = store.get(key)
        store[key] = self._echo_command(body, guild_id, existing)
        return json_response(store[key], 200 if existing else 201)

    def _find_command(self, store: dict[str, JSON], command_id: int) -> tuple[str, JSON]:
        for key, cmd in store.items():
            if int(cmd["id"]) == command_id:
                return key, cmd
        raise unknown("application command", 10063)

    async def get_command(self, request: web.Request) -> web.StreamResponse:
        _, store = self._command_store(request)
        _, cmd = self._find_command(store, self._int(request, "command_id"))
        return json_response(cmd)

    async def edit_command(self, request: web.Request) -> web.StreamResponse:
        guild_id, store = self._command_store(request)
        key, cmd = self._find_command(store, self._int(request, "command_id"))
        merged = {**cmd, **self._json_body(request)}
        del store[key]
        store[self._command_key(merged)] = self._echo_command(merged, guild_id, cmd)
        return json_response(store[self._command_key(merged)])

    async def delete_command(self, request: web.Request) -> web.StreamResponse:
        _, store = self._command_store(request)
        key, _ = self._find_command(store, self._int(request, "command_id"))
        del store[key]
        return no_content()

    # -- interactions -----------------------------------------------------------------------------
    _ALLOWED_CALLBACKS: ClassVar[dict[int, frozenset[int]]] = {
        InteractionType.APPLICATION_COMMAND: frozenset({4, 5, 9}),
        InteractionType.MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9}),
        InteractionType.AUTOCOMPLETE: frozenset({8}),
        InteractionType.MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
    }

    def _interaction_message(
        self,
        ix: FakeInteraction,
        body: JSON,
        uploads: list[Upload],
        *,
        extra_flags: int = 0,
        original: bool = False,
    ) -> FakeMessage:
        state = self.state
        channel = state.channels.get(ix.channel_id)
        if channel is None or channel.deleted:
            raise unknown("Channel", 10003)
        msg = self._build_message(
            channel,
            body,
            uploads,
            author=state.bot_user,
            flags_mask=FLAG_COMPONENTS_V2 | FLAG_EPHEMERAL | 4 | 4096,
            extra_flags=extra_flags,
        )
        msg.interaction_id = ix.id
        msg.interaction_user_id = ix.user.id
        msg.interaction_type = ix.type
        msg.webhook_id = ix.application_id
        msg.application_id = ix.application_id
        msg.type = 20 if original and ix.type == InteractionType.APPLICATION_COMMAND else msg.type
        if msg.ephemeral:
            msg.visible_to = ix.user.id
            for att in msg.attachments:
                att.ephemeral = True
        state.add_message(msg)
        return msg

    async def interaction_callback(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        ix = state.interactions.get(self._int(request, "interaction_id"))
        if ix is None or ix.token != request.match_info["token"]:
            raise DiscordHTTPError(
                404, 10062, "Unknown interaction", violation="unknown_interaction"
            )
        body = self._json_body(request)
        uploads = self._uploads(request)
        now = state.clock()
        if ix.acknowledged:
            raise DiscordHTTPError(
                400,
                40060,
                "Interaction has already been acknowledged.",
                violation="already_acknowledged",
                interaction=ix,
            )
        elapsed = now - ix.dispatched_at
        if ix.failed or elapsed > state.interaction_deadline:
            ix.failed = True
            raise DiscordHTTPError(
                404,
                10062,
                "Unknown interaction",
                violation="late_response",
                interaction=ix,
                detail={"elapsed": round(elapsed, 3), "deadline": state.interaction_deadline},
            )
        ctype = int(body.get("type") or 0)
        data = body.get("data") or {}
        if not isinstance(data, dict):
            data = {}
        allowed = self._ALLOWED_CALLBACKS.get(ix.type, frozenset())
        if ctype == CallbackType.UPDATE_MESSAGE and ix.message_id is None:
            allowed = allowed - {7}
        if ctype not in allowed:
            raise DiscordHTTPError(
                400,
                50035,
                f"Invalid Form Body: callback {ctype} is not valid for interaction type {ix.type}",
                errors={
                    "type": {
                        "_errors": [
                            {
                                "code": "INTERACTION_CALLBACK_TYPE_INVALID",
                                "message": "Invalid callback type",
                            }
                        ]
                    }
                },
                violation="invalid_callback_type",
                interaction=ix,
            )
        message: FakeMessage | None = None
        if ctype == CallbackType.CHANNEL_MESSAGE:
            self._validate_message_body(data, uploads, creating=True, interaction=ix)
            message = self._interaction_message(ix, data, uploads, original=True)
            ix.original_message_id = message.id
        elif ctype == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            ephemeral = int(data.get("flags") or 0) & FLAG_EPHEMERAL
            message = self._interaction_message(
                ix, {}, [], extra_flags=FLAG_LOADING | ephemeral, original=True
            )
            ix.original_message_id = message.id
            ix.loading_pending = True
        elif ctype == CallbackType.DEFERRED_UPDATE_MESSAGE:
            ix.original_message_id = ix.message_id
        elif ctype == CallbackType.UPDATE_MESSAGE:
            message = ix.source_message
            if message is None or message.deleted:
                raise unknown("Message", 10008)
            self._validate_edit(message, data, uploads, interaction=ix)
            self._apply_edit(message, data, uploads)
            ix.original_message_id = message.id
        elif ctype == CallbackType.AUTOCOMPLETE_RESULT:
            errs = limits.check_choices(data)
            if errs:
                raise form_error(errs, interaction=ix)
            ix.choices = list(data.get("choices") or [])
        elif ctype == CallbackType.MODAL:
            errs = limits.check_modal(data)
            if errs:
                raise form_error(errs, interaction=ix)
            ix.modal = data
        ix.callbacks.append(
            CallbackRecord(
                type=ctype, data=data, at=now, message_id=None if message is None else message.id
            )
        )
        ix.events.append(
            InteractionEvent(
                "callback", now, callback_type=ctype, message_id=ix.original_message_id
            )
        )
        state.notify()
        if message is not None and ctype == CallbackType.CHANNEL_MESSAGE:
            await self._dispatch_message_create(message)
        elif message is not None and ctype == CallbackType.UPDATE_MESSAGE and not message.ephemeral:
            await self.dispatch("MESSAGE_UPDATE", self._message_event(message))
        if request.query.get("with_response") not in ("1", "true", "True"):
            return no_content()
        resp_ix: JSON = {"id": str(ix.id), "type": ix.type}
        if ix.original_message_id is not None and ctype in (4, 5, 7):
            original = state.messages[ix.original_message_id]
            resp_ix["response_message_id"] = str(original.id)
            resp_ix["response_message_loading"] = ctype == CallbackType.DEFERRED_CHANNEL_MESSAGE
            resp_ix["response_message_ephemeral"] = original.ephemeral
        resource: JSON = {"type": ctype}
        if message is not None:
            resource["message"] = state.message_payload(message)
        return json_response({"interaction": resp_ix, "resource": resource})

    def _webhook_interaction(self, request: web.Request) -> FakeInteraction:
        state = self.state
        ix = state.interactions_by_token.get(request.match_info["token"])
        try:
            app_id = int(request.match_info["app_id"])
        except ValueError:
            app_id = -1
        if ix is None or ix.application_id != app_id:
            raise DiscordHTTPError(404, 10015, "Unknown Webhook")
        if state.clock() - ix.dispatched_at > state.token_lifetime:
            raise DiscordHTTPError(
                401, 50027, "Invalid Webhook Token", violation="token_expired", interaction=ix
            )
        if not ix.acknowledged:
            raise DiscordHTTPError(
                404,
                10015,
                "Unknown Webhook",
                violation="not_acknowledged",
                interaction=ix,
                detail="webhook call before a successful initial response",
            )
        return ix

    def _webhook_target(self, ix: FakeInteraction, raw_id: str) -> FakeMessage:
        if raw_id == "@original":
            mid = ix.original_message_id
        else:
            try:
                mid = int(raw_id)
            except ValueError:
                mid = None
            if mid is not None and mid not in ix.followup_ids and mid != ix.original_message_id:
                mid = None
        msg = None if mid is None else self.state.messages.get(mid)
        if msg is None or msg.deleted:
            raise unknown("Message", 10008)
        return msg

    async def webhook_execute(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        ix = self._webhook_interaction(request)
        body = self._json_body(request)
        uploads = self._uploads(request)
        self._validate_message_body(body, uploads, creating=True, interaction=ix)
        now = state.clock()
        original = ix.message
        if ix.loading_pending and original is not None and original.loading \
                and not original.deleted:
            # The first followup after a "thinking" defer replaces the loading message (once
            # the bot deleted that message, a followup is a new message with its own flags).
            self._apply_edit(original, {**body, "flags": body.get("flags") or 0}, uploads)
            original.history.clear()
            original.edited_at_ms = None
            ix.loading_pending = False
            msg = original
            ix.events.append(InteractionEvent("followup", now, message_id=msg.id))
            await self._dispatch_message_create(msg)
        else:
            msg = self._interaction_message(ix, body, uploads)
            ix.followup_ids.append(msg.id)
            ix.events.append(InteractionEvent("followup", now, message_id=msg.id))
            await self._dispatch_message_create(msg)
        state.notify()
        if request.query.get("wait") in ("true", "1", "True"):
            return json_response(state.message_payload(msg))
        return no_content()

    async def webhook_get_message(self, request: web.Request) -> web.StreamResponse:
        ix = self._webhook_interaction(request)
        msg = self._webhook_target(ix, request.match_info["message_id"])
        return json_response(self.state.message_payload(msg))

    async def webhook_edit_message(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        ix = self._webhook_interaction(request)
        raw_id = request.match_info["message_id"]
        msg = self._webhook_target(ix, raw_id)
        body = self._json_body(request)
        uploads = self._uploads(request)
        was_loading = msg.loading
        self._validate_edit(msg, body, uploads, interaction=ix)
        self._apply_edit(msg, body, uploads)
        if was_loading:
            msg.history.clear()
            msg.edited_at_ms = None
            ix.loading_pending = False
        is_original = msg.id == ix.original_message_id
        ix.events.append(
            InteractionEvent(
                "edit_original" if is_original else "edit_followup",
                state.clock(),
                message_id=msg.id,
            )
        )
        state.notify()
        if not msg.ephemeral:
            event = "MESSAGE_CREATE" if was_loading else "MESSAGE_UPDATE"
            await self.dispatch(event, self._message_event(msg))
        return json_response(state.message_payload(msg))

    async def webhook_delete_message(self, request: web.Request) -> web.StreamResponse:
        state = self.state
        ix = self._webhook_interaction(request)
        msg = self._webhook_target(ix, request.match_info["message_id"])
        is_original = msg.id == ix.original_message_id
        await self._delete(msg)
        ix.events.append(
            InteractionEvent(
                "delete_original" if is_original else "delete_followup",
                state.clock(),
                message_id=msg.id,
            )
        )
        state.notify()
        return no_content()
