"""Signed, unguessable identifiers for the site's addresses: ``<id>-<signature>``, the
signature an HMAC-SHA256 of the kind and the id under ``CALICO_WEB_SECRET`` (128 bits, in
hex). Knowing game 41's address tells nothing of game 42's: nobody can count up through
game numbers. Plain values only: the adapter imports it for its Link buttons."""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

GAME: Final = "g"
TOURNAMENT: Final = "t"
SERVER: Final = "s"
PLAYER: Final = "p"
_SIG_BYTES = 16


class Signer:
    """Signs and checks identifiers with one secret (never logged, never in a page)."""

    __slots__ = ("_key",)

    def __init__(self, secret: str) -> None:
        if not secret:
            raise ValueError("the site needs a signing secret (CALICO_WEB_SECRET)")
        self._key = secret.encode("utf-8")

    def _sig(self, kind: str, ident: str) -> str:
        mac = hmac.new(self._key, f"{kind}:{ident}".encode(), hashlib.sha256).digest()
        return mac[:_SIG_BYTES].hex()

    def sign(self, kind: str, *ids: int) -> str:
        """``"41-<sig>"`` (several ids joined with dots: a player is ``guild.user``)."""
        ident = ".".join(str(int(i)) for i in ids)
        return f"{ident}-{self._sig(kind, ident)}"

    def check(self, kind: str, token: str, count: int = 1) -> tuple[int, ...] | None:
        """The ids of a token this secret signed for ``kind``, else None."""
        ident, dash, sig = token.partition("-")
        parts = ident.split(".")
        if not dash or len(parts) != count or not all(p.isdigit() and len(p) < 21
                                                      for p in parts):
            return None
        if not hmac.compare_digest(sig, self._sig(kind, ident)):
            return None
        return tuple(int(p) for p in parts)

    def path(self, kind: str, *ids: int) -> str:
        return f"/{kind}/{self.sign(kind, *ids)}"


def page_url(base_url: str, signer: Signer, kind: str, *ids: int) -> str:
    """The full address of a page (``base_url`` without its trailing slash)."""
    return base_url.rstrip("/") + signer.path(kind, *ids)


__all__ = ["GAME", "PLAYER", "SERVER", "TOURNAMENT", "Signer", "page_url"]
