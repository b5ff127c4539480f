"""Review pictures: the chart's two lines and marked turns are where the layout says, and the
turn comparison shows each placement on its own quilt."""

from __future__ import annotations

import pytest
from PIL import Image

from engine.ai.review import (
    REVIEW_VERSION,
    Mistake,
    Placement,
    Reason,
    Review,
    TurnReview,
)
from engine.hexgrid import cell_name
from engine.moves import PlaceTile
from engine.rules import legal_moves
from engine.state import GameState
from engine.views import private_view
from render.review import (
    CHART_HEIGHT,
    CHART_WIDTH,
    ENGINE_LINE,
    MARK,
    PLAYER_LINE,
    REVIEW_LABELS,
    chart_layout,
    compare_layout,
    draw_review_chart,
    draw_turn_compare,
    render_review_chart,
    render_turn_compare,
)

from .helpers import box, decode, diff_bbox, share_near

_P = Placement("h0@C3>m0", "C3", 0, 1)


def _review(mistake_turns: tuple[int, ...] = (), final: int | None = 61) -> Review:
    """A review made by hand: the engine's line a steady 60, the player's 57, with a dip to 49
    at each mistake turn."""
    turns = tuple(
        TurnReview(t, 2 * t, _P, _P, "placement", 49.0 if t in mistake_turns else 57.0, 60.0,
                   45.0, 11.0 if t in mistake_turns else 3.0, 0.5)
        for t in range(1, 23))
    mistakes = tuple(Mistake(t, 2 * t, 11.0, "placement",
                             (Reason("cat", 5.0, "kept_open", cat="millie"),))
                     for t in mistake_turns)
    return Review(REVIEW_VERSION, 0, "strong", 12, 8, 0, turns, None, 80.0,
                  66.0 + 8.0 * len(mistake_turns), mistakes, final)


def _count_near(img: Image.Image, region: tuple[int, int, int, int], rgb: tuple[int, int, int],
                tol: float = 20) -> float:
    return share_near(img, region, rgb, tol)


def test_chart_size_and_both_lines() -> None:
    r = _review((5,))
    img = decode(render_review_chart(r))
    assert img.size == (CHART_WIDTH, CHART_HEIGHT)
    lay = chart_layout(r)
    plot = (round(lay.left), round(lay.top), round(lay.right), round(lay.bottom))
    assert _count_near(img, plot, PLAYER_LINE) > 0.003
    assert _count_near(img, plot, ENGINE_LINE) > 0.003
    # a turn where the lines part: each colour at its own point
    for turn in (4, 5, 6):
        row = r.turns[turn - 1]
        px, py = lay.point(turn, row.ev_played)
        assert _count_near(img, box((px, py), -3, -3, 3, 3), PLAYER_LINE) > 0.3
        ex, ey = lay.point(turn, row.ev_engine)
        assert _count_near(img, box((ex, ey), -3, -3, 3, 3), ENGINE_LINE) > 0.3
    assert lay.y(49.0) > lay.y(60.0)  # lower scores lower down


def test_marked_turns_are_drawn_where_expected() -> None:
    marked = (3, 11, 19)
    r = _review(marked)
    img = draw_review_chart(r)
    lay = chart_layout(r)
    for turn in range(1, 23):
        x = lay.x(turn)
        # the gap between the lines is gold at a marked turn only
        row = r.turns[turn - 1]
        gap = box((x, lay.y((row.ev_played + row.ev_engine) / 2)), -2, -4, 2, 4)
        has_mark = _count_near(img, gap, MARK) > 0.4
        assert has_mark == (turn in marked), turn
        # and a gold badge above it
        above = box((x, lay.y(60.0) - 20), -8, -8, 8, 8)
        assert (_count_near(img, above, MARK) > 0.2) == (turn in marked), turn


def test_no_marks_without_mistakes() -> None:
    r = _review(())
    img = draw_review_chart(r)
    lay = chart_layout(r)
    plot = (round(lay.left), round(lay.top), round(lay.right), round(lay.bottom))
    assert _count_near(img, plot, MARK, tol=12) < 0.0005


