"""The site in a real browser: Debian's headless Chromium (installed by ``.ci/run``), driven
with Playwright, against the bot playing through the stand-in for Discord and serving its own
pages. Checks what a visitor sees (a finished four-player game stepped through with the
keyboard to its score sheet, 150 entrants listed, a rating plotted, a script name as text, a
404 for a server without the site, the challenge hidden until its week closes, no hand in a
running game), then screenshots of each page type at a phone's and a laptop's size, compared
with the goldens in ``tests/web/goldens/`` (tolerantly: fonts render a little differently from
one machine to another). ``CALICO_UPDATE_GOLDENS=1`` writes them again."""

from __future__ import annotations

import io
import os
import random
import shutil
import tempfile
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from bot.core import lobby, queries
from bot.core.challenge import play as challenge
from bot.core.clock import to_ms
from bot.core.models import LobbyOptions, UserRef
from bot.core.tournament import model as tour
from bot.core.tournament import signup
from bot.web import links
from bot.web.pictures import labels
from bot.words.catalogue import Text
from engine.views import public_view
from render import render_table
from tests.adapter.harness import settle
from tests.core.conftest import opts, play_out
from tests.fakediscord import DiscordEnv
from tests.web.bots import SCRIPT, SECRET, Served, admin, four_player_game, started

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--font-render-hinting=none"]
GOLDENS = Path(__file__).parent / "goldens"
SIZES = {"phone": (390, 844), "laptop": (1280, 800)}
MEAN_DIFF = 6.0  # mean absolute difference per channel (0-255) a golden tolerates (fonts)
SIGNER = links.Signer(SECRET)
DECODED = ("Promise.all(Array.from(document.querySelectorAll('img:not([loading=lazy])'))"
           ".map(i => i.decode())).then(() => { const h = document.getElementById("
           "'table-heading'); if (h && location.search.includes('step=')) h.scrollIntoView(); })")

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists() and shutil.which("chromium") is None,
                       reason="Debian's chromium is not installed (.ci/run installs it)"),
    pytest.mark.timeout(300),
]


@pytest.fixture
async def browser() -> AsyncIterator[object]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        found = await p.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists()
                                        else shutil.which("chromium"), args=ARGS)
        try:
            yield found
        finally:
            await found.close()


async def tournament_of_150(served: Served) -> int:
    env, k = served.env, served.bot.manager.kernel
    now = to_ms(served.clock.now())
    spec = tour.Spec("Autumn Open", tour.SWISS, 3, 2, opts(setup="beginner"),
                     now + 86_400_000, now + 2 * 86_400_000, 24.0)
    t = await signup.create(k, UserRef(env.user("owner").id, "owner"), env.guild.id,
                            env.channel.id, spec)
    for i in range(150):
        await signup.join(k, t.id, UserRef(900_000 + i, f"Entrant {i + 1:03d}"))
    return t.id


async def world(served: Served) -> dict[str, object]:
    """The site on, a finished four-player game, a running one, a 150-entrant tournament."""
    env = served.env
    await admin(env, web_pages="on")
    finished = await four_player_game(served, seed=21)
    await four_player_game(served, seed=23)  # a second rated game: a line on the plot
    running = await four_player_game(served, finish=False, seed=22)
    tid = await tournament_of_150(served)
    return {"finished": finished, "running": running, "tournament": tid}


async def test_a_visitor_in_a_real_browser(discord_env: DiscordEnv, tmp_path: Path,
                                           browser: object) -> None:
    async with started(discord_env, tmp_path) as served:
        made = await world(served)
        await visit(served, made, browser)


