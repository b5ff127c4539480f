"""A game's public steps for the web (:class:`bot.core.site.service.Replays`): a page view of a
game that moved on since the last one replays only the new moves, and shows exactly what a
replay from the start would."""

from __future__ import annotations

import random
from pathlib import Path

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.queries import game as read_game
from bot.core.site import service as site
from tests.core.conftest import ANN, BOB, new_game, seeds
from tests.web.conftest import play_out_some


async def test_a_game_moved_on_is_replayed_from_where_the_last_view_left_it(
        tmp_path: Path) -> None:
    m = await Manager.open(tmp_path / "r.db", clock=FakeClock(), seed_source=seeds())
    try:
        k = m.kernel
        rng = random.Random(3)
        g = await play_out_some(m, await new_game(m, ANN, people=(BOB,)), rng, 8)
        replays = site.Replays()
        first = await replays.steps(k, g)
        assert first[0].seat is None and len(first) >= 2  # the table as play began, then moves
        applied = replays.moves_replayed
        assert applied == g.ply  # the whole game so far, once

        again = await replays.steps(k, await read_game(k, g.id, fresh=True))
        assert again is first and replays.moves_replayed == applied  # same version: kept

        g = await play_out_some(m, await read_game(k, g.id, fresh=True), rng, 3)
        later = await replays.steps(k, g)
        assert replays.moves_replayed == applied + 3  # only the three new moves
        assert later[:len(first)] == first and len(later) == len(first) + 3
        # Exactly what a replay from the start shows, and the older list is left as it was.
        fresh = await site.Replays().steps(k, g)
        assert later == fresh and later is not first and len(first) == len(later) - 3
        assert later[-1].view == fresh[-1].view and later[-1].events == fresh[-1].events
        assert later[-1].ply == g.ply  # the step after the game's last move, numbered so
    finally:
        await m.close()


async def test_the_games_kept_are_the_latest_viewed(tmp_path: Path) -> None:
    m = await Manager.open(tmp_path / "s.db", clock=FakeClock(), seed_source=seeds())
    try:
        k = m.kernel
        rng = random.Random(5)
        games = [await play_out_some(m, await new_game(m, ANN, people=(BOB,)), rng, 4)
                 for _ in range(3)]
        replays = site.Replays(size=2)
        for g in games:
            await replays.steps(k, g)
        n = replays.moves_replayed
        await replays.steps(k, games[2])  # kept
        await replays.steps(k, games[1])  # kept
        assert replays.moves_replayed == n
        await replays.steps(k, games[0])  # dropped when the third came: replayed again
        assert replays.moves_replayed == n + games[0].ply
    finally:
        await m.close()


async def test_a_game_that_is_not_the_one_kept_is_replayed_from_the_start(
        tmp_path: Path) -> None:
    # The database restored from an older backup while the site runs: the same game, fewer
    # moves (then other ones) than the replay kept.
    new = await Manager.open(tmp_path / "new.db", clock=FakeClock(), seed_source=seeds())
    old = await Manager.open(tmp_path / "old.db", clock=FakeClock(), seed_source=seeds())
    try:
        g_new = await play_out_some(new, await new_game(new, ANN, people=(BOB,)),
                                    random.Random(1), 9)
        g_old = await play_out_some(old, await new_game(old, ANN, people=(BOB,)),
                                    random.Random(2), 4)
        assert g_new.id == g_old.id and g_new.version != g_old.version
        replays = site.Replays()
        await replays.steps(new.kernel, g_new)
        shown = await replays.steps(old.kernel, g_old)
        assert shown == await site.Replays().steps(old.kernel, g_old)
        assert shown[-1].ply == g_old.ply
    finally:
        await new.close()
        await old.close()
