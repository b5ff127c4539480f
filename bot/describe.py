"""Pictures in words: the text description of every picture the bot posts, for screen readers.

This module owns what the pictures *say* (not how they look): for each renderer picture (a
quilt, the turn picture of quilt + hand + market, the table, the score sheet, the goal draft and
the rules pictures) a function returns a :class:`Description` with two forms:

- ``short``: fits Discord's attachment description (:data:`ATTACHMENT_DESCRIPTION_LIMIT`), the
  alt text a screen reader announces with the picture. Each describer builds versions from the
  most detailed to the plainest and keeps the first that fits, so a crowded picture loses detail
  (the printed border, what goals still need) before it loses tiles or tokens.
- ``long``: the full text, one fact per line, for the message body when a player asked for
  pictures in words; :func:`message_parts` and :func:`fit_message` fit it to Discord's message
  limit (:data:`MESSAGE_CONTENT_LIMIT`).

Pure like :mod:`bot.presenter`: no discord, no I/O, no rules beyond reading views. Inputs are
engine views (what the renderer draws from) and a :class:`~bot.i18n.Text`; words come from the
``alt.*`` catalogue keys plus the shared names of colours, patterns, goals and cats. Goal needs
are worked out here from the six neighbours (the renderer's green/faint/red hints say the same
as met / open / failed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

from bot import presenter as p
from bot.i18n import Text
from data import load_catalog
from engine.config import GameConfig, Restriction
from engine.events import ButtonSewn, CatAttracted, Event, RainbowSewn, ScenarioResult
from engine.hexgrid import INNER, NEIGHBOURS, SIZE, cell_name, cell_of
from engine.scoring import rank
from engine.state import TURNS_PER_PLAYER, Phase
from engine.tiles import EMPTY, GOAL
from engine.views import PrivateView, PublicView, SeatView

# Discord refuses an attachment whose description is longer than this (the API's documented
# maximum for ``attachments[].description``; discord.py passes it through unchecked).
ATTACHMENT_DESCRIPTION_LIMIT: Final = 1024
# Discord's limit on a message's content, for the long form in the message body.
MESSAGE_CONTENT_LIMIT: Final = 2000
# The /calico rules topics that come with a picture (render.RULES_TOPICS, kept here so this
# module needs no Pillow; a test keeps the two in step).
RULES_PICTURE_TOPICS: Final = ("cats", "goals", "buttons")
# How many ways of meeting a goal are spelled out before "or N other ways".
MAX_WAYS: Final = 2
ELLIPSIS: Final = "…"

ROWS = "ABCDE"


@dataclass(frozen=True, slots=True)
class Description:
    """The words for one picture: ``short`` for the attachment's alt text, ``long`` for the
    message body."""

    short: str
    long: str


def length(text: str) -> int:
    """``text``'s length as Discord may count it: in UTF-16 code units, which is never less
    than the number of characters, so a text within a limit here is within it either way."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` (see :func:`length`), cut after the last whole sentence or
    clause that fits, with an ellipsis, so a screen reader never stops mid-word."""
    if length(text) <= limit:
        return text
    room = limit - length(ELLIPSIS)
    head = text
    while length(head) > room:
        head = head[: len(head) - max(1, (length(head) - room) // 2)]
    for stop in ("\n", ". ", "; ", ", ", " "):
        cut = head.rfind(stop)
        if cut > len(head) // 2:
            return head[: cut + (1 if stop.strip() else 0)].rstrip() + ELLIPSIS
    return head.rstrip() + ELLIPSIS


def first_fitting(candidates: Iterable[str], limit: int = ATTACHMENT_DESCRIPTION_LIMIT) -> str:
    """The first candidate (most detailed first) within ``limit``; the last one clipped when
    none fits."""
    last = ""
    for text in candidates:
        if length(text) <= limit:
            return text
        last = text
    return clip(last, limit)


# --------------------------------------------------------------------------- the long form


def _lines_within(text: str, limit: int) -> list[str]:
    """The non-empty lines of ``text``, a line longer than ``limit`` cut between words."""
    out: list[str] = []
    for line in text.split("\n"):
        while length(line) > limit:
            head = clip(line, limit)
            head = head.removesuffix(ELLIPSIS)
            out.append(head)
            line = line[len(head):].lstrip()
        if line:
            out.append(line)
    return out


def message_parts(tr: Text, content: str, long: str, limit: int = MESSAGE_CONTENT_LIMIT
                  ) -> list[str]:
    """``content`` and then the description under a heading, as message contents of at most
    ``limit`` each: whole lines go under the content while they fit, the rest in follow-up
    messages (a long table or turn description takes two or three)."""
    lines = _lines_within(f"{tr('alt.heading')}\n{long}", limit)
    out: list[str] = []
    current = content if length(content) <= limit else clip(content, limit)
    sep = "\n\n"  # a blank line between the message's own text and the description
    for line in lines:
        if not current:
            current = line
        elif length(current + sep + line) <= limit:
            current += sep + line
        else:
            out.append(current)
            current = line
        sep = "\n"
    if current:
        out.append(current)
    return out


def fit_message(tr: Text, content: str, long: str, limit: int = MESSAGE_CONTENT_LIMIT) -> str:
    """One message: ``content``, then the description under a heading, whole lines only, as
    far as ``limit`` allows, with a note when lines had to be left out (the picture's alt text
    still says the essentials). ``content`` alone too long is clipped and gets nothing more."""
    if length(content) >= limit:
        return clip(content, limit)
    lines = _lines_within(f"{tr('alt.heading')}\n{long}", limit)
    note = tr("alt.trimmed")
    text = content
    sep = "\n\n" if content else ""
    for k, line in enumerate(lines):
        # Keep room for the note unless this is the last line.
        reserve = length("\n" + note) if k + 1 < len(lines) else 0
        if length(text + sep + line) + reserve > limit:
            if k == 0:
                return text  # not even the heading and the note fit: leave the text alone
            return text + "\n" + note
        text += sep + line
        sep = "\n"
    return text


# --------------------------------------------------------------------------- names


def _color(tr: Text, config: GameConfig, index: int) -> str:
    return p.color_name(tr, config.colors[index])


def _pattern(tr: Text, config: GameConfig, index: int) -> str:
    return p.pattern_name(tr, config.patterns[index])


def _tile(tr: Text, config: GameConfig, code: int | None) -> str:
    return p.tile_code_name(tr, config, code)


def _goal_label(tr: Text, goal_id: str) -> str:
    """``≠ (six different)``: the symbol printed on the tile and what it asks for."""
    return f"{p.goal_name(goal_id)} ({tr(f'goal.{goal_id}')})"


def _join(items: Iterable[str]) -> str:
    return ", ".join(items)


def _sentence(text: str) -> str:
    """``text`` ending with a full stop (catalogue texts sometimes carry their own)."""
    text = text.rstrip()
    return text if not text or text[-1] in ".!?…" else text + "."


# --------------------------------------------------------------------------- goal needs

GoalState = Literal["met", "failed", "open", "impossible"]


@dataclass(frozen=True, slots=True)
class Way:
    """One way of meeting a goal's condition from here: values already around it that must
    grow (``(value, how many more)``), and the sizes of groups of values not there yet (each a
    different value), largest first."""

    grow: tuple[tuple[int, int], ...]
    new: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GoalNeed:
    """Where a goal stands for colours or for patterns: ``met`` / ``failed`` once surrounded;
    before that ``open`` (with every :class:`Way` still possible) or ``impossible``."""

    state: GoalState
    placed: int  # neighbours with a tile
    ways: tuple[Way, ...] = ()


def need(values: Sequence[int], counts: Sequence[int], slots: int = 6) -> GoalNeed:
    """How the neighbour ``values`` (colours or patterns of the placed neighbours, of
    ``slots``) can still form exactly the groups ``counts``.

    Each value already there must become one of the goal's groups, a different one per value,
    at least as big as it is now; the groups left over take values not there yet. Every such
    matching is a :class:`Way` (equal group sizes give the same way once).
    """
    return _need(tuple(sorted(values)), tuple(sorted(counts, reverse=True)), slots)


@lru_cache(maxsize=4096)
def _need(values: tuple[int, ...], parts: tuple[int, ...], slots: int) -> GoalNeed:
    # Cached: a description asks the same few questions several times (once per level of
    # detail), and the answer depends only on the multiset of values.
    have = sorted(Counter(values).items())
    if len(values) == slots:
        got = sorted((n for _, n in have), reverse=True)
        return GoalNeed("met" if got == list(parts) else "failed", len(values))
    ways: list[Way] = []

    def assign(k: int, left: Counter[int], grow: tuple[tuple[int, int], ...]) -> None:
        # Give value k a group size still left (each distinct size once: equal sizes would
        # give the same way), then the next value; what is left over goes to new values.
        if k == len(have):
            new = tuple(sorted(left.elements(), reverse=True))
            ways.append(Way(tuple(g for g in grow if g[1]), new))
            return
        value, n = have[k]
        for size in sorted(left):
            if left[size] and size >= n:
                left[size] -= 1
                assign(k + 1, left, (*grow, (value, size - n)))
                left[size] += 1

    assign(0, Counter(parts), ())
    # The ways that build most on what is already there first.
    ordered = sorted(set(ways), key=lambda w: (len(w.new), -sum(n for _, n in w.grow), w.grow))
    return GoalNeed("open" if ordered else "impossible", len(values), tuple(ordered))


def goal_needs(quilt: Sequence[int], spot: int, counts: Sequence[int]
               ) -> tuple[GoalNeed, GoalNeed]:
    """(colours, patterns) of the goal on ``spot`` of ``quilt`` (tile codes, EMPTY, GOAL)."""
    tiles = [quilt[n] for n in NEIGHBOURS[spot]]
    filled = [t for t in tiles if t >= 0]
    return (need([t // 6 for t in filled], counts, len(tiles)),
            need([t % 6 for t in filled], counts, len(tiles)))


def _way_text(tr: Text, config: GameConfig, way: Way, by_color: bool) -> str:
    name = _color if by_color else _pattern
    parts = [tr("alt.need.grow", value=name(tr, config, v), count=n) for v, n in way.grow]
    key = "alt.need.new.colors" if by_color else "alt.need.new.patterns"
    for size, n in sorted(Counter(way.new).items(), reverse=True):
        parts.append(tr(key, count=n, size=size))
    # "a, b and c": the "or" between two ways then reads unambiguously.
    if len(parts) < 2:
        return _join(parts)
    return f"{_join(parts[:-1])} {tr('alt.and')} {parts[-1]}"


def _need_text(tr: Text, config: GameConfig, need_: GoalNeed, by_color: bool) -> str:
    """``by colours needs green +1 and 1 new colour ×1`` (or no longer possible)."""
    by = tr("alt.by.colors" if by_color else "alt.by.patterns")
    if need_.state != "open":
        return tr("alt.goal.impossible", by=by)
    shown = [_way_text(tr, config, w, by_color) for w in need_.ways[:MAX_WAYS]]
    ways = f" {tr('alt.or')} ".join(shown)
    more = len(need_.ways) - len(shown)
    if more:
        ways += " " + tr("alt.need.more_ways", count=more)
    return tr("alt.goal.needs", by=by, ways=ways)


def _goal_status(tr: Text, seat: SeatView, config: GameConfig, index: int,
                 quilt: Sequence[int] | None = None, *, detail: bool = True) -> str:
    """Where the goal on spot ``index`` stands: once surrounded, how it is met and what it
    scores; before that, what it still needs by colours and by patterns (without ``detail``,
    only whether each is still possible). ``quilt`` replaces the seat's (a previewed tile)."""
    assert seat.goals is not None
    spot = config.goal_spots[index]
    rule = config.goal(seat.goals[index])
    q = seat.quilt if quilt is None else quilt
    by_color, by_pattern = goal_needs(q, spot, rule.counts)
    if by_color.placed == 0:
        return tr("alt.goal.untouched")
    if by_color.state in ("met", "failed"):
        which = _which(by_color.state == "met", by_pattern.state == "met")
        points = _goal_points(rule.one_way, rule.both_ways, which, config)
        text = tr(f"alt.goal.done.{which}")
        return text + "; " + (tr("alt.goal.scores", count=points) if points
                              else tr("alt.goal.scores_nothing"))
    if not detail:
        return tr(f"alt.goal.can.{_which(by_color.state == 'open', by_pattern.state == 'open')}")
    return "; ".join((_need_text(tr, config, by_color, True),
                      _need_text(tr, config, by_pattern, False)))


