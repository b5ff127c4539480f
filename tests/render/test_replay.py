"""The replay GIF: it decodes, has one frame per placement plus the start and the end, stays
small, starts with empty quilts, shows each placement and ends on the final scores."""

from __future__ import annotations

import itertools
from io import BytesIO

import pytest
from PIL import Image

from data import load_catalog
from engine.config import GameOptions, Restriction
from engine.errors import BadRecordError
from engine.hexgrid import INNER
from engine.scoring import rank
from engine.serialize import replay, replay_views
from engine.state import Phase
from engine.tiles import EMPTY
from engine.views import public_view
from render import REPLAY_LABELS, frame_count, render_replay, replay_layout
from render.quilt import draw_quilt
from render.replay import END_MS, FINISHED_MS, START_MS, move_ms
from render.samples import play_record
from render.scoresheet import MEDALS
from render.theme import GOOD, INK_FAINT, INK_SOFT, tile_palette

from .helpers import mean_abs_diff, near, share_near

CATALOG = load_catalog()
NAMES = ["Marguerite", "Zbigniew", "Amélie", "Tomasz"]
LIMIT = 8 * 1024 * 1024


@pytest.fixture(scope="module")
def four():
    record = play_record(GameOptions(players=4), 5, own_chooser=True)
    views = replay_views(CATALOG, record)
    return record, views, render_replay(views, NAMES)


def frames(data: bytes) -> list[Image.Image]:
    img = Image.open(BytesIO(data))
    out = []
    for k in range(img.n_frames):
        img.seek(k)
        out.append(img.convert("RGB"))
    return out


def empty_spot(lay, seat, cell):
    """A point of an inner cell that shows its fill (below the cell's name)."""
    x, y = lay.quilts[seat]
    cx, cy = lay.quilt.center(cell)
    return round(x + cx), round(y + cy + 0.55 * lay.quilt.radius)


def test_views_follow_the_record(four):
    """The replay's views: the start of play, then one per placement; the last is the end."""
    record, views, _ = four
    assert len(views) == 1 + 22 * 4
    assert all(len(s.placed) == 0 for s in views[0].seats)
    assert views[0].phase is Phase.PLAY and views[-1].phase is Phase.OVER
    assert views[-1] == public_view(replay(CATALOG, record))
    for a, b in itertools.pairwise(views):
        assert sum(len(s.placed) for s in b.seats) == sum(len(s.placed) for s in a.seats) + 1


def test_gif_decodes_with_the_documented_frames(four):
    """22 x 4 placements + start + finished quilts + scores = 91 frames, the delays as
    documented, under 8 MB."""
    _, _, data = four
    assert data[:6] == b"GIF89a" and len(data) <= LIMIT
    img = Image.open(BytesIO(data))
    assert img.n_frames == frame_count(4) == 91
    assert img.size == replay_layout(4).size
    delays = []
    for k in range(img.n_frames):
        img.seek(k)
        delays.append(img.info["duration"])
    assert delays[0] == START_MS and delays[-2] == FINISHED_MS and delays[-1] == END_MS
    assert FINISHED_MS >= 2000  # a real moment, not the 180 ms of the last placement
    assert set(delays[1:-2]) == {move_ms(4)}
    assert img.info.get("loop") == 0


def test_first_frame_has_empty_quilts_and_each_frame_adds_a_tile(four):
    """Start: every playable cell empty. After placement k: exactly the placed cells show a
    tile; the frame after the last placement shows full quilts."""
    _, views, data = four
    fs = frames(data)
    lay = replay_layout(4)
    start = fs[0]
    blank = start.getpixel(empty_spot(lay, 0, INNER[0]))
    for seat in range(4):
        for cell in INNER:
            if views[0].seats[seat].quilt[cell] == EMPTY:
                assert near(start.getpixel(empty_spot(lay, seat, cell)), blank, 10)
    for k in (1, 10, 45, 88):
        view, frame = views[k], fs[k]
        for seat in range(4):
            for cell in INNER:
                if views[0].seats[seat].quilt[cell] != EMPTY:
                    continue  # a goal tile
                filled = view.seats[seat].quilt[cell] >= 0
                is_blank = near(frame.getpixel(empty_spot(lay, seat, cell)), blank, 10)
                assert is_blank != filled, (k, seat, cell)


