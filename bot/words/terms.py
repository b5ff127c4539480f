"""The game's terms in the reader's language: colours, patterns, tiles, goals, cats, cells,
computer levels and seat names, and the labels of the goal draft's arrangements.

Every other words module names things through these, so a tile or a seat reads the same in a
thread post, a DM, a button and an alt text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.core.models import GameInfo, SeatInfo
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.catalogue import has as i18n_has
from bot.words.markup import mention
from engine.config import GameConfig
from engine.hexgrid import NEIGHBOURS, cell_name

GOAL_SYMBOLS: Mapping[str, str] = {
    "all-different": "≠",
    "aaa-bbb": "AAA-BBB",
    "aa-bb-cc": "AA-BB-CC",
    "aaaa-bb": "AAAA-BB",
    "aaa-bb-c": "AAA-BB-C",
    "aa-bb-c-d": "AA-BB-C-D",
}


GOAL_SPOT_NAMES = ("B3", "C4", "D2")


CAT_NAMES: Mapping[str, str] = {
    "millie": "Millie", "tibbit": "Tibbit", "coconut": "Coconut", "cira": "Cira",
    "gwenivere": "Gwenivere", "callie": "Callie", "rumi": "Rumi", "tecolote": "Tecolote",
    "almond": "Almond", "leo": "Leo",
}


def color_name(tr: Text, color: str) -> str:
    return tr(f"color.{color}")


def pattern_name(tr: Text, pattern: str) -> str:
    return tr(f"pattern.{pattern}")


def tile_name(tr: Text, color: str, pattern: str) -> str:
    return tr("tile", color=color_name(tr, color), pattern=pattern_name(tr, pattern))


def tile_code_name(tr: Text, config: GameConfig, code: int | None) -> str:
    """The name of a tile code (``color * 6 + pattern``); an empty slot reads as such."""
    if code is None or code < 0:
        return tr("tile.none")
    return tile_name(tr, config.colors[code // 6], config.patterns[code % 6])


def goal_name(goal: str | None) -> str:
    return GOAL_SYMBOLS.get(goal or "", goal or "?")


def cat_name(cat: str) -> str:
    return CAT_NAMES.get(cat, cat.title())


def cat_summary(tr: Text, config: GameConfig) -> str:
    """One line per cat in play: its points, what it wants and its two patterns."""
    lines = []
    for cat in config.cats:
        pats = " / ".join(pattern_name(tr, config.patterns[p]) for p in cat.patterns)
        lines.append(tr("cat.line", cat=cat_name(cat.id), points=cat.points,
                        wants=tr(f"cat.wants.{cat.id}"), patterns=pats))
    return "\n".join(lines)


def cell_hint(tr: Text, config: GameConfig, goals: Sequence[str] | None, cell: int) -> str:
    """"next to ≠ (B3)" for a cell that touches design goal spots, else ""."""
    near = []
    for i, spot in enumerate(config.goal_spots):
        if cell in NEIGHBOURS[spot]:
            goal = goal_name(goals[i]) if goals else "?"
            near.append(f"{goal} ({GOAL_SPOT_NAMES[i]})")
    return tr("cell.near", goals=", ".join(near)) if near else ""


def draft_arrangements(offer: Sequence[str]) -> list[tuple[int, int, int]]:
    """Every way to keep three goals of the offer and place them on B3, C4, D2 (≤ 24)."""
    n = len(offer)
    out = []
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if len({a, b, c}) == 3:
                    out.append((a, b, c))
    return out


def arrangement_label(tr: Text, offer: Sequence[str], order: Sequence[int]) -> str:
    return tr("draft.option", b3=goal_name(offer[order[0]]), c4=goal_name(offer[order[1]]),
              d2=goal_name(offer[order[2]]))


def arrangement_left_out(tr: Text, offer: Sequence[str], order: Sequence[int]) -> str:
    rest = [goal_name(g) for i, g in enumerate(offer) if i not in order]
    return tr("draft.left_out", goal=", ".join(rest)) if rest else ""


def cell_name_safe(cell: int) -> str:
    try:
        return cell_name(cell)
    except ValueError:
        return "?"


def level_name(tr: Text, level: str) -> str:
    key = f"level.{level}"
    return tr(key) if i18n_has(key) else level


def seat_name(tr: Text | None, seat: SeatInfo) -> str:
    """A seat's name in the reader's language: a person's own name; a computer's, with its
    level, from the catalogue (the stored name is English); and a seat a computer took over
    from a person (they left, or their time ran out) names both, so that results never credit
    the person with the computer's turns."""
    if seat.ai_level is None:
        return seat.name
    tr = tr or Text("en")
    computer = tr("names.computer", level=level_name(tr, seat.ai_level))
    if seat.user_id is not None or seat.left:
        return tr("names.took_over", computer=computer, name=seat.name)
    return computer


def seat_names(game: GameInfo, tr: Text | None = None) -> list[str]:
    """Display names by seat (a computer seat says so: see :func:`seat_name`)."""
    return [seat_name(tr, s) for s in game.seats]


def who(seat: SeatInfo, tr: Text | None = None) -> str:
    """A mention for a person, the name for a computer."""
    if seat.user_id is not None and seat.ai_level is None:
        return mention(seat.user_id)
    return f"🤖 {markup.name(seat_name(tr, seat))}"
