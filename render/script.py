"""Text in any script: what the pictures draw for a name someone chose, whatever its letters.

Text is set in Nunito (:func:`render.theme.font`) wherever Nunito has the letters, which is
every word of the bot's own catalogues. Other characters fall back, one by one, to the first
font of :data:`CHAIN` that has them: Noto Sans (Greek, and Latin and Cyrillic letters Nunito
lacks), Noto Sans Arabic, Hebrew and Thai, Noto Sans SC (Chinese ideographs and Japanese
kana), Noto Sans KR (Hangul) and Noto Emoji, shipped as subsets in ``render/fonts/`` (see its
README). A text Nunito covers entirely is drawn exactly as before, in one call.

Right-to-left text (Arabic, Hebrew) is ordered by the Unicode bidirectional algorithm
(python-bidi's levels, then the runs reordered line by line) and shaped by Pillow's Raqm layout
(HarfBuzz and FriBiDi) when Pillow has it, as are runs with marks or joiners (Thai, emoji
sequences); without Raqm, Arabic letters are turned into their joined presentation forms by
arabic-reshaper and the run is drawn reversed, so a name still reads right to left with its
letters joined. Other runs use Pillow's basic layout, the same pixels on every machine.

Memory: FreeType maps a font's whole file for each face, and Pillow opens a face per size, so
the fallback faces a thread keeps are bounded (:data:`FACES_PER_THREAD`, least recently used
dropped) and the CJK fonts are shipped in parts of under 1 MB.
"""

from __future__ import annotations

import json
import threading
import unicodedata
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import arabic_reshaper  # type: ignore[import-untyped]
from bidi import algorithm as bidi_algorithm  # type: ignore[import-untyped]
from bidi.mirror import MIRRORED  # type: ignore[import-untyped]
from PIL import ImageDraw, ImageFont, features

from render import theme

RGB = tuple[int, int, int]
PRIMARY = 0  # Nunito, through theme.font


@lru_cache(maxsize=1)
def _coverage_file() -> dict[str, list[list[int]]]:
    data: dict[str, list[list[int]]] = json.loads((theme.FONT_DIR / "coverage.json").read_text())
    return data


# After Nunito, in this order: the first that has a character draws it. Each is one static
# bold instance (names are drawn bold), the CJK fonts in parts of about 2,500 characters
# (render/fonts/README.md); the order and what each draws are in render/fonts/coverage.json.
CHAIN: tuple[str, ...] = tuple(list(_coverage_file())[1:])
EMOJI = 1 + CHAIN.index("NotoEmoji-Bold.ttf")  # its space is an em wide: see runs()
RAQM = features.check_feature("raqm")
# Explicit embeddings and overrides are dropped from names: they only serve to spoof.
_EXPLICIT = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def font_path(index: int) -> Path:
    """The file of chain font ``index`` (0: Nunito)."""
    return theme.FONT_FILE if index == PRIMARY else theme.FONT_DIR / CHAIN[index - 1]


