"""What the pacer learns from Discord's answers (issue 29) and what it then says about the next
request: per route and channel, the bot-wide thread budget, the global limit, the invalid
requests of the last ten minutes. On a clock the test moves; no Discord needed."""

from __future__ import annotations

import asyncio

import pytest

from bot.adapter import pacing
from bot.adapter.pacing import MESSAGES, Pacer, route_of


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def headers(remaining: int, reset_after: float, limit: int = 5) -> dict[str, str]:
    return {"X-RateLimit-Remaining": str(remaining), "X-RateLimit-Reset-After": str(reset_after),
            "X-RateLimit-Limit": str(limit), "X-RateLimit-Bucket": "abc"}


@pytest.mark.parametrize(("method", "path", "route"), [
    ("post", "/api/v10/channels/123/messages", ("POST", "/channels/{id}/messages", "123")),
    ("PATCH", "/api/v10/channels/123/messages/456",
     ("PATCH", "/channels/{id}/messages/{id}", "123")),
    ("POST", "/api/v10/channels/9/threads", ("POST", "/channels/{id}/threads", "9")),
    ("GET", "/api/v10/guilds/77/threads/active", ("GET", "/guilds/{id}/threads/active", "77")),
    ("POST", "/api/v10/users/@me/channels", ("POST", "/users/@me/channels", "")),
    ("POST", "/api/v10/interactions/5/tok-en/callback",
     ("POST", "/interactions/{id}/{token}/callback", "5")),
    ("PATCH", "/api/v10/webhooks/1/tok/messages/@original",
     ("PATCH", "/webhooks/{id}/{token}/messages/@original", "1")),
])
def test_routes_are_read_as_discord_keys_its_buckets(method: str, path: str,
                                                     route: tuple[str, str, str]) -> None:
    assert route_of(method, path) == route


def test_a_path_outside_the_api_is_no_route() -> None:
    assert route_of("GET", "/gateway") is None


def test_a_channel_is_paced_once_down_to_its_last_token_and_free_at_its_reset() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    route = route_of("POST", "/api/v10/channels/1/messages")
    assert route is not None
    assert pacer.channel_wait(1) == 0.0  # nothing heard: go
    pacer.heard(route, 200, headers(2, 4.0))
    assert pacer.channel_wait(1) == 0.0
    pacer.heard(route, 200, headers(1, 3.5))
    # The last token is kept: discord.py would sleep out the window inside the request.
    assert pacer.channel_wait(1) == pytest.approx(3.5)
    assert pacer.channel_wait(2) == 0.0  # another channel has its own bucket
    assert pacer.channel_wait(1, pacing.EDITS) == 0.0  # edits have theirs
    clock.now += 3.5
    assert pacer.channel_wait(1) == 0.0


def test_a_429_puts_its_route_off_and_a_global_one_everything() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    route = ("POST", "/channels/{id}/messages", "1")
    pacer.heard(route, 429, {"X-RateLimit-Scope": "user", "X-RateLimit-Reset-After": "2.5",
                             "Retry-After": "3", "Via": "1.1 google"})
    assert pacer.channel_wait(1) == pytest.approx(2.5)
    assert pacer.channel_wait(2) == 0.0
    pacer.heard(("GET", "/channels/{id}", "2"), 429,
                {"X-RateLimit-Scope": "global", "X-RateLimit-Global": "true", "Retry-After": "1"})
    assert pacer.channel_wait(2) == pytest.approx(1.0) and pacer.thread_wait() == pytest.approx(1.0)
    assert pacer.counts["429:user"] == 1 and pacer.counts["429:global"] == 1