def _which(colors: bool, patterns: bool) -> str:
    return "both" if colors and patterns else "colors" if colors else (
        "patterns" if patterns else "none")


def _goal_points(one_way: int, both_ways: int, which: str, config: GameConfig) -> int:
    """What a surrounded goal scores (the engine's rule, restated so a previewed quilt can be
    scored too): both ways its higher value, one way its lower one unless the game only counts
    goals met both ways."""
    if which == "both":
        return both_ways
    if which == "none" or config.restriction is Restriction.BOTH_WAYS:
        return 0
    return one_way


def _goal_lines(tr: Text, seat: SeatView, config: GameConfig, *, detail: bool,
                values: bool) -> list[str]:
    """One line per design goal: what it is and where it stands."""
    if seat.goals is None:
        return []
    lines = []
    for i, spot in enumerate(config.goal_spots):
        gid = seat.goals[i]
        head = f"{cell_name(spot)} {p.goal_name(gid)}"
        if values:
            rule = config.goal(gid)
            head = tr("alt.goal.head", spot=cell_name(spot), goal=_goal_label(tr, gid),
                      one_way=rule.one_way, both_ways=rule.both_ways)
        status = _goal_status(tr, seat, config, i, detail=detail)
        if values:
            empty = [cell_name(n) for n in NEIGHBOURS[spot] if seat.quilt[n] == EMPTY]
            if empty and len(empty) < len(NEIGHBOURS[spot]):
                status += "; " + tr("alt.goal.empty_around", cells=_join(empty))
        lines.append(tr("alt.goal.line", goal=head, status=status))
    return lines


