"""What every answer carries and what keeps the site cheap: security headers, the pictures'
ETags (304: nothing drawn again), the per-address rate limit (429), the signed links, the
visitor's language."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal

from aiohttp.test_utils import TestClient, TestServer

import render.table
from bot.core.site import service as site
from bot.web import giveway, links
from bot.web.app import SITE_KEY, make_app
from bot.web.guard import RateLimit
from bot.web.language import pick
from bot.web.links import Signer
from bot.web.plot import rating_plot
from tests.core.conftest import DAN, GUILD
from tests.web.conftest import SECRET, World, filled_machine, play_out_some


async def test_every_answer_carries_the_security_headers(world: World) -> None:
    for path in (world.path(links.GAME, world.finished.id), "/g/1-nothing",
                 world.path(links.GAME, world.finished.id) + "/0.png", "/static/site.css"):
        resp = await world.client.get(path)
        csp = resp.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, path
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, path
        assert resp.headers["X-Content-Type-Options"] == "nosniff", path
        assert resp.headers["Referrer-Policy"] == "no-referrer", path


async def test_pages_have_no_inline_script_and_work_without_one(world: World) -> None:
    resp = await world.client.get(world.path(links.GAME, world.finished.id) + "?step=5")
    body = await resp.text()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", body, re.S)
    (attributes, inline), = scripts
    assert re.fullmatch(r' src="/static/stepper\.js\?v=[0-9a-f]{12}" defer', attributes)
    assert inline == ""
    assert not re.search(r"\son[a-z]+=", body)  # no inline event handler either
    # The stepper is plain links and a form that submits without a script.
    assert '<form class="slider" method="get"' in body and 'name="step"' in body
    js = await (await world.client.get("/static/stepper.js")).text()
    assert "ArrowLeft" in js and "ArrowRight" in js


async def test_a_picture_is_drawn_once_and_then_answered_304(world: World) -> None:
    pictures = world.client.server.app[SITE_KEY].pictures
    path = world.path(links.GAME, world.finished.id) + "/7.png"
    first = await world.client.get(path)
    tag = first.headers["ETag"]
    assert first.status == 200 and tag.startswith('"') and pictures.drawn == 1
    again = await world.client.get(path, headers={"If-None-Match": tag})
    assert again.status == 304 and await again.read() == b"" and pictures.drawn == 1
    other = await world.client.get(path, headers={"If-None-Match": '"nope"'})
    assert other.status == 200 and pictures.drawn == 1  # from the cache, not drawn again
    # Another language is another picture (the labels are words).
    fr = await world.client.get(path, headers={"Accept-Language": "fr"})
    assert fr.status == 200 and fr.headers["ETag"] != tag and pictures.drawn == 2


async def test_without_a_picture_cache_every_picture_is_drawn_again(world: World) -> None:
    """``CALICO_WEB_PICTURE_CACHE_MB=0``: nothing kept, so a picture asked twice (by browsers
    that have not got it) is drawn twice; the default keeps it."""
    path = world.path(links.GAME, world.finished.id) + "/3.png"
    for cache_mb, drawn in ((0, 2), (1, 1)):
        app = make_app(world.m.kernel, SECRET, rate_per_minute=100, picture_cache_mb=cache_mb)
        client = TestClient(TestServer(app))
        await client.start_server()
        try:
            bodies = [await (await client.get(path)).read() for _ in range(2)]
            assert bodies[0] == bodies[1] and bodies[0].startswith(b"\x89PNG")
            assert app[SITE_KEY].pictures.drawn == drawn, cache_mb
        finally:
            await client.close()


async def test_too_many_requests_from_one_address_get_429(world: World) -> None:
    client = TestClient(TestServer(make_app(world.m.kernel, SECRET, rate_per_minute=3)))
    await client.start_server()
    try:
        path = world.path(links.SERVER, GUILD)
        assert [(await client.get(path)).status for _ in range(3)] == [200] * 3
        refused = await client.get(path)
        assert refused.status == 429 and int(refused.headers["Retry-After"]) >= 1
        assert "Too many requests" in await refused.text()
        assert "frame-ancestors" in refused.headers["Content-Security-Policy"]
    finally:
        await client.close()


def test_the_rate_limit_refills_and_counts_each_address_apart() -> None:
    now = [0.0]
    limit = RateLimit(60, clock=lambda: now[0])
    assert all(limit.take("a") == 0 for _ in range(60))
    assert limit.take("a") > 0 and limit.take("b") == 0
    now[0] += 1.0  # one more a second
    assert limit.take("a") == 0 and limit.take("a") > 0


def test_signatures_hold_only_for_their_kind_ids_and_secret() -> None:
    s = Signer("one secret")
    token = s.sign(links.PLAYER, 5, 6)
    assert s.check(links.PLAYER, token, 2) == (5, 6)
    assert s.check(links.GAME, token, 2) is None
    assert s.check(links.PLAYER, token, 1) is None
    assert Signer("another secret").check(links.PLAYER, token, 2) is None
    assert s.check(links.PLAYER, token.replace("5.6", "5.7"), 2) is None
    assert links.page_url("https://x.org/", s, links.GAME, 3) == \
        "https://x.org" + s.path(links.GAME, 3)


def test_the_language_follows_accept_language() -> None:
    assert pick(None) == "en" and pick("") == "en" and pick("de-DE") == "en"
    assert pick("fr-FR,fr;q=0.9") == "fr"
    assert pick("en;q=0.5, pl;q=0.9") == "pl"
    assert pick("pl;q=0, fr") == "fr"
    assert pick("pl, fr") == "pl"


def test_the_rating_plot_rises_where_the_rating_rises() -> None:
    assert rating_plot([]) is None
    plot = rating_plot([1.0, 3.0, 2.0])
    assert plot is not None and plot.low == "1.0" and plot.high == "3.0"
    ys = [y for _x, y in plot.dots]
    assert ys[1] < ys[2] < ys[0]  # SVG y grows downwards
    single = rating_plot([4.2])
    assert single is not None and len(single.dots) == 1
    assert single.dots[0][1] == single.height / 2  # in the middle, not on the axis


async def test_an_unchanged_game_page_is_answered_304_and_a_move_changes_it(
        world: World) -> None:
    path = world.path(links.GAME, world.running.id)
    first = await world.client.get(path)
    tag = first.headers["ETag"]
    body = await first.text()
    assert first.status == 200 and tag.startswith('"')
    again = await world.client.get(path, headers={"If-None-Match": tag})
    assert again.status == 304 and await again.read() == b""
    assert again.headers["Content-Security-Policy"] == first.headers["Content-Security-Policy"]
    other = await world.client.get(path, headers={"If-None-Match": '"nope"'})
    assert other.status == 200 and await other.text() == body
    # Another step is another page.
    step = await world.client.get(path + "?step=0", headers={"If-None-Match": tag})
    assert step.status == 200 and step.headers["ETag"] != tag
    # A move: the browser's copy is stale, the page shows one step more.
    last = int(re.search(r'max="(\d+)"', body)[1])  # type: ignore[index]
    await play_out_some(world.m, world.running, random.Random(3), 4)
    moved = await world.client.get(path, headers={"If-None-Match": tag})
    assert moved.status == 200 and moved.headers["ETag"] != tag
    assert int(re.search(r'max="(\d+)"', await moved.text())[1]) > last  # type: ignore[index]


async def test_a_name_hidden_since_is_not_served_from_the_kept_page(world: World) -> None:
    path = world.path(links.GAME, world.running.id)
    first = await world.client.get(path)
    assert DAN.name in await first.text()
    await site.hide_name(world.m.kernel, DAN.id, True)
    hidden = await world.client.get(path, headers={"If-None-Match": first.headers["ETag"]})
    text = await hidden.text()
    assert hidden.status == 200 and DAN.name not in text and "Player 1" in text


async def test_pictures_are_drawn_in_another_process_once_for_a_burst(world: World) -> None:
    pictures = world.client.server.app[SITE_KEY].pictures
    path = world.path(links.GAME, world.finished.id) + "/9.png"
    burst = await asyncio.gather(*(world.client.get(path) for _ in range(4)))
    pngs = {await r.read() for r in burst}
    assert [r.status for r in burst] == [200] * 4 and len(pngs) == 1
    assert pictures.drawn == 1  # four asked at once, one drawn
    worker = await pictures.worker()
    assert worker != os.getpid()
    # It draws behind the bot's process: the lowest priority there is.
    assert os.getpriority(os.PRIO_PROCESS, worker) == 19


async def test_the_picture_worker_keeps_a_game_s_cards_drawn_between_its_steps(
        world: World) -> None:
    pictures = world.client.server.app[SITE_KEY].pictures
    path = world.path(links.GAME, world.finished.id)
    for step in (3, 4, 5):
        assert (await world.client.get(f"{path}/{step}.png")).status == 200
    assert pictures.drawn == 3
    # Three tables of one game, its three cards drawn once and kept for its other steps.
    assert await pictures.in_worker(render.table.cat_rows_kept) == 1


async def test_the_picture_worker_offers_its_cpu_while_drawing(world: World) -> None:
    pictures = world.client.server.app[SITE_KEY].pictures
    path = world.path(links.GAME, world.finished.id)
    for step in (3, 4, 5):
        assert (await world.client.get(f"{path}/{step}.png")).status == 200
    # Three tables, each several milliseconds of drawing: offered every half millisecond.
    assert await pictures.in_worker(giveway.yields_made) >= 3


async def test_the_picture_worker_pauses_its_drawing_while_the_machine_is_full(
        world: World) -> None:
    pictures = world.client.server.app[SITE_KEY].pictures
    path = world.path(links.GAME, world.finished.id)
    assert (await world.client.get(f"{path}/3.png")).status == 200  # the worker started
    assert await pictures.in_worker(giveway.deferring)
    before = await pictures.in_worker(giveway.pauses_made)
    with filled_machine():
        assert (await world.client.get(f"{path}/4.png")).status == 200  # late, not lost
    assert await pictures.in_worker(giveway.pauses_made) > before


async def test_every_request_offers_the_cpu_before_and_after_it(world: World) -> None:
    before = giveway.yields_made()
    assert (await world.client.get(world.path(links.GAME, world.finished.id))).status == 200
    assert (await world.client.get("/g/not-a-token")).status == 404
    assert giveway.yields_made() - before == 4


async def test_a_picture_worker_killed_is_replaced(world: World) -> None:
    pictures = world.client.server.app[SITE_KEY].pictures
    path = world.path(links.GAME, world.finished.id)
    assert (await world.client.get(path + "/3.png")).status == 200
    os.kill(await pictures.worker(), signal.SIGKILL)
    statuses = [(await world.client.get(f"{path}/{i}.png")).status for i in (4, 5, 6)]
    # The picture asked as the worker died may fail; the next ones are drawn again.
    assert statuses[-1] == 200 and set(statuses) <= {200, 500}
    assert (await world.client.get(path + "/3.png")).status == 200  # kept from before
