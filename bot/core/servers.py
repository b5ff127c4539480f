"""Per-server settings: what a server's admins chose with ``/calico admin``.

Stored as one JSON object per server (the ``guild_settings`` table, through
:meth:`~bot.core.storage.Store.guild_settings`), read through :class:`ServerSettings`. Keys this
module does not know are kept as they are when the settings are changed, so another feature
may store its own keys in the same object. ``challenge_channel_id`` is read by the weekly
challenge.

:class:`ServerSettingsCache` serves them with a short cache (most interactions read them: the
games channel, the starter role, the thread language), forgotten at once when this process
changes them; another process sharing the database sees a change within ``ttl`` seconds.
Nothing here imports discord.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.core.models import TimeoutAction
from bot.core.storage import ServerStore

log = logging.getLogger("calico.servers")

LANGUAGES: Final = ("en", "fr", "pl")
# The turn times /calico start offers (hours); a server default is one of them.
TURN_HOURS: Final = (1, 6, 12, 24, 48, 72, 168)
# What /calico admin may reset, by option name (``all``: every one of them).
RESETTABLE: Final = ("games_channel", "starter_role", "turn_hours", "timeout", "ping_role",
                     "language", "challenge_channel")
_FIELD_OF: Final = {"games_channel": "games_channel_id", "starter_role": "starter_role_id",
                    "turn_hours": "turn_hours", "timeout": "timeout_action",
                    "ping_role": "ping_role_id", "language": "language",
                    "challenge_channel": "challenge_channel_id"}


class ServerSettings(BaseModel):
    """One server's choices; None everywhere means "as the bot does by default"."""

    model_config = ConfigDict(frozen=True, extra="allow")

    games_channel_id: int | None = None  # /calico start and solo only there (None: anywhere)
    starter_role_id: int | None = None  # who may start games (None: everyone)
    turn_hours: int | None = Field(default=None, gt=0)  # default time per turn
    timeout_action: TimeoutAction | None = None  # default when that time runs out
    ping_role_id: int | None = None  # pinged by every new lobby message
    language: str | None = None  # thread posts in this language (None: the host's)
    challenge_channel_id: int | None = None  # where the weekly challenge is announced
    # Options cleared because their channel was deleted: the next /calico admin says so.
    cleared: tuple[str, ...] | None = None

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        return value if value in LANGUAGES else None

    @field_validator("turn_hours")
    @classmethod
    def _hours(cls, value: int | None) -> int | None:
        return value if value in TURN_HOURS else None

    @property
    def is_default(self) -> bool:
        return all(getattr(self, name) is None for name in _FIELD_OF.values())

    @classmethod
    def parse(cls, data: str | None) -> ServerSettings:
        """The settings stored as ``data`` (nothing stored, or unreadable: the defaults; a key
        with a bad value is dropped, the others kept)."""
        if not data:
            return cls()
        try:
            raw = json.loads(data)
        except ValueError:
            log.warning("unreadable server settings: %.80r", data)
            return cls()
        if not isinstance(raw, dict):
            return cls()
        try:
            return cls.model_validate(raw)
        except ValidationError as e:
            bad = {str(err["loc"][0]) for err in e.errors() if err.get("loc")}
            log.warning("server settings: ignoring bad values of %s", ", ".join(sorted(bad)))
            return cls.model_validate({k: v for k, v in raw.items() if k not in bad})

    def dump(self) -> str:
        """The JSON stored (the keys other features added included; unset values left out)."""
        return json.dumps(self.model_dump(mode="json", exclude_none=True), sort_keys=True,
                          separators=(",", ":"))

    def changed(self, changes: dict[str, Any], reset: tuple[str, ...] = ()) -> ServerSettings:
        """These settings with ``changes`` (field names) applied and the ``reset`` options
        (:data:`RESETTABLE` names, or ``all``) back to their defaults."""
        data = self.model_dump(mode="json")
        names = RESETTABLE if "all" in reset else reset
        for name in names:
            data[_FIELD_OF[name]] = None
        data.update(changes)
        return ServerSettings.model_validate(data)


