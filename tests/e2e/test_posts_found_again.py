"""Posts found again (issue 20, item 14), through the real delivery and the stand-in: every
outbox post carries an invisible mark; a notice handed over with ``look_first`` (it may be in
Discord, unrecorded, for longer than Discord keeps nonces) is found in its channel and recorded,
and only the parts of it that are missing are posted. The kill-and-restart version, with a real
process, is in ``test_crashes.py``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bot.adapter import postmarks
from bot.adapter.delivery import DiscordDelivery, nonce_for
from bot.core.clock import FakeClock
from bot.core.models import LobbyOptions, UserRef
from bot.core.notices import Notice, NoticeKind
from bot.core.tournament import model as tour
from bot.core.tournament import signup
from bot.core.tournament.model import Post
from tests.adapter.harness import answer_text, bot, bot_factory, settle
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeMessage

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


def visible(message: FakeMessage) -> str:
    """What a player reads: the content without the mark."""
    return message.content[:-postmarks.LENGTH]


async def test_a_post_already_in_discord_is_found_and_only_its_missing_parts_posted(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "f.sqlite3", FakeClock()))
    # Pictures in words, in messages shorter than usual: alice's turn DM takes several.
    monkeypatch.setattr(postmarks, "ROOM", 600)
    await answer_text(await env.slash("alice", "calico", "settings", options={"describe": "on"}))
    await (await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup()
    await settle(env)
    manager = bot(env).manager
    delivery = bot(env).dispatcher.delivery  # type: ignore[union-attr]
    assert isinstance(delivery, DiscordDelivery)
    notices = await manager.store.notices()
    prompt = next(n for n in notices if n.kind == NoticeKind.TURN_PROMPT)
    started = next(n for n in notices if n.kind == NoticeKind.STARTED)
    dms = env.dm_messages("alice")
    parts = [m for m in dms if m.id >= (prompt.message_id or 0)]
    assert len(parts) >= 2, [m.content[:40] for m in dms]  # the prompt, then its words
    # Every part is marked with its own nonce, and the mark shows nothing.
    nonces = [nonce_for(prompt.key)] + [nonce_for(f"{prompt.key}w{i}")
                                        for i in range(len(parts) - 1)]
    assert [postmarks.mark_in(m.content) for m in parts] == [postmarks.mark_of(n)
                                                           for n in nonces]
    assert all(not visible(m)[-1:].isspace() and visible(m).strip() for m in parts)

    # Posting as usual never reads a channel back.
    assert not [r for r in env.requests if r.method == "GET" and r.path.endswith("/messages")]

    # A part went missing (deleted): looking finds the prompt and posts that part alone.
    lost = parts[-1]
    lost.deleted = True
    env.state.nonces.clear()  # Discord forgot the nonces
    receipt = await delivery.deliver(look(prompt))
    assert receipt is not None and receipt.found and receipt.message_id == prompt.message_id
    after = [m for m in env.dm_messages("alice") if not m.deleted]
    new = [m for m in after if m.id > parts[-1].id]
    assert [visible(m) for m in new] == [visible(lost)]
    assert len(after) == len(dms)  # as before the loss: nothing else posted again

    # A thread post: found, nothing posted.
    thread = env.threads(env.channel)[-1]
    before = len(env.messages(thread.id))
    receipt = await delivery.deliver(look(started))
    assert receipt is not None and receipt.found and receipt.message_id == started.message_id
    assert len(env.messages(thread.id)) == before
    # The same without looking (the nonce forgotten): Discord makes a second copy, which is what
    # looking first prevents.
    receipt = await delivery.deliver(started)
    assert receipt is not None and not receipt.found and len(env.messages(thread.id)) == before + 1


def look(notice: Notice) -> Notice:
    return dataclasses.replace(notice, look_first=True)


async def test_a_tournament_post_already_in_discord_is_found(discord_env: DiscordEnv,
                                                            tmp_path: Path) -> None:
    """A tournament's channel posts carry the mark too, and are looked for like game posts."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "t.sqlite3", FakeClock()))
    manager = bot(env).manager
    now = manager.kernel.now_ms()
    cup = await signup.create(
        manager.kernel, UserRef(env.user("alice").id, "Alice"), env.guild.id, env.channel.id,
        tour.Spec("Cup", tour.SWISS, 3, 2, LobbyOptions(), now + 86_400_000,
                        now + 86_400_000, 72.0))
    await signup.cancel(manager.kernel, cup.id, env.user("alice").id, True)
    await settle(env)
    delivery = bot(env).dispatcher.delivery  # type: ignore[union-attr]
    assert isinstance(delivery, DiscordDelivery)
    [notice] = [n for n in await manager.store.notices()
                if n.kind == Post.kind and n.body.what == "cancelled"]
    posts = env.messages(env.channel)
    [post] = [m for m in posts if m.id == notice.message_id]
    assert postmarks.mark_in(post.content) == postmarks.mark_of(nonce_for(notice.key))

    env.state.nonces.clear()  # Discord forgot the nonce
    receipt = await delivery.deliver(look(notice))
    assert receipt is not None and receipt.found and receipt.message_id == post.id
    assert len(env.messages(env.channel)) == len(posts)
    receipt = await delivery.deliver(notice)  # without looking: a second copy
    assert receipt is not None and not receipt.found
    assert len(env.messages(env.channel)) == len(posts) + 1


