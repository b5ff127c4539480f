"""In-memory world of the fake Discord.

Owns the model (users, guilds, roles, channels, threads, DM channels, messages with their
attachments and edit history, interactions and everything the bot answered to them), the
permission arithmetic, the JSON payloads discord.py expects for each object, the shard maths
(``shard_for_guild``, Discord's recommended shard count and limits, configurable per test), and
the records a test reads afterwards (violations, errors, REST request log, command syncs, and
for the gateway: identifies, resumes, closes and which session/shard got each dispatch).
Nothing here does any I/O; the aiohttp server in ``server.py`` (and its gateway in
``gateway.py``) mutates this state and the environment in ``env.py`` exposes it to tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import mimetypes
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, TypeVar

import discord

if TYPE_CHECKING:
    from PIL import Image

    from .ratelimits import RateLimits

JSON = dict[str, Any]
T = TypeVar("T")

DISCORD_EPOCH_MS = 1420070400000
DEFAULT_ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # discord.utils.DEFAULT_FILE_SIZE_LIMIT_BYTES

# Message flags (https://discord.com/developers/docs/resources/message#message-object-message-flags)
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_COMPONENTS_V2 = 1 << 15


class ChannelType(IntEnum):
    """The Discord channel types the fake models."""

    GUILD_TEXT = 0
    DM = 1
    ANNOUNCEMENT_THREAD = 10
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


class InteractionType(IntEnum):
    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(IntEnum):
    CHANNEL_MESSAGE = 4
    DEFERRED_CHANNEL_MESSAGE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9


THREAD_TYPES = frozenset(
    {ChannelType.ANNOUNCEMENT_THREAD, ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD}
)


def perm_bits(*names: str) -> int:
    """Permission names as used by :class:`discord.Permissions` → the integer bit set."""
    return discord.Permissions(**dict.fromkeys(names, True)).value


ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = perm_bits("administrator")
VIEW_CHANNEL = perm_bits("view_channel")
SEND_MESSAGES = perm_bits("send_messages")

DEFAULT_EVERYONE_PERMISSIONS = perm_bits(
    "view_channel",
    "send_messages",
    "send_messages_in_threads",
    "create_public_threads",
    "create_private_threads",
    "embed_links",
    "attach_files",
    "read_message_history",
    "add_reactions",
    "use_external_emojis",
    "use_application_commands",
    "create_instant_invite",
    "change_nickname",
    "connect",
    "speak",
)
DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | perm_bits(
    "manage_threads", "manage_messages"
)


# Discord's sharding rules (https://discord.com/developers/docs/events/gateway#sharding)
MAX_GUILDS_PER_SHARD = 2500  # a session holding more guilds is closed with 4011
GUILDS_PER_RECOMMENDED_SHARD = 1000  # GET /gateway/bot recommends about one shard per 1,000
IDENTIFY_WINDOW = 5.0  # each bucket (shard_id % max_concurrency) may identify once per 5 s


def shard_for_guild(guild_id: int, shard_count: int) -> int:
    """The shard a guild's events go to: ``(guild_id >> 22) % shard_count`` (Discord's rule)."""
    if shard_count < 1:
        raise ValueError("shard_count must be at least 1")
    return (guild_id >> 22) % shard_count


def iso(ts_ms: int) -> str:
    return dt.datetime.fromtimestamp(ts_ms / 1000, tz=dt.UTC).isoformat()


def snowflake_ms(snowflake: int) -> int:
    return (snowflake >> 22) + DISCORD_EPOCH_MS


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """A rule of the Discord API that the bot broke (the fake answered with an error)."""

    kind: str
    message: str
    method: str = ""
    path: str = ""
    status: int = 0
    code: int = 0
    interaction_id: int | None = None
    detail: Any = None

    def __str__(self) -> str:
        where = f" [{self.method} {self.path}]" if self.method else ""
        detail = f" {self.detail}" if self.detail else ""
        return f"{self.kind}: {self.message} (HTTP {self.status}, code {self.code}){detail}{where}"


@dataclass(frozen=True)
class ErrorRecord:
    """Any non-2xx answer the fake gave to the bot (injected failures included)."""

    method: str
    path: str
    status: int
    code: int
    message: str
    injected: bool = False


@dataclass(frozen=True)
class Upload:
    """One file part of a multipart request (``files[n]``)."""

    index: int
    filename: str
    data: bytes
    content_type: str


@dataclass
class RequestRecord:
    """One REST request the bot made, in arrival order."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    uploads: list[Upload]
    at: float
    status: int = 0


@dataclass(frozen=True)
class Delivery:
    """What became of one gateway dispatch for one session (or for none).

    ``status``: ``sent`` (written to the session's live connection), ``queued`` (the session is
    disconnected but resumable: kept for RESUME, as Discord does), ``replayed`` (a queued or
    missed dispatch sent again after RESUME), ``dropped`` (no session holds the shard the event
    belongs to, so Discord would deliver it nowhere).  ``shard_id``/``shard_count`` are the
    session's shard; for ``dropped`` they are the shard the event belonged to under the shard
    count of the connected sessions (``None`` when nothing was connected).
    """

    event: str
    status: str
    guild_id: int | None
    shard_id: int | None
    shard_count: int | None
    session_id: str | None
    seq: int | None
    at: float
    interaction_id: int | None = None
    connection_id: int | None = None


