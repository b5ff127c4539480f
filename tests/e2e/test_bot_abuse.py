"""Nothing one person does hurts the others (issue #20), through the real client and the fake
Discord: the rematch flood (games channel, starter role and permissions like ``/calico start``;
new lobbies per hour, cancelled ones included), a refused start costs no start allowance,
``/calico start`` checks the member's permissions, the host removes someone from the lobby, every
privileged entry of ``bot/adapter/policy.py`` refuses a member without the right, autocomplete
past its cooldown suggests nothing, and a burst of rematch, review and replay clicks is answered
"wait" while another person's clicks stay fast."""

from __future__ import annotations

import asyncio
import re
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.adapter import policy
from bot.adapter.client import CalicoBot
from bot.core import lobby, queries, servers
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus, LobbyOptions, UserRef
from bot.core.notices import NoticeKind
from bot.core.storage import NoticeStatus
from bot.core.tournament import model as tour
from bot.core.tournament import records, signup
from bot.settings import Settings
from bot.words.catalogue import Text
from engine.config import Setup
from tests.adapter.harness import answer_text, bot, settle
from tests.core.test_progress import play_ai
from tests.fakediscord import DiscordEnv, perm_bits
from tests.fakediscord.state import FakeInteraction, FakeMessage

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

EN = Text("en")
FR = Text("fr")
WAIT = re.compile(r"⏳.*<t:\d+:R>")


def factory(db: Path, **settings: Any) -> Callable[[], CalicoBot]:
    # Computer players in threads: no worker processes to start and stop for these tests.
    settings.setdefault("ai_workers", 0)

    def make() -> CalicoBot:
        return CalicoBot(Settings(token="fake", db_path=str(db), **settings), clock=FakeClock(),
                         sync="never", sweep_interval=3600.0, dispatch_poll=0.05)

    return make


async def finished_game(env: DiscordEnv, db: Path, first: str = "alice",
                        second: str = "bob") -> int:
    """A two-player game played to its end on ``db`` before the bot starts (moves through the
    manager); only its thread and its score sheet are left for the bot to post: the post of
    every move (a picture each, seconds this test does not look at) is skipped."""
    manager = await Manager.open(db, clock=FakeClock())
    try:
        one, two = env.user(first), env.user(second)
        game = await lobby.create_game(manager.kernel,
            UserRef(one.id, first, one.locale), env.guild.id, env.channel.id,
            LobbyOptions(players=2, setup=Setup.BEGINNER), open_thread=True)
        await lobby.join(manager.kernel, game.id, UserRef(two.id, second, two.locale))
        # Its thread, as the bot would have opened it.
        thread = env.state.add_thread(env.channel, f"Calico #{game.id}", owner=env.bot_user)
        await lobby.attach_thread(manager.kernel, game.id, thread.id)
        game = await play_ai(manager, await lobby.start(manager.kernel,
                                                        game.id, one.id), level="random")
        assert game.status is GameStatus.OVER
        now = manager.kernel.now_ms()
        for notice in await manager.store.notices(game.id):
            if notice.kind != NoticeKind.GAME_OVER:
                await manager.store.finish_notice(notice.id, NoticeStatus.SKIPPED, now)
        return game.id
    finally:
        await manager.close()


async def score_sheet(env: DiscordEnv, game_id: int) -> FakeMessage:
    """The game's score sheet once the bot posted it (with Replay, Rematch, Review)."""
    await settle(env)
    game = await queries.game(bot(env).manager.kernel, game_id, fresh=True)
    assert game.thread_id is not None
    return await env.wait_for_message(game.thread_id, lambda m: "🏁" in m.content,
                                      timeout=15.0)


async def private_text(ix: FakeInteraction) -> str:
    await ix.wait_response()
    assert ix.ephemeral, "a refusal must be private"
    return await answer_text(ix)