# --------------------------------------------------------------------------- the quilt


def _tokens(seat: SeatView, config: GameConfig) -> dict[int, list[tuple[str, str]]]:
    """Tokens by cell: ``("cat", cat id)``, ``("button", colour id)``, ``("rainbow", "")``."""
    out: dict[int, list[tuple[str, str]]] = {}
    for cell, ci in seat.cats:
        out.setdefault(cell, []).append(("cat", config.cats[ci].id))
    for cell, color in seat.buttons:
        out.setdefault(cell, []).append(("button", config.colors[color]))
    if seat.rainbow is not None:
        out.setdefault(seat.rainbow, []).append(("rainbow", ""))
    return out


def _token_words(tr: Text, tokens: Sequence[tuple[str, str]], *, colors: bool = True
                 ) -> list[str]:
    """Each token in words. A button always has the colour of the tile it sits on, so
    ``colors=False`` (said next to that tile) drops the colour."""
    words = []
    for kind, what in tokens:
        if kind == "cat":
            words.append(tr("alt.token.cat", cat=p.cat_name(what)))
        elif kind == "button":
            words.append(tr("alt.token.button", color=p.color_name(tr, what)) if colors
                         else tr("alt.token.button_plain"))
        else:
            words.append(tr("alt.token.rainbow"))
    return words


