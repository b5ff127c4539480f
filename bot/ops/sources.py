"""What the metrics and the health check read from the rest of the bot, as plain values.

This module owns the small value types shared by :mod:`bot.ops.metrics` and
:mod:`bot.ops.health` (:class:`GatewayStatus`, :class:`ComputerLoad`, and
:class:`ScrapeSources`, where the metrics read them at each scrape: it lives here, below the
metrics, so that this module never imports them) and the adapters that build them from the
real objects:

- :func:`gateway_status` reads a discord.py client (plain or auto-sharded) by duck typing, so
  this package never imports discord.py;
- :class:`CoreHealthSource` answers the health check from a :class:`~bot.core.manager.Manager`
  (the composition root's deployment queries: ping, outbox backlog, last sweep);
- :func:`core_scrape_sources` wires the metrics' scrape-time sources to a manager (its kernel's
  counters), its dispatcher and its computer pool.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from bot.core.storage.base import OutboxStats

if TYPE_CHECKING:
    from bot.core.computers import ComputerPool
    from bot.core.manager import Manager
    from bot.core.outbox import Dispatcher


@dataclass(frozen=True, slots=True)
class GatewayStatus:
    """The gateway connection(s) of this process.

    ``latencies`` holds the heartbeat latency (seconds) of each connected shard whose latency is
    known; ``latency`` is their mean (None when none is known yet).
    """

    connected: int
    expected: int
    latencies: Mapping[int, float] = field(default_factory=dict)

    @property
    def latency(self) -> float | None:
        if not self.latencies:
            return None
        return sum(self.latencies.values()) / len(self.latencies)


@dataclass(frozen=True, slots=True)
class ComputerLoad:
    """The computer-player pool right now (see :class:`bot.core.computers.ComputerPool`)."""

    workers: int
    in_flight: int
    busy: int  # jobs (hints) refused since start because every worker and queue slot was taken
    queued: int = 0  # games whose computer turn waits for a worker (bot.core.thinking)


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class ScrapeSources:
    """Where the values that live elsewhere are read at each scrape. Every field is optional:
    a missing source leaves its metrics out (see :func:`core_scrape_sources`).

    Synchronous callables are read inside the collector and must be cheap (attribute reads);
    the two async ones hit the database and are awaited by :meth:`bot.ops.metrics.Metrics.refresh`.
    """

    gateway: Callable[[], GatewayStatus] | None = None
    moves_committed: Callable[[], int] | None = None  # Kernel.moves_committed
    timer_failures: Callable[[], int] | None = None  # Kernel.timer_failures
    last_sweep: Callable[[], datetime | None] | None = None  # Kernel.last_sweep_at
    notices: Callable[[], Mapping[str, int]] | None = None  # Dispatcher.counts
    computers: Callable[[], ComputerLoad] | None = None
    games_by_status: Callable[[], Awaitable[Mapping[str, int]]] | None = None
    outbox: Callable[[], Awaitable[OutboxStats]] | None = None
    now: Callable[[], datetime] = _utc_now  # the clock the outbox's stored times are on


def _finite(value: object) -> float | None:
    # discord.py reports an unknown latency as NaN (or inf before the first heartbeat).
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def gateway_status(client: Any) -> GatewayStatus:
    """The shards of a discord.py ``Client`` / ``AutoShardedClient``, read by duck typing.

    A plain client counts as one shard, connected while its websocket is open and it has seen
    READY (discord.py keeps ``is_ready()`` true across a reconnect, so the socket decides). An
    auto-sharded client reports each ``ShardInfo``; the expected count is its ``shard_ids`` (when
    it runs a subset) or ``shard_count``, and at least one.
    """
    if client.is_closed():
        return GatewayStatus(connected=0, expected=_expected_shards(client))
    shards = getattr(client, "shards", None)
    if isinstance(shards, Mapping):
        latencies: dict[int, float] = {}
        connected = 0
        for shard_id, info in shards.items():
            if info.is_closed():
                continue
            connected += 1
            latency = _finite(info.latency)
            if latency is not None:
                latencies[int(shard_id)] = latency
        return GatewayStatus(connected, _expected_shards(client, len(shards)), latencies)
    ws = getattr(client, "ws", None)
    up = ws is not None and bool(getattr(ws, "open", False)) and bool(client.is_ready())
    if not up:
        return GatewayStatus(connected=0, expected=_expected_shards(client))
    latency = _finite(client.latency)
    shard_id = getattr(client, "shard_id", None) or 0
    return GatewayStatus(1, _expected_shards(client),
                         {} if latency is None else {int(shard_id): latency})


def _expected_shards(client: Any, known: int = 0) -> int:
    ids = getattr(client, "shard_ids", None)
    if ids:
        return len(ids)
    if hasattr(client, "shards"):
        return max(1, getattr(client, "shard_count", None) or known)
    # A plain client holds one connection, even when told which shard of many it is.
    return 1


def computer_load(pool: ComputerPool, queued: int = 0) -> ComputerLoad:
    return ComputerLoad(workers=pool.workers, in_flight=pool.in_flight, busy=pool.stats.busy,
                        queued=queued)


class CoreHealthSource:
    """The :class:`~bot.ops.health.HealthSource` of a bot: the manager's store and clock, and a
    gateway callable (``lambda: gateway_status(bot)`` in the client)."""

    def __init__(self, manager: Manager, gateway: Callable[[], GatewayStatus]) -> None:
        self._manager = manager
        self._gateway = gateway

    def now(self) -> datetime:
        # The manager's clock: stored times (the oldest notice, the last sweep) are on it.
        return self._manager.kernel.clock.now()

    async def gateway(self) -> GatewayStatus:
        return self._gateway()

    async def database(self) -> None:
        await self._manager.ping()

    async def outbox(self) -> OutboxStats:
        return await self._manager.outbox_stats(self.now())

    async def last_sweep(self) -> datetime | None:
        return self._manager.last_sweep_at


def core_scrape_sources(
    manager: Manager,
    *,
    gateway: Callable[[], GatewayStatus] | None = None,
    dispatcher: Dispatcher | None = None,
    games_by_status: Callable[[], Awaitable[Mapping[str, int]]] | None = None,
) -> ScrapeSources:
    """The scrape-time sources of a running bot.

    ``games_by_status`` (active games per status) has no query in the Store yet: pass one, e.g.
    ``SELECT status, count(*) FROM games WHERE status IN ('lobby','draft','play') GROUP BY
    status``; without it ``calico_active_games`` is left out.
    """

    k = manager.kernel

    async def outbox() -> OutboxStats:
        return await manager.outbox_stats(k.clock.now())

    pool = k.computers
    return ScrapeSources(
        gateway=gateway,
        moves_committed=lambda: k.moves_committed,
        timer_failures=lambda: k.timer_failures,
        last_sweep=lambda: k.last_sweep_at,
        notices=None if dispatcher is None else (lambda: dispatcher.counts),
        computers=None if pool is None else (lambda: computer_load(
            pool, len(k.computer_turns) if k.computer_turns is not None else 0)),
        games_by_status=games_by_status,
        outbox=outbox,
        now=k.clock.now,
    )
