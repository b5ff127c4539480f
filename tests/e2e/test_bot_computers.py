"""A person's click against a computer that thinks (issue 21), through the real client and the
fake Discord: the click is answered as soon as the person's move is stored, the answer says the
computer is thinking, and the computer's move comes afterwards as a thread post, followed by the
person's next turn in their DMs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.core import flow, lobby
from bot.core.clock import FakeClock
from bot.core.models import LobbyOptions, UserRef
from bot.core.notices import NoticeKind
from bot.core.storage import NoticeStatus
from bot.words import markup
from bot.words.catalogue import Text
from tests.adapter.harness import bot, bot_factory, game_of, settle, turn_via, wait_panel
from tests.fakediscord import DiscordEnv

EN = Text("en")


async def test_the_click_is_answered_before_the_computer_posts(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = discord_env
    monkeypatch.setenv("CALICO_AI_WORKERS", "0")  # computers in a thread: no processes to start
    thinking = asyncio.Event()  # the computer has been asked
    done = asyncio.Event()  # ...and may answer
    real = flow.choose

    async def slow(k: Any, state: Any, seat: int, level: str) -> Any:
        if flow.thinks(level):
            thinking.set()
            await done.wait()
        return await real(k, state, seat, level)

    monkeypatch.setattr(flow, "choose", slow)
    await env.start_client(bot_factory(tmp_path / "computers.sqlite3", FakeClock()))
    manager = bot(env).manager
    alice = env.user("alice")
    done.set()  # the computer may open the game if the deal says so
    game = await lobby.create_game(manager.kernel,
        UserRef(alice.id, "alice", "en-US"), env.guild.id, env.channel.id,
        options=LobbyOptions(players=2, setup="beginner", ai_level="easy"),
        computers=["easy"], open_thread=True, start=True)
    await asyncio.wait_for(manager.kernel.computers_idle(), 30)
    await settle(env)
    game = await game_of(env, game.id)
    assert game.current_user_id == alice.id and game.thread_id is not None
    done.clear()
    thinking.clear()

    panel = await wait_panel(env, "alice", game.id, game.ply)
    _, commit = await turn_via(env, "alice", panel, game)
    # Answered in time, with the person's move stored and the computer still thinking.
    assert commit.response_type is not None
    answer = env.get_message(panel.id).content
    computer = markup.name("Computer (easy)")
    assert EN("panel.thinking", name=computer) in answer, answer
    await asyncio.wait_for(thinking.wait(), 10)
    moves = await manager.store.moves(game.id)
    assert moves[-1].played_by == "user"
    await settle(env, computers=False)
    table = [n for n in await manager.store.notices(game.id) if n.kind == NoticeKind.TABLE]
    assert table[-1].body.by == "user" and table[-1].status == NoticeStatus.DONE
    posted = {m.id for m in env.messages(game.thread_id)}
    assert table[-1].message_id in posted  # the person's move is in the thread already

    done.set()
    await asyncio.wait_for(manager.kernel.computers_idle(), 30)
    await settle(env)
    after = await game_of(env, game.id)
    assert after.current_user_id == alice.id and after.ply == game.ply + 2
    reply = [n for n in await manager.store.notices(game.id) if n.kind == NoticeKind.TABLE
             and n.body.by == "computer" and n.ply == after.ply]
    assert len(reply) == 1 and reply[0].status == NoticeStatus.DONE
    post = next(m for m in env.messages(game.thread_id) if m.id == reply[0].message_id)
    assert "Computer (easy)" in post.content and post.id not in posted
    await wait_panel(env, "alice", game.id, after.ply)  # her next turn, by DM
