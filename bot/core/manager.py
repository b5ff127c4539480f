"""The core's composition root: it opens the database, makes the kernel, registers the
features, and hands out what runs beside them (the outbox's dispatcher) and what a deployment
asks of its database (health, backlog, shared state, one-process locks).

It holds no game logic and forwards no action: the Discord layer, the demo, the tests and the
benchmarks call each feature's own service module with the kernel (``lobby.join(kernel, ...)``,
``signup.join(kernel, ...)``), as python-discord's cogs call their feature's modules and
boardgame.io's master hands a move to the game's flow (``docs/architecture.md``, "One front
door"). A new feature is a package under ``bot/core/`` with a ``feature.py``; it is listed in
:data:`FEATURES` and nowhere else in the core.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.core import leaving, sweep
from bot.core.challenge.feature import FEATURE as CHALLENGE
from bot.core.clock import to_ms
from bot.core.config import ManagerConfig
from bot.core.hooks import Feature
from bot.core.kernel import Kernel
from bot.core.models import SweepReport
from bot.core.outbox import Delivery, Dispatcher
from bot.core.progress.feature import FEATURE as PROGRESS
from bot.core.site.feature import FEATURE as SITE
from bot.core.storage import OutboxStats, Store, open_store, require_postgres_driver
from bot.core.tournament.feature import FEATURE as TOURNAMENT

__all__ = ["FEATURES", "Manager", "ManagerConfig"]

#: The features, in the order their hooks run: achievements and ratings first (a challenge
#: or tournament game earns and rates like any other), then the weekly challenge, then
#: tournaments (a round may end once its games' results are stored).
FEATURES: tuple[Feature[Kernel], ...] = (PROGRESS, CHALLENGE, TOURNAMENT, SITE)


class Manager:
    """One process's core: the kernel with every feature registered (module docstring)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        for feature in FEATURES:
            kernel.hooks.add(feature)

    @classmethod
    async def open(cls, location: str | Path, *, exclusive: bool = True,
                   **kernel_options: Any) -> Manager:
        """Open (creating or migrating) the database at ``location`` (a SQLite path or a
        PostgreSQL URL) and the core on it. ``kernel_options``: the kernel's (clock, config,
        catalog, seed source, computer pool, owner)."""
        return cls(Kernel(await open_store(location, exclusive=exclusive), **kernel_options))

    @property
    def store(self) -> Store:
        """The database it opened (for tools and tests; the core's code reaches it through
        the kernel, a feature's through its own storage module)."""
        return self.kernel.store

    async def stop_computers(self) -> None:
        """Stop the computers' queue (at shutdown, before their worker pool closes): turns
        still queued are left to their timers, for the next process."""
        await self.kernel.stop_computers()

    async def close(self) -> None:
        await self.kernel.stop_computers()
        await self.kernel.store.close()

    def now(self) -> datetime:
        """The time on this process's clock (the one the core stores times by)."""
        return self.kernel.now()

    def dispatcher(self, delivery: Delivery, **kwargs: Any) -> Dispatcher:
        """The outbox's dispatcher on this core's store and clock, with the DM fallback wired
        in (a DM refused for good: :func:`bot.core.leaving.dm_failed`)."""
        k = self.kernel
        kwargs.setdefault("owner", k.owner)

        async def dm_failed(game_id: int, user_id: int) -> None:
            await leaving.dm_failed(k, game_id, user_id)

        return Dispatcher(k.store, delivery, k.clock, on_dm_failed=dm_failed, **kwargs)

    async def sweep(self) -> SweepReport:
        """Act on every due timer, then the features' periodic work (a week to close, a round
        to start), then delete old notices (:func:`bot.core.sweep.sweep`)."""
        return await sweep.sweep(self.kernel)

    # ------------------------------------------------------------------ the deployment
    # What the adapter and ops need from the database, so that they never touch the store.

    @staticmethod
    async def claim_slot(location: str, slots: int) -> tuple[int, Any]:
        """One of ``slots`` cluster slots of the deployment on the PostgreSQL at ``location``,
        waiting as a standby until one is free: (the slot, the connection holding it; closing
        it frees the slot)."""
        require_postgres_driver()
        from bot.core.storage.postgres.store import wait_for_slot

        return await wait_for_slot(location, slots)

    @property
    def last_sweep_at(self) -> datetime | None:
        """When this process's last sweep ran (for /healthz)."""
        return self.kernel.last_sweep_at

    def storage_info(self) -> tuple[str, str]:
        """(where the data lives, without a password; the backend's name), for logs."""
        return self.kernel.store.location, self.kernel.store.backend

    async def active_games(self) -> dict[str, int]:
        """How many games are in each active status (lobby, draft, play)."""
        return await self.kernel.store.active_games()

    async def ping(self) -> None:
        """Raise if the database does not answer."""
        await self.kernel.store.ping()

    async def outbox_stats(self, now: datetime | None = None) -> OutboxStats:
        """The outbox's backlog at ``now`` (default: the clock's now)."""
        k = self.kernel
        return await k.store.outbox_stats(k.now_ms() if now is None else to_ms(now))

    async def get_state(self, key: str) -> str | None:
        """A deployment-wide value (shard count, command hash...), or None."""
        return await self.kernel.store.get_state(key)

    async def set_state(self, key: str, value: str, now_ms: int | None = None) -> None:
        k = self.kernel
        await k.store.set_state(key, value, k.now_ms() if now_ms is None else now_ms)

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """Run a block in one process at a time across the deployment (yields True when this
        process holds it)."""
        async with self.kernel.store.exclusive(name) as mine:
            yield mine
