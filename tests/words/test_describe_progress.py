"""The live progress in the quilt's and the turn's words (en, fr, pl): the groups growing
toward a cat (as the picture rings them) and what an open goal may still give."""

from __future__ import annotations

import pytest

from bot.words import describe as d
from bot.words import terms
from bot.words.catalogue import LANGS, Text
from engine.config import GameConfig, GameOptions
from engine.hexgrid import INNER, NEIGHBOURS, cell_name
from engine.progress import goal_progress, growing_groups
from engine.scoring import breakdown
from engine.state import SeatState
from engine.views import SeatView, private_view, public_view
from render.samples import play_until
from tests.engine.helpers import (
    COLORS,
    PATTERNS,
    build,
    cats_with,
    empty_quilt,
    free_patterns,
    place_all,
)


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


def _view(config: GameConfig, seat: SeatState, elsewhere: tuple[int, ...] = ()) -> SeatView:
    return SeatView(0, seat.board, seat.quilt, seat.goals, False, seat.placed, seat.buttons,
                    seat.cats, seat.rainbow, 0, breakdown(config, seat), elsewhere)


@pytest.mark.parametrize("lang", LANGS)
def test_a_shape_cat_group_says_its_progress_toward_the_shape(lang: str) -> None:
    """Issue 30: three tiles in a line are two of Callie's triangle, not three of three."""
    tr = Text(lang)
    cells = ("A1", "A2", "A3")
    pattern = free_patterns("blue", cells)[0]
    other = next(p for p in PATTERNS if p != pattern)
    cfg, seat, _ = build("blue", [(c, ("green", "yellow")[i % 2], pattern)
                                  for i, c in enumerate(cells)],
                         cats_with("callie", (pattern, other)))
    desc = d.quilt(tr, _view(cfg, seat), cfg, "Ann")
    said = tr("alt.progress.group", cat=terms.cat_name("callie"),
              pattern=terms.pattern_name(tr, pattern), size=2, need=3, cells="A1, A2, A3")
    wrong = tr("alt.progress.group", cat=terms.cat_name("callie"),
               pattern=terms.pattern_name(tr, pattern), size=3, need=3, cells="")
    assert said.split(" A1")[0] in desc.long
    assert wrong.rstrip() not in desc.long


@pytest.mark.parametrize("lang", LANGS)
def test_a_goal_whose_last_tile_is_gone_says_what_is_left(lang: str) -> None:
    """Issue 30: "all different" one tile short, its one both-ways tile on other quilts:
    worth up to the one-way value, not the both-ways value."""
    tr = Text(lang)
    cfg, seat = empty_quilt("blue", goals=("all-different", "aa-bb-cc", "aaa-bbb"))
    around = list(NEIGHBOURS[cfg.goal_spots[0]])
    seat, _ = place_all(cfg, seat, [(cell_name(c), COLORS[i], PATTERNS[i])
                                    for i, c in enumerate(around[:5])])
    rule = cfg.goal("all-different")
    gone = tuple(3 if t == 35 else 0 for t in range(36))
    assert tr("alt.goal.up_to", count=rule.both_ways) in d.quilt(tr, _view(cfg, seat), cfg).long
    long = d.quilt(tr, _view(cfg, seat, gone), cfg).long
    assert tr("alt.goal.up_to", count=rule.one_way) in long
    assert tr("alt.goal.up_to", count=rule.both_ways) not in long
