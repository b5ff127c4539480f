"""Whole games through the real client and the fake Discord: from ``/calico start`` to the score
sheet with two people clicking through their DMs, and a solo game."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.clock import FakeClock
from bot.models import GameStatus
from tests.bot_ui.harness import (
    CELL_SELECT,
    DRAFT_SELECT,
    bot,
    bot_factory,
    draft_via,
    game_of,
    has_control,
    settle,
    turn_via,
    wait_panel,
)
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


async def open_table(env: DiscordEnv, players: int = 2, **options: object) -> tuple[int, int]:
    """alice runs /calico start; returns (game id, thread id)."""
    inter = await env.slash("alice", "calico", "start",
                            options={"players": players, **options})
    await inter.wait_response()
    reply = await inter.wait_followup()
    assert "Calico #" in reply.content
    thread = env.threads(env.channel)[-1]
    game = await bot(env).manager.game_for_thread(thread.id)
    assert game is not None
    return game.id, thread.id


async def test_whole_two_player_game(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Two people: lobby, goal draft by DM, 44 turns by DM, score sheet in the thread."""
    env = discord_env
    started = time.perf_counter()
    await env.start_client(bot_factory(tmp_path / "g.sqlite3", FakeClock()))
    game_id, thread_id = await open_table(env)
    lobby = env.messages(thread_id)[0]
    assert lobby.button("Join") and lobby.button("Start")
    join = await env.click("bob", lobby, label="Join")
    await join.wait_response()
    assert "Bob" in env.get_message(lobby.id).content
    start = await env.click("alice", env.get_message(lobby.id), label="Start")
    await start.wait_response()
    await settle(env)
    game = await game_of(env, game_id)
    assert game.status is GameStatus.DRAFT

    for user in ("alice", "bob"):
        panel = await wait_panel(env, user, game_id, 0, DRAFT_SELECT)
        assert panel.attachment("goals.png")
        assert f"/channels/{env.guild.id}/{thread_id}" in panel.content  # jump link
        game = await game_of(env, game_id)
        await draft_via(env, user, panel, game)
    await settle(env)
    game = await game_of(env, game_id)
    assert game.status is GameStatus.PLAY

    names = {env.user("alice").id: "alice", env.user("bob").id: "bob"}
    turns = 0
    while game.status is GameStatus.PLAY:
        uid = game.current_user_id
        assert uid is not None
        user = names[uid]
        panel = await wait_panel(env, user, game_id, game.ply)
        assert panel.attachment("turn.png")
        select = panel.select(next(c for c in (s.custom_id for s in panel.selects) if c))
        assert len(select.options) <= 22
        first, second = await turn_via(env, user, panel, game)
        assert first.response_type == 7 and second.response_type in (6, 7)  # edited in place
        turns += 1
        await settle(env, quiet=0.01)
        game = await game_of(env, game_id)
    assert turns == 44
    assert game.status is GameStatus.OVER

    final = await env.wait_for_message(thread_id, lambda m: "🏁" in m.content)
    assert "Master Quilter" in final.content
    assert final.attachment("scores.png")
    posts = env.messages(thread_id)
    narrations = [m for m in posts if "sewed" in m.content]
    assert len(narrations) >= 40
    assert any(m.attachments and m.attachments[0].filename == "quilt.png" for m in narrations)
    # Next players were pinged with user mentions only.
    pings = [m for m in posts if "Your turn" in m.content]
    assert pings
    assert time.perf_counter() - started < 20


async def test_solo_game(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """/calico solo starts at once; the player plays 22 turns by DM; the end says the score."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "s.sqlite3", FakeClock()))
    inter = await env.slash("alice", "calico", "solo", options={"scenario": 1})
    await inter.wait_response()
    reply = await inter.wait_followup()
    assert "solo" in reply.content
    thread = env.threads(env.channel)[-1]
    game = await bot(env).manager.game_for_thread(thread.id)
    assert game is not None
    panel = await wait_panel(env, "alice", game.id, 0, DRAFT_SELECT)
    await draft_via(env, "alice", panel, game)
    await settle(env)
    game = await game_of(env, game.id)
    while game.status is GameStatus.PLAY:
        panel = await wait_panel(env, "alice", game.id, game.ply)
        assert has_control(panel, CELL_SELECT, game.id, game.ply)
        await turn_via(env, "alice", panel, game)
        await settle(env, quiet=0.01)
        game = await game_of(env, game.id)
    assert game.status is GameStatus.OVER
    final = await env.wait_for_message(thread.id, lambda m: "🏁" in m.content)
    assert "Scenario 1" in final.content
    assert final.attachment("scores.png")
