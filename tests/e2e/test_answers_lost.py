"""A post whose request reached Discord but whose answer did not come back (issue 29): a 5xx
from the edge after the post was made, or no answer in time. The attempt is in doubt: the
outbox retries it with backoff, and the retry looks first (the same path as after a crash), so
the post is recorded once, never made twice, even when Discord has already forgotten its
nonce."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapter.delivery import DiscordDelivery
from bot.core.notices import NoticeKind
from tests.adapter.harness import (
    CELL_SELECT,
    bot,
    bot_factory,
    game_of,
    has_control,
    settle,
    turn_via,
)
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


@pytest.mark.parametrize("answer", ["503-after-the-post", "no-answer-in-time"])
async def test_a_post_whose_answer_was_lost_is_recorded_once(
        discord_env: DiscordEnv, tmp_path: Path, answer: str) -> None:
    env = discord_env
    env.state.nonce_window = 0.2  # Discord forgets nonces soon: only looking can tell
    await env.start_client(bot_factory(tmp_path / "lost.sqlite3"))
    delivery = bot(env).dispatcher.delivery  # type: ignore[union-attr]
    assert isinstance(delivery, DiscordDelivery)
    delivery.send_timeout = 1.0
    await (await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup()
    await settle(env)
    game = await game_of(env, 1)
    [thread] = env.threads(env.channel)
    panel = await env.wait_for_dm("alice", lambda m: has_control(m, CELL_SELECT, game.id,
                                                                 game.ply))
    failure = env.fail_next(503, method="POST", path=f"/channels/{thread.id}/messages",
                            after=True, delay=3.0 if answer == "no-answer-in-time" else 0.0)
    before = len(env.messages(thread))
    await turn_via(env, "alice", panel, game)
    await env.wait_for(lambda: failure.hits or None, timeout=10)
    # Retried with backoff (2 s), looking first: found, recorded, not posted again.
    def table_done() -> bool:
        return bool(bot(env).dispatcher.counts["found"])  # type: ignore[union-attr]

    await env.wait_for(table_done, timeout=20)
    await settle(env)
    tables = [n for n in await bot(env).manager.store.notices(game.id)
              if n.kind == NoticeKind.TABLE]
    [table] = tables
    assert table.status == "done" and table.attempts == 2
    posts = env.messages(thread)[before:]
    assert [m.id for m in posts] == [table.message_id]  # one post, the one recorded
    assert env.pop_violations() == []
