"""The outbox dispatcher: hands committed notices to the Discord layer, once each.

Notices are rows written in the same transaction as the change that causes them, so nothing
reaches Discord about a move that was not stored. The dispatcher claims *lanes* (one game and
one recipient: its thread, or one person's DMs), delivers each lane's notices strictly in order,
and records every delivery the moment Discord accepts it (with the message id), so a crash
repeats at most the one notice that was in flight; that one carries the notice key as its
Discord nonce, so Discord itself refuses the duplicate.

Beyond the nonce's reach: Discord forgets a nonce after "a few minutes" (no figure is
promised). A notice that may be in Discord unrecorded carries ``sent_at``, the first time it may
have got there: a failed attempt (a timeout or a 5xx may hide a post Discord made), or a serve
that never ended (the claim finds the lane's ``since`` set: its process died; the first pending
notice of the lane is the one that was in flight). Such a notice goes out with ``look_first``
once ``sent_at`` is ``nonce_window`` old: the delivery looks for the post in the channel from
that moment on (every post carries an invisible mark of its key) and records the one it finds
instead of posting again. The window is 0 by default: whenever in doubt, look (one request, on
a path only failures and crashes take); the nonce is still sent and still stops a copy Discord
remembers. Nothing of this costs a write on the way of a normal post: ``since`` is set by the
claim and cleared by the release, ``sent_at`` is written by a retry, or after a crash.

Fairness: lanes are claimed longest-waiting first and served at most ``per_lane`` notices at a
time, then go to the back of the queue; a worker pool keeps ``concurrency`` lanes in flight and
claims a new lane the moment one finishes, so a slow or long lane never holds the others. A pass
reads only the lanes it claims (never every pending row).

Several processes: a claimed lane carries a lease (owner, until); a process that dies leaves its
lanes to be reclaimed when the lease runs out. A live process renews the lease of a lane it
serves every third of it (a post may wait long behind a busy process's pictures): without that,
another process took the lane while its notice was still being posted, and posted it again.
Renewing stops after ``HOLD_LEASES`` leases, so a delivery stuck for good frees its lane.

Pacing: a delivery that would have to wait for a rate limit (a channel's messages, the
bot's thread budget) raises :class:`Later` instead, before sending anything: the lane goes back
with its due time at the end of that wait, and the slot serves other lanes meanwhile (no wait
holds a slot; one busy channel never starves the others).

Failures, by kind:

- *transient* (``DeliveryError(permanent=False)``, or any unexpected exception: 5xx, 429,
  timeouts, gateway down): retried with backoff capped at ``max_delay``, for as long as the
  notice still means something (younger than ``ttl``; the renderer drops superseded ones);
  the rest of its lane waits behind it (order);
- *permanent* (``permanent=True``: DMs closed, no access; ``refused=True``: Discord refused
  that very post for good, a 4xx but a 401 or 429, counted as ``refused``): the notice is
  ``failed`` at once, with one log line, never tried again, and its follow-up runs (closed
  DMs: ``on_dm_failed``, a fallback post in the thread; not when only that message was
  refused, ``unreachable=False``); the rest of the lane goes on in the same pass;
- *nowhere to go* (``DeliveryError(undeliverable=True)``: the game has no thread): a distinct,
  counted status, never ``done``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import secrets
import socket
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

from bot.core.clock import Clock, from_ms, to_ms
from bot.core.delivering import SKIPPED as SKIPPED
from bot.core.delivering import Delivery as Delivery
from bot.core.delivering import DeliveryError as DeliveryError
from bot.core.delivering import Later as Later
from bot.core.delivering import NullDelivery as NullDelivery
from bot.core.delivering import Receipt as Receipt
from bot.core.faults import crash_point
from bot.core.folding import RUN_MAX, run_at
from bot.core.notices import Notice
from bot.core.storage import Lane, NoticeStatus, OutboxStore

log = logging.getLogger("calico.outbox")

HOLD_LEASES = 10  # a lane is renewed for at most this many leases in one serve (see above)


def process_owner() -> str:
    """A name for this process in claims and leases (host, pid, and a random tag)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


DmFailedHandler = Callable[[int, int], Awaitable[object]]


