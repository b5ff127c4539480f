"""Refusals that end (issue 29): a post Discord refuses for good (an invalid form body) ends at
once, with one log line and the ``failed`` count, is never sent again (each try would count
towards Discord's invalid-request ban), and the rest of its lane goes on; a DM refused that way
is that message only: the person's DMs are not taken for closed."""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core import turns
from bot.core.clock import FakeClock
from bot.core.models import GameStatus
from bot.core.notices import NoticeKind
from bot.core.storage import NoticeStatus
from bot.words.catalogue import Text
from tests.adapter.harness import bot, bot_factory, game_of, pick_move, settle, wait_panel
from tests.e2e.test_bot_commands import finish_turn, table_notice
from tests.e2e.test_bot_resilience import name_of, two_player_game
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)


def refused_lines(caplog: pytest.LogCaptureFixture, notice_id: int) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.getMessage().startswith(f"notice {notice_id} ")]


def failed_count(env: DiscordEnv) -> float:
    metrics = bot(env).metrics.render()[0].decode()
    found = re.search(r'calico_notices_total\{outcome="failed"\} ([0-9.]+)', metrics)
    return float(found.group(1)) if found else 0.0


async def test_a_thread_post_with_an_invalid_form_body_ends_at_once(
        discord_env: DiscordEnv, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    env = discord_env
    caplog.set_level(logging.INFO, logger="calico.outbox")
    clock = FakeClock()
    game_id, thread_id = await two_player_game(env, tmp_path, clock)
    path = f"/channels/{thread_id}/messages"
    env.fail_next(400, method="POST", path=path, code=50035, message="Invalid Form Body")
    before = await finish_turn(env, game_id)
    notice = await table_notice(env, game_id, before.ply + 1, until=NoticeStatus.FAILED)
    assert notice.status == NoticeStatus.FAILED
    # One line says it, and the metric counts it.
    # (counted right after it is stored)
    assert await env.wait_for(lambda: failed_count(env) == 1, timeout=5)
    [line] = refused_lines(caplog, notice.id)
    assert "refused for good" in line and "50035" in line
    # The rest of the lane goes on: the next move's post comes.
    before = await finish_turn(env, game_id)
    following = await table_notice(env, game_id, before.ply + 1, until=NoticeStatus.DONE)
    assert following.status == NoticeStatus.DONE
    assert any(m.id == following.message_id for m in env.messages(thread_id))
    # ...and the refused one is never sent again, however long the bot runs.
    clock.advance(timedelta(days=1))
    await settle(env)
    assert sum(1 for r in env.requests if r.status == 400 and r.path == path) == 1
    assert (await table_notice(env, game_id, notice.ply)).status == NoticeStatus.FAILED
    assert len(refused_lines(caplog, notice.id)) == 1


async def test_a_dm_with_an_invalid_form_body_ends_without_closing_the_dms(
        discord_env: DiscordEnv, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    env = discord_env
    caplog.set_level(logging.INFO, logger="calico.outbox")
    clock = FakeClock()
    game_id, _thread = await two_player_game(env, tmp_path, clock)
    game = await game_of(env, game_id)
    mover = name_of(env, game.current_user_id or 0)
    other = "bob" if mover == "alice" else "alice"
    dm = env.state.dm_channel(env.user(other))
    env.fail_next(400, method="POST", path=f"/channels/{dm.id}/messages", code=50035,
                  message="Invalid Form Body")
    await finish_turn(env, game_id)
    await env.wait_for(lambda: any(r.status == 400 for r in env.requests), timeout=10)
    await settle(env)
    manager = bot(env).manager
    refused = [n for n in await manager.store.notices(game_id)
               if n.user_id == env.user(other).id and n.status == NoticeStatus.FAILED]
    assert len(refused) == 1
    [line] = refused_lines(caplog, refused[0].id)
    assert "refused for good" in line
    # Not taken for closed DMs: no "use /calico hand" post in the thread, and the next DM comes.
    assert not [n for n in await manager.store.notices(game_id)
                if n.kind == NoticeKind.DM_FALLBACK]
    user = await manager.kernel.user(env.user(other).id)
    assert user.dm_closed_at is None
    # The refused message was their turn's: they play it another way (here, straight through
    # the core), the other player moves, and their next turn comes by DM as usual.
    game = await game_of(env, game_id)
    assert name_of(env, game.current_user_id or 0) == other
    uid = env.user(other).id
    await turns.play_turn(manager.kernel, game_id, uid, game.ply,
                          pick_move(game, uid).text())
    await finish_turn(env, game_id)
    game = await game_of(env, game_id)
    await wait_panel(env, other, game_id, game.ply)
    clock.advance(timedelta(days=1))
    await settle(env)
    assert sum(1 for r in env.requests if r.status == 400) == 1


async def test_a_thread_discord_refuses_to_open_cancels_its_table_and_says_so(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "refused.sqlite3", FakeClock()))
    path = f"/channels/{env.channel.id}/threads"
    env.fail_next(400, method="POST", path=path, code=50035, message="Invalid Form Body")
    dms = len(env.dm_messages("alice"))
    await (await env.slash("alice", "calico", "start", options={"players": 2})).wait_followup()
    told = await env.wait_for(lambda: env.dm_messages("alice")[dms:] or None, timeout=10)
    assert Text(env.user("alice").locale)("setup.refused") in told[0].content
    assert (await game_of(env, 1)).status is GameStatus.CANCELLED
    await settle(env)
    assert sum(1 for r in env.requests if r.path == path and r.method == "POST") == 1