@dataclass(frozen=True, slots=True)
class _Marks:
    """What a picture adds on top of the quilt: the ring on the last tile, a see-through
    previewed tile."""

    highlight: int | None = None
    preview: tuple[int, int] | None = None  # (cell, tile)


@dataclass(frozen=True, slots=True)
class _Style:
    """How much a quilt's rows say: the long form says everything; the alt text drops detail
    step by step until it fits (see :func:`_quilt_forms`)."""

    border: bool = True  # the printed patches at the ends of the rows and the top and bottom
    every_cell: bool = True  # empty cells in their rows (else listed once, after the rows)
    goal_words: bool = True  # what a goal tile asks for, next to its symbol
    row_word: bool = True  # "Row A: A1 ..." rather than "A: A1 ..."
    cell_names: bool = True  # "A1 yellow dots" rather than the cells in order


LONG = _Style()
SHORT_STYLES = (
    _Style(every_cell=False, goal_words=False),
    _Style(border=False, every_cell=False, goal_words=False),
    _Style(border=False, every_cell=False, goal_words=False, row_word=False),
    _Style(border=False, goal_words=False, row_word=False, cell_names=False),
)


def _cell_text(tr: Text, seat: SeatView, config: GameConfig, cell: int,
               tokens: Mapping[int, Sequence[tuple[str, str]]], marks: _Marks,
               style: _Style) -> str:
    """What one inner cell shows: its tile (with tokens and marks), empty, or a goal tile."""
    t = seat.quilt[cell]
    if t == GOAL:
        if seat.goals is not None:
            gid = seat.goals[config.goal_spots.index(cell)]
            return tr("alt.cell.goal", goal=_goal_label(tr, gid) if style.goal_words
                      else p.goal_name(gid))
        return tr("alt.cell.goal_open" if seat.drafting else "alt.cell.goal_down")
    if t == EMPTY:
        if marks.preview is not None and marks.preview[0] == cell:
            return tr("alt.cell.preview", tile=_tile(tr, config, marks.preview[1]))
        return tr("alt.cell.empty")
    words = _token_words(tr, tokens.get(cell, ()), colors=False)
    if marks.highlight == cell:
        words.append(tr("alt.token.last"))
    name = _tile(tr, config, t)
    return tr("alt.cell.tokens", tile=name, tokens=_join(words)) if words else name


