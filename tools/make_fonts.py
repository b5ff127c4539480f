"""Build the fallback fonts in ``render/fonts/`` (run by hand when a source font changes).

The pictures set text in Nunito; a name in a script Nunito lacks falls back, character by
character, to one of the Noto fonts made here (the chain is :data:`render.script.CHAIN`). The
sources are the Noto fonts as published on PyPI by font packagers (OFL 1.1), fetched with pip:

    pip download --no-deps -d /tmp/noto fontpkg-noto-sans==2.15 \\
        fontpkg-noto-sans-arabic==2.12 justmytype-intl-rtl==0.1.0 \\
        justmytype-intl-cjk==0.1.0 manimgx-fonts==2026.9.26.post1
    pip install fonttools
    python tools/make_fonts.py /tmp/noto        # or --coverage: coverage.json alone
    python tools/make_fonts.py --nunito         # Nunito's static weights (below)

Each font is cut down with fontTools: one static instance, bold (weight 700, normal width;
names are drawn bold), and for the two CJK fonts only the blocks names use (every unified
ideograph of the basic CJK block, kana, every Hangul syllable, CJK punctuation and full-width
forms). Static fonts open and measure in a millisecond or two where the variable ones took
30 ms in FreeType; outlines are unchanged.
A font of many characters is then cut into parts (:data:`PART_CHARS`). It also writes
``coverage.json``: the chain in order and the code points each font of it has (Nunito's
too), which tests/render/test_scripts.py checks against the fonts.
"""

from __future__ import annotations

import json
import sys
import zipfile
from io import BytesIO
from pathlib import Path

from fontTools import subset  # type: ignore[import-untyped]
from fontTools.ttLib import TTFont  # type: ignore[import-untyped]
from fontTools.varLib import instancer  # type: ignore[import-untyped]

OUT = Path(__file__).resolve().parent.parent / "render" / "fonts"


def blocks(*spans: tuple[int, int]) -> list[int]:
    return [c for a, b in spans for c in range(a, b + 1)]


CJK_COMMON = blocks((0x3000, 0x303F), (0x3040, 0x309F), (0x30A0, 0x30FF), (0x31F0, 0x31FF),
                    (0xFF00, 0xFFEF))
# (wheel, member inside it, file made, axes to fix, code points kept: None = all)
FONTS: list[tuple[str, str, str, dict[str, float], list[int] | None]] = [
    ("fontpkg_noto_sans-2.15-", "fontpkg_noto_sans/files/NotoSans[wdth,wght].ttf",
     "NotoSans-Bold.ttf", {"wdth": 100, "wght": 700}, None),
    ("fontpkg_noto_sans_arabic-2.12-",
     "fontpkg_noto_sans_arabic/files/NotoSansArabic[wdth,wght].ttf",
     "NotoSansArabic-Bold.ttf", {"wdth": 100, "wght": 700}, None),
    ("justmytype_intl_rtl-0.1.0-",
     "justmytype_intl_rtl/fonts/ofl/notosanshebrew/NotoSansHebrew[wdth,wght].ttf",
     "NotoSansHebrew-Bold.ttf", {"wdth": 100, "wght": 700}, None),
    ("manimgx_fonts-2026.9.26.post1-", "manimgx_fonts/NotoSansThai[wght].ttf",
     "NotoSansThai-Bold.ttf", {"wght": 700}, None),
    ("justmytype_intl_cjk-0.1.0-",
     "justmytype_intl_cjk/fonts/ofl/notosanssc/NotoSansSC[wght].ttf",
     "NotoSansSC-Bold.ttf", {"wght": 700}, blocks((0x4E00, 0x9FFF)) + CJK_COMMON),
    ("justmytype_intl_cjk-0.1.0-",
     "justmytype_intl_cjk/fonts/ofl/notosanskr/NotoSansKR[wght].ttf",
     "NotoSansKR-Bold.ttf", {"wght": 700},
     blocks((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7A3))),
    ("manimgx_fonts-2026.9.26.post1-", "manimgx_fonts/NotoEmoji[wght].ttf",
     "NotoEmoji-Bold.ttf", {"wght": 700}, None),
]
# A font with more characters than this is cut into parts of about as many (a CJK font of 7.5
# MB into nine of 0.8 MB): FreeType maps a font's whole file into memory for every face it
# opens, one face per size, so a name costs the parts its characters are in, not the block.
PART_CHARS = 2500


