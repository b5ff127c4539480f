"""The composition root (:class:`bot.core.manager.Manager`): it opens the database and closes
it, registers the features in their order, hands out a dispatcher wired to the DM fallback,
runs the sweep with the features' periodic work, and answers what a deployment asks of its
database."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core import lobby, queries
from bot.core.clock import FakeClock, to_ms
from bot.core.hooks import Feature
from bot.core.kernel import Kernel
from bot.core.manager import FEATURES, Manager
from bot.core.notices import DmFallback
from tests.core.conftest import BOB, RecordingDelivery, new_game, seeds
from tests.core.test_outbox import drain


async def test_what_is_stored_survives_closing_and_opening_again(db_path: str,
                                                                  clock: FakeClock) -> None:
    m = await Manager.open(db_path, clock=clock, seed_source=seeds())
    try:
        g = await new_game(m, people=(BOB,), setup="beginner")
    finally:
        await m.close()
    again = await Manager.open(db_path, clock=clock)
    try:
        assert await queries.game(again.kernel, g.id) == g
        assert again.storage_info()[1] == ("sqlite" if db_path.endswith(".db") else "postgresql")
    finally:
        await again.close()


async def test_the_features_are_registered_in_their_order(sqlite_manager: Manager) -> None:
    hooks = sqlite_manager.kernel.hooks
    assert [f.name for f in hooks.features] == ["progress", "challenge", "tournament", "site"]
    assert tuple(hooks.features) == FEATURES
    with pytest.raises(ValueError):  # one kernel, one registration of each feature
        Manager(sqlite_manager.kernel)


async def test_the_dispatcher_posts_the_fallback_of_a_dm_refused_for_good(
        sqlite_manager: Manager) -> None:
    m = sqlite_manager
    g = await new_game(m, people=(BOB,), setup="beginner", first="pet", start=False)
    await lobby.claim_first(m.kernel, g.id, BOB.id)
    g = await lobby.start(m.kernel, g.id, g.host_id)  # Bob's turn prompt is queued
    out = RecordingDelivery(fail_dm_users={BOB.id})
    d = m.dispatcher(out, concurrency=2)
    assert (d.owner, d.clock, d.concurrency) == (m.kernel.owner, m.kernel.clock, 2)
    await drain(d)
    assert (await queries.get_settings(m.kernel, BOB.id)).dm_closed_at is not None
    fallback = [n.body for n in out.shown if isinstance(n.body, DmFallback)]
    assert fallback == [DmFallback(user_id=BOB.id, seat=1)]
    assert m.dispatcher(out, owner="other").owner == "other"


async def test_the_sweep_runs_the_features_periodic_work(sqlite_manager: Manager,
                                                         clock: FakeClock) -> None:
    m = sqlite_manager
    asked: list[tuple[Any, int]] = []

    async def job(k: Kernel, now: int) -> int:
        asked.append((k, now))
        return 2

    m.kernel.hooks.add(Feature("probe", sweep=job))
    assert m.last_sweep_at is None
    clock.advance(hours=1)
    report = await m.sweep()
    assert asked == [(m.kernel, to_ms(clock.now()))]
    assert report.features == {"probe": 2}  # the others had nothing to do
    assert m.last_sweep_at == clock.now() == m.now()


async def test_what_a_deployment_asks_of_its_database(manager: Manager,
                                                      clock: FakeClock) -> None:
    m = manager
    await m.ping()
    assert await m.get_state("shards") is None
    await m.set_state("shards", "2")
    await m.set_state("shards", "3")
    assert await m.get_state("shards") == "3"
    await new_game(m, players=3, start=False)
    await new_game(m, host=BOB, players=2, setup="beginner", computers=1)
    assert await m.active_games() == {"lobby": 1, "play": 1}
    pending = [n for n in await m.store.notices() if n.status == "pending"]
    stats = await m.outbox_stats()
    assert stats.pending == len(pending) > 0 and stats.lanes_due >= 1
    assert (await m.outbox_stats(clock.now())).pending == stats.pending
    async with m.exclusive("command-sync") as mine:
        assert mine
    where, backend = m.storage_info()
    assert backend in ("sqlite", "postgresql") and where


async def test_the_location_never_shows_a_password(pg_db: str, clock: FakeClock) -> None:
    with_password = pg_db.replace("://calico@", "://calico:hunter2@", 1)
    if with_password == pg_db:
        pytest.skip("the test server's URL is not of the expected form")
    m = await Manager.open(with_password, clock=clock)
    try:
        where, backend = m.storage_info()
        assert backend == "postgresql" and "hunter2" not in where and "calico" in where
    finally:
        await m.close()
