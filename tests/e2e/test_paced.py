"""Paced to Discord's limits (issue 29, findings 4 and 5), through the stand-in enforcing them
(windows shortened: ``scale``) and the real bot.

- Finding 4: thirty ``/calico start`` while the bot's thread budget is spent used to hold every
  outbox slot in discord.py's wait, and nobody already playing heard anything until the budget
  came back. Now those openings are put off without holding a slot: a player's next turn comes
  at once, the thirty hosts are told when their tables open (and the answer is edited to point
  to the thread when it does), and every table opens once, with one lobby.
- Finding 5: more solo games than the thread budget allows start at once, played in DMs; their
  threads follow when Discord allows.
- Per channel: a burst of posts in one thread is paced to its bucket (no 429 past the first)
  and never holds the posts of other games.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.adapter.client import CalicoBot
from bot.adapter.ui import images
from bot.core import turns
from bot.settings import Settings
from tests.adapter.harness import (
    CELL_SELECT,
    bot,
    game_of,
    has_control,
    pick_move,
    settle,
    turn_via,
)
from tests.fakediscord import DiscordEnv
from tests.fakediscord.ratelimits import THREADS, RateLimits, Window, with_thread_budget

WINDOW = 20.0  # the thread budget's window in these tests (Discord's 300 s, scaled)
SCALE = WINDOW / THREADS.window  # every window as much shorter: 5 posts per 0.33 s
WHEN = re.compile(r"<t:(\d+):R>")

THREADS_SPENT = 38  # of a budget of 40
pytestmark = pytest.mark.fakediscord(rate_limits=True)


def limits(env: DiscordEnv, thread_budget: int) -> RateLimits:
    """Discord's limits, scaled, with a smaller thread budget (fresh for each test)."""
    env.state.rate_limits = RateLimits(routes=with_thread_budget(thread_budget), scale=SCALE)
    return env.state.rate_limits


def factory(db: Path) -> Callable[[], CalicoBot]:
    settings = Settings(token="fake", db_path=str(db), start_cooldown=0, lobbies_per_hour=0)

    def make() -> CalicoBot:
        return CalicoBot(settings, sync="never", sweep_interval=3600.0, dispatch_poll=0.05)

    return make


def people(env: DiscordEnv, count: int) -> list[str]:
    names = [f"host{i}" for i in range(count)]
    for name in names:
        env.add_user(name)
    return names


def threads_of(env: DiscordEnv, game_id: int) -> list[object]:
    return [t for t in env.threads(env.channel) if f"#{game_id} " in f"{t.name} "]


