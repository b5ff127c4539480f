"""Tournaments through the real client and the fake Discord (issue #23): an 8-person Swiss of
three rounds at two-player tables played to the podium (one entrant withdraws after round 1,
one table runs out of time at the round deadline), and a 4-person round-robin at a 4-player
table with a restart in the middle of its round; the fake clock carries the sign-up and round
deadlines over days. Most moves are scripted through the manager (as a player's click would
make them) to keep the run short; one turn is played through its DM's buttons."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.delivery import NoticeRenderer
from bot.adapter.ui.outgoing import Outgoing
from bot.core import queries
from bot.core.clock import FakeClock
from bot.core.models import GameInfo, GameStatus
from bot.core.notices import Notice, NoticeKind
from bot.core.progress import store as progress_store
from bot.core.tournament import model as tour
from bot.core.tournament import records
from bot.words.catalogue import Text
from tests.adapter.harness import bot, bot_factory, settle, turn_via, wait_panel
from tests.core.conftest import step
from tests.fakediscord import DiscordEnv, perm_bits

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")
HOUR = timedelta(hours=1)
NAMES = ["alice", "bob", "dora", "eve", "finn", "gus", "hana", "ivan"]


# What each scripted move would post (its thread account with a quilt picture, the next
# prompts): a dozen full games of them would cost this run most of a minute, and none is
# what this file is about (tests/e2e/test_bot_game.py covers them). Games named in
# ``SCRIPTED`` skip them; their score sheets and everything the tournament posts still go.
PER_MOVE = frozenset({NoticeKind.TABLE, NoticeKind.TURN_PROMPT, NoticeKind.DRAFT_PROMPT,
                      NoticeKind.AUTOPLAYED, NoticeKind.REMINDER})


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    games: set[int] = set()
    build = NoticeRenderer.build

    async def quieter(self: NoticeRenderer, notice: Notice, game: GameInfo) -> Outgoing | None:
        if game.id in games and notice.kind in PER_MOVE:
            return None
        return await build(self, notice, game)

    monkeypatch.setattr(NoticeRenderer, "build", quieter)
    return games


async def answer(env: DiscordEnv, who: str, sub: str, **options: Any) -> Any:
    inter = await env.slash(who, "calico", f"tournament {sub}", options=options)
    await inter.wait_response()
    return (await inter.wait_followups(1))[0]


async def games_of_round(env: DiscordEnv, tid: int, round_no: int) -> list[GameInfo]:
    manager = bot(env).manager
    return [await queries.game(manager.kernel, t.game_id, fresh=True)
            for t in await records.tables(manager.kernel, tid) if t.round == round_no and t.game_id]


async def finish(env: DiscordEnv, game: GameInfo, rng: random.Random) -> None:
    """Every person's moves, scripted through the manager (what their clicks would do)."""
    manager = bot(env).manager
    g = await queries.game(manager.kernel, game.id, fresh=True)
    while g.status.active:
        who = g.drafting_user_ids[0] if g.status is GameStatus.DRAFT else g.current_user_id
        assert who is not None
        g = await step(manager, g, who, rng)


async def sweep(env: DiscordEnv) -> None:
    await bot(env).manager.sweep()
    await settle(env)


def channel_posts(env: DiscordEnv, text: str) -> list[Any]:
    return [m for m in env.messages(env.channel) if text in m.content]


