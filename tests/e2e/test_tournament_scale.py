"""Big tournaments through the real client and the stand-in (issue #28): a 160-entrant Swiss of
two rounds at two-player tables and a 12-entrant round-robin at four-player tables run to
their podiums, every post accepted under Discord's limits (the stand-in refuses a message
naming more than 100 users to ping, or longer than 2,000 characters: a refusal would fail the
test). The round posts ping nobody and attach the tables that do not fit; each table's
players are pinged in their own game's thread; the standings attach everyone's line, and
``/calico tournament standings`` shows a reader their own line wherever it is.

To stay quick: the fake clock, random computers, the beginner setup; each round ends at its
deadline, where the computers play the tables out; and the games' own posts (their threads'
first posts, score sheets, moves and prompts: the game tests cover them) are drawn for the
first tables only.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.delivery import NoticeRenderer
from bot.adapter.ui.outgoing import Outgoing
from bot.core.clock import FakeClock, to_ms
from bot.core.models import GameInfo, LobbyOptions, Setup, UserRef
from bot.core.notices import Notice, NoticeKind
from bot.core.storage import NoticeStatus
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.words.catalogue import Text
from tests.adapter.harness import bot, bot_factory, settle
from tests.e2e.test_bot_tournament import answer, channel_posts
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")
HOUR = timedelta(hours=1)
SHOWN = 3  # tables whose games post their own messages


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The games' own posts, but for the first tables' opening posts, are not drawn."""
    build = NoticeRenderer.build

    async def fewer(self: NoticeRenderer, notice: Notice, game: GameInfo) -> Outgoing | None:
        if notice.kind == NoticeKind.STARTED and game.id <= SHOWN:
            return await build(self, notice, game)
        if notice.kind in (NoticeKind.OPEN_THREAD, NoticeKind.LOBBY):
            return await build(self, notice, game)
        return None

    monkeypatch.setattr(NoticeRenderer, "build", fewer)


async def run(env: DiscordEnv, tmp_path: Path, count: int, name: str, fmt: str, rounds: int,
              size: int) -> int:
    """A tournament of ``count`` entrants (random computers finish its tables: made through
    the core, as ``/calico tournament create`` offers no random level), a few joining with
    the button and the rest as their clicks would, run round by round at its deadlines to the
    end; returns its id."""
    clock = FakeClock()
    names = [f"p{i:03}" for i in range(count)]
    for who in names:
        env.add_user(who)
    await env.start_client(bot_factory(tmp_path / "big.sqlite3", clock))
    manager = bot(env).manager
    now = to_ms(clock.now())
    carol = env.user("carol")
    await signup.create(manager.kernel, UserRef(carol.id, carol.name), env.guild.id,
                        env.channel.id, tour.Spec(
                            name, fmt, rounds, size,
                            LobbyOptions(setup=Setup.BEGINNER, ai_level="random"),
                            now + 3_600_000, now + 2 * 3_600_000, 24.0))
    await settle(env)
    [post] = channel_posts(env, "(tournament #1)")
    for name in names[:3]:
        await (await env.click(name, env.get_message(post.id), label="Join")).wait_response()
    for name in names[3:]:
        user = env.user(name)
        await signup.join(manager.kernel, 1, UserRef(user.id, user.name), env.guild.id)
    await settle(env)
    assert f"**{count}** entrants" in env.get_message(post.id).content
    clock.advance(2 * HOUR)
    for _ in range(30):
        await manager.sweep()
        await manager.kernel.computers_idle()
        await settle(env, timeout=60)
        t = await records.get(manager.kernel, 1)
        if t.status != tour.RUNNING:
            break
        clock.advance(25 * HOUR)  # past the round's deadline: the computers finish it
    assert (await records.get(manager.kernel, 1)).status == tour.OVER
    return 1