# --------------------------------------------------------------------------- issue 29


def in_doubt(notice: Notice) -> Notice:
    """The notice as the outbox hands it over when it may be out: looked for from the moment
    of its first attempt (its creation here) on."""
    return dataclasses.replace(notice, look_first=True, sent_at=notice.created_at)


async def chatter(env: DiscordEnv, user: str, channel: object, count: int) -> None:
    for i in range(count):
        await env.post_message(user, channel, f"message {i}")  # type: ignore[arg-type]


@pytest.mark.parametrize("where", ["thread", "dm"])
async def test_a_post_in_doubt_is_found_behind_150_newer_messages(
        discord_env: DiscordEnv, tmp_path: Path, where: str) -> None:
    """Finding 1: the look read only the 100 newest messages; a busy thread or a chatty DM
    had the post behind more, and it was made again."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "b.sqlite3", FakeClock()))
    await (await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup()
    await settle(env)
    manager = bot(env).manager
    delivery = bot(env).dispatcher.delivery  # type: ignore[union-attr]
    assert isinstance(delivery, DiscordDelivery)
    kind = NoticeKind.STARTED if where == "thread" else NoticeKind.TURN_PROMPT
    notice = next(n for n in await manager.store.notices() if n.kind == kind)
    channel = env.threads(env.channel)[-1] if where == "thread" else \
        env.state.dm_channel(env.user("alice"))
    await chatter(env, "alice", channel, 150)
    before = len(env.messages(channel.id))
    env.state.nonces.clear()  # Discord forgot the nonce
    receipt = await delivery.deliver(in_doubt(notice))
    assert receipt is not None and receipt.found and receipt.message_id == notice.message_id
    assert len(env.messages(channel.id)) == before  # nothing posted twice
    # Paging as far as it takes: a first attempt that made nothing, 150 messages, then an
    # attempt that made the post and died before recording it.
    [first] = [m for m in env.messages(channel.id) if m.id == notice.message_id]
    first.deleted = True
    await chatter(env, "alice", channel, 150)
    again = await delivery.deliver(notice)
    assert again is not None and not again.found
    env.state.nonces.clear()
    reads = len(env.requests_to("GET", f"/channels/{channel.id}/messages"))
    receipt = await delivery.deliver(in_doubt(notice))
    assert receipt is not None and receipt.found and receipt.message_id == again.message_id
    pages = len(env.requests_to("GET", f"/channels/{channel.id}/messages")) - reads
    assert pages == 4  # 300 messages since the first attempt, then the post: four pages


async def test_an_empty_read_without_read_message_history_is_said_not_trusted(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Finding 2: Discord answers a history read without Read Message History with an empty
    list; the look took that for "not posted" and posted again, silently. Now it is said (a
    warning once per channel, a metric, ``/calico admin``), and the documented fallback (post:
    a lost post is worse than a second one) is taken knowingly."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "h.sqlite3", FakeClock()))
    await (await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup()
    await settle(env)
    calico = bot(env)
    delivery = calico.dispatcher.delivery  # type: ignore[union-attr]
    assert isinstance(delivery, DiscordDelivery)
    notice = next(n for n in await calico.manager.store.notices()
                  if n.kind == NoticeKind.STARTED)
    thread = env.threads(env.channel)[-1]
    await env.deny_bot(env.channel, "read_message_history")
    env.state.nonces.clear()
    before = len(env.messages(thread.id))
    receipt = await delivery.deliver(in_doubt(notice))
    assert receipt is not None and not receipt.found
    assert len(env.messages(thread.id)) == before + 1  # the fallback: posted, not lost
    assert thread.id in calico.unreadable.in_guild(env.guild.id)
    metric = calico.metrics.history_unreadable._value.get()
    assert metric == 1
    await delivery.deliver(in_doubt(notice))  # said once per channel, not per post
    assert calico.metrics.history_unreadable._value.get() == 1
    # The server's admins are told where and what to give.
    ix = await env.slash("owner", "calico", "admin")
    text = await answer_text(ix)
    assert "Read Message History" in text and f"<#{thread.id}>" in text
    # Given back: the look reads again, finds the post, and the channel is no longer named.
    await env.allow_bot(env.channel, "read_message_history")
    receipt = await delivery.deliver(in_doubt(notice))
    assert receipt is not None and receipt.found
    assert calico.unreadable.in_guild(env.guild.id) == []


async def test_an_empty_read_with_the_permission_is_trusted(discord_env: DiscordEnv,
                                                            tmp_path: Path) -> None:
    """The check costs nothing when the read is honest: a post that never reached Discord is
    made, with no warning."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "e.sqlite3", FakeClock()))
    await (await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup()
    await settle(env)
    calico = bot(env)
    delivery = calico.dispatcher.delivery  # type: ignore[union-attr]
    assert isinstance(delivery, DiscordDelivery)
    notice = next(n for n in await calico.manager.store.notices()
                  if n.kind == NoticeKind.STARTED)
    thread = env.threads(env.channel)[-1]
    [posted] = [m for m in env.messages(thread.id) if m.id == notice.message_id]
    posted.deleted = True  # as if it never reached Discord
    receipt = await delivery.deliver(in_doubt(notice))
    assert receipt is not None and not receipt.found
    assert calico.unreadable.channels == {}
