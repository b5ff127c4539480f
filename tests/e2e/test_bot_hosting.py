"""Hosting through the real client and the fake Discord: ``/calico admin`` (who may use it, what
it stores and shows), the server's rules enforced by ``/calico start`` and ``solo`` (games
channel, starter role, defaults), the lobby's role ping, the thread language, the per-person
limits and cooldowns, and pictures in words for those who ask."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.client import CalicoBot
from bot.core import queries, servers
from bot.core.clock import FakeClock
from bot.core.models import GameStatus, TimeoutAction
from bot.settings import Settings
from bot.words import describe, terms
from bot.words.catalogue import Text
from engine.hexgrid import cell_name
from engine.views import public_view
from tests.adapter.harness import (
    CELL_SELECT,
    answer_text,
    bot,
    game_of,
    settle,
    turn_via,
    wait_panel,
)
from tests.fakediscord import DiscordEnv, perm_bits
from tests.words.test_describe import cell_segments

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")
FR = Text("fr")


def factory(db: Path, clock: FakeClock | None = None, **settings: Any) -> Any:
    """A bot whose Settings carry ``settings`` (limits, cooldowns)."""
    def make() -> CalicoBot:
        return CalicoBot(Settings(token="fake", db_path=str(db), **settings),
                         clock=clock or FakeClock(), sync="never", sweep_interval=3600.0,
                         dispatch_poll=0.05)

    return make


async def ask(env: DiscordEnv, user: str, command: str, channel: Any = None,
              **options: Any) -> Any:
    inter = await env.slash(user, "calico", command, options=options, channel=channel)
    await inter.wait_response()
    return inter


async def text_of(inter: Any) -> str:
    """The bot's answer (a message response, or the followup of a deferred one)."""
    return await answer_text(inter)


