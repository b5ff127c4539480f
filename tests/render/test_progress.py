"""Live progress on the quilt during play: goal values struck when no longer reachable or on a
green pill once scored, and the groups growing toward a cat ringed in that cat's colour."""

from __future__ import annotations

from engine.progress import goal_progress
from engine.state import GameState
from engine.views import public_view
from render.geometry import quilt_layout
from render.progress import VALUES_X, VALUES_Y, shown_groups
from render.quilt import draw_quilt
from render.theme import BAD, GOOD, cat_fur

from .helpers import box, share_near


def test_groups_toward_cats_are_ringed_in_the_cats_colour(two_mid: GameState,
                                                           two_end: GameState) -> None:
    seen = 0
    for state in (two_mid, two_end):
        pub = public_view(state)
        for seat in pub.seats:
            groups = shown_groups(state.config, seat)
            img = draw_quilt(seat, state.config)
            bare = draw_quilt(seat, state.config, hints=False)
            lay = quilt_layout()
            r = lay.radius
            for g in groups:
                fur = cat_fur(state.config.cats[g.cat].id)
                for c in g.cells:
                    x, y = lay.center(c)
                    band = box((x, y), -r * 0.8, -r * 0.2, -r * 0.62, r * 0.2)
                    assert share_near(img, band, fur, 30) > 0.2, (g, c)
                    if share_near(bare, band, fur, 30) < 0.05:
                        seen += 1
            # Without hints (the table's thumbnails), no rings at all.
            ringed = {c for g in groups for c in g.cells}
            for c in ringed:
                x, y = lay.center(c)
                band = box((x, y), -r * 0.8, -r * 0.2, -r * 0.62, r * 0.2)
                fur = cat_fur(state.config.cats[next(g for g in groups
                                                     if c in g.cells).cat].id)
                assert share_near(bare, band, fur, 30) <= share_near(img, band, fur, 30)
    assert seen >= 4  # the samples do have growing groups, and they are drawn


def test_goal_values_show_what_is_left(two_end: GameState) -> None:
    """At the end every goal is met (a green pill on the value scored) or not (both values
    struck in red)."""
    pub = public_view(two_end)
    lay = quilt_layout()
    r = lay.radius
    kinds = set()
    for seat in pub.seats:
        assert seat.goals is not None
        img = draw_quilt(seat, two_end.config)
        for g in goal_progress(two_end.config, seat.quilt, seat.goals):
            x, y = lay.center(g.spot)
            rule = two_end.config.goal(g.goal)
            for dx, value in ((-VALUES_X, rule.one_way), (VALUES_X, rule.both_ways)):
                at = (x + dx * r, y + VALUES_Y * r)
                region = box(at, -r * 0.2, -r * 0.18, r * 0.2, r * 0.18)
                if g.state == "met" and value == g.points:
                    assert share_near(img, region, GOOD, 30) > 0.3, g
                    kinds.add("met")
                elif g.state == "impossible":
                    assert share_near(img, region, BAD, 40) > 0.04, g
                    kinds.add("lost")
    assert kinds  # the sample's goals end one way or the other
