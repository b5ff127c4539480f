"""``/healthz`` and ``/metrics`` on a real listener (127.0.0.1, a free port), hit with an aiohttp
client: healthy and unhealthy bodies, each check's threshold, transitions logged once, and the
metrics parsed back with prometheus_client."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import pytest

from bot.core.clock import FakeClock, to_ms
from bot.core.storage.base import OutboxStats
from bot.ops.health import (
    HealthCheck,
    HealthServer,
    HealthThresholds,
    make_app,
    start_listener,
)
from bot.ops.metrics import Metrics
from bot.ops.sources import GatewayStatus, ScrapeSources
from tests.ops.conftest import parse, value

START = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


class FakeSource:
    """A HealthSource whose answers the tests change."""

    def __init__(self) -> None:
        self.clock = FakeClock(START)
        self.status = GatewayStatus(connected=1, expected=1, latencies={0: 0.042})
        self.db_error: Exception | None = None
        self.db_delay = 0.0
        self.stats = OutboxStats(pending=0, oldest_pending_at=None, by_status={"done": 4},
                                 lanes_due=0)
        self.swept: datetime | None = START - timedelta(seconds=20)

    def now(self) -> datetime:
        return self.clock.now()

    async def gateway(self) -> GatewayStatus:
        return self.status

    async def database(self) -> None:
        await asyncio.sleep(self.db_delay)
        if self.db_error is not None:
            raise self.db_error

    async def outbox(self) -> OutboxStats:
        return self.stats

    async def last_sweep(self) -> datetime | None:
        return self.swept


class Uptime:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def source() -> FakeSource:
    return FakeSource()


@pytest.fixture
def uptime() -> Uptime:
    return Uptime()


@pytest.fixture
async def served(source: FakeSource,
                 uptime: Uptime) -> AsyncIterator[tuple[str, aiohttp.ClientSession, Metrics]]:
    metrics = Metrics(process=False, version="9.9.9", sources=ScrapeSources(
        gateway=lambda: source.status, moves_committed=lambda: 12,
        outbox=source.outbox, now=source.now))
    check = HealthCheck(source, version="9.9.9",
                        thresholds=HealthThresholds(check_timeout=0.2), monotonic=uptime)
    server = HealthServer(make_app(check, metrics))
    port = await server.start()  # the defaults: 127.0.0.1, any free port
    assert server.host == "127.0.0.1" and port > 0
    async with aiohttp.ClientSession() as session:
        yield server.url, session, metrics
    await server.stop()


async def get(session: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any]]:
    async with session.get(url) as r:
        assert r.headers["Content-Type"].startswith("application/json")
        assert r.headers["Cache-Control"] == "no-store"
        return r.status, await r.json()


async def test_healthy(served):
    url, session, _ = served
    status, body = await get(session, f"{url}/healthz")
    assert status == 200
    assert body["status"] == "ok" and body["failing"] == []
    assert body["version"] == "9.9.9"
    assert body["time"] == START.isoformat()
    assert body["gateway"] == {"ok": True, "connected": 1, "expected": 1, "latency_ms": 42.0}
    assert body["database"]["ok"] and body["database"]["answering"]
    assert body["database"]["ms"] >= 0
    assert body["outbox"] == {"ok": True, "pending": 0, "oldest_pending_age_seconds": None,
                              "lanes_due": 0, "by_status": {"done": 4}}
    assert body["sweep"] == {"ok": True, "last_run": (START - timedelta(seconds=20)).isoformat(),
                             "seconds_ago": 20.0}


async def test_each_check_turns_unhealthy_and_back(served, source: FakeSource, caplog):
    url, session, _ = served
    caplog.set_level(logging.INFO, logger="calico.ops.health")

    source.status = GatewayStatus(connected=0, expected=1)
    status, body = await get(session, f"{url}/healthz")
    assert status == 503
    assert body["status"] == "failing" and body["failing"] == ["gateway"]
    assert body["gateway"]["latency_ms"] is None
    source.status = GatewayStatus(connected=1, expected=1, latencies={0: 0.05})

    source.db_error = ConnectionRefusedError("connection refused")
    status, body = await get(session, f"{url}/healthz")
    assert status == 503 and body["failing"] == ["database"]
    assert body["database"]["answering"] is False
    assert "ConnectionRefusedError" in body["database"]["error"]
    source.db_error = None

    source.db_delay = 1.0  # past check_timeout (0.2 s): failing, and the probe still answers
    status, body = await get(session, f"{url}/healthz")
    assert status == 503 and body["failing"] == ["database"]
    assert "no answer within 0.2 s" in body["database"]["error"]
    source.db_delay = 0.0

    oldest = START - timedelta(minutes=20)
    source.stats = OutboxStats(pending=7, oldest_pending_at=to_ms(oldest),
                               by_status={"pending": 7}, lanes_due=3)
    status, body = await get(session, f"{url}/healthz")
    assert status == 503 and body["failing"] == ["outbox"]
    assert body["outbox"]["oldest_pending_age_seconds"] == 1200.0
    assert body["outbox"]["pending"] == 7 and body["outbox"]["by_status"] == {"pending": 7}
    source.stats = OutboxStats(pending=7, oldest_pending_at=to_ms(START - timedelta(seconds=5)),
                               by_status={"pending": 7}, lanes_due=3)

    source.clock.advance(minutes=10)  # the last sweep is now 10 min 20 s old
    status, body = await get(session, f"{url}/healthz")
    assert status == 503 and body["failing"] == ["sweep"]
    assert body["sweep"]["seconds_ago"] == 620.0
    source.swept = source.clock.now()

    source.stats = OutboxStats(pending=0, oldest_pending_at=None, by_status={}, lanes_due=0)
    status, body = await get(session, f"{url}/healthz")
    assert status == 200 and body["failing"] == []

    lines = [r.getMessage() for r in caplog.records if r.name == "calico.ops.health"]
    # One line per change of verdict, not per probe (gateway -> database -> ... stayed failing).
    assert lines[0].startswith("unhealthy: gateway")
    assert lines[-1] == "healthy again"
    assert len(lines) == 2


async def test_several_failures_at_once(served, source: FakeSource):
    url, session, _ = served
    source.status = GatewayStatus(connected=1, expected=4)
    source.db_error = OSError("disk")
    status, body = await get(session, f"{url}/healthz")
    assert status == 503
    assert body["failing"] == ["gateway", "database"]


async def test_sweep_not_run_yet_is_starting_then_failing(source: FakeSource, uptime: Uptime):
    source.swept = None
    check = HealthCheck(source, thresholds=HealthThresholds(max_sweep_age=300),
                        monotonic=uptime)
    report = await check.run()
    assert report.healthy and report.body["sweep"] == {"ok": True, "last_run": None,
                                                       "seconds_ago": None}
    uptime.t += 301
    report = await check.run()
    assert not report.healthy and report.status_code == 503
    assert report.body["failing"] == ["sweep"]


async def test_thresholds_are_parameters(source: FakeSource, uptime: Uptime):
    source.status = GatewayStatus(connected=3, expected=4, latencies={0: 0.9, 1: 1.1, 2: 1.0})
    source.stats = OutboxStats(pending=50, oldest_pending_at=None, by_status={}, lanes_due=1)
    lenient = HealthCheck(source, monotonic=uptime, thresholds=HealthThresholds(
        min_shard_fraction=0.75))
    assert (await lenient.run()).healthy
    strict = HealthCheck(source, monotonic=uptime, thresholds=HealthThresholds(
        min_shard_fraction=0.75, max_gateway_latency=0.5, max_outbox_pending=10))
    report = await strict.run()
    assert report.body["failing"] == ["gateway", "outbox"]
    assert report.body["gateway"]["latency_ms"] == 1000.0


async def test_metrics_endpoint(served):
    url, session, metrics = served
    metrics.record_interaction("button:place", "ok", 0.03)
    async with session.get(f"{url}/metrics") as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain; version=")
        samples = parse(await r.text())
    assert value(samples, "calico_interactions_total", kind="button:place", outcome="ok") == 1
    assert value(samples, "calico_moves_committed_total") == 12
    assert value(samples, "calico_shards_connected") == 1
    # The handler refreshed the async sources before rendering.
    assert value(samples, "calico_outbox_pending") == 0
    assert value(samples, "calico_build_info", version="9.9.9") == 1
    async with session.get(f"{url}/metrics",
                           headers={"Accept": "application/openmetrics-text"}) as r:
        assert r.headers["Content-Type"].startswith("application/openmetrics-text")
        assert (await r.text()).rstrip().endswith("# EOF")
    async with session.head(f"{url}/healthz") as r:
        assert r.status == 200
    async with session.get(f"{url}/") as r:
        assert r.status == 404


async def test_only_what_is_given_is_served(source: FakeSource):
    server = await start_listener(None, Metrics(process=False), port=0)
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{server.url}/healthz") as r:
                assert r.status == 404
            async with session.get(f"{server.url}/metrics") as r:
                assert r.status == 200
    finally:
        await server.stop()


async def test_a_broken_check_still_answers_503(source: FakeSource):
    class Broken(FakeSource):
        def now(self) -> datetime:
            raise RuntimeError("clock exploded")

    server = HealthServer(make_app(HealthCheck(Broken())))
    await server.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as session:
            status, body = await get(session, f"{server.url}/healthz")
        assert status == 503 and body["status"] == "failing"
        assert "clock exploded" in body["error"]
    finally:
        await server.stop()


async def test_stop_closes_the_port_and_is_idempotent(source: FakeSource):
    server = HealthServer(make_app(HealthCheck(source)))
    port = await server.start()
    with pytest.raises(RuntimeError):
        await server.start()
    url = server.url
    await server.stop()
    await server.stop()
    assert not server.running
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(f"{url}/healthz")
    # The port is free again: a new listener may take it.
    again = HealthServer(make_app(HealthCheck(source)))
    assert await again.start(port=port) == port
    await again.stop()