def _head(tr: Text, seat: SeatView, name: str | None, *, brief: bool = False) -> str:
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
    return _join(_tile(tr, config, quilt[c]) for c in cells if quilt[c] >= 0)


def _rows(tr: Text, seat: SeatView, config: GameConfig, marks: _Marks, style: _Style
          ) -> list[str]:
    """The quilt row by row, A to E, as much as ``style`` says."""
    tokens = _tokens(seat, config)
    q = seat.quilt
    lines = []
    if style.border:
        lines.append(tr("alt.edge.top", tiles=_edge(tr, config, q, range(SIZE))))
    empty: list[str] = []
    for r, letter in enumerate(ROWS, start=1):
        cells = []
        if style.border and q[cell_of(r, 0)] >= 0:
            cells.append(tr("alt.edge.left", tile=_tile(tr, config, q[cell_of(r, 0)])))
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
            cells.append(tr("alt.edge.right", tile=_tile(tr, config, q[cell_of(r, SIZE - 1)])))
        if not cells:
            continue  # a row with only empty cells: they are listed after the rows
        row = "; ".join(cells)
        lines.append(tr("alt.row", row=letter, cells=row) if style.row_word
                     else f"{letter}: {row}")
    if style.border:
        lines.append(tr("alt.edge.bottom",
                        tiles=_edge(tr, config, q, range(cell_of(SIZE - 1, 0), len(q)))))
    if empty:
        lines.append(tr("alt.empty_cells", cells=_join(empty)))
    return lines


def _quilt_forms(tr: Text, seat: SeatView, config: GameConfig, name: str | None,
                 marks: _Marks) -> tuple[list[list[str]], list[str]]:
    """(short candidates, most detailed first; the long form's lines) for one quilt."""
    head = _head(tr, seat, name)
    long_head = head
    last = marks.highlight
    if last is not None and last in INNER and seat.quilt[last] >= 0:
        # The alt text marks the cell in its row only; the long form also says it up front.
        long_head += " " + tr("alt.quilt.last", cell=cell_name(last))
    long = [long_head, tr("alt.quilt.layout"), *_rows(tr, seat, config, marks, LONG),
            *_goal_lines(tr, seat, config, detail=True, values=True)]
    short = []
    for style in SHORT_STYLES:
        rows = _rows(tr, seat, config, marks, style)
        # What goals still need is worth more than the border, less than the tiles: the
        # first style keeps both, then each style is tried with needs, then without.
        short.append([head, *rows, *_goal_lines(tr, seat, config, detail=True, values=False)])
        if not style.border:
            short.append([head, *rows,
                          *_goal_lines(tr, seat, config, detail=False, values=False)])
    # Last resort before clipping: the header without its breakdown of points.
    short.append([_head(tr, seat, name, brief=True), *short[-1][1:]])
    return short, long


def _short(candidates: Iterable[Sequence[str]]) -> str:
    """The alt text: lines run together as sentences (a screen reader reads alt text as one
    paragraph), the most detailed candidate that fits."""
    return first_fitting(" ".join(_sentence(x) for x in lines if x) for lines in candidates)


def _long(lines: Iterable[str]) -> str:
    return "\n".join(_sentence(x) for x in lines if x)


def quilt(tr: Text, seat: SeatView, config: GameConfig, name: str | None = None, *,
          highlight: int | None = None) -> Description:
    """One quilt (the thread's picture after a move, ``/calico board``): the header (name,
    tiles placed, score), every row with each cell's colour and pattern, empty or goal tile,
    the tokens on their cells, the ring on ``highlight``, and per design goal what it still
    needs by colours and by patterns (or met / failed)."""
    short, long = _quilt_forms(tr, seat, config, name, _Marks(highlight=highlight))
    return Description(_short(short), _long(long))


