"""Where players meet the bot, through the real client and the fake Discord: ``/calico abandon``;
``status``, ``board``, ``games``, ``rules``, ``stats`` and ``leaderboard``; what a player sees
when Discord refuses or fails a post (``env.fail_next``); and answers to work that outlasts the
answer budget (deferred, then edited or followed up)."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.ui import messages
from bot.core import lobby, queries
from bot.core.clock import FakeClock
from bot.core.models import GameStatus, UserRef
from bot.core.notices import NoticeKind
from bot.core.storage import NoticeStatus
from bot.words.catalogue import Text
from engine.views import public_view
from tests.adapter.harness import (
    answer_text,
    bot,
    bot_factory,
    game_of,
    pick_move,
    settle,
    turn_via,
    wait_panel,
)
from tests.core.conftest import play_out
from tests.e2e.test_bot_resilience import name_of
from tests.fakediscord import DiscordEnv, perm_bits

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")


async def command(env: DiscordEnv, who: str, name: str, channel: Any = None,
                  **options: Any) -> tuple[Any, str]:
    inter = await env.slash(who, "calico", name, options=options, channel=channel)
    await inter.wait_response()
    return inter, await answer_text(inter)


async def open_lobby(env: DiscordEnv, user: str = "alice", **options: Any) -> tuple[int, int]:
    inter = await env.slash(user, "calico", "start", options={"players": 2, **options})
    await inter.wait_response()
    await inter.wait_followup()
    thread = env.threads(env.channel)[-1]
    game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
    assert game is not None
    return game.id, thread.id


async def started_table(env: DiscordEnv) -> tuple[int, int]:
    """alice and bob at a beginner table (no draft), play begun: (game id, thread id)."""
    game_id, thread_id = await open_lobby(env, setup="beginner")
    lobby = await env.wait_for_message(thread_id)
    await (await env.click("bob", lobby, label="Join")).wait_response()
    await (await env.click("alice", env.get_message(lobby.id), label="Start")).wait_response()
    await settle(env)
    assert (await game_of(env, game_id)).status is GameStatus.PLAY
    return game_id, thread_id


async def two_player_game(env: DiscordEnv, tmp_path: Path,
                          clock: FakeClock | None = None) -> tuple[int, int]:
    await env.start_client(bot_factory(tmp_path / "t.sqlite3", clock or FakeClock()))
    return await started_table(env)


# --------------------------------------------------------------------------- /calico abandon


async def test_abandon_by_the_host_others_and_a_server_manager(discord_env: DiscordEnv,
                                                              tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "ab.sqlite3", FakeClock()))
    bob = Text(env.user("bob").locale)
    # Nothing to abandon yet.
    inter, text = await command(env, "alice", "abandon")
    assert inter.ephemeral and text == EN("error.no_game_here")
    # The host cancels their own lobby (in its thread, no option needed).
    lobby_id, thread_id = await open_lobby(env)
    inter, text = await command(env, "alice", "abandon", channel=thread_id)
    assert text == EN("cancel.done", game=lobby_id)
    assert (await game_of(env, lobby_id)).status is GameStatus.CANCELLED
    await settle(env)
    assert any(EN("ended.cancelled") in m.content for m in env.messages(thread_id))

    # A started game: bob (a player, not the host) may not end it for everyone.
    game_id, thread_id = await started_table(env)
    inter, text = await command(env, "bob", "abandon", game=game_id)
    assert text == bob("error.manage_guild")
    assert (await game_of(env, game_id)).status is GameStatus.PLAY
    # Someone who manages the server may, from anywhere in it.
    mods = env.add_role("Mods", perm_bits("manage_guild"))
    env.add_member("carol", roles=[mods])
    carol = Text(env.user("carol").locale)
    inter, text = await command(env, "carol", "abandon", game=game_id)
    assert text == carol("abandon.done", game=game_id)
    assert (await game_of(env, game_id)).status is GameStatus.ABANDONED
    await settle(env)
    assert any(EN("ended.abandoned") in m.content for m in env.messages(thread_id))
    # Twice: it has ended already.
    inter, text = await command(env, "alice", "abandon", game=game_id)
    assert text == EN("error.game_over")
    # A game number that does not exist.
    inter, text = await command(env, "alice", "abandon", game=99_999)
    assert text == EN("error.unknown_game")


async def test_a_manager_of_another_server_may_not_abandon(discord_env: DiscordEnv,
                                                           tmp_path: Path) -> None:
    env = discord_env
    other = env.add_guild("Elsewhere")
    elsewhere = env.add_text_channel("lounge", guild=other)
    env.add_member("carol", other, roles=[env.add_role("Boss", perm_bits("manage_guild"),
                                                       guild=other)])
    await env.start_client(bot_factory(tmp_path / "ab2.sqlite3", FakeClock()))
    game_id, _ = await open_lobby(env)
    _inter, text = await command(env, "carol", "abandon", channel=elsewhere, game=game_id)
    # Another server's game: refused as if it did not exist (issue #20).
    assert text == Text(env.user("carol").locale)("error.unknown_game")
    assert (await game_of(env, game_id)).status is GameStatus.LOBBY


# --------------------------------------------------------------------------- looking around


async def test_status_board_and_games(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "look.sqlite3", FakeClock()))
    inter, text = await command(env, "alice", "games")
    assert text == EN("games.none")
    lobby_id, lobby_thread = await open_lobby(env)
    inter, text = await command(env, "alice", "status", channel=lobby_thread)
    assert inter.ephemeral
    assert EN("status.title", game=lobby_id, status=EN("status.name.lobby")) in text
    # The board of a game that has not started: nobody has a quilt yet.
    inter, text = await command(env, "alice", "board", channel=lobby_thread)
    assert text == EN("error.not_a_player")
    await (await env.slash("alice", "calico", "abandon", channel=lobby_thread)).wait_response()

    game_id, thread_id = await started_table(env)
    game = await game_of(env, game_id)
    inter = await env.slash("bob", "calico", "status", channel=thread_id)
    await inter.wait_response()
    [msg] = await inter.wait_followups(1)
    bob = Text(env.user("bob").locale)
    assert bob("status.scores") in msg.content
    [table] = msg.attachments
    assert table.filename == "table.png" and table.description
    # Whose turn, in the reader's language: the name of the player to move.
    current = name_of(env, game.current_user_id or 0)
    assert current.title() in msg.content or current in msg.content.lower()

    # Boards: one's own (no option), another's by seat number, a name, nobody.
    inter = await env.slash("alice", "calico", "board", channel=thread_id)
    await inter.wait_response()
    [own] = await inter.wait_followups(1)
    assert own.ephemeral and own.attachment("quilt.png").description
    assert "alice" in own.content.lower()
    inter = await env.slash("alice", "calico", "board", options={"player": "2"},
                            channel=thread_id)
    await inter.wait_response()
    [second] = await inter.wait_followups(1)
    assert game.seats[1].name in second.content
    inter, text = await command(env, "alice", "board", channel=thread_id, player="nobody")
    assert text == EN("error.no_such_player")
    picks = await env.autocomplete("alice", "calico", "board", options={"player": ""},
                                   focused="player", channel=thread_id)
    await picks.wait_response()
    assert [c["value"] for c in picks.choices or []] == ["1", "2"]

    # /calico games lists it with a link, and says whose turn it is.
    inter, text = await command(env, "alice", "games")
    assert EN("games.title") in text and f"/channels/{env.guild.id}/{thread_id}" in text
    mine = EN("games.your_turn").strip()
    assert (mine in text) == (game.current_user_id == env.user("alice").id)
    # Outside its thread, with two games to choose from, a game must be named.
    await open_lobby(env, "alice")
    inter, text = await command(env, "alice", "status")
    assert text == EN("error.pick_game")


async def test_rules_text_and_pictures(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "rules.sqlite3", FakeClock()))
    inter = await env.slash("alice", "calico", "rules")
    await inter.wait_response()
    assert inter.response_type == 4 and inter.ephemeral  # text only: answered at once
    [msg] = await inter.wait_followups(1)
    assert "`cats`" in msg.content and not msg.attachments
    inter = await env.slash("bob", "calico", "rules", options={"topic": "goals"})
    await inter.wait_response()
    [msg] = await inter.wait_followups(1)
    [picture] = msg.attachments
    assert picture.description and "AAA-BBB" in picture.description


async def test_stats_and_leaderboard(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "stats.sqlite3", FakeClock()))
    inter, text = await command(env, "alice", "stats")
    assert EN("stats.none") in text
    inter, text = await command(env, "alice", "leaderboard")
    assert not inter.ephemeral and EN("leaderboard.none") in text
    # alice finishes a solo game (played through the manager; the posts go to Discord).
    manager = bot(env).manager
    alice = UserRef(env.user("alice").id, "alice", "en-US")
    game = await lobby.create_game(manager.kernel, alice, env.guild.id, env.channel.id,
                                     options=None, open_thread=True, start=True)
    game = await play_out(manager, game)
    assert game.status is GameStatus.OVER
    assert game.state is not None
    total = public_view(game.state).seats[0].score["total"]
    await settle(env)
    inter, text = await command(env, "alice", "stats")
    # Solo: a win is a scenario passed; a plain solo game has none to pass.
    assert EN("stats.body", played=1, wins=0, best=total,
              average=f"{float(total):.1f}") in text
    inter, text = await command(env, "bob", "stats", user=env.user("alice"))
    assert "1" in text and str(total) in text
    inter, text = await command(env, "carol", "leaderboard")
    assert EN("leaderboard.title") in text and "**alice**" in text


# --------------------------------------------------------------------------- Discord refuses


async def finish_turn(env: DiscordEnv, game_id: int) -> Any:
    """The player to move plays one turn through their DM; returns the game before it."""
    game = await game_of(env, game_id)
    user = name_of(env, game.current_user_id or 0)
    panel = await wait_panel(env, user, game_id, game.ply)
    await turn_via(env, user, panel, game)
    return game


def table_notices(notices: list[Any], ply: int) -> list[Any]:
    return [n for n in notices if n.kind == NoticeKind.TABLE and n.ply == ply]


async def table_notice(env: DiscordEnv, game_id: int, ply: int, *, until: str | None = None,
                       timeout: float = 15.0) -> Any:
    """The thread post notice of the move that made ``ply`` (once its status is ``until``)."""
    manager = bot(env).manager
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        [notice] = table_notices(await manager.store.notices(game_id), ply)
        if until is None or notice.status == until or loop.time() > end:
            return notice
        await asyncio.sleep(0.05)


async def test_thread_posts_retried_or_given_up(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """A 429 and a 500 are retried by discord.py, a 503 by the outbox (after its backoff): the
    post arrives once either way. A 50013 (missing permission) gives that post up and the game
    goes on; a 10003 (the thread is gone) ends the game."""
    env = discord_env
    clock = FakeClock()
    game_id, thread_id = await two_player_game(env, tmp_path, clock)
    path = f"/channels/{thread_id}/messages"

    for failure in ({"status": 429}, {"status": 500}):
        env.fail_next(method="POST", path=path, retry_after=0.05, **failure)
        before = await finish_turn(env, game_id)
        notice = await table_notice(env, game_id, before.ply + 1, until=NoticeStatus.DONE)
        # One try from the outbox's side (discord.py waited and sent it again itself).
        assert notice.status == NoticeStatus.DONE and notice.attempts == 1
        posted = [m for m in env.messages(thread_id) if m.id == notice.message_id]
        assert len(posted) == 1 and posted[0].attachment("quilt.png")

    env.fail_next(503, method="POST", path=path)
    before = await finish_turn(env, game_id)
    await env.wait_for(lambda: any(r.status == 503 for r in env.requests), timeout=10)
    await settle(env)
    notice = await table_notice(env, game_id, before.ply + 1)
    assert notice.status == NoticeStatus.PENDING and notice.attempts == 1  # waits its backoff
    clock.advance(timedelta(seconds=5))
    notice = await table_notice(env, game_id, before.ply + 1, until=NoticeStatus.DONE)
    assert notice.status == NoticeStatus.DONE and notice.attempts == 2
    assert sum(m.id == notice.message_id for m in env.messages(thread_id)) == 1

    env.fail_next(403, method="POST", path=path, code=50013, message="Missing Permissions")
    before = await finish_turn(env, game_id)
    notice = await table_notice(env, game_id, before.ply + 1, until=NoticeStatus.FAILED)
    assert notice.status == NoticeStatus.FAILED
    game = await game_of(env, game_id)
    assert game.status is GameStatus.PLAY  # the game goes on: the next prompt came by DM
    await wait_panel(env, name_of(env, game.current_user_id or 0), game_id, game.ply)

    env.fail_next(404, method="POST", path=path, code=10003, message="Unknown Channel")
    before = await finish_turn(env, game_id)
    await settle(env)
    game = await game_of(env, game_id)
    assert game.status is GameStatus.ABANDONED and game.end_reason == "channel_gone"


async def test_a_table_without_a_thread_is_counted_undeliverable(discord_env: DiscordEnv,
                                                                 tmp_path: Path) -> None:
    """A game whose thread was never recorded: its thread posts are marked undeliverable, and
    the player still gets their turn by DM."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "nt.sqlite3", FakeClock()))
    manager = bot(env).manager
    alice = UserRef(env.user("alice").id, "alice", "en-US")
    from bot.core.models import LobbyOptions

    game = await lobby.create_game(manager.kernel, alice, env.guild.id, env.channel.id,
                                     LobbyOptions(players=1, setup="beginner"), start=True)
    assert game.thread_id is None
    panel = await wait_panel(env, "alice", game.id, game.ply)
    assert panel.attachment("turn.png")
    await settle(env)
    started = [n for n in await manager.store.notices(game.id)
               if n.kind == NoticeKind.STARTED]
    assert [n.status for n in started] == [NoticeStatus.UNDELIVERABLE]
    assert bot(env).dispatcher is not None
    assert bot(env).dispatcher.counts[NoticeStatus.UNDELIVERABLE.value] >= 1