def build(src: Path, member: str, out: Path, axes: dict[str, float],
          keep: list[int] | None) -> None:
    with zipfile.ZipFile(src) as z:
        font = TTFont(BytesIO(z.read(member)))
    opts = subset.Options()
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.name_languages = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    opts.glyph_names = False
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=keep if keep is not None else font.getBestCmap().keys())
    sub.subset(font)
    if axes:
        font = instancer.instantiateVariableFont(font, axes)
    font.save(out)
    print(f"{out.name}: {out.stat().st_size / 1024:.0f} KB")


def split(path: Path) -> list[str]:
    """``path`` cut into parts of :data:`PART_CHARS` characters (``Name-1.ttf``...), by code
    point; returns the parts' file names (``path`` itself when it is small enough)."""
    points = sorted(TTFont(path, lazy=True).getBestCmap())
    if len(points) <= PART_CHARS:
        return [path.name]
    count = -(-len(points) // PART_CHARS)
    size = -(-len(points) // count)
    names = []
    for k in range(count):
        font = TTFont(path)
        opts = subset.Options()
        opts.layout_features = ["*"]
        opts.name_IDs = ["*"]
        opts.name_languages = ["*"]
        opts.notdef_outline = True
        opts.glyph_names = False
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=points[k * size:(k + 1) * size])
        sub.subset(font)
        out = path.with_name(f"{path.stem}-{k + 1}.ttf")
        font.save(out)
        names.append(out.name)
        print(f"  {out.name}: {out.stat().st_size / 1024:.0f} KB")
    path.unlink()
    return names


def coverage(path: Path) -> list[list[int]]:
    """The code points ``path`` maps, as [first, last] ranges."""
    ranges: list[list[int]] = []
    for c in sorted(TTFont(path, lazy=True).getBestCmap()):
        if ranges and c == ranges[-1][1] + 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return ranges


def write_coverage(chain: list[str]) -> None:
    """``coverage.json``: the fallback chain in order (Nunito first) and what each font draws,
    so the renderer picks a font per character without reading the fonts' tables itself."""
    data = {name: coverage(OUT / name) for name in ["Nunito.ttf", *chain]}
    lines = ",\n".join(f'  "{k}": {json.dumps(v, separators=(",", ":"))}'
                        for k, v in data.items())
    (OUT / "coverage.json").write_text("{\n" + lines + "\n}\n")


# The weights the pictures use (render.theme.REGULAR, BOLD, BLACK), each made a static
# instance of the shipped variable Nunito for the basic layout (render.theme.font).
NUNITO_WEIGHTS = (560, 820, 950)


def nunito_weights() -> None:
    """``Nunito-<weight>.ttf`` from ``Nunito.ttf``: one static instance per weight, without the
    layout tables (GPOS, GSUB, GDEF) that Pillow's basic layout never reads. FreeType keeps a
    face per size and Pillow a copy of the font's bytes per face: a face of the variable font
    took about 340 KB, of these about 190 KB (benchmarks/bench_render_memory.py)."""
    for weight in NUNITO_WEIGHTS:
        font = instancer.instantiateVariableFont(TTFont(OUT / "Nunito.ttf"), {"wght": weight})
        for tag in ("GPOS", "GSUB", "GDEF"):
            if tag in font:
                del font[tag]
        out = OUT / f"Nunito-{weight}.ttf"
        font.save(out)
        print(f"{out.name}: {out.stat().st_size / 1024:.0f} KB")


def main() -> None:
    chain: list[str] = []
    if sys.argv[1:] == ["--nunito"]:
        nunito_weights()
        return
    if sys.argv[1:] == ["--coverage"]:
        chain = list(json.loads((OUT / "coverage.json").read_text()))[1:]
    else:
        src = Path(sys.argv[1])
        for prefix, member, name, axes, keep in FONTS:
            wheel = next(src.glob(prefix + "*.whl"))
            build(wheel, member, OUT / name, axes, keep)
            chain += split(OUT / name)
    write_coverage(chain)


if __name__ == "__main__":
    main()
