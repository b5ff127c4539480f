"""Every name, every script: names in ten scripts drawn in every picture that shows names,
and not one character drawn as the font's missing-glyph box (.notdef).

Each text the picture draws is watched (``ImageDraw.text``); each of its characters is
rasterised in the very font it was drawn with and compared, pixel for pixel, with that font's
.notdef glyph (what FreeType draws for a character the font lacks). The name's letters must
have been drawn too (so a name left out, or drawn in pieces elsewhere, is noticed).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from PIL import Image, ImageDraw, ImageFont

from data import load_catalog
from engine.config import GameOptions
from engine.serialize import replay_views
from engine.state import GameState
from engine.views import PublicView, private_view, public_view
from render import (
    render_achievements,
    render_quilt,
    render_replay,
    render_scoresheet,
    render_table,
    render_turn,
    script,
)
from render.glyphs import GlyphDraw
from render.samples import play_record, play_until
from render.standings import render_standings

from .helpers import dark_pixels, decode
from .test_standings import NAME_X, centre

# Ten scripts, as names people pick: each is short enough to be drawn whole everywhere.
NAMES = {
    "latin": "Łukasz Nguyễn",
    "greek": "Αλέξανδρος",
    "cyrillic": "Владимир",
    "chinese": "李小龙",
    "japanese": "さくら桜",
    "korean": "김민준",
    "arabic": "محمد علي",
    "hebrew": "דוד כהן",
    "thai": "สมชาย",
    "emoji": "🐱Mia🎲",
}
ALL = list(NAMES.values())
NOTDEF_PROBE = "\U0010fffd"  # a private-use code point no font of the chain maps


@dataclass(frozen=True)
class Drawn:
    text: str
    missing: tuple[str, ...]


def _mask(font: ImageFont.FreeTypeFont, ch: str) -> tuple[tuple[int, int], bytes]:
    m = font.getmask(ch)
    return m.size, bytes(m)


@contextmanager
def watching() -> Iterator[list[Drawn]]:
    """Every text drawn inside the block, with the characters drawn as .notdef."""
    seen: list[Drawn] = []
    known: dict[tuple[int, str], bool] = {}

    def missing(font: ImageFont.FreeTypeFont, ch: str) -> bool:
        key = (id(font), ch)
        if key not in known:
            known[key] = _mask(font, ch) == _mask(font, NOTDEF_PROBE)
        return known[key]

    def watched(original: Callable[..., None]) -> Callable[..., None]:
        def text(self, xy, text, fill=None, font=None, *args, **kwargs):
            if isinstance(font, ImageFont.FreeTypeFont) and isinstance(text, str):
                bad = tuple(ch for ch in text if not ch.isspace()
                            and unicodedata.category(ch) not in ("Cf", "Mn")
                            and missing(font, ch))
                seen.append(Drawn(text, bad))
            return original(self, xy, text, fill, font, *args, **kwargs)
        return text

    # Pillow's own text, and the pictures' text from kept masks (render.glyphs), which hands
    # Pillow only what it does not keep.
    originals = [(cls, cls.text) for cls in (ImageDraw.ImageDraw, GlyphDraw)]
    for cls, original in originals:
        cls.text = watched(original)  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        for cls, original in originals:
            cls.text = original  # type: ignore[method-assign]


def _letters(name: str) -> set[str]:
    return {ch for ch in unicodedata.normalize("NFC", name) if ch.isalpha()}


def check(draw: Callable[[list[str]], bytes], names: list[str]) -> None:
    with watching() as seen:
        data = draw(names)
    boxes = sorted({(d.text, ch) for d in seen for ch in d.missing})
    assert not boxes, f"drawn as missing-glyph boxes: {boxes}"
    drawn = "".join(d.text for d in seen)
    for name in names:
        # Raqm takes Arabic in logical order; without it the joined forms are drawn, which
        # are other code points: compare on what reads (letters, compatibility-folded).
        folded = unicodedata.normalize("NFKC", drawn)
        lost = {ch for ch in _letters(name) if ch not in drawn and ch not in folded}
        assert not lost, f"{name!r}: letters never drawn: {sorted(lost)}"
    assert data


def chunks(size: int) -> list[list[str]]:
    return [ALL[k:k + size] for k in range(0, len(ALL), size)]


@pytest.fixture(scope="module")
def four() -> GameState:
    return play_until(GameOptions(players=4), 5, 4 + 20, own_chooser=True)


@pytest.fixture(scope="module")
def four_end() -> GameState:
    return play_until(GameOptions(players=4), 5, None, own_chooser=True)


@pytest.mark.parametrize("name", ALL, ids=list(NAMES))
def test_quilt_and_turn_names(name: str, four: GameState) -> None:
    view = public_view(four)
    seat = four.current_seat
    assert seat is not None
    check(lambda n: render_quilt(view.seats[0], four.config, name=n[0]), [name])
    check(lambda n: render_turn(private_view(four, seat), name=n[0]), [name])


@pytest.mark.parametrize("names", chunks(4))
def test_table_names(names: list[str], four: GameState) -> None:
    check(lambda n: render_table(public_view(four), n), names)


@pytest.mark.parametrize("names", chunks(4))
def test_scoresheet_names(names: list[str], four_end: GameState) -> None:
    check(lambda n: render_scoresheet(public_view(four_end), n), names)


@pytest.mark.parametrize("name", ALL, ids=list(NAMES))
def test_achievements_names(name: str) -> None:
    chart = load_catalog().achievements
    check(lambda n: render_achievements(chart, {"scenario-1"}, name=n[0]), [name])


def test_standings_names() -> None:
    headings = ["#", "Player", "Points", "Buchholz", "Games", "Score"]
    rows = [[str(i + 1), n, "3", "4.5", "3", "120"] for i, n in enumerate(ALL)]
    check(lambda n: render_standings("Turniej 春", "Round 2", headings, rows), ALL)


@pytest.fixture(scope="module")
def four_replay() -> list[PublicView]:
    record = play_record(GameOptions(players=4), 5, own_chooser=True)
    return replay_views(load_catalog(), record)


@pytest.mark.parametrize("names", [(ALL + ALL)[k:k + 4] for k in (0, 4, 8)])
def test_replay_names(names: list[str], four_replay: list[PublicView]) -> None:
    check(lambda n: render_replay(four_replay, n), names)


def test_right_to_left_reads_right_to_left() -> None:
    """An Arabic name's first letter is drawn at the right end, its last at the left, with
    Raqm and with the arabic-reshaper fallback alike; Latin digits inside stay in order."""
    runs = script.runs(script.clean("أحمد 2 Ali"))
    assert [r.text for r in runs] == ["Ali", " ", "2", "أحمد "]
    assert [r.level % 2 for r in runs] == [0, 1, 0, 1]


def _gaps(img: Image.Image) -> int:
    """Empty columns between the first and the last inked one."""
    ink = img.convert("L").point(lambda v: 255 if v < 120 else 0)
    box = ink.getbbox()
    assert box is not None
    cols = [ink.crop((x, 0, x + 1, img.height)).getbbox() is not None
            for x in range(box[0], box[2])]
    return cols.count(False)


@pytest.mark.parametrize("raqm", [True, False], ids=["raqm", "reshaper"])
def test_arabic_joins_either_way(raqm: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With Raqm or with the arabic-reshaper fallback, the letters of "محمد" are joined: one
    unbroken stroke, where the same letters drawn one by one stand apart; nothing is a box."""
    if raqm and not script.RAQM:
        pytest.skip("this Pillow has no Raqm")
    monkeypatch.setattr(script, "RAQM", raqm)
    word = "محمد"
    joined = Image.new("RGB", (300, 80), (255, 255, 255))
    with watching() as seen:
        script.draw(ImageDraw.Draw(joined), (150, 40), word, 40, 800, (0, 0, 0), "mm")
    assert seen and not any(d.missing for d in seen)
    apart = Image.new("RGB", (300, 80), (255, 255, 255))
    x = 250.0
    for ch in word:  # right to left, each letter alone
        x -= script.draw(ImageDraw.Draw(apart), (x, 40), ch, 40, 800, (0, 0, 0), "rm") + 4
    assert _gaps(apart) > 0
    assert _gaps(joined) == 0


