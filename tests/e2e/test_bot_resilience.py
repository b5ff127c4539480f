"""The awkward cases, end to end: a restart mid-turn, closed DMs, clicks that must change
nothing, missing permissions, reminders and autopilot on a fake clock, archived and deleted
threads, the bot removed from a server, a player leaving it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.models import GameStatus
from bot.words.catalogue import Text
from tests.adapter.harness import (
    DRAFT_SELECT,
    answer_text,
    bot,
    bot_factory,
    custom_ids,
    draft_via,
    game_of,
    pick_move,
    settle,
    turn_via,
    wait_panel,
)
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeMessage

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


async def two_player_game(env: DiscordEnv, tmp_path: Path, clock: FakeClock | None = None,
                          **start: object) -> tuple[int, int]:
    """alice and bob, beginner setup (no draft): returns (game id, thread id) once play began."""
    await env.start_client(bot_factory(tmp_path / "r.sqlite3", clock or FakeClock()))
    inter = await env.slash("alice", "calico", "start",
                            options={"players": 2, "setup": "beginner", **start})
    await inter.wait_response()
    await inter.wait_followup()
    thread = env.threads(env.channel)[-1]
    lobby = await env.wait_for_message(thread.id)
    await (await env.click("bob", lobby, label="Join")).wait_response()
    await (await env.click("alice", env.get_message(lobby.id), label="Start")).wait_response()
    await settle(env)
    game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
    assert game is not None and game.status is GameStatus.PLAY
    return game.id, thread.id


def name_of(env: DiscordEnv, user_id: int) -> str:
    return next(n for n in ("alice", "bob", "carol") if env.user(n).id == user_id)


async def test_restart_mid_turn_keeps_buttons_working(discord_env: DiscordEnv,
                                                      tmp_path: Path) -> None:
    """A cell is chosen, the bot restarts (new client, same file), the old buttons still work."""
    env = discord_env
    clock = FakeClock()
    game_id, _ = await two_player_game(env, tmp_path, clock)
    game = await game_of(env, game_id)
    user = name_of(env, game.current_user_id or 0)
    panel = await wait_panel(env, user, game_id, game.ply)
    move = pick_move(game, env.user(user).id)
    from engine.hexgrid import cell_name

    cell = cell_name(move.cell)
    pick = await env.select(user, panel, f"calico:c:{game_id}:{game.ply}:h{move.hand}", [cell])
    await pick.wait_response()
    await env.restart_client(bot_factory(tmp_path / "r.sqlite3", clock))
    take = f"calico:t:{game_id}:{game.ply}:h{move.hand}:{cell}:{move.market}"
    click = await env.click(user, env.get_message(panel.id), custom_id=take)
    await click.wait_response()
    assert click.response_type in (6, 7)
    await settle(env)
    after = await game_of(env, game_id)
    assert after.ply == game.ply + 1


async def test_dms_closed_fall_back_to_the_thread(discord_env: DiscordEnv,
                                                  tmp_path: Path) -> None:
    """bob's DMs are closed: the thread says so once, and /calico hand lets him play."""
    env = discord_env
    env.set_dms_open("bob", False)
    game_id, thread_id = await two_player_game(env, tmp_path)
    game = await game_of(env, game_id)
    for _ in range(3):  # play until it is bob's turn at least once
        if game.current_user_id == env.user("bob").id:
            break
        panel = await wait_panel(env, "alice", game_id, game.ply)
        await turn_via(env, "alice", panel, game)
        await settle(env)
        game = await game_of(env, game_id)
    notice = await env.wait_for_message(thread_id, lambda m: "/calico hand" in m.content
                                        and "direct messages" in m.content)
    assert f"<@{env.user('bob').id}>" in notice.content
    hand = await env.slash("bob", "calico", "hand", channel=thread_id)
    await hand.wait_response()
    panel = await hand.wait_followup()
    assert panel.ephemeral and panel.attachment("turn.png")
    await turn_via(env, "bob", panel, game)
    await settle(env)
    assert (await game_of(env, game_id)).ply == game.ply + 1
    fallbacks = [m for m in env.messages(thread_id) if "direct messages" in m.content]
    assert len(fallbacks) == 1


