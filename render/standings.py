"""A tournament's standings as a picture (issue #23): a title, column headings and one line per
entrant, the podium places marked. Everything written on it is handed in (already translated
and formatted by ``bot/words``); this module only draws. Pure and synchronous."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PIL import Image

from render import theme
from render.common import panel, text
from render.encode import to_png
from render.glyphs import drawer

WIDTH = 900
ROW = 44
TOP = 120
MARGIN = 28
MAX_ROWS = 32  # a longer table is cut (the list attached beside the picture has everyone)
MEDALS = ((212, 170, 60), (170, 170, 178), (186, 124, 74))
# Column right edges as a fraction of the inner width: rank, name (left-aligned), then numbers.
_COLUMNS = (0.07, 0.52, 0.66, 0.80, 0.90, 1.0)
# A withdrawn entrant's row: lighter than the ink but still 5:1 on the striped rows (a phone
# shows this picture about half size), and the name struck through so colour is not the only sign.
FADED: theme.RGB = (104, 84, 68)


def render_standings(title: str, subtitle: str, headings: Sequence[str],
                     rows: Sequence[Sequence[str]],
                     podium: Sequence[int] | Mapping[int, int] = (),
                     faded: Sequence[int] = ()) -> bytes:
    """PNG of a standings table (the first :data:`MAX_ROWS` lines). ``rows``: one list of
    cells per line, in the order of ``headings`` (rank, name, then numbers); ``podium``: the
    lines with a medal, each line's medal by its index (0 gold, 1 silver, 2 bronze), or the
    indices in medal order; ``faded``: indices drawn greyed (withdrawn entrants)."""
    medal_of = dict(podium) if isinstance(podium, Mapping) else \
        {index: place for place, index in enumerate(podium)}
    shown = list(rows[:MAX_ROWS])
    height = TOP + ROW * (len(shown) + 1) + MARGIN
    img = Image.new("RGB", (WIDTH, height), theme.BACKGROUND)
    panel(img, (MARGIN / 2, MARGIN / 2, WIDTH - MARGIN / 2, height - MARGIN / 2))
    text(img, (MARGIN * 1.5, 30), title, 34, weight=theme.BLACK, max_w=WIDTH - 3 * MARGIN)
    text(img, (MARGIN * 1.5, 76), subtitle, 20, weight=theme.REGULAR, fill=theme.INK_SOFT,
         max_w=WIDTH - 3 * MARGIN)
    inner = WIDTH - 3 * MARGIN
    left = MARGIN * 1.5
    d = drawer(img)

    def cells(y: float, values: Sequence[str], *, weight: int, fill: theme.RGB) -> float:
        """Draw one line; returns the width of its name."""
        name_w = 0.0
        for i, value in enumerate(values[:len(_COLUMNS)]):
            right = left + inner * _COLUMNS[i]
            if i == 1:  # the name, left-aligned after the rank
                start = left + inner * _COLUMNS[0] + 12
                name_w = text(img, (start, y), value, 22, weight=weight, fill=fill,
                              anchor="lm", max_w=right - start - 12)
            else:
                text(img, (right, y), value, 22, weight=weight, fill=fill, anchor="rm")
        return name_w

    y = TOP + ROW / 2
    cells(y, headings, weight=theme.BLACK, fill=theme.INK_SOFT)
    d.line((left, TOP + ROW - 4, left + inner, TOP + ROW - 4), fill=theme.INK_FAINT, width=2)
    for index, values in enumerate(shown):
        y = TOP + ROW * (index + 1) + ROW / 2
        if index % 2:
            d.rectangle((left, y - ROW / 2, left + inner, y + ROW / 2),
                        fill=theme.BACKGROUND_DARK)
        if index in medal_of:
            place = medal_of[index]
            r = 13
            cx = left + inner * _COLUMNS[0] - 34
            d.ellipse((cx - r, y - r, cx + r, y + r), fill=MEDALS[min(place, 2)])
        fill = FADED if index in faded else theme.INK
        name_w = cells(y, values, weight=theme.BOLD, fill=fill)
        if index in faded:
            start = left + inner * _COLUMNS[0] + 12
            d.line((start, y + 1, start + name_w, y + 1), fill=FADED, width=2)
    return to_png(img)
