"""The host's three cats (issue #22): ``cat1``..``cat3`` of ``/calico start`` and ``/calico solo``
checked on arrival (three different cats we have, not both sides of one tile, not with a
scenario or the beginner setup, which name their own), answered in the player's language, and
the game dealt with exactly those cats."""

from __future__ import annotations

import pytest

from bot.adapter.options import CATS, BadOptionError, solo_options, start_options
from bot.core.models import LobbyOptions
from bot.words.catalogue import LANGS, Text
from data import load_catalog
from engine.setup import new_game

START = {"players": 2, "setup": "standard", "variant": "none", "restriction": "none",
         "computers": 0, "level": "normal", "turn_hours": 24, "timeout": "autopilot",
         "first": "random"}


def refusal(tr: Text, **options: object) -> str:
    with pytest.raises(BadOptionError) as err:
        start_options(**{**START, **options})  # type: ignore[arg-type]
    return err.value.reason(tr)


def test_every_cat_is_offered_by_name() -> None:
    assert sorted(CATS) == sorted(load_catalog().cats) and len(CATS) == 10


def test_chosen_cats_are_the_games_cats_in_that_order() -> None:
    cats = ("leo", "callie", "cira")
    options = start_options(**START, cats=cats)  # type: ignore[arg-type]
    assert options.cats == cats
    state = new_game(load_catalog(), options.engine_options(2, 0), 5)
    assert tuple(c.id for c in state.config.cats) == cats
    solo = solo_options(scenario=None, setup="standard", restriction="none", cats=cats)
    assert solo.cats == cats
    # None chosen: drawn as before (and the lobby options say so).
    assert start_options(**START).cats is None  # type: ignore[arg-type]
    assert start_options(**START, cats=(None, None, None)).cats is None  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGS)
def test_bad_choices_are_refused_with_the_reason(lang: str) -> None:
    tr = Text(lang)
    assert refusal(tr, cats=("leo", "cira", None)) == tr("start.cats_three")
    assert refusal(tr, cats=("leo", "leo", "cira")) == tr("start.cats_different")
    assert refusal(tr, cats=("leo", "cira", "rumi"), scenario=2) == tr("start.cats_scenario")
    assert refusal(tr, cats=("leo", "cira", "rumi"), setup="beginner") == \
        tr("start.cats_beginner")
    same = refusal(tr, cats=("leo", "gwenivere", "rumi"))
    assert same == tr("start.cats_same_tile", first="Gwenivere", second="Leo") or \
        same == tr("start.cats_same_tile", first="Leo", second="Gwenivere")
    assert "Leo" in same and "{" not in same
    assert refusal(tr, cats=("garfield", "cira", "rumi")) == tr("start.bad_option",
                                                                option="cat1")
    with pytest.raises(BadOptionError):
        solo_options(scenario=1, setup="standard", restriction="none",
                     cats=("leo", "cira", "rumi"))


def test_stored_options_without_cats_still_load() -> None:
    """Lobbies stored before the option existed read as "drawn at random"."""
    old = LobbyOptions.model_validate_json('{"players": 2, "setup": "standard"}')
    assert old.cats is None and old.engine_options(2, None).cats is None
    with pytest.raises(ValueError):
        LobbyOptions(players=1, scenario=3, cats=("leo", "cira", "rumi"))
