"""The site and the features around games: the weekly challenge (hidden until its week
closes), a tournament of 150 entrants (every row, every pairing), and several processes on
one PostgreSQL database (any process serves any page)."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.core.challenge import play as challenge
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import UserRef
from bot.core.site import service as site
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.web import links
from bot.web.app import make_app
from bot.web.links import Signer
from tests.core.conftest import ANN, BOB, CHANNEL, GUILD, new_game, opts, play_out, seeds
from tests.pgserver import fresh_database
from tests.web.conftest import SECRET

S = Signer(SECRET)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Manager, FakeClock, TestClient]]:
    clock = FakeClock()
    m = await Manager.open(tmp_path / "calico.db", clock=clock, seed_source=seeds())
    client = TestClient(TestServer(make_app(m.kernel, SECRET, rate_per_minute=10_000)))
    try:
        await client.start_server()
        await site.set_enabled(m.kernel, GUILD, True)
        yield m, clock, client
    finally:
        await client.close()
        await m.close()


async def test_the_weeks_challenge_boards_stay_hidden_until_the_week_closes(
        served: tuple[Manager, FakeClock, TestClient]) -> None:
    m, clock, client = served
    g = await challenge.start(m.kernel, ANN, GUILD, CHANNEL)
    g = await play_out(m, g, random.Random(3))
    assert g.status.value == "over" and g.challenge_week is not None
    game = S.path(links.GAME, g.id)
    assert (await client.get(game)).status == 404
    assert (await client.get(game + "/1.png")).status == 404
    server = await (await client.get(S.path(links.SERVER, GUILD))).text()
    assert game not in server
    player = await (await client.get(S.path(links.PLAYER, GUILD, ANN.id))).text()
    assert game not in player
    row = await challenge.this_week(m.kernel)
    clock.advance(timedelta(milliseconds=row.ends_at - to_ms(clock.now()) + 1000))
    await m.sweep()
    assert (await client.get(game)).status == 200
    assert (await client.get(game + "/1.png")).status == 200
    server = await (await client.get(S.path(links.SERVER, GUILD))).text()
    assert game in server


async def test_a_tournament_page_lists_every_one_of_150_entrants_and_each_pairing(
        served: tuple[Manager, FakeClock, TestClient]) -> None:
    m, clock, client = served
    now = to_ms(clock.now())
    spec = tour.Spec("Big <b>Cup</b>", tour.SWISS, 3, 2, opts(setup="beginner"),
                     now + 86_400_000, now + 2 * 86_400_000, 24.0)
    t = await signup.create(m.kernel, UserRef(2900, "Olive"), GUILD, CHANNEL, spec)
    people = [UserRef(5000 + i, f"Entrant {i:03d}") for i in range(150)]
    for p in people:
        await signup.join(m.kernel, t.id, p)
    path = S.path(links.TOURNAMENT, t.id)
    body = await (await client.get(path)).text()
    assert "150 entrants." in body and "Big &lt;b&gt;Cup&lt;/b&gt;" in body
    clock.advance(timedelta(days=2))
    await m.sweep()
    t = await records.get(m.kernel, t.id)
    assert t.status == tour.RUNNING
    resp = await client.get(path)
    body = await resp.text()
    assert resp.status == 200
    rows = re.findall(r"<tr><td>\d+</td><td>(.*?)</td>", body)
    assert len(rows) == 150
    for p in people:
        assert f">{p.name}</a>" in body, p.name
    assert "Round 1" in body and body.count("Table ") == 75
    tables = await records.tables(m.kernel, t.id)
    hrefs = [S.path(links.GAME, x.game_id) for x in tables if x.game_id is not None]
    assert len(hrefs) == 75 and all(h in body for h in hrefs)
    assert "Swiss" in body  # its rules
    server = await (await client.get(S.path(links.SERVER, GUILD))).text()
    assert path in server  # an open tournament, listed on the server's page


@pytest.mark.postgres
async def test_any_process_serves_any_page_on_postgresql(
        pg_admin: tuple[str | None, str]) -> None:
    async with fresh_database(pg_admin) as url:
        one = await Manager.open(url, clock=FakeClock(), seed_source=seeds(), exclusive=False)
        two = await Manager.open(url, clock=FakeClock(), seed_source=seeds(100),
                                 exclusive=False)
        client = TestClient(TestServer(make_app(two.kernel, SECRET, rate_per_minute=10_000)))
        try:
            await client.start_server()
            await site.set_enabled(one.kernel, GUILD, True)
            g = await play_out(one, await new_game(one, ANN, people=(BOB,)), random.Random(5))
            await site.hide_name(one.kernel, BOB.id, True)
            resp = await client.get(S.path(links.GAME, g.id))  # served by the other process
            body = await resp.text()
            assert resp.status == 200 and ">Ann</a>" in body and "Player 2" in body
            assert "Bob" not in body
            player = await client.get(S.path(links.PLAYER, GUILD, ANN.id))
            assert player.status == 200 and 'class="dot"' in await player.text()
            png = await client.get(S.path(links.GAME, g.id) + "/3.png")
            assert png.status == 200 and png.content_type == "image/png"
        finally:
            await client.close()
            await two.close()
            await one.close()