async def visit(served: Served, made: dict[str, object], browser: object) -> None:
    env, k = served.env, served.bot.manager.kernel
    finished, running = made["finished"], made["running"]
    context = await browser.new_context(viewport={"width": 390, "height": 844},  # type: ignore[attr-defined]
                                        locale="en-US")
    page = await context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    url = served.url

    # A finished four-player game, stepped through with the keyboard.
    game = url + SIGNER.path(links.GAME, finished.id)  # type: ignore[attr-defined]
    await page.goto(game + "?step=0")
    assert await page.inner_text(".where") == "Move 0 of 88"
    for expected in ("Move 1 of 88", "Move 2 of 88"):
        async with page.expect_navigation(wait_until="domcontentloaded"):
            await page.keyboard.press("ArrowRight")
        assert await page.inner_text(".where") == expected
    async with page.expect_navigation(wait_until="domcontentloaded"):
        await page.keyboard.press("ArrowLeft")
    assert await page.inner_text(".where") == "Move 1 of 88"
    assert await page.locator(".move").count() >= 1  # the move's text beside the table
    # The slider from the keyboard: End moves it to the last move, which shows at once.
    await page.focus("#step")
    async with page.expect_navigation(wait_until="domcontentloaded"):
        await page.keyboard.press("End")
    assert await page.inner_text(".where") == "Move 88 of 88"
    assert await page.get_attribute("#next", "aria-disabled") == "true"
    await page.wait_for_load_state("load")
    sheet = page.locator("img.sheet")
    await sheet.scroll_into_view_if_needed()
    await page.wait_for_function("document.querySelector('img.sheet').naturalWidth > 0")
    assert await page.locator("table.scores tbody tr").count() == 4
    assert await page.locator("h2#scores").inner_text() == "Final scores"
    # The script-like name is text on the page, never run.
    assert await page.get_by_text(SCRIPT, exact=True).count() >= 1
    assert dialogs == []

    # The tournament lists all 150 entrants.
    await page.goto(url + SIGNER.path(links.TOURNAMENT, made["tournament"]))  # type: ignore[arg-type]
    assert await page.locator("table.standings tbody tr").count() == 150
    assert await page.get_by_text("Entrant 150", exact=True).count() == 1

    # A player page plots the rating.
    alice = env.user("alice").id
    await page.goto(url + SIGNER.path(links.PLAYER, env.guild.id, alice))
    plot = page.locator("svg.plot polyline")
    box = await plot.bounding_box()
    assert box is not None and box["width"] > 0
    assert await page.locator("svg.plot circle").count() == 2  # two rated games

    # A server that has not turned the site on: 404.
    other = env.add_guild("Elsewhere")
    elsewhere = await lobby.create_game(k, UserRef(alice, "alice"), other.id, other.id + 1,
                                        LobbyOptions(players=2, setup="beginner",
                                                     ai_level="easy"), computers=["easy"],
                                        start=True)
    for path in (SIGNER.path(links.GAME, elsewhere.id), SIGNER.path(links.SERVER, other.id)):
        response = await page.goto(url + path)
        assert response is not None and response.status == 404
        assert await page.inner_text("h1") == "Page not found"

    # The week's challenge: hidden until the week closes.
    weekly = await challenge.start(k, UserRef(alice, "alice"), env.guild.id, env.channel.id)
    weekly = await play_out(served.bot.manager, weekly, random.Random(9))
    assert weekly.status.value == "over"
    response = await page.goto(url + SIGNER.path(links.GAME, weekly.id))
    assert response is not None and response.status == 404
    await page.goto(url + SIGNER.path(links.SERVER, env.guild.id))
    assert await page.locator(f'a[href="{SIGNER.path(links.GAME, weekly.id)}"]').count() == 0
    week = await challenge.this_week(k)
    served.clock.advance(timedelta(milliseconds=week.ends_at - to_ms(served.clock.now()) + 1))
    await served.bot.manager.sweep()
    response = await page.goto(url + SIGNER.path(links.GAME, weekly.id))
    assert response is not None and response.status == 200
    await page.goto(url + SIGNER.path(links.SERVER, env.guild.id))
    assert await page.locator(f'a[href="{SIGNER.path(links.GAME, weekly.id)}"]').count() == 1

    # A game in progress: the thread's table, never a hand.
    now = await queries.game(k, running.id)  # type: ignore[attr-defined]
    assert now.status.value == "play" and now.state is not None
    await page.goto(url + SIGNER.path(links.GAME, now.id))
    assert await page.locator("img").count() == 1  # the table; no score sheet, no hand
    src = await page.get_attribute("#table", "src")
    assert src is not None
    shown = await (await page.request.get(url + src)).body()
    thread = render_table(public_view(now.state), [s.name for s in now.seats],
                          labels=labels(Text("en")))
    assert shown == thread
    assert "still being played" in await page.inner_text("main")
    await settle(env)
    await context.close()


def compare(name: str, png: bytes) -> None:
    """The screenshot against its golden: the same size, and close on average."""
    GOLDENS.mkdir(exist_ok=True)
    golden = GOLDENS / name
    if os.environ.get("CALICO_UPDATE_GOLDENS") == "1" or not golden.exists():
        golden.write_bytes(png)
        if os.environ.get("CALICO_UPDATE_GOLDENS") != "1":
            pytest.fail(f"{name}: no golden yet; written, look at it and commit it")
        return
    shot = Image.open(io.BytesIO(png)).convert("RGB")
    want = Image.open(golden).convert("RGB")
    assert shot.size == want.size, name
    diff = ImageStat.Stat(ImageChops.difference(shot, want)).mean
    if max(diff) >= MEAN_DIFF:
        seen = Path(tempfile.gettempdir()) / f"seen-{name}"
        seen.write_bytes(png)
        pytest.fail(f"{name} differs from its golden by {max(diff):.1f} on average; "
                    f"what the browser showed: {seen}")


async def test_each_page_type_looks_as_its_golden(discord_env: DiscordEnv, tmp_path: Path,
                                                  browser: object) -> None:
    async with started(discord_env, tmp_path) as served:
        made = await world(served)
        env = served.env
        finished = made["finished"]
        pages = {
            "game": SIGNER.path(links.GAME, finished.id) + "?step=40",  # type: ignore[attr-defined]
            "tournament": SIGNER.path(links.TOURNAMENT, made["tournament"]),  # type: ignore[arg-type]
            "player": SIGNER.path(links.PLAYER, env.guild.id, env.user("alice").id),
            "server": SIGNER.path(links.SERVER, env.guild.id),
        }
        for size, (width, height) in SIZES.items():
            context = await browser.new_context(  # type: ignore[attr-defined]
                viewport={"width": width, "height": height}, locale="en-US")
            page = await context.new_page()
            for kind, path in pages.items():
                await page.goto(served.url + path, wait_until="load")
                # Every picture in view decoded before the shot (under load a large PNG may
                # still be decoding at "load"); the lazy score sheet below is not in view.
                await page.evaluate(DECODED)
                png = await page.screenshot(animations="disabled", caret="hide")
                compare(f"{kind}-{size}.png", png)
            await context.close()
        await settle(env)