def test_a_missing_glyph_is_caught() -> None:
    """The check itself: a character no font has is reported (U+0F00, Tibetan)."""
    with pytest.raises(AssertionError, match="missing-glyph"):
        check(lambda n: render_standings("x", "y", ["#", "Player"], [["1", n[0]]]),
              ["ༀ"])


def test_names_ink_the_picture() -> None:
    """A CJK name is ink on the standings picture, where a blank name would leave linen."""
    rows = [["1", "李小龙", "3", "4.5", "3", "120"]]
    blank = [["1", "", "3", "4.5", "3", "120"]]
    headings = ["#", "Player", "Points", "Buchholz", "Games", "Score"]
    a = decode(render_standings("t", "s", headings, rows))
    b = decode(render_standings("t", "s", headings, blank))
    y = centre(0)
    region = (NAME_X, y - 16, NAME_X + 160, y + 16)
    assert dark_pixels(a, region) > dark_pixels(b, region) + 40


def test_coverage_file_matches_the_fonts() -> None:
    """render/fonts/coverage.json (what the renderer believes each font draws) is exactly
    each font's character map, read here with fontTools."""
    from fontTools.ttLib import TTFont

    for index in range(len(script.CHAIN) + 1):
        path = script.font_path(index)
        cmap = sorted(TTFont(path, lazy=True).getBestCmap())
        starts, ends = script._coverage(index)
        listed = [c for a, b in zip(starts, ends, strict=True) for c in range(a, b + 1)]
        assert listed == cmap, path.name
