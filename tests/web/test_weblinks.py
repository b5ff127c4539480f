"""The Link buttons' addresses (:mod:`bot.adapter.ui.weblinks`), without a client: only with
the site set up and the server's pages on; the standings post links to its tournament's page,
a player who hid their name gets no link to their own page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.adapter.ui import tournament as ui
from bot.adapter.ui import weblinks
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.site import service as site
from bot.core.tournament import records
from bot.web import links
from bot.words.catalogue import Text
from tests.core.conftest import GUILD, seeds
from tests.core.tournament.conftest import play_round, started

BASE = "https://calico.example.org/"
SECRET = "links-secret"


@pytest.fixture
def configured() -> Iterator[None]:
    weblinks.configure(BASE, SECRET)
    try:
        yield
    finally:
        weblinks.configure("", "")


def link_urls(out: object) -> list[str]:
    view = out.view  # type: ignore[attr-defined]
    return [] if view is None else [c.url for c in view.children if getattr(c, "url", None)]


async def test_the_standings_post_links_to_the_tournament_page(
        tmp_path: Path, configured: None) -> None:
    clock = FakeClock()
    m = await Manager.open(tmp_path / "calico.db", clock=clock, seed_source=seeds())
    try:
        t = await started(m, clock, 4, rounds=2)
        await play_round(m, t.id, 1, random.Random(1))
        await m.sweep()
        t = await records.get(m.kernel, t.id)
        tr = Text("en")
        assert link_urls(await ui.standings_message(tr, m.kernel, t, 1)) == []  # site off
        await site.set_enabled(m.kernel, GUILD, True)
        out = await ui.standings_message(tr, m.kernel, t, 1)
        signer = links.Signer(SECRET)
        assert link_urls(out) == ["https://calico.example.org" +
                                  signer.path(links.TOURNAMENT, t.id)]
        assert out.view is not None and out.view.children[-1].label == tr("web.link")
    finally:
        await m.close()


async def test_no_link_without_the_site_or_for_a_hidden_player(
        tmp_path: Path, configured: None) -> None:
    m = await Manager.open(tmp_path / "calico.db", clock=FakeClock(), seed_source=seeds())
    try:
        k = m.kernel
        assert await weblinks.page_url(k, GUILD, links.GAME, 5) is None  # server: off
        await site.set_enabled(k, GUILD, True)
        assert await weblinks.page_url(k, GUILD, links.GAME, 5) is not None
        assert await weblinks.page_url(k, None, links.GAME, 5) is None  # outside a server
        assert await weblinks.page_url(k, GUILD, links.PLAYER, GUILD, 77) is not None
        await site.hide_name(k, 77, True)
        assert await weblinks.page_url(k, GUILD, links.PLAYER, GUILD, 77) is None
        weblinks.configure("", SECRET)  # no base URL: nowhere to link to
        assert await weblinks.page_url(k, GUILD, links.GAME, 5) is None
    finally:
        await m.close()
