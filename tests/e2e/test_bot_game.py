"""Whole games through the real client and the fake Discord: from ``/calico start`` to the score
sheet with two people clicking through their DMs, and a solo game."""

from __future__ import annotations

import time
from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.models import GameStatus
from bot.core.notices import Events
from bot.words import narration
from bot.words.catalogue import Text
from engine.events import ScenarioResult
from render import theme
from tests.adapter.harness import (
    CELL_SELECT,
    DRAFT_SELECT,
    answer_text,
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
    game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
    assert game is not None
    # The answer comes once the thread exists; the lobby message follows from the outbox.
    await env.wait_for_message(thread.id, lambda m: f"#{game.id}" in m.content)
    return game.id, thread.id


async def test_whole_two_player_game(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Two people: lobby, goal draft by DM, 44 turns by DM, score sheet in the thread."""
    env = discord_env
    started = time.perf_counter()
    await env.start_client(bot_factory(tmp_path / "g.sqlite3", FakeClock()))
    game_id, thread_id = await open_table(env)
    lobby = await env.wait_for_message(thread_id)
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
    game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
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
    # Passed or not, and each target of the scenario, met (✅) or missed (❌), as stored.
    last = (await queries.moves(bot(env).manager.kernel, game.id))[-1]
    [result] = [e for e in Events(last.events).decoded() if isinstance(e, ScenarioResult)]
    tr = Text("en")
    verdict = "scenario.passed" if result.passed else "scenario.failed"
    assert tr(verdict, number=1) in final.content
    assert narration.scenario_text(tr, result) in final.content
    assert [name for name, *_ in result.conditions] == ["rainbow", "score"]
    # The score sheet draws the same panel (green when passed, red when not).
    sheet = Image.open(BytesIO(final.attachment("scores.png").data)).convert("RGB")
    ink = theme.GOOD if result.passed else theme.BAD
    bottom = sheet.crop((0, sheet.height - 160, sheet.width, sheet.height))
    colours = bottom.getcolors(bottom.width * bottom.height) or []
    assert sum(n for n, c in colours if sum(abs(a - b) for a, b in zip(c, ink, strict=True))
               < 30) > 500


async def test_host_removes_a_computer_seat(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """The lobby's remove select shows once someone else sits at the table (a computer, or a
    person who joined: issue #20); only the host may use it (others get a private refusal),
    and the lobby message updates."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "l.sqlite3", FakeClock()))
    game_id, thread_id = await open_table(env, players=3)
    lobby = await env.wait_for_message(thread_id)
    assert not lobby.selects  # no computer yet: no select
    await (await env.click("alice", lobby, label="Add computer")).wait_response()
    await (await env.click("bob", env.get_message(lobby.id), label="Join")).wait_response()
    shown = env.get_message(lobby.id)
    assert "🤖" in shown.content
    remove = f"calico:lr:{game_id}"
    [select] = [c for c in shown.selects if c.custom_id == remove]
    bob = env.user("bob").id
    assert [o.value for o in select.options] == ["1", f"u{bob}"]

    refused = await env.select("bob", shown, remove, ["1"])
    await refused.wait_response()
    assert refused.ephemeral
    assert await answer_text(refused) == Text(env.user("bob").locale)("error.host_only")
    assert any(s.is_computer for s in (await game_of(env, game_id)).seats)

    done = await env.select("alice", env.get_message(lobby.id), remove, ["1"])
    await done.wait_response()
    assert not done.ephemeral
    game = await game_of(env, game_id)
    assert [s.user_id for s in game.seats] == [env.user("alice").id, env.user("bob").id]
    await settle(env)
    after = env.get_message(lobby.id)
    assert "🤖" not in after.content  # updated: the computer's seat is gone, bob's is offered
    [select] = [c for c in after.selects if c.custom_id == remove]
    assert [o.value for o in select.options] == [f"u{bob}"]
    assert after.button("Join") and after.button("Start")


async def test_commit_drops_the_stale_preview_and_the_buttons(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Taking a market tile answers at once: the DM says the turn was played and where the
    updated quilt is, and loses its buttons and the preview picture (it showed a turn that is
    no longer to play: the old hand and market, the choices), without drawing anything; the
    thread post with the new quilt and the next prompt follow from the outbox."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "c.sqlite3", FakeClock()))
    game_id, thread_id = await open_table(env, setup="beginner")
    lobby = await env.wait_for_message(thread_id)
    await (await env.click("bob", lobby, label="Join")).wait_response()
    await (await env.click("alice", env.get_message(lobby.id), label="Start")).wait_response()
    await settle(env)
    game = await game_of(env, game_id)
    user = "alice" if game.current_user_id == env.user("alice").id else "bob"
    panel = await wait_panel(env, user, game_id, game.ply)
    before_posts = len(env.messages(thread_id))
    tr = Text(env.user(user).locale)
    _, second = await turn_via(env, user, panel, game)
    after = env.get_message(panel.id)
    [preview] = after.history[-1].attachments  # the message as the preview left it
    assert preview.filename == "turn.png"
    assert second.response_type == 7  # edited in place, in the click's own response
    assert tr("panel.done_thread") in after.content
    assert tr("panel.done", summary="").strip() in after.content
    assert not after.buttons and not after.selects
    assert after.attachments == []  # the stale preview is gone
    edits = [r for r in env.requests
             if r.method == "POST" and r.path.endswith("/callback")]
    commit = edits[-1].body
    assert commit["data"]["attachments"] == [] and not edits[-1].uploads  # nothing drawn
    await settle(env)
    game = await game_of(env, game_id)
    assert game.ply == 1 and len(env.messages(thread_id)) > before_posts
    narration = env.messages(thread_id)[-1]
    assert narration.attachment("quilt.png")
    other = "bob" if user == "alice" else "alice"
    assert await wait_panel(env, other, game_id, game.ply)