# --------------------------------------------------------------------------- the turn


def _gains(tr: Text, events: Sequence[Event]) -> list[str]:
    out = []
    for ev in events:
        if isinstance(ev, ButtonSewn):
            out.append(tr("alt.gain.button", color=p.color_name(tr, ev.color)))
        elif isinstance(ev, CatAttracted):
            out.append(tr("alt.gain.cat", cat=p.cat_name(ev.cat), points=ev.points,
                          count=ev.points))
        elif isinstance(ev, RainbowSewn):
            out.append(tr("alt.gain.rainbow"))
    return out


def _preview_lines(tr: Text, seat: SeatView, config: GameConfig, cell: int, tile: int,
                   events: Sequence[Event], *, goals: bool) -> list[str]:
    """The previewed placement, what it would earn and (with ``goals``) where each goal it
    touches would stand with it."""
    gains = _gains(tr, events)
    where = {"tile": _tile(tr, config, tile), "cell": cell_name(cell)}
    lines = [tr("alt.preview", gains=_join(gains), **where) if gains
             else tr("alt.preview.nothing", **where)]
    if goals and seat.goals is not None:
        after = list(seat.quilt)
        after[cell] = tile
        for i, spot in enumerate(config.goal_spots):
            if cell in NEIGHBOURS[spot]:
                status = _goal_status(tr, seat, config, i, after)
                lines.append(tr("alt.preview.goal", spot=cell_name(spot),
                                goal=p.goal_name(seat.goals[i]), status=status))
    return lines


def _hand_market(tr: Text, view: PrivateView, selected: int | None
                 ) -> tuple[list[str], str, list[str]]:
    """(the hand, numbered as the buttons number it; the market in slot order; notes: the
    last-turn note and the bag)."""
    cfg = view.public.config
    hand = []
    if view.hand:
        tiles = []
        for k, t in enumerate(view.hand):
            tile = _tile(tr, cfg, t)
            if k == selected:
                tile += f" ({tr('alt.selected')})"
            tiles.append(f"{k + 1} {tile}")
        hand.append(tr("alt.hand", tiles=_join(tiles)))
    seat = view.public.seats[view.seat]
    market = tr("alt.market", tiles=_join(f"{k + 1} {_tile(tr, cfg, t)}"
                                          for k, t in enumerate(view.public.market)))
    notes = []
    if view.hand and len(seat.placed) == TURNS_PER_PLAYER - 1:
        notes.append(tr("alt.market.last"))
    notes.append(tr("status.bag", count=view.public.bag_count))
    return hand, market, notes


def turn(tr: Text, view: PrivateView, *, name: str | None = None,
         preview: tuple[int, int, Sequence[Event]] | None = None,
         legal: Collection[int] | None = None, selected: int | None = None) -> Description:
    """The turn picture in a player's DM: the previewed placement and what it would earn
    (``preview`` = cell, tile, the engine's preview events), the hand (``selected`` marked),
    the market in slot order and the bag, the player's quilt, and the cells where the tile may
    go (``legal``)."""
    pub = view.public
    seat = pub.seats[view.seat]
    cfg = pub.config
    marks = _Marks(preview=None if preview is None else (preview[0], preview[1]))
    short_q, long_q = _quilt_forms(tr, seat, cfg, name, marks)
    top_long: list[str] = []
    top_short: list[str] = []
    if preview is not None:
        top_long = _preview_lines(tr, seat, cfg, preview[0], preview[1], preview[2],
                                  goals=True)
        top_short = _preview_lines(tr, seat, cfg, preview[0], preview[1], preview[2],
                                   goals=False)
    hand, market, notes = _hand_market(tr, view, selected)
    strip = [*hand, market, *notes]
    legal_line = [tr("alt.legal", cells=_join(sorted(cell_name(c) for c in legal)))] if legal \
        else []
    long = [*top_long, *strip, *long_q, *legal_line]
    # The preview, hand and market come first in every short form: they are what the player
    # acts on. At each of the quilt's levels of detail, the legal cells (also in the menus) go
    # first, then what the preview would do to the goals around it.
    short = []
    for lines in short_q:
        short += [[*top_long, *strip, *lines, *legal_line], [*top_long, *strip, *lines],
                  [*top_short, *strip, *lines]]
    # Last resort for a crowded quilt: the DM's own text already states the hand and the
    # preview, so the alt text keeps only what the picture alone shows (market and quilt).
    short += [[market, *lines] for lines in short_q[-2:]]
    return Description(_short(short), _long(long))


