"""The stylesheet and script under lasting addresses: a page links them with a digest of their
bytes, a browser may keep that answer for a year, and any other address of them is answered
but never pinned."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from bot.web import links
from bot.web.assets import FOREVER, Assets, digests
from tests.web.conftest import GUILD, World

STATIC = Path(__file__).resolve().parents[2] / "bot" / "web" / "static"


def test_a_files_digest_follows_its_bytes(tmp_path: Path) -> None:
    (tmp_path / "a.css").write_bytes(b"body { color: black }")
    (tmp_path / "b.js").write_bytes(b"")
    first = digests(tmp_path)
    assert set(first) == {"a.css", "b.js"}
    assert first["a.css"] == hashlib.sha256(b"body { color: black }").hexdigest()[:12]
    (tmp_path / "a.css").write_bytes(b"body { color: navy }")
    second = digests(tmp_path)
    assert second["a.css"] != first["a.css"] and second["b.js"] == first["b.js"]


def test_only_the_current_digest_is_kept_forever(tmp_path: Path) -> None:
    (tmp_path / "a.css").write_bytes(b"x")
    assets = Assets(tmp_path)
    v = assets.digest["a.css"]
    assert assets.url("a.css") == f"/static/a.css?v={v}"
    assert assets.cache_control("/static/a.css", v) == FOREVER
    assert assets.cache_control("/static/a.css", None) == "no-cache"
    assert assets.cache_control("/static/a.css", "0" * 12) == "no-cache"  # an old release's
    assert assets.cache_control("/static/gone.css", v) == "no-cache"


async def test_pages_link_the_files_at_addresses_a_browser_keeps(world: World) -> None:
    body = await (await world.client.get(
        world.path(links.GAME, world.finished.id) + "?step=3")).text()
    found = dict(re.findall(r'(?:href|src)="/static/([a-z]+\.[a-z]+)\?v=([0-9a-f]{12})"', body))
    assert found == {name: digests(STATIC)[name] for name in ("site.css", "stepper.js")}
    for name, v in found.items():
        resp = await world.client.get(f"/static/{name}?v={v}")
        assert resp.status == 200 and resp.headers["Cache-Control"] == FOREVER, name
        assert await resp.read() == (STATIC / name).read_bytes(), name
        # Still guarded like every answer.
        assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"], name


async def test_an_address_without_the_current_digest_is_answered_and_checked_again(
        world: World) -> None:
    for query in ("", "?v=000000000000"):
        resp = await world.client.get("/static/site.css" + query)
        assert resp.status == 200 and resp.headers["Cache-Control"] == "no-cache", query
    # The pages themselves are never kept without asking.
    page = await world.client.get(world.path(links.SERVER, GUILD))
    assert page.headers["Cache-Control"] == "no-cache"
