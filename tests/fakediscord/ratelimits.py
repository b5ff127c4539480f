"""Discord's rate limits, enforced the way Discord enforces them (issue 29).

Discord limits a bot's REST requests in three ways, and answers past each with
``429 Too Many Requests`` (JSON ``{"message", "retry_after", "global"}``, headers
``Retry-After``, ``X-RateLimit-Scope``, ``Via``):

- **per-route buckets**: each route (method and path template) with its *major parameter*
  (the channel, guild or webhook) has a bucket of ``limit`` requests per window, announced on
  every answer with ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset``, ``-Reset-After`` and
  ``-Bucket`` (the hash discord.py keys its buckets by). A bucket may be *shared* by every
  major parameter: the bot-wide thread budget below (``X-RateLimit-Scope: shared`` on its 429
  is Discord's for a limit shared beyond one bot's requests; this one is the bot's own, so
  ``user``);
- **the global limit**: 50 requests a second across all routes, interactions' callbacks and
  follow-ups excepted; a 429 with ``"global": true`` and ``X-RateLimit-Global``;
- **invalid requests**: 10,000 answers of 401, 403 or 429 (a ``shared`` 429 excepted) in ten
  minutes get the bot's IP banned at Discord's edge (Cloudflare): every request then gets a
  429 without ``Via`` and a text body (discord.py raises it as is), recorded as the violation
  ``invalid_request_ban``.

Discord publishes no per-route figure ("do not hard code"); the buckets here are the values
bots observe and the issue names: 5 messages per 5 s in one channel (edits and deletes their
own buckets of the same size), 50 history reads a second per channel, and about 50 thread
creations per 5 minutes for the whole bot (:data:`DEFAULT_RULES`). Windows run on the state's
clock, so ``advance_time`` ends them, and a test may shrink them (:class:`RateLimits`).

Off unless a test asks (``DiscordEnv(rate_limits=True)`` or the marker): the older end-to-end
tests post faster than one channel allows and would only get slower. Every 429 is recorded
(``state.rate_limited``) for the tests and benchmarks that count them.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from dataclasses import dataclass, field

from .state import JSON

GLOBAL_PER_SECOND = 50
INVALID_LIMIT = 10_000
INVALID_WINDOW = 600.0  # seconds
INVALID_STATUSES = (401, 403, 429)


@dataclass(frozen=True)
class Rule:
    """A route's bucket: ``limit`` requests per ``window`` seconds, per major parameter
    unless ``shared`` (one bucket for the whole bot)."""

    bucket: str  # the X-RateLimit-Bucket hash
    limit: int
    window: float
    shared: bool = False


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]  # over the path after /api/v10; group 1: the major parameter
    rule: Rule


def _route(method: str, template: str, rule: Rule) -> Route:
    regex = "^" + re.escape(template).replace(r"\{id\}", r"(\d+)").replace(
        r"\{other\}", r"[^/]+") + "$"
    return Route(method, re.compile(regex), rule)


MESSAGES = Rule("f3b5a1c0d2e4messages", 5, 5.0)
EDITS = Rule("0c1d2e3f4a5bmsgedits", 5, 5.0)
DELETES = Rule("9a8b7c6d5e4fmsgdeletes", 5, 5.0)
HISTORY = Rule("1234abcd5678history", 50, 1.0)
THREADS = Rule("7e7e7e7e7e7ethreads", 50, 300.0, shared=True)

DEFAULT_RULES: tuple[Route, ...] = (
    _route("POST", "/channels/{id}/messages", MESSAGES),
    _route("PATCH", "/channels/{id}/messages/{other}", EDITS),
    _route("DELETE", "/channels/{id}/messages/{other}", DELETES),
    _route("GET", "/channels/{id}/messages", HISTORY),
    _route("POST", "/channels/{id}/threads", THREADS),
    _route("POST", "/channels/{id}/messages/{other}/threads", THREADS),
)


def with_thread_budget(limit: int, window: float = THREADS.window,
                       routes: tuple[Route, ...] = DEFAULT_RULES) -> tuple[Route, ...]:
    """``routes`` with a thread budget of ``limit`` per ``window`` (a test's smaller one)."""
    budget = Rule(THREADS.bucket, limit, window, shared=True)
    return tuple(Route(r.method, r.pattern, budget) if r.rule.bucket == THREADS.bucket else r
                 for r in routes)


def exempt_from_global(path: str) -> bool:
    """Interactions' callbacks and follow-ups do not count toward the global limit."""
    return path.startswith(("/interactions/", "/webhooks/"))


@dataclass
class Window:
    """One bucket's current window: requests counted since ``start``."""

    start: float
    count: int = 0


@dataclass(frozen=True)
class RateLimitRecord:
    """One 429 the stand-in answered (``scope``: ``user``, ``global`` or ``shared``)."""

    at: float
    method: str
    path: str
    bucket: str
    scope: str
    retry_after: float


@dataclass
class Verdict:
    """What the limits say about one request: headers to add to its answer, or a 429."""

    headers: dict[str, str] = field(default_factory=dict)
    refusal: tuple[int, JSON | str, dict[str, str]] | None = None  # status, body, headers


@dataclass
class RateLimits:
    """The limits one fake Discord enforces (see the module docstring). ``scale`` multiplies
    every window (a benchmark may run Discord's five minutes in thirty seconds)."""

    routes: tuple[Route, ...] = DEFAULT_RULES
    global_per_second: int = GLOBAL_PER_SECOND
    invalid_limit: int = INVALID_LIMIT
    invalid_window: float = INVALID_WINDOW
    scale: float = 1.0
    windows: dict[tuple[str, str], Window] = field(default_factory=dict)
    global_window: Window = field(default_factory=lambda: Window(-math.inf))
    invalid: deque[float] = field(default_factory=deque)
    banned: bool = False
    records: list[RateLimitRecord] = field(default_factory=list)
    invalid_total: int = 0

    # -- before a request ---------------------------------------------------------------------
    def check(self, method: str, path: str, now: float) -> Verdict:
        """Count the request against its bucket and the global limit; a 429 when past one."""
        if self.banned:
            return Verdict(refusal=(429, "error code: 1015", {"Content-Type": "text/plain"}))
        verdict = Verdict()
        route = self._route(method, path)
        if route is not None:
            rule = route.rule
            major = "*" if rule.shared else (route.pattern.match(path) or ["", ""])[1]
            window = self._window((rule.bucket, major), rule.window * self.scale, now)
            reset_after = max(0.0, window.start + rule.window * self.scale - now)
            if window.count >= rule.limit:
                self._record(now, method, path, rule.bucket, "user", reset_after)
                verdict.refusal = self._too_many(reset_after, is_global=False, bucket=rule,
                                                 remaining=0)
                return verdict
            window.count += 1
            verdict.headers = self._headers(rule, rule.limit - window.count, reset_after)
        if not exempt_from_global(path):
            window = self.global_window
            if now - window.start >= 1.0:
                window.start, window.count = now, 0
            if window.count >= self.global_per_second:
                reset_after = max(0.001, window.start + 1.0 - now)
                self._record(now, method, path, "global", "global", reset_after)
                verdict.refusal = self._too_many(reset_after, is_global=True)
                return verdict
            window.count += 1
        return verdict

    # -- after a request ----------------------------------------------------------------------
    def answered(self, status: int, headers: dict[str, str], now: float) -> bool:
        """Count an invalid answer; True when this one got the bot banned."""
        if status not in INVALID_STATUSES or headers.get("X-RateLimit-Scope") == "shared":
            return False
        self.invalid_total += 1
        self.invalid.append(now)
        while self.invalid and now - self.invalid[0] > self.invalid_window * self.scale:
            self.invalid.popleft()
        if len(self.invalid) >= self.invalid_limit and not self.banned:
            self.banned = True
            return True
        return False

    def invalid_in_window(self, now: float) -> int:
        return sum(1 for t in self.invalid if now - t <= self.invalid_window * self.scale)

    # -- helpers ------------------------------------------------------------------------------
    def _route(self, method: str, path: str) -> Route | None:
        for route in self.routes:
            if route.method == method and route.pattern.match(path):
                return route
        return None

    def _window(self, key: tuple[str, str], length: float, now: float) -> Window:
        window = self.windows.get(key)
        if window is None or now - window.start >= length:
            window = self.windows[key] = Window(now)
        return window

    def _record(self, now: float, method: str, path: str, bucket: str, scope: str,
                retry_after: float) -> None:
        self.records.append(RateLimitRecord(now, method, path, bucket, scope, retry_after))

    @staticmethod
    def _headers(rule: Rule, remaining: int, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(rule.limit),
            "X-RateLimit-Remaining": str(max(0, remaining)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": rule.bucket,
        }

    def _too_many(self, retry_after: float, *, is_global: bool, bucket: Rule | None = None,
                  remaining: int = 0) -> tuple[int, JSON, dict[str, str]]:
        body: JSON = {"message": "You are being rate limited.",
                      "retry_after": round(retry_after, 3), "global": is_global}
        headers = {"Via": "1.1 google", "Retry-After": str(max(1, math.ceil(retry_after))),
                   "X-RateLimit-Scope": "global" if is_global else "user"}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        if bucket is not None:
            headers.update(self._headers(bucket, remaining, retry_after))
        return 429, body, headers
