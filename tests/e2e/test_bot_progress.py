"""Reasons to come back, through the real client and the fake Discord, as players use them:
the score sheet's achievements, Replay and Rematch; /calico achievements, replay, record,
stats, leaderboard and challenge; the week closing on the fake clock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from bot.adapter.ui.custom_ids import ReviewId
from bot.core import lobby, queries
from bot.core.challenge import store as challenge_store
from bot.core.challenge.model import CHANNEL_KEY
from bot.core.clock import FakeClock, to_ms
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, LobbyOptions, UserRef
from bot.core.progress import model as progress
from bot.core.progress import store as progress_store
from bot.core.progress.model import AchievementRow, RatingRow
from bot.core.progress.store import RatingUpdate
from bot.core.storage import GameWrite
from bot.words.catalogue import Text
from data import load_catalog
from engine.achievements import FinishedGame
from engine.quilt_record import score_record
from render import achievements_layout, frame_count
from render.achievements import OPEN_FILL, SCENARIO_EARNED
from tests.adapter.harness import (
    DRAFT_SELECT,
    bot,
    bot_factory,
    draft_via,
    game_of,
    settle,
    turn_via,
    wait_panel,
)
from tests.core.conftest import seeds
from tests.core.test_progress import play_ai
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeMessage

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

CATALOG = load_catalog()
LIMIT = 8 * 1024 * 1024


@pytest.fixture
async def seeded(tmp_path: Path) -> AsyncIterator[tuple[Manager, FakeClock]]:
    """A manager whose first deal is seed 6: alice passes solo scenario 1 playing "normal"
    (goals chosen at random), the way ``play_through`` plays."""
    clock = FakeClock()
    m = await Manager.open(tmp_path / "p.sqlite3", clock=clock, seed_source=seeds(6))
    try:
        yield m, clock
    finally:
        await m.close()


@pytest.fixture
async def seed_one(tmp_path: Path) -> AsyncIterator[tuple[Manager, FakeClock]]:
    """A manager whose first deal is seed 1, as tests/core deals it."""
    clock = FakeClock()
    m = await Manager.open(tmp_path / "k.sqlite3", clock=clock, seed_source=seeds(1))
    try:
        yield m, clock
    finally:
        await m.close()


async def play_through(env: DiscordEnv, game: GameInfo, users: dict[int, str],
                       level: str = "normal") -> GameInfo:
    """Every person's draft and turns, through their DMs."""
    for uid in game.drafting_user_ids:
        panel = await wait_panel(env, users[uid], game.id, 0, DRAFT_SELECT)
        await draft_via(env, users[uid], panel, await game_of(env, game.id))
    await settle(env)
    game = await game_of(env, game.id)
    while game.status is GameStatus.PLAY:
        uid = game.current_user_id
        assert uid is not None
        panel = await wait_panel(env, users[uid], game.id, game.ply)
        await turn_via(env, users[uid], panel, game, level=level)
        await settle(env, quiet=0.01)
        game = await game_of(env, game.id)
    await settle(env)
    return game


def gif_frames(data: bytes) -> int:
    img = Image.open(BytesIO(data))
    assert img.format == "GIF"
    return int(img.n_frames)


async def slash_answer(env: DiscordEnv, user: str, command: str,
                       options: dict[str, object] | None = None) -> FakeMessage:
    inter = await env.slash(user, "calico", command, options=options or {})
    await inter.wait_response()
    return await inter.wait_followup(timeout=15.0)


