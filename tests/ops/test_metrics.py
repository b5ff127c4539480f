"""The metrics: names and labels as documented, read back through prometheus_client's parser;
scrape-time sources read live or refreshed from async callables; bounded label cardinality; one
registry per bot."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.clock import FakeClock, to_ms
from bot.core.models import SweepReport
from bot.core.storage.base import OutboxStats
from bot.ops.metrics import (
    INTERACTION_BUCKETS,
    OTHER,
    MeteredSweeper,
    Metrics,
    Timed,
)
from bot.ops.sources import ComputerLoad, GatewayStatus, ScrapeSources
from tests.ops.conftest import names, scrape, value


def test_record_interaction_counts_and_times():
    m = Metrics(process=False)
    m.record_interaction("button:place", "ok", 0.02)
    m.record_interaction("button:place", "ok", 0.2)
    m.record_interaction("button:place", "refused", 0.004)
    m.record_interaction("slash:play", "deferred", 2.2)
    s = scrape(m)
    assert value(s, "calico_interactions_total", kind="button:place", outcome="ok") == 2
    assert value(s, "calico_interactions_total", kind="button:place", outcome="refused") == 1
    assert value(s, "calico_interactions_total", kind="slash:play", outcome="deferred") == 1
    hist = "calico_interaction_duration_seconds"
    assert value(s, f"{hist}_count", kind="button:place") == 3
    assert value(s, f"{hist}_sum", kind="button:place") == pytest.approx(0.224)
    assert value(s, f"{hist}_bucket", kind="button:place", le="0.005") == 1
    assert value(s, f"{hist}_bucket", kind="button:place", le="0.025") == 2
    assert value(s, f"{hist}_bucket", kind="button:place", le="0.25") == 3
    assert value(s, f"{hist}_bucket", kind="slash:play", le="2.0") == 0
    assert value(s, f"{hist}_bucket", kind="slash:play", le="3.0") == 1
    assert INTERACTION_BUCKETS[0] == 0.005 and INTERACTION_BUCKETS[-1] == 5.0


def test_kinds_and_outcomes_are_bounded():
    m = Metrics(process=False, max_kinds=3)
    for i in range(10):
        m.record_interaction(f"button:k{i}", "ok", 0.01)
    m.record_interaction("button:k0", "ok", 0.01)  # a known kind stays itself past the cap
    m.record_interaction("button:k1", "exploded", 0.01)  # type: ignore[arg-type]
    s = scrape(m)
    kinds = {dict(labels)["kind"] for name, labels in s if name == "calico_interactions_total"}
    assert kinds == {"button:k0", "button:k1", "button:k2", OTHER}
    assert value(s, "calico_interactions_total", kind=OTHER, outcome="ok") == 7
    assert value(s, "calico_interactions_total", kind="button:k0", outcome="ok") == 2
    assert value(s, "calico_interactions_total", kind="button:k1", outcome=OTHER) == 1


def test_interaction_context_manager_and_decorator():
    m = Metrics(process=False)
    with m.interaction("button:take"):
        pass
    with m.interaction("button:take") as ix:
        ix.outcome = "refused"
    with pytest.raises(RuntimeError), m.interaction("button:take"):
        raise RuntimeError("boom")
    with pytest.raises(KeyError), m.interaction("button:take") as ix:
        ix.outcome = "deferred"  # set before the failure: kept
        raise KeyError("late")

    @m.timed_interaction("slash:stats")
    async def handler(fail: bool) -> int:
        if fail:
            raise ValueError("no")
        return 3

    assert asyncio.run(handler(False)) == 3
    with pytest.raises(ValueError):
        asyncio.run(handler(True))
    s = scrape(m)
    take = {o: value(s, "calico_interactions_total", kind="button:take", outcome=o)
            for o in ("ok", "refused", "error", "deferred")}
    assert take == {"ok": 1, "refused": 1, "error": 1, "deferred": 1}
    assert value(s, "calico_interactions_total", kind="slash:stats", outcome="ok") == 1
    assert value(s, "calico_interactions_total", kind="slash:stats", outcome="error") == 1
    assert value(s, "calico_interaction_duration_seconds_count", kind="slash:stats") == 2


def test_timed_block_sync_and_async_functions():
    seen: list[float] = []
    with Timed(seen.append):
        pass

    @Timed(seen.append)
    def sync(x: int) -> int:
        return x + 1

    @Timed(seen.append)
    async def coro(x: int) -> int:
        await asyncio.sleep(0.01)
        return x * 2

    assert sync(1) == 2
    assert asyncio.run(coro(4)) == 8
    assert len(seen) == 3 and all(t >= 0 for t in seen)
    assert seen[2] >= 0.009  # the async one was timed over its await, not just its creation


def test_computer_moves():
    m = Metrics(process=False)
    m.observe_computer_move("strong", 0.3)
    with m.time_computer_move("easy"):
        pass
    s = scrape(m)
    assert value(s, "calico_computer_move_seconds_count", level="strong") == 1
    assert value(s, "calico_computer_move_seconds_bucket", level="strong", le="0.5") == 1
    assert value(s, "calico_computer_move_seconds_bucket", level="strong", le="0.25") == 0
    assert value(s, "calico_computer_move_seconds_count", level="easy") == 1


class FakeHTTPError(Exception):
    def __init__(self, status: int, code: int) -> None:
        super().__init__(f"{status} {code}")
        self.status = status
        self.code = code


def test_discord_errors_by_status_and_code():
    m = Metrics(process=False, max_error_codes=3)
    m.record_discord_error(403, 50007)
    m.record_discord_error(403, 50007)
    m.record_discord_error(429)
    assert m.record_http_exception(FakeHTTPError(404, 10003))
    assert not m.record_http_exception(TimeoutError())
    m.record_discord_error(500, 0)  # past the cap of 3 pairs
    s = scrape(m)
    assert value(s, "calico_discord_errors_total", status="403", code="50007") == 2
    assert value(s, "calico_discord_errors_total", status="429", code="0") == 1
    assert value(s, "calico_discord_errors_total", status="404", code="10003") == 1
    assert value(s, "calico_discord_errors_total", status="500", code=OTHER) == 1


def test_sweep_reports_through_the_metered_sweeper():
    class Sweeper:
        async def sweep(self) -> SweepReport:
            return SweepReport(reminders=5, reminders_in_thread=2, reminders_skipped=1,
                               autoplayed=1, computer_moves=3, ended=1, busy=2)

    m = Metrics(process=False)
    metered = MeteredSweeper(Sweeper(), m)
    report = asyncio.run(metered.sweep())
    assert report.reminders == 5
    asyncio.run(metered.sweep())
    s = scrape(m)
    assert value(s, "calico_sweeps_total") == 2
    assert value(s, "calico_reminders_total", via="dm") == 6
    assert value(s, "calico_reminders_total", via="thread") == 4
    actions = {dict(labels)["action"]: v for (name, labels), v in s.items()
               if name == "calico_sweep_actions_total"}
    assert actions == {"reminder_skipped": 2, "autoplay": 2, "computer_move": 6, "idle_end": 2,
                       "busy": 4}


class Core:
    """Stand-ins for the values the bot holds elsewhere."""

    def __init__(self) -> None:
        self.clock = FakeClock(datetime(2025, 3, 1, 12, 0, tzinfo=UTC))
        self.moves = 0
        self.failures = 0
        self.last_sweep: datetime | None = None
        self.notices: dict[str, int] = {}
        self.gateway = GatewayStatus(connected=2, expected=2, latencies={0: 0.04, 1: 0.06})
        self.games: Mapping[str, int] = {"lobby": 1, "play": 4}
        self.outbox = OutboxStats(pending=0, oldest_pending_at=None, by_status={}, lanes_due=0)
        self.games_error: Exception | None = None
        self.outbox_delay = 0.0

    async def read_games(self) -> Mapping[str, int]:
        if self.games_error is not None:
            raise self.games_error
        return self.games

    async def read_outbox(self) -> OutboxStats:
        await asyncio.sleep(self.outbox_delay)
        return self.outbox

    def sources(self) -> ScrapeSources:
        return ScrapeSources(
            gateway=lambda: self.gateway,
            moves_committed=lambda: self.moves,
            timer_failures=lambda: self.failures,
            last_sweep=lambda: self.last_sweep,
            notices=lambda: self.notices,
            computers=lambda: ComputerLoad(workers=2, in_flight=1, busy=3, queued=5),
            games_by_status=self.read_games,
            outbox=self.read_outbox,
            now=self.clock.now,
        )


async def test_scrape_sources_live_and_refreshed():
    core = Core()
    m = Metrics(process=False, sources=core.sources())
    s = scrape(m)
    # Before any refresh: only the live (synchronous) values.
    assert "calico_active_games" not in names(s)
    assert value(s, "calico_shards_connected") == 2
    assert value(s, "calico_shard_latency_seconds", shard="1") == 0.06
    assert "calico_sweep_last_run_timestamp_seconds" not in names(s)  # never swept: absent

    core.moves, core.failures = 7, 1
    core.notices = {"done": 5, "retried": 2}
    core.last_sweep = core.clock.now()
    core.outbox = OutboxStats(pending=3, by_status={"pending": 3, "done": 9}, lanes_due=2,
                              oldest_pending_at=to_ms(core.clock.now() - timedelta(seconds=90)))
    await m.refresh()
    s = scrape(m)
    assert value(s, "calico_moves_committed_total") == 7
    assert value(s, "calico_timer_failures_total") == 1
    assert value(s, "calico_notices_total", outcome="done") == 5
    assert value(s, "calico_notices_total", outcome="retried") == 2
    assert value(s, "calico_sweep_last_run_timestamp_seconds") == core.clock.now().timestamp()
    assert value(s, "calico_active_games", status="play") == 4
    assert value(s, "calico_active_games", status="lobby") == 1
    assert value(s, "calico_outbox_pending") == 3
    assert value(s, "calico_outbox_oldest_pending_age_seconds") == 90
    assert value(s, "calico_outbox_lanes_due") == 2
    assert value(s, "calico_outbox_notices", status="done") == 9
    assert value(s, "calico_computer_workers") == 2
    assert value(s, "calico_computer_in_flight") == 1
    assert value(s, "calico_computer_busy_total") == 3
    assert value(s, "calico_computer_turns_queued") == 5
    assert value(s, "calico_scrape_source_up", source="games") == 1
    assert value(s, "calico_scrape_source_up", source="gateway") == 1

    core.moves = 9  # live values move without a refresh
    assert value(scrape(m), "calico_moves_committed_total") == 9


async def test_failing_and_slow_sources_are_left_out_not_fatal():
    core = Core()
    sources = core.sources()

    def broken() -> GatewayStatus:
        raise RuntimeError("client gone")

    sources.gateway = broken
    m = Metrics(process=False, sources=sources)
    core.games_error = ConnectionError("db down")
    core.outbox_delay = 1.0
    await m.refresh(timeout=0.05)
    s = scrape(m)
    assert value(s, "calico_scrape_source_up", source="games") == 0
    assert value(s, "calico_scrape_source_up", source="outbox") == 0
    assert value(s, "calico_scrape_source_up", source="gateway") == 0
    assert value(s, "calico_scrape_source_up", source="moves_committed") == 1
    assert "calico_active_games" not in names(s)
    assert "calico_outbox_pending" not in names(s)
    assert "calico_shards_connected" not in names(s)
    assert value(s, "calico_moves_committed_total") == 0

    core.games_error, core.outbox_delay = None, 0.0
    await m.refresh(timeout=0.05)
    s = scrape(m)
    assert value(s, "calico_scrape_source_up", source="games") == 1
    assert value(s, "calico_outbox_pending") == 0


def test_registries_are_separate_and_late_sources_attach():
    a, b = Metrics(version="1.0"), Metrics(version="2.0")  # no clash, process collectors too
    a.record_interaction("slash:play", "ok", 0.01)
    sb = scrape(b)
    assert value(sb, "calico_interactions_total", kind="slash:play", outcome="ok") is None
    assert value(sb, "calico_build_info", version="2.0") == 1
    assert any(name.startswith("process_") for name in names(sb))
    b.set_sources(ScrapeSources(moves_committed=lambda: 4))
    assert value(scrape(b), "calico_moves_committed_total") == 4
    assert value(scrape(a), "calico_moves_committed_total") is None


def test_openmetrics_on_request():
    m = Metrics(process=False)
    body, ctype = m.render("application/openmetrics-text; version=1.0.0")
    assert ctype.startswith("application/openmetrics-text")
    assert body.rstrip().endswith(b"# EOF")
    body, ctype = m.render(None)
    assert ctype.startswith("text/plain")