async def test_a_dm_failing_for_a_while_is_retried(discord_env: DiscordEnv,
                                                   tmp_path: Path) -> None:
    """A 502 on a turn prompt DM: discord.py tries again and the player gets it once."""
    env = discord_env
    clock = FakeClock()
    game_id, _ = await two_player_game(env, tmp_path, clock)
    manager = bot(env).manager
    game = await game_of(env, game_id)
    first = name_of(env, game.current_user_id or 0)
    dm_channel = env.dm_messages(first)[0].channel_id
    await finish_turn(env, game_id)
    # The prompt back to the first player (after the other's turn) fails once.
    env.fail_next(502, method="POST", path=f"/channels/{dm_channel}/messages")
    await finish_turn(env, game_id)
    ply = game.ply + 2
    panel = await wait_panel(env, first, game_id, ply, timeout=10)
    assert panel.attachment("turn.png")
    assert any(r.status == 502 for r in env.requests)

    async def prompt_status() -> list[str]:
        return [n.status for n in await manager.store.notices(game_id)
                if n.kind == NoticeKind.TURN_PROMPT and n.ply == ply]

    for _ in range(100):
        if await prompt_status() == [NoticeStatus.DONE]:
            break
        await asyncio.sleep(0.05)
    assert await prompt_status() == [NoticeStatus.DONE]
    assert sum(has_prompt(m, game_id, ply) for m in env.dm_messages(first)) == 1


