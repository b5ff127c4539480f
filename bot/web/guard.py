"""What every answer of the site carries and what keeps it cheap: security headers (a content
security policy with no inline script, no framing, no sniffing, no referrer), a per-address rate
limit (429 with ``Retry-After``), and errors as short pages (a 404 says nothing of why: a bad
signature, an unknown id and a server without the site look the same). Each request offers the
CPU to the bot before and after it (:mod:`bot.web.giveway`)."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from bot.web.giveway import give_way

log = logging.getLogger("calico.web")

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "interest-cohort=()",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class RateLimit:
    """A token bucket per address: ``per_minute`` requests a minute, in bursts up to that many.
    Per process (behind several processes each keeps its own: a bound, not an exact count)."""

    def __init__(self, per_minute: int, *, size: int = 65536,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(per_minute)
        self.size = size
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str) -> float:
        """0 when admitted, else the seconds until the next request would be."""
        now = self.clock()
        tokens, at = self._buckets.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self._buckets[address] = (tokens, now)
        self._buckets.move_to_end(address)
        while len(self._buckets) > self.size:
            self._buckets.popitem(last=False)
        return wait


def address_of(request: web.Request, trust_proxy: bool) -> str:
    if trust_proxy:
        hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",")]
        if hops and hops[-1]:
            return hops[-1]
    return request.remote or "?"


def middleware(limit: RateLimit, trust_proxy: bool,
               error_page: Callable[[web.Request, int], web.Response]) -> Middleware:
    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        give_way()  # a page is a few milliseconds of CPU: a click woken meanwhile goes first
        wait = limit.take(address_of(request, trust_proxy))
        if wait > 0:
            response: web.StreamResponse = error_page(request, 429)
            response.headers["Retry-After"] = str(max(1, round(wait)))
        else:
            try:
                response = await handler(request)
            except web.HTTPNotFound:
                response = error_page(request, 404)
            except web.HTTPMethodNotAllowed:
                response = error_page(request, 405)
            except web.HTTPException:
                raise
            except Exception:
                log.exception("web page failed: %s", request.path)
                response = error_page(request, 500)
        response.headers.update(HEADERS)
        give_way()  # and again before the answer is written out
        return response

    return guard
