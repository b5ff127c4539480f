"""The live progress in the quilt's and the turn's words (en, fr, pl): the groups growing
toward a cat (as the picture rings them) and what an open goal may still give."""

from __future__ import annotations

import pytest

from bot.words import describe as d
from bot.words import terms
from bot.words.catalogue import LANGS, Text
from engine.config import GameOptions
from engine.hexgrid import INNER, cell_name
from engine.progress import goal_progress, growing_groups
from engine.views import private_view, public_view
from render.samples import play_until


@pytest.fixture(scope="module")
def mid():  # type: ignore[no-untyped-def]
    return play_until(GameOptions(players=2), 11, 2 + 25, own_chooser=True)


@pytest.mark.parametrize("lang", LANGS)
def test_growing_groups_are_said(lang: str, mid) -> None:  # type: ignore[no-untyped-def]
    tr = Text(lang)
    pub = public_view(mid)
    said = 0
    for seat in pub.seats:
        groups = growing_groups(mid.config, seat.quilt, [c for c, _ in seat.cats])
        desc = d.quilt(tr, seat, mid.config, "Ann")
        head = tr("alt.progress.cats", groups="").rstrip(".").strip()
        if not groups:
            assert head not in desc.long
            continue
        assert head in desc.long and head in desc.short
        for g in groups:
            cat = terms.cat_name(mid.config.cats[g.cat].id)
            inner = [cell_name(c) for c in g.cells if c in INNER]
            line = next(x for x in desc.long.splitlines() if head in x)
            assert cat in line
            assert all(c in line for c in inner)
            said += 1
        assert len(desc.short) <= d.ATTACHMENT_DESCRIPTION_LIMIT
    assert said  # the sample has groups growing toward a cat


@pytest.mark.parametrize("lang", LANGS)
def test_open_goals_say_what_they_may_still_give(lang: str, mid) -> None:  # type: ignore[no-untyped-def]
    tr = Text(lang)
    seat = mid.current_seat
    assert seat is not None
    view = private_view(mid, seat)
    sv = view.public.seats[seat]
    assert sv.goals is not None
    desc = d.turn(tr, view, name="Ann")
    progress = goal_progress(mid.config, sv.quilt, sv.goals)
    opened = [g for g in progress if g.state == "open" and g.placed]
    assert opened
    for g in opened:
        assert tr("alt.goal.up_to", count=g.points) in desc.long
