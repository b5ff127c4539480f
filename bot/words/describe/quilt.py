"""One quilt in words: its header, row by row with every tile and token, and its goals.

The long form says everything; the alt text tries less detailed styles (:data:`SHORT_STYLES`)
until one fits. The table and the turn picture reuse these pieces for each quilt they show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.words import terms
from bot.words.catalogue import Text
from bot.words.describe.fit import Description, join, long_form, short_form
from bot.words.describe.goals import goal_label, goal_lines, pattern_of, tile_of
from engine.config import GameConfig
from engine.hexgrid import INNER, SIZE, cell_name, cell_of
from engine.progress import growing_groups
from engine.state import TURNS_PER_PLAYER
from engine.tiles import EMPTY, GOAL
from engine.views import SeatView

ROWS = "ABCDE"


def tokens_by_cell(seat: SeatView, config: GameConfig) -> dict[int, list[tuple[str, str]]]:
    """Tokens by cell: ``("cat", cat id)``, ``("button", colour id)``, ``("rainbow", "")``."""
    out: dict[int, list[tuple[str, str]]] = {}
    for cell, ci in seat.cats:
        out.setdefault(cell, []).append(("cat", config.cats[ci].id))
    for cell, color in seat.buttons:
        out.setdefault(cell, []).append(("button", config.colors[color]))
    if seat.rainbow is not None:
        out.setdefault(seat.rainbow, []).append(("rainbow", ""))
    return out


def token_words(tr: Text, tokens: Sequence[tuple[str, str]], *, colors: bool = True
                 ) -> list[str]:
    """Each token in words. A button always has the colour of the tile it sits on, so
    ``colors=False`` (said next to that tile) drops the colour."""
    words = []
    for kind, what in tokens:
        if kind == "cat":
            words.append(tr("alt.token.cat", cat=terms.cat_name(what)))
        elif kind == "button":
            words.append(tr("alt.token.button", color=terms.color_name(tr, what)) if colors
                         else tr("alt.token.button_plain"))
        else:
            words.append(tr("alt.token.rainbow"))
    return words


@dataclass(frozen=True, slots=True)
class Marks:
    """What a picture adds on top of the quilt: the ring on the last tile, a see-through
    previewed tile."""

    highlight: int | None = None
    preview: tuple[int, int] | None = None  # (cell, tile)


@dataclass(frozen=True, slots=True)
class Style:
    """How much a quilt's rows say: the long form says everything; the alt text drops detail
    step by step until it fits (see :func:`quilt_forms`)."""

    border: bool = True  # the printed patches at the ends of the rows and the top and bottom
    every_cell: bool = True  # empty cells in their rows (else listed once, after the rows)
    goal_words: bool = True  # what a goal tile asks for, next to its symbol
    row_word: bool = True  # "Row A: A1 ..." rather than "A: A1 ..."
    cell_names: bool = True  # "A1 yellow dots" rather than the cells in order


LONG = Style()
SHORT_STYLES = (
    Style(every_cell=False, goal_words=False),
    Style(border=False, every_cell=False, goal_words=False),
    Style(border=False, every_cell=False, goal_words=False, row_word=False),
    Style(border=False, goal_words=False, row_word=False, cell_names=False),
)


def _cell_text(tr: Text, seat: SeatView, config: GameConfig, cell: int,
               tokens: Mapping[int, Sequence[tuple[str, str]]], marks: Marks,
               style: Style) -> str:
    """What one inner cell shows: its tile (with tokens and marks), empty, or a goal tile."""
    t = seat.quilt[cell]
    if t == GOAL:
        if seat.goals is not None:
            gid = seat.goals[config.goal_spots.index(cell)]
            return tr("alt.cell.goal", goal=goal_label(tr, gid) if style.goal_words
                      else terms.goal_name(gid))
        return tr("alt.cell.goal_open" if seat.drafting else "alt.cell.goal_down")
    if t == EMPTY:
        if marks.preview is not None and marks.preview[0] == cell:
            return tr("alt.cell.preview", tile=tile_of(tr, config, marks.preview[1]))
        return tr("alt.cell.empty")
    words = token_words(tr, tokens.get(cell, ()), colors=False)
    if marks.highlight == cell:
        words.append(tr("alt.token.last"))
    name = tile_of(tr, config, t)
    return tr("alt.cell.tokens", tile=name, tokens=join(words)) if words else name


def quilt_head(tr: Text, seat: SeatView, name: str | None, *, brief: bool = False) -> str:
    """``Alice's quilt: 14 of 22 tiles, 23 points (cats 8, buttons 9, goals 6).``: the
    picture's header (the breakdown left out when ``brief``)."""
    score = seat.score
    total = score.get("total", 0)
    who = tr("alt.quilt.name", name=name) if name else tr("alt.quilt.plain")
    head = tr("alt.quilt.state", who=who, placed=len(seat.placed), turns=TURNS_PER_PLAYER,
              total=total, count=total)
    if not brief:
        head += " " + tr("alt.quilt.breakdown", cats=score.get("cat_points", 0),
                         buttons=score.get("button_points", 0),
                         goals=score.get("goal_points", 0))
    return head + "."


