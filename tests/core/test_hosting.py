"""Hosting in the manager, on both backends: per-server settings (stored as JSON, cached, other
features' keys kept), the per-person limits on lobbies and games, and the cooldown arithmetic."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.core import lobby, queries, servers
from bot.core.clock import FakeClock
from bot.core.limits import TOO_MANY_GAMES, TOO_MANY_LOBBIES, Cooldowns, LimitError, Rule
from bot.core.manager import Manager
from bot.core.models import ErrorCode, ManagerError, TimeoutAction, UserRef
from bot.core.servers import ServerSettings
from bot.words.catalogue import Text
from bot.words.replies import reply_for
from tests.core.conftest import ANN, BOB, CAT, CHANNEL, GUILD, new_game, opts, seeds

# --------------------------------------------------------------------------- server settings


async def test_server_settings_round_trip_and_keep_other_keys(manager: Manager) -> None:
    assert (await servers.settings(manager.kernel, GUILD)).is_default
    assert (await servers.settings(manager.kernel, None)).is_default
    # Another feature stored a key of its own in the same object first.
    await manager.store.set_guild_settings(GUILD, json.dumps({"streak_role": 42}), 0)
    manager.kernel.servers.forget(GUILD)
    saved = await servers.update(manager.kernel, GUILD, {
        "games_channel_id": 11, "starter_role_id": 22, "turn_hours": 48,
        "timeout_action": "computer", "ping_role_id": 33, "language": "fr",
        "challenge_channel_id": 44})
    assert saved.timeout_action is TimeoutAction.COMPUTER and saved.language == "fr"
    stored = json.loads(await manager.store.guild_settings(GUILD) or "{}")
    assert stored == {"games_channel_id": 11, "starter_role_id": 22, "turn_hours": 48,
                      "timeout_action": "computer", "ping_role_id": 33, "language": "fr",
                      "challenge_channel_id": 44, "streak_role": 42}
    # The weekly challenge reads its channel from this key.
    assert stored["challenge_channel_id"] == 44
    again = await servers.update(manager.kernel, GUILD, {}, ("games_channel", "language"))
    assert again.games_channel_id is None and again.language is None
    assert again.ping_role_id == 33
    cleared = await servers.update(manager.kernel, GUILD, {}, ("all",))
    assert cleared.is_default
    assert json.loads(await manager.store.guild_settings(GUILD) or "{}") == {"streak_role": 42}
    # Another server is untouched.
    assert (await servers.settings(manager.kernel, GUILD + 1)).is_default


async def test_server_settings_are_cached_briefly(manager: Manager,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    await servers.update(manager.kernel, GUILD, {"language": "pl"})
    reads = 0
    real = manager.store.guild_settings

    async def counted(guild_id: int) -> str | None:
        nonlocal reads
        reads += 1
        return await real(guild_id)

    monkeypatch.setattr(manager.store, "guild_settings", counted)
    for _ in range(50):
        assert (await servers.settings(manager.kernel, GUILD)).language == "pl"
    assert reads == 0  # served from the cache the change left behind
    # Written by another process: seen once the cache entry is old enough.
    await manager.store.set_guild_settings(GUILD, json.dumps({"language": "en"}), 0)
    manager.kernel.servers.ttl = 0.0
    assert (await servers.settings(manager.kernel, GUILD)).language == "en"
    assert reads == 1


def test_unreadable_or_bad_values_fall_back_to_defaults() -> None:
    assert ServerSettings.parse("not json").is_default
    assert ServerSettings.parse("[1, 2]").is_default
    bad = ServerSettings.parse(json.dumps({"timeout_action": "explode", "games_channel_id": 5,
                                           "language": "de", "turn_hours": 5}))
    assert bad.timeout_action is None and bad.games_channel_id == 5
    assert bad.language is None and bad.turn_hours is None


# --------------------------------------------------------------------------- limits


async def limited(db_path: str, clock: FakeClock, **config: int) -> Manager:
    from bot.core.manager import ManagerConfig

    return await Manager.open(db_path, clock=clock, seed_source=seeds(), exclusive=False,
                              config=ManagerConfig(**config))


async def test_open_lobbies_hosted_are_limited(db_path: str, clock: FakeClock) -> None:
    m = await limited(db_path, clock, max_lobbies=2, max_active_games=10)
    try:
        first = await new_game(m, ANN, people=(BOB,), start=False, players=3)
        await new_game(m, ANN, start=False, players=2)
        with pytest.raises(LimitError) as refused:
            await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
        assert refused.value.code == TOO_MANY_LOBBIES and refused.value.params["limit"] == 2
        assert "2 open tables" in reply_for(Text("en"), refused.value)
        # Lobbies joined, not hosted, do not count: Bob sits in Ann's and opens two of his.
        await new_game(m, BOB, start=False, players=2)
        await new_game(m, BOB, start=False, players=2)
        # A solo game is not a lobby; starting a lobby frees its place.
        await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=1), start=True)
        await lobby.start(m.kernel, first.id, ANN.id)
        await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
    finally:
        await m.close()


async def test_active_games_are_limited_when_creating_and_joining(db_path: str,
                                                                  clock: FakeClock) -> None:
    m = await limited(db_path, clock, max_lobbies=5, max_active_games=2)
    try:
        await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=1), start=True)
        table = await new_game(m, BOB, start=False, players=2)
        await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
        with pytest.raises(LimitError) as refused:
            await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=1), start=True)
        assert refused.value.code == TOO_MANY_GAMES
        assert "2 games" in reply_for(Text("en"), refused.value)
        assert "2 parties" in reply_for(Text("fr"), refused.value)
        before = await queries.game(m.kernel, table.id)
        with pytest.raises(LimitError):
            await lobby.join(m.kernel, table.id, ANN)
        assert await queries.game(m.kernel, table.id, fresh=True) == before  # nothing changed
        await lobby.join(m.kernel, table.id, CAT)  # others are not held back
    finally:
        await m.close()


async def test_a_burst_of_creates_cannot_slip_past_the_limit(db_path: str,
                                                             clock: FakeClock) -> None:
    m = await limited(db_path, clock, max_lobbies=3, max_active_games=25)
    try:
        results = await asyncio.gather(
            *(lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2)) for _ in range(12)),
            return_exceptions=True)
        made = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, LimitError)]
        assert len(made) == 3 and len(refused) == 9
    finally:
        await m.close()


async def test_no_limits_by_default(manager: Manager) -> None:
    for _ in range(6):
        await lobby.create_game(manager.kernel,
                                UserRef(77, "Many"), GUILD, CHANNEL, opts(players=2))


def test_limit_error_is_a_manager_refusal() -> None:
    error = LimitError(TOO_MANY_GAMES, 25)
    assert isinstance(error, ManagerError) and error.code not in {c.value for c in ErrorCode}
    assert "25" in reply_for(Text("pl"), error)


# --------------------------------------------------------------------------- cooldowns


def test_cooldowns_allow_a_burst_then_a_steady_pace() -> None:
    now = [100.0]
    cd = Cooldowns({"start": Rule(3, 20.0), "off": Rule(3, 0.0)}, clock=lambda: now[0])
    assert [cd.take("start", 1) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = cd.take("start", 1)
    assert wait == pytest.approx(20.0)
    assert cd.take("start", 2) == 0.0  # someone else is not held back
    assert cd.take("other", 1) == 0.0 and cd.take("off", 1) == 0.0  # unlimited kinds
    now[0] += 10
    assert cd.take("start", 1) == pytest.approx(10.0)
    now[0] += 10
    assert cd.take("start", 1) == 0.0
    assert cd.take("start", 1) > 0
    now[0] += 60  # fully refilled after burst × every
    assert [cd.take("start", 1) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert cd.refused == 3


def test_cooldowns_forget_people_who_are_whole_again() -> None:
    now = [0.0]
    cd = Cooldowns({"p": Rule(2, 1.0)}, clock=lambda: now[0], size=10)
    for user in range(10):
        cd.take("p", user)
    now[0] += 5
    cd.take("p", 99)
    cd.take("p", 100)  # over the size: everyone whole again is dropped
    assert len(cd._due) <= 10


async def test_new_lobbies_per_hour_count_cancelled_ones(db_path: str, clock: FakeClock) -> None:
    """Issue #20, players 1: opening a lobby and cancelling it at once still uses that
    lobby's share of the hourly allowance; a solo game, a refused create and other people
    are not counted; the allowance refills one lobby every 60/N minutes."""
    from datetime import timedelta

    from bot.core.limits import TOO_MANY_NEW_LOBBIES

    m = await limited(db_path, clock, max_lobbies=3, new_lobbies_per_hour=3)
    try:
        for _ in range(3):
            g = await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
            await lobby.cancel(m.kernel, g.id, ANN.id)
        await lobby.create_game(m.kernel,
                                ANN, GUILD, CHANNEL, opts(players=1), start=True)  # solo: free
        with pytest.raises(LimitError) as refused:
            await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
        assert refused.value.code == TOO_MANY_NEW_LOBBIES
        assert refused.value.params["minutes"] == 20
        assert "3 tables" in reply_for(Text("en"), refused.value)
        with pytest.raises(LimitError):  # checked before anything is created, too
            await lobby.check_limits(m.kernel, ANN.id, hosting=True)
        await lobby.create_game(m.kernel,
                                BOB, GUILD, CHANNEL, opts(players=2))  # others are not held back
        clock.advance(timedelta(minutes=20))
        await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
        with pytest.raises(LimitError):
            await lobby.create_game(m.kernel, ANN, GUILD, CHANNEL, opts(players=2))
    finally:
        await m.close()


def test_cooldowns_wait_and_refund() -> None:
    now = [0.0]
    cd = Cooldowns({"s": Rule(2, 10.0)}, clock=lambda: now[0])
    assert cd.take("s", 1) == 0.0 and cd.take("s", 1) == 0.0
    assert cd.wait("s", 1) == pytest.approx(10.0) and cd.take("s", 1) == pytest.approx(10.0)
    cd.refund("s", 1)  # the last one taken was refused: it is given back
    assert cd.wait("s", 1) == 0.0 and cd.take("s", 1) == 0.0
    cd.refund("s", 2)  # nothing taken: nothing to give back
    assert cd.wait("s", 2) == 0.0