def member_overwrite(env: DiscordEnv, user: str, *, deny: tuple[str, ...] = ()) -> None:
    """Deny (or, with nothing, give back) ``user`` permissions in the main channel."""
    ow = env.state.overwrite_for(env.channel, env.user(user).id, 1)
    ow.deny = perm_bits(*deny) if deny else 0


async def test_rematch_obeys_the_server_and_cannot_flood_threads(discord_env: DiscordEnv,
                                                                 tmp_path: Path) -> None:
    env = discord_env
    game_id = await finished_game(env, tmp_path / "r.sqlite3")
    await env.start_client(factory(tmp_path / "r.sqlite3", lobbies_per_hour=3,
                                   start_cooldown=0.01))
    manager = bot(env).manager
    sheet = await score_sheet(env, game_id)
    threads = len(env.threads(env.channel))
    games = env.get_channel("games")

    # The server opens games in #games only: a rematch of a game played elsewhere is refused
    # like /calico start would be there, privately, and opens nothing.
    await servers.update(manager.kernel, env.guild.id, {"games_channel_id": games.id})
    text = await private_text(await env.click("alice", sheet, label="Rematch"))
    assert text == EN("hosting.wrong_channel", channel=f"<#{games.id}>")
    await servers.update(manager.kernel, env.guild.id, {}, ("games_channel",))
    # Someone who may not open threads in the channel may not make the bot do it for them.
    member_overwrite(env, "alice", deny=("create_public_threads",))
    text = await private_text(await env.click("alice", sheet, label="Rematch"))
    assert text == EN("perm.member_missing", perms=EN("perm.create_public_threads"))
    # ... nor with /calico start (issue #20, players 8).
    text = await private_text(await env.slash("alice", "calico", "start"))
    assert text == EN("perm.member_missing", perms=EN("perm.create_public_threads"))
    member_overwrite(env, "alice")
    await settle(env)
    assert len(env.threads(env.channel)) == threads
    assert await manager.store.game_ids() == [game_id]

    # Rematch, cancel, rematch...: three new tables an hour (at once), then a private "later".
    await (await env.click("owner", sheet, label="Rematch")).wait_response()  # not a player
    opened = 0
    for _ in range(5):
        ix = await env.click("alice", env.get_message(sheet.id), label="Rematch")
        await ix.wait_response()
        answer = await answer_text(ix)
        assert ix.ephemeral
        if answer == EN("error.too_many_new_lobbies", limit=3, count=3, minutes=20):
            break
        await settle(env)
        lobby = env.messages(env.threads(env.channel)[-1].id)[0]
        await (await env.click("alice", lobby, label=EN("lobby.cancel"))).wait_response()
        opened += 1
    else:
        raise AssertionError("five rematch lobbies opened and cancelled in a row")
    await settle(env)
    assert opened == 3
    assert len(env.threads(env.channel)) == threads + 3


