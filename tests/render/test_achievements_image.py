"""The achievements chart picture: size, earned and open rows told apart at the positions the
layout gives, the progress track, labels."""

from __future__ import annotations

import pytest

from data import load_catalog
from engine.achievements import progress
from render import ACHIEVEMENT_LABELS, achievements_layout, render_achievements
from render.achievements import EARNED_FILL, MARK_R, OPEN_FILL, SCENARIO_EARNED, SHAPE_OPEN

from .helpers import decode, near

CHART = load_catalog().achievements
SOME = {"scenario-1", "scenario-4", "normal-65", "normal-no-cats", "restriction-no-hand",
        "normal-printed-3"}


@pytest.fixture(scope="module")
def some():
    return decode(render_achievements(CHART, SOME, name="Marguerite"))


def px(img, at):
    return img.getpixel((round(at[0]), round(at[1])))


def test_size_and_weight():
    """A sane picture: as wide as the others, not too tall, well under 1 MB."""
    data = render_achievements(CHART, SOME, name="Zbigniew Łukaszewicz")
    img = decode(data)
    lay = achievements_layout(CHART)
    assert img.size == lay.size and img.width == 800 and 500 < img.height < 1000
    assert len(data) < 1024 * 1024 and len(data) < 300 * 1024


def test_every_shown_row_has_a_place():
    """Every row that can be earned is drawn, each in its own box, inside its group's panel;
    the rows no text explains are not drawn."""
    lay = achievements_layout(CHART)
    assert set(lay.boxes) == {a.id for a in CHART.enabled}
    for a in CHART.enabled:
        x0, y0, x1, y1 = lay.boxes[a.id]
        gx0, gy0, gx1, gy1 = lay.groups[a.mode]
        assert gx0 <= x0 < x1 <= gx1 and gy0 <= y0 < y1 <= gy1, a.id
    boxes = list(lay.boxes.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    tops = [lay.groups[m][1] for m in ("scenario", "normal", "restriction")]
    assert tops == sorted(tops) and lay.track[3] <= tops[0]


def test_earned_and_open_rows_differ(some):
    """Earned chips are filled warm and carry a green tick; open ones stay pale with a hollow
    ring; earned scenario circles are green."""
    lay = achievements_layout(CHART)
    for a in CHART.enabled:
        fill = px(some, lay.swatches[a.id])
        if a.mode == "scenario":
            want = SCENARIO_EARNED if a.id in SOME else OPEN_FILL
            assert near(fill, want, 12), (a.id, fill)
            continue
        assert near(fill, EARNED_FILL if a.id in SOME else OPEN_FILL, 12), (a.id, fill)
        mx, my = lay.marks[a.id]
        mark = px(some, (mx, my + 0.65 * MARK_R))  # on the disc, below the tick
        green = near(mark, (62, 138, 76), 40)
        assert green == (a.id in SOME), (a.id, mark)


def test_track_fills_one_shape_per_point(some):
    """As many shapes coloured as points (disabled rows do not count), the rest pale."""
    lay = achievements_layout(CHART)
    points = progress(CHART, SOME).points
    assert points == 5
    assert len(lay.shapes) == CHART.track_length == 26
    for k, at in enumerate(lay.shapes):
        colour = px(some, at)
        assert near(colour, SHAPE_OPEN, 10) != (k < points), (k, colour)
    empty = decode(render_achievements(CHART, ()))
    assert all(near(px(empty, at), SHAPE_OPEN, 10) for at in lay.shapes)
    full = decode(render_achievements(CHART, {a.id for a in CHART.enabled}))
    assert not any(near(px(full, at), SHAPE_OPEN, 10) for at in lay.shapes)


def test_nothing_earned_differs_from_everything_earned():
    empty = decode(render_achievements(CHART, ()))
    full = decode(render_achievements(CHART, {a.id for a in CHART.enabled}))
    lay = achievements_layout(CHART)
    for a in CHART.enabled:
        assert px(empty, lay.swatches[a.id]) != px(full, lay.swatches[a.id]), a.id


def test_labels_change_words_only():
    """Other labels change the text, not where rows sit; every key has an English default."""
    words = dict.fromkeys(ACHIEVEMENT_LABELS, "Łódź Ééé " * 3)
    a = decode(render_achievements(CHART, SOME, labels=words))
    b = decode(render_achievements(CHART, SOME))
    assert a.size == b.size and a.tobytes() != b.tobytes()
    lay = achievements_layout(CHART)
    for at in lay.marks.values():
        assert px(a, at) == px(b, at)
    for a_row in CHART.enabled:
        if a_row.mode != "scenario" and a_row.condition is not None and (
                a_row.condition.min_score is None):
            assert f"short.{a_row.id}" in ACHIEVEMENT_LABELS
        if a_row.mode == "restriction":
            assert f"short.{a_row.id}" in ACHIEVEMENT_LABELS
    assert all(f"level.{lv.id}" in ACHIEVEMENT_LABELS for lv in CHART.track)


def test_a_broken_placeholder_does_not_fail():
    data = render_achievements(CHART, SOME, labels={"next": "Next {nope}"})
    assert decode(data).size == achievements_layout(CHART).size