async def every_post_went_out(env: DiscordEnv) -> list[Any]:
    """Every tournament notice delivered (none refused, none waiting; a sign-up edit that a
    later one made already is skipped); its channel posts."""
    manager = bot(env).manager
    kinds = [(n.body.what, n.status) for n in await manager.store.notices(0)
             if n.kind == tour.Post.kind]
    assert kinds and all(status == NoticeStatus.DONE or (
        what == tour.PostKind.SIGNUP and status == NoticeStatus.SKIPPED)
        for what, status in kinds), kinds
    posts = env.messages(env.channel)
    assert all(len(m.content) <= 2000 and len(m.mentions) <= 100 for m in posts)
    return posts


@pytest.mark.timeout(300)
async def test_a_160_entrant_swiss_runs_to_its_podium(discord_env: DiscordEnv, tmp_path: Path,
                                                      quiet: None) -> None:
    env = discord_env
    tid = await run(env, tmp_path, 160, "Big Cup", tour.SWISS, 2, 2)
    manager = bot(env).manager
    tables = await records.tables(manager.kernel, tid)
    assert sorted({(x.round, len(x.players)) for x in tables}) == [(1, 2), (2, 2)]
    assert len(tables) == 160 and all(x.points is not None for x in tables)
    await every_post_went_out(env)
    for round_no in (1, 2):
        [post] = channel_posts(env, EN("tournament.round.title", name="Big Cup", round=round_no,
                                       rounds=2))
        # 80 tables: the first ones in the post, every one in the list, nobody pinged.
        assert post.mentions == [] and 10 < post.content.count("<#") < 80
        listed = post.attachment(f"round-{round_no}.txt").data.decode()
        assert sum(line.startswith("Table ") for line in listed.splitlines()) == 80
    # The first tables' players were pinged in their own thread.
    for thread in env.threads(env.channel)[:SHOWN]:
        [first] = env.messages(thread.id)[:1]
        assert len(first.mentions) == 2
    [standings] = channel_posts(env, EN("tournament.standings.after", name="Big Cup", round=1,
                                        rounds=2))
    full = standings.attachment("standings.txt").data.decode().splitlines()
    assert len([line for line in full if line[:1].isdigit()]) == 160
    [final] = channel_posts(env, EN("tournament.podium.title", name="Big Cup"))
    assert 3 <= len(final.mentions) <= 10  # the medals, no one else
    assert final.attachment("standings.txt") and final.attachment("standings.png")
    signup_post = channel_posts(env, "(tournament #1)")[0]
    assert EN("tournament.status.over") in signup_post.content
    # The last of the standings reads their own line, wherever it is.
    board = await records.standings(manager.kernel, tid)
    last = next(n for n in (f"p{i:03}" for i in range(160))
                if env.user(n).id == board[-1].user_id)
    mine = await answer(env, last, "standings")
    assert mine.ephemeral and "📍" in mine.content
    assert f"{board[-1].rank}. " in mine.content.split("📍", 1)[1]


@pytest.mark.timeout(240)
async def test_a_12_entrant_round_robin_at_four_player_tables(discord_env: DiscordEnv,
                                                              tmp_path: Path,
                                                              quiet: None) -> None:
    env = discord_env
    tid = await run(env, tmp_path, 12, "Quad Cup", tour.ROUND_ROBIN, tour.MAX_ROUNDS, 4)
    manager = bot(env).manager
    t = await records.get(manager.kernel, tid)
    tables = await records.tables(manager.kernel, tid)
    assert all(len(x.players) == 4 for x in tables) and len(tables) == 3 * t.rounds
    met = {frozenset((a, b)) for x in tables for a in x.players for b in x.players if a != b}
    assert len(met) == 12 * 11 // 2  # everyone met everyone
    assert t.rounds <= 6
    posts = await every_post_went_out(env)
    assert len([m for m in posts if EN("tournament.podium.title", name="Quad Cup")
                in m.content]) == 1
    for round_no in range(1, t.rounds + 1):
        [post] = channel_posts(env, EN("tournament.round.title", name="Quad Cup",
                                       round=round_no, rounds=t.rounds))
        assert post.content.count("<#") == 3 and post.mentions == []
