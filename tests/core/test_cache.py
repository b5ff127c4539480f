"""The games one process keeps parsed (:class:`bot.core.cache.GameCache`): bounded, the most
recently used staying, ended games only a few; a load never replaces a newer commit; another
process's write drops an older copy; and whoever watches a game or a topic is woken by its
changes."""

from __future__ import annotations

import asyncio
import gc
import weakref

from bot.core.cache import GameCache, UserCache
from bot.core.game import LiveGame, evolve, unborn
from bot.core.models import GameStatus, LobbyOptions
from bot.core.storage.rows import UserRow


def game(game_id: int, version: int = 0, status: GameStatus = GameStatus.PLAY) -> LiveGame:
    g = unborn(guild_id=1, channel_id=2, host_id=3, options=LobbyOptions(), seats=(), now=0)
    return evolve(g, {"id": game_id, "version": version, "status": status})


def ended(game_id: int) -> LiveGame:
    return game(game_id, status=GameStatus.OVER)


def cached(cache: GameCache) -> list[int]:
    return [g.id for g in cache.games()]


def test_the_least_recently_used_game_leaves_first() -> None:
    cache = GameCache(3, 3)
    for i in (1, 2, 3):
        cache.keep(game(i))
    assert cache.get(1) is not None  # used: now the most recent
    cache.keep(game(4))
    assert cached(cache) == [3, 1, 4]
    assert cache.peek(3) is not None  # a peek leaves its place as it was
    cache.keep(game(5))
    assert cached(cache) == [1, 4, 5]
    assert cache.get(2) is None and cache.get(3) is None


def test_only_the_newest_ended_games_stay() -> None:
    cache = GameCache(10, 2)
    cache.keep(game(1))
    for i in (2, 3, 4):
        cache.keep(ended(i))
    assert cached(cache) == [1, 3, 4]  # games in play are not pushed out by ended ones
    cache.keep(game(5))
    cache.keep(ended(6))
    assert cached(cache) == [1, 4, 5, 6]


def test_a_game_kept_again_takes_the_newest_place() -> None:
    cache = GameCache(2, 2)
    cache.keep(game(1))
    cache.keep(game(2))
    cache.keep(game(1))  # a new commit of game 1: now the most recent
    cache.keep(game(3))
    assert cached(cache) == [1, 3]
    cache.keep(ended(4))
    cache.keep(ended(5))
    cache.keep(ended(4))  # game 4 written again after its end: the newest ended game
    cache.keep(ended(6))
    assert cached(cache) == [4, 6]


def test_a_forgotten_ended_game_leaves_its_place_to_another() -> None:
    cache = GameCache(10, 2)
    cache.keep(ended(1))
    cache.keep(ended(2))
    cache.forget(2)
    cache.keep(ended(3))
    assert cached(cache) == [1, 3]  # two ended games cached, as the bound allows
    cache.keep(ended(4))
    cache.changed_elsewhere(4, 5)  # another process changed it: dropped
    cache.keep(ended(5))
    assert cached(cache) == [3, 5]


def test_a_load_never_replaces_a_newer_commit() -> None:
    cache = GameCache(10, 2)
    cache.keep(game(1, version=4))
    cache.remember(game(1, version=3))  # a load that raced the commit of version 4
    assert cache.peek(1).version == 4  # type: ignore[union-attr]
    same = game(1, version=4)
    cache.remember(same)
    assert cache.peek(1) is same
    cache.remember(game(1, version=5))
    assert cache.peek(1).version == 5  # type: ignore[union-attr]
    cache.keep(game(1, version=2))  # a commit of this process is the game as it stands
    assert cache.peek(1).version == 2  # type: ignore[union-attr]


async def test_another_process_write_drops_an_older_copy_and_wakes_its_watchers() -> None:
    cache = GameCache(10, 2)
    mine = game(1, version=3)
    cache.keep(mine)
    with cache.watch(1) as woken:
        cache.changed_elsewhere(1, 3)  # the echo of this process's own commit
        assert cache.peek(1) is mine and woken.is_set()
        woken.clear()
        cache.changed_elsewhere(1, 4)
        assert cache.peek(1) is None and woken.is_set()
        woken.clear()
        cache.changed_elsewhere(1, 5)  # not cached: its watchers still look again
        assert woken.is_set()


async def test_watchers_are_woken_by_their_topic_only() -> None:
    cache = GameCache(10, 2)
    with cache.watch(7) as seven, cache.watch(7) as again, \
            cache.watch("tournament:3") as cup:
        cache.touch("tournament:4")
        cache.keep(game(8))
        assert not (seven.is_set() or again.is_set() or cup.is_set())
        cache.keep(game(7))
        assert seven.is_set() and again.is_set() and not cup.is_set()
        cache.touch("tournament:3")
        assert cup.is_set()
        waiter = asyncio.create_task(cup.wait())
        await asyncio.wait_for(waiter, 1)
    cache.touch("tournament:3")  # nobody watches any more: nothing to wake, no error
    with cache.watch("tournament:3") as fresh:
        assert not fresh.is_set()


def test_a_watcher_that_leaves_takes_only_itself_away() -> None:
    cache = GameCache(10, 2)
    with cache.watch(7) as stays:
        with cache.watch(7) as leaves:
            gone = weakref.ref(leaves)
        del leaves
        cache.touch(7)
        assert stays.is_set()  # the other watcher of the same topic still hears
    del stays
    gc.collect()
    assert gone() is None  # nothing keeps a finished watch alive


def test_the_oldest_person_leaves_a_full_user_cache() -> None:
    people = UserCache(2)
    for user_id in (1, 2, 3):
        people.keep(UserRow(user_id, f"p{user_id}", None, True, None, None))
    assert [people.get(i) is not None for i in (1, 2, 3)] == [False, True, True]
