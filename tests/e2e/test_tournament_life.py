"""Tournaments when the world around them changes, and who may run them (issue #28), through
the real client and the stand-in:

- a player withdrawing in the middle of a game loses that game (the computer only finishes it
  for the others), and every post says what is so at each step: the sign-up message edited on
  a leave, at the sign-up's end (no Join left), each round, and at the end (no button left);
  one final post, its medals the picture's;
- the tournament's channel deleted: paused, the organiser told by DM, the deleted games
  channel cleared from the server's settings and said by the next ``/calico admin``; the bot's
  permissions there lost: the same; a sign-up that cannot be posted: ``create`` says so;
- a member leaving the server: withdrawn; the bot removed: cancelled;
- organisers: another holder of the tournament role may not cancel a tournament not theirs,
  a command without ``tournament:`` acts on the caller's own or asks which, organiser steps
  have a cooldown, a server a cap on open tournaments."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.core import queries
from bot.core.clock import FakeClock, to_ms
from bot.core.models import GameStatus, LobbyOptions, Setup, UserRef
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.words.catalogue import Text
from render.standings import MEDALS
from tests.adapter.harness import bot, bot_factory, settle
from tests.e2e.test_bot_tournament import answer, finish, games_of_round, scripted, sweep
from tests.fakediscord import DiscordEnv, perm_bits
from tests.render.helpers import decode, near
from tests.render.test_standings import MEDAL_X, centre

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")
HOUR = timedelta(hours=1)
NAMES = ["alice", "bob", "dora", "eve"]
__all__ = ["scripted"]  # the fixture, used by name


def cup_posts(env: DiscordEnv, channel: Any, text: str) -> list[Any]:
    return [m for m in env.messages(channel) if text in m.content]


async def people(env: DiscordEnv, *names: str) -> None:
    for name in names:
        if name not in ("alice", "bob", "carol"):
            env.add_user(name)
    mods = env.add_role("Mods", perm_bits("manage_guild"))
    env.add_member("carol", roles=[mods])


def labels(message: Any) -> list[str]:
    return [c.label for c in message.walk_components() if c.type == 2]


def medal_rows(png: bytes, rows: int) -> int:
    img = decode(png)
    count = 0
    for index in range(rows):
        pixel = img.getpixel((MEDAL_X, centre(index)))
        count += isinstance(pixel, tuple) and any(near(pixel, m, 12) for m in MEDALS)
    return count


@pytest.mark.timeout(180)
async def test_a_withdrawal_mid_game_is_a_loss_and_every_post_stays_right(
        discord_env: DiscordEnv, tmp_path: Path, scripted: set[int]) -> None:
    env = discord_env
    clock = FakeClock()
    await people(env, *NAMES, "finn")
    await env.start_client(bot_factory(tmp_path / "w.sqlite3", clock))
    manager = bot(env).manager
    made = await answer(env, "carol", "create", name="Leaf Cup", rounds=1, signup_hours=24,
                        start_hours=48, round_hours=72, level="easy", setup="beginner")
    assert "Leaf Cup" in made.content, made.content
    await settle(env)
    [post] = cup_posts(env, env.channel, "Leaf Cup")
    for name in [*NAMES, "finn"]:
        await (await env.click(name, env.get_message(post.id), label="Join")).wait_response()
    assert "Finn" in env.get_message(post.id).content
    # finn leaves with the command: the sign-up message no longer lists him.
    left = await answer(env, "finn", "leave")
    assert left.content == EN("tournament.left", name="Leaf Cup")
    await settle(env)
    assert "Finn" not in env.get_message(post.id).content
    assert "**4** entrants" in env.get_message(post.id).content
    # The sign-up ends at its time: the message is edited, Join goes.
    clock.advance(25 * HOUR)
    await sweep(env)
    assert labels(env.get_message(post.id)) == [EN("tournament.button.leave")]
    clock.advance(24 * HOUR)
    await sweep(env)
    t = await records.get(manager.kernel, 1)
    assert (t.status, t.round) == (tour.RUNNING, 1)
    assert EN("tournament.status.running", round=1, rounds=1) in env.get_message(post.id).content
    # Each table's players are pinged in their own game's thread, and nobody by the round post.
    for thread in env.threads(env.channel):
        first = env.messages(thread.id)[0]
        assert first.content.count("<@") >= 2 and len(first.mentions) >= 2
    [round_post] = cup_posts(env, env.channel, EN("tournament.round.title", name="Leaf Cup",
                                                   round=1, rounds=1))
    assert round_post.mentions == [] and round_post.content.count("<#") == 2

    games = await games_of_round(env, 1, 1)
    scripted.update(g.id for g in games)
    dora = env.user("dora").id
    dora_game = next(g for g in games if any(s.user_id == dora for s in g.seats))
    gone = await answer(env, "dora", "leave")  # in the middle of her game
    assert gone.content == EN("tournament.withdrawn_done", name="Leaf Cup")
    rng = random.Random(28)
    for g in games:
        await finish(env, g, rng)
    await manager.kernel.computers_idle()
    await sweep(env)
    t = await records.get(manager.kernel, 1)
    assert t.status == tour.OVER
    [table] = [x for x in await records.tables(manager.kernel, 1) if x.game_id == dora_game.id]
    assert table.points is not None and table.points[table.players.index(dora)] == 0
    other = next(u for u in table.players if u != dora)
    assert table.points[table.players.index(other)] == 2  # she lost it, whatever her seat did
    board = {s.user_id: s for s in await records.standings(manager.kernel, 1)}
    assert board[dora].points == 0
    # One final post: the podium and the standings together, nothing posted twice.
    final = cup_posts(env, env.channel, EN("tournament.standings.final", name="Leaf Cup"))
    assert len(final) == 1 and EN("tournament.podium.title", name="Leaf Cup") in \
        final[0].content
    picture = final[0].attachment("standings.png")
    medals = sum(final[0].content.count(m) for m in ("🥇", "🥈", "🥉"))
    assert medals == medal_rows(picture.data, 4) == 3  # the picture's medals are the text's
    assert f"<@{dora}>" not in final[0].content.split("\n\n")[0]  # no medal for her
    # Her line says she withdrew, as the picture's struck-through row does (the alt text
    # names the first three: tests/words/test_tournament.py has her among them).
    assert EN("tournament.withdrawn", name="Dora") in final[0].content
    # The sign-up message says it is over, with no button left.
    signup_now = env.get_message(post.id)
    assert EN("tournament.status.over") in signup_now.content and labels(signup_now) == []
    assert ("Dora (withdrawn)" in signup_now.content)


async def _running_cup(env: DiscordEnv, tmp_path: Path, clock: FakeClock,
                       where: Any = None) -> int:
    """A 4-person Swiss in its round 1, organised by carol, in ``where`` (default: general)."""
    await env.start_client(bot_factory(tmp_path / "l.sqlite3", clock))
    manager = bot(env).manager
    now = to_ms(clock.now())
    spec = tour.Spec("Storm Cup", tour.SWISS, 2, 2, LobbyOptions(setup=Setup.BEGINNER),
                     now + 3_600_000, now + 3_600_000, 24.0)
    carol = env.user("carol")
    channel = where or env.channel
    t = await signup.create(manager.kernel, UserRef(carol.id, carol.name), env.guild.id,
                            channel.id, spec)
    for name in NAMES:
        user = env.user(name)
        await signup.join(manager.kernel, t.id, UserRef(user.id, user.name))
    clock.advance(2 * HOUR)
    await sweep(env)
    assert (await records.get(manager.kernel, t.id)).round == 1
    return t.id


@pytest.mark.timeout(120)
async def test_deleting_the_channel_pauses_it_and_tells_the_organiser(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    clock = FakeClock()
    await people(env, *NAMES)
    cups = env.add_text_channel("cups")
    tid = await _running_cup(env, tmp_path, clock, cups)
    manager = bot(env).manager
    # cups is also the server's games channel.
    admin = await env.slash("carol", "calico", "admin", options={"games_channel": cups})
    await admin.wait_response()
    await admin.wait_followups(1)
    await env.delete_channel(cups)
    await settle(env)
    t = await records.get(manager.kernel, tid)
    assert t.status == tour.PAUSED
    dm = await env.wait_for_dm("carol", lambda m: "Storm Cup" in m.content)
    assert dm.content.startswith(EN("tournament.notice.channel_gone", name="Storm Cup",
                                    id=tid, channel=f"<#{cups.id}>")[:40])
    # Paused: a deadline passing pairs nothing, and nobody is prompted in a deleted channel.
    clock.advance(2 * 24 * HOUR)
    await sweep(env)
    t = await records.get(manager.kernel, tid)
    assert (t.status, t.round) == (tour.PAUSED, 1)
    for g in await games_of_round(env, tid, 1):
        assert g.status is GameStatus.ABANDONED and g.end_reason == "channel_gone"
    # The deleted games channel is cleared, and the next /calico admin says so (once).
    first = await env.slash("carol", "calico", "admin")
    await first.wait_response()
    [said] = await first.wait_followups(1)
    assert "`games_channel`" in said.content
    again = await env.slash("carol", "calico", "admin")
    await again.wait_response()
    assert "`games_channel`" not in (await again.wait_followups(1))[0].content
    # /calico start works again where it is used.
    start = await env.slash("alice", "calico", "start", options={"players": 2})
    await start.wait_response()
    await settle(env)
    assert len(await manager.store.game_ids(guild_id=env.guild.id, active_only=True)) == 1


@pytest.mark.timeout(120)
async def test_losing_the_bots_permissions_pauses_it_and_tells_the_organiser(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    clock = FakeClock()
    await people(env, *NAMES)
    tid = await _running_cup(env, tmp_path, clock)
    manager = bot(env).manager
    await env.deny_bot(env.channel, "send_messages")
    for g in await games_of_round(env, tid, 1):
        await finish(env, g, random.Random(g.id))
    await sweep(env)  # round 1's standings and round 2's post are refused: 403
    t = await records.get(manager.kernel, tid)
    assert t.status == tour.PAUSED
    dm = await env.wait_for_dm("carol", lambda m: "Storm Cup" in m.content)
    assert "/calico tournament pause paused:False" in dm.content
    # Refused for good once each, not retried.
    refused = [n for n in await manager.store.notices(0)
               if n.kind == tour.Post.kind and n.status == "failed"]
    assert refused and all(n.attempts == 1 for n in refused)
    env.pop_violations()
    # Given back, the organiser resumes it.
    await env.allow_bot(env.channel, "send_messages")
    resumed = await answer(env, "carol", "pause", paused=False)
    assert resumed.content == EN("tournament.resumed_done", name="Storm Cup")
    assert (await records.get(manager.kernel, tid)).status == tour.RUNNING


async def test_a_sign_up_that_cannot_be_posted_is_said_at_once(discord_env: DiscordEnv,
                                                               tmp_path: Path) -> None:
    env = discord_env
    await people(env)
    await env.start_client(bot_factory(tmp_path / "p.sqlite3", FakeClock()))
    await env.deny_bot(env.channel, "send_messages")
    said = await answer(env, "carol", "create", name="Mute Cup")
    assert said.content == EN("tournament.create_unpostable", channel=f"<#{env.channel.id}>")
    assert await records.listed(bot(env).manager.kernel, env.guild.id) == []


@pytest.mark.timeout(120)
async def test_a_member_leaving_is_withdrawn_and_the_bot_removed_cancels(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    clock = FakeClock()
    await people(env, *NAMES)
    tid = await _running_cup(env, tmp_path, clock)
    manager = bot(env).manager
    eve = env.user("eve").id
    await env.remove_member("eve")
    await settle(env)
    t = await records.get(manager.kernel, tid)
    assert next(e for e in t.entrants if e.user_id == eve).withdrawn == 1
    game = next(g for g in await games_of_round(env, tid, 1)
                if any(s.user_id == eve for s in g.seats))
    assert next(s for s in game.seats if s.user_id == eve).left
    await env.remove_bot_from_guild()
    await settle(env)
    assert (await records.get(manager.kernel, tid)).status == tour.CANCELLED


@pytest.mark.timeout(120)
async def test_organiser_powers_cooldowns_and_the_servers_cap(discord_env: DiscordEnv,
                                                              tmp_path: Path) -> None:
    env = discord_env
    await people(env, "dora")
    organisers = env.add_role("Organisers")
    env.add_member("alice", roles=[organisers])
    env.add_member("dora", roles=[organisers])
    await env.start_client(bot_factory(tmp_path / "o.sqlite3", FakeClock()))
    manager = bot(env).manager
    admin = await env.slash("carol", "calico", "admin", options={"tournament_role": organisers})
    await admin.wait_response()
    await admin.wait_followups(1)
    a = await answer(env, "alice", "create", name="Alice Cup")
    d = await answer(env, "dora", "create", name="Dora Cup")
    assert "Alice Cup" in a.content and "Dora Cup" in d.content
    # dora holds the tournament role, not alice's tournament.
    no = await answer(env, "dora", "cancel", tournament=1)
    assert no.content == EN("error.tournament_organiser_only")
    # Without tournament: her own.
    mine = await answer(env, "dora", "cancel")
    assert mine.content == EN("tournament.cancelled_done", name="Dora Cup")
    assert (await records.get(manager.kernel, 1)).status == tour.SIGNUP
    # A server manager with two open and none of their own: which one?
    await answer(env, "alice", "create", name="Second Cup")
    which = await answer(env, "carol", "close")
    assert which.content.startswith(EN("error.tournament_which", choices="")[:20])
    assert "Alice Cup" in which.content and "Second Cup" in which.content
    assert (await answer(env, "carol", "close", tournament=1)).content == EN(
        "tournament.closed_done", name="Alice Cup", count=0)
    # The organiser's steps are counted: a fourth within the cooldown waits.
    await answer(env, "alice", "create", name="Third Cup")
    wait = await env.slash("alice", "calico", "tournament create", options={"name": "Fourth"})
    await wait.wait_response()
    assert wait.message is not None and wait.message.ephemeral and "<t:" in wait.message.content
    assert len(await records.listed(manager.kernel, env.guild.id)) == 4
    # At most five open in a server.
    for i in range(2):
        await signup.create(manager.kernel, UserRef(env.user("carol").id, "carol"),
                            env.guild.id, env.channel.id, tour.Spec(
                                f"Extra {i}", tour.SWISS, 1, 2, LobbyOptions(),
                                to_ms(bot(env).now()) + 3_600_000,
                                to_ms(bot(env).now()) + 3_600_000, 24.0))
    full = await answer(env, "carol", "create", name="Too Many")
    assert full.content == EN("error.tournament_too_many", count=tour.MAX_OPEN_PER_SERVER)
    await settle(env)
    game = await queries.games_for_user(manager.kernel, env.user("carol").id)
    assert game == []
