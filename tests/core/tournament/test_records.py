"""Reading a tournament back (:mod:`bot.core.tournament.records`): a number that names no
tournament is an unknown tournament, whatever its size; a round's tables are that round's and
no other's, and waiting for them answers them."""

from __future__ import annotations

import random

import pytest

from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import ManagerError
from bot.core.tournament import records
from bot.core.tournament.model import UNKNOWN
from tests.core.tournament.conftest import play_round, started


@pytest.mark.parametrize("tid", [0, -3, 1 << 63, (1 << 64) - 1, 10**20])
async def test_a_number_past_any_stored_id_is_an_unknown_tournament(
        sqlite_manager: Manager, clock: FakeClock, tid: int) -> None:
    await started(sqlite_manager, clock, 4, rounds=2)
    with pytest.raises(ManagerError) as e:
        await records.get(sqlite_manager.kernel, tid)
    assert e.value.code == UNKNOWN


async def test_a_rounds_tables_are_that_rounds_only(sqlite_manager: Manager,
                                                   clock: FakeClock) -> None:
    m = sqlite_manager
    t = await started(m, clock, 5, rounds=2)
    await play_round(m, t.id, 1, random.Random(1))
    await m.sweep()
    assert (await records.get(m.kernel, t.id)).round == 2
    everything = await records.tables(m.kernel, t.id)
    for round_no in (1, 2):
        theirs = await records.round_tables(m.kernel, t.id, round_no)
        assert theirs == [x for x in everything if x.round == round_no]
        # Five players: two tables of two and a bye, each round.
        assert len(theirs) == 3 and sum(x.bye for x in theirs) == 1
    # Waiting for an opened round answers its tables at once, every game there.
    waited = await records.round_tables(m.kernel, t.id, 2, wait=5.0)
    assert waited == [x for x in everything if x.round == 2]
    assert all(x.bye or x.game_id is not None for x in waited)
