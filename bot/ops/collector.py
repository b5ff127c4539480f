"""The state a scrape reads where it lives (game counts, the outbox backlog, shards, the core's
own counters), through :class:`~bot.ops.sources.ScrapeSources`: plain callables, read live at
each scrape, or from the :class:`Snapshot` the last :meth:`~bot.ops.metrics.Metrics.refresh`
awaited from the database (Prometheus collectors are synchronous)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.core.storage.base import OutboxStats
from bot.ops.sources import ComputerLoad, GatewayStatus, ScrapeSources

log = logging.getLogger("calico.ops.metrics")


@dataclass(slots=True)
class Snapshot:
    """What the last :meth:`Metrics.refresh` read from the database."""

    games: Mapping[str, int] | None = None
    outbox: OutboxStats | None = None
    outbox_age: float | None = None
    up: dict[str, bool] = field(default_factory=dict)


class ScrapeCollector(Collector):
    """Yields, at each scrape, the values the sources hold (read live, or from the snapshot)."""

    def __init__(self) -> None:
        self.sources = ScrapeSources()
        self.snapshot = Snapshot()

    def describe(self) -> Iterable[Metric]:
        # Names only, so the registry refuses a clash with another metric of ours at once.
        return [
            CounterMetricFamily("calico_moves_committed", ""),
            CounterMetricFamily("calico_timer_failures", ""),
            CounterMetricFamily("calico_notices", "", labels=["outcome"]),
            CounterMetricFamily("calico_computer_busy", ""),
            GaugeMetricFamily("calico_computer_in_flight", ""),
            GaugeMetricFamily("calico_computer_workers", ""),
            GaugeMetricFamily("calico_shards_connected", ""),
            GaugeMetricFamily("calico_shards_expected", ""),
            GaugeMetricFamily("calico_shard_latency_seconds", "", labels=["shard"]),
            GaugeMetricFamily("calico_sweep_last_run_timestamp_seconds", ""),
            GaugeMetricFamily("calico_active_games", "", labels=["status"]),
            GaugeMetricFamily("calico_outbox_pending", ""),
            GaugeMetricFamily("calico_outbox_oldest_pending_age_seconds", ""),
            GaugeMetricFamily("calico_outbox_lanes_due", ""),
            GaugeMetricFamily("calico_outbox_notices", "", labels=["status"]),
            GaugeMetricFamily("calico_scrape_source_up", "", labels=["source"]),
        ]

    def collect(self) -> Iterable[Metric]:
        up = dict(self.snapshot.up)
        for name, read in self._live():
            try:
                metrics = list(read())
            except Exception:
                # One broken source must not take the whole scrape down with it.
                log.warning("metrics source %s failed", name, exc_info=True)
                up[name] = False
                continue
            up[name] = True
            yield from metrics
        yield from self._snapshot_metrics()
        if up:
            g = GaugeMetricFamily("calico_scrape_source_up",
                                  "1 when the source answered at the last scrape, else 0",
                                  labels=["source"])
            for name, ok in sorted(up.items()):
                g.add_metric([name], 1.0 if ok else 0.0)
            yield g

    def _live(self) -> Iterator[tuple[str, Callable[[], Iterable[Metric]]]]:
        s = self.sources
        if s.gateway is not None:
            yield "gateway", functools.partial(self._gateway, s.gateway)
        if s.moves_committed is not None:
            read_moves = s.moves_committed
            yield "moves_committed", lambda: [CounterMetricFamily(
                "calico_moves_committed", "Moves committed to storage by this process",
                value=read_moves())]
        if s.timer_failures is not None:
            read_failures = s.timer_failures
            yield "timer_failures", lambda: [CounterMetricFamily(
                "calico_timer_failures", "Timer firings that failed (each backs off)",
                value=read_failures())]
        if s.last_sweep is not None:
            yield "sweep", functools.partial(self._sweep, s.last_sweep)
        if s.notices is not None:
            yield "notices", functools.partial(self._notices, s.notices)
        if s.computers is not None:
            yield "computers", functools.partial(self._computers, s.computers)

    @staticmethod
    def _gateway(read: Callable[[], GatewayStatus]) -> list[Metric]:
        status = read()
        latency = GaugeMetricFamily("calico_shard_latency_seconds",
                                    "Gateway heartbeat latency of each connected shard",
                                    labels=["shard"])
        for shard, seconds in sorted(status.latencies.items()):
            latency.add_metric([str(shard)], seconds)
        return [
            GaugeMetricFamily("calico_shards_connected", "Gateway shards connected",
                              value=status.connected),
            GaugeMetricFamily("calico_shards_expected", "Gateway shards this process should hold",
                              value=status.expected),
            latency,
        ]

    @staticmethod
    def _sweep(read: Callable[[], datetime | None]) -> list[Metric]:
        at = read()
        if at is None:
            return []  # no sweep yet: absent rather than a misleading 1970
        return [GaugeMetricFamily("calico_sweep_last_run_timestamp_seconds",
                                  "When the timer sweep last completed (Unix time)",
                                  value=at.timestamp())]

    @staticmethod
    def _notices(read: Callable[[], Mapping[str, int]]) -> list[Metric]:
        c = CounterMetricFamily("calico_notices",
                                "Outbox notices handled by this process, by outcome",
                                labels=["outcome"])
        for outcome, n in sorted(read().items()):
            c.add_metric([str(outcome)], n)
        return [c]

    @staticmethod
    def _computers(read: Callable[[], ComputerLoad]) -> list[Metric]:
        load = read()
        return [
            GaugeMetricFamily("calico_computer_workers", "Computer-player worker processes",
                              value=load.workers),
            GaugeMetricFamily("calico_computer_in_flight",
                              "Computer moves running or waiting for a worker",
                              value=load.in_flight),
            CounterMetricFamily("calico_computer_busy",
                                "Hints refused because every worker was busy",
                                value=load.busy),
            GaugeMetricFamily("calico_computer_turns_queued",
                              "Games whose computer turn waits for a worker",
                              value=load.queued),
        ]

    def _snapshot_metrics(self) -> Iterator[Metric]:
        snap = self.snapshot
        if snap.games is not None:
            g = GaugeMetricFamily("calico_active_games", "Active games by status",
                                  labels=["status"])
            for status, n in sorted(snap.games.items()):
                g.add_metric([str(status)], n)
            yield g
        if snap.outbox is not None:
            o = snap.outbox
            yield GaugeMetricFamily("calico_outbox_pending", "Notices waiting to be delivered",
                                    value=o.pending)
            yield GaugeMetricFamily("calico_outbox_oldest_pending_age_seconds",
                                    "Age of the oldest pending notice (0 when none)",
                                    value=snap.outbox_age or 0.0)
            yield GaugeMetricFamily("calico_outbox_lanes_due", "Outbox lanes with work due now",
                                    value=o.lanes_due)
            by = GaugeMetricFamily("calico_outbox_notices", "Stored notices by status",
                                   labels=["status"])
            for status, n in sorted(o.by_status.items()):
                by.add_metric([str(status)], n)
            yield by