@pytest.mark.timeout(240)
async def test_an_eight_person_swiss_to_the_podium(discord_env: DiscordEnv, tmp_path: Path,
                                                   scripted: set[int]) -> None:
    env = discord_env
    clock = FakeClock()
    for name in NAMES[2:]:
        env.add_user(name)
    mods = env.add_role("Mods", perm_bits("manage_guild"))
    env.add_member("carol", roles=[mods])
    await env.start_client(bot_factory(tmp_path / "t.sqlite3", clock))
    manager = bot(env).manager
    ids = {n: env.user(n).id for n in NAMES}
    rng = random.Random(23)

    refused = await answer(env, "alice", "create", name="Nope")
    assert refused.ephemeral and refused.content == EN("tournament.create_refused")
    assert await records.listed(manager.kernel, env.guild.id) == []
    made = await answer(env, "carol", "create", name="Spring Cup", rounds=3, table_size=2,
                        signup_hours=24, start_hours=48, round_hours=72, level="easy")
    assert made.ephemeral and "Spring Cup" in made.content
    await settle(env)
    signup = channel_posts(env, "Spring Cup")[0]
    assert "Sign-up closes <t:" in signup.content and signup.button("Join")
    for name in NAMES:
        # The message reads in the channel's language (here the organiser's): one label.
        await (await env.click(name, env.get_message(signup.id), label="Join")
               ).wait_response()
    signup = env.get_message(signup.id)
    assert "**8** entrants" in signup.content and "Ivan" in signup.content
    twice = await env.click("alice", signup, label="Join")
    await twice.wait_response()
    assert twice.ephemeral and twice.message is not None
    assert twice.message.content == EN("error.tournament_already_in")

    # A day later the sign-up has closed; the first round waits for its start time.
    clock.advance(25 * HOUR)
    late = await env.click("carol", signup, label="Join")
    await late.wait_response()
    assert late.ephemeral and late.message is not None
    assert late.message.content == Text(env.user("carol").locale)(
        "error.tournament_signup_closed")
    await sweep(env)
    assert not env.threads(env.channel)
    clock.advance(24 * HOUR)
    await sweep(env)
    t = await records.get(manager.kernel, 1)
    assert (t.status, t.round) == (tour.RUNNING, 1)
    assert len(env.threads(env.channel)) == 4  # each table a game thread
    round_post = channel_posts(env, EN("tournament.round.title", name="Spring Cup", round=1,
                                        rounds=3))[0]
    assert round_post.content.count("<#") == 4  # every table linked to its thread
    signup = env.get_message(signup.id)
    assert signup.button(EN("tournament.button.leave")) and "Join" not in [
        c.label for c in signup.walk_components()]

    # Round 1: one player drafts and plays a turn through their DMs; the rest is scripted.
    games = await games_of_round(env, 1, 1)
    first = games[0]
    player = next(n for n, uid in ids.items() if uid == first.seats[0].user_id)
    assert first.status is GameStatus.DRAFT
    await finish_draft(env, first, rng)
    first = await queries.game(manager.kernel, first.id, fresh=True)
    mover = next(n for n, uid in ids.items() if uid == first.current_user_id)
    panel = await wait_panel(env, mover, first.id, first.ply)
    await turn_via(env, mover, panel, first)
    await settle(env)
    assert player in ids
    scripted.update(g.id for g in games)
    for g in games:
        await finish(env, g, rng)
    await sweep(env)
    after1 = channel_posts(env, EN("tournament.standings.after", name="Spring Cup", round=1,
                                    rounds=3))
    assert after1 and after1[0].attachment("standings.png").description
    assert "Spring Cup" in (after1[0].attachment("standings.png").description or "")
    # The score sheet of a table names the tournament.
    sheet = [m for th in env.threads(env.channel) for m in env.messages(th.id)
             if EN("tournament.score_sheet", name="Spring Cup", round=1, rounds=3) in m.content]
    assert len(sheet) == 4

    # After round 1, dora withdraws: her round-2 seat becomes a computer, no round 3 for her.
    assert (await records.get(manager.kernel, 1)).round == 2
    gone = await answer(env, "dora", "leave")
    assert gone.ephemeral and gone.content == EN("tournament.withdrawn_done", name="Spring Cup")
    games = await games_of_round(env, 1, 2)
    scripted.update(g.id for g in games)
    dora_game = next(g for g in games if any(s.user_id == ids["dora"] for s in g.seats))
    assert any(s.user_id == ids["dora"] and s.left for s in dora_game.seats)
    # One table never moves: the round deadline (three days) finishes it on autopilot.
    idle = next(g for g in games if g.id != dora_game.id)
    for g in games:
        if g.id != idle.id:
            await finish(env, g, rng)
    await sweep(env)
    assert (await records.get(manager.kernel, 1)).round == 2
    clock.advance(72 * HOUR + HOUR)
    await sweep(env)  # hands the open table to the computers' queue, which plays it out
    await manager.kernel.computers_idle()
    await sweep(env)
    idle = await queries.game(manager.kernel, idle.id, fresh=True)
    assert idle.status is GameStatus.OVER
    assert (await records.get(manager.kernel, 1)).round == 3
    third = [x for x in await records.tables(manager.kernel, 1) if x.round == 3]
    assert all(ids["dora"] not in x.players for x in third)
    assert [len(x.players) for x in third].count(1) == 1  # seven left: one bye

    for g in await games_of_round(env, 1, 3):
        scripted.add(g.id)
        await finish(env, g, rng)
    await sweep(env)
    t = await records.get(manager.kernel, 1)
    assert t.status == tour.OVER
    podium = channel_posts(env, EN("tournament.podium.title", name="Spring Cup"))
    assert len(podium) == 1 and podium[0].content.count("<@") >= 3
    picture = podium[0].attachment("standings.png")
    assert picture.data[:4] == b"\x89PNG" and picture.description
    board = await records.standings(manager.kernel, 1)
    assert f"<@{board[0].user_id}>" in podium[0].content
    # Everyone can read the standings (privately, with their own games linked) and the list.
    mine = await answer(env, "bob", "standings")
    assert mine.ephemeral and mine.attachment("standings.png")
    # Each game bob played linked (three, or two when the round-3 bye was his: the deals are
    # random, so the standings that decide the bye are too).
    played = [x for x in await records.tables(manager.kernel, 1)
              if ids["bob"] in x.players and x.game_id is not None]
    assert len(played) >= 2 and mine.content.count("<#") == len(played)
    listed = await answer(env, "eve", "list")
    assert "Spring Cup" in listed.content
    # Results fed the ratings like any game's.
    rating = await progress_store.rating(manager.store, env.guild.id, f"u:{ids['bob']}")
    assert rating is not None and rating.games == len(played)  # a bye is no rated game