class Dispatcher:
    def __init__(
        self,
        store: OutboxStore,
        delivery: Delivery,
        clock: Clock,
        *,
        owner: str | None = None,
        on_dm_failed: DmFailedHandler | None = None,
        concurrency: int = 16,
        express: int = 4,
        per_lane: int = 8,
        lease: float = 60.0,
        base_delay: float = 2.0,
        max_delay: float = 300.0,
        ttl: timedelta = timedelta(days=7),
        poll_interval: float = 2.0,
        nonce_window: float = 0.0,
    ) -> None:
        self.store = store
        self.delivery = delivery
        self.clock = clock
        self.owner = owner or process_owner()
        self.on_dm_failed = on_dm_failed
        self.concurrency = concurrency
        self.express = express  # slots kept for express lanes (see the module docstring)
        self.per_lane = per_lane
        self.lease_ms = int(lease * 1000)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.ttl_ms = int(ttl.total_seconds() * 1000)
        self.poll_interval = poll_interval
        # How long a post's nonce alone is trusted to stop a second copy (0: never alone);
        # past it, a notice that may be out is looked for first.
        self.nonce_window_ms = int(nonce_window * 1000)
        self._stopping = False
        self.counts: Counter[str] = Counter()  # notices by outcome (done, retried, failed...)
        self.passes = 0  # claims made (a busy-polling dispatcher would show it)
        self._refused: dict[int, int] = {}  # user -> when a DM to them failed for good (ms)
        self.serving = 0  # lanes claimed and not given back yet
        self._held: set[Lane] = set()  # the lanes being served now

    @property
    def delivered(self) -> int:
        return self.counts[NoticeStatus.DONE.value]

    @property
    def failed(self) -> int:
        return self.counts[NoticeStatus.FAILED.value]

    def backoff(self, attempts: int) -> float:
        """Seconds to wait before the next try, after ``attempts`` failed tries (1, 2, ...)."""
        return float(min(self.max_delay, self.base_delay * 2 ** min(attempts - 1, 30)))

    def _now(self) -> int:
        return to_ms(self.clock.now())

    # ------------------------------------------------------------------ one lane

    async def _serve(self, lane: Lane, express: bool = False) -> int:
        """Deliver up to ``per_lane`` notices of a claimed lane, then give it back. Returns how
        many were delivered. ``express``: only the express notices at the lane's head (the
        rest goes back in line with the others)."""
        delivered = 0
        due = self._now()
        loop = asyncio.get_running_loop()
        # Hand the lane back well within its lease (slow deliveries: 429s, retries inside
        # discord.py), so no other process takes it over while this one still serves it.
        until = loop.time() + self.lease_ms / 3000
        # ...and keep the lease while a post takes longer than that (see the module docstring).
        done = asyncio.Event()
        lost = asyncio.Event()
        keeper = asyncio.create_task(self._keep(lane, done, lost))
        try:
            runs = getattr(self.delivery, "shows_runs", False)  # bot.core.folding
            notices = await self.store.lane_notices(lane, self.per_lane + runs * RUN_MAX)
            if lane.since is not None and notices and notices[0].sent_at is None:
                # The lane's last serve never ended (its process died): its first pending notice
                # may be in Discord. Stored, so that it is known even if this serve stops first.
                await self.store.mark_sent(notices[0].id, lane.since)
                notices[0] = dataclasses.replace(notices[0], sent_at=from_ms(lane.since))
            i = served = 0
            while i < len(notices) and served < self.per_lane:
                notice = notices[i]
                if self._stopping or loop.time() > until or lost.is_set():
                    break
                if express and not notice.body.express:
                    break
                run = run_at(notices, i) if runs else [notice]
                if len(run) > 1:
                    notice = dataclasses.replace(notice, run=tuple(run))
                retry_at, shown, used = await self._deliver_one(notice)
                delivered, i, served = delivered + shown, i + used, served + 1
                if retry_at is not None:
                    due = retry_at  # keep the lane's order: the rest waits for this retry
                    break
        finally:
            # Even when cancelled (shutdown), give the lane back so another process (or the
            # next start) can go on at once instead of waiting for the lease to run out. The
            # renewing stops first (a renewal after the release would hold the lane again).
            done.set()
            self._held.discard(lane)
            try:
                with contextlib.suppress(Exception):
                    await asyncio.shield(keeper)
                with contextlib.suppress(Exception):
                    await asyncio.shield(self.store.release_lane(lane, self.owner, due))
            finally:
                self.serving -= 1
        return delivered

    async def _keep(self, lane: Lane, done: asyncio.Event, lost: asyncio.Event) -> None:
        """Renew the lease on ``lane`` every third of it until ``done`` (at most
        ``HOLD_LEASES`` leases); ``lost`` when another process holds the lane now."""
        every = self.lease_ms / 3000
        for _ in range(HOLD_LEASES * 3):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), every)
            if done.is_set():
                return
            try:
                held = await self.store.renew_lane(lane, self.owner, self._now(), self.lease_ms)
            except Exception:
                log.exception("renewing the lease on lane %s/%s failed", lane.game_id,
                              lane.recipient)
                continue
            if not held:
                log.warning("lane %s/%s is no longer ours (its lease ran out): stopping",
                            lane.game_id, lane.recipient)
                lost.set()
                return
        log.warning("lane %s/%s held for %d leases: no longer renewed", lane.game_id,
                    lane.recipient, HOLD_LEASES)

    async def _deliver_one(self, notice: Notice) -> tuple[int | None, int, int]:
        """Deliver and record one notice (with its run, if any). Returns (the time of its
        retry, or None when the lane may go on: delivered, skipped, or ended for good; how many
        notices were delivered; how many of the lane's it took)."""
        now = self._now()
        if now - to_ms(notice.created_at) > self.ttl_ms:
            await self._finish(notice, NoticeStatus.EXPIRED, now, error="too old to matter")
            return None, 0, 1
        if notice.user_id is not None and self._refused_recently(notice.user_id):
            # Another lane just learnt their DMs are closed: dm_failed reroutes this one.
            await self._finish(notice, NoticeStatus.SKIPPED, now, error="dm closed")
            return None, 0, 1
        if notice.sent_at is not None and now - to_ms(notice.sent_at) >= self.nonce_window_ms:
            notice = dataclasses.replace(notice, look_first=True)
            self.counts["looked"] += 1
        try:
            receipt = await self.delivery.deliver(notice) or Receipt()
        except Later as e:
            # Paced (a rate limit's wait): nothing was sent, so no attempt and no doubt; the
            # rest of the lane waits with it (order), other lanes take the slot.
            self.counts["paced"] += 1
            return now + max(1, int(e.seconds * 1000)), 0, 1
        except DeliveryError as e:
            if e.undeliverable:
                log.warning("notice %s (%s, game %s) has nowhere to go: %s", notice.id,
                            notice.kind, notice.game_id, e.reason)
                await self._finish(notice, NoticeStatus.UNDELIVERABLE, self._now(), e.reason)
                return None, 0, 1
            if e.permanent:
                await self._permanent(notice, e.reason, refused=e.refused,
                                      unreachable=e.unreachable)
                return None, 0, 1
            return await self._retry(notice, e.reason, now), 0, 1
        except asyncio.CancelledError:
            # Cut off while posting (a stop past its grace): the post may be out all the same.
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.mark_sent(notice.id, now))
            raise
        except Exception as e:
            # A bug in the Discord layer must not lose a notice: retried like a 5xx. The first
            # time with its traceback, then only a line per attempt.
            if notice.attempts == 0:
                log.exception("delivery of notice %s (%s) raised", notice.id, notice.kind)
            return await self._retry(notice, f"{type(e).__name__}: {e}", now), 0, 1
        crash_point("notice.sent")  # Discord has it; the database does not know yet
        if receipt.found:
            self.counts["found"] += 1
            log.info("notice %s (%s, game %s) was in Discord already: recorded, not posted again",
                     notice.id, notice.kind, notice.game_id)
        # A run's post covers the whole run, or (found after a crash) as much as it had then.
        run = notice.run[:receipt.covered] if notice.run else (notice,)
        await self._finish(notice, receipt.status, self._now(), receipt.reason,
                           receipt.message_id, run=run)
        self.counts["folded"] += len(run) - 1
        done = receipt.status is NoticeStatus.DONE
        return None, len(run) * done, len(run)

    async def _finish(self, notice: Notice, status: NoticeStatus, now: int,
                      error: str | None = None, message_id: int | None = None, *,
                      run: Sequence[Notice] = ()) -> None:
        ids = [n.id for n in run] or [notice.id]
        # Shielded: a delivery Discord accepted must be recorded even if we are being stopped;
        # a run in one transaction (a crash never splits it).
        await asyncio.shield(self.store.finish_notices(ids, status, now, message_id=message_id,
                                                       error=error))
        self.counts[status.value] += len(ids)

    def _refused_recently(self, user_id: int) -> bool:
        at = self._refused.get(user_id)
        return at is not None and self._now() - at < 60_000

    async def _permanent(self, notice: Notice, reason: str, *, refused: bool = False,
                         unreachable: bool = True) -> None:
        if notice.user_id is not None and unreachable:
            # Before any await: concurrent lanes of the same person check it.
            self._refused[notice.user_id] = self._now()
        if refused:
            self.counts["refused"] += 1
        # One line, no traceback: the lane goes on with its next notice at once.
        log.warning("notice %s (%s, game %s, to %s) %s, not retried: %s", notice.id,
                    notice.kind, notice.game_id, notice.user_id or notice.channel_id or "thread",
                    "refused for good" if refused else "ended", reason)
        await self._finish(notice, NoticeStatus.FAILED, self._now(), reason)
        if notice.is_dm and unreachable and self.on_dm_failed is not None:
            assert notice.user_id is not None
            try:
                await self.on_dm_failed(notice.game_id, notice.user_id)
            except Exception:
                log.exception("dm_failed handler failed for notice %s", notice.id)

    async def _retry(self, notice: Notice, reason: str, tried_at: int) -> int:
        attempts = notice.attempts + 1
        due = self._now() + int(self.backoff(attempts) * 1000)
        log.info("notice %s (%s) will be retried (attempt %d): %s", notice.id, notice.kind,
                 attempts, reason)
        # The attempt may have reached Discord (a timeout after the post): its time is kept.
        await self.store.retry_notice(notice.id, due, reason, sent_at=tried_at)
        self.counts["retried"] += 1
        return due

    # ------------------------------------------------------------------ passes

    async def _claim(self, limit: int, express: bool = False) -> list[Lane]:
        self.passes += 1
        lanes = await self.store.claim_lanes(self.owner, self._now(), self.lease_ms, limit,
                                             express)
        # A lane this process still serves, claimed again because its lease ran out all the same
        # (renewals failed or stopped): that serve goes on (and gives it back); a second one
        # would post its notices again.
        lanes = [lane for lane in lanes if lane not in self._held]
        self._held.update(lanes)
        # Counted from the claim (each _serve gives one back): between a claim and its task
        # starting, the lane is neither due nor served, and must not look idle.
        self.serving += len(lanes)
        return lanes

    async def run_once(self) -> int:
        """Claim up to ``concurrency`` due lanes and serve them; returns how many notices were
        delivered (tests and tools; the bot runs :meth:`run_forever`)."""
        lanes = await self._claim(self.concurrency)
        if not lanes:
            return 0
        return sum(await asyncio.gather(*(self._serve(lane) for lane in lanes)))

    async def run_forever(self, *, grace: float = 5.0) -> None:
        """Deliver until :meth:`stop`: keeps ``concurrency`` lanes in flight, claims a new one as
        soon as one is done, wakes at once when a commit queues notices, and otherwise polls
        every ``poll_interval`` seconds (retries coming due). ``express`` more slots serve only
        express lanes (a new game's thread), so that one never waits for a busy slot. On stop,
        lanes in flight finish their current notice (at most ``grace`` seconds)."""
        self._stopping = False
        event = self.store.notices_added
        active: set[asyncio.Task[int]] = set()
        fast: set[asyncio.Task[int]] = set()  # express lanes being served
        try:
            while not self._stopping:
                event.clear()  # before claiming: a commit after the claim wakes us
                full = await self._fill(active, self.concurrency, express=False)
                if full:
                    # Express lanes come first in any claim; with every slot taken they get
                    # the slots kept for them.
                    await self._fill(fast, self.express, express=True)
                    # More lanes may be due: claim again as soon as one finishes (or an
                    # express lane comes).
                    waits: set[asyncio.Future[Any]] = {*active, *fast}
                    timeout: float | None = None
                else:
                    waits, timeout = {*active, *fast}, self.poll_interval
                wake = asyncio.ensure_future(event.wait())
                try:
                    await asyncio.wait({*waits, wake}, timeout=timeout,
                                       return_when=asyncio.FIRST_COMPLETED)
                finally:
                    wake.cancel()
                active, fast = self._reap(active), self._reap(fast)
        finally:
            tasks = active | fast
            if tasks:
                _, pending = await asyncio.wait(tasks, timeout=grace)
                for task in pending:
                    task.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.gather(*pending, return_exceptions=True)

    async def _fill(self, tasks: set[asyncio.Task[int]], slots: int, *, express: bool) -> bool:
        """Claim lanes for the free slots of ``tasks`` and start serving them; True when every
        slot was filled."""
        free = slots - len(tasks)
        if free <= 0:
            return slots > 0
        try:
            claimed = await self._claim(free, express)
        except Exception:
            log.exception("claiming outbox lanes failed")
            return False
        for lane in claimed:
            tasks.add(asyncio.create_task(self._serve(lane, express)))
        return len(claimed) == free

    @staticmethod
    def _reap(active: set[asyncio.Task[int]]) -> set[asyncio.Task[int]]:
        for task in [t for t in active if t.done()]:
            if not task.cancelled() and task.exception() is not None:
                log.error("serving a lane failed", exc_info=task.exception())
        return {t for t in active if not t.done()}

    def stop(self) -> None:
        """Stop claiming lanes; lanes in flight end after their current notice."""
        self._stopping = True
        self.store.notices_added.set()