def test_last_frame_shows_the_final_scores(four):
    """The end: the final scores on the finished quilts themselves. Each header carries its
    place's medal (the first gold); each goal tile a disc with its points, green when it
    scored; and the rest of every quilt is exactly the finished frame (nothing covered)."""
    _, views, data = four
    fs = frames(data)
    lay = replay_layout(4)
    last, before = fs[-1], fs[-2]
    end = views[-1]
    places, _, _ = rank([dict(s.score) for s in end.seats])
    assert min(places) == 1
    q = lay.quilt
    qw, qh = q.size
    for seat in range(4):
        mx, my = lay.medals[seat]
        medal = last.getpixel((mx - 12, my))  # the disc, left of its number
        want = MEDALS[places[seat] - 1] if places[seat] <= len(MEDALS) else INK_FAINT
        assert near(medal, want, 30), (seat, medal)
        ox, oy = lay.quilts[seat]
        goals = end.seats[seat].score["goals"]
        for spot, goal in zip(end.config.goal_spots, goals, strict=True):
            cx, cy = q.center(spot)
            rim = last.getpixel((round(ox + cx - q.radius * 0.45), round(oy + cy)))
            assert near(rim, GOOD if goal["points"] > 0 else INK_SOFT, 30), (seat, rim)
        # Below the header and away from the goal tiles: the finished quilt, untouched.
        board = (ox, oy + q.header, ox + qw, oy + qh)
        a, b = last.crop(board), before.crop(board)
        for spot in end.config.goal_spots:
            cx, cy = q.center(spot)
            k = q.radius
            top = cy - q.header
            hole = (round(cx - k), round(top - k), round(cx + k), round(top + k))
            a.paste((0, 0, 0), hole)
            b.paste((0, 0, 0), hole)
        assert mean_abs_diff(a, b) < 0.5, seat


@pytest.mark.parametrize(("options", "seats"), [
    (GameOptions(players=1, scenario=2), 1),
    (GameOptions(players=2, restriction=Restriction.NO_HAND), 2),
    (GameOptions(players=3, family=True), 3),
])
def test_other_games(options, seats):
    """Solo, two and three players, with a draft or without: 22 x p + 3 frames."""
    views = replay_views(CATALOG, play_record(options, 3, own_chooser=True))
    data = render_replay(views, NAMES[:seats], labels={"replay_title": "Powtórka"})
    img = Image.open(BytesIO(data))
    assert img.n_frames == frame_count(seats) == 22 * seats + 3
    assert img.size == replay_layout(seats).size and len(data) <= LIMIT


def test_needs_a_whole_game(four):
    _, views, _ = four
    with pytest.raises(ValueError):
        render_replay(views[:-1])
    with pytest.raises(ValueError):
        render_replay(views[1:])
    with pytest.raises(BadRecordError):
        replay_views(CATALOG, {"schema": 0, "options": {}, "seed": 1, "moves": []})


def test_labels_have_english_defaults():
    assert set(REPLAY_LABELS) == {"replay_title", "final_scores", "master_quilter"}


def _tile_share(img: Image.Image, at: tuple[float, float], r: float,
                rgb: tuple[int, int, int]) -> float:
    x, y = at
    region = (round(x - r * 0.6), round(y - r * 0.3), round(x + r * 0.6), round(y + r * 0.6))
    return share_near(img, region, rgb, 6)


def test_replay_keeps_the_table_colours_in_every_frame(four):
    """Each placed tile's fabric, in the frame after its placement and in the finished quilts,
    is the very colour the table picture draws it in (within 6 of 255 per channel), e.g. the
    magenta stays magenta, not a dusty mauve; and the finished quilts match the table's
    quilts pixel for pixel, give or take the palette."""
    _, views, data = four
    fs = frames(data)
    lay = replay_layout(4)
    fabric = [f for f, _ in tile_palette()]
    q = lay.quilt
    r = q.radius
    finished = fs[-2]
    for k in (8, 30, 60, 88, len(views) - 1):
        view = views[k]
        frame = fs[k] if k < len(views) - 1 else finished
        for seat in range(4):
            ox, oy = lay.quilts[seat]
            for cell in view.seats[seat].placed[-3:]:
                tile = view.seats[seat].quilt[cell]
                cx, cy = lay.quilt.center(cell)
                want = fabric[tile // 6]
                got = _tile_share(frame, (ox + cx, oy + cy), r, want)
                table = draw_quilt(view.seats[seat], view.config, radius=r, hints=False,
                                   words=False, header_h=q.header)
                ref = _tile_share(table, (cx, cy), r, want)
                assert ref > 0.2
                assert got >= ref * 0.8, (k, seat, cell, tile, got, ref)
    # The finished quilts: the table's own drawing, nothing covering them.
    end = views[-1]
    for seat in range(4):
        ox, oy = lay.quilts[seat]
        qw, qh = lay.quilt.size
        table = draw_quilt(end.seats[seat], end.config, radius=r, hints=False,
                           name=NAMES[seat], words=False, header_h=q.header)
        got = finished.crop((ox, oy, ox + qw, oy + qh))
        assert mean_abs_diff(got, table) < 2.5


def test_magenta_survives_the_palette():
    """The colour of issue #22: a magenta tile (the catalogue's 209,64,134 family) keeps its
    fabric exactly in the replay palette."""
    from render.palette import fixed_colors
    magenta = CATALOG.color_ids.index("magenta")
    assert tile_palette()[magenta][0] in fixed_colors()