# --------------------------------------------------------------------------- the table


def _cat_lines(tr: Text, config: GameConfig) -> list[str]:
    lines = []
    for cat in config.cats:
        pats = _join(_pattern(tr, config, k) for k in cat.patterns)
        lines.append(tr("alt.cat", cat=p.cat_name(cat.id), points=cat.points, count=cat.points,
                        wants=tr(f"cat.wants.{cat.id}"), patterns=pats))
    return lines


def _turn_line(tr: Text, view: PublicView, names: Sequence[str]) -> str:
    if view.phase is Phase.DRAFT:
        return tr("status.draft")
    if view.phase is Phase.OVER or view.current_seat is None:
        return tr("status.over")
    seat = view.seats[view.current_seat]
    return tr("alt.table.turn", name=_player(names, view.current_seat),
              number=min(len(seat.placed) + 1, TURNS_PER_PLAYER), turns=TURNS_PER_PLAYER)


def _player(names: Sequence[str], seat: int) -> str:
    """The seat's display name, or P1, P2... as the pictures write it when none is given."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"P{seat + 1}"


def _market_line(tr: Text, view: PublicView) -> list[str]:
    market = _join(f"{k + 1} {_tile(tr, view.config, t)}" for k, t in enumerate(view.market))
    return [tr("alt.market", tiles=market), tr("status.bag", count=view.bag_count)]


def _seat_tokens(tr: Text, seat: SeatView, config: GameConfig) -> str:
    """``cat Millie on C3, yellow button on B4``: a quilt's tokens without its tiles."""
    words = []
    for cell, toks in sorted(_tokens(seat, config).items(), key=lambda kv: cell_name(kv[0])):
        for w in _token_words(tr, toks):
            words.append(tr("alt.on", what=w, cell=cell_name(cell)))
    return _join(words)


def table(tr: Text, view: PublicView, names: Sequence[str]) -> Description:
    """The public table: whose turn, the three cats (points, need, patterns), the market and
    the bag, and every quilt (its score so far; rows and goals in the long form)."""
    cfg = view.config
    top = [_turn_line(tr, view, names), *_cat_lines(tr, cfg), *_market_line(tr, view)]
    long = list(top)
    heads = []
    with_tokens = []
    for seat in view.seats:
        last = seat.placed[-1] if seat.placed else None
        name = _player(names, seat.seat)
        head = _head(tr, seat, name)
        heads.append(head)
        toks = _seat_tokens(tr, seat, cfg)
        with_tokens.append(head + (" " + tr("alt.tokens", tokens=toks) if toks else ""))
        marks = _Marks(highlight=last)
        long.append("")
        if last is not None:
            head += " " + tr("alt.quilt.last", cell=cell_name(last))
        long += [head, *_rows(tr, seat, cfg, marks, SHORT_STYLES[1]),
                 *_goal_lines(tr, seat, cfg, detail=True, values=False)]
    short = [[*top, *with_tokens], [*top, *heads],
             [_turn_line(tr, view, names), *_market_line(tr, view), *heads]]
    return Description(_short(short), _long_blocks(long))


def _long_blocks(lines: Sequence[str]) -> str:
    """Lines with an empty string marking a break between blocks (one per player)."""
    out: list[str] = []
    for line in lines:
        out.append(_sentence(line) if line else "")
    return "\n".join(out).strip("\n")


# --------------------------------------------------------------------------- score sheet


def _goal_scores(tr: Text, score: Mapping[str, Any]) -> str:
    parts = []
    for g in score.get("goals", []):
        if g.get("goal") is None:
            continue
        if g.get("colors") and g.get("patterns"):
            how = tr("render.both_ways")
        elif g.get("colors") or g.get("patterns"):
            how = tr("render.one_way")
        else:
            how = tr("alt.score.goal_missed")
        parts.append(tr("alt.score.goal", spot=g.get("spot", "?"),
                        goal=p.goal_name(g.get("goal")), how=how, count=g.get("points", 0)))
    return _join(parts)