class ServerSettingsCache:
    """Reads and writes :class:`ServerSettings` (see the module docstring)."""

    def __init__(self, store: ServerStore, now_ms: Callable[[], int], *, ttl: float = 15.0,
                 size: int = 4096) -> None:
        self.store = store
        self.now_ms = now_ms
        self.ttl = ttl
        self.size = size
        self._cache: OrderedDict[int, tuple[float, ServerSettings]] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}

    async def get(self, guild_id: int | None) -> ServerSettings:
        if not guild_id:
            return ServerSettings()
        hit = self._cache.get(guild_id)
        clock = time.monotonic()
        if hit is not None and clock - hit[0] < self.ttl:
            return hit[1]
        settings = ServerSettings.parse(await self.store.guild_settings(guild_id))
        self._cache[guild_id] = (clock, settings)
        self._cache.move_to_end(guild_id)
        while len(self._cache) > self.size:
            self._cache.popitem(last=False)
        return settings

    def forget(self, guild_id: int) -> None:
        self._cache.pop(guild_id, None)

    async def update(self, guild_id: int, changes: dict[str, Any],
                     reset: tuple[str, ...] = ()) -> ServerSettings:
        """Apply ``changes`` and ``reset`` (see :meth:`ServerSettings.changed`) to the stored
        settings, read fresh, and store them; returns the new settings."""
        lock = self._locks.setdefault(guild_id, asyncio.Lock())
        async with lock:
            self.forget(guild_id)
            current = ServerSettings.parse(await self.store.guild_settings(guild_id))
            new = current.changed(changes, reset)
            if new != current:
                await self.store.set_guild_settings(guild_id, new.dump(), self.now_ms())
            self.forget(guild_id)
            self._cache[guild_id] = (time.monotonic(), new)
        if len(self._locks) > self.size:
            self._locks = {g: lk for g, lk in self._locks.items() if lk.locked()}
        return new


class HasServers(Protocol):
    """What holds one process's cache of server settings (the kernel)."""

    servers: ServerSettingsCache


async def settings(k: HasServers, guild_id: int | None) -> ServerSettings:
    """A server's ``/calico admin`` choices (cached for a few seconds; defaults outside a
    server)."""
    return await k.servers.get(guild_id)


async def update(k: HasServers, guild_id: int, changes: dict[str, Any],
                 reset: tuple[str, ...] = ()) -> ServerSettings:
    """Change a server's settings (field names of :class:`ServerSettings`; ``reset``: the
    options to put back to their defaults) and return them as stored."""
    return await k.servers.update(guild_id, changes, reset)


# Channel options, by option name: a deleted channel is cleared from them (issue #28).
CHANNELS: Final = ("games_channel", "challenge_channel")


async def channel_gone(k: HasServers, guild_id: int, channel_id: int) -> tuple[str, ...]:
    """A channel of this server was deleted: the options naming it go back to their default
    (a games channel that no longer exists would refuse every ``/calico start``), noted for
    the next ``/calico admin`` (:func:`take_cleared`). Returns the options cleared."""
    current = ServerSettings.parse(await k.servers.store.guild_settings(guild_id))
    names = tuple(n for n in CHANNELS if getattr(current, _FIELD_OF[n]) == channel_id)
    if names:
        noted = tuple(sorted({*(current.cleared or ()), *names}))
        await k.servers.update(guild_id, {"cleared": noted}, reset=names)
    return names


async def take_cleared(k: HasServers, guild_id: int | None) -> tuple[str, ...]:
    """The options cleared since an admin last looked (:func:`channel_gone`), forgotten once
    read: an admin command tells them once."""
    if not guild_id:
        return ()
    current = await k.servers.get(guild_id)
    if not current.cleared:
        return ()
    await k.servers.update(guild_id, {"cleared": None})
    return current.cleared


__all__ = ["CHANNELS", "LANGUAGES", "RESETTABLE", "TURN_HOURS", "HasServers", "ServerSettings",
           "ServerSettingsCache", "channel_gone", "settings", "take_cleared", "update"]
