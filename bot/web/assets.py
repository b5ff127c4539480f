"""The site's stylesheet and script (``/static/``): their addresses carry a digest of their
bytes, so a browser keeps them for a year and asks again only when the file changed (a new
file, a new address).

Why: every page links both. Without a lasting cache a browser may ask for them again with each
page, and on a small machine each request costs about as much as a short page does, whatever
it asks for (docs/performance.md, "What the clicks pay for"). An address without the digest,
or with an old one, is still answered (a page kept from before a new release), but never
pinned: ``no-cache``, so the browser checks it each time.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from aiohttp import web

PREFIX = "/static/"
FOREVER = "public, max-age=31536000, immutable"
DIGEST_CHARS = 12


def digests(folder: Path) -> dict[str, str]:
    """Each file's name in ``folder`` and the first :data:`DIGEST_CHARS` hex digits of the
    SHA-256 of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:DIGEST_CHARS]
            for p in sorted(folder.iterdir()) if p.is_file()}


class Assets:
    """The digests of one folder's files, read once (the site starts with the files it serves)."""

    def __init__(self, folder: Path) -> None:
        self.digest = digests(folder)

    def url(self, name: str) -> str:
        """The address of ``name`` for a page to link (KeyError for a file not there: a typo
        in a template fails its first render, in the tests)."""
        return f"{PREFIX}{name}?v={self.digest[name]}"

    def cache_control(self, path: str, version: str | None) -> str:
        """What a browser may do with the answer for ``path`` asked with ``?v=version``."""
        name = path.removeprefix(PREFIX)
        current = self.digest.get(name)
        return FOREVER if current is not None and version == current else "no-cache"

    async def on_prepare(self, request: web.Request, response: web.StreamResponse) -> None:
        """``on_response_prepare``: the caching of every answer under ``/static/``."""
        if request.path.startswith(PREFIX):
            response.headers["Cache-Control"] = self.cache_control(
                request.path, request.query.get("v"))
