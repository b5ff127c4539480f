"""Pictures in words through the real client: every picture posted in a whole solo game (thread
and DMs) reaches Discord with a description a screen reader can read, within the limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.models import GameStatus
from bot.words import describe
from tests.adapter.harness import (
    DRAFT_SELECT,
    bot,
    bot_factory,
    draft_via,
    game_of,
    settle,
    turn_via,
    wait_panel,
)
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


async def test_every_posted_picture_has_alt_text(discord_env: DiscordEnv,
                                                 tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "a.sqlite3", FakeClock()))
    inter = await env.slash("alice", "calico", "solo", options={"setup": "standard"})
    await inter.wait_response()
    await inter.wait_followup()
    thread = env.threads(env.channel)[-1]
    game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
    assert game is not None
    panel = await wait_panel(env, "alice", game.id, 0, DRAFT_SELECT)
    await draft_via(env, "alice", panel, game)
    await settle(env)
    game = await game_of(env, game.id)
    while game.status is GameStatus.PLAY:
        panel = await wait_panel(env, "alice", game.id, game.ply)
        await turn_via(env, "alice", panel, game)
        await settle(env, quiet=0.01)
        game = await game_of(env, game.id)
    await env.wait_for_message(thread.id, lambda m: "🏁" in m.content)

    seen: dict[str, int] = {}
    for msg in env.messages(thread.id) + env.dm_messages("alice"):
        # Every version of each message: a turn panel's picture goes once the turn is played.
        versions = [*(v.attachments for v in msg.history), msg.attachments]
        for att in {a.id: a for atts in versions for a in atts}.values():
            assert att.description, f"{att.filename} has no description"
            assert describe.length(att.description) <= describe.ATTACHMENT_DESCRIPTION_LIMIT
            seen[att.filename] = seen.get(att.filename, 0) + 1
    assert {"quilt.png", "scores.png", "turn.png"} <= set(seen)
    assert seen["quilt.png"] >= 22  # one per move in the thread
