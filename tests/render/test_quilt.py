"""The quilt image: geometry, colours where tiles are, labels where they are not, tokens where
they were earned, goal tiles, and the highlight, preview and legal-cell markers."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import Image

from engine.events import ButtonSewn, CatAttracted, TilePlaced
from engine.hexgrid import CELLS, INNER, NEIGHBOURS, cell_name, cell_of
from engine.state import GameState
from engine.tiles import EMPTY, GOAL
from engine.views import SeatView, public_view
from render import Preview, cell_center, quilt_layout, render_quilt
from render.geometry import DEFAULT_RADIUS
from render.quilt import BUTTON_AT, CAT_AT, TOKEN_SCALE, draw_quilt, goal_states
from render.samples import best_preview
from render.theme import EMPTY_DIM, LEGAL_FILL, cat_fur, tile_palette

from .helpers import box, dark_pixels, decode, diff_bbox, share_near

R = DEFAULT_RADIUS


def seat0(state: GameState) -> SeatView:
    return public_view(state).seats[0]


# --------------------------------------------------------------------------- geometry


def test_layout_is_odd_r_pointy_top() -> None:
    lay = quilt_layout()
    w = lay.hex_width
    x00, y00 = lay.center(cell_of(0, 0))
    x10, y10 = lay.center(cell_of(1, 0))
    x01, _ = lay.center(cell_of(0, 1))
    assert x10 - x00 == pytest.approx(w / 2)  # odd rows shifted half a hex right
    assert y10 - y00 == pytest.approx(1.5 * R)
    assert x01 - x00 == pytest.approx(w)
    for cell in range(CELLS):
        cx, cy = lay.center(cell)
        for n in NEIGHBOURS[cell]:
            nx, ny = lay.center(n)
            assert ((cx - nx) ** 2 + (cy - ny) ** 2) ** 0.5 == pytest.approx(w)
        assert lay.cell_at(cx, cy) == cell
        assert R <= cx <= lay.size[0] - R and lay.header <= cy <= lay.size[1]


def test_cell_center_is_rounded_layout_center() -> None:
    for cell in INNER:
        x, y = quilt_layout().center(cell)
        assert cell_center(cell) == (round(x), round(y))
    assert cell_center(0, 20, header=False)[1] < cell_center(0, 20)[1]


# --------------------------------------------------------------------------- the picture


def test_png_decodes_with_expected_size(two_mid: GameState) -> None:
    data = render_quilt(seat0(two_mid), two_mid.config, name="Ann")
    img = decode(data)
    assert img.size == quilt_layout().size
    assert len(data) <= 300 * 1024


def test_placed_tiles_show_their_colour(two_end: GameState) -> None:
    seat = seat0(two_end)
    img = decode(render_quilt(seat, two_end.config))
    palette = tile_palette()
    for cell in seat.placed:
        t = seat.quilt[cell]
        fabric, motif = palette[t // 6]
        # Above the centre: clear of the colour badge (top) and the tokens (bottom).
        region = box(cell_center(cell), -13, -15, 13, -2)
        own = share_near(img, region, fabric) + share_near(img, region, motif)
        assert own >= 0.5, (cell_name(cell), own)
        for other, (f2, _) in enumerate(palette):
            if other != t // 6:
                assert share_near(img, region, f2, 10) < 0.25, (cell_name(cell), other)


def test_empty_cells_show_their_label(two_mid: GameState) -> None:
    seat = seat0(two_mid)
    img = decode(render_quilt(seat, two_mid.config))
    empty = [c for c in INNER if seat.quilt[c] == EMPTY]
    assert empty
    for cell in empty:
        at = cell_center(cell)
        label = dark_pixels(img, box(at, -17, -10, 17, 10), below=150)
        above = dark_pixels(img, box(at, -17, -32, 17, -14), below=150)
        assert label >= 60, cell_name(cell)  # dark letters in the middle...
        assert above <= 4, cell_name(cell)  # ...and none in the empty fabric above them
    # Different cells, different names: the label regions differ.
    a, b = empty[0], empty[1]
    crop_a = img.crop(box(cell_center(a), -17, -10, 17, 10))
    crop_b = img.crop(box(cell_center(b), -17, -10, 17, 10))
    assert diff_bbox(crop_a, crop_b) is not None


def test_placed_tiles_have_no_label(two_end: GameState) -> None:
    seat = seat0(two_end)
    plain = draw_quilt(seat, two_end.config)
    # The same quilt with one tile lifted shows that cell's name where the tile was.
    cell = seat.placed[0]
    quilt = list(seat.quilt)
    quilt[cell] = EMPTY
    lifted = dataclasses.replace(seat, quilt=tuple(quilt), buttons=(), cats=(), rainbow=None)
    img = draw_quilt(lifted, two_end.config)
    at = cell_center(cell)
    assert dark_pixels(img, box(at, -17, -10, 17, 10), below=150) >= 60
    assert diff_bbox(plain.crop(box(at, -17, -10, 17, 10)),
                     img.crop(box(at, -17, -10, 17, 10))) is not None


def _token_centre(cell: int, where: tuple[float, float]) -> tuple[float, float]:
    x, y = quilt_layout().center(cell)
    return x + where[0] * R, y + where[1] * R


def _seat_with_tokens(state: GameState) -> SeatView:
    for seat in public_view(state).seats:
        if seat.cats and seat.buttons:
            return seat
    for seat in public_view(state).seats:
        if seat.buttons:
            return seat
    raise AssertionError("no seat earned tokens in this game")


def test_tokens_appear_where_earned(two_end: GameState, four_mid: GameState) -> None:
    for state in (two_end, four_mid):
        seat = _seat_with_tokens(state)
        cfg = state.config
        # (Without hints: taking the cats away would also show their groups as still growing.)
        with_tokens = draw_quilt(seat, cfg, header=False, hints=False)
        bare = draw_quilt(dataclasses.replace(seat, cats=(), buttons=(), rainbow=None), cfg,
                          header=False, hints=False)
        tok = round(R * TOKEN_SCALE)
        lay = quilt_layout(header=False)
        spots = [(c, BUTTON_AT) for c, _ in seat.buttons] + [(c, CAT_AT) for c, _ in seat.cats]
        for cell, where in spots:
            x, y = lay.center(cell)
            at = (x + where[0] * R, y + where[1] * R)
            region = box(at, -tok, -tok, tok, tok)
            assert diff_bbox(with_tokens.crop(region), bare.crop(region)) is not None
        # Nothing changes away from the tokens.
        d = diff_bbox(with_tokens, bare)
        assert d is not None
        token_cells = {c for c, _ in spots} | ({seat.rainbow} if seat.rainbow is not None
                                              else set())
        xs = [lay.center(c)[0] for c in token_cells]
        ys = [lay.center(c)[1] for c in token_cells]
        assert d[0] >= min(xs) - R and d[2] <= max(xs) + R
        assert d[1] >= min(ys) - R and d[3] <= max(ys) + R
        # A button shows its colour, a cat its fur.
        palette = tile_palette()
        for cell, color in seat.buttons:
            x, y = lay.center(cell)
            px = with_tokens.getpixel((round(x + BUTTON_AT[0] * R),
                                       round(y + BUTTON_AT[1] * R - 0.4 * tok)))
            assert sum(abs(a - b) for a, b in zip(px, palette[color][0], strict=False)) < 40
        for cell, ci in seat.cats:
            x, y = lay.center(cell)
            # Beside the muzzle, below the eye: fur.
            px = with_tokens.getpixel((round(x + CAT_AT[0] * R + 0.4 * tok),
                                       round(y + CAT_AT[1] * R + 0.2 * tok)))
            fur = cat_fur(two_end.config.cats[ci].id)
            assert sum(abs(a - b) for a, b in zip(px, fur, strict=False)) < 60, px


def test_highlight_rings_only_that_cell(two_end: GameState) -> None:
    seat = seat0(two_end)
    cell = seat.placed[-1]
    a = draw_quilt(seat, two_end.config)
    b = draw_quilt(seat, two_end.config, highlight=cell)
    d = diff_bbox(a, b)
    assert d is not None
    x, y = cell_center(cell)
    assert x - R - 4 <= d[0] and d[2] <= x + R + 4
    assert y - R - 4 <= d[1] and d[3] <= y + R + 4


def test_legal_cells_marked_and_others_dimmed(two_mid: GameState) -> None:
    seat = seat0(two_mid)
    empty = [c for c in INNER if seat.quilt[c] == EMPTY]
    legal = set(empty[: len(empty) // 2])
    img = decode(render_quilt(seat, two_mid.config, legal=legal))
    for cell in empty:
        region = box(cell_center(cell), -14, -34, 14, -20)
        if cell in legal:
            assert share_near(img, region, LEGAL_FILL, 10) > 0.6, cell_name(cell)
        else:
            assert share_near(img, region, EMPTY_DIM, 10) > 0.6, cell_name(cell)


def test_preview_draws_tile_and_what_it_earns(two_mid: GameState) -> None:
    prev, legal, _ = best_preview(two_mid)
    assert prev is not None
    seat_index = two_mid.current_seat
    assert seat_index is not None
    seat = public_view(two_mid).seats[seat_index]
    cfg = two_mid.config
    plain = draw_quilt(seat, cfg)
    img = draw_quilt(seat, cfg, preview=prev, legal=legal)
    at = cell_center(prev.cell)
    fabric, motif = tile_palette()[prev.tile // 6]
    region = box(at, -13, -15, 13, -2)
    # See-through: the tile's colours, lightened toward the cell underneath.
    assert share_near(img, region, fabric, 60) + share_near(img, region, motif, 60) > 0.5
    assert diff_bbox(plain.crop(region), img.crop(region)) is not None
    earned = [e for e in prev.events if isinstance(e, ButtonSewn | CatAttracted)]
    if any(isinstance(e, ButtonSewn) for e in earned):
        x, y = quilt_layout().center(prev.cell)
        tok_region = box((x + BUTTON_AT[0] * R, y + BUTTON_AT[1] * R), -6, -6, 6, 6)
        assert diff_bbox(plain.crop(tok_region), img.crop(tok_region)) is not None


def test_preview_events_without_tokens_are_fine(two_mid: GameState) -> None:
    seat = seat0(two_mid)
    cell = next(c for c in INNER if seat.quilt[c] == EMPTY)
    event = TilePlaced(0, cell_name(cell), "yellow", "dots", False, 1)
    img = draw_quilt(seat, two_mid.config, preview=Preview(cell, 30, (event,)))
    assert img.size == quilt_layout().size


def test_goal_tiles_face_down_in_family(family_mid: GameState, two_mid: GameState) -> None:
    fam = seat0(family_mid)
    std = seat0(two_mid)
    assert fam.goals is None and not fam.drafting
    a = draw_quilt(fam, family_mid.config)
    b = draw_quilt(std, two_mid.config)
    for spot in family_mid.config.goal_spots:
        region = box(cell_center(spot), -14, -16, 14, 4)
        # The face-down back has no dark symbol text; the face-up goal does.
        assert dark_pixels(a, region, below=90) < dark_pixels(b, region, below=90)
        assert a.crop(region).getcolors(4096) != b.crop(region).getcolors(4096)


def test_goal_spots_named_while_drafting(draft_start: GameState) -> None:
    seat = seat0(draft_start)
    assert seat.drafting
    img = draw_quilt(seat, draft_start.config)
    for spot in draft_start.config.goal_spots:
        assert seat.quilt[spot] == GOAL
        assert dark_pixels(img, box(cell_center(spot), -17, -10, 17, 10), below=120) > 60


# --------------------------------------------------------------------------- goal hints


def _quilt_with(spot: int, tiles: list[int]) -> tuple[int, ...]:
    q = [EMPTY] * CELLS
    for n, t in zip(NEIGHBOURS[spot], tiles, strict=False):
        q[n] = t
    return tuple(q)


@pytest.mark.parametrize(
    ("tiles", "counts", "expected"),
    [
        # colour = tile // 6, pattern = tile % 6
        ([0, 7, 14, 21, 28, 35], (1, 1, 1, 1, 1, 1), ("met", "met")),
        ([0, 1, 2, 6, 7, 8], (3, 3), ("met", "failed")),
        ([0, 0, 0, 0, 6, 6], (3, 3), ("failed", "failed")),
        ([0, 0, 0], (3, 3), ("open", "open")),
        ([0, 0, 0, 0], (3, 3), ("failed", "failed")),
        ([0, 6, 12, 18], (2, 2, 1, 1), ("open", "failed")),
        ([0, 6, 12], (2, 2, 2), ("open", "failed")),
        ([0, 6, 12, 18], (2, 2, 2), ("failed", "failed")),
    ],
)
def test_goal_states(tiles: list[int], counts: tuple[int, ...], expected: tuple[str, str]) -> None:
    spot = cell_of(2, 3)
    assert goal_states(_quilt_with(spot, tiles), spot, counts) == expected


def test_goal_hint_marks_met_goals(two_end: GameState) -> None:
    seat = seat0(two_end)
    with_hints = draw_quilt(seat, two_end.config)
    without = draw_quilt(seat, two_end.config, hints=False)
    for spot in two_end.config.goal_spots:
        region = box(cell_center(spot), -R * 0.6, R * 0.4, R * 0.6, R * 0.85)
        assert diff_bbox(with_hints.crop(region), without.crop(region)) is not None


def test_images_are_rgb(two_mid: GameState) -> None:
    img = draw_quilt(seat0(two_mid), two_mid.config)
    assert isinstance(img, Image.Image) and img.mode == "RGB"


def test_rainbow_button_drawn_on_its_cell(two_end: GameState) -> None:
    seat = seat0(two_end)
    cell = seat.placed[3]
    lay = quilt_layout()
    a = draw_quilt(seat, two_end.config)
    b = draw_quilt(dataclasses.replace(seat, rainbow=cell), two_end.config)
    d = diff_bbox(a, b)
    assert d is not None
    x, y = lay.center(cell)
    assert x - R <= d[0] and d[2] <= x + R and y - R <= d[1] and d[3] <= y + R
