"""The standings picture (:mod:`render.standings`), read from its pixels: a withdrawn
entrant's row is drawn apart (its ink fainter than the others', still legible on the striped
rows, and its name struck through so colour is not the only sign), and the podium rows carry
their medals, gold, silver and bronze, only when asked."""

from __future__ import annotations

from PIL import Image

from render import theme
from render.standings import FADED, MEDALS, ROW, TOP, WIDTH, render_standings
from tests.render.helpers import decode, near, share_near

HEADINGS = ["#", "Player", "Points", "Buchholz", "Games", "Score"]
NAMES = ["Annabelle Quilter", "Bartholomew Knot", "Cordelia Stitch", "Dorothea Patchwork",
         "Evangeline Seam"]
ROWS = [[str(i + 1), name, str(5 - i), "6.5", "3", str(150 - 10 * i)]
        for i, name in enumerate(NAMES)]
LEFT = 28 * 1.5
INNER = WIDTH - 3 * 28
NAME_X = round(LEFT + INNER * 0.07 + 12)  # where a name starts
MEDAL_X = round(LEFT + INNER * 0.07 - 34)


def centre(index: int) -> int:
    """The y of the middle of line ``index`` (0: the first entrant)."""
    return round(TOP + ROW * (index + 1) + ROW / 2)


def picture(podium: tuple[int, ...] = (), faded: tuple[int, ...] = ()) -> Image.Image:
    return decode(render_standings("Spring Cup", "After round 2 of 3", HEADINGS, ROWS,
                                   podium=podium, faded=faded))


def name_box(index: int) -> tuple[int, int, int, int]:
    y = centre(index)
    return NAME_X, y - 12, NAME_X + 160, y - 2  # above the strike line: the letters alone


def luminance(rgb: tuple[int, ...]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink_of(img: Image.Image, index: int) -> tuple[int, int, int]:
    """The darkest colour of the letters of line ``index``'s name."""
    crop = img.crop(name_box(index))
    colours = crop.getcolors(crop.width * crop.height) or []
    return min((c for _, c in colours), key=luminance)


def test_a_withdrawn_row_is_drawn_faint_and_struck_through() -> None:
    plain = picture()
    marked = picture(faded=(3,))
    size = plain.size
    assert marked.size == size
    # The withdrawn row's letters in the faded ink, none in the ink of the others.
    assert share_near(marked, name_box(3), FADED, tol=6) > 0.02
    assert share_near(marked, name_box(3), theme.INK, tol=20) == 0
    assert share_near(plain, name_box(3), theme.INK, tol=6) > 0.02
    assert share_near(marked, name_box(4), theme.INK, tol=6) > 0.02  # the next row as before
    # Fainter than the ink of the other rows, yet readable on its striped background.
    assert luminance(ink_of(marked, 3)) > luminance(ink_of(marked, 2))
    stripe = marked.getpixel((NAME_X + 300, centre(3) - 18))
    assert isinstance(stripe, tuple) and near(stripe, theme.BACKGROUND_DARK, 6)
    assert contrast(ink_of(marked, 3), stripe) >= 4.5
    # A line through the name, along its whole width: on the struck row only.
    y = centre(3) + 1
    along = (NAME_X + 2, y, NAME_X + 150, y + 1)
    assert share_near(marked, along, FADED, tol=12) > 0.95
    assert share_near(plain, along, theme.INK, tol=40) < 0.5
    other = (NAME_X + 2, centre(4) + 1, NAME_X + 150, centre(4) + 2)
    assert share_near(marked, other, theme.INK, tol=40) < 0.5


def test_the_podium_rows_carry_their_medals() -> None:
    final = picture(podium=(0, 1, 2))
    for index, medal in enumerate(MEDALS):
        pixel = final.getpixel((MEDAL_X, centre(index)))
        assert isinstance(pixel, tuple) and near(pixel, medal, 8), index
    for index in (3, 4):
        pixel = final.getpixel((MEDAL_X, centre(index)))
        assert isinstance(pixel, tuple) and not any(near(pixel, m, 40) for m in MEDALS)
    # Before the end, no medal anywhere.
    after_two = picture()
    for index in range(len(ROWS)):
        pixel = after_two.getpixel((MEDAL_X, centre(index)))
        assert isinstance(pixel, tuple) and not any(near(pixel, m, 40) for m in MEDALS)
    # Only the rows named carry a medal.
    two = picture(podium=(0, 1))
    pixel = two.getpixel((MEDAL_X, centre(2)))
    assert isinstance(pixel, tuple) and not any(near(pixel, m, 40) for m in MEDALS)


def test_every_entrant_has_a_line() -> None:
    img = picture()
    assert img.size == (WIDTH, TOP + ROW * (len(ROWS) + 1) + 28)
    for index in range(len(ROWS)):
        assert share_near(img, name_box(index), theme.INK, tol=6) > 0.02, index