async def test_admin_is_for_server_managers(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(factory(tmp_path / "a.sqlite3"))
    inter = await env.slash("alice", "calico", "admin", options={"language": "fr"})
    await inter.wait_response()
    assert inter.ephemeral
    assert await answer_text(inter) == EN("hosting.manage_only")
    assert (await servers.settings(bot(env).manager.kernel, env.guild.id)).is_default
    # A role with Manage Server is enough (the guild's owner has every permission).
    managers = env.add_role("Mods", perm_bits("manage_guild"))
    env.add_member("carol", roles=[managers])
    inter = await env.slash("carol", "calico", "admin")
    await inter.wait_response()
    shown = await answer_text(inter)
    carol = Text(env.user("carol").locale)
    assert carol("hosting.show.title") in shown
    assert carol("hosting.show.any_channel") in shown and carol("hosting.show.everyone") in shown


async def test_server_settings_are_stored_shown_and_enforced(discord_env: DiscordEnv,
                                                             tmp_path: Path) -> None:
    env = discord_env
    games = env.get_channel("games")
    starters = env.add_role("Starters")
    players = env.add_role("Calico players")
    # (A refused start uses up no start allowance: tests/e2e/test_bot_abuse.py. Off here.)
    await env.start_client(factory(tmp_path / "s.sqlite3", start_cooldown=0))
    manager = bot(env).manager
    inter = await env.slash("owner", "calico", "admin", options={
        "games_channel": games, "starter_role": starters, "turn_hours": 48,
        "timeout": "computer", "ping_role": players, "language": "fr",
        "challenge_channel": env.channel})
    await inter.wait_response()
    shown = await answer_text(inter)
    assert inter.ephemeral
    assert EN("hosting.saved") in shown
    for part in (f"<#{games.id}>", f"<@&{starters.id}>", f"<@&{players.id}>",
                 f"<#{env.channel.id}>", EN("choice.hours", count=48),
                 EN("timeout.computer"), "Français"):
        assert part in shown, part
    # The role can't be mentioned by the bot (not mentionable, no permission): it says so.
    assert EN("hosting.role_not_mentionable", role=f"<@&{players.id}>") in shown
    stored = json.loads(await manager.store.guild_settings(env.guild.id) or "{}")
    assert stored["challenge_channel_id"] == env.channel.id  # read by the weekly challenge
    # /calico admin with no option shows them back, unchanged.
    again = await env.slash("owner", "calico", "admin")
    await again.wait_response()
    assert f"<#{games.id}>" in await answer_text(again)

    # Outside the games channel: a private refusal naming it; nothing is created.
    refused = await ask(env, "alice", "start")
    assert refused.ephemeral
    assert (await text_of(refused)) == EN("hosting.wrong_channel", channel=f"<#{games.id}>")
    refused = await ask(env, "alice", "solo")
    assert (await text_of(refused)) == EN("hosting.wrong_channel", channel=f"<#{games.id}>")
    # In it, without the role: refused too.
    refused = await ask(env, "alice", "start", channel=games)
    assert (await text_of(refused)) == EN("hosting.need_role", role=f"<@&{starters.id}>")
    assert await manager.store.game_ids() == []

    # With the role: the table opens with the server's defaults, in French, pinging the role.
    env.add_member("alice", roles=[starters])
    inter = await ask(env, "alice", "start", channel=games, players=2)
    await inter.wait_followup()
    [game_id] = await manager.store.game_ids()
    game = await game_of(env, game_id)
    assert game.options.turn_hours == 48
    assert game.options.timeout_action is TimeoutAction.COMPUTER
    assert game.thread_id is not None
    lobby = await env.wait_for_message(game.thread_id)
    assert lobby.content.startswith(FR("hosting.lobby_ping", role=f"<@&{players.id}>"))
    assert FR("lobby.help") in lobby.content  # the server's language, not alice's English
    post = next(r for r in env.requests if r.method == "POST"
                and r.path == f"/channels/{game.thread_id}/messages")
    mentions = post.body["allowed_mentions"]
    assert [int(r) for r in mentions["roles"]] == [players.id]  # exactly that role
    assert mentions.get("parse", []) == [] and not mentions.get("users")
    # Joining edits the lobby in place; it still names the role and the French text.
    join = await env.click("bob", lobby, label=FR("lobby.join"))
    await join.wait_response()
    edited = env.get_message(lobby.id)
    assert f"<@&{players.id}>" in edited.content and "Bob" in edited.content

    # Options given win over the defaults; managers may start without the role.
    inter = await ask(env, "owner", "start", channel=games, players=2, turn_hours=6,
                      timeout="remind")
    await inter.wait_followup()
    newest = await game_of(env, max(await manager.store.game_ids()))
    assert newest.options.turn_hours == 6
    assert newest.options.timeout_action is TimeoutAction.REMIND

    # Reset: back to anywhere, anyone, the host's language.
    inter = await env.slash("owner", "calico", "admin", options={"reset": "all"})
    await inter.wait_response()
    await inter.wait_followup()
    assert (await servers.settings(manager.kernel, env.guild.id)).is_default
    stored = json.loads(await manager.store.guild_settings(env.guild.id) or "{}")
    assert stored == {}
    inter = await ask(env, "carol", "solo")
    reply = await inter.wait_followup()
    assert "solo" in reply.content.lower()


async def test_role_ping_is_never_everyone(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(factory(tmp_path / "e.sqlite3"))
    everyone = env.guild.everyone
    inter = await env.slash("owner", "calico", "admin", options={"ping_role": everyone})
    await inter.wait_response()
    assert await answer_text(inter) == EN("hosting.no_everyone")
    # @everyone as the starter role means everyone.
    inter = await env.slash("owner", "calico", "admin", options={"starter_role": everyone})
    await inter.wait_response()
    await inter.wait_followup()
    assert (await servers.settings(bot(env).manager.kernel, env.guild.id)).starter_role_id is None


async def test_limits_and_cooldowns_answer_privately(discord_env: DiscordEnv,
                                                     tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(factory(tmp_path / "l.sqlite3", max_lobbies=2, start_cooldown=0))
    for _ in range(2):
        inter = await ask(env, "alice", "start", players=2)
        await inter.wait_followup()
    refused = await ask(env, "alice", "start", players=2)
    text = await answer_text(refused)
    assert refused.ephemeral
    assert text == EN("error.too_many_lobbies", limit=2, count=2)
    assert len(await bot(env).manager.store.game_ids()) == 2
    await env.stop_client()

    # The start cooldown: three at once, then "try again <in so long>".
    await env.start_client(factory(tmp_path / "c.sqlite3"))
    for _ in range(3):
        inter = await ask(env, "bob", "solo")
        await inter.wait_followup()
    waited = await ask(env, "bob", "solo")
    assert waited.ephemeral and waited.response_type == 4
    text = await text_of(waited)
    assert re.search(r"<t:\d+:R>", text) and "⏳" in text
    assert len(await bot(env).manager.store.game_ids()) == 3
    # Someone else is not held back.
    inter = await ask(env, "alice", "solo")
    await inter.wait_followup()
    assert len(await bot(env).manager.store.game_ids()) == 4


async def test_pictures_in_words_for_who_asked(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """alice turns "describe pictures in text" on: her turn DMs and private answers carry the
    long description (every placed tile and token named), the thread posts do not."""
    env = discord_env
    await env.start_client(factory(tmp_path / "w.sqlite3"))
    inter = await env.slash("alice", "calico", "settings", options={"describe": "on"})
    await inter.wait_response()
    said = await answer_text(inter)
    assert EN("settings.describe_on") in said and EN("settings.reminders_on") in said
    assert (await queries.get_settings(bot(env).manager.kernel, env.user("alice").id)).describe
    heading = EN("alt.heading")

    inter = await ask(env, "alice", "solo", setup="beginner")
    await inter.wait_followup()
    game = await game_of(env, (await bot(env).manager.store.game_ids())[0])
    assert game.thread_id is not None
    for _ in range(12):
        panel = await wait_panel(env, "alice", game.id, game.ply, CELL_SELECT)
        assert heading in panel.content  # the DM prompt describes its picture
        await turn_via(env, "alice", panel, game)
        previewed = env.get_message(panel.id).history[-1]
        assert heading in previewed.content  # and so does the preview, edited in place
        await settle(env, quiet=0.01)
        game = await game_of(env, game.id)
    assert not any(heading in m.content for m in env.messages(game.thread_id))

    inter = await env.slash("alice", "calico", "board")
    await inter.wait_response()
    text = await answer_text(inter)
    assert heading in text and inter.ephemeral
    assert game.state is not None
    view = public_view(game.state)
    seat = view.seats[0]
    cells = cell_segments(text.split(heading, 1)[1])

    for c in seat.placed:
        assert terms.tile_code_name(EN, view.config, seat.quilt[c]) in cells[cell_name(c)]
    for c, ci in seat.cats:
        assert EN("alt.token.cat", cat=terms.cat_name(view.config.cats[ci].id)) in cells[
            cell_name(c)]
    for c, _ in seat.buttons:
        assert EN("alt.token.button_plain") in cells[cell_name(c)]
    assert seat.placed and (seat.cats or seat.buttons or len(seat.placed) >= 12)

    # bob did not ask: his answers are as before.
    inter = await env.slash("bob", "calico", "rules", options={"topic": "cats"})
    await inter.wait_response()
    [msg] = await inter.wait_followups(1)
    assert EN("alt.heading") not in msg.content and FR("alt.heading") not in msg.content
    # The rules picture has its alt text.
    [att] = msg.attachments
    assert att.description == describe.rules(FR, "cats").short
    assert GameStatus.PLAY is game.status