@dataclass(frozen=True)
class IdentifyRecord:
    """One IDENTIFY the gateway received and what it answered.

    ``outcome`` is ``ready``, ``invalid_session`` (identify too soon in its bucket while
    ``enforce_identify_rate_limit`` is on), ``held`` (never answered: ``identify_held``) or
    ``closed`` (then ``close_code`` says why: 4004, 4005, 4010, 4011, 4014).  ``too_soon``
    marks an identify within ``identify_window`` seconds of the previous accepted identify of
    the same bucket (``shard_id % max_concurrency``), whether or not the fake enforced it.
    """

    at: float
    connection_id: int
    shard_id: int
    shard_count: int
    sharded: bool
    bucket: int
    outcome: str
    session_id: str | None = None
    close_code: int | None = None
    reason: str = ""
    too_soon: bool = False


@dataclass(frozen=True)
class ResumeRecord:
    """One RESUME: the session, the client's last sequence and how many dispatches were replayed
    (``ok`` is False when the fake answered INVALID_SESSION)."""

    at: float
    connection_id: int
    session_id: str
    seq: int | None
    ok: bool
    replayed: int = 0
    shard_id: int | None = None
    shard_count: int | None = None


@dataclass(frozen=True)
class GatewayCloseRecord:
    """A gateway connection ended: who closed it (``client``, ``server`` or ``kill``), with which
    close code, and whether its session can still be resumed."""

    at: float
    connection_id: int
    session_id: str | None
    shard_id: int | None
    shard_count: int | None
    code: int | None
    initiator: str
    resumable: bool


@dataclass(frozen=True)
class CommandSync:
    """One ``PUT .../commands`` (a ``tree.sync()``)."""

    guild_id: int | None
    commands: list[JSON]
    at: float

    @property
    def names(self) -> list[str]:
        return [str(c.get("name")) for c in self.commands]


# --------------------------------------------------------------------------------------------
# Model objects
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    global_name: str | None = None
    locale: str = "en-US"
    bot: bool = False
    dms_open: bool = True
    avatar: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": self.avatar,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: int | None = None

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    joined_at: str = "2024-01-01T00:00:00+00:00"
    nick: str | None = None

    def payload(self, *, permissions: int | None = None, with_user: bool = True) -> JSON:
        data: JSON = {
            "roles": [str(r) for r in self.role_ids],
            "joined_at": self.joined_at,
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass
class Overwrite:
    """A channel permission overwrite; ``type`` 0 = role, 1 = member."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a thread or a DM channel."""

    id: int
    type: int
    name: str
    guild_id: int | None = None
    position: int = 0
    parent_id: int | None = None
    topic: str | None = None
    overwrites: list[Overwrite] = field(default_factory=list)
    # threads
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    archive_timestamp_ms: int = 0
    member_ids: set[int] = field(default_factory=set)
    # DMs
    recipient_id: int | None = None
    deleted: bool = False
    message_ids: list[int] = field(default_factory=list)
    total_message_sent: int = 0

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == ChannelType.DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def __repr__(self) -> str:
        return f"<FakeChannel {self.name!r} id={self.id} type={self.type}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    locale: str = "en-US"
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    bot_present: bool = True
    bot_role_id: int | None = None

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name!r} id={self.id}>"


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None
    ephemeral: bool = False
    _size: tuple[int, int] | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "ephemeral": self.ephemeral,
        }
        if self.description is not None:
            data["description"] = self.description
        size = self._image_size()
        if size is not None:
            data["width"], data["height"] = size
        return data

    def _image_size(self) -> tuple[int, int] | None:
        if not (self.content_type or "").startswith("image/"):
            return None
        if self._size is None:
            from PIL import Image

            try:
                with Image.open(io.BytesIO(self.data)) as img:  # reads the header only
                    self._size = img.size
            except Exception:
                self._size = (0, 0)
        return None if self._size == (0, 0) else self._size

    def image(self) -> Image.Image:
        """Decode the bytes with Pillow (raises if they are not an image)."""
        from PIL import Image

        img = Image.open(io.BytesIO(self.data))
        img.load()
        return img

    def __repr__(self) -> str:
        return f"<FakeAttachment {self.filename!r} {self.size} bytes>"


@dataclass(frozen=True)
class SelectOption:
    label: str
    value: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True)
class Component:
    """A parsed message/modal component (any type; ``children`` for rows and containers)."""

    type: int
    raw: JSON
    children: tuple[Component, ...] = ()

    @property
    def custom_id(self) -> str | None:
        return self.raw.get("custom_id")

    @property
    def label(self) -> str | None:
        return self.raw.get("label")

    @property
    def style(self) -> int | None:
        return self.raw.get("style")

    @property
    def disabled(self) -> bool:
        return bool(self.raw.get("disabled", False))

    @property
    def url(self) -> str | None:
        return self.raw.get("url")

    @property
    def emoji(self) -> JSON | None:
        return self.raw.get("emoji")

    @property
    def placeholder(self) -> str | None:
        return self.raw.get("placeholder")

    @property
    def min_values(self) -> int:
        return int(self.raw.get("min_values", 1))

    @property
    def max_values(self) -> int:
        return int(self.raw.get("max_values", 1))

    @property
    def content(self) -> str | None:
        """Text of a Components V2 text display."""
        return self.raw.get("content")

    @property
    def options(self) -> list[SelectOption]:
        return [
            SelectOption(
                label=o.get("label", ""),
                value=o.get("value", ""),
                description=o.get("description"),
                default=bool(o.get("default", False)),
            )
            for o in self.raw.get("options", [])
        ]

    @property
    def is_button(self) -> bool:
        return self.type == 2

    @property
    def is_select(self) -> bool:
        return self.type in (3, 5, 6, 7, 8)

    def walk(self) -> Iterator[Component]:
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self) -> str:
        bits = [f"type={self.type}"]
        for key in ("label", "custom_id"):
            value = self.raw.get(key)
            if value is not None:
                bits.append(f"{key}={value!r}")
        if self.disabled:
            bits.append("disabled")
        return f"<Component {' '.join(bits)}>"


