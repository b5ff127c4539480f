"""The stand-in enforces Discord's rate limits the way Discord does (issue 29): per-route
buckets announced in ``X-RateLimit-*`` headers, a 429 with ``retry_after`` past one, the global
limit with its flag, the bot-wide thread budget shared by every channel, and the ban at the
edge after too many invalid requests. Raw HTTP here (what the answers say), and discord.py's
own client (it reads the headers and waits rather than being refused)."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import pytest

from tests.fakediscord import DiscordEnv
from tests.fakediscord.ratelimits import RateLimits

pytestmark = pytest.mark.fakediscord(rate_limits=True, fail_on_violations=False)


async def call(env: DiscordEnv, method: str, path: str,
               body: dict[str, Any] | None = None) -> tuple[int, Any, dict[str, str]]:
    headers = {"Authorization": f"Bot {env.state.token}"}
    async with aiohttp.ClientSession() as session, session.request(
            method, env.server.api_base + path, json=body, headers=headers) as resp:
        try:
            data: Any = await resp.json(content_type=None)
        except ValueError:
            data = await resp.text()
        return resp.status, data, dict(resp.headers)


async def test_five_messages_per_channel_then_a_429_with_retry_after(
        discord_env: DiscordEnv) -> None:
    env = discord_env
    path = f"/channels/{env.channel.id}/messages"
    seen = []
    for i in range(5):
        status, _, headers = await call(env, "POST", path, {"content": f"m{i}"})
        assert status == 200
        seen.append(headers["X-RateLimit-Remaining"])
        assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Bucket"]
        assert 0 < float(headers["X-RateLimit-Reset-After"]) <= 5
    assert seen == ["4", "3", "2", "1", "0"]
    status, body, headers = await call(env, "POST", path, {"content": "too many"})
    assert status == 429 and body["global"] is False
    assert 0 < body["retry_after"] <= 5 and headers["Via"] and headers["Retry-After"]
    assert headers["X-RateLimit-Scope"] == "user"
    assert len(env.messages(env.channel)) == 5  # the refused one was not made
    # Another channel has its own bucket.
    other = env.add_text_channel("other")
    status, _, headers = await call(env, "POST", f"/channels/{other.id}/messages",
                                    {"content": "elsewhere"})
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    # The window ends on the state's clock.
    env.advance_time(5.0)
    status, _, headers = await call(env, "POST", path, {"content": "again"})
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    [record] = env.state.rate_limits.records  # type: ignore[union-attr]
    assert record.method == "POST" and record.scope == "user"


async def test_the_thread_budget_is_one_for_the_whole_bot(discord_env: DiscordEnv) -> None:
    env = discord_env
    env.state.rate_limits = RateLimits(scale=1.0)
    channels = [env.channel, env.add_text_channel("second")]
    made = 0
    for i in range(50):
        status, _, headers = await call(env, "POST", f"/channels/{channels[i % 2].id}/threads",
                                        {"name": f"t{i}", "type": 11})
        assert status == 201, (i, headers)
        made += 1
    assert headers["X-RateLimit-Limit"] == "50" and headers["X-RateLimit-Remaining"] == "0"
    status, body, headers = await call(env, "POST", f"/channels/{env.add_text_channel('x').id}"
                                       "/threads", {"name": "one more", "type": 11})
    assert status == 429 and 200 < body["retry_after"] <= 300  # a new channel: same budget
    env.advance_time(300)
    status, _, _ = await call(env, "POST", f"/channels/{env.channel.id}/threads",
                              {"name": "later", "type": 11})
    assert status == 201 and made == 50


async def test_the_global_limit_has_its_flag_and_spares_interactions(
        discord_env: DiscordEnv) -> None:
    env = discord_env
    limits = env.state.rate_limits
    assert limits is not None
    limits.global_per_second = 3
    statuses = []
    for _ in range(4):
        status, body, headers = await call(env, "GET", f"/channels/{env.channel.id}")
        statuses.append(status)
    assert statuses == [200, 200, 200, 429]
    assert body["global"] is True and headers["X-RateLimit-Global"] == "true"
    assert headers["X-RateLimit-Scope"] == "global"
    # Interaction callbacks are not counted: an unknown one is a 404, not a 429.
    status, _, _ = await call(env, "POST", "/interactions/1/token/callback", {"type": 1})
    assert status == 404


async def test_too_many_invalid_requests_get_the_bot_banned_at_the_edge(
        discord_env: DiscordEnv) -> None:
    env = discord_env
    limits = env.state.rate_limits
    assert limits is not None
    limits.invalid_limit = 5
    hidden = env.add_text_channel("hidden")
    await env.deny_bot(hidden, "view_channel")
    for _ in range(5):
        status, _, _ = await call(env, "GET", f"/channels/{hidden.id}")
        assert status == 403
    status, body, headers = await call(env, "GET", f"/channels/{env.channel.id}")
    assert status == 429 and isinstance(body, str) and "Via" not in headers
    assert [v.kind for v in env.pop_violations()] == ["invalid_request_ban"]


async def test_discord_py_reads_the_headers_and_waits_instead_of_being_refused(
        discord_env: DiscordEnv) -> None:
    env = discord_env
    env.state.rate_limits = RateLimits(scale=0.1)  # 5 messages per 0.5 s
    client = discord.Client(intents=discord.Intents.none())
    await env.start_client(lambda: client)
    channel = client.get_partial_messageable(env.channel.id)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for i in range(12):
        await channel.send(f"paced {i}")
    took = loop.time() - started
    assert len(env.messages(env.channel)) == 12
    assert took >= 0.9  # two waits of about half a second each
    assert env.state.rate_limits.records == []  # discord.py never asked past the bucket