def has_prompt(message: Any, game_id: int, ply: int) -> bool:
    return any(c.custom_id and c.custom_id.startswith(f"calico:c:{game_id}:{ply}:")
               for c in message.walk_components())


# --------------------------------------------------------------------------- slow answers


async def test_slow_work_is_deferred_then_edited_or_followed_up(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Work that outlasts the answer budget (1.5 s) is deferred in time (Discord allows 3 s):
    a click's message is then edited, a new panel followed up; a refusal found late goes out
    privately; a crash late gets the apology."""
    env = discord_env
    game_id, thread_id = await two_player_game(env, tmp_path)
    game = await game_of(env, game_id)
    user = name_of(env, game.current_user_id or 0)
    panel = await wait_panel(env, user, game_id, game.ply)
    real = messages.turn_panel
    mode = {"how": "slow"}

    async def slow_panel(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(1.8)
        if mode["how"] == "crash":
            raise RuntimeError("the renderer fell over")
        return await real(*args, **kwargs)

    monkeypatch.setattr(messages, "turn_panel", slow_panel)
    move = pick_move(game, env.user(user).id)
    from engine.hexgrid import cell_name

    cell = cell_name(move.cell)
    pick = await env.select(user, panel, f"calico:c:{game_id}:{game.ply}:h{move.hand}", [cell])
    await pick.wait_response(timeout=3)
    assert pick.response_type == 6  # deferred update, within the deadline
    await pick.wait_until(lambda ix: any(e.kind == "edit_original" for e in ix.events),
                          timeout=10)
    edited = env.get_message(panel.id)
    assert f"**{cell}**" in edited.content and edited.attachment("turn.png")

    # "Show my hand" from the thread: deferred (thinking, private), then followed up.
    post = next(m for m in reversed(env.messages(thread_id)) if m.buttons)
    hand = await env.click(user, post, custom_id=f"calico:hand:{game_id}")
    await hand.wait_response(timeout=3)
    assert hand.deferred and hand.ephemeral
    [shown] = await hand.wait_followups(1, timeout=10)
    assert shown.attachment("turn.png")

    # A crash after the budget: the private apology, as a follow-up.
    mode["how"] = "crash"
    hand = await env.click(user, post, custom_id=f"calico:hand:{game_id}")
    await hand.wait_response(timeout=3)
    [sorry] = await hand.wait_followups(1, timeout=10)
    assert sorry.content == Text(env.user(user).locale)("error.generic")
    env.pop_client_errors()
    metrics = bot(env).metrics.render()[0].decode()
    assert re.search(r'outcome="deferred"', metrics)


# --------------------------------------------------------------------------- opening a table


async def test_a_table_whose_thread_cannot_be_made(discord_env: DiscordEnv,
                                                   tmp_path: Path) -> None:
    """Creating the thread is refused (403): the host hears it, privately and by DM, and the
    table is cancelled. A 503 instead: the outbox tries again after its backoff and the table
    opens."""
    env = discord_env
    clock = FakeClock()
    await env.start_client(bot_factory(tmp_path / "th.sqlite3", clock))
    manager = bot(env).manager
    threads = f"/channels/{env.channel.id}/threads"
    env.fail_next(403, method="POST", path=threads, code=50013, message="Missing Permissions")
    inter = await env.slash("alice", "calico", "start", options={"players": 2})
    await inter.wait_response()
    reply = await inter.wait_followup(timeout=15)
    [game_id] = await manager.store.game_ids()
    assert EN("setup.failed", game=game_id, reason="").strip() in reply.content
    game = await game_of(env, game_id)
    assert game.status is GameStatus.CANCELLED and game.end_reason == "no_thread"
    told = await env.wait_for_dm("alice", lambda m: f"#{game_id}" in m.content, timeout=10)
    assert EN("perm.create_public_threads") in told.content
    assert not env.threads(env.channel)

    env.fail_next(503, method="POST", path=threads)
    inter = await env.slash("bob", "calico", "solo", options={"setup": "beginner"})
    await inter.wait_response()
    for _ in range(200):  # the failure recorded, with the time of the next try
        opening = [n for n in await manager.store.notices()
                   if n.kind == NoticeKind.OPEN_THREAD and n.game_id != game_id]
        if opening and opening[0].attempts == 1:
            break
        await asyncio.sleep(0.05)
    clock.advance(timedelta(seconds=5))  # past the outbox's backoff
    reply = await inter.wait_followup(timeout=15)
    assert "<#" in reply.content  # opened, with a link to the thread
    [thread] = env.threads(env.channel)
    game = await queries.game_for_thread(bot(env).manager.kernel, thread.id)
    assert game is not None and game.status is GameStatus.PLAY


async def test_a_deleted_lobby_message_comes_back(discord_env: DiscordEnv,
                                                  tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "lb.sqlite3", FakeClock()))
    game_id, thread_id = await open_lobby(env)
    lobby = await env.wait_for_message(thread_id)
    await (await env.click("bob", lobby, label="Join")).wait_response()
    await settle(env)
    await env.server._delete(env.get_message(lobby.id))  # someone deleted it
    inter, _text = await command(env, "bob", "leave", channel=thread_id)
    assert inter.ephemeral
    again = await env.wait_for_message(thread_id, lambda m: m.id != lobby.id
                                       and m.button("Join") is not None, timeout=10)
    assert "Bob" not in again.content  # the lobby as it is now
    for _ in range(100):  # and recorded as the lobby message from now on
        game = await queries.game(bot(env).manager.kernel, game_id, fresh=True)
        if game.lobby_message_id == again.id:
            break
        await asyncio.sleep(0.05)
    assert game.lobby_message_id == again.id


async def test_a_post_refused_as_archived_revives_the_thread(discord_env: DiscordEnv,
                                                             tmp_path: Path) -> None:
    env = discord_env
    game_id, thread_id = await two_player_game(env, tmp_path)
    env.fail_next(400, method="POST", path=f"/channels/{thread_id}/messages", code=50083,
                  message="Thread is archived")
    before = await finish_turn(env, game_id)
    notice = await table_notice(env, game_id, before.ply + 1, until=NoticeStatus.DONE)
    assert notice.status == NoticeStatus.DONE
    assert any(r.method == "PATCH" and r.path == f"/channels/{thread_id}"
               for r in env.requests)
    assert sum(m.id == notice.message_id for m in env.messages(thread_id)) == 1


async def test_refusals_and_answers_that_discord_loses(discord_env: DiscordEnv,
                                                       tmp_path: Path) -> None:
    """"Show my hand" from someone not playing: refused privately at once. An answer Discord
    refuses is counted as a Discord error and the player gets a private apology in its place
    (never "interaction failed"); the next command works."""
    env = discord_env
    game_id, thread_id = await two_player_game(env, tmp_path)
    post = next(m for m in reversed(env.messages(thread_id)) if m.buttons)
    carol = await env.click("carol", post, custom_id=f"calico:hand:{game_id}")
    await carol.wait_response()
    assert carol.response_type == 4 and carol.ephemeral
    assert await answer_text(carol) == Text(env.user("carol").locale)("error.not_a_player")

    env.fail_next(400, method="POST", path="/interactions/*/callback", code=50035,
                  message="Invalid Form Body")
    lost = await env.slash("alice", "calico", "games")
    for _ in range(100):
        if lost.callbacks:
            break
        await asyncio.sleep(0.05)
    [apology] = lost.callbacks
    assert apology.data["flags"] == 64
    assert apology.data["content"] == Text(env.user("alice").locale)("error.generic")
    env.pop_client_errors()
    metrics = bot(env).metrics.render()[0].decode()
    assert re.search(r'calico_discord_errors_total\{code="50035",status="400"\} 1', metrics)
    _inter, text = await command(env, "alice", "games")
    assert EN("games.title") in text


async def test_a_game_is_seen_only_from_its_server_or_by_its_players(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Issue #20, players 2: ``board``/``status`` with ``game:N`` answer only in the game's own
    server, or to one of its players anywhere (DMs too); anyone else gets the same private
    "can't find that game" as for a number that does not exist."""
    env = discord_env
    other = env.add_guild("Elsewhere")
    elsewhere = env.add_text_channel("lounge", guild=other)
    env.add_user("mallory")
    env.add_member("mallory", other)
    await env.start_client(bot_factory(tmp_path / "seen.sqlite3", FakeClock()))
    game_id, _thread_id = await open_lobby(env)
    carol_dm = env.state.dm_channel(env.user("carol"))
    mallory = Text(env.user("mallory").locale)
    for name in ("board", "status"):
        # Another server, or a DM of someone not at the table: nothing, not even that it exists.
        inter, text = await command(env, "mallory", name, channel=elsewhere, game=game_id)
        assert inter.ephemeral and text == mallory("error.unknown_game")
        inter, text = await command(env, "carol", name, channel=carol_dm, game=game_id)
        assert inter.ephemeral and text == Text(env.user("carol").locale)("error.unknown_game")
    # Its own server: anyone there may look.
    inter, text = await command(env, "carol", "status", game=game_id)
    assert inter.ephemeral and str(game_id) in text
    # One of its players, from a DM: yes.
    alice_dm = env.state.dm_channel(env.user("alice"))
    inter, text = await command(env, "alice", "status", channel=alice_dm, game=game_id)
    assert str(game_id) in text and text != EN("error.unknown_game")
    # The game autocomplete lists only the reader's own games.
    picks = await env.autocomplete("mallory", "calico", "status", options={"game": ""},
                                   focused="game", channel=elsewhere)
    await picks.wait_response()
    assert picks.choices == []