def parse_component(raw: JSON) -> Component:
    children: list[Component] = []
    for key in ("components", "items"):
        for child in raw.get(key, []) or []:
            if isinstance(child, dict):
                children.append(parse_component(child))
    for key in ("accessory", "component"):
        child = raw.get(key)
        if isinstance(child, dict):
            children.append(parse_component(child))
    return Component(type=int(raw.get("type", 0)), raw=raw, children=tuple(children))


def parse_components(raw: Iterable[JSON] | None) -> list[Component]:
    return [parse_component(c) for c in raw or [] if isinstance(c, dict)]


@dataclass(frozen=True)
class MessageSnapshot:
    """One version of a message (the edit history keeps all previous versions)."""

    content: str
    embeds: list[JSON]
    components: list[JSON]
    attachments: list[FakeAttachment]
    flags: int
    at: float

    @property
    def buttons(self) -> list[Component]:
        return [c for top in parse_components(self.components) for c in top.walk() if c.is_button]


@dataclass(eq=False)
class FakeMessage:
    id: int
    channel_id: int
    author: FakeUser
    guild_id: int | None = None
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    created_at: float = 0.0
    interaction_id: int | None = None
    interaction_user_id: int | None = None
    interaction_type: int | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    visible_to: int | None = None
    message_reference: JSON | None = None
    thread_id: int | None = None
    edited_at_ms: int | None = None
    history: list[MessageSnapshot] = field(default_factory=list)
    deleted: bool = False
    reactions: dict[str, set[int]] = field(default_factory=dict)
    nonce: str | None = None  # what the sender passed (see FakeDiscordState.nonce_window)
    mentions: list[int] = field(default_factory=list)  # users it pinged (allowed_mentions)

    # -- convenience readers ------------------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    @property
    def edited(self) -> bool:
        return bool(self.history)

    @property
    def parsed_components(self) -> list[Component]:
        return parse_components(self.components)

    def walk_components(self) -> Iterator[Component]:
        for top in self.parsed_components:
            yield from top.walk()

    @property
    def rows(self) -> list[list[Component]]:
        """Action rows (anywhere in the tree, V2 containers included) → their components."""
        return [list(c.children) for c in self.walk_components() if c.type == 1]

    @property
    def buttons(self) -> list[Component]:
        return [c for c in self.walk_components() if c.is_button]

    @property
    def selects(self) -> list[Component]:
        return [c for c in self.walk_components() if c.is_select]

    def button(self, label: str | None = None, *, custom_id: str | None = None) -> Component:
        found = [
            b
            for b in self.buttons
            if (label is None or b.label == label)
            and (custom_id is None or b.custom_id == custom_id)
        ]
        if len(found) != 1:
            raise LookupError(
                f"expected one button label={label!r} custom_id={custom_id!r} on message "
                f"{self.id}, found {len(found)}; buttons: {self.buttons}"
            )
        return found[0]

    def select(self, custom_id: str | None = None) -> Component:
        found = [s for s in self.selects if custom_id is None or s.custom_id == custom_id]
        if len(found) != 1:
            raise LookupError(
                f"expected one select custom_id={custom_id!r} on message {self.id}, "
                f"found {len(found)}"
            )
        return found[0]

    @property
    def embed(self) -> JSON | None:
        return self.embeds[0] if self.embeds else None

    def attachment(self, filename: str | None = None) -> FakeAttachment:
        found = [a for a in self.attachments if filename is None or a.filename == filename]
        if len(found) != 1:
            raise LookupError(
                f"expected one attachment {filename!r} on message {self.id}, "
                f"have {self.attachments}"
            )
        return found[0]

    @property
    def versions(self) -> list[MessageSnapshot]:
        """All versions, oldest first, the current one last."""
        return [*self.history, self.snapshot()]

    def snapshot(self) -> MessageSnapshot:
        return MessageSnapshot(
            content=self.content,
            embeds=list(self.embeds),
            components=list(self.components),
            attachments=list(self.attachments),
            flags=self.flags,
            at=self.created_at,
        )

    def __repr__(self) -> str:
        text = self.content if len(self.content) < 40 else self.content[:37] + "..."
        extra = " ephemeral" if self.ephemeral else ""
        extra += " deleted" if self.deleted else ""
        return f"<FakeMessage id={self.id} channel={self.channel_id} {text!r}{extra}>"


@dataclass(frozen=True)
class CallbackRecord:
    """An accepted interaction callback (the initial response)."""

    type: int
    data: JSON | None
    at: float
    message_id: int | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.data and int(self.data.get("flags") or 0) & FLAG_EPHEMERAL)

    @property
    def deferred(self) -> bool:
        return self.type in (
            CallbackType.DEFERRED_CHANNEL_MESSAGE,
            CallbackType.DEFERRED_UPDATE_MESSAGE,
        )