async def test_a_refused_start_uses_up_no_start_allowance(discord_env: DiscordEnv,
                                                         tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(factory(tmp_path / "s.sqlite3"))  # 3 starts at once, then 1/20 s
    manager = bot(env).manager
    games = env.get_channel("games")
    await servers.update(manager.kernel, env.guild.id, {"games_channel_id": games.id})
    for _ in range(4):
        text = await private_text(await env.slash("alice", "calico", "solo"))
        assert text == EN("hosting.wrong_channel", channel=f"<#{games.id}>")
    for _ in range(3):  # the whole allowance is still there
        ix = await env.slash("alice", "calico", "solo", channel=games)
        await ix.wait_response()
        assert not ix.ephemeral and "Calico #" in (await ix.wait_followup()).content
    assert len(await manager.store.game_ids()) == 3
    waited = await private_text(await env.slash("alice", "calico", "solo", channel=games))
    assert WAIT.search(waited)


async def test_host_removes_a_player_and_privileged_entries_refuse_others(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(factory(tmp_path / "h.sqlite3"))
    manager = bot(env).manager
    ix = await env.slash("alice", "calico", "start", options={"players": 3})
    await ix.wait_followup()
    await settle(env)
    [game_id] = await manager.store.game_ids()
    game = await queries.game(manager.kernel, game_id)
    assert game.thread_id is not None
    lobby = await env.wait_for_message(game.thread_id)
    await (await env.click("bob", lobby, label=EN("lobby.join"))).wait_response()
    bob = env.user("bob").id
    remove = f"calico:lr:{game_id}"

    # Every privileged entry of the policy table, tried by someone without the right.
    async def admin() -> str:
        return await private_text(await env.slash("alice", "calico", "admin",
                                                  options={"language": "fr"}))

    async def abandon() -> str:
        return await private_text(await env.slash("bob", "calico", "abandon",
                                                  options={"game": game_id}))

    async def remove_select() -> str:
        return await private_text(await env.select("carol", env.get_message(lobby.id), remove,
                                                   [f"u{bob}"]))

    # A tournament alice organises (made through the core: only a manager could create one).
    now = manager.kernel.now_ms()
    cup = await signup.create(
        manager.kernel, UserRef(env.user("alice").id, "Alice"), env.guild.id, lobby.channel_id,
        tour.Spec("Cup", tour.SWISS, 3, 2, LobbyOptions(), now + 86_400_000,
                        now + 86_400_000, 72.0))

    def organiser(action: str, **options: Any) -> Callable[[], Awaitable[str]]:
        async def drive() -> str:
            return await private_text(await env.slash(
                "carol", "calico", f"tournament {action}",
                options={"tournament": cup.id, **options}))
        return drive

    async def create_cup() -> str:
        return await private_text(await env.slash("carol", "calico", "tournament create",
                                                  options={"name": "Mine"}))

    not_organiser = EN("error.tournament_organiser_only")
    drivers: dict[str, tuple[Callable[[], Awaitable[str]], str]] = {
        policy.slash("admin"): (admin, EN("hosting.manage_only")),
        policy.slash("abandon"): (abandon, FR("error.manage_guild")),
        "select:lr": (remove_select, EN("error.host_only")),
        policy.slash("tournament create"): (create_cup, EN("tournament.create_refused")),
        policy.slash("tournament close"): (organiser("close"), not_organiser),
        policy.slash("tournament remove"): (organiser("remove", user="alice"),
                                            not_organiser),
        policy.slash("tournament pause"): (organiser("pause"), not_organiser),
        policy.slash("tournament cancel"): (organiser("cancel"), not_organiser),
    }
    privileged = {k for k, v in policy.POLICY.items() if isinstance(v, policy.Privileged)}
    assert drivers.keys() == privileged, "drive every privileged entry here"
    before = await queries.game(manager.kernel, game_id, fresh=True)
    for kind, (drive, refusal) in drivers.items():
        assert await drive() == refusal, kind
    assert await queries.game(manager.kernel, game_id, fresh=True) == before
    assert (await servers.settings(manager.kernel, env.guild.id)).is_default
    # The cup is as it was (its sign-up post, made meanwhile, is the only change).
    after = await records.get(manager.kernel, cup.id)
    assert (after.status, after.entrants, after.signup_ends_at) == (
        cup.status, cup.entrants, cup.signup_ends_at)
    assert len(await records.listed(manager.kernel, env.guild.id)) == 1

    # The host removes bob: the lobby says so, and bob cannot join again.
    select = env.get_message(lobby.id).select(remove)
    assert [o.value for o in select.options] == [f"u{bob}"]
    ix = await env.select("alice", env.get_message(lobby.id), remove, [f"u{bob}"])
    await ix.wait_response()
    await settle(env)
    shown = env.get_message(lobby.id).content
    assert "Bob" not in shown and EN("lobby.removed", count=1) in shown
    assert (await queries.game(manager.kernel, game_id, fresh=True)).options.barred == (bob,)
    text = await private_text(await env.click("bob", env.get_message(lobby.id),
                                              label=EN("lobby.join")))
    assert text == FR("error.removed")
    await (await env.click("carol", env.get_message(lobby.id),
                           label=EN("lobby.join"))).wait_response()
    assert len((await queries.game(manager.kernel, game_id, fresh=True)).seats) == 2

    # Autocomplete past its cooldown: no suggestions (it cannot show a message), no error.
    lists = []
    for _ in range(policy.BURSTS[policy.AUTOCOMPLETE] + 2):
        ix = await env.autocomplete("alice", "calico", "status", focused="game")
        await ix.wait_response()
        lists.append([c["value"] for c in ix.choices or []])
    assert lists[0] == [game_id] and lists[-1] == [] and lists[-2] == []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def flood_burst(env: DiscordEnv, sheet: FakeMessage, who: str, rounds: int
                      ) -> list[FakeInteraction]:
    """``who`` clicks Rematch, Review my game and Replay ``rounds`` times each, as fast as the
    client sends them, without waiting for answers."""
    out = []
    for _ in range(rounds):
        for label in ("Rematch", "Review my game", "Replay"):
            out.append(await env.click(who, env.get_message(sheet.id), label=label))
    return out


async def test_a_click_burst_is_told_to_wait_while_others_stay_fast(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    """The flood of issue #20's done-when: mallory bursts Rematch, Review and Replay on her
    score sheet; after each cooldown's burst she is answered "wait", privately, at once, while
    carol's clicks on the same sheet in the same moments are answered quickly."""
    env = discord_env
    env.add_user("mallory")
    game_id = await finished_game(env, tmp_path / "f.sqlite3", "mallory", "alice")
    await env.start_client(factory(tmp_path / "f.sqlite3"))
    sheet = await score_sheet(env, game_id)
    rounds = 12
    started = time.perf_counter()
    burst = asyncio.create_task(flood_burst(env, sheet, "mallory", rounds))
    others: list[float] = []
    other_ix: list[FakeInteraction] = []
    for _ in range(3):  # carol, in the same moments, within her own allowance
        for label in ("Replay", "Rematch"):  # a public replay; no rematch: not her game
            ix = await env.click("carol", env.get_message(sheet.id), label=label)
            await ix.wait_response(timeout=5.0)
            others.append(ix.callbacks[0].at - ix.dispatched_at)
            other_ix.append(ix)
        await asyncio.sleep(0.05)
    flood = await burst
    await asyncio.gather(*(ix.wait_response(timeout=10.0) for ix in flood))
    seconds = time.perf_counter() - started
    waits = [ix for ix in flood if ix.ephemeral and ix.response_type == 4
             and any(WAIT.search(m.content) for m in ix.messages)]
    by_label: dict[str, int] = {}
    for i, ix in enumerate(flood):
        if ix in waits:
            label = ("rematch", "review", "replay")[i % 3]
            by_label[label] = by_label.get(label, 0) + 1
    first = [ix.callbacks[0].at - ix.dispatched_at for ix in waits]
    print(f"flood: {len(flood)} clicks by one person in {seconds:.1f} s, {len(waits)} told to "
          f"wait ({by_label}), wait answers p50 {statistics.median(first) * 1000:.0f} ms; "
          f"another person's {len(others)} clicks: first answer p50 "
          f"{percentile(others, 0.5) * 1000:.0f} ms, p99 {percentile(others, 0.99) * 1000:.0f} ms")
    # Past each burst (rematch 3, review 4, replay 3), every click was told to wait.
    assert by_label == {"rematch": rounds - 3, "review": rounds - 4, "replay": rounds - 3}
    assert all(ix.ephemeral for ix in waits)
    # carol's clicks were not held back by mallory's flood: answered, quickly.
    assert not any(WAIT.search(m.content) for ix in other_ix for m in ix.messages)
    assert percentile(others, 0.99) < 1.0
    await settle(env)
