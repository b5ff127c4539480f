"""A post Discord refuses for good is not a jam (issue #28), through the real client and the
stand-in: a 400 (invalid form body), 403 or 404 answer ends that notice at once, with one log
line and the ``refused`` count, and the notices queued behind it in its lane go out at once (no
retry for days, no lane held). The stand-in refuses, like Discord, a message naming more than
100 users (or roles) in its allowed mentions."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.core import lobby
from bot.core.clock import FakeClock
from bot.core.models import LobbyOptions, UserRef
from bot.core.notices import NoticeKind
from bot.core.storage import NoticeStatus
from bot.core.tournament import model as tour
from bot.core.tournament import signup
from tests.adapter.harness import bot, bot_factory, game_of, settle
from tests.core.conftest import step
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0, fail_on_violations=False)


def refusal_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "calico.outbox" and "not retried" in
            r.getMessage()]


async def test_the_stand_in_refuses_more_than_100_mentions(discord_env: DiscordEnv,
                                                           tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "m.sqlite3", FakeClock()))
    channel: Any = bot(env).get_channel(env.channel.id)
    users = [discord.Object(id=1000 + i) for i in range(101)]
    ok = await channel.send("a hundred", allowed_mentions=discord.AllowedMentions(
        users=users[:100]))
    assert ok.id
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("one more", allowed_mentions=discord.AllowedMentions(users=users))
    assert (refused.value.status, refused.value.code) == (400, 50035)
    [violation] = env.pop_violations("invalid_form_body")
    assert "allowed_mentions.users" in str(violation.detail)
    roles = [discord.Object(id=5000 + i) for i in range(101)]
    with pytest.raises(discord.HTTPException):
        await channel.send("roles", allowed_mentions=discord.AllowedMentions(roles=roles))
    assert len(env.pop_violations("invalid_form_body")) == 1
    assert [m.content for m in env.messages(env.channel)
            if m.content.startswith(("one more", "roles"))] == []


async def test_a_thread_post_refused_for_good_ends_at_once(
        discord_env: DiscordEnv, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "t.sqlite3", FakeClock()))
    manager = bot(env).manager
    alice = UserRef(env.user("alice").id, "alice", "en-US")
    game = await lobby.create_game(manager.kernel, alice, env.guild.id, env.channel.id,
                                   LobbyOptions(players=1, setup="beginner"),
                                   open_thread=True, start=True)
    await settle(env)
    game = await game_of(env, game.id)
    assert game.thread_id is not None
    env.fail_next(400, method="POST", path=f"/channels/{game.thread_id}/messages",
                  code=50035, message="Invalid Form Body")
    caplog.set_level(logging.INFO, logger="calico.outbox")
    first = await step(manager, game, alice.id)
    second = await step(manager, first, alice.id)
    await settle(env)
    tables = {n.ply: n for n in await manager.store.notices(game.id)
              if n.kind == NoticeKind.TABLE}
    refused, after = tables[first.ply], tables[second.ply]
    # Ended at the first answer (the fake clock never brings a retry due), and the next post of
    # the same thread went out behind it without waiting.
    assert (refused.status, refused.attempts) == (NoticeStatus.FAILED, 1)
    assert after.status == NoticeStatus.DONE
    assert any(m.id == after.message_id for m in env.messages(game.thread_id))
    dispatcher = bot(env).dispatcher
    assert dispatcher is not None and dispatcher.counts["refused"] == 1
    [line] = refusal_lines(caplog)
    assert "400" in line.getMessage() and "50035" in line.getMessage() and not line.exc_info


async def test_a_channel_post_refused_for_good_holds_up_nothing(
        discord_env: DiscordEnv, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A tournament's post (a notice about no game, in its channel's lane) refused with a 400:
    the sign-up message's edit queued behind it is made at once."""
    env = discord_env
    clock = FakeClock()
    await env.start_client(bot_factory(tmp_path / "c.sqlite3", clock))
    manager = bot(env).manager
    carol = env.user("alice")
    now = int(clock.now().timestamp() * 1000)
    spec = tour.Spec("Refused Cup", tour.SWISS, 2, 2, LobbyOptions(setup="beginner"),
                     now + 3_600_000, now + 7_200_000, 24.0)
    t = await signup.create(manager.kernel, UserRef(carol.id, carol.name), env.guild.id,
                            env.channel.id, spec)
    await settle(env)
    [posted] = [m for m in env.messages(env.channel) if "Refused Cup" in m.content]
    assert posted.button("Join")
    env.fail_next(400, method="POST", path=f"/channels/{env.channel.id}/messages",
                  code=50035, message="Invalid Form Body")
    caplog.set_level(logging.INFO, logger="calico.outbox")
    await signup.cancel(manager.kernel, t.id, carol.id)
    await settle(env)
    kinds = [(n.body.what, n.status, n.attempts) for n in await manager.store.notices(0)
             if n.kind == tour.Post.kind]
    assert (tour.PostKind.CANCELLED, NoticeStatus.FAILED, 1) in kinds
    # The sign-up message, edited behind it: no button is left on a cancelled tournament.
    assert kinds[-1][:2] == (tour.PostKind.SIGNUP, NoticeStatus.DONE)
    assert list(env.get_message(posted.id).walk_components()) == []
    [line] = refusal_lines(caplog)
    assert "tournament" in line.getMessage()
