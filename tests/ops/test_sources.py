"""The adapters: a discord.py client's shards read by duck typing, and the health check and the
metrics wired to a real manager on SQLite (the outbox backlog, the sweep, committed moves)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.outbox import NullDelivery
from bot.ops.health import HealthCheck, HealthThresholds
from bot.ops.metrics import MeteredSweeper, Metrics
from bot.ops.sources import CoreHealthSource, GatewayStatus, core_scrape_sources, gateway_status
from tests.core.conftest import ANN, BOB, new_game, seeds, step
from tests.ops.conftest import scrape, value


class FakeClient:
    """The attributes of ``discord.Client`` that ``gateway_status`` reads."""

    def __init__(self, *, ready: bool = True, closed: bool = False, ws_open: bool = True,
                 latency: float = 0.05) -> None:
        self._ready, self._closed = ready, closed
        self.ws: Any = SimpleNamespace(open=ws_open)
        self.latency = latency
        self.shard_id: int | None = None
        self.shard_count: int | None = None

    def is_ready(self) -> bool:
        return self._ready

    def is_closed(self) -> bool:
        return self._closed


class FakeShard:
    def __init__(self, closed: bool, latency: float) -> None:
        self._closed, self.latency = closed, latency

    def is_closed(self) -> bool:
        return self._closed


class FakeShardedClient(FakeClient):
    def __init__(self, shards: dict[int, FakeShard], *, count: int | None,
                 ids: list[int] | None = None) -> None:
        super().__init__()
        self._shards = shards
        self.shard_count = count
        self.shard_ids = ids

    @property
    def shards(self) -> dict[int, FakeShard]:
        return dict(self._shards)


def test_gateway_status_of_a_plain_client():
    assert gateway_status(FakeClient()) == GatewayStatus(1, 1, {0: 0.05})
    assert gateway_status(FakeClient(ready=False)) == GatewayStatus(0, 1)
    # discord.py keeps is_ready() across a reconnect: the closed socket decides.
    assert gateway_status(FakeClient(ws_open=False)) == GatewayStatus(0, 1)
    assert gateway_status(FakeClient(closed=True)) == GatewayStatus(0, 1)
    nan = gateway_status(FakeClient(latency=math.nan))
    assert nan.connected == 1 and nan.latency is None
    no_ws = FakeClient()
    no_ws.ws = None
    assert gateway_status(no_ws).connected == 0
    one_of_many = FakeClient()
    one_of_many.shard_id, one_of_many.shard_count = 3, 8
    assert gateway_status(one_of_many) == GatewayStatus(1, 1, {3: 0.05})


def test_gateway_status_of_a_sharded_client():
    shards = {0: FakeShard(False, 0.04), 1: FakeShard(True, math.inf), 2: FakeShard(False, 0.08)}
    status = gateway_status(FakeShardedClient(shards, count=3))
    assert status == GatewayStatus(2, 3, {0: 0.04, 2: 0.08})
    assert status.latency == pytest.approx(0.06)
    subset = gateway_status(FakeShardedClient({4: FakeShard(False, 0.1)}, count=8, ids=[4, 5]))
    assert (subset.connected, subset.expected) == (1, 2)
    starting = gateway_status(FakeShardedClient({}, count=None))
    assert (starting.connected, starting.expected) == (0, 1)


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[Manager]:
    m = await Manager.open(str(tmp_path / "calico.db"), clock=FakeClock(), seed_source=seeds(),
                           exclusive=False)
    try:
        yield m
    finally:
        await m.close()


async def test_health_of_a_real_manager(manager: Manager):
    clock = manager.kernel.clock
    assert isinstance(clock, FakeClock)
    gateway = GatewayStatus(1, 1, {0: 0.03})
    check = HealthCheck(CoreHealthSource(manager, lambda: gateway), version="t")
    report = await check.run()
    assert report.healthy, report.body
    assert report.body["database"]["answering"]
    assert report.body["sweep"]["last_run"] is None

    await new_game(manager, ANN, people=(BOB,))  # queues notices in the outbox
    clock.advance(minutes=20)
    report = await check.run()
    assert report.body["failing"] == ["outbox"]
    assert report.body["outbox"]["pending"] > 0
    assert report.body["outbox"]["oldest_pending_age_seconds"] == 1200.0

    dispatcher = manager.dispatcher(NullDelivery())
    while await dispatcher.run_once():
        pass
    await manager.sweep()
    report = await check.run()
    assert report.healthy, report.body
    assert report.body["outbox"]["pending"] == 0
    assert report.body["sweep"]["last_run"] == clock.now().isoformat()

    clock.advance(minutes=6)
    report = await HealthCheck(CoreHealthSource(manager, lambda: gateway),
                               thresholds=HealthThresholds(max_sweep_age=300)).run()
    assert report.body["failing"] == ["sweep"]


async def test_metrics_of_a_real_manager(manager: Manager):
    async def games_by_status() -> Mapping[str, int]:
        return {"play": 1}

    dispatcher = manager.dispatcher(NullDelivery())
    metrics = Metrics(process=False)
    metrics.set_sources(core_scrape_sources(manager, gateway=lambda: GatewayStatus(1, 1),
                                            dispatcher=dispatcher,
                                            games_by_status=games_by_status))
    g = await new_game(manager, ANN, people=(BOB,))
    g = await step(manager, g, ANN.id)
    while await dispatcher.run_once():
        pass
    await MeteredSweeper(manager, metrics).sweep()
    await metrics.refresh()
    s = scrape(metrics)
    assert value(s, "calico_moves_committed_total") == manager.kernel.moves_committed > 0
    assert value(s, "calico_timer_failures_total") == 0
    assert value(s, "calico_notices_total", outcome="done") == dispatcher.delivered > 0
    assert value(s, "calico_outbox_pending") == 0
    assert value(s, "calico_active_games", status="play") == 1
    assert value(s, "calico_sweeps_total") == 1
    assert manager.last_sweep_at is not None
    assert value(s, "calico_sweep_last_run_timestamp_seconds") == \
        manager.last_sweep_at.timestamp()
    assert value(s, "calico_shards_connected") == 1
    # No computer pool on this manager: its metrics are left out, not zero.
    assert value(s, "calico_computer_workers") is None
