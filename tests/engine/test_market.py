"""The market: refilling the taken slot with several players, the solo conveyor belt."""

from __future__ import annotations

import pytest

from engine.config import GameOptions, Setup
from engine.moves import PlaceTile
from engine.rules import apply, legal_moves
from tests.engine.helpers import COLORS, PATTERNS, of_kind, solo_beginner, started


def drawn(before, after):
    """The tiles that left the bag between two states (as a sorted list)."""
    return sorted(t for t in range(36) for _ in range(before.bag[t] - after.bag[t]))


def names(t):
    return COLORS[t // 6], PATTERNS[t % 6]


@pytest.mark.parametrize("slot", [0, 1, 2])
def test_multiplayer_refills_the_taken_slot(slot):
    """The taken tile goes to the hand; one tile from the bag fills that same slot."""
    state = started(GameOptions(players=3, setup=Setup.BEGINNER, first_seat=0), 2)
    after, events = apply(state, PlaceTile(0, 8, 0, slot))
    assert [after.market[k] for k in range(3) if k != slot] == [
        state.market[k] for k in range(3) if k != slot]
    assert drawn(state, after) == [after.market[slot]]
    assert state.market[slot] in after.seats[0].hand
    assert after.discards == ()
    refills = of_kind(events, "market_refilled")
    assert [(e.slot, e.color, e.pattern) for e in refills] == [(slot, *names(after.market[slot]))]
    taken = of_kind(events, "tile_taken")
    assert [(e.seat, e.slot, e.color, e.pattern) for e in taken] == [
        (0, slot, *names(state.market[slot]))]
    assert not of_kind(events, "market_discarded")


@pytest.mark.parametrize(("slot", "discarded", "slides"), [(0, 1, 2), (1, 0, 2), (2, 0, 1)])
def test_solo_conveyor(slot, discarded, slides):
    """Solo: the furthest tile left is discarded, the other slides to slot 0, 1 and 2 refill."""
    # slot 0 is furthest from the bag; the refills come one at a time toward the bag
    state = started(solo_beginner(), 3)
    after, events = apply(state, PlaceTile(0, 8, 0, slot))
    assert state.market[slot] in after.seats[0].hand
    assert after.discards == (state.market[discarded],)
    assert after.market[0] == state.market[slides]
    assert drawn(state, after) == sorted(after.market[1:])
    gone = of_kind(events, "market_discarded")
    assert [(e.slot, e.color, e.pattern) for e in gone] == [
        (discarded, *names(state.market[discarded]))]
    slid = of_kind(events, "market_slid")
    assert [(e.from_slot, e.to_slot) for e in slid] == ([] if slides == 0 else [(slides, 0)])
    refills = of_kind(events, "market_refilled")
    assert [(e.slot, (e.color, e.pattern)) for e in refills] == [
        (1, names(after.market[1])), (2, names(after.market[2]))]


def test_solo_discards_are_recorded_all_game():
    """Every solo turn but the 22nd discards one tile; the discards stay on record, in order."""
    state = started(solo_beginner(), 4)
    seen = []
    while state.phase.value == "play":
        move = legal_moves(state)[0]
        state, events = apply(state, move)
        seen += [(e.color, e.pattern) for e in of_kind(events, "market_discarded")]
    assert len(state.discards) == 21
    assert [names(t) for t in state.discards] == seen


def test_solo_with_lower_variance():
    """Solo may use the 72-tile bag; the conveyor works the same."""
    state = started(solo_beginner(lower_variance=True), 5)
    after, _ = apply(state, PlaceTile(0, 8, 0, 1))
    assert after.discards == (state.market[0],) and after.market[0] == state.market[2]
    assert after.bag_count == 72 - 2 - 3 - 2
