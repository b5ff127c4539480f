"""Every picture reads on a phone (issue #22): scaled to 400 px wide, each text has a cap height
of at least 6 px and a WCAG contrast of 4.5 (3 for large text) against the pixels under it,
and the mark on a placed or previewed tile stands out (see :mod:`.legibility`).

Each case draws one picture type the way the bot draws it (the same sizes and arguments),
records its texts, and lists what fails; the list must be empty. The goldens of these pictures
at phone width are in ``test_phone_goldens.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO

import pytest
from PIL import Image

from data import load_catalog
from engine.ai.review import Placement, TurnReview
from engine.config import GameOptions
from engine.events import ScenarioResult
from engine.hexgrid import cell_name
from engine.moves import PlaceTile
from engine.rules import legal_moves
from engine.serialize import replay_views
from engine.state import GameState
from engine.views import private_view, public_view
from render import (
    render_achievements,
    render_draft,
    render_hand_market,
    render_quilt,
    render_replay,
    render_review_chart,
    render_rules,
    render_scoresheet,
    render_table,
    render_turn,
    render_turn_compare,
)
from render.samples import best_preview, play_record, play_until
from render.standings import render_standings

from .legibility import PHONE, problems, recording
from .test_review import _review

NAMES = ["Marguerite", "Zbigniew Łukaszewicz", "Amélie", "Tomasz"]

Games = dict[str, GameState]


def _size(data: bytes) -> int:
    return Image.open(BytesIO(data)).size[0]


def _turn(g: GameState) -> bytes:
    seat = g.current_seat
    assert seat is not None
    prev, legal, source = best_preview(g)
    view = private_view(g, seat)
    return render_turn(view, name=NAMES[seat], highlight=view.public.seats[seat].placed[-1],
                       preview=prev, legal=legal, selected=source)


def _compare(g: GameState) -> bytes:
    seat = g.current_seat
    assert seat is not None
    view = private_view(g, seat)
    legal = [m for m in legal_moves(g, seat) if isinstance(m, PlaceTile)]
    a = legal[0]
    b = next(m for m in legal if m.cell != a.cell and m.hand != a.hand)

    def placement(m: PlaceTile) -> Placement:
        assert m.hand is not None and m.market is not None
        return Placement(m.text(), cell_name(m.cell), view.hand[m.hand],
                         view.public.market[m.market])

    row = TurnReview(9, g.ply, placement(a), placement(b), "both", 55.5, 58.25, 50.0, 2.75, 0.8)
    return render_turn_compare(view, row)


def _scenario(g: GameState) -> bytes:
    result = ScenarioResult(0, 3, False, (("score", 60, 48, False), ("cat_tokens", 5, 5, True),
                                          ("rainbow", 1, 0, False)))
    return render_scoresheet(public_view(g), NAMES[:1], scenario=result)


def _game(players: int, moves: int | None, seed: int = 5, **kw: object) -> GameState:
    return play_until(GameOptions(players=players, **kw), seed, moves,  # type: ignore[arg-type]
                      own_chooser=True)


GAMES: dict[str, Callable[[], GameState]] = {
    "two_mid": lambda: _game(2, 2 + 25, 11),
    "two_end": lambda: _game(2, None, 11),
    "one_mid": lambda: _game(1, 1 + 12, 2),
    "one_end": lambda: _game(1, None, 2),
    "three_mid": lambda: _game(3, 3 + 30, 3),
    "four_mid": lambda: _game(4, 4 + 40),
    "four_end": lambda: _game(4, None),
    "start": lambda: _game(2, 0, 11),
}


@pytest.fixture(scope="module")
def games() -> Games:
    return {k: f() for k, f in GAMES.items()}


CASES: dict[str, Callable[[Games], bytes]] = {
    "quilt": lambda g: render_quilt(public_view(g["two_mid"]).seats[0], g["two_mid"].config,
                                    name=NAMES[0], highlight=public_view(
                                        g["two_mid"]).seats[0].placed[-1]),
    "quilt_final": lambda g: render_quilt(public_view(g["two_end"]).seats[1],
                                          g["two_end"].config, name=NAMES[1]),
    "turn": lambda g: _turn(g["two_mid"]),
    "strip": lambda g: render_hand_market(private_view(g["two_mid"], 0), selected=0),
    "table_1p": lambda g: render_table(public_view(g["one_mid"]), NAMES[:1]),
    "table_2p": lambda g: render_table(public_view(g["two_mid"]), NAMES[:2]),
    "table_3p": lambda g: render_table(public_view(g["three_mid"]), NAMES[:3]),
    "table_4p": lambda g: render_table(public_view(g["four_mid"]), NAMES),
    "scoresheet_2p": lambda g: render_scoresheet(public_view(g["two_end"]), NAMES[:2]),
    "scoresheet_4p": lambda g: render_scoresheet(public_view(g["four_end"]), NAMES),
    "scoresheet_scenario": lambda g: _scenario(g["one_end"]),
    "draft": lambda g: render_draft(private_view(g["start"], 0).goal_offer, g["start"].config,
                                    seat=public_view(g["start"]).seats[0]),
    "achievements": lambda g: render_achievements(
        load_catalog().achievements, {"scenario-1", "normal-60", "normal-rainbow",
                                      "restriction-no-hand"}, name=NAMES[0]),
    "review_chart": lambda g: render_review_chart(_review((3, 11, 19))),
    "review_turn": lambda g: _compare(g["two_mid"]),
    "rules_cats": lambda g: render_rules("cats"),
    "rules_goals": lambda g: render_rules("goals"),
    "rules_buttons": lambda g: render_rules("buttons"),
    # A tournament's standings, with a withdrawn entrant's row drawn apart.
    "standings": lambda g: render_standings(
        "Spring Cup", "After round 2 of 3", ["#", "Player", "Points", "Buchholz", "Games"],
        [[str(i + 1), name, f"{4 - i}", f"{6 - i}.5", "2"] for i, name in enumerate(NAMES)],
        podium=(0, 1, 2), faded=(3,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_text_reads_at_phone_width(name: str, games: Games) -> None:
    with recording() as marks:
        data = CASES[name](games)
    assert marks, "the picture draws no text?"
    assert problems(marks, _size(data)) == []


def test_replay_frames_read_at_phone_width() -> None:
    record = play_record(GameOptions(players=4), 5, own_chooser=True)
    views = replay_views(load_catalog(), record)
    with recording() as marks:
        data = render_replay(views, NAMES)
    assert problems(marks, _size(data)) == []


# --------------------------------------------------------------------------- marks on tiles


def _phone(img: Image.Image) -> tuple[Image.Image, float]:
    scale = PHONE / img.width
    return img.convert("RGB").resize((PHONE, round(img.height * scale)),
                                     Image.Resampling.LANCZOS), scale


def _band_share(a: Image.Image, b: Image.Image, at: tuple[float, float], r: float,
                scale: float) -> float:
    """At phone width: the share of the band along a cell's edge (0.78 to 1.02 of its radius)
    where ``a`` and ``b`` differ by more than 60 in some channel."""
    pa, _ = _phone(a)
    pb, _ = _phone(b)
    cx, cy, rr = at[0] * scale, at[1] * scale, r * scale
    hit = total = 0
    for y in range(int(cy - rr) - 1, int(cy + rr) + 2):
        for x in range(int(cx - rr) - 1, int(cx + rr) + 2):
            d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
            if 0.78 * rr <= d <= 1.02 * rr * 0.9:  # inside the hex's inner circle at corners
                total += 1
                p, q = pa.getpixel((x, y)), pb.getpixel((x, y))
                hit += max(abs(u - v) for u, v in zip(p, q, strict=True)) > 60
    return hit / max(1, total)


def test_last_tile_and_preview_marks_stand_out_at_phone_width(games: Games) -> None:
    """The ring on the tile just placed (quilt, turn, table) and on a previewed tile is
    still a bold line once the picture is 400 px wide: most of the band along the cell's
    edge changes strongly with it."""
    from render import DEFAULT_RADIUS, cell_center
    from render.quilt import Preview, draw_quilt
    from render.table import draw_table

    g = games["two_mid"]
    pub = public_view(g)
    seat = pub.seats[0]
    last = seat.placed[-1]
    plain = draw_quilt(seat, g.config, name="A")
    marked = draw_quilt(seat, g.config, name="A", highlight=last)
    scale = PHONE / plain.width
    share = _band_share(plain, marked, cell_center(last), DEFAULT_RADIUS, scale)
    assert share >= 0.5, f"last-tile ring: {share:.2f}"

    prev, _, _ = best_preview(g)
    assert prev is not None
    cur = pub.seats[g.current_seat or 0]
    bare = draw_quilt(cur, g.config, name="A")
    shown = draw_quilt(cur, g.config, name="A", preview=Preview(prev.cell, prev.tile))
    share = _band_share(bare, shown, cell_center(prev.cell), DEFAULT_RADIUS, PHONE / bare.width)
    assert share >= 0.5, f"preview ring: {share:.2f}"

    four = public_view(games["four_mid"])
    a = draw_table(four, NAMES, highlight_last=False)
    b = draw_table(four, NAMES, highlight_last=True)
    pa, sc = _phone(a)
    pb, _ = _phone(b)
    from PIL import ImageChops
    diff = ImageChops.difference(pa, pb).convert("L").point(lambda v: 255 if v > 40 else 0)
    rings = diff.histogram()[255]
    from render.table import table_radius
    r400 = table_radius(4) * sc
    # Four rings, each about 2 px wide along a perimeter of 6 radii (at least).
    assert rings >= 4 * 2 * 6 * r400 * 0.8, rings


def test_review_moves_stand_out_at_phone_width(games: Games) -> None:
    """The review's turn picture at 400 px wide: each move's ring is still a band of its
    colour at least 3 px wide along the cell's edge (the former picture had a 1 px ring on
    hexes of 9 px)."""
    from render.review import ENGINE_LINE, PLAYER_LINE
    from render.review_turn import turn_layout

    from .helpers import share_near

    g = games["two_mid"]
    data = _compare(g)
    img = Image.open(BytesIO(data)).convert("RGB")
    small, scale = _phone(img)
    seat = g.current_seat
    assert seat is not None
    legal = [m for m in legal_moves(g, seat) if isinstance(m, PlaceTile)]
    a = legal[0]
    b = next(m for m in legal if m.cell != a.cell and m.hand != a.hand)
    lay = turn_layout(a.cell, b.cell, goals=tuple(g.config.goal_spots))
    for cell, colour in ((a.cell, PLAYER_LINE), (b.cell, ENGINE_LINE)):
        x, y = lay.center(cell)
        r = lay.radius * scale
        assert r >= 18  # hexes big enough to see at a glance
        band = (round(x * scale - r * 0.86), round(y * scale - r * 0.25),
                round(x * scale - r * 0.72), round(y * scale + r * 0.25))
        assert band[2] - band[0] >= 3
        assert share_near(small, band, colour, 40) >= 0.5, cell