async def test_refused_clicks_change_nothing(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Someone else's button, an out-of-date button, a double click, a full table: a short
    private answer each, and the game stays as it was."""
    env = discord_env
    game_id, thread_id = await two_player_game(env, tmp_path)
    game = await game_of(env, game_id)
    mover = name_of(env, game.current_user_id or 0)
    other = "bob" if mover == "alice" else "alice"
    panel = await wait_panel(env, mover, game_id, game.ply)

    # the other player's own view has no turn controls; the thread's button is for anyone
    hand = await env.slash(other, "calico", "hand", channel=thread_id)
    await hand.wait_response()
    mine = await hand.wait_followup()
    assert mine.ephemeral and not mine.selects
    assert mover.title() in mine.content  # "it's Alice's turn", in the reader's language

    # a double click on the commit button: one turn is played, the second click is refused
    move = pick_move(game, env.user(mover).id)
    from engine.hexgrid import cell_name

    cell = cell_name(move.cell)
    pick = await env.select(mover, panel, f"calico:c:{game_id}:{game.ply}:h{move.hand}", [cell])
    await pick.wait_response()
    take = f"calico:t:{game_id}:{game.ply}:h{move.hand}:{cell}:{move.market}"
    shown = env.get_message(panel.id)
    first = await env.click(mover, shown, custom_id=take)
    second = await env.click(mover, shown, custom_id=take)
    await first.wait_response()
    await second.wait_response()
    await settle(env)
    assert (await game_of(env, game_id)).ply == game.ply + 1
    refused = [i for i in (first, second) if i.ephemeral]
    assert len(refused) == 1
    assert await answer_text(refused[0]) == Text(env.user(mover).locale)("error.stale")

    # a full table
    inter = await env.slash("alice", "calico", "start", options={"players": 2})
    await inter.wait_response()
    await inter.wait_followup()
    thread = env.threads(env.channel)[-1]
    lobby = await env.wait_for_message(thread.id)
    not_host = await env.click("bob", lobby, label="Start")
    await not_host.wait_response()
    assert not_host.ephemeral
    assert await answer_text(not_host) == Text("fr")("error.host_only")  # bob reads French
    await (await env.click("bob", lobby, label="Join")).wait_response()
    full = await env.click("carol", env.get_message(lobby.id), label="Join")
    await full.wait_response()
    assert full.ephemeral
    assert await answer_text(full) == Text(env.user("carol").locale)("error.game_full")


@pytest.mark.parametrize("missing", ["attach_files", "create_public_threads",
                                     "send_messages_in_threads"])
async def test_missing_permission_is_named(discord_env: DiscordEnv, tmp_path: Path,
                                           missing: str) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "p.sqlite3", FakeClock()))
    await env.deny_bot(env.channel, missing)
    inter = await env.slash("alice", "calico", "start", options={"players": 2})
    await inter.wait_response()
    text = await answer_text(inter)
    label = {"attach_files": "Attach Files", "create_public_threads": "Create Public Threads",
             "send_messages_in_threads": "Send Messages in Threads"}[missing]
    assert inter.ephemeral and label in text
    assert not env.threads(env.channel)


async def test_reminder_then_autopilot_on_the_fake_clock(discord_env: DiscordEnv,
                                                         tmp_path: Path) -> None:
    """Half the turn time: a reminder DM with a jump link; the deadline: the turn is played
    for the player and the thread says so."""
    env = discord_env
    clock = FakeClock()
    game_id, thread_id = await two_player_game(env, tmp_path, clock, turn_hours=12,
                                               timeout="autopilot")
    game = await game_of(env, game_id)
    user = name_of(env, game.current_user_id or 0)
    clock.advance(timedelta(hours=6, minutes=1))
    await bot(env).manager.sweep()
    reminder = await env.wait_for_dm(user, lambda m: "⏰" in m.content)
    assert f"/channels/{env.guild.id}/{thread_id}" in reminder.content
    clock.advance(timedelta(hours=6))
    report = await bot(env).manager.sweep()
    assert report.autoplayed == 1
    await env.wait_for_message(thread_id, lambda m: "⏱️" in m.content)
    assert (await game_of(env, game_id)).ply == game.ply + 1


async def test_closed_dms_get_the_reminder_as_a_thread_ping(discord_env: DiscordEnv,
                                                            tmp_path: Path) -> None:
    """bob's DMs are closed: at half time his reminder is posted in the game's thread, pinging
    him, with a jump link and the "Show my hand" button that lets him play from there."""
    env = discord_env
    env.set_dms_open("bob", False)
    clock = FakeClock()
    game_id, thread_id = await two_player_game(env, tmp_path, clock, turn_hours=12,
                                               timeout="remind")
    bob = env.user("bob").id
    game = await game_of(env, game_id)
    if game.current_user_id != bob:  # alice plays first: her turn, then bob's prompt fails
        panel = await wait_panel(env, "alice", game_id, game.ply)
        await turn_via(env, "alice", panel, game)
    await env.wait_for_message(thread_id, lambda m: "direct messages" in m.content)
    assert (await queries.get_settings(bot(env).manager.kernel, bob)).dm_closed_at is not None
    clock.advance(timedelta(hours=6, minutes=1))
    report = await bot(env).manager.sweep()
    assert report.reminders_in_thread == 1
    ping = await env.wait_for_message(thread_id, lambda m: "⏰" in m.content)
    assert f"<@{bob}>" in ping.content
    assert f"/channels/{env.guild.id}/{thread_id}" in ping.content  # the jump link
    posted = [r for r in env.requests_to("POST", f"/channels/{thread_id}/messages")
              if "⏰" in ((r.body or {}).get("content") or "")]
    assert posted and [int(u) for u in posted[-1].body["allowed_mentions"]["users"]] == [bob]
    hand = await env.click("bob", ping, label="Show my hand")
    await hand.wait_response()
    [panel] = await hand.wait_followups(1)
    assert panel.ephemeral and panel.attachment("turn.png")
    assert not [m for m in env.dm_messages("bob") if "⏰" in m.content]  # nothing by DM
    # One ping per reminder: a second sweep right away posts nothing more.
    await bot(env).manager.sweep()
    await settle(env)
    assert len([m for m in env.messages(thread_id) if "⏰" in m.content]) == 1


async def test_archived_thread_is_revived(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    game_id, thread_id = await two_player_game(env, tmp_path)
    await env.archive_thread(thread_id)
    game = await game_of(env, game_id)
    user = name_of(env, game.current_user_id or 0)
    panel = await wait_panel(env, user, game_id, game.ply)
    before = len(env.messages(thread_id))
    await turn_via(env, user, panel, game)
    await env.wait_for(lambda: len(env.messages(thread_id)) > before, what="a post")
    assert not env.get_channel(thread_id).archived


async def test_discord_life_never_crashes(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """A player leaves the server (their seat becomes a computer), the thread is deleted (the
    game ends), the bot is removed from a server: the bot carries on."""
    env = discord_env
    game_id, thread_id = await two_player_game(env, tmp_path)
    await env.remove_member("bob")
    await env.wait_for_message(thread_id, lambda m: "🤖" in m.content and "Bob" in m.content)
    await env.delete_channel(thread_id)

    async def ended() -> bool:
        return (await game_of(env, game_id)).status is GameStatus.ABANDONED

    for _ in range(100):
        if await ended():
            break
        await settle(env, quiet=0.02)
    assert await ended()
    await env.remove_bot_from_guild()
    await settle(env)
    assert env.client is not None and not env.client.is_closed()


def _content(msg: FakeMessage | None) -> str:
    return "" if msg is None else msg.content


async def test_draft_by_dm(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Standard setup: the goal draft DM has one select of every arrangement (≤ 24)."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "d.sqlite3", FakeClock()))
    inter = await env.slash("alice", "calico", "solo")
    await inter.wait_response()
    await inter.wait_followup()
    game = (await queries.games_for_user(bot(env).manager.kernel, env.user("alice").id))[0]
    panel = await wait_panel(env, "alice", game.id, 0, DRAFT_SELECT)
    select = panel.select(next(c for c in custom_ids(panel) if c.startswith("calico:g:")))
    assert len(select.options) == 24
    await draft_via(env, "alice", panel, game)
    assert "✅" in _content(env.get_message(panel.id))