@dataclass(frozen=True)
class InteractionEvent:
    """One thing the bot did with an interaction token, in order.

    ``kind`` is one of ``callback``, ``followup``, ``edit_original``, ``edit_followup``,
    ``delete_original``, ``delete_followup``, ``rejected``.
    """

    kind: str
    at: float
    callback_type: int | None = None
    message_id: int | None = None
    status: int = 200
    code: int = 0


@dataclass(eq=False)
class FakeInteraction:
    """An interaction the fake sent to the bot plus everything the bot answered."""

    id: int
    token: str
    type: int
    application_id: int
    user: FakeUser
    guild_id: int | None
    channel_id: int
    data: JSON
    locale: str
    dispatched_at: float
    world: FakeDiscordState = field(repr=False)
    message_id: int | None = None
    source_interaction_id: int | None = None
    callbacks: list[CallbackRecord] = field(default_factory=list)
    events: list[InteractionEvent] = field(default_factory=list)
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    loading_pending: bool = False
    modal: JSON | None = None
    modal_submitted: bool = False
    choices: list[JSON] | None = None
    failed: bool = False
    deliveries: list[Delivery] = field(default_factory=list)

    # -- readers --------------------------------------------------------------------------------
    @property
    def delivered_shards(self) -> list[int]:
        """Shard ids of the sessions that received this interaction (sent live or replayed)."""
        return sorted(
            {
                d.shard_id
                for d in self.deliveries
                if d.status in ("sent", "replayed") and d.shard_id is not None
            }
        )

    @property
    def delivered_sessions(self) -> list[str]:
        return [
            d.session_id
            for d in self.deliveries
            if d.status in ("sent", "replayed") and d.session_id is not None
        ]

    @property
    def dropped(self) -> bool:
        """True when no gateway session held the interaction's shard (Discord delivered it to
        nobody; the user would see "This interaction failed")."""
        return any(d.status == "dropped" for d in self.deliveries)

    @property
    def response(self) -> CallbackRecord | None:
        return self.callbacks[0] if self.callbacks else None

    @property
    def acknowledged(self) -> bool:
        return bool(self.callbacks)

    @property
    def response_type(self) -> int | None:
        return self.callbacks[0].type if self.callbacks else None

    @property
    def deferred(self) -> bool:
        return bool(self.callbacks) and self.callbacks[0].deferred

    @property
    def ephemeral(self) -> bool:
        """Whether the initial response (message or defer) was ephemeral."""
        return bool(self.callbacks) and self.callbacks[0].ephemeral

    @property
    def message(self) -> FakeMessage | None:
        """The message the original response currently shows (``@original``)."""
        if self.original_message_id is None:
            return None
        return self.world.messages.get(self.original_message_id)

    @property
    def source_message(self) -> FakeMessage | None:
        """For component interactions: the message the component sits on."""
        return None if self.message_id is None else self.world.messages.get(self.message_id)

    @property
    def followups(self) -> list[FakeMessage]:
        return [self.world.messages[m] for m in self.followup_ids]

    @property
    def messages(self) -> list[FakeMessage]:
        """Messages the bot produced through this token, in order: the initial message response
        (or the deferred "thinking" message once a followup/edit filled it), then followups.
        Deleted ones are left out (``followups`` keeps them); the message of a component
        updated by callback 6/7 is not included (see ``message``)."""
        out: list[FakeMessage] = []
        if self.original_message_id is not None and self.original_message_id != self.message_id:
            original = self.world.messages[self.original_message_id]
            if not original.loading:
                out.append(original)
        out.extend(self.world.messages[m] for m in self.followup_ids)
        return [m for m in out if not m.deleted]

    @property
    def rejections(self) -> list[InteractionEvent]:
        return [e for e in self.events if e.kind == "rejected"]

    # -- waits ---------------------------------------------------------------------------------
    async def wait_response(self, timeout: float = 5.0) -> CallbackRecord:
        """Wait for the initial response (raises TimeoutError if none arrives)."""
        await self.world.wait_for(
            lambda: self.callbacks or None,
            timeout=timeout,
            what=f"a response to interaction {self.id}",
        )
        return self.callbacks[0]

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        """Wait until ``messages`` holds ``count`` messages and return them (a message response
        counts, and so does the deferred message once the first followup filled it)."""

        def ready() -> list[FakeMessage] | None:
            msgs = self.messages
            return msgs if len(msgs) >= count else None

        result = await self.world.wait_for(
            ready, timeout=timeout, what=f"{count} followup(s) to interaction {self.id}"
        )
        assert result is not None
        return result

    async def wait_followup(self, timeout: float = 5.0) -> FakeMessage:
        return (await self.wait_followups(1, timeout=timeout))[0]

    async def wait_rejection(self, timeout: float = 5.0) -> InteractionEvent:
        await self.world.wait_for(
            lambda: self.rejections or None, timeout=timeout, what=f"a rejected call on {self.id}"
        )
        return self.rejections[0]

    async def wait_until(
        self, predicate: Callable[[FakeInteraction], Any], timeout: float = 5.0
    ) -> Any:
        return await self.world.wait_for(
            lambda: predicate(self), timeout=timeout, what=f"condition on interaction {self.id}"
        )

    async def wait_edit(self, count: int = 1, timeout: float = 5.0) -> FakeMessage:
        """Wait until the original message was edited ``count`` times; returns it."""

        def ready() -> FakeMessage | None:
            msg = self.message
            return msg if msg is not None and len(msg.history) >= count else None

        result = await self.world.wait_for(ready, timeout=timeout, what=f"edit of {self.id}")
        assert result is not None
        return result

    def __repr__(self) -> str:
        name = self.data.get("name") or self.data.get("custom_id")
        return f"<FakeInteraction id={self.id} type={self.type} {name!r} by {self.user.name}>"


