"""The look as data: palette, tile colours (from the catalogue), sizes, fonts and default labels."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from functools import lru_cache
from io import BytesIO
from pathlib import Path

from PIL import ImageFont

from data import load_catalog

RGB = tuple[int, int, int]

# Warm linen, brown ink, cream seams: the quilt should feel like fabric on a table.
BACKGROUND: RGB = (243, 234, 216)
BACKGROUND_DARK: RGB = (229, 216, 192)
PANEL: RGB = (250, 244, 232)
INK: RGB = (58, 40, 32)
INK_SOFT: RGB = (122, 98, 80)
INK_FAINT: RGB = (176, 156, 134)
SEAM: RGB = (252, 247, 237)
EMPTY_FILL: RGB = (251, 246, 236)
EMPTY_DIM: RGB = (236, 228, 212)
LEGAL_FILL: RGB = (255, 240, 196)
HIGHLIGHT: RGB = (255, 252, 240)
# Terracotta (markers, the winner's rosette) and green: dark enough for WCAG 4.5 as text on
# the linen and under cream text (checked at phone width by tests/render/test_legibility.py).
ACCENT: RGB = (178, 70, 40)
GOOD: RGB = (46, 118, 60)
BAD: RGB = (178, 58, 48)
GOAL_FILL: RGB = (253, 248, 236)
GOAL_FRAME: RGB = (96, 70, 52)
GOLD: RGB = (222, 168, 56)

# The printed boards are named by their stitching colour.
BOARD_STITCH: Mapping[str, RGB] = {
    "blue": (72, 108, 168),
    "green": (78, 138, 88),
    "purple": (122, 86, 160),
    "yellow": (204, 160, 52),
}

# A cat token without a particular cat (a count of cat tokens, "no cats"): a neutral tabby.
GENERIC_FUR: RGB = (176, 150, 120)


def cat_fur(cat_id: str | None) -> RGB:
    """The colour of cat ``cat_id`` (the catalogue's ``fur``): one per cat, in every picture
    and every game, whatever slot the cat is dealt to. None: :data:`GENERIC_FUR`."""
    if cat_id is None:
        return GENERIC_FUR
    cat = load_catalog().cats.get(cat_id)
    return GENERIC_FUR if cat is None else cat.fur

def cat_initial(cat_id: str) -> str:
    """Two letters naming cat ``cat_id`` on its rings ("Ca" Callie, "Co" Coconut): a cue
    besides colour, different for every two cats (tests/render/test_cat_colours.py)."""
    return cat_id[:2].title()


# Target OKLab lightness per colour id, spread evenly so the six colours stay apart in
# greyscale (luma about 49, 86, 115, 151, 189, 225); hue and chroma come from the catalogue.
_TARGET_LIGHTNESS: Mapping[str, float] = {
    "dark-blue": 0.34,
    "purple": 0.46,
    "magenta": 0.60,
    "green": 0.71,
    "light-blue": 0.82,
    "yellow": 0.92,
}
# Target luma of each colour's motif: light on the three darker fabrics, dark on the three
# lighter ones, and spread out within each trio, so that the same pattern in two colours
# differs in its motif as well as in its ground.
_MOTIF_LUMA: Mapping[str, float] = {
    "dark-blue": 165,
    "purple": 205,
    "magenta": 240,
    "green": 58,
    "light-blue": 84,
    "yellow": 110,
}
_CREAM: RGB = (255, 250, 238)
_UMBER: RGB = (34, 22, 18)


def _srgb_to_linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _linear_to_srgb(c: float) -> int:
    c = min(1.0, max(0.0, c))
    s = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
    return round(s * 255)


def _to_oklab(rgb: RGB) -> tuple[float, float, float]:
    r, g, b = (_srgb_to_linear(x) for x in rgb)
    lc = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b) ** (1 / 3)
    mc = (0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b) ** (1 / 3)
    sc = (0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b) ** (1 / 3)
    return (
        0.2104542553 * lc + 0.7936177850 * mc - 0.0040720468 * sc,
        1.9779984951 * lc - 2.4285922050 * mc + 0.4505937099 * sc,
        0.0259040371 * lc + 0.7827717662 * mc - 0.8086757660 * sc,
    )


def _from_oklab(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    lc = (lightness + 0.3963377774 * a + 0.2158037573 * b) ** 3
    mc = (lightness - 0.1055613458 * a - 0.0638541728 * b) ** 3
    sc = (lightness - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (
        4.0767416621 * lc - 3.3077115913 * mc + 0.2309699292 * sc,
        -1.2684380046 * lc + 2.6097574011 * mc - 0.3413193965 * sc,
        -0.0041960863 * lc - 0.7034186147 * mc + 1.7076147010 * sc,
    )


def with_lightness(rgb: RGB, lightness: float) -> RGB:
    """``rgb`` moved to OKLab ``lightness``, chroma reduced until it fits in sRGB."""
    _, a, b = _to_oklab(rgb)
    k = 1.0
    for _ in range(60):
        lin = _from_oklab(lightness, a * k, b * k)
        if all(-1e-6 <= x <= 1 + 1e-6 for x in lin):
            break
        k *= 0.95
    r, g, bb = (_linear_to_srgb(x) for x in lin)
    return (r, g, bb)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` toward ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def luma(rgb: RGB) -> float:
    """ITU-R 601 luma, the formula Pillow's ``convert("L")`` uses."""
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


@lru_cache(maxsize=1)
def tile_palette() -> tuple[tuple[RGB, RGB], ...]:
    """(fabric, motif) per colour index, in catalogue order.

    The fabric is the catalogue's rgb at a lightness chosen for greyscale separation; the
    motif is the fabric mixed toward cream or umber until it reaches its target luma.
    """
    out: list[tuple[RGB, RGB]] = []
    for color in load_catalog().colors:
        fabric = with_lightness(color.rgb, _TARGET_LIGHTNESS.get(color.id, 0.6))
        lf = luma(fabric)
        target = _MOTIF_LUMA.get(color.id, 230.0 if lf < 128 else 50.0)
        end = _CREAM if target > lf else _UMBER
        t = (target - lf) / (luma(end) - lf)
        out.append((fabric, mix(fabric, end, min(1.0, max(0.0, t)))))
    return tuple(out)


def color_symbols() -> tuple[str, ...]:
    """The colour-blind symbol name per colour index (ring, leaf, drop, ...)."""
    return tuple(c.symbol for c in load_catalog().colors)


# --------------------------------------------------------------------------- fonts

FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONT_FILE = FONT_DIR / "Nunito.ttf"  # Nunito 3.602, SIL Open Font License 1.1 (OFL.txt)

REGULAR = 560
BOLD = 820
BLACK = 950
STATIC_WEIGHTS = frozenset((REGULAR, BOLD, BLACK))

_font_bytes: bytes | None = None
_font_lock = threading.Lock()
# FreeType faces are not safe to share between threads, so each thread keeps its own.
_local = threading.local()


def _data() -> bytes:
    global _font_bytes
    with _font_lock:
        if _font_bytes is None:
            _font_bytes = FONT_FILE.read_bytes()
        return _font_bytes


def static_font_file(weight: int) -> Path:
    """Nunito's static instance at ``weight`` (one of :data:`REGULAR`, :data:`BOLD`,
    :data:`BLACK`; made by ``tools/make_fonts.py --nunito``)."""
    return FONT_DIR / f"Nunito-{weight}.ttf"


def font(size: int, weight: int = REGULAR) -> ImageFont.FreeTypeFont:
    """The shipped font at ``size`` px and ``weight`` (100-1000), cached per thread."""
    cache: dict[tuple[int, int], ImageFont.FreeTypeFont] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = {}
        _local.fonts = cache
    key = (size, weight)
    f = cache.get(key)
    if f is None:
        # Basic layout: the same pixels whether or not libraqm is installed. The three weights
        # the pictures use come from static instances: a face (one per size and thread) of
        # the variable font held about 340 KB, of a static one about 190 KB, with the same
        # outlines and advances (docs/performance.md, issue 30).
        if weight in STATIC_WEIGHTS:
            f = ImageFont.truetype(str(static_font_file(weight)), size,
                                   layout_engine=ImageFont.Layout.BASIC)
        else:
            f = ImageFont.truetype(BytesIO(_data()), size, layout_engine=ImageFont.Layout.BASIC)
            f.set_variation_by_axes([weight])
        cache[key] = f
    return f


# --------------------------------------------------------------------------- labels

DEFAULT_LABELS: Mapping[str, str] = {
    "hand": "Hand",
    "market": "Market",
    "to_play": "To play",
    "master_quilter": "Master Quilter",
    "goals": "Goals",
    "cats": "Cats",
    "buttons": "Buttons",
    "total": "Total",
    "final_scores": "Final scores",
    "tiebreak_cats": "Tied on points: most cat tokens wins",
    "tiebreak_buttons": "Tied on points and cats: most buttons wins",
    "tiebreak_shared": "Tied on points, cats and buttons: victory shared",
    "choose_goals": "Choose 3 design goals",
    "one_way": "one way",
    "both_ways": "both ways",
    "last_turn": "Last tile",
    "rules_cats": "The ten cats",
    "need_size": "this many patches or more, in one of its patterns",
    "need_shape": "this shape (turned any way), in one of its patterns",
    "cats_note": "Each cat likes two patterns, dealt at the start of every game.",
    "rules_goals": "The six design goals",
    "goals_note": "The six neighbours must form these groups exactly, by colour or by pattern.",
    "rules_buttons": "Buttons",
    "button_group": "3 or more touching patches of one colour: a button of that colour",
    "button_rainbow": "A button in all six colours: the rainbow button",
    "scenario": "Scenario",
    "scenario_passed": "passed",
    "scenario_failed": "not passed",
    "cond_goals_met": "Goals met",
    "cond_goals_both": "Goals both ways",
    "cond_rainbow": "Rainbow",
    "cond_cat_tokens": "Cat tokens",
    "cond_each_cat": "Every cat",
    "cond_same_cat": "One cat",
    "cond_buttons_one_color": "Buttons, one colour",
    "cond_score": "Score",
}


def label(labels: Mapping[str, str] | None, key: str) -> str:
    """The caller's text for ``key``, else the English default (else the key itself)."""
    if labels is not None and key in labels:
        return labels[key]
    return DEFAULT_LABELS.get(key, key)