def test_the_thread_budget_is_the_bots_whatever_the_channel() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    pacer.heard(("POST", "/channels/{id}/threads", "10"), 201, headers(3, 200.0, limit=50))
    assert pacer.thread_wait() == 0.0
    pacer.heard(("POST", "/channels/{id}/threads", "11"), 201, headers(1, 199.0, limit=50))
    assert pacer.thread_wait() == pytest.approx(199.0)
    # Games put off are told when theirs should open, in order, a window per budget ahead.
    for game in range(1, 52):
        pacer.thread_put_off(game)
    assert pacer.thread_eta(1) == pytest.approx(199.0)
    assert pacer.thread_eta(49) == pytest.approx(199.0)
    assert pacer.thread_eta(50) == pytest.approx(199.0 + pacing.THREAD_WINDOW)
    assert pacer.thread_eta() == pytest.approx(199.0 + pacing.THREAD_WINDOW)  # a new one
    pacer.thread_opened(1)
    assert pacer.thread_eta(50) == pytest.approx(199.0)


def test_with_budget_left_the_first_waiting_go_at_once() -> None:
    pacer = Pacer(clock=Clock())
    assert pacer.thread_eta() == 0.0  # nothing known: at once
    pacer.heard(("POST", "/channels/{id}/threads", "10"), 201, headers(4, 100.0, limit=50))
    for game in (1, 2, 3, 4):
        pacer.thread_put_off(game)
    assert [pacer.thread_eta(g) for g in (1, 2, 3)] == [0.0, 0.0, 0.0]
    assert pacer.thread_eta(4) == pytest.approx(100.0)  # past the three usable tokens


def test_past_the_budgets_reset_a_whole_budget_goes_and_the_rest_wait_a_window() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    pacer.heard(("POST", "/channels/{id}/threads", "10"), 201, headers(3, 30.0, limit=4))
    for game in range(1, 8):
        pacer.thread_put_off(game)
    assert [pacer.thread_eta(g) for g in (1, 2, 3)] == pytest.approx([0.0, 0.0, 30.0])
    clock.now += 31.0  # the window ended: what was heard last is stale
    assert [pacer.thread_eta(g) for g in (1, 2, 3)] == [0.0, 0.0, 0.0]
    window = pacer.thread_window
    assert [pacer.thread_eta(g) for g in (4, 5, 6, 7)] == pytest.approx(
        [window, window, window, 2 * window])


def test_invalid_answers_are_counted_over_ten_minutes() -> None:
    clock = Clock()
    seen: list[int] = []
    pacer = Pacer(clock=clock, on_invalid=seen.append)
    route = ("GET", "/channels/{id}", "1")
    for status in (200, 401, 403, 404, 429, 500):
        pacer.heard(route, status, {})
    pacer.heard(route, 429, {"X-RateLimit-Scope": "shared", "Retry-After": "1"})  # not counted
    assert pacer.invalid_recent() == 3 and seen == [401, 403, 429]
    clock.now += pacing.INVALID_WINDOW + 1
    assert pacer.invalid_recent() == 0


async def test_requests_wait_their_turn_at_the_global_pace() -> None:
    pacer = Pacer(global_per_second=20.0)
    config = pacer.trace()
    [start] = config.on_request_start
    loop = asyncio.get_running_loop()

    class Params:
        method = "GET"

        def __init__(self, path: str) -> None:
            import yarl
            self.url = yarl.URL("http://x" + path)

    began = loop.time()
    for _ in range(6):
        await start(None, None, Params("/api/v10/channels/1"))  # type: ignore[arg-type]
    assert loop.time() - began >= 0.24  # five gaps of 1/20 s
    began = loop.time()
    for _ in range(6):  # interactions are not under the global limit
        await start(None, None, Params("/api/v10/interactions/1/t/callback"))  # type: ignore
    assert loop.time() - began < 0.05
    assert MESSAGES == ("POST", "/channels/{id}/messages")


