"""Interactions that outlive their token (issue 29): Discord lets a bot answer an interaction
for 15 minutes. A deferred answer whose work ends later (a review queued at a busy hour) is
still delivered, said to be late: a private answer by DM, a public one as a new message in its
channel; never lost silently. On the stand-in's clock, moved past the token's life while the
work waits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.ui import progress as progress_ui
from bot.core import queries
from tests.adapter.harness import bot_factory
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


async def held_until(release: asyncio.Event, real: Any, *args: Any, **kwargs: Any) -> Any:
    await release.wait()
    return await real(*args, **kwargs)


async def test_a_private_answer_after_the_token_died_comes_by_dm(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "late.sqlite3"))
    release = asyncio.Event()
    real = queries.games_for_user
    monkeypatch.setattr(queries, "games_for_user",
                        lambda *a, **k: held_until(release, real, *a, **k))
    ix = await env.slash("alice", "calico", "games")
    await ix.wait_response()  # deferred: "thinking"
    env.advance_time(16 * 60)  # the work outlives the token
    dms = len(env.dm_messages("alice"))
    release.set()
    dm = await env.wait_for(lambda: env.dm_messages("alice")[dms:] or None, timeout=10)
    assert "took longer than Discord lets me answer" in dm[0].content
    assert "game" in dm[0].content.lower()  # the answer itself follows the note
    assert not ix.followups  # nothing went through the dead token...
    assert [v.kind for v in env.pop_violations()] in ([], ["token_expired"])


async def test_a_public_answer_after_the_token_died_comes_in_its_channel(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "late.sqlite3"))
    release = asyncio.Event()
    real = progress_ui.leaderboard_message
    monkeypatch.setattr(progress_ui, "leaderboard_message",
                        lambda *a, **k: held_until(release, real, *a, **k))
    ix = await env.slash("alice", "calico", "leaderboard")
    await ix.wait_response(timeout=5)
    env.advance_time(16 * 60)
    before = len(env.messages(env.channel))
    release.set()
    posted = await env.wait_for(lambda: env.messages(env.channel)[before:] or None, timeout=10)
    assert "took longer than Discord lets me answer" in posted[-1].content
    assert [v.kind for v in env.pop_violations()] in ([], ["token_expired"])
