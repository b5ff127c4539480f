"""The Prometheus metrics of one bot, in a registry of its own.

This module owns every ``calico_*`` metric name. Each :class:`Metrics` has its own
``CollectorRegistry`` (never the process-global one), so tests and several bots in one process
never collide.

Two kinds of values:

- *events* the Discord layer sees are recorded as they happen, through small typed methods
  (:meth:`Metrics.record_interaction`, :meth:`~Metrics.record_discord_error`,
  :meth:`~Metrics.record_sweep`, :meth:`~Metrics.observe_computer_move`). The click path pays
  for one dictionary lookup, one counter increment and one histogram observation (see
  ``benchmarks/bench_metrics.py``);
- *state* that lives elsewhere (game counts, the outbox backlog, shard latency, the core's own
  counters) is read at scrape time through :class:`~bot.ops.sources.ScrapeSources`: plain
  callables, so the core stays Discord-free and nothing is counted twice. Database reads are
  async: :meth:`Metrics.refresh` awaits them (the ``/metrics`` handler calls it before
  rendering) and the collector serves that snapshot, since Prometheus collectors are
  synchronous.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Final, Literal, ParamSpec, Self, TypeVar, cast

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.exposition import choose_encoder

from bot.core.clock import from_ms
from bot.core.models import SweepReport
from bot.core.timers import Sweeper
from bot.ops.collector import ScrapeCollector, Snapshot
from bot.ops.sources import ScrapeSources

log = logging.getLogger("calico.ops.metrics")

P = ParamSpec("P")
R = TypeVar("R")

Outcome = Literal["ok", "refused", "error", "deferred"]
OUTCOMES: Final = frozenset({"ok", "refused", "error", "deferred"})
OTHER: Final = "other"  # the label value of anything past a cardinality cap (or unknown)

# An answer is due within Discord's 3 s window and the defer budget is 1.5 s: the buckets are
# dense where a click lives (5-100 ms), then mark the budget, the window and beyond.
INTERACTION_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75,
                              1.0, 1.5, 2.0, 3.0, 5.0)
# A computer move: a few ms for the easy player, hundreds of ms for a strong search.
COMPUTER_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

DEFAULT_REFRESH_TIMEOUT: Final = 2.0  # seconds a database source may take at scrape time


class Timed:
    """Times a block (``with``) or every call of a function (decorator, sync or async) and hands
    the seconds to ``observe``. As a context manager an instance times one block at a time."""

    __slots__ = ("_observe", "_start")

    def __init__(self, observe: Callable[[float], None]) -> None:
        self._observe = observe
        self._start = 0.0

    def __enter__(self) -> Self:
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._observe(time.perf_counter() - self._start)

    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]:
        observe = self._observe
        if inspect.iscoroutinefunction(fn):
            async_fn = cast("Callable[P, Awaitable[Any]]", fn)

            @functools.wraps(fn)
            async def timed_async(*args: P.args, **kwargs: P.kwargs) -> Any:
                start = time.perf_counter()
                try:
                    return await async_fn(*args, **kwargs)
                finally:
                    observe(time.perf_counter() - start)

            return cast("Callable[P, R]", timed_async)

        @functools.wraps(fn)
        def timed_sync(*args: P.args, **kwargs: P.kwargs) -> R:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                observe(time.perf_counter() - start)

        return timed_sync


class InteractionTimer:
    """``with metrics.interaction("button:place") as ix:``: records the block as one interaction.

    The outcome is ``ok`` unless the block sets ``ix.outcome`` (``refused``, ``deferred``...);
    an exception that escapes with the outcome still ``ok`` records ``error``.
    """

    __slots__ = ("_metrics", "_start", "kind", "outcome")

    def __init__(self, metrics: Metrics, kind: str) -> None:
        self._metrics = metrics
        self.kind = kind
        self.outcome: Outcome = "ok"
        self._start = 0.0

    def __enter__(self) -> Self:
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        outcome: Outcome = self.outcome
        if exc_type is not None and outcome == "ok":
            outcome = "error"
        self._metrics.record_interaction(self.kind, outcome, time.perf_counter() - self._start)


class Metrics:
    """Every metric of one bot, in ``self.registry``.

    ``version`` becomes ``calico_build_info{version=...}``; ``process`` adds the standard
    ``process_*`` / ``python_*`` collectors to this registry. ``max_kinds`` caps the distinct
    interaction kinds (past it a kind is counted as ``other``), and ``max_error_codes`` the
    distinct (status, code) pairs, so a bug can never grow the series without bound.
    """

    def __init__(self, *, version: str = "", sources: ScrapeSources | None = None,
                 process: bool = True, max_kinds: int = 256, max_error_codes: int = 256) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.max_kinds = max_kinds
        self.max_error_codes = max_error_codes
        self.interactions = Counter(
            "calico_interactions", "Interactions answered, by kind and outcome",
            ["kind", "outcome"], registry=r)
        self.interaction_seconds = Histogram(
            "calico_interaction_duration_seconds",
            "Time from receiving an interaction to sending its answer",
            ["kind"], buckets=INTERACTION_BUCKETS, registry=r)
        self.discord_errors = Counter(
            "calico_discord_errors", "Discord HTTP errors by HTTP status and Discord error code",
            ["status", "code"], registry=r)
        self.rate_limited = Counter(
            "calico_discord_rate_limited", "429 answers from Discord, by scope (user: a "
            "route's bucket, global, shared)", ["scope"], registry=r)
        self.invalid_requests = Counter(
            "calico_discord_invalid_requests", "401, 403 and 429 answers (Discord bans an "
            "address past 10,000 in 10 minutes), by status", ["status"], registry=r)
        self.history_unreadable = Counter(
            "calico_history_unreadable",
            "Channels found where the bot cannot read its own posts back (no Read Message "
            "History): a post in doubt there is made again unchecked", registry=r)
        self.reminders = Counter(
            "calico_reminders", "Turn reminders sent, by where they went (dm or thread)",
            ["via"], registry=r)
        self.sweep_actions = Counter(
            "calico_sweep_actions", "What the timer sweep did besides reminders, by action",
            ["action"], registry=r)
        self.sweeps = Counter("calico_sweeps", "Timer sweeps completed", registry=r)
        self.computer_move_seconds = Histogram(
            "calico_computer_move_seconds", "Time a computer player took to choose a move",
            ["level"], buckets=COMPUTER_BUCKETS, registry=r)
        self.build_info = Gauge("calico_build_info", "The running version (always 1)",
                                ["version"], registry=r)
        self.build_info.labels(version or "unknown").set(1)
        self._collector = ScrapeCollector()
        if sources is not None:
            self._collector.sources = sources
        r.register(self._collector)
        if process:
            ProcessCollector(registry=r)
            PlatformCollector(registry=r)
            GCCollector(registry=r)
        # (kind, outcome) -> (counter child, histogram child): labels() costs more than the
        # observation itself, so the click path resolves each pair once.
        self._ix: dict[tuple[str, str], tuple[Counter, Histogram]] = {}
        self._kinds: set[str] = set()
        self._errors: dict[tuple[int, int], Counter] = {}

    # ------------------------------------------------------------------ sources

    @property
    def sources(self) -> ScrapeSources:
        return self._collector.sources

    def set_sources(self, sources: ScrapeSources) -> None:
        """Attach the scrape-time sources (the client creates its metrics before the manager
        exists, so they come later)."""
        self._collector.sources = sources
        self._collector.snapshot = Snapshot()

    async def refresh(self, timeout: float = DEFAULT_REFRESH_TIMEOUT) -> None:
        """Read the database sources (games by status, the outbox) for the next scrape. A source
        that fails or takes longer than ``timeout`` is left out and marked down in
        ``calico_scrape_source_up``."""
        s = self._collector.sources
        snap = Snapshot()

        async def read(name: str, fn: Callable[[], Awaitable[Any]]) -> Any:
            try:
                async with asyncio.timeout(timeout):
                    value = await fn()
            except Exception:
                log.warning("metrics source %s failed", name, exc_info=True)
                snap.up[name] = False
                return None
            snap.up[name] = True
            return value

        games_fn, outbox_fn = s.games_by_status, s.outbox
        games, outbox = await asyncio.gather(
            read("games", games_fn) if games_fn is not None else _none(),
            read("outbox", outbox_fn) if outbox_fn is not None else _none())
        snap.games = games
        if outbox is not None:
            snap.outbox = outbox
            if outbox.oldest_pending_at is not None:
                age = (s.now() - from_ms(outbox.oldest_pending_at)).total_seconds()
                snap.outbox_age = max(0.0, age)
        self._collector.snapshot = snap

    def render(self, accept: str | None = None) -> tuple[bytes, str]:
        """The registry in the exposition format the ``Accept`` header asks for (Prometheus
        text by default, OpenMetrics on request): (body, content type)."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type

    # ------------------------------------------------------------------ interactions

    def record_interaction(self, kind: str, outcome: Outcome, seconds: float) -> None:
        """One answered interaction. ``kind``: ``slash:<command>``, ``button:<template>``,
        ``select:<template>``, ``modal:<template>``; ``seconds``: from receiving it to sending
        its answer (the final one when it was deferred)."""
        children = self._ix.get((kind, outcome))
        if children is None:
            children = self._interaction_children(kind, outcome)
        children[0].inc()
        children[1].observe(seconds)

    def _interaction_children(self, kind: str, outcome: str) -> tuple[Counter, Histogram]:
        label_kind = kind
        if kind not in self._kinds:
            if len(self._kinds) >= self.max_kinds:
                label_kind = OTHER
            else:
                self._kinds.add(kind)
        label_outcome = outcome if outcome in OUTCOMES else OTHER
        children = (self.interactions.labels(label_kind, label_outcome),
                    self.interaction_seconds.labels(label_kind))
        if label_kind == kind and label_outcome == outcome:
            # Past the cap (or with an unknown outcome) nothing is cached: the cache stays as
            # bounded as the labels.
            self._ix[(kind, outcome)] = children
        return children

    def interaction(self, kind: str) -> InteractionTimer:
        """A context manager that times a block as one interaction of ``kind``."""
        return InteractionTimer(self, kind)

    def timed_interaction(self, kind: str) -> Callable[[Callable[P, Awaitable[R]]],
                                                       Callable[P, Awaitable[R]]]:
        """Decorates an async handler: every call is one interaction of ``kind`` (``error``
        when it raises)."""

        def decorate(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
            @functools.wraps(fn)
            async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
                with InteractionTimer(self, kind):
                    return await fn(*args, **kwargs)

            return wrapper

        return decorate

    # ------------------------------------------------------------------ Discord errors

    def record_discord_error(self, status: int, code: int | None = None) -> None:
        """A Discord HTTP error: its HTTP ``status`` and Discord's JSON error ``code`` (0 or
        None when the body had none), e.g. 403 / 50007 "cannot send messages to this user"."""
        key = (int(status), int(code or 0))
        child = self._errors.get(key)
        if child is None:
            if len(self._errors) >= self.max_error_codes:
                child = self.discord_errors.labels(str(key[0]), OTHER)
            else:
                child = self.discord_errors.labels(str(key[0]), str(key[1]))
                self._errors[key] = child
        child.inc()

    def record_http_exception(self, exc: BaseException) -> bool:
        """:meth:`record_discord_error` from a ``discord.HTTPException`` (read by duck typing:
        ``status`` and ``code``). Returns False, recording nothing, for anything else."""
        status = getattr(exc, "status", None)
        if not isinstance(status, int):
            return False
        code = getattr(exc, "code", 0)
        self.record_discord_error(status, code if isinstance(code, int) else 0)
        return True

    def record_rate_limited(self, scope: str) -> None:
        """One 429 (``scope``: ``user``, ``global`` or ``shared``)."""
        self.rate_limited.labels(scope if scope in ("user", "global", "shared") else OTHER).inc()

    def record_invalid_request(self, status: int) -> None:
        """One answer Discord counts as invalid (401, 403, 429)."""
        self.invalid_requests.labels(str(status) if status in (401, 403, 429) else OTHER).inc()

    # ------------------------------------------------------------------ sweep, computers

    def record_sweep(self, report: SweepReport) -> None:
        """What one ``Manager.sweep()`` did: reminders by where they went, and its actions."""
        self.sweeps.inc()
        in_thread = report.reminders_in_thread
        if report.reminders - in_thread:
            self.reminders.labels("dm").inc(report.reminders - in_thread)
        if in_thread:
            self.reminders.labels("thread").inc(in_thread)
        for action, n in (("reminder_skipped", report.reminders_skipped),
                          ("autoplay", report.autoplayed), ("convert", report.converted),
                          ("computer_move", report.computer_moves), ("stall", report.stalled),
                          ("idle_end", report.ended), ("busy", report.busy),
                          ("pruned", report.pruned)):
            if n:
                self.sweep_actions.labels(action).inc(n)

    def observe_computer_move(self, level: str, seconds: float) -> None:
        """One computer move of ``level`` that took ``seconds`` (the pool measures the CPU time
        in the worker; pass that, or wall time around ``ComputerPool.choose``)."""
        self.computer_move_seconds.labels(level).observe(seconds)

    def time_computer_move(self, level: str) -> Timed:
        """Times a block (or decorates a function) as one computer move of ``level``."""
        return Timed(self.computer_move_seconds.labels(level).observe)


async def _none() -> None:
    return None


class MeteredSweeper:
    """Wraps a sweeper (the manager) so that each sweep's report is recorded: pass it to
    ``SweepLoop`` instead of the manager, and the core needs no change."""

    def __init__(self, sweeper: Sweeper, metrics: Metrics) -> None:
        self._sweeper = sweeper
        self._metrics = metrics

    async def sweep(self) -> SweepReport:
        report = await self._sweeper.sweep()
        self._metrics.record_sweep(report)
        return report
