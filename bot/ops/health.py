"""``/healthz`` and ``/metrics``: the optional HTTP listener of the bot.

This module owns the health verdict (:class:`HealthCheck`: four checks against
:class:`HealthThresholds`), the aiohttp application that serves it with the metrics
(:func:`make_app`), and the listener's life (:class:`HealthServer`). Its inputs come through the
:class:`HealthSource` protocol, so it runs, and is tested, without Discord or a database.

``/healthz`` answers 200 when every check passes and 503 otherwise, with the same JSON body::

    {"status": "ok" | "failing", "failing": [...], "version": ..., "time": ..., "uptime_seconds":
     "gateway": {"ok", "connected", "expected", "latency_ms"},
     "database": {"ok", "answering", "ms"},
     "outbox": {"ok", "pending", "oldest_pending_age_seconds", "lanes_due", "by_status"},
     "sweep": {"ok", "last_run", "seconds_ago"}}

(a check whose source failed also carries ``"error"``). The listener binds 127.0.0.1 unless told
otherwise: the body names internals, and Prometheus scrapes from the same host or a sidecar.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from aiohttp import web

from bot.core.clock import from_ms
from bot.core.storage.base import OutboxStats
from bot.ops.metrics import Metrics
from bot.ops.sources import GatewayStatus

log = logging.getLogger("calico.ops.health")

T = TypeVar("T")

DEFAULT_HOST = "127.0.0.1"
CHECKS = ("gateway", "database", "outbox", "sweep")


class HealthSource(Protocol):
    """What the health check reads (see :class:`bot.ops.sources.CoreHealthSource`)."""

    def now(self) -> datetime:
        """The clock the stored times are on (aware UTC)."""
        ...

    async def gateway(self) -> GatewayStatus: ...

    async def database(self) -> None:
        """Return when the database answers; raise when it does not."""
        ...

    async def outbox(self) -> OutboxStats: ...

    async def last_sweep(self) -> datetime | None:
        """When the timer sweep last completed (None: not yet in this process)."""
        ...


@dataclass(frozen=True, slots=True)
class HealthThresholds:
    """When the bot counts as unhealthy. Durations in seconds; None turns a limit off."""

    check_timeout: float = 2.0  # a source slower than this fails its check
    # Connected shards / expected shards needed (1.0: all of them).
    min_shard_fraction: float = 1.0
    max_gateway_latency: float | None = None  # reported either way; judged only when set
    # The oldest notice still pending. Retries back off up to 5 minutes, so a notice older than
    # this means deliveries have been failing for several attempts in a row.
    max_outbox_age: float | None = 900.0
    max_outbox_pending: int | None = None
    # The bot sweeps every 60 s; five missed sweeps is a stuck loop, not a slow one. A process
    # younger than this that has not swept yet is starting, not failing.
    max_sweep_age: float = 300.0


@dataclass(frozen=True, slots=True)
class HealthReport:
    healthy: bool
    body: dict[str, Any]

    @property
    def status_code(self) -> int:
        return 200 if self.healthy else 503


def _num(value: float | None, digits: int = 3) -> float | None:
    # JSON has no NaN or infinity: an unknown measure is null.
    if value is None or not math.isfinite(value):
        return None
    return round(value, digits)


def _error(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    return f"{type(exc).__name__}: {exc}"[:200]


class HealthCheck:
    """Runs the four checks concurrently, each bounded by ``check_timeout``, and logs when the
    verdict changes (not on every probe: orchestrators probe every few seconds)."""

    def __init__(self, source: HealthSource, *, version: str = "",
                 thresholds: HealthThresholds | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.version = version
        self.thresholds = thresholds or HealthThresholds()
        self._monotonic = monotonic
        self._started = monotonic()
        self._last_healthy: bool | None = None

    async def _bounded(self, fn: Callable[[], Awaitable[T]]) -> T:
        async with asyncio.timeout(self.thresholds.check_timeout):
            return await fn()

    async def run(self) -> HealthReport:
        now = self.source.now()
        uptime = self._monotonic() - self._started
        parts = await asyncio.gather(self._gateway(), self._database(), self._outbox(now),
                                     self._sweep(now, uptime))
        body: dict[str, Any] = dict(zip(CHECKS, parts, strict=True))
        failing = [name for name in CHECKS if not body[name]["ok"]]
        healthy = not failing
        report = HealthReport(healthy, {
            "status": "ok" if healthy else "failing",
            "failing": failing,
            "version": self.version,
            "time": now.isoformat(),
            "uptime_seconds": _num(uptime, 1),
            **body,
        })
        self._log_transition(report)
        return report

    def _log_transition(self, report: HealthReport) -> None:
        if report.healthy == self._last_healthy:
            return
        if report.healthy:
            if self._last_healthy is not None:
                log.info("healthy again")
        else:
            reasons = "; ".join(
                f"{name}: {report.body[name].get('error') or 'over its threshold'}"
                for name in report.body["failing"])
            log.warning("unhealthy: %s", reasons)
        self._last_healthy = report.healthy

    async def _gateway(self) -> dict[str, Any]:
        th = self.thresholds
        try:
            status = await self._bounded(self.source.gateway)
        except Exception as e:
            return {"ok": False, "connected": 0, "expected": None, "latency_ms": None,
                    "error": _error(e, th.check_timeout)}
        latency = status.latency
        expected = max(1, status.expected)
        ok = status.connected >= math.ceil(expected * th.min_shard_fraction) \
            and status.connected > 0
        if ok and th.max_gateway_latency is not None and latency is not None:
            ok = latency <= th.max_gateway_latency
        return {"ok": ok, "connected": status.connected, "expected": status.expected,
                "latency_ms": _num(None if latency is None else latency * 1000, 1)}

    async def _database(self) -> dict[str, Any]:
        th = self.thresholds
        started = time.perf_counter()
        try:
            await self._bounded(self.source.database)
        except Exception as e:
            return {"ok": False, "answering": False,
                    "ms": _num((time.perf_counter() - started) * 1000, 1),
                    "error": _error(e, th.check_timeout)}
        return {"ok": True, "answering": True,
                "ms": _num((time.perf_counter() - started) * 1000, 1)}

    async def _outbox(self, now: datetime) -> dict[str, Any]:
        th = self.thresholds
        try:
            stats = await self._bounded(self.source.outbox)
        except Exception as e:
            return {"ok": False, "pending": None, "oldest_pending_age_seconds": None,
                    "lanes_due": None, "by_status": {}, "error": _error(e, th.check_timeout)}
        age = None
        if stats.oldest_pending_at is not None:
            age = max(0.0, (now - from_ms(stats.oldest_pending_at)).total_seconds())
        ok = True
        if th.max_outbox_age is not None and age is not None and age > th.max_outbox_age:
            ok = False
        if th.max_outbox_pending is not None and stats.pending > th.max_outbox_pending:
            ok = False
        return {"ok": ok, "pending": stats.pending, "oldest_pending_age_seconds": _num(age, 1),
                "lanes_due": stats.lanes_due, "by_status": dict(stats.by_status)}

    async def _sweep(self, now: datetime, uptime: float) -> dict[str, Any]:
        th = self.thresholds
        try:
            last = await self._bounded(self.source.last_sweep)
        except Exception as e:
            return {"ok": False, "last_run": None, "seconds_ago": None,
                    "error": _error(e, th.check_timeout)}
        if last is None:
            # Not swept yet: fine while the process is younger than one allowed gap.
            return {"ok": uptime <= th.max_sweep_age, "last_run": None, "seconds_ago": None}
        ago = max(0.0, (now - last).total_seconds())
        return {"ok": ago <= th.max_sweep_age, "last_run": last.isoformat(),
                "seconds_ago": _num(ago, 1)}


HEALTH_KEY = web.AppKey("calico_health", HealthCheck)
METRICS_KEY = web.AppKey("calico_metrics", Metrics)
NO_STORE = {"Cache-Control": "no-store"}


async def _healthz(request: web.Request) -> web.Response:
    check = request.app[HEALTH_KEY]
    try:
        report = await check.run()
    except Exception as e:
        # A bug in a check still answers, and says unhealthy: never a hanging probe or a 500.
        log.exception("health check failed")
        return web.json_response({"status": "failing", "error": _error(e, 0)}, status=503,
                                 headers=NO_STORE)
    return web.json_response(report.body, status=report.status_code, headers=NO_STORE)


async def _metrics(request: web.Request) -> web.Response:
    metrics = request.app[METRICS_KEY]
    await metrics.refresh()
    body, content_type = metrics.render(request.headers.get("Accept"))
    return web.Response(body=body, headers={"Content-Type": content_type, **NO_STORE})


def make_app(health: HealthCheck | None = None, metrics: Metrics | None = None) -> web.Application:
    """The application: ``/healthz`` when ``health`` is given, ``/metrics`` when ``metrics`` is
    (GET and HEAD); anything else is a 404."""
    app = web.Application()
    if health is not None:
        app[HEALTH_KEY] = health
        app.router.add_get("/healthz", _healthz)
    if metrics is not None:
        app[METRICS_KEY] = metrics
        app.router.add_get("/metrics", _metrics)
    return app


class HealthServer:
    """Runs an application on one TCP listener. ``start`` returns the bound port (pass port 0
    for any free one); ``stop`` closes it (idempotent)."""

    def __init__(self, app: web.Application, *, shutdown_timeout: float = 2.0,
                 name: str = "health and metrics") -> None:
        self.app = app
        self.name = name  # what the start's log line says is listening
        self._shutdown_timeout = shutdown_timeout
        self._runner: web.AppRunner | None = None
        self.host: str | None = None
        self.port: int | None = None

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def start(self, host: str = DEFAULT_HOST, port: int = 0) -> int:
        if self._runner is not None:
            raise RuntimeError("already started")
        # No access log: a probe every few seconds would drown the bot's own lines.
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False,
                               shutdown_timeout=self._shutdown_timeout)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.host = host
        self.port = int(runner.addresses[0][1])
        log.info("%s listening on http://%s:%d", self.name, host, self.port)
        return self.port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("not started")
        host = f"[{self.host}]" if self.host and ":" in self.host else self.host
        return f"http://{host}:{self.port}"


async def start_listener(source: HealthSource | None, metrics: Metrics | None, *,
                         port: int, host: str = DEFAULT_HOST, version: str = "",
                         thresholds: HealthThresholds | None = None) -> HealthServer:
    """Build and start the listener in one call (what the client's ``setup_hook`` needs)."""
    check = None if source is None else HealthCheck(source, version=version,
                                                    thresholds=thresholds)
    server = HealthServer(make_app(check, metrics))
    await server.start(host, port)
    return server