async def test_a_passed_scenario_on_the_score_sheet_and_the_progress_track(
        discord_env: DiscordEnv, tmp_path: Path, seeded: tuple[Manager, FakeClock]) -> None:
    env = discord_env
    manager, clock = seeded
    await env.start_client(bot_factory(tmp_path / "p.sqlite3", clock, manager=manager))
    alice = env.user("alice").id
    await slash_answer(env, "alice", "solo", {"scenario": 1})
    thread = env.threads(env.channel)[-1]
    game = await queries.game_for_thread(manager.kernel, thread.id)
    assert game is not None
    game = await play_through(env, game, {alice: "alice"})
    assert game.status is GameStatus.OVER
    tr = Text("en")
    sheet = await env.wait_for_message(thread.id, lambda m: "🏁" in m.content)
    assert tr("achievements.earned", player=game.seats[0].name,
              name=tr("achievements.name.scenario-1")) in sheet.content
    assert sheet.button("Replay") and sheet.button("Rematch")
    earned = await progress_store.achievements(manager.store, alice)
    assert [a.achievement for a in earned] == ["scenario-1"]

    # Replay from the score sheet: a GIF with one frame per placement, the start and the end.
    inter = await env.click("alice", sheet, label="Replay")
    await inter.wait_response()
    reply = await inter.wait_followup(timeout=15.0)
    gif = reply.attachment("replay.gif").data
    assert gif_frames(gif) == frame_count(1) and len(gif) < LIMIT

    # /calico achievements: the chart, with scenario 1 filled and scenario 2 open.
    answer = await slash_answer(env, "alice", "achievements")
    assert "1/26" in answer.content
    png = Image.open(BytesIO(answer.attachment("achievements.png").data)).convert("RGB")
    lay = achievements_layout(CATALOG.achievements)
    assert png.size == lay.size

    def near(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        return sum((x - y) ** 2 for x, y in zip(a, b, strict=False)) ** 0.5 <= 12

    at = lay.swatches
    assert near(png.getpixel(tuple(map(round, at["scenario-1"]))), SCENARIO_EARNED)
    assert near(png.getpixel(tuple(map(round, at["scenario-2"]))), OPEN_FILL)

    # /calico record: the game as JSON, quilts the scorer reads back, no seed anywhere.
    answer = await slash_answer(env, "alice", "record")
    data = answer.attachment(f"calico-{game.id}.json").data
    record = json.loads(data)
    assert record["game"] == game.id and len(record["moves"]) == game.ply
    assert score_record(CATALOG, record["quilts"][0]) == record["players"][0]["score"]
    assert b"seed" not in data and b"bag" not in data  # (the seed's digits: tests/core)
    # Someone who did not play it gets no record.
    refused = await env.slash("bob", "calico", "record", options={"game": game.id})
    await refused.wait_response()
    assert Text("fr")("error.not_a_player") in (await refused.wait_followup()).content


async def test_two_players_ratings_rematch_and_a_public_replay(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    clock = FakeClock()
    await env.start_client(bot_factory(tmp_path / "r.sqlite3", clock))
    manager = bot(env).manager
    users = {env.user("alice").id: "alice", env.user("bob").id: "bob"}
    await slash_answer(env, "alice", "start", {"players": 2, "setup": "beginner"})
    await settle(env)
    thread = env.threads(env.channel)[-1]
    post = await env.wait_for_message(thread.id)
    await (await env.click("bob", post, label="Join")).wait_response()
    await (await env.click("alice", env.get_message(post.id), label="Start")).wait_response()
    await settle(env)
    game = await queries.game_for_thread(manager.kernel, thread.id)
    assert game is not None
    game = await play_through(env, game, users, level="random")
    results = {r.user_id: r for r in await manager.store.results(game.id)}
    first = min(results.values(), key=lambda r: (r.place, r.seat))
    last = max(results.values(), key=lambda r: (r.place, r.seat))
    sheet = await env.wait_for_message(thread.id, lambda m: "🏁" in m.content)

    # Ratings moved the right way, in this server and everywhere, and /calico stats says so.
    for scope in (env.guild.id, 0):
        win = await progress_store.rating(manager.store, scope, f"u:{first.user_id}")
        lose = await progress_store.rating(manager.store, scope, f"u:{last.user_id}")
        assert win is not None and lose is not None and win.games == lose.games == 1
        if first.place != last.place:
            assert win.mu > 25 > lose.mu
    stats = await slash_answer(env, "alice", "stats")
    assert "⭐" in stats.content and "this server" in stats.content
    assert "every server" in stats.content

    # A replay is public: someone who did not play may watch it from the score sheet.
    inter = await env.click("carol", sheet, label="Replay")
    await inter.wait_response()
    gif = (await inter.wait_followup(timeout=15.0)).attachment("replay.gif").data
    assert gif_frames(gif) == frame_count(2) and len(gif) < LIMIT

    # Rematch: a new thread whose lobby invites (pings) the other player; one table only.
    inter = await env.click("bob", sheet, label="Rematch")
    await inter.wait_response()
    answer = await inter.wait_followup(timeout=15.0)
    await settle(env)
    rematch_thread = env.threads(env.channel)[-1]
    assert rematch_thread.id != thread.id and f"<#{rematch_thread.id}>" in answer.content
    new_lobby = await env.wait_for_message(rematch_thread.id)
    alice = env.user("alice").id
    assert f"<@{alice}>" in new_lobby.content and f"#{game.id}" in new_lobby.content
    rematch = await queries.game_for_thread(manager.kernel, rematch_thread.id)
    assert rematch is not None and rematch.rematch_of == game.id
    assert rematch.host_id == env.user("bob").id and rematch.options == game.options
    again = await env.click("alice", sheet, label="Rematch")
    await again.wait_response()
    assert f"<#{rematch_thread.id}>" in (await again.wait_followup(timeout=15.0)).content
    assert len(env.threads(env.channel)) == 2
    # alice joins (the lobby reads in its host's French): nobody left to invite.
    assert "Revanche de Calico #" in new_lobby.content
    await (await env.click("alice", new_lobby, label="Rejoindre")).wait_response()
    await settle(env)
    assert "🔁" not in env.get_message(new_lobby.id).content


async def test_the_rating_leaderboard(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "b.sqlite3", FakeClock()))
    manager = bot(env).manager
    empty = await slash_answer(env, "alice", "leaderboard")
    assert "3 rated games" in empty.content  # nobody qualifies yet: most wins instead
    alice, bob = env.user("alice").id, env.user("bob").id
    table = await lobby.create_game(manager.kernel,
        UserRef(alice, "alice"), env.guild.id, env.channel.id)
    await lobby.create_game(manager.kernel, UserRef(bob, "bob"), env.guild.id, env.channel.id)
    row = await manager.store.load_game(table.id)
    assert row is not None
    scope = env.guild.id
    rows = [RatingRow(scope, f"u:{alice}", 30, 2, 24, 4, 1),
            RatingRow(scope, f"u:{bob}", 29, 3, 20, 6, 1),
            RatingRow(scope, "ai:strong", 33, 2, 27, 9, 1)]
    await manager.store.commit(GameWrite(table.id, row.version, 1,
                                         steps=[progress_store.apply_ratings(RatingUpdate(
        [(r.scope, r.player) for r in rows], lambda found: rows))]))
    board = await slash_answer(env, "alice", "leaderboard")
    lines = board.content.splitlines()
    ranked = [line for line in lines if line[:2] in ("1.", "2.", "3.")]
    assert "🤖" in ranked[0] and "alice" in ranked[1] and "bob" in ranked[2]
    assert "24.0" in ranked[1] and "20.0" in ranked[2]
    everywhere = await slash_answer(env, "alice", "leaderboard", {"scope": "everywhere"})
    assert "alice" not in everywhere.content  # those ratings were this server's only


async def test_the_weekly_challenge_end_to_end(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    clock = FakeClock()  # Wednesday 2025-01-01: ISO week 2025-W01
    await env.start_client(bot_factory(tmp_path / "w.sqlite3", clock))
    manager = bot(env).manager
    board_channel = env.add_text_channel("challenge-board")
    await manager.store.set_guild_settings(
        env.guild.id, json.dumps({CHANNEL_KEY: board_channel.id}), to_ms(clock.now()))
    alice, bob = env.user("alice").id, env.user("bob").id

    started = await slash_answer(env, "alice", "challenge")
    assert "2025-W01" in started.content
    entry = await challenge_store.entry(manager.store, "2025-W01", alice)
    assert entry is not None
    a_game = await queries.game(manager.kernel, entry.game_id)
    assert a_game.challenge_week == "2025-W01" and a_game.thread_id is None
    await slash_answer(env, "bob", "challenge")
    b_entry = await challenge_store.entry(manager.store, "2025-W01", bob)
    assert b_entry is not None
    # The same deal for both: boards, cats, goals offered, hands, market, bag.
    a0 = await queries.state_at(manager.kernel, a_game.id, 0)
    b0 = await queries.state_at(manager.kernel, b_entry.game_id, 0)
    assert a0.config == b0.config and a0.seats == b0.seats and a0.market == b0.market
    assert a0.bag == b0.bag

    a_game = await play_through(env, a_game, {alice: "alice"}, level="random")
    assert a_game.status is GameStatus.OVER
    assert env.threads(env.channel) == []  # a challenge game has no thread
    # Her turns' DMs say so (no thread to point to), and the last speaks to her properly.
    her = Text(env.user("alice").locale)
    dms = [m.content for m in env.dm_messages("alice")]
    assert any(her("panel.done_challenge") in c for c in dms)
    assert not any(her("panel.done_thread") in c for c in dms)
    assert any(her("narrate.quilt_done_you") in c for c in dms)
    assert not any("you's" in c for c in dms)
    done = await env.wait_for_dm("alice", lambda m: "Weekly challenge" in m.content)
    assert done.attachment("scores.png")
    score = (await challenge_store.entry(manager.store, "2025-W01", alice)).score  # type: ignore[union-attr]
    assert score is not None and f"**{score}**" in done.content
    # "Review my game" under the result, for this game.
    review = done.button(Text(env.user("alice").locale)("review.button"))
    assert review.custom_id == ReviewId(a_game.id).encode()

    # alice finished: she sees the boards; bob has not: no board, no score of hers.
    mine = await slash_answer(env, "alice", "challenge")
    name = a_game.seats[0].name
    assert name in mine.content and str(score) in mine.content
    bobs = await slash_answer(env, "bob", "challenge")
    assert name not in bobs.content
    again = await env.slash("alice", "calico", "replay", options={"game": a_game.id})
    await again.wait_response()
    refused = await again.wait_followup()
    assert "no spoilers" in refused.content and refused.ephemeral  # never in the channel
    peek = await env.slash("carol", "calico", "status", options={"game": b_entry.game_id})
    await peek.wait_response()
    assert "no spoilers" in (await peek.wait_followup()).content  # nor someone else's game

    # Monday: the sweep closes the week once and posts the summary in the chosen channel.
    clock.set(datetime(2025, 1, 6, 0, 1, tzinfo=UTC))
    report = await manager.sweep()
    assert report.features.get("challenge", 0) == 1
    assert (await manager.sweep()).features.get("challenge", 0) == 0
    await settle(env)
    summary = await env.wait_for_message(board_channel.id, lambda m: "2025-W01" in m.content)
    assert f"<@{alice}>" in summary.content and f"**{score}**" in summary.content
    row = await challenge_store.challenge(manager.store, "2025-W01")
    assert row is not None and str(row.seed) not in summary.content
    assert len(env.messages(board_channel.id)) == 1
    # Now the closed week's game may be replayed.
    replay = await slash_answer(env, "alice", "replay", {"game": a_game.id})
    assert gif_frames(replay.attachment("replay.gif").data) == frame_count(1)


async def test_start_options_scenario_for_everyone_and_family_needs_standard(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "o.sqlite3", FakeClock()))
    await slash_answer(env, "alice", "start", {"players": 3, "scenario": 3})
    await settle(env)
    lobby = env.messages(env.threads(env.channel)[-1].id)[0]
    assert "Scenario 3" in lobby.content and "Players: 3" in lobby.content
    refused = await env.slash("alice", "calico", "start",
                              options={"variant": "family", "setup": "beginner"})
    await refused.wait_response()
    text = (await refused.wait_followup()).content
    assert "standard setup" in text
    assert len(env.threads(env.channel)) == 1
    assert progress.MIN_RATED_GAMES == 3


async def test_picking_a_row_already_held_says_so(
        discord_env: DiscordEnv, tmp_path: Path, seed_one: tuple[Manager, FakeClock]) -> None:
    """The score sheet offers the winner another row the win fits; if another game filled
    that row meanwhile, picking it answers what happened ("you already hold that row"), not
    that the button is out of date (issue 20, players 9)."""
    env = discord_env
    # Seed 1, both played as tests/core plays them: the win fits normal-65 and normal-60.
    manager, clock = seed_one
    await env.start_client(bot_factory(tmp_path / "k.sqlite3", clock, manager=manager))
    names = {env.user("alice").id: "alice", env.user("bob").id: "bob"}
    alice, bob = (UserRef(uid, name) for uid, name in names.items())
    game = await lobby.create_game(manager.kernel, alice, env.guild.id, env.channel.id,
                                     LobbyOptions(players=2, ai_level="random"),
                                     open_thread=True)
    await lobby.join(manager.kernel, game.id, bob)
    game = await play_ai(manager, await lobby.start(manager.kernel, game.id, alice.id))
    assert game.status is GameStatus.OVER and game.state is not None
    await settle(env)
    seat = FinishedGame.from_state(game.state).winners[0]
    winner = game.seats[seat].user_id
    assert winner is not None
    thread = await queries.game(manager.kernel, game.id)
    assert thread.thread_id is not None
    sheet = await env.wait_for_message(thread.thread_id, lambda m: "🏁" in m.content)
    pick = f"calico:pick:{game.id}:{seat}"
    assert [o.value for o in sheet.select(pick).options] == ["normal-65", "normal-60"]
    # Another game of theirs fills normal-60.
    other = await lobby.create_game(manager.kernel, UserRef(winner, names[winner]), env.guild.id,
                                      env.channel.id)
    row = await manager.store.load_game(other.id)
    assert row is not None
    await manager.store.commit(GameWrite(other.id, row.version, 1,
                                         steps=[progress_store.add_achievements([
        AchievementRow(winner, "normal-60", other.id, env.guild.id, 1)])]))

    tr = Text(env.user(names[winner]).locale)
    inter = await env.select(names[winner], sheet, pick, ["normal-60"])
    await inter.wait_response()
    [answer] = await inter.wait_followups(1)
    assert answer.ephemeral and answer.content == tr("error.already_held")
    assert answer.content != tr("error.stale")