def scoresheet(tr: Text, view: PublicView, names: Sequence[str],
               scenario: ScenarioResult | None = None) -> Description:
    """The final score sheet, best first: every number on it (place, goals with how each was
    met, cat points and tokens, button points and buttons, total), the Master Quilter, the
    tie-break and, for a solo scenario, each target's reached / needed."""
    scores: list[dict[str, Any]] = [dict(s.score) for s in view.seats]
    places, winners, decided = rank(scores)
    order = sorted(range(len(scores)), key=lambda i: (places[i], i))
    detailed, plain = [], []
    for i in order:
        s = scores[i]
        name = _player(names, i)
        if i in winners:
            name += f" ({tr('term.master_quilter')})"
        line = tr("alt.score.line", place=places[i], name=name, total=s.get("total", 0),
                  goals=s.get("goal_points", 0), cats=s.get("cat_points", 0),
                  cat_tokens=s.get("cat_tokens", 0), buttons=s.get("button_points", 0),
                  button_tokens=s.get("button_tokens", 0))
        plain.append(line)
        goals = _goal_scores(tr, s)
        detailed.append(_sentence(line) + (" " + tr("alt.score.goals", goals=goals)
                                           if goals else ""))
    title = tr("render.final_scores")
    tail: list[str] = []
    if len(scores) > 1 and decided != "score":
        tail.append(tr(f"render.tiebreak_{decided}"))
    if scenario is not None:
        verdict = tr("render.scenario_passed" if scenario.passed else "render.scenario_failed")
        tail.append(f"{tr('render.scenario')} {scenario.number}: {verdict}")
        for cond, needed, reached, met in scenario.conditions:
            tail.append(tr("alt.score.condition", name=tr(f"render.cond_{cond}"),
                           reached=reached, needed=needed,
                           verdict=tr("alt.score.cond_met" if met else "alt.score.cond_missed")))
    long = [title, *detailed, *tail]
    short = [long, [title, *plain, *tail]]
    return Description(_short(short), _long(long))


# --------------------------------------------------------------------------- goal draft


def draft(tr: Text, offer: Sequence[str], config: GameConfig,
          goals: tuple[str, str, str] | None = None) -> Description:
    """The goal draft: the goal tiles offered, numbered as the buttons number them, each with
    what it asks for and its values; with ``goals`` (an arrangement being confirmed) the board
    with them on B3, C4 and D2 and what is left out."""
    lines = [tr("render.choose_goals")]
    for k, gid in enumerate(offer):
        rule = config.goal(gid)
        lines.append(tr("alt.draft.offer", number=k + 1, goal=_goal_label(tr, gid),
                        one_way=rule.one_way, both_ways=rule.both_ways))
    if goals is not None:
        spots = [cell_name(c) for c in config.goal_spots]
        lines.append(tr("alt.draft.board", goals=_join(
            f"{s} {p.goal_name(g)}" for s, g in zip(spots, goals, strict=True))))
        rest = [p.goal_name(g) for g in offer if g not in goals]
        if rest:
            lines.append(tr("draft.left_out", goal=_join(rest)))
    else:
        lines.append(tr("alt.draft.spots"))
    return Description(_short([lines]), _long(lines))


# --------------------------------------------------------------------------- rules


def rules(tr: Text, topic: str) -> Description:
    """The ``/calico rules`` picture of ``topic`` (one of :data:`RULES_PICTURE_TOPICS`): the
    ten cats with points and needs, the six design goals with their values, or buttons and
    the rainbow button."""
    catalog = load_catalog()
    if topic == "cats":
        cats = sorted(catalog.cats.values(), key=lambda c: (c.points, c.need != "size"))
        lines = [tr("render.rules_cats"),
                 *(tr("alt.rules.cat", cat=p.cat_name(c.id), points=c.points, count=c.points,
                      wants=tr(f"cat.wants.{c.id}")) for c in cats),
                 tr("render.cats_note")]
    elif topic == "goals":
        lines = [tr("render.rules_goals"),
                 *(tr("alt.draft.offer", number=k + 1, goal=_goal_label(tr, g.id),
                      one_way=g.one_way, both_ways=g.both_ways)
                   for k, g in enumerate(catalog.goals.values())),
                 tr("render.goals_note")]
    elif topic == "buttons":
        lines = [tr("render.rules_buttons"),
                 tr("alt.rules.points", what=tr("render.button_group"), count=3),
                 tr("alt.rules.points", what=tr("render.button_rainbow"), count=3)]
    else:
        raise ValueError(f"no rules picture for {topic!r}")
    return Description(_short([lines]), _long(lines))
