"""Issue #22's choices through the real client and the stand-in, in English, French and Polish,
in one test (CI's time is short): the host's three cats (lobby, first post, the dealt game, a
private refusal), the solo scenario path (/calico achievements, /calico solo's suggestion), and
a hint voiding only its taker's achievements on the score sheet."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import lobby, queries, turns
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus, LobbyOptions, UserRef
from bot.core.progress import store as progress_store
from bot.core.progress.model import AchievementRow
from bot.core.storage import GameWrite
from bot.words.catalogue import Text
from tests.adapter.harness import bot_factory, settle
from tests.core.conftest import play_out, seeds, step
from tests.e2e.test_bot_progress import slash_answer
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

CATS = {"cat1": "leo", "cat2": "callie", "cat3": "cira"}


@pytest.fixture
async def managed(tmp_path: Path) -> AsyncIterator[tuple[Manager, FakeClock]]:
    clock = FakeClock()
    m = await Manager.open(tmp_path / "c.sqlite3", clock=clock, seed_source=seeds(3))
    try:
        yield m, clock
    finally:
        await m.close()


async def test_cats_scenario_path_and_per_seat_voiding(
        discord_env: DiscordEnv, tmp_path: Path, managed: tuple[Manager, FakeClock]) -> None:
    env = discord_env
    manager, clock = managed
    await env.start_client(bot_factory(tmp_path / "c.sqlite3", clock, manager=manager))
    en, fr, pl = Text("en"), Text("fr"), Text("pl")
    alice, bob = env.user("alice"), env.user("bob")  # English, French
    env.set_locale("carol", "pl")

    # /calico start with three cats (English): the lobby names them.
    await slash_answer(env, "alice", "start", {"players": 2, **CATS})
    await settle(env)
    post = env.messages(env.threads(env.channel)[-1].id)[0]
    assert en("lobby.cats", cats="Leo, Callie, Cira") in post.content
    table = await queries.game_for_thread(manager.kernel, env.threads(env.channel)[-1].id)
    assert table is not None and table.options.cats == ("leo", "callie", "cira")

    # Cats with a scenario (Polish): a short private refusal; no table opened.
    threads = len(env.threads(env.channel))
    refused = await env.slash("carol", "calico", "start", options={"scenario": 2, **CATS})
    await refused.wait_response()
    answer = await refused.wait_followup()
    assert answer.ephemeral and pl("start.cats_scenario") in answer.content
    assert len(env.threads(env.channel)) == threads

    # The scenario path (Polish): nothing passed yet, so it begins with scenario 1.
    mine = await slash_answer(env, "carol", "achievements")
    assert pl("progress.path.start", total=10) in mine.content

    # Bob (French) passed scenario 1 in another game: his next is scenario 2, shown by
    # /calico achievements and suggested by /calico solo (played with his three cats).
    other = await lobby.create_game(manager.kernel,
                                    UserRef(bob.id, "bob"), env.guild.id, env.channel.id)
    row = await manager.store.load_game(other.id)
    assert row is not None
    await manager.store.commit(GameWrite(other.id, row.version, 1,
                                         steps=[progress_store.add_achievements([
        AchievementRow(bob.id, "scenario-1", other.id, env.guild.id, 1)])]))
    mine = await slash_answer(env, "bob", "achievements")
    assert fr("progress.path.next", count=1, total=10, numbers="1", next=2) in mine.content
    opened = await slash_answer(env, "bob", "solo", CATS)
    assert fr("progress.path.suggest", next=2) in opened.content
    await settle(env)
    solo = await queries.game_for_thread(manager.kernel, env.threads(env.channel)[-1].id)
    assert solo is not None and solo.state is not None
    assert [c.id for c in solo.state.config.cats] == ["leo", "callie", "cira"]
    first = env.messages(solo.thread_id or 0)
    assert any(fr("started.cats_chosen") in m.content for m in first)

    # A two-person game (hosted by Bob: its thread reads French) in which Alice takes a
    # hint: the score sheet says Alice earns nothing for it; Bob is not voided.
    game = await lobby.create_game(manager.kernel, UserRef(bob.id, "bob", "fr"), env.guild.id,
                                     env.channel.id,
                                     LobbyOptions(players=2, hints=True, ai_level="random"),
                                     open_thread=True)
    await lobby.join(manager.kernel, game.id, UserRef(alice.id, "alice"))
    game = await lobby.start(manager.kernel, game.id, bob.id)
    rng = random.Random(4)
    while game.status is not GameStatus.PLAY or game.current_user_id != alice.id:
        who = game.drafting_user_ids[0] if game.status is GameStatus.DRAFT \
            else game.current_user_id
        assert who is not None
        game = await step(manager, game, who, rng)
    await turns.take_hint(manager.kernel, game.id, alice.id, game.ply)
    game = await play_out(manager, await queries.game(manager.kernel, game.id), rng)
    await settle(env)
    game = await queries.game(manager.kernel, game.id)
    assert game.thread_id is not None
    sheet = await env.wait_for_message(game.thread_id, lambda m: "🏁" in m.content)
    assert fr("achievements.void.hints_used", player="alice") in sheet.content
    assert fr("achievements.void.hints_used", player="bob") not in sheet.content
    assert "🏅 bob" in sheet.content  # the winner here: his achievement still counts
