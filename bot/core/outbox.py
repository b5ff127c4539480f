"""The outbox dispatcher: hands committed notices to the Discord layer, once each.

Notices are rows written in the same transaction as the change that causes them, so nothing
reaches Discord about a move that was not stored. The dispatcher reads due rows, calls
``Delivery.deliver(notice)``, and marks a row done only after ``deliver`` returned. After a
crash the rows still pending are delivered again with the same ``key``; the Discord layer
passes it as the message nonce (with ``enforce_nonce``) so that Discord refuses a duplicate of
a message it already accepted. That makes every committed notice appear once.

Order: notices of one *lane* (one game and one recipient: its thread, or one user's DMs) are
delivered strictly in order; a notice waiting for a retry holds back the rest of its lane.
Different lanes run concurrently.

Failures: ``DeliveryError(permanent=False)`` is retried with exponential backoff (any other
exception too, as a bug in the Discord layer should not lose a notice); after ``max_attempts``
or on ``permanent=True`` the row is marked failed. A permanent failure of a DM calls
``on_dm_failed(game_id, user_id)`` (the manager's ``dm_failed``: a fallback post in the thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.core.clock import Clock, to_ms
from bot.core.models import Notice
from bot.core.storage.repo import Store

log = logging.getLogger("calico.outbox")


class DeliveryError(Exception):
    """Raised by a Delivery. ``permanent``: retrying cannot help (DMs closed, channel gone)."""

    def __init__(self, reason: str, *, permanent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent


class Delivery(Protocol):
    async def deliver(self, notice: Notice) -> None:
        """Show ``notice`` in Discord (use ``notice.key`` as the nonce); raise DeliveryError."""
        ...


class NullDelivery:
    """Accepts everything and shows nothing (offline demo, load generator)."""

    def __init__(self) -> None:
        self.count = 0

    async def deliver(self, notice: Notice) -> None:
        self.count += 1


DmFailedHandler = Callable[[int, int], Awaitable[object]]


class Dispatcher:
    def __init__(
        self,
        store: Store,
        delivery: Delivery,
        clock: Clock,
        *,
        on_dm_failed: DmFailedHandler | None = None,
        batch: int = 200,
        concurrency: int = 16,
        max_attempts: int = 8,
        base_delay: float = 2.0,
        max_delay: float = 600.0,
        poll_interval: float = 2.0,
    ) -> None:
        self.store = store
        self.delivery = delivery
        self.clock = clock
        self.on_dm_failed = on_dm_failed
        self.batch = batch
        self.concurrency = concurrency
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.poll_interval = poll_interval
        self._stopping = False
        self.delivered = 0
        self.failed = 0

    def backoff(self, attempts: int) -> float:
        """Seconds to wait before the next try, after ``attempts`` failed tries (1, 2, ...)."""
        return float(min(self.max_delay, self.base_delay * 2 ** (attempts - 1)))

    async def run_once(self) -> int:
        """Deliver the notices due now (one batch); returns how many were delivered."""
        now = self.clock.now()
        notices = await self.store.due_notices(to_ms(now), self.batch)
        if not notices:
            return 0
        lanes: dict[tuple[int, int | None], list[Notice]] = {}
        for n in notices:
            lanes.setdefault((n.game_id, n.user_id), []).append(n)
        done: list[int] = []
        dm_failures: list[Notice] = []
        limit = asyncio.Semaphore(self.concurrency)

        async def run_lane(lane: list[Notice]) -> None:
            async with limit:
                for notice in lane:
                    if notice.user_id is not None and any(
                            f.user_id == notice.user_id for f in dm_failures):
                        return  # their DMs just failed for good: dm_failed will reroute
                    if not await self._deliver_one(notice, done, dm_failures):
                        return  # keep the lane's order: the rest waits for this retry

        try:
            await asyncio.gather(*(run_lane(lane) for lane in lanes.values()))
        finally:
            # Even when cancelled (shutdown), record what did go out, so that only notices
            # whose delivery was interrupted are sent again.
            if done:
                await asyncio.shield(self.store.mark_done(done, to_ms(self.clock.now())))
            self.delivered += len(done)
        for notice in dm_failures:
            if self.on_dm_failed is not None and notice.user_id is not None:
                try:
                    await self.on_dm_failed(notice.game_id, notice.user_id)
                except Exception:
                    log.exception("dm_failed handler failed for notice %s", notice.id)
        return len(done)

    async def _deliver_one(self, notice: Notice, done: list[int],
                           dm_failures: list[Notice]) -> bool:
        """True when the lane may go on (delivered or given up), False to hold it."""
        try:
            await self.delivery.deliver(notice)
        except DeliveryError as e:
            permanent, reason = e.permanent, e.reason
        except Exception as e:
            log.exception("delivery of notice %s (%s) raised", notice.id, notice.kind)
            permanent, reason = False, f"{type(e).__name__}: {e}"
        else:
            done.append(notice.id)
            return True
        attempts = notice.attempts + 1
        now = self.clock.now()
        if permanent or attempts >= self.max_attempts:
            log.warning("notice %s (%s) failed for good: %s", notice.id, notice.kind, reason)
            if permanent and notice.is_dm:
                dm_failures.append(notice)  # before any await: other lanes check it
            self.failed += 1
            await self.store.mark_failed(notice.id, to_ms(now), reason)
            return True
        due = to_ms(now) + int(self.backoff(attempts) * 1000)
        await self.store.mark_retry(notice.id, due, reason)
        return False

    async def run_forever(self) -> None:
        """Deliver until :meth:`stop`; wakes at once when a commit queues notices."""
        self._stopping = False
        event = self.store.notices_added
        while not self._stopping:
            event.clear()
            try:
                count = await self.run_once()
            except Exception:
                log.exception("dispatcher pass failed")
                count = 0
            if count >= self.batch or self._stopping:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout=self.poll_interval)

    def stop(self) -> None:
        self._stopping = True
        self.store.notices_added.set()