async def test_a_spent_thread_budget_holds_no_other_game(discord_env: DiscordEnv,
                                                         tmp_path: Path) -> None:
    env = discord_env
    rate = limits(env, thread_budget=40)
    hosts = people(env, 30)
    await env.start_client(factory(tmp_path / "paced.sqlite3"))
    loop = asyncio.get_running_loop()
    # Nearly spent by earlier tables: alice's solo game takes the last but one.
    rate.windows[(THREADS.bucket, "*")] = Window(env.state.clock(), THREADS_SPENT)
    budget_back = loop.time() + WINDOW
    await (await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup(timeout=10)
    solo = await game_of(env, 1)
    panel = await env.wait_for_dm("alice", lambda m: has_control(m, CELL_SELECT, solo.id,
                                                                 solo.ply), timeout=10)
    starts = [await env.slash(h, "calico", "start", options={"players": 2}) for h in hosts]
    await asyncio.sleep(1.0)  # the openings meet the spent budget
    began = loop.time()
    await turn_via(env, "alice", panel, await game_of(env, solo.id))
    after = await game_of(env, solo.id)
    await env.wait_for_dm("alice", lambda m: has_control(m, CELL_SELECT, solo.id, after.ply),
                          timeout=10)
    assert loop.time() - began < 3.0  # not held behind the thirty openings
    # Each host is told when their table opens: open now (the thread named), or a time
    # ahead, honestly (not before the budget comes back, not long after).
    answers = [await ix.wait_followup(timeout=15) for ix in starts]
    queued = 0
    for answer in answers:
        when = WHEN.findall(answer.content)
        if when:
            queued += 1
            at = int(when[0]) - time.time() + loop.time()
            assert budget_back - 3 <= at <= budget_back + 8, (at - loop.time(), answer.content)
        else:
            assert "<#" in answer.content, answer.content
    assert queued >= 29
    # Then every table opens once, with one lobby, and its answer points to it.
    games = range(2, 32)

    def lobbies(game_id: int) -> list[object]:
        return [m for t in threads_of(env, game_id) for m in env.messages(t)
                if any(b.label == "Join" for b in m.buttons)]

    await env.wait_for(lambda: all(lobbies(g) for g in games) or None, timeout=40)
    await settle(env)
    assert all(len(threads_of(env, g)) == 1 and len(lobbies(g)) == 1 for g in games)
    await env.wait_for(lambda: all("<#" in env.get_message(a.id).content for a in answers)
                       or None, timeout=20)
    assert env.state.nonce_duplicates == []
    assert [r for r in rate.records if r.path.endswith("/threads")] == []  # the pacer knew
    assert bot(env).pacer.invalid_recent() == 0


async def test_more_solo_games_than_threads_start_at_once(discord_env: DiscordEnv,
                                                          tmp_path: Path) -> None:
    env = discord_env
    limits(env, thread_budget=5)
    players = people(env, 8)
    await env.start_client(factory(tmp_path / "solo.sqlite3"))
    loop = asyncio.get_running_loop()
    for player in players[:4]:  # four threads: the budget is down to its reserve
        answer = await (await env.slash(player, "calico", "solo", options={"setup": "beginner"})
                        ).wait_followup(timeout=10)
        assert "<#" in answer.content
    began = loop.time()
    starts = [await env.slash(p, "calico", "solo", options={"setup": "beginner"})
              for p in players[4:]]
    # Every game is played at once, in DMs, whatever the thread budget...
    for player in players[4:]:
        await env.wait_for_dm(player, lambda m: any(CELL_SELECT.fullmatch(c.custom_id or "")
                                                    for c in m.walk_components()), timeout=5)
    answers = [await ix.wait_followup(timeout=5) for ix in starts]
    assert loop.time() - began < 5.0
    for answer in answers:  # ...and its player is told when its thread opens
        assert "has started" in answer.content and "DMs" in answer.content, answer.content
        [when] = WHEN.findall(answer.content)
        assert int(when) > time.time() + 3
    await env.wait_for(lambda: len(env.threads(env.channel)) >= 8 or None, timeout=40)
    assert len({t.name for t in env.threads(env.channel)}) == 8


async def test_a_budget_with_discords_five_minute_window_is_spent_at_once(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Issue 29's start burst at Discord's own windows: the thread budget's window is longer
    than discord.py's ``max_ratelimit_timeout`` (30 s), and discord.py refused every thread but
    the first of a window on its own (its bucket's reset was too far), tokens left or not, until
    30 s before the reset: one table opened, the others 270 s late at Discord's five minutes.
    Here the window is 60 s: the tables the budget allows open at once, each answer naming its
    thread."""
    env = discord_env
    rate = limits(env, thread_budget=6)
    rate.routes = with_thread_budget(6, 60.0 / SCALE)  # 60 s once scaled, past discord.py's 30
    players = people(env, 4)
    await env.start_client(factory(tmp_path / "window.sqlite3"))
    loop = asyncio.get_running_loop()
    began = loop.time()
    starts = [await env.slash(p, "calico", "solo", options={"setup": "beginner"})
              for p in players]
    await env.wait_for(lambda: len(env.threads(env.channel)) >= 4 or None, timeout=15)
    assert loop.time() - began < 15.0
    answers = [await ix.wait_followup(timeout=10) for ix in starts]
    await env.wait_for(lambda: all("<#" in env.get_message(a.id).content for a in answers)
                       or None, timeout=10)
    assert all(not WHEN.findall(env.get_message(a.id).content) for a in answers)
    assert len({t.name for t in env.threads(env.channel)}) == 4
    assert rate.records == []  # and no 429 either


async def test_a_burst_in_one_thread_is_paced_and_holds_no_other(discord_env: DiscordEnv,
                                                                 tmp_path: Path) -> None:
    """Twelve posts due in one thread at once (a four-computer table played fast): paced to
    its bucket, with no 429 in it, while another game's posts go out meanwhile."""
    env = discord_env
    await env.start_client(factory(tmp_path / "burst.sqlite3"))
    ix = await env.slash("alice", "calico", "start",
                         options={"players": 4, "computers": 3, "level": "easy"})
    await ix.wait_followup(timeout=10)
    lobby = await env.wait_for(
        lambda: next((m for t in env.threads(env.channel) for m in env.messages(t)
                      if any(b.label == "Start" for b in m.buttons)), None), timeout=10)
    await (await env.click("alice", lobby, label="Start")).wait_response(timeout=10)
    limits = env.state.rate_limits
    assert limits is not None
    await (await env.slash("bob", "calico", "solo", options={"setup": "beginner"})
           ).wait_followup(timeout=15)
    await env.wait_for_dm("bob", lambda m: any(CELL_SELECT.fullmatch(c.custom_id or "")
                                               for c in m.walk_components()), timeout=10)
    message_429s = [r for r in limits.records if r.path.endswith("/messages")]
    assert message_429s == []


async def test_a_table_of_computers_at_full_speed_posts_runs_not_moves(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Finding 6: a four-seat table played quickly posted once per move (95 posts), and at
    Discord's pace its score sheet came a minute after the game ended. Now each run of moves
    waiting together is one post (every move told, one picture of the table)."""
    env = discord_env
    limits(env, thread_budget=50)
    settings = Settings(token="fake", db_path=str(tmp_path / "run.sqlite3"), ai_workers=0)
    await env.start_client(lambda: CalicoBot(settings, sync="never", sweep_interval=3600.0,
                                             dispatch_poll=0.05))
    ix = await env.slash("alice", "calico", "start", options={
        "players": 4, "computers": 3, "level": "easy", "setup": "beginner"})
    await ix.wait_followup(timeout=10)
    lobby = await env.wait_for(
        lambda: next((m for t in env.threads(env.channel) for m in env.messages(t)
                      if any(b.label == "Start" for b in m.buttons)), None), timeout=10)
    await (await env.click("alice", lobby, label="Start")).wait_response(timeout=10)
    kernel, alice = bot(env).kernel, env.user("alice").id
    game = await game_of(env, 1)
    while game.status.active:  # alice plays the moment her turn comes
        if game.current_user_id == alice:
            await turns.play_turn(kernel, game.id, alice, game.ply,
                                  pick_move(game, alice).text())
        else:
            await asyncio.sleep(0.01)
        game = await game_of(env, 1)
    over = await env.wait_for(lambda: next(
        (m for t in env.threads(env.channel) for m in env.messages(t)
         if any(a.filename == images.SCORES_PNG for a in m.attachments)), None), timeout=90)
    await settle(env)
    [thread] = env.threads(env.channel)
    tables = [n for n in await bot(env).manager.store.notices(game.id)
              if n.kind == "table"]
    assert len(tables) >= 80 and all(n.status == "done" for n in tables)
    posts = {n.message_id for n in tables}
    in_thread = {m.id for m in env.messages(thread)}
    assert posts <= in_thread  # each move told in a post that is there
    assert len(posts) * 3 < len(tables), (len(posts), len(tables))
    assert over.id in in_thread and env.state.nonce_duplicates == []