# --------------------------------------------------------------------------------------------
# The world
# --------------------------------------------------------------------------------------------


class FakeDiscordState:
    """All objects of the fake Discord plus the records tests read."""

    def __init__(
        self,
        *,
        id_base_ms: int | None = None,
        attachment_size_limit: int = DEFAULT_ATTACHMENT_SIZE_LIMIT,
        interaction_deadline: float = 3.0,
        token_lifetime: float = 15 * 60.0,
        bot_name: str = "CalicoBot",
        token: str = "fake-bot-token",
        max_concurrency: int = 16,
        recommended_shards: int | None = None,
    ) -> None:
        if id_base_ms is None:
            id_base_ms = int(time.time()) * 1000
        self.id_base_ms = id_base_ms
        self._seq = 0
        self._made = time.monotonic()
        self._last_ms = 0
        self.time_offset = 0.0
        # Discord's nonce check: a message created with ``enforce_nonce`` and a nonce already
        # used in that channel within this window is not created again; the first one is
        # returned instead. Beyond the window the nonce is forgotten (and a duplicate shows).
        self.nonce_window = 300.0
        self.nonces: dict[tuple[int, str], tuple[int, float]] = {}
        self.nonce_duplicates: list[tuple[int, str]] = []  # (channel, nonce) refused repeats
        # ...and for each, (when the first copy arrived, when the repeat did)
        self.nonce_duplicate_times: list[tuple[float, float]] = []
        self.attachment_size_limit = attachment_size_limit
        self.interaction_deadline = interaction_deadline
        self.token_lifetime = token_lifetime
        self.token = token
        self.base_url = "http://127.0.0.1:0"  # replaced by the server once it listens

        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self.dm_channel_ids: dict[int, int] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self.interactions_by_token: dict[str, FakeInteraction] = {}

        self.global_commands: dict[str, JSON] = {}
        self.guild_commands: dict[int, dict[str, JSON]] = {}
        self.command_syncs: list[CommandSync] = []

        self.violations: list[Violation] = []
        self.errors: list[ErrorRecord] = []
        self.requests: list[RequestRecord] = []
        self.deleted_messages: list[FakeMessage] = []

        # Sharding knobs (Discord's values unless a test changes them).
        # ``max_concurrency`` defaults high so that tests identify every shard at once; real
        # bots under 150,000 guilds get 1.
        self.max_concurrency = max_concurrency
        # ``None``: one shard per GUILDS_PER_RECOMMENDED_SHARD guilds (at least 1), like Discord.
        self.recommended_shards = recommended_shards
        self.max_guilds_per_shard = MAX_GUILDS_PER_SHARD
        self.identify_window = IDENTIFY_WINDOW
        # Off by default: identifies are recorded (``too_soon``) but not refused, because a plain
        # client restart re-identifies bucket 0 within 5 s in many tests.
        self.enforce_identify_rate_limit = False
        # Every connected session must agree on the shard count (else close 4010).
        self.strict_shard_count = True
        self.session_start_total = 1000
        # The Server Members Intent as enabled in the developer portal (off: an IDENTIFY asking
        # for it is closed with 4014), and a gateway that never answers IDENTIFY (a client
        # stuck before READY).
        self.members_intent_enabled = True
        self.identify_held = False
        # How many dispatches a session keeps for RESUME (older ones → INVALID_SESSION).
        self.resume_buffer_size = 10_000

        # Gateway records.
        self.deliveries: list[Delivery] = []
        self.identifies: list[IdentifyRecord] = []
        self.resumes: list[ResumeRecord] = []
        self.gateway_closes: list[GatewayCloseRecord] = []

        # Discord's rate limits (tests/fakediscord/ratelimits.py): None until a test asks.
        self.rate_limits: RateLimits | None = None

        self._changed = asyncio.Event()
        self.extra_failure_info: Callable[[], str] = lambda: ""

        self.application_id = self.next_id()
        self.bot_user = self.add_user(bot_name, bot=True)
        self.owner = self.add_user("owner")

    # -- ids, time and change notification ----------------------------------------------------
    def next_id(self) -> int:
        """Snowflake-like, strictly increasing, sequence-numbered id. Its time is the clock's,
        as Discord's are (a look back ``after=`` a time finds what came after it): the time
        since the state was made, shifted by ``advance_time``, and at least a millisecond after
        the previous id's (so that ids spread over shards: ``_id_on_shard``)."""
        self._seq += 1
        now = self.id_base_ms + int((time.monotonic() - self._made) * 1000)
        ms = max(now - DISCORD_EPOCH_MS + int(self.time_offset * 1000), self._last_ms + 1)
        self._last_ms = ms
        return (ms << 22) | (self._seq & 0xFFF)

    def clock(self) -> float:
        """Monotonic seconds; ``advance_time`` shifts it (used for deadlines and token expiry)."""
        return time.monotonic() + self.time_offset

    def advance_time(self, seconds: float) -> None:
        self.time_offset += seconds
        self.notify()

    def notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(
        self, predicate: Callable[[], T | None], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        The predicate is re-checked whenever the fake's state changes and at least every 20 ms
        (so it may also look at the bot's own objects).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                extra = self.extra_failure_info()
                raise TimeoutError(f"timed out after {timeout:.2f}s waiting for {what}{extra}")
            event = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout=min(remaining, 0.02))

    # -- records -------------------------------------------------------------------------------
    def record_violation(self, violation: Violation) -> None:
        self.violations.append(violation)
        self.notify()

    # -- sharding ------------------------------------------------------------------------------
    @property
    def bot_guilds(self) -> list[FakeGuild]:
        """Guilds the bot is currently in."""
        return [g for g in self.guilds.values() if g.bot_present]

    def shard_for_guild(self, guild: FakeGuild | int, shard_count: int) -> int:
        return shard_for_guild(guild.id if isinstance(guild, FakeGuild) else guild, shard_count)

    def guilds_on_shard(self, shard_id: int, shard_count: int) -> list[FakeGuild]:
        """The bot's guilds whose events go to ``shard_id`` when there are ``shard_count``."""
        return [g for g in self.bot_guilds if shard_for_guild(g.id, shard_count) == shard_id]

    def recommended_shard_count(self) -> int:
        """What ``GET /gateway/bot`` answers in ``shards``."""
        if self.recommended_shards is not None:
            return self.recommended_shards
        guilds = len(self.bot_guilds)
        return max(1, -(-guilds // GUILDS_PER_RECOMMENDED_SHARD))

    def identify_breaches(self) -> list[IdentifyRecord]:
        """Identifies that came sooner than ``identify_window`` after the previous accepted one
        of the same bucket (``shard_id % max_concurrency``): the client ignored the limit."""
        return [r for r in self.identifies if r.too_soon]

    def _id_on_shard(self, shard: tuple[int, int] | None) -> int:
        """A fresh id; with ``shard=(i, n)``, burns ids until ``shard_for_guild(id, n) == i``
        (ids grow by one millisecond each, so at most ``n`` tries)."""
        new_id = self.next_id()
        if shard is None:
            return new_id
        shard_id, count = shard
        if not 0 <= shard_id < count:
            raise ValueError(f"shard {shard_id} does not exist among {count}")
        while shard_for_guild(new_id, count) != shard_id:
            new_id = self.next_id()
        return new_id

    # -- creation ------------------------------------------------------------------------------
    def add_user(
        self,
        name: str,
        *,
        locale: str = "en-US",
        bot: bool = False,
        dms_open: bool = True,
        global_name: str | None = None,
        user_id: int | None = None,
    ) -> FakeUser:
        user = FakeUser(
            id=user_id or self.next_id(),
            name=name,
            global_name=global_name if global_name is not None else name.capitalize(),
            locale=locale,
            bot=bot,
            dms_open=dms_open,
        )
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: FakeUser | None = None,
        locale: str = "en-US",
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        bot_present: bool = True,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A guild with @everyone, the bot's managed role, the owner and the bot as members.
        ``shard=(i, n)`` picks an id whose events go to shard ``i`` of ``n``."""
        owner = owner or self.owner
        guild = FakeGuild(id=self._id_on_shard(shard), name=name, owner_id=owner.id, locale=locale)
        guild.roles[guild.id] = FakeRole(
            id=guild.id, guild_id=guild.id, name="@everyone", permissions=everyone_permissions
        )
        bot_role = FakeRole(
            id=self.next_id(),
            guild_id=guild.id,
            name=self.bot_user.name,
            permissions=bot_permissions,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.bot_role_id = bot_role.id
        guild.bot_present = bot_present
        self.guilds[guild.id] = guild
        self.add_member(guild, owner)
        self.add_member(guild, self.bot_user, roles=[bot_role])
        return guild

    def add_guilds(
        self, count: int, *, prefix: str = "Guild", spread: int | None = None
    ) -> list[FakeGuild]:
        """``count`` bare guilds (no channels; @everyone, the bot's role, owner and bot), cheap
        enough for thousands.  ``spread=n`` gives guild ``k`` an id on shard ``k % n`` of ``n``,
        so the guilds are spread evenly over ``n`` shards."""
        return [
            self.add_guild(
                f"{prefix} {k + 1}", shard=None if spread is None else (k % spread, spread)
            )
            for k in range(count)
        ]

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        roles: Iterable[FakeRole] = (),
        nick: str | None = None,
    ) -> FakeMember:
        member = FakeMember(
            user=user,
            guild_id=guild.id,
            role_ids=[r.id for r in roles],
            joined_at=iso(snowflake_ms(self.next_id())),
            nick=nick,
        )
        guild.members[user.id] = member
        return member

    def add_role(self, guild: FakeGuild, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(
            id=self.next_id(),
            guild_id=guild.id,
            name=name,
            permissions=permissions,
            position=len(guild.roles),
        )
        guild.roles[role.id] = role
        return role

    def add_text_channel(
        self, guild: FakeGuild, name: str, *, topic: str | None = None
    ) -> FakeChannel:
        channel = FakeChannel(
            id=self.next_id(),
            type=ChannelType.GUILD_TEXT,
            name=name,
            guild_id=guild.id,
            position=len(guild.channel_ids),
            topic=topic,
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        return channel

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        owner: FakeUser,
        type: int = ChannelType.PUBLIC_THREAD,
        thread_id: int | None = None,
        auto_archive_duration: int = 1440,
        invitable: bool = True,
    ) -> FakeChannel:
        assert parent.guild_id is not None
        thread = FakeChannel(
            id=thread_id or self.next_id(),
            type=type,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=owner.id,
            auto_archive_duration=auto_archive_duration,
            invitable=invitable,
            member_ids={owner.id},
        )
        thread.archive_timestamp_ms = snowflake_ms(thread.id)
        self.channels[thread.id] = thread
        return thread

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        channel_id = self.dm_channel_ids.get(user.id)
        if channel_id is not None:
            return self.channels[channel_id]
        channel = FakeChannel(id=self.next_id(), type=ChannelType.DM, name="", recipient_id=user.id)
        self.channels[channel.id] = channel
        self.dm_channel_ids[user.id] = channel.id
        return channel

    def make_attachment(
        self,
        filename: str,
        data: bytes,
        *,
        description: str | None = None,
        ephemeral: bool = False,
        content_type: str | None = None,
    ) -> FakeAttachment:
        att_id = self.next_id()
        ctype = content_type or mimetypes.guess_type(filename)[0]
        att = FakeAttachment(
            id=att_id,
            filename=filename,
            data=data,
            url=f"{self.base_url}/attachments/{att_id}/{filename}",
            content_type=ctype,
            description=description,
            ephemeral=ephemeral,
        )
        self.attachments[att_id] = att
        return att

    def add_message(self, message: FakeMessage) -> FakeMessage:
        self.messages[message.id] = message
        channel = self.channels.get(message.channel_id)
        if channel is not None:
            channel.message_ids.append(message.id)
            if not message.ephemeral:
                channel.total_message_sent += 1
        self.notify()
        return message

    # -- lookups -------------------------------------------------------------------------------
    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return None if channel.guild_id is None else self.guilds.get(channel.guild_id)

    def channel_messages(
        self, channel: FakeChannel, *, include_ephemeral: bool = False
    ) -> list[FakeMessage]:
        out = [self.messages[m] for m in channel.message_ids]
        return [m for m in out if not m.deleted and (include_ephemeral or not m.ephemeral)]

    def threads_of(self, channel: FakeChannel) -> list[FakeChannel]:
        return [c for c in self.channels.values() if c.parent_id == channel.id and not c.deleted]

    # -- permissions ---------------------------------------------------------------------------
    def base_permissions(self, guild: FakeGuild, user_id: int) -> int:
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members.get(user_id)
        perms = guild.everyone.permissions
        if member is not None:
            for role_id in member.role_ids:
                role = guild.roles.get(role_id)
                if role is not None:
                    perms |= role.permissions
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def permissions_in(self, channel: FakeChannel, user_id: int) -> int:
        """Discord's permission algorithm (threads use their parent's overwrites)."""
        if channel.is_dm:
            return perm_bits(
                "view_channel",
                "send_messages",
                "embed_links",
                "attach_files",
                "read_message_history",
                "add_reactions",
                "use_external_emojis",
            )
        guild = self.guild_of(channel)
        if guild is None:
            return 0
        base = self.base_permissions(guild, user_id)
        if base & ADMINISTRATOR or user_id == guild.owner_id:
            return ALL_PERMISSIONS
        source = channel
        if channel.is_thread and channel.parent_id is not None:
            source = self.channels.get(channel.parent_id, channel)
        perms = base
        member = guild.members.get(user_id)
        role_ids = set(member.role_ids) if member is not None else set()
        for ow in source.overwrites:
            if ow.type == 0 and ow.id == guild.id:
                perms = (perms & ~ow.deny) | ow.allow
        allow = deny = 0
        for ow in source.overwrites:
            if ow.type == 0 and ow.id in role_ids:
                allow |= ow.allow
                deny |= ow.deny
        perms = (perms & ~deny) | allow
        for ow in source.overwrites:
            if ow.type == 1 and ow.id == user_id:
                perms = (perms & ~ow.deny) | ow.allow
        if not perms & VIEW_CHANNEL:
            return 0
        if channel.is_thread:
            outsider = (
                channel.type == ChannelType.PRIVATE_THREAD and user_id not in channel.member_ids
            )
            if outsider and not perms & perm_bits("manage_threads"):
                return 0
        elif not perms & SEND_MESSAGES:
            perms &= ~perm_bits(
                "send_tts_messages", "mention_everyone", "embed_links", "attach_files"
            )
        return perms

    def lacking_permissions(self, channel: FakeChannel, user_id: int, *names: str) -> list[str]:
        """Names (of ``names``) the user lacks in ``channel``."""
        perms = self.permissions_in(channel, user_id)
        return [n for n in names if not perms & perm_bits(n)]

    def overwrite_for(self, channel: FakeChannel, target_id: int, target_type: int) -> Overwrite:
        for ow in channel.overwrites:
            if ow.id == target_id and ow.type == target_type:
                return ow
        ow = Overwrite(id=target_id, type=target_type)
        channel.overwrites.append(ow)
        return ow

    # -- payloads ------------------------------------------------------------------------------
    def channel_payload(
        self, channel: FakeChannel, *, with_permissions_for: int | None = None
    ) -> JSON:
        if channel.is_dm:
            recipient = self.users[channel.recipient_id] if channel.recipient_id else self.bot_user
            data: JSON = {
                "id": str(channel.id),
                "type": int(ChannelType.DM),
                "recipients": [recipient.payload()],
                "last_message_id": self._last_message_id(channel),
                "flags": 0,
            }
        elif channel.is_thread:
            data = self.thread_payload(channel)
        else:
            data = {
                "id": str(channel.id),
                "type": int(channel.type),
                "guild_id": str(channel.guild_id),
                "name": channel.name,
                "position": channel.position,
                "permission_overwrites": [ow.payload() for ow in channel.overwrites],
                "parent_id": None if channel.parent_id is None else str(channel.parent_id),
                "topic": channel.topic,
                "nsfw": False,
                "rate_limit_per_user": 0,
                "last_message_id": self._last_message_id(channel),
                "default_auto_archive_duration": 1440,
                "flags": 0,
            }
        if with_permissions_for is not None:
            data["permissions"] = str(self.permissions_in(channel, with_permissions_for))
        return data

    def thread_payload(self, thread: FakeChannel) -> JSON:
        data: JSON = {
            "id": str(thread.id),
            "type": int(thread.type),
            "guild_id": str(thread.guild_id),
            "parent_id": str(thread.parent_id),
            "owner_id": str(thread.owner_id),
            "name": thread.name,
            "last_message_id": self._last_message_id(thread),
            "message_count": len([m for m in thread.message_ids if not self.messages[m].deleted]),
            "member_count": min(len(thread.member_ids), 50),
            "total_message_sent": thread.total_message_sent,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": thread.archived,
                "auto_archive_duration": thread.auto_archive_duration,
                "archive_timestamp": iso(thread.archive_timestamp_ms or snowflake_ms(thread.id)),
                "locked": thread.locked,
                "invitable": thread.invitable,
                "create_timestamp": iso(snowflake_ms(thread.id)),
            },
        }
        if self.bot_user.id in thread.member_ids:
            data["member"] = {
                "id": str(thread.id),
                "user_id": str(self.bot_user.id),
                "join_timestamp": iso(snowflake_ms(thread.id)),
                "flags": 0,
            }
        return data

    def _last_message_id(self, channel: FakeChannel) -> str | None:
        for mid in reversed(channel.message_ids):
            msg = self.messages[mid]
            if not msg.deleted and not msg.ephemeral:
                return str(mid)
        return None

    def member_payload(
        self, guild: FakeGuild, user: FakeUser, channel: FakeChannel | None = None
    ) -> JSON:
        member = guild.members.get(user.id) or FakeMember(user=user, guild_id=guild.id)
        perms = (
            self.permissions_in(channel, user.id)
            if channel
            else self.base_permissions(guild, user.id)
        )
        return member.payload(permissions=perms)

    def guild_create_payload(self, guild: FakeGuild, *, all_members: bool = False) -> JSON:
        members = [
            m.payload()
            for uid, m in guild.members.items()
            if all_members or uid == self.bot_user.id
        ]
        channels = [
            self.channel_payload(self.channels[c])
            for c in guild.channel_ids
            if not self.channels[c].deleted
        ]
        threads = [
            self.thread_payload(t)
            for t in self.channels.values()
            if t.guild_id == guild.id
            and t.is_thread
            and not t.archived
            and not t.deleted
            and self.permissions_in(t, self.bot_user.id) & VIEW_CHANNEL
        ]
        bot_member = guild.members.get(self.bot_user.id)
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "unavailable": False,
            "large": False,
            "member_count": len(guild.members),
            "joined_at": bot_member.joined_at if bot_member else None,
            "members": members,
            "channels": channels,
            "threads": threads,
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def guild_payload(self, guild: FakeGuild) -> JSON:
        data = self.guild_create_payload(guild)
        for key in (
            "members",
            "channels",
            "threads",
            "voice_states",
            "presences",
            "joined_at",
            "large",
        ):
            data.pop(key, None)
        return data

    def message_payload(self, message: FakeMessage) -> JSON:
        data: JSON = {
            "id": str(message.id),
            "channel_id": str(message.channel_id),
            "author": message.author.payload(),
            "content": message.content,
            "timestamp": iso(snowflake_ms(message.id)),
            "edited_timestamp": None if message.edited_at_ms is None else iso(message.edited_at_ms),
            "tts": message.tts,
            "mention_everyone": False,
            "mentions": [
                self.users[u].payload() for u in message.mentions if u in self.users
            ],
            "mention_roles": [],
            "attachments": [a.payload() for a in message.attachments],
            "embeds": message.embeds,
            "pinned": False,
            "type": message.type,
            "flags": message.flags,
            "components": message.components,
        }
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        if message.webhook_id is not None:
            data["webhook_id"] = str(message.webhook_id)
        if message.application_id is not None:
            data["application_id"] = str(message.application_id)
        if message.message_reference is not None:
            data["message_reference"] = message.message_reference
        if message.reactions:
            data["reactions"] = [
                {
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "me": self.bot_user.id in users,
                    "me_burst": False,
                    "burst_colors": [],
                    "emoji": {"id": None, "name": emoji},
                }
                for emoji, users in message.reactions.items()
                if users
            ]
        if message.interaction_id is not None and message.interaction_user_id is not None:
            data["interaction_metadata"] = {
                "id": str(message.interaction_id),
                "type": message.interaction_type or InteractionType.APPLICATION_COMMAND,
                "user": self.users[message.interaction_user_id].payload(),
                "authorizing_integration_owners": {},
            }
        if message.thread_id is not None and message.thread_id in self.channels:
            thread = self.channels[message.thread_id]
            if not thread.deleted:
                data["thread"] = self.thread_payload(thread)
        return data