def _edge(tr: Text, config: GameConfig, quilt: Sequence[int], cells: Iterable[int]) -> str:
    return join(tile_of(tr, config, quilt[c]) for c in cells if quilt[c] >= 0)


def row_lines(tr: Text, seat: SeatView, config: GameConfig, marks: Marks, style: Style
          ) -> list[str]:
    """The quilt row by row, A to E, as much as ``style`` says."""
    tokens = tokens_by_cell(seat, config)
    q = seat.quilt
    lines = []
    if style.border:
        lines.append(tr("alt.edge.top", tiles=_edge(tr, config, q, range(SIZE))))
    empty: list[str] = []
    for r, letter in enumerate(ROWS, start=1):
        cells = []
        if style.border and q[cell_of(r, 0)] >= 0:
            cells.append(tr("alt.edge.left", tile=tile_of(tr, config, q[cell_of(r, 0)])))
        for c in range(1, 6):
            cell = cell_of(r, c)
            shown = (q[cell] != EMPTY or style.every_cell
                     or (marks.preview is not None and marks.preview[0] == cell))
            if not shown:
                empty.append(cell_name(cell))
                continue
            what = _cell_text(tr, seat, config, cell, tokens, marks, style)
            cells.append(f"{cell_name(cell)} {what}" if style.cell_names else what)
        if style.border and q[cell_of(r, SIZE - 1)] >= 0:
            cells.append(tr("alt.edge.right", tile=tile_of(tr, config, q[cell_of(r, SIZE - 1)])))
        if not cells:
            continue  # a row with only empty cells: they are listed after the rows
        row = "; ".join(cells)
        lines.append(tr("alt.row", row=letter, cells=row) if style.row_word
                     else f"{letter}: {row}")
    if style.border:
        lines.append(tr("alt.edge.bottom",
                        tiles=_edge(tr, config, q, range(cell_of(SIZE - 1, 0), len(q)))))
    if empty:
        lines.append(tr("alt.empty_cells", cells=join(empty)))
    return lines


def progress_lines(tr: Text, seat: SeatView, config: GameConfig) -> list[str]:
    """The pattern groups growing toward a cat, as the picture rings them (at most two per
    cat, those that can still make it) with the progress on their pill:
    ``Leo (stripes) 3 of 5 on B2, B3, B4``."""
    groups = growing_groups(config, seat.quilt, [c for c, _ in seat.cats])
    if not groups:
        return []
    words = []
    for g in groups:
        inner = sorted((c for c in g.cells if c in INNER), key=cell_name)
        cells = [cell_name(c) for c in inner]
        printed = len(g.cells) - len(inner)
        if printed:
            cells.append(tr("alt.progress.border", count=printed))
        words.append(tr("alt.progress.group", cat=terms.cat_name(config.cats[g.cat].id),
                        pattern=pattern_of(tr, config, g.pattern), size=g.have, need=g.need,
                        cells=join(cells)))
    return [tr("alt.progress.cats", groups="; ".join(words))]


def quilt_forms(tr: Text, seat: SeatView, config: GameConfig, name: str | None,
                 marks: Marks) -> tuple[list[list[str]], list[str]]:
    """(short candidates, most detailed first; the long form's lines) for one quilt."""
    head = quilt_head(tr, seat, name)
    long_head = head
    last = marks.highlight
    if last is not None and last in INNER and seat.quilt[last] >= 0:
        # The alt text marks the cell in its row only; the long form also says it up front.
        long_head += " " + tr("alt.quilt.last", cell=cell_name(last))
    growing = progress_lines(tr, seat, config)
    long = [long_head, tr("alt.quilt.layout"), *row_lines(tr, seat, config, marks, LONG),
            *goal_lines(tr, seat, config, detail=True, values=True), *growing]
    short = []
    for style in SHORT_STYLES:
        rows = row_lines(tr, seat, config, marks, style)
        # What goals still need is worth more than the border, less than the tiles: the
        # first style keeps both, then each style is tried with needs, then without.
        short.append([head, *rows, *goal_lines(tr, seat, config, detail=True, values=False),
                      *growing])
        if not style.border:
            short.append([head, *rows,
                          *goal_lines(tr, seat, config, detail=False, values=False),
                          *growing])
    # Then without the groups growing toward a cat; last resort before clipping: the header
    # without its breakdown of points.
    short.append([head, *rows, *goal_lines(tr, seat, config, detail=False, values=False)])
    short.append([quilt_head(tr, seat, name, brief=True), *short[-1][1:]])
    return short, long


def quilt(tr: Text, seat: SeatView, config: GameConfig, name: str | None = None, *,
          highlight: int | None = None) -> Description:
    """One quilt (the thread's picture after a move, ``/calico board``): the header (name,
    tiles placed, score), every row with each cell's colour and pattern, empty or goal tile,
    the tokens on their cells, the ring on ``highlight``, and per design goal what it still
    needs by colours and by patterns (or met / failed)."""
    short, long = quilt_forms(tr, seat, config, name, Marks(highlight=highlight))
    return Description(short_form(short), long_form(long))
