"""What one player types or is called never reaches the others (issue 20, players 3, 6, 7),
through the real client and the fake Discord: a refused command meant for the channel is
answered privately, however late the refusal comes; odd input that Discord lets through gets
a short private refusal (an autocomplete, no choices), never a traceback; a display name full
of Markdown reads as itself in thread posts and on the public leaderboard."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.ui import replays as replays_ui
from bot.core import lobby, queries
from bot.core.clock import FakeClock
from bot.core.models import GameStatus, ManagerError
from bot.words import markup
from bot.words.catalogue import Text
from tests.adapter.harness import bot, bot_factory, game_of, settle
from tests.core.conftest import play_out
from tests.e2e.test_bot_commands import started_table
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")
NITRO = "[Free Nitro](https://ev.il)"


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def public_bot_posts(env: DiscordEnv, channel: Any, text: str) -> list[Any]:
    return [m for m in env.messages(channel) if text in m.content]


# --------------------------------------------------------------------------- 3: refusals


async def test_a_refused_replay_or_start_is_private(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "refuse.sqlite3", FakeClock()))
    # /calico replay of a game that does not exist, and with no finished game at all.
    for options, key in (({"game": 99_999}, "error.unknown_game"),
                         ({}, "error.no_finished_game")):
        inter = await env.slash("alice", "calico", "replay", options=options)
        await inter.wait_response()
        [answer] = await inter.wait_followups(1)
        assert inter.ephemeral and answer.ephemeral, options
        assert answer.content == EN(key)
        assert public_bot_posts(env, env.channel, EN(key)) == []

    # Refused only after the answer budget (the public "thinking" already shown): the channel's
    # message is taken back and the refusal goes to the one who asked.
    async def slow_refusal(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(1.8)
        raise ManagerError("no_finished_game")

    monkeypatch.setattr(replays_ui, "finished_game", slow_refusal)
    inter = await env.slash("alice", "calico", "replay")
    await inter.wait_response(timeout=3)
    [answer] = await inter.wait_followups(1, timeout=10)
    assert answer.ephemeral and answer.content == EN("error.no_finished_game")
    assert public_bot_posts(env, env.channel, EN("error.no_finished_game")) == []
    assert not [m for m in env.messages(env.channel) if m.loading]  # no "thinking" left behind

    # /calico start refused by the manager after the checks: privately too.
    async def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ManagerError("not_allowed")

    monkeypatch.setattr(lobby, "create_game", refuse)
    inter = await env.slash("alice", "calico", "start", options={"players": 2})
    await inter.wait_response()
    [answer] = await inter.wait_followups(1)
    assert inter.ephemeral and answer.ephemeral and answer.content == EN("error.not_allowed")
    assert errors(caplog) == []


# --------------------------------------------------------------------------- 6: odd input


async def test_odd_numbers_get_a_private_refusal_not_a_traceback(
        discord_env: DiscordEnv, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "odd.sqlite3", FakeClock()))
    game_id, thread_id = await started_table(env)
    # "²" is a digit to str.isdigit() and not a number to int().
    for player in ("²", "٣", "0", "9", "nobody"):
        inter = await env.slash("alice", "calico", "board", options={"player": player},
                                channel=thread_id)
        await inter.wait_response()
        [answer] = await inter.wait_followups(1)
        assert answer.ephemeral and answer.content == EN("error.no_such_player"), player
    # A seat number still works, with spaces around it.
    inter = await env.slash("alice", "calico", "board", options={"player": " 2 "},
                            channel=thread_id)
    await inter.wait_response()
    [answer] = await inter.wait_followups(1)
    assert (await game_of(env, game_id)).seats[1].name in answer.content
    # The board's player autocomplete with a game still being typed ("abc", "²"): no choices.
    for game in ("abc", "²", "-3"):
        picks = await env.autocomplete("alice", "calico", "board",
                                       options={"player": "", "game": game},
                                       focused="player", channel=thread_id)
        await picks.wait_response()
        assert picks.choices == [], game
    picks = await env.autocomplete("alice", "calico", "board",
                                   options={"player": "", "game": str(game_id)},
                                   focused="player", channel=thread_id)
    await picks.wait_response()
    assert [c["value"] for c in picks.choices or []] == ["1", "2"]
    assert errors(caplog) == []


# --------------------------------------------------------------------------- 7: names


async def test_a_name_with_markdown_reads_as_itself(discord_env: DiscordEnv,
                                                    tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "names.sqlite3", FakeClock()))
    mallory = env.add_user("mallory")
    mallory.global_name = NITRO
    inter = await env.slash("mallory", "calico", "solo")
    await inter.wait_response()
    await inter.wait_followups(1, timeout=15)
    await settle(env)
    thread = env.threads(env.channel)[-1]
    manager = bot(env).manager
    game = await queries.game_for_thread(manager.kernel, thread.id)
    assert game is not None and game.seats[0].name == NITRO
    game = await play_out(manager, game)
    assert game.status is GameStatus.OVER
    await settle(env)

    posts = env.messages(thread.id)
    assert posts and all("[Free Nitro](" not in m.content for m in posts)
    shown = markup.name(NITRO)
    assert shown == r"\[Free Nitro\](https://ev.il)"
    assert any(f"**{shown}**" in m.content for m in posts)  # a turn told in the thread
    sheet = next(m for m in posts if "🏁" in m.content)
    assert shown in sheet.content

    board = await env.slash("carol", "calico", "leaderboard")
    await board.wait_response()
    [answer] = await board.wait_followups(1, timeout=10)
    assert not answer.ephemeral
    assert shown in answer.content and "[Free Nitro](" not in answer.content
