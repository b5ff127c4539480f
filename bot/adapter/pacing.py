"""Paced to Discord's rate limits (issue 29): what this process may ask of Discord now.

Discord answers every limited request with its bucket's state (``X-RateLimit-Remaining``,
``-Reset-After``, ``-Limit``), and past a limit with 429 and ``retry_after``. discord.py obeys
them by *waiting*, inside the request: with its bucket's lock held, and even after the request
that spent a bucket's last token (it sleeps out the window before returning). A post waiting so
held one of the outbox's slots: thirty starts with the thread budget spent held all of them for
the budget's whole window, and no game heard anything meanwhile.

So the outbox asks first. :class:`Pacer` reads every answer's headers (an aiohttp trace on
discord.py's session: nothing in the request path changes) and knows, per route and channel,
when a request would have to wait; the delivery then raises
:class:`~bot.core.outbox.Later` instead of waiting: the lane comes back when the bucket does,
and its slot serves other channels meanwhile. The rules:

- *Messages in one channel* (about 5 per 5 s), edits, history reads: a request is put off while
  its bucket is down to its last token (:data:`RESERVE`): that token is never spent, because
  discord.py would sleep out the rest of the window inside the request that spent it;
- *Threads*: Discord gives a bot about 50 thread creations per 5 minutes across all servers
  (the same bucket in every channel). They are made one at a time (:attr:`Pacer.thread_lock`)
  and put off while the budget is down to its reserve; each game put off is remembered in
  order, so the person who started it is told when their table should open
  (:meth:`Pacer.thread_eta`);
- *The global limit* (50 requests a second for the whole bot, interactions excepted): each
  request waits for its turn at ``global_per_second`` (a few milliseconds under load), and a
  global 429 puts everything off until it ends;
- *Invalid requests* (401, 403 and 429 answers: 10,000 in 10 minutes get the bot's address
  banned at Discord's edge) are counted over ten minutes (:meth:`Pacer.invalid_recent`, and the
  metrics).

The bot also sets discord.py's ``max_ratelimit_timeout`` (30 s, the least it allows): a wait
longer than that raises instead of sleeping, and the delivery turns it into a ``Later``. But
discord.py (2.7) also refuses a request *ahead*, without sending it, whenever its bucket's
window ends more than that far away, tokens left or not: with the thread budget's five-minute
window, every thread but the first of a window was refused until 30 s before its end (100
starts: one table opened at once, and the rest 270 s later than their players were told).
:func:`refuse_ahead_only_what_would_wait` narrows that refusal to a request that would wait.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Final

import aiohttp
import discord.http

THREAD_WINDOW: Final = 300.0  # Discord's thread budget's window, as observed (until heard)
THREAD_BUDGET: Final = 50  # ...and its size, until an answer says otherwise
RESERVE: Final = 1  # a bucket's last token is not spent (see the module docstring)
SHORT: Final = 1.0  # a wait up to this long is waited where it is (cheaper than a claim)
INVALID_WINDOW: Final = 600.0
INVALID: Final = frozenset({401, 403, 429})
GLOBAL_PER_SECOND: Final = 45.0  # Discord's 50, less a margin

_ID = re.compile(r"^\d+$")
_MAJOR = ("channels", "guilds")


@dataclass
class Bucket:
    """A route's bucket as Discord's last answer described it."""

    remaining: int
    limit: int
    reset_at: float  # on the pacer's clock


def route_of(method: str, path: str) -> tuple[str, str, str] | None:
    """(method, path template, major parameter) of an API path, e.g.
    ``("POST", "/channels/{id}/messages", "123")``; None outside the API."""
    _, found, rest = path.partition("/api/v")
    if not found:
        return None
    parts = rest.split("/")[1:]  # the version dropped
    if len(parts) >= 3 and parts[0] in ("webhooks", "interactions"):
        # /webhooks/{application}/{token}/..., /interactions/{id}/{token}/callback
        tail = ["{id}" if _ID.match(p) else p for p in parts[3:]]
        return method.upper(), "/" + "/".join([parts[0], "{id}", "{token}", *tail]), parts[1]
    major = ""
    template: list[str] = []
    for i, part in enumerate(parts):
        if _ID.match(part):
            if not major and i > 0 and parts[i - 1] in _MAJOR:
                major = part
            template.append("{id}")
        else:
            template.append(part)
    return method.upper(), "/" + "/".join(template), major


def exempt(template: str) -> bool:
    """Interactions' callbacks and follow-ups: not under the global limit."""
    return template.startswith(("/interactions/", "/webhooks/"))


