"""Live progress on the quilt during play: goal values struck when no longer reachable or on a
green pill once scored, and the groups growing toward a cat ringed in that cat's colour."""

from __future__ import annotations

from PIL import Image

from engine.config import GameConfig
from engine.hexgrid import NEIGHBOURS, cell_name, parse_cell
from engine.progress import goal_progress
from engine.scoring import breakdown
from engine.state import GameState, SeatState
from engine.views import SeatView, public_view
from render.geometry import quilt_layout
from render.progress import VALUES_X, VALUES_Y, shown_groups
from render.quilt import draw_quilt
from render.theme import BAD, GOOD, cat_fur
from tests.engine.helpers import COLORS, PATTERNS, build, empty_quilt, place_all

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


def _view(config: GameConfig, seat: SeatState, elsewhere: tuple[int, ...] = ()) -> SeatView:
    return SeatView(0, seat.board, seat.quilt, seat.goals, False, seat.placed, seat.buttons,
                    seat.cats, seat.rainbow, 0, breakdown(config, seat), elsewhere)


def _ring_share(img: Image.Image, cell: int, fur: tuple[int, int, int]) -> float:
    lay = quilt_layout()
    r = lay.radius
    x, y = lay.center(cell)
    return share_near(img, box((x, y), -r * 0.8, -r * 0.2, -r * 0.62, r * 0.2), fur, 30)


def test_a_pair_that_can_never_earn_its_cat_is_not_ringed() -> None:
    """Issue 30's smallest case (purple board, Tibbit on A4): the pair of the printed patch
    left of A1 and B1 can reach three at most without joining Tibbit's area: no ring. With
    nothing scored next to it (A3 another pattern), the same pair is ringed."""
    placements = [("A3", "yellow", "quatrefoil"), ("B1", "green", "quatrefoil"),
                  ("C2", "green", "dots"), ("B5", "magenta", "quatrefoil"),
                  ("A4", "purple", "quatrefoil"), ("A1", "yellow", "dots"),
                  ("C1", "purple", "dots")]
    fur = cat_fur("tibbit")
    b1, patch = parse_cell("B1"), parse_cell("B1") - 8
    cfg, seat, _ = build("purple", placements)
    assert seat.cats  # Tibbit came on A4
    img = draw_quilt(_view(cfg, seat), cfg)
    assert _ring_share(img, b1, fur) < 0.05 and _ring_share(img, patch, fur) < 0.05
    placements[0] = ("A3", "yellow", "dots")
    cfg, seat, _ = build("purple", placements)
    img = draw_quilt(_view(cfg, seat), cfg)
    assert _ring_share(img, b1, fur) > 0.2 and _ring_share(img, patch, fur) > 0.2


def test_both_ways_value_struck_when_every_copy_of_its_tile_is_on_other_quilts() -> None:
    """"All different" on B3 with one cell left, which only the tile of the sixth colour and
    sixth pattern meets both ways: struck in red once its three copies are on other quilts
    (what every player sees), not before; the one-way value stays unstruck."""
    cfg, seat = empty_quilt("blue", goals=("all-different", "aa-bb-cc", "aaa-bbb"))
    spot = cfg.goal_spots[0]
    around = list(NEIGHBOURS[spot])
    seat, _ = place_all(cfg, seat, [(cell_name(c), COLORS[i], PATTERNS[i])
                                    for i, c in enumerate(around[:5])])
    last = 5 * 6 + 5
    gone = tuple(3 if t == last else 0 for t in range(36))
    lay = quilt_layout()
    r = lay.radius
    x, y = lay.center(spot)

    def red(img: Image.Image, dx: float) -> float:
        at = (x + dx * r, y + VALUES_Y * r)
        return share_near(img, box(at, -r * 0.2, -r * 0.18, r * 0.2, r * 0.18), BAD, 40)

    before = draw_quilt(_view(cfg, seat), cfg)
    after = draw_quilt(_view(cfg, seat, gone), cfg)
    assert red(before, VALUES_X) < 0.01 and red(before, -VALUES_X) < 0.01
    assert red(after, VALUES_X) > 0.04
    assert red(after, -VALUES_X) < 0.01