async def finish_draft(env: DiscordEnv, game: GameInfo, rng: random.Random) -> None:
    """The goal draft of ``game``: its first seat through the DM's select and button."""
    from tests.adapter.harness import DRAFT_SELECT, draft_via
    manager = bot(env).manager
    uid = game.seats[0].user_id
    name = next(n for n in NAMES if env.user(n).id == uid)
    panel = await wait_panel(env, name, game.id, 0, DRAFT_SELECT)
    await draft_via(env, name, panel, await queries.game(manager.kernel, game.id))
    g = await queries.game(manager.kernel, game.id, fresh=True)
    while g.status is GameStatus.DRAFT:
        g = await step(manager, g, g.drafting_user_ids[0], rng)
    await settle(env)


@pytest.mark.timeout(180)
async def test_a_round_robin_at_a_four_player_table_survives_a_restart(
        discord_env: DiscordEnv, tmp_path: Path, scripted: set[int]) -> None:
    env = discord_env
    clock = FakeClock()
    for name in NAMES[2:4]:
        env.add_user(name)
    # carol holds the tournament role (not a server manager), chosen through /calico admin.
    organisers = env.add_role("Organisers")
    env.add_member("carol", roles=[organisers])
    mods = env.add_role("Mods", perm_bits("manage_guild"))
    env.add_member("alice", roles=[mods])
    await env.start_client(bot_factory(tmp_path / "rr.sqlite3", clock))
    manager = bot(env).manager
    admin = await env.slash("alice", "calico", "admin", options={"tournament_role": organisers})
    await admin.wait_response()
    await admin.wait_followups(1)
    made = await answer(env, "carol", "create", name="Quad", format="round_robin",
                        table_size=4, signup_hours=1, start_hours=2, round_hours=48,
                        setup="beginner", level="easy")
    assert "Quad" in made.content, made.content
    await settle(env)
    signup = channel_posts(env, "Quad")[0]
    for name in ("alice", "bob", "dora", "eve"):
        await (await env.click(name, env.get_message(signup.id), custom_id="calico:tj:1")
               ).wait_response()
    closed = await answer(env, "carol", "close")
    assert closed.content == EN("tournament.closed_done", name="Quad", count=4)
    clock.advance(2 * HOUR)
    await sweep(env)
    t = await records.get(manager.kernel, 1)
    assert (t.round, t.rounds) == (1, 1)
    (game,) = await games_of_round(env, 1, 1)
    assert len(game.seats) == 4 and game.status is GameStatus.PLAY
    scripted.add(game.id)
    rng = random.Random(4)
    manager = bot(env).manager
    g = game
    for _ in range(10):
        g = await step(manager, g, g.current_user_id or 0, rng)
    # A restart in the middle of the round: nothing is paired or opened twice.
    await env.restart_client()
    manager = bot(env).manager
    await sweep(env)
    assert len(await records.tables(manager.kernel, 1)) == 1
    assert len(await manager.store.game_ids(guild_id=env.guild.id)) == 1
    await finish(env, g, rng)
    await sweep(env)
    t = await records.get(manager.kernel, 1)
    assert t.status == tour.OVER
    final = channel_posts(env, EN("tournament.podium.title", name="Quad"))
    assert len(final) == 1 and final[0].attachment("standings.png").description
    board = await records.standings(manager.kernel, 1)
    assert [s.games for s in board] == [1, 1, 1, 1]
    assert sorted(s.points for s in board) != [0, 0, 0, 0]
