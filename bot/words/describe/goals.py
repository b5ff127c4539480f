"""What the design goals still need, in words: met, failed, or the ways still open.

Goal needs are worked out here from the six neighbours (the renderer's green / faint / red hints
say the same as met / open / failed). Also the names of colours, patterns, tiles and goal tiles
as the descriptions write them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

from bot.words import terms
from bot.words.catalogue import Text
from bot.words.describe.fit import join
from engine.config import GameConfig, Restriction
from engine.hexgrid import NEIGHBOURS, cell_name
from engine.progress import goal_progress
from engine.tiles import EMPTY
from engine.views import SeatView

# How many ways of meeting a goal are spelled out before "or N other ways".
MAX_WAYS: Final = 2


def color_of(tr: Text, config: GameConfig, index: int) -> str:
    return terms.color_name(tr, config.colors[index])


def pattern_of(tr: Text, config: GameConfig, index: int) -> str:
    return terms.pattern_name(tr, config.patterns[index])


def tile_of(tr: Text, config: GameConfig, code: int | None) -> str:
    return terms.tile_code_name(tr, config, code)


def goal_label(tr: Text, goal_id: str) -> str:
    """``≠ (six different)``: the symbol printed on the tile and what it asks for."""
    return f"{terms.goal_name(goal_id)} ({tr(f'goal.{goal_id}')})"



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
    name = color_of if by_color else pattern_of
    parts = [tr("alt.need.grow", value=name(tr, config, v), count=n) for v, n in way.grow]
    key = "alt.need.new.colors" if by_color else "alt.need.new.patterns"
    for size, n in sorted(Counter(way.new).items(), reverse=True):
        parts.append(tr(key, count=n, size=size))
    # "a, b and c": the "or" between two ways then reads unambiguously.
    if len(parts) < 2:
        return join(parts)
    return f"{join(parts[:-1])} {tr('alt.and')} {parts[-1]}"


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


def goal_status(tr: Text, seat: SeatView, config: GameConfig, index: int,
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
    # What it may still give (engine.progress: the same ruling the picture draws, counting
    # the tiles every player can see are gone): a way whose tiles are all gone is lost too.
    left = goal_progress(config, q, seat.goals, seat.elsewhere)[index]
    if left.colors == "failed":
        by_color = GoalNeed("impossible", by_color.placed)
    if left.patterns == "failed":
        by_pattern = GoalNeed("impossible", by_pattern.placed)
    if not detail:
        return tr(f"alt.goal.can.{_which(by_color.state == 'open', by_pattern.state == 'open')}")
    worth = [tr("alt.goal.up_to", count=left.points)] if left.state == "open" else []
    return "; ".join((_need_text(tr, config, by_color, True),
                      _need_text(tr, config, by_pattern, False), *worth))


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


def goal_lines(tr: Text, seat: SeatView, config: GameConfig, *, detail: bool,
                values: bool) -> list[str]:
    """One line per design goal: what it is and where it stands."""
    if seat.goals is None:
        return []
    lines = []
    for i, spot in enumerate(config.goal_spots):
        gid = seat.goals[i]
        head = f"{cell_name(spot)} {terms.goal_name(gid)}"
        if values:
            rule = config.goal(gid)
            head = tr("alt.goal.head", spot=cell_name(spot), goal=goal_label(tr, gid),
                      one_way=rule.one_way, both_ways=rule.both_ways)
        status = goal_status(tr, seat, config, i, detail=detail)
        if values:
            empty = [cell_name(n) for n in NEIGHBOURS[spot] if seat.quilt[n] == EMPTY]
            if empty and len(empty) < len(NEIGHBOURS[spot]):
                status += "; " + tr("alt.goal.empty_around", cells=join(empty))
        lines.append(tr("alt.goal.line", goal=head, status=status))
    return lines