def test_chart_labels_and_sizes() -> None:
    r = _review((7,), final=None)
    default = draw_review_chart(r)
    assert draw_review_chart(r, labels=dict(REVIEW_LABELS)).tobytes() == default.tobytes()
    other = draw_review_chart(r, labels={"review_chart_title": "Score final attendu",
                                         "review_you": "Vous", "review_turn": "Tour"})
    changed = diff_bbox(default, other)
    assert changed is not None
    assert draw_review_chart(r, width=640, height=360).size == (640, 360)


def test_partial_game_chart() -> None:
    r = _review((2,))
    short = Review(r.version, r.seat, r.engine, r.samples, r.depth, r.seed, r.turns[:6], None,
                   r.accuracy, r.total_loss, r.mistakes, None)
    img = draw_review_chart(short)
    lay = chart_layout(short)
    assert lay.last == 22  # the axis keeps the whole game
    x, y = lay.point(6, 57.0)
    assert _count_near(img, box((x, y), -3, -3, 3, 3), PLAYER_LINE) > 0.3
    assert _count_near(img, box(lay.point(7, 57.0), -3, -3, 3, 3), PLAYER_LINE) < 0.05


# --------------------------------------------------------------------------- a turn compared


def _turn(state: GameState) -> tuple[TurnReview, PlaceTile, PlaceTile]:
    seat = state.current_seat
    assert seat is not None
    view = private_view(state, seat)
    legal = [m for m in legal_moves(state, seat) if isinstance(m, PlaceTile)]
    a = legal[0]
    b = next(m for m in legal if m.cell != a.cell and m.hand != a.hand)

    def placement(m: PlaceTile) -> Placement:
        assert m.hand is not None and m.market is not None
        return Placement(m.text(), cell_name(m.cell), view.hand[m.hand],
                         view.public.market[m.market])

    row = TurnReview(9, state.ply, placement(a), placement(b), "both", 55.5, 58.25, 50.0,
                     2.75, 0.8)
    return row, a, b


def test_turn_compare_shows_each_placement(two_mid: GameState) -> None:
    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    row, played, engine = _turn(two_mid)
    img = decode(render_turn_compare(view, row))
    lay = compare_layout()
    assert img.size == lay.size
    raw = draw_turn_compare(view, row)
    qw, qh = lay.quilt
    header = 48  # the quilts' name and score bar, which differ too

    def board(i: int) -> Image.Image:
        x, y = lay.origins[i]
        return raw.crop((x, y + header, x + qw, y + qh))

    for i, move in ((1, played), (2, engine)):
        changed = diff_bbox(board(0), board(i))
        assert changed is not None
        cx, cy = lay.center(i, move.cell)
        ox, oy = lay.origins[i]
        x0, y0, x1, y1 = changed
        # what changed is around the placed cell (its tile, ring and any token groups)
        assert x0 <= cx - ox <= x1 and y0 <= cy - oy - header <= y1
    # each after-quilt framed in its line's colour, the before-quilt in neither
    for i, colour in ((1, PLAYER_LINE), (2, ENGINE_LINE)):
        x, y = lay.origins[i]
        frame = (x - 5, y + qh // 2, x - 1, y + qh // 2 + 20)
        assert share_near(img, frame, colour) > 0.5
    x, y = lay.origins[0]
    assert share_near(img, (x - 5, y + qh // 2, x - 1, y + qh // 2 + 20), PLAYER_LINE) < 0.1


@pytest.mark.parametrize("radius", [18, 26])
def test_turn_compare_sizes_and_labels(two_mid: GameState, radius: int) -> None:
    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    row, _, _ = _turn(two_mid)
    img = draw_turn_compare(view, row, radius=radius)
    assert img.size == compare_layout(radius).size
    fr = draw_turn_compare(view, row, radius=radius,
                           labels={"review_before": "Avant", "review_played": "Votre coup"})
    assert diff_bbox(img, fr) is not None
