"""Scores: design goals, the per-quilt breakdown (the scorer contract's format), final ranking,
and solo scenario results.
"""

from __future__ import annotations

from typing import Any

from engine.config import GameConfig, GoalRule, Restriction
from engine.hexgrid import NEIGHBOURS, cell_name
from engine.state import SeatState

BUTTON_POINTS = 3


def goal_met(values: list[int], rule: GoalRule) -> bool:
    """The six values form exactly the goal's groups (4+2 does not meet 3+3)."""
    return tuple(sorted([values.count(v) for v in set(values)], reverse=True)) == rule.counts


def goal_result(
    config: GameConfig, quilt: tuple[int, ...], spot: int, goal_id: str
) -> tuple[bool, bool, int]:
    """(met by colours, met by patterns, points) of the goal on ``spot``; 0 while not surrounded."""
    tiles = [quilt[n] for n in NEIGHBOURS[spot]]
    if any(t < 0 for t in tiles):
        return False, False, 0
    rule = config.goal(goal_id)
    by_color = goal_met([t // 6 for t in tiles], rule)
    by_pattern = goal_met([t % 6 for t in tiles], rule)
    if by_color and by_pattern:
        points = rule.both_ways
    elif by_color or by_pattern:
        points = 0 if config.restriction is Restriction.BOTH_WAYS else rule.one_way
    else:
        points = 0
    return by_color, by_pattern, points


def breakdown(config: GameConfig, seat: SeatState) -> dict[str, Any]:
    """The score of one quilt as it stands, in the scorer contract's JSON shape."""
    cats: dict[str, dict[str, int]] = {}
    for i, cat in enumerate(config.cats):
        n = sum(1 for _, ci in seat.cats if ci == i)
        cats[cat.id] = {"tokens": n, "points": n * cat.points}
    buttons = dict.fromkeys(config.colors, 0)
    for _, color in seat.buttons:
        buttons[config.colors[color]] += 1
    rainbow = 1 if seat.rainbow is not None else 0
    goals: list[dict[str, Any]] = []
    for i, spot in enumerate(config.goal_spots):
        if seat.goals is None:
            goals.append({"goal": None, "spot": cell_name(spot), "colors": False,
                          "patterns": False, "points": 0})
            continue
        gid = seat.goals[i]
        by_color, by_pattern, points = goal_result(config, seat.quilt, spot, gid)
        goals.append({"goal": gid, "spot": cell_name(spot), "colors": by_color,
                      "patterns": by_pattern, "points": points})
    cat_points = sum(v["points"] for v in cats.values())
    button_points = BUTTON_POINTS * (len(seat.buttons) + rainbow)
    goal_points = sum(int(g["points"]) for g in goals)
    return {
        "cats": cats,
        "buttons": buttons,
        "rainbow": rainbow,
        "goals": goals,
        "cat_points": cat_points,
        "button_points": button_points,
        "goal_points": goal_points,
        "total": cat_points + button_points + goal_points,
        "cat_tokens": len(seat.cats),
        "button_tokens": len(seat.buttons) + rainbow,
    }


def rank(scores: list[dict[str, Any]]) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """Places, winners and what decided it: score, then cat tokens, then buttons, then shared."""
    keys = [(s["total"], s["cat_tokens"], s["button_tokens"]) for s in scores]
    places = tuple(1 + sum(1 for k in keys if k > mine) for mine in keys)
    winners = tuple(i for i, p in enumerate(places) if p == 1)
    decided = "shared"
    contenders = keys
    for level, name in enumerate(("score", "cats", "buttons")):
        best = max(k[level] for k in contenders)
        contenders = [k for k in contenders if k[level] == best]
        if len(contenders) == 1:
            decided = name
            break
    return places, winners, decided


def scenario_conditions(
    config: GameConfig, seat: SeatState, score: dict[str, Any]
) -> list[tuple[str, int, int, bool]]:
    """Each condition of the game's scenario: (name, needed, reached, met)."""
    sc = config.scenario
    if sc is None:
        return []
    goals = score["goals"]
    met = sum(1 for g in goals if g["colors"] or g["patterns"])
    both = sum(1 for g in goals if g["colors"] and g["patterns"])
    per_cat = [v["tokens"] for v in score["cats"].values()]
    per_color = list(score["buttons"].values())
    out: list[tuple[str, int, int, bool]] = []

    def need(name: str, needed: int, reached: int) -> None:
        out.append((name, needed, reached, reached >= needed))

    if sc.goals_met:
        need("goals_met", sc.goals_met, met)
    if sc.goals_both:
        need("goals_both", sc.goals_both, both)
    if sc.rainbow:
        need("rainbow", 1, score["rainbow"])
    if sc.cat_tokens:
        need("cat_tokens", sc.cat_tokens, sum(per_cat))
    if sc.each_cat:
        need("each_cat", len(per_cat), sum(1 for n in per_cat if n))
    if sc.same_cat:
        need("same_cat", sc.same_cat, max(per_cat))
    if sc.buttons_one_color:
        need("buttons_one_color", sc.buttons_one_color, max(per_color))
    need("score", sc.min_score, score["total"])
    return out
