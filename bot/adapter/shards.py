"""Which shards this process runs, and how fast they may connect.

A process runs the shards the settings name, or, in a cluster (``CALICO_CLUSTER_SLOTS``), the
shards of a slot it claims through the database (waiting as a standby while every slot is
taken): the deployment's shard count is the same for every process (the setting, else the
first process's choice kept in the database, else Discord's recommendation). Discord lets
``max_concurrency`` shards identify together, one per bucket every 5 s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from bot.adapter.options import whole_number
from bot.core.manager import Manager
from bot.settings import Settings

log = logging.getLogger("calico.client")

IDENTIFY_WINDOW = 5.0  # Discord: one IDENTIFY per bucket per 5 seconds
# Discord times an IDENTIFY when it arrives: a first one delayed on the way must not make the
# next look early, so each bucket waits a little longer than the rule.
IDENTIFY_MARGIN = 0.5


@dataclass(slots=True)
class Plan:
    """The shards of this process (None: discord.py's own choice)."""

    shard_count: int | None
    shard_ids: list[int] | None
    slot: int | None = None  # the cluster slot held
    holder: object = None  # the connection holding it (closed at shutdown frees it)


async def plan(settings: Settings, manager: Manager, application_id: int | None,
               recommended: int | None, shard_count: int | None) -> Plan:
    """The shards this process runs: the settings', or a claimed cluster slot's."""
    if settings.cluster_slots:
        slots = settings.cluster_slots
        slot, holder = await Manager.claim_slot(settings.db_path, slots)
        count = await cluster_shard_count(manager, application_id, settings.shard_count,
                                          recommended, slots)
        ids = [s for s in range(count) if s % slots == slot]
        log.info("cluster slot %d of %d: shards %s of %d", slot, slots, ids, count)
        return Plan(count, ids, slot, holder)
    if settings.shard_ids and shard_count is None:
        return Plan(max(recommended or 1, max(settings.shard_ids) + 1), settings.shard_ids)
    return Plan(shard_count, settings.shard_ids or None)


async def cluster_shard_count(manager: Manager, application_id: int | None,
                              configured: int | None, recommended: int | None,
                              slots: int) -> int:
    """The deployment's shard count, the same for every process: the setting when given,
    else the one the first process chose (kept in the database), else Discord's
    recommendation, and never fewer shards than slots (each process runs at least one)."""
    key = f"cluster:shard_count:{application_id}"
    stored = await manager.get_state(key)
    count = configured or whole_number(stored) or max(recommended or 1, slots)
    if count < slots:
        raise RuntimeError(f"CALICO_SHARD_COUNT={count} is fewer than CALICO_CLUSTER_SLOTS="
                           f"{slots}: every process needs at least one shard")
    if stored != str(count):
        await manager.set_state(key, str(count), int(time.time() * 1000))
    return count


@dataclass(slots=True)
class IdentifyPacer:
    """Discord lets ``concurrency`` shards identify together (one per bucket, ``shard_id %
    concurrency``, every 5 s); discord.py's default waits 5 s before every shard."""

    concurrency: int = 1
    last: dict[int, float] = field(default_factory=dict)

    async def wait(self, shard_id: int | None) -> None:
        bucket = (shard_id or 0) % self.concurrency
        loop = asyncio.get_running_loop()
        last = self.last.get(bucket)
        if last is not None:
            wait = last + IDENTIFY_WINDOW + IDENTIFY_MARGIN - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
        self.last[bucket] = loop.time()
