"""What players may see: public and private views never hold the seed, the generator state or
the bag, and a private view holds only its own hand."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from hypothesis import HealthCheck, given, settings

from engine.config import GameOptions
from engine.scoring import breakdown
from engine.setup import new_game
from engine.views import private_view, public_view
from tests.engine.helpers import CATALOG, game_setups, play_random

SECRET_KEYS = {"seed", "rng", "bag"}


def keys(data: Any) -> set[str]:
    """Every key anywhere in a JSON-like structure."""
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys(v)}
    if isinstance(data, list | tuple):
        return {k for v in data for k in keys(v)}
    return set()


def find(data: Any, key: str) -> list[Any]:
    """Every value stored under ``key`` anywhere in the structure."""
    if isinstance(data, dict):
        own = [data[key]] if key in data else []
        return own + [x for v in data.values() for x in find(v, key)]
    if isinstance(data, list | tuple):
        return [x for v in data for x in find(v, key)]
    return []


def as_json(view: Any) -> tuple[dict[str, Any], str]:
    text = json.dumps(asdict(view))
    return json.loads(text), text


def check_views(state: Any) -> None:
    pub, text = as_json(public_view(state))
    secrets = (str(state.rng), str(state.seed))
    assert not SECRET_KEYS & keys(pub)
    assert not any(s in text for s in secrets)
    assert "hand" not in keys(pub) and "goal_offer" not in keys(pub)
    assert json.dumps(list(state.bag))[1:-1] not in text  # the 36 per-tile counts
    for i, seat in enumerate(state.seats):
        priv, ptext = as_json(private_view(state, i))
        assert not SECRET_KEYS & keys(priv)
        assert not any(s in ptext for s in secrets)
        assert find(priv, "hand") == [list(seat.hand)]
        assert find(priv, "goal_offer") == [list(seat.goal_offer)]
        assert priv["seat"] == i and priv["public"] == pub


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups())
def test_views_never_show_the_seed_the_generator_or_the_bag(setup):
    """All game long no view shows a secret; a private view shows only its own hand and offer."""
    options, seed, move_seed = setup

    def check(before, move, after, events):
        if after.ply % 7 == 0 or after.phase.value != "play":
            check_views(after)

    check_views(new_game(CATALOG, options, seed))
    play_random(options, seed, move_seed, check)


def test_public_view_shows_the_table():
    """The public view shows quilts, tokens, scores, the market, hand sizes and whose turn."""
    state = new_game(CATALOG, GameOptions(players=3, first_seat=1), 2**45 + 1)
    view = public_view(state)
    assert view.market == state.market and view.current_seat == state.current_seat
    assert view.bag_count == state.bag_count == 108 - 6 - 3
    for i, (sv, seat) in enumerate(zip(view.seats, state.seats, strict=True)):
        assert (sv.seat, sv.board, sv.quilt, sv.hand_size) == (i, seat.board, seat.quilt, 2)
        assert sv.drafting and sv.goals is None
        assert sv.score == breakdown(state.config, seat)


def test_private_view_holds_only_its_own_hand():
    """Seat i's private view holds seat i's hand, and no other seat's tiles in hand."""
    state = new_game(CATALOG, GameOptions(players=4), 2**50 + 3)
    for i, seat in enumerate(state.seats):
        view = private_view(state, i)
        assert view.hand == seat.hand and view.goal_offer == seat.goal_offer
        data = asdict(view)
        assert find(data, "hand") == [seat.hand]