def test_games_put_off_come_back_in_the_order_they_were_asked_for() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    pacer.heard(("POST", "/channels/{id}/threads", "10"), 201, headers(49, 30.0, limit=50))
    assert pacer.thread_window == pytest.approx(30.0)  # learnt from a window's first answer
    pacer.heard(("POST", "/channels/{id}/threads", "10"), 201, headers(1, 20.0, limit=50))
    for game in (7, 3, 9):
        pacer.thread_put_off(game)
    later = [pacer.thread_later(g) for g in (9, 3, 7)]
    assert later == sorted(later, reverse=True)  # 7 first, then 3, then 9
    assert later[-1] == pytest.approx(20.0)
    pacer.thread_opened(5)
    pacer.thread_put_off(5)  # opened already: not put back in line
    assert 5 not in pacer.waiting_threads


def test_a_hundred_starts_in_a_minute_are_told_when_their_tables_open() -> None:
    """Issue 29's start burst on a clock the test moves: 100 tables asked for over a minute,
    each opening tried as the bot does (at once, or put off to :meth:`Pacer.thread_later` and
    tried again then, longest-waiting first) against a budget of 50 threads per 300 s counted
    from the first of each window, as Discord and the stand-in count it. Each person is told a
    time within a few seconds of when their table opens, none asks past the budget, and the
    last opens at the third window's start (49 a window: one token is kept)."""
    clock = Clock()
    began = clock.now
    pacer = Pacer(clock=clock)
    route = ("POST", "/channels/{id}/threads", "10")
    window = {"start": -1e9, "count": 0}
    told: dict[int, float] = {}
    opened: dict[int, float] = {}
    due: dict[int, float] = {}

    def create() -> None:
        if clock.now - window["start"] >= 300.0:
            window.update(start=clock.now, count=0)
        assert window["count"] < 50, "past the budget: a 429"
        window["count"] += 1
        pacer.heard(route, 201, headers(50 - int(window["count"]),
                                        window["start"] + 300.0 - clock.now, limit=50))

    def try_open(game: int) -> None:
        if pacer.thread_wait() > pacing.SHORT:
            due[game] = clock.now + pacer.thread_later(game)
            return
        create()
        pacer.thread_opened(game)
        opened[game] = clock.now

    def retries_until(moment: float) -> None:
        while due and min(due.values()) <= moment:
            game = min(due, key=lambda g: due[g])
            clock.now = max(clock.now, due.pop(game))
            try_open(game)

    for game in range(1, 101):
        retries_until(began + (game - 1) * 0.6)
        clock.now = began + (game - 1) * 0.6
        pacer.thread_put_off(game)  # in line from the answer on, as /calico start does
        told[game] = clock.now + pacer.thread_eta(game)
        try_open(game)
    retries_until(float("inf"))
    assert sorted(opened) == list(range(1, 101))
    late = {g: round(opened[g] - told[g], 1) for g in opened}
    assert all(-3.0 <= d <= 3.0 for d in late.values()), late
    assert sum(opened[g] - began < 60.0 for g in opened) == 49
    assert sum(told[g] - began > 250.0 for g in told) == 51  # the others were told to wait
    assert opened[100] - began == pytest.approx(600.0, abs=5.0)


async def test_discord_py_refuses_ahead_only_a_request_that_would_wait() -> None:
    """discord.py refused a thread ahead whenever the budget's window ended more than
    ``max_ratelimit_timeout`` away, with tokens left: only a request that would wait is."""
    import discord
    import discord.http

    pacing.refuse_ahead_only_what_would_wait()  # as the bot does
    loop = asyncio.get_running_loop()
    bucket = discord.http.Ratelimit(30.0)
    bucket.limit, bucket.remaining, bucket.expires = 50, 2, loop.time() + 290.0
    await bucket.acquire()  # a token: taken, whatever the window's end
    assert bucket.remaining == 1 and bucket.expires == pytest.approx(loop.time() + 290.0, abs=1)
    bucket.remaining = 0
    with pytest.raises(discord.RateLimited):  # none left: the wait is past 30 s
        await bucket.acquire()
