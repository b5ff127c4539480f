"""What happened, told: a turn's narration, what a placement earns (and would earn in a
preview), the winner with the tie-break, the standings and a solo scenario's result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.words import markup
from bot.words.catalogue import Text
from bot.words.terms import cat_name, color_name, pattern_name, tile_name
from engine.events import (
    ButtonSewn,
    CatAttracted,
    Event,
    GameOver,
    GameStarted,
    GoalsChosen,
    MarketDiscarded,
    MarketRefilled,
    RainbowSewn,
    ScenarioResult,
    TilePlaced,
    TileTaken,
)


def gain_lines(tr: Text, events: Sequence[Event]) -> list[str]:
    """What a placement earned (buttons, cats, rainbow), one short line each."""
    lines: list[str] = []
    for ev in events:
        if isinstance(ev, ButtonSewn):
            lines.append(tr("gain.button", color=color_name(tr, ev.color), size=len(ev.group)))
        elif isinstance(ev, CatAttracted):
            lines.append(tr("gain.cat", cat=cat_name(ev.cat), pattern=pattern_name(tr, ev.pattern),
                            points=ev.points, count=ev.points))
        elif isinstance(ev, RainbowSewn):
            lines.append(tr("gain.rainbow"))
    return lines


def gain_short(tr: Text, events: Sequence[Event]) -> str:
    """A compact form of :func:`gain_lines` for a select option's description."""
    parts: list[str] = []
    for ev in events:
        if isinstance(ev, ButtonSewn):
            parts.append(tr("gain.short.button", color=color_name(tr, ev.color)))
        elif isinstance(ev, CatAttracted):
            parts.append(tr("gain.short.cat", cat=cat_name(ev.cat), points=ev.points))
        elif isinstance(ev, RainbowSewn):
            parts.append(tr("gain.short.rainbow"))
    return " · ".join(parts)


def preview_text(tr: Text, tile: str, cell: str, events: Sequence[Event]) -> str:
    """The DM line under a previewed placement: what it would earn."""
    gains = gain_lines(tr, events)
    head = tr("preview.head", tile=tile, cell=cell)
    if not gains:
        return head + "\n" + tr("preview.nothing")
    return head + "\n" + "\n".join(f"• {g}" for g in gains)


def narrate_turn(
    tr: Text, name: str | None, events: Sequence[Event], *, autoplayed: bool = False
) -> str:
    """The thread's friendly account of one turn (placement, tokens, market), in a few lines.
    ``name`` None: told to the player who played it ("you sewed...", "your quilt...")."""
    placed = next((e for e in events if isinstance(e, TilePlaced)), None)
    taken = next((e for e in events if isinstance(e, TileTaken)), None)
    you = "_you" if name is None else ""
    who = {} if name is None else {"name": markup.name(name)}
    lines: list[str] = []
    if any(isinstance(e, GoalsChosen) for e in events):
        lines.append(tr(f"narrate.goals{you}", **who))
    if any(isinstance(e, GameStarted) for e in events):
        lines.append(tr("narrate.all_goals"))
    if placed is not None:
        tile = tile_name(tr, placed.color, placed.pattern)
        if taken is not None:
            lines.append(tr(f"narrate.place_take{you}", **who, tile=tile, cell=placed.cell,
                            taken=tile_name(tr, taken.color, taken.pattern)))
        else:
            lines.append(tr(f"narrate.place{you}", **who, tile=tile, cell=placed.cell))
        if placed.number >= 22:
            lines.append(tr(f"narrate.quilt_done{you}", **who))
    for gain in gain_lines(tr, events):
        lines.append(gain)
    discarded = [e for e in events if isinstance(e, MarketDiscarded)]
    for d in discarded:
        lines.append(tr("narrate.discard", tile=tile_name(tr, d.color, d.pattern)))
    refills = [e for e in events if isinstance(e, MarketRefilled)]
    new = [tile_name(tr, e.color, e.pattern) for e in refills if e.color and e.pattern]
    if new:
        lines.append(tr("narrate.refill", tiles=", ".join(new), count=len(new)))
    elif refills:
        lines.append(tr("narrate.bag_empty"))
    if autoplayed and name is not None:
        lines.append(tr("narrate.autoplayed", **who))
    return "\n".join(lines)


def winner_text(tr: Text, names: Sequence[str], over: GameOver) -> str:
    """The winner (the Master Quilter), with the tie-break that decided it."""
    winners = [names[i] for i in over.winners]
    top = over.totals[over.winners[0]] if over.winners else 0
    if len(names) == 1:
        return tr("over.solo", name=markup.name(names[0]), points=top, count=top)
    if len(winners) > 1:
        shared = ", ".join(f"**{markup.name(w)}**" for w in winners)
        return tr("over.shared", names=shared, points=top, count=top)
    text = tr("over.winner", name=markup.name(winners[0]), points=top, count=top)
    if over.decided_by == "cats":
        text += "\n" + tr("over.tiebreak.cats")
    elif over.decided_by == "buttons":
        text += "\n" + tr("over.tiebreak.buttons")
    return text


def standings(tr: Text, names: Sequence[str], over: GameOver) -> str:
    order = sorted(range(len(names)), key=lambda i: (over.places[i], i))
    lines = []
    for i in order:
        sc: Mapping[str, Any] = over.scores[i] if i < len(over.scores) else {}
        lines.append(tr("over.line", place=over.places[i], name=markup.name(names[i]),
                        total=over.totals[i],
                        cats=sc.get("cat_points", 0), buttons=sc.get("button_points", 0),
                        goals=sc.get("goal_points", 0)))
    return "\n".join(lines)


def scenario_text(tr: Text, result: ScenarioResult) -> str:
    head = tr("scenario.passed" if result.passed else "scenario.failed", number=result.number)
    lines = [head]
    for name, needed, reached, met in result.conditions:
        mark = "✅" if met else "❌"
        lines.append(f"{mark} " + tr(f"scenario.need.{name}", needed=needed, reached=reached,
                                      count=needed))
    return "\n".join(lines)


def game_over_text(tr: Text, names: Sequence[str], events: Sequence[Event]) -> str:
    """The closing post: winner, tie-break, standings, solo scenario result."""
    over = next((e for e in events if isinstance(e, GameOver)), None)
    if over is None:
        return tr("over.title")
    parts = [tr("over.title"), winner_text(tr, names, over)]
    if len(names) > 1:
        parts.append(standings(tr, names, over))
    else:
        sc = over.scores[0] if over.scores else {}
        parts.append(tr("over.solo_breakdown", cats=sc.get("cat_points", 0),
                        buttons=sc.get("button_points", 0), goals=sc.get("goal_points", 0)))
    for ev in events:
        if isinstance(ev, ScenarioResult):
            parts.append(scenario_text(tr, ev))
    return "\n\n".join(parts)


def score_line(tr: Text, name: str, score: Mapping[str, Any]) -> str:
    return tr("score.line", name=markup.name(name), total=score.get("total", 0),
              cats=score.get("cat_points", 0), buttons=score.get("button_points", 0),
              goals=score.get("goal_points", 0))