@cache
def _coverage(index: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The code points font ``index`` maps, as sorted (starts, ends) of ranges: written by
    ``tools/make_fonts.py`` into ``render/fonts/coverage.json`` (checked against the fonts by
    the tests), so that no font table is parsed here."""
    ranges = _coverage_file()[font_path(index).name]
    return tuple(a for a, _ in ranges), tuple(b for _, b in ranges)


def covers(index: int, ch: str) -> bool:
    """Whether font ``index`` of the chain (0: Nunito) has a glyph for ``ch``."""
    starts, ends = _coverage(index)
    c = ord(ch)
    k = bisect_right(starts, c) - 1
    return k >= 0 and c <= ends[k]


@lru_cache(maxsize=4096)
def _font_of(ch: str) -> int:
    for index in range(len(CHAIN) + 1):
        if covers(index, ch):
            return index
    return PRIMARY  # no font has it: Nunito's box says so honestly


def _attaches(ch: str) -> bool:
    """Marks, joiners and selectors belong with the character before them."""
    return unicodedata.category(ch) in ("Mn", "Me", "Cf") or 0xFE00 <= ord(ch) <= 0xFE0F \
        or 0xE0100 <= ord(ch) <= 0xE01EF or 0x1F3FB <= ord(ch) <= 0x1F3FF


def _neutral(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "ZPSN" and unicodedata.category(ch) != "So"


def _rtl(ch: str) -> bool:
    return unicodedata.bidirectional(ch) in ("R", "AL", "AN")


@dataclass(frozen=True)
class Run:
    text: str  # in logical order
    font: int
    level: int  # bidi embedding level: odd = right to left


def clean(s: str) -> str:
    """``s`` composed (NFC) and without explicit direction controls."""
    return "".join(ch for ch in unicodedata.normalize("NFC", s) if ch not in _EXPLICIT)


def simple(s: str) -> bool:
    """Whether Nunito alone draws ``s``, left to right."""
    return all(covers(PRIMARY, ch) for ch in s)


def _levels(s: str) -> list[int]:
    """The bidi embedding level of each character (UAX #9 through rule I2)."""
    kept = [i for i, ch in enumerate(s)
            if unicodedata.bidirectional(ch) not in bidi_algorithm.X9_REMOVED]
    text = "".join(s[i] for i in kept)
    storage = bidi_algorithm.get_empty_storage()
    base = bidi_algorithm.get_base_level(text)
    storage["base_level"] = base
    storage["base_dir"] = ("L", "R")[base]
    bidi_algorithm.get_embedding_levels(text, storage)
    bidi_algorithm.explicit_embed_and_overrides(storage)
    bidi_algorithm.resolve_weak_types(storage)
    bidi_algorithm.resolve_neutral_types(storage, False)
    bidi_algorithm.resolve_implicit_levels(storage, False)
    got = {i: c["level"] for i, c in zip(kept, storage["chars"], strict=True)}
    out: list[int] = []
    for i in range(len(s)):
        out.append(got.get(i, out[-1] if out else base))
    return out


def runs(s: str) -> list[Run]:
    """``s`` cut into runs of one font and one direction, in the order they are drawn (left
    to right). ``s`` should be :func:`clean`."""
    if not s:
        return []
    levels = _levels(s) if any(_rtl(ch) for ch in s) else [0] * len(s)
    out: list[tuple[list[str], int, int]] = []
    for ch, level in zip(s, levels, strict=True):
        if out:
            chars, font, lvl = out[-1]
            same_level = lvl == level
            if _attaches(ch) and (covers(font, ch) or unicodedata.category(ch) == "Cf"
                                  or not covers(_font_of(ch), ch)):
                chars.append(ch)  # a joiner or mark stays with its letter
                continue
            if same_level and (font == _font_of(ch) or (_neutral(ch) and font != EMOJI
                                                         and covers(font, ch))):
                chars.append(ch)
                continue
        out.append(([ch], _font_of(ch), level))
    pieces = [Run("".join(chars), font, level) for chars, font, level in out]
    return _reorder(pieces)


def _reorder(pieces: list[Run]) -> list[Run]:
    """UAX #9 rule L2 on runs: from the highest level down to the lowest odd one, reverse
    every stretch of runs at that level or higher."""
    levels = [p.level for p in pieces]
    odd = [v for v in levels if v % 2]
    if not odd:
        return pieces
    order = list(pieces)
    for level in range(max(levels), min(odd) - 1, -1):
        k = 0
        while k < len(order):
            if order[k].level >= level:
                j = k
                while j < len(order) and order[j].level >= level:
                    j += 1
                order[k:j] = order[k:j][::-1]
                k = j
            else:
                k += 1
    return order


# --------------------------------------------------------------------------- fonts

_local = threading.local()
# Fallback faces kept per thread, the least recently used dropped first: FreeType maps a
# font's whole file for each face it opens, one face a size (hence the CJK fonts in parts of
# under 1 MB: a Chinese name holds one to three of them).
FACES_PER_THREAD = 8


def _face(index: int, size: int, weight: int, raqm: bool) -> ImageFont.FreeTypeFont:
    """Chain font ``index`` at ``size`` (Nunito also at ``weight``), cached per thread
    (FreeType faces are not shared between threads). Loaded from its file, which FreeType
    reads as it needs rather than copies."""
    if index == PRIMARY and not raqm:
        return theme.font(size, weight)
    cache: OrderedDict[tuple[int, int, int, bool], ImageFont.FreeTypeFont] | None = getattr(
        _local, "fonts", None)
    if cache is None:
        cache = OrderedDict()
        _local.fonts = cache
    key = (index, size, weight if index == PRIMARY else 0, raqm)
    f = cache.pop(key, None)
    if f is None:
        engine = ImageFont.Layout.RAQM if raqm else ImageFont.Layout.BASIC
        f = ImageFont.truetype(str(font_path(index)), size, layout_engine=engine)
        if index == PRIMARY:
            f.set_variation_by_axes([weight])
    cache[key] = f
    while len(cache) > FACES_PER_THREAD:
        cache.popitem(last=False)
    return f


def _shown(run: Run) -> tuple[str, bool]:
    """What is handed to Pillow for ``run``, and whether Raqm lays it out: a run that needs
    shaping (right to left, or with marks or joiners: Arabic, Thai, emoji sequences), when
    Pillow has Raqm. Other runs take the basic layout: no HarfBuzz copy of a big font's
    tables for each size (a CJK font's cost about 4 MB a size)."""
    if RAQM and (run.level % 2 or any(_attaches(ch) or unicodedata.category(ch) == "Mc"
                                      for ch in run.text)):
        return run.text, True
    text = "".join(ch for ch in run.text if covers(run.font, ch) or not _attaches(ch))
    if run.level % 2 == 0:
        return text, False
    # No Raqm: join the Arabic letters (presentation forms) and draw the run reversed.
    shaped = arabic_reshaper.reshape(text)
    return "".join(MIRRORED.get(ch, ch) for ch in reversed(shaped)), False


def _direction(run: Run) -> str:
    return "rtl" if run.level % 2 else "ltr"


def _length(run: Run, size: int, weight: int) -> float:
    text, raqm = _shown(run)
    f = _face(run.font, size, weight, raqm)
    return float(f.getlength(text, direction=_direction(run)) if raqm else f.getlength(text))


# Widths asked again and again (a name cut to fit is measured once a letter; every picture
# measures the same labels): a tenth of a table's drawing before they were kept.
@lru_cache(maxsize=8192)
def length(s: str, size: int, weight: int) -> float:
    """The width of ``s`` in px drawn at ``size`` and ``weight``."""
    s = clean(s)
    if simple(s):
        return float(theme.font(size, weight).getlength(s))
    return sum(_length(r, size, weight) for r in runs(s))


def draw(d: ImageDraw.ImageDraw, at: tuple[float, float], s: str, size: int, weight: int,
         fill: RGB, anchor: str = "la") -> float:
    """Draw ``s`` at ``at`` (Pillow's two-letter ``anchor``, measured on Nunito: the
    baseline is Nunito's whatever fonts the text falls back to); returns its width."""
    s = clean(s)
    primary = theme.font(size, weight)
    if simple(s):
        d.text(at, s, font=primary, fill=fill, anchor=anchor)
        return float(primary.getlength(s))
    pieces = runs(s)
    widths = [_length(r, size, weight) for r in pieces]
    total = sum(widths)
    x, y = at
    x -= {"l": 0.0, "m": total / 2, "r": total}.get(anchor[0], 0.0)
    # Where Nunito's baseline falls for this anchor: every run sits on it.
    shift = primary.getbbox("H", anchor="l" + anchor[1])[1] - primary.getbbox(
        "H", anchor="ls")[1]
    base = y + shift
    for run, w in zip(pieces, widths, strict=True):
        text, raqm = _shown(run)
        f = _face(run.font, size, weight, raqm)
        if raqm:
            d.text((x, base), text, font=f, fill=fill, anchor="ls", direction=_direction(run))
        else:
            d.text((x, base), text, font=f, fill=fill, anchor="ls")
        x += w
    return total


def fit(s: str, size: int, weight: int, max_w: float) -> str:
    """``s`` cut with an ellipsis so that it fits ``max_w`` px (whole characters: a mark or
    joiner is not left without its letter)."""
    s = clean(s)
    if length(s, size, weight) <= max_w:
        return s
    while s and length(s + "…", size, weight) > max_w:
        s = s[:-1]
        while s and _attaches(s[-1]):
            s = s[:-1]
    return s + "…"


def fonts_for(s: str) -> Sequence[int]:
    """The chain fonts (0: Nunito) that draw ``s``."""
    s = clean(s)
    return sorted({r.font for r in runs(s)}) if s else []