MESSAGES: Final = ("POST", "/channels/{id}/messages")
EDITS: Final = ("PATCH", "/channels/{id}/messages/{id}")
HISTORY: Final = ("GET", "/channels/{id}/messages")


class Pacer:
    """Discord's rate limits as this process last heard them (see the module docstring)."""

    def __init__(self, *, global_per_second: float = GLOBAL_PER_SECOND,
                 clock: Callable[[], float] = time.monotonic,
                 on_rate_limited: Callable[[str], object] | None = None,
                 on_invalid: Callable[[int], object] | None = None) -> None:
        self.clock = clock
        self.global_per_second = global_per_second
        self.buckets: dict[tuple[str, str, str], Bucket] = {}
        self.threads: Bucket | None = None  # the bot-wide thread budget
        self.thread_window = THREAD_WINDOW  # its window, as its answers show it
        self.global_until = 0.0
        self._next_slot = 0.0
        self.thread_lock = asyncio.Lock()
        self.waiting_threads: OrderedDict[int, float] = OrderedDict()  # game -> put off since
        self._opened: OrderedDict[int, None] = OrderedDict()  # games whose thread is open
        self.invalid: deque[float] = deque()
        self.counts: Counter[str] = Counter()  # answers by status; 429s by scope; put off
        self.on_rate_limited = on_rate_limited
        self.on_invalid = on_invalid

    # ------------------------------------------------------------------ reading the answers

    def trace(self) -> aiohttp.TraceConfig:
        """The aiohttp trace discord.py's session takes (``http_trace``)."""
        config = aiohttp.TraceConfig()
        config.on_request_start.append(self._on_start)
        config.on_request_end.append(self._on_end)
        return config

    async def _on_start(self, _session: aiohttp.ClientSession, _ctx: SimpleNamespace,
                        params: aiohttp.TraceRequestStartParams) -> None:
        route = route_of(params.method, params.url.path)
        if route is None or exempt(route[1]):
            return
        now = self.clock()
        slot = max(now, self._next_slot, self.global_until)
        self._next_slot = slot + 1.0 / self.global_per_second
        if slot > now:
            await asyncio.sleep(slot - now)

    async def _on_end(self, _session: aiohttp.ClientSession, _ctx: SimpleNamespace,
                      params: aiohttp.TraceRequestEndParams) -> None:
        route = route_of(params.method, params.url.path)
        if route is not None:
            self.heard(route, params.response.status, params.response.headers)

    def heard(self, route: tuple[str, str, str], status: int,
              headers: Mapping[str, str]) -> None:
        """Learn from one answer of ``route``."""
        get = headers.get
        now = self.clock()
        self.counts[str(status)] += 1
        scope = str(get("X-RateLimit-Scope") or "")
        if status in INVALID and scope != "shared":
            self.invalid.append(now)
            self._forget_old_invalid(now)
            if self.on_invalid is not None:
                self.on_invalid(status)
        reset_after = _number(get("X-RateLimit-Reset-After"))
        if status == 429:
            wait = reset_after if reset_after is not None else _number(get("Retry-After")) or 1.0
            scope = scope or ("global" if get("X-RateLimit-Global") else "user")
            self.counts[f"429:{scope}"] += 1
            if self.on_rate_limited is not None:
                self.on_rate_limited(scope)
            if scope == "global":
                self.global_until = max(self.global_until, now + wait)
                return
            bucket = self.buckets.get(route)
            limit = bucket.limit if bucket is not None else 1
            self._set(route, Bucket(0, limit, now + wait))
            return
        remaining = _number(get("X-RateLimit-Remaining"))
        if remaining is None or reset_after is None:
            return
        limit = int(_number(get("X-RateLimit-Limit")) or 1)
        self._set(route, Bucket(int(remaining), limit, now + reset_after))

    def _set(self, route: tuple[str, str, str], bucket: Bucket) -> None:
        self.buckets[route] = bucket
        if route[0] == "POST" and route[1].endswith("/threads"):
            if bucket.remaining == bucket.limit - 1 > 0:
                # The first of a window: its reset says how long Discord's window is.
                self.thread_window = max(1.0, bucket.reset_at - self.clock())
            self.threads = bucket

    # ------------------------------------------------------------------ asking first

    def wait(self, route: tuple[str, str, str]) -> float:
        """Seconds until a request of ``route`` goes without waiting inside discord.py (0:
        now)."""
        now = self.clock()
        waits = [self.global_until - now]
        bucket = self.buckets.get(route)
        if bucket is not None and bucket.remaining <= RESERVE:
            waits.append(bucket.reset_at - now)
        return max(0.0, *waits)

    def channel_wait(self, channel_id: int, kind: tuple[str, str] = MESSAGES) -> float:
        """Seconds before a post (or, with ``kind``, an edit, a read) in this channel."""
        return self.wait((*kind, str(channel_id)))

    def thread_wait(self) -> float:
        """Seconds before the bot may open one more thread (the bot-wide budget)."""
        now = self.clock()
        budget = self.threads
        waits = [self.global_until - now]
        if budget is not None and budget.remaining <= RESERVE:
            waits.append(budget.reset_at - now)
        return max(0.0, *waits)

    def thread_put_off(self, game_id: int) -> None:
        """A game's thread waits for the budget (kept in order, for :meth:`thread_eta`; one
        opened already is not put back in line)."""
        if game_id not in self._opened:
            self.waiting_threads.setdefault(game_id, self.clock())

    def thread_opened(self, game_id: int) -> None:
        self.waiting_threads.pop(game_id, None)
        self._opened[game_id] = None
        while len(self._opened) > 10_000:
            self._opened.popitem(last=False)

    def thread_eta(self, game_id: int | None = None) -> float:
        """About how many seconds until ``game_id``'s thread opens (or a new one's): the
        budget's reset, plus a window for each full budget of games waiting before it."""
        ahead = list(self.waiting_threads)
        place = ahead.index(game_id) if game_id in ahead else len(ahead)
        wait = self.thread_wait()
        budget = self.threads
        usable = max(1, (budget.limit if budget is not None else THREAD_BUDGET) - RESERVE)
        if wait <= 0:
            # Tokens left now: the first of those waiting go at once. Past the budget's reset
            # (what was last heard is stale), a whole budget is there, and its window starts
            # with the next thread.
            now = self.clock()
            if budget is None or budget.reset_at <= now:
                left, wait = usable, self.thread_window
            else:
                left, wait = max(0, budget.remaining - RESERVE), budget.reset_at - now
            if place < left:
                return 0.0
            place -= left
        return wait + (place // usable) * self.thread_window

    def thread_later(self, game_id: int) -> float:
        """When a put-off game should be tried again: its turn (:meth:`thread_eta`), a
        millisecond per place in line after the others of its window, so that the outbox's
        claims (longest-waiting first) open them in the order they were asked for."""
        self.thread_put_off(game_id)
        place = list(self.waiting_threads).index(game_id)
        return max(SHORT, self.thread_eta(game_id)) + place / 1000

    # ------------------------------------------------------------------ invalid requests

    def _forget_old_invalid(self, now: float) -> None:
        while self.invalid and now - self.invalid[0] > INVALID_WINDOW:
            self.invalid.popleft()

    def invalid_recent(self) -> int:
        """401, 403 and 429 answers in the last ten minutes (Discord bans past 10,000)."""
        self._forget_old_invalid(self.clock())
        return len(self.invalid)


class _Ratelimit(discord.http.Ratelimit):
    """discord.py's bucket, refusing a request ahead (``RateLimited``, nothing sent) only when it
    would have to wait: no token left, the window's end past ``max_ratelimit_timeout``."""

    __slots__ = ()

    async def acquire(self) -> None:
        if self.remaining <= 0 or self.is_expired():
            await super().acquire()  # a wait (or a window over): discord.py's own rules
            return
        # A token is there: taken now (no await below with one left), whenever the window ends.
        expires, self.expires = self.expires, None
        try:
            await super().acquire()
        finally:
            self.expires = expires


def refuse_ahead_only_what_would_wait() -> None:
    """Install :class:`_Ratelimit` as discord.py's bucket (see the module docstring); every
    client of the process uses it from then on."""
    discord.http.Ratelimit = _Ratelimit  # type: ignore[misc]


def _number(value: object) -> float | None:
    try:
        return float(str(value)) if value is not None else None
    except ValueError:
        return None
