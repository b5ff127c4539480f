"""Review pictures: the chart's two lines and marked turns are where the layout says, and the
turn comparison shows each placement on its own quilt."""

from __future__ import annotations

from PIL import Image

from engine.ai.review import (
    REVIEW_VERSION,
    Mistake,
    Placement,
    Reason,
    Review,
    TurnReview,
    seat_after,
)
from engine.hexgrid import NEIGHBOURS, cell_name
from engine.moves import PlaceTile
from engine.rules import legal_moves
from engine.state import GameState
from engine.views import PrivateView, private_view
from render.quilt import draw_quilt
from render.review import (
    CHART_HEIGHT,
    CHART_WIDTH,
    ENGINE_LINE,
    MARK,
    PLAYER_LINE,
    REVIEW_LABELS,
    chart_layout,
    draw_review_chart,
    render_review_chart,
)
from render.review_turn import draw_turn_compare, render_turn_compare, turn_layout
from render.theme import tile_palette

from .helpers import box, decode, diff_bbox, mean_abs_diff, share_near

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


def _moves(two_mid: GameState) -> tuple[PrivateView, TurnReview, PlaceTile, PlaceTile]:
    seat = two_mid.current_seat
    assert seat is not None
    view = private_view(two_mid, seat)
    row, played, engine = _turn(two_mid)
    return view, row, played, engine


def _ring_share(img: Image.Image, at: tuple[float, float], r: float,
                colour: tuple[int, int, int]) -> float:
    """Share of the band just inside a hex's edge (its corners' circle) in ``colour``."""
    x, y = at
    return share_near(img, box((x, y), -r * 1.02, -r * 0.3, -r * 0.8, r * 0.3), colour, 30)


def test_turn_picture_marks_both_moves(two_mid: GameState) -> None:
    """One picture: the player's cell ringed in terracotta with its tile placed, the engine's
    ringed in blue with its tile see-through, each tagged; nothing else ringed."""
    view, row, played, engine = _moves(two_mid)
    img = decode(render_turn_compare(view, row))
    lay = turn_layout(played.cell, engine.cell, goals=tuple(two_mid.config.goal_spots))
    assert img.size == lay.size and img.width == 800
    r = lay.radius
    assert r >= 40  # drawn big: cropped to what matters, not three small quilts
    mine, theirs = lay.center(played.cell), lay.center(engine.cell)
    assert _ring_share(img, mine, r, PLAYER_LINE) > 0.25
    assert _ring_share(img, theirs, r, ENGINE_LINE) > 0.25
    assert _ring_share(img, mine, r, ENGINE_LINE) < 0.05
    assert _ring_share(img, theirs, r, PLAYER_LINE) < 0.05
    # The player's tile is placed there; the engine's is there too, but fainter.
    fabric = tile_palette()[row.played.tile // 6][0]
    assert share_near(img, box(mine, -r * 0.4, -r * 0.2, r * 0.4, r * 0.5), fabric, 12) > 0.2
    ghost = tile_palette()[row.engine.tile // 6][0]
    assert share_near(img, box(theirs, -r * 0.4, -r * 0.2, r * 0.4, r * 0.5), ghost, 12) < 0.1
    # Both cells are in the crop, with room around them.
    for x, y in (mine, theirs):
        ox, oy = lay.origin
        assert ox + r <= x <= ox + lay.crop[2] - lay.crop[0] - r
        assert oy + r * 0.8 <= y <= oy + lay.crop[3] - lay.crop[1] - r * 0.8


def test_turn_picture_same_cell_carries_both_rings(two_mid: GameState) -> None:
    view, row, played, _ = _moves(two_mid)
    same = TurnReview(row.turn, row.ply, row.played, row.played, "pick", 55.0, 56.0, 50.0,
                      1.0, 0.5)
    img = draw_turn_compare(view, same)
    lay = turn_layout(played.cell, played.cell, goals=tuple(two_mid.config.goal_spots))
    at = lay.center(played.cell)
    r = lay.radius
    assert _ring_share(img, at, r, PLAYER_LINE) > 0.25
    inner = box(at, -r * 0.8, -r * 0.3, -r * 0.62, r * 0.3)
    assert share_near(img, inner, ENGINE_LINE, 30) > 0.2


def test_turn_picture_words(two_mid: GameState) -> None:
    view, row, _, _ = _moves(two_mid)
    img = draw_turn_compare(view, row)
    fr = draw_turn_compare(view, row, labels={"review_played": "Votre coup",
                                              "review_engine": "Moteur"})
    assert diff_bbox(img, fr) is not None
    assert draw_turn_compare(view, row, labels=dict(REVIEW_LABELS)).tobytes() == img.tobytes()


def _goal_pairs(state: GameState) -> list[tuple[PlaceTile, PlaceTile]]:
    """Pairs of moves on cells next to a design goal (where tags and crops meet goals)."""
    seat = state.current_seat
    assert seat is not None
    legal = [m for m in legal_moves(state, seat) if isinstance(m, PlaceTile)]
    near_goal = [m for m in legal if any(n in state.config.goal_spots
                                         for n in NEIGHBOURS[m.cell])]
    pairs = []
    for a in near_goal:
        b = next((m for m in legal if m.cell != a.cell and m.hand != a.hand), None)
        if b is not None:
            pairs.append((a, b))
            pairs.append((b, a))
    return pairs[:12]


def _placement(view: PrivateView, m: PlaceTile) -> Placement:
    assert m.hand is not None and m.market is not None
    return Placement(m.text(), cell_name(m.cell), view.hand[m.hand], view.public.market[m.market])


def test_turn_picture_covers_and_cuts_no_goal(two_mid: GameState, four_mid: GameState) -> None:
    """Every design goal the picture shows is whole (not cut at the crop's edge) and no tag
    covers it: inside each goal tile the picture is the quilt itself."""
    checked = 0
    for state in (two_mid, four_mid):
        seat = state.current_seat
        assert seat is not None
        view = private_view(state, seat)
        goals = tuple(state.config.goal_spots)
        for a, b in _goal_pairs(state):
            row = TurnReview(9, state.ply, _placement(view, a), _placement(view, b), "both",
                             55.5, 58.25, 50.0, 2.75, 0.8)
            img = draw_turn_compare(view, row)
            lay = turn_layout(a.cell, b.cell, goals=goals)
            quilt = draw_quilt(seat_after(view, row.played), state.config, radius=lay.radius,
                               header=False, hints=True)
            ox, oy = lay.origin
            x0, y0, x1, y1 = lay.crop
            r = lay.radius
            for g in goals:
                qx, qy = lay.quilt.center(g)
                hw = lay.quilt.hex_width / 2
                inside = [x0 <= qx - hw, qx + hw <= x1, y0 <= qy - r, qy + r <= y1]
                reaches = qx + hw > x0 and qx - hw < x1 and qy + r > y0 and qy - r < y1
                if not reaches:
                    continue
                assert all(inside), (a.cell, b.cell, g, "cut")
                k = r * 0.7
                got = img.crop((round(ox + qx - x0 - k), round(oy + qy - y0 - k),
                                round(ox + qx - x0 + k), round(oy + qy - y0 + k)))
                want = quilt.crop((round(qx - k), round(qy - k), round(qx + k), round(qy + k)))
                assert mean_abs_diff(got, want) < 3, (a.cell, b.cell, g, "covered")
                checked += 1
    assert checked >= 6
