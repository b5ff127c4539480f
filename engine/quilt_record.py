"""Quilt records (the scorer contract in ``design.md``): read, validate, score, and produce them.

A record names a board, the goals on B3/C4/D2, three cats with two patterns each, and the
placements in the order they were made; scoring replays the placements so tokens come out
exactly as they would have in play.
"""

from __future__ import annotations

from typing import Any

from data import Catalog
from engine.config import CatRule, GameConfig, GoalRule, Setup
from engine.errors import BadRecordError
from engine.hexgrid import CELL_BY_NAME, CELLS, cell_name, cell_of
from engine.scoring import breakdown
from engine.state import GameState, SeatState
from engine.tiles import EMPTY, GOAL, tile
from engine.tokens import earn_masks

MAX_COPIES = 3


_Tables = tuple[tuple[GoalRule, ...], tuple[int, int, int], dict[str, tuple[int, ...]]]
_TABLES: dict[int, tuple[Catalog, _Tables]] = {}


def _tables(catalog: Catalog) -> _Tables:
    """Goal rules, goal spots and empty quilts per board, built once per catalogue object."""
    hit = _TABLES.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1]
    goals = tuple(GoalRule(g.id, tuple(sorted(g.counts, reverse=True)), g.one_way, g.both_ways)
                  for g in catalog.goals.values())
    s = [cell_of(r, c) for r, c in catalog.goal_spots]
    spots = (s[0], s[1], s[2])
    colors, patterns = catalog.color_ids, catalog.pattern_ids
    quilts = {}
    for name, board in catalog.boards.items():
        q = [EMPTY] * CELLS
        for (r, c), p in board.border.items():
            q[cell_of(r, c)] = tile(colors.index(p.color), patterns.index(p.pattern))
        for cell in spots:
            q[cell] = GOAL
        quilts[name] = tuple(q)
    tables = (goals, spots, quilts)
    _TABLES[id(catalog)] = (catalog, tables)
    return tables


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise BadRecordError(message)


def _known(value: Any, table: dict[str, Any]) -> bool:
    """An id of ``table``; False (not TypeError) for a list or object where an id belongs."""
    return isinstance(value, str) and value in table


_CONFIGS: dict[tuple[Any, ...], tuple[Catalog, GameConfig]] = {}


def _config_key(rec: dict[str, Any]) -> tuple[Any, ...] | None:
    """A hashable key of what a record's config depends on, or None if it is oddly shaped."""
    try:
        cats = tuple((c["cat"], tuple(c["patterns"])) for c in rec["cats"])
        return (rec["board"], tuple(rec["goals"]), cats)
    except (TypeError, KeyError):
        return None


def _config(catalog: Catalog, rec: dict[str, Any]) -> GameConfig:
    """The record's config, built and validated once per distinct (board, goals, cats)."""
    _need(isinstance(rec, dict), "a quilt record must be a JSON object")
    for key in ("board", "goals", "cats", "placements"):
        _need(key in rec, f"missing key {key!r}")
    k = _config_key(rec)
    try:
        hit = _CONFIGS.get((id(catalog), k)) if k is not None else None
    except TypeError:  # an unhashable value somewhere: validation will name it
        hit = None
    if hit is not None and hit[0] is catalog:
        return hit[1]
    config = _build_config(catalog, rec)
    if k is not None and len(_CONFIGS) < 4096:
        _CONFIGS[(id(catalog), k)] = (catalog, config)
    return config


def _build_config(catalog: Catalog, rec: dict[str, Any]) -> GameConfig:
    _need(_known(rec["board"], catalog.boards), f"unknown board {rec['board']!r}")
    goals = rec["goals"]
    _need(isinstance(goals, list) and len(goals) == 3,
          "exactly three goals expected (B3, C4, D2)")
    for g in goals:
        _need(_known(g, catalog.goals), f"unknown goal {g!r}")
    _need(len(set(goals)) == 3, "the same goal tile appears twice")
    cats = rec["cats"]
    _need(isinstance(cats, list) and len(cats) == 3, "exactly three cats expected")
    patterns = catalog.pattern_ids
    rules = []
    seen_patterns: set[str] = set()
    for c in cats:
        _need(isinstance(c, dict) and "cat" in c and "patterns" in c,
              "each cat needs 'cat' and 'patterns'")
        _need(_known(c["cat"], catalog.cats), f"unknown cat {c['cat']!r}")
        ps = c["patterns"]
        _need(isinstance(ps, list) and len(ps) == 2 and ps[0] != ps[1],
              f"cat {c['cat']} needs two different patterns")
        for p in ps:
            _need(p in patterns, f"unknown pattern {p!r}")
            _need(p not in seen_patterns, f"two cats share the pattern {p!r}")
            seen_patterns.add(p)
        d = catalog.cats[c["cat"]]
        rules.append(CatRule(d.id, d.points, d.min_size or 0, tuple(d.shape or ()),
                             (patterns.index(ps[0]), patterns.index(ps[1]))))
    _need(len({r.id for r in rules}) == 3, "the same cat appears twice")
    goal_rules, spots, _ = _tables(catalog)
    return GameConfig(
        players=1, setup=Setup.STANDARD, family=False, lower_variance=False, restriction=None,
        colors=catalog.color_ids, patterns=patterns, cats=(rules[0], rules[1], rules[2]),
        goals=goal_rules, goal_spots=spots, boards=(rec["board"],), scenario=None,
        bag_size=MAX_COPIES * 36,
    )


def replay_quilt(catalog: Catalog, rec: dict[str, Any]) -> tuple[GameConfig, SeatState]:
    """Validate ``rec`` and rebuild the quilt with its tokens; BadRecordError names the problem.

    Tokens come from :func:`engine.tokens.earn_masks`, exactly as :func:`engine.rules.place_tile`
    takes them in play, but without building the events nobody reads here (the scorer's speed).
    """
    config = _config(catalog, rec)
    _, _, quilts = _tables(catalog)
    goals = rec["goals"]
    placements = rec["placements"]
    _need(isinstance(placements, list), "placements must be a list")
    colors, patterns = config.colors, config.patterns
    spots = config.goal_spots
    quilt = list(quilts[rec["board"]])
    # masks of the cells showing each colour / pattern, kept up to date as tiles go down
    color_masks = [0] * 6
    pattern_masks = [0] * 6
    for c, u in enumerate(quilt):
        if u >= 0:
            color_masks[u // 6] |= 1 << c
            pattern_masks[u % 6] |= 1 << c
    copies = [0] * 36
    color_index = {c: i for i, c in enumerate(colors)}
    pattern_index = {c: i for i, c in enumerate(patterns)}
    placed: list[int] = []
    buttons: list[tuple[int, int]] = []
    cats: list[tuple[int, int]] = []
    rainbow: int | None = None
    button_mask = cat_mask = 0
    button_colors: frozenset[int] = frozenset()
    for i, p in enumerate(placements, 1):
        # messages are only built for the error (this loop runs 22 times per record)
        try:
            name, color, pattern = p["cell"], p["color"], p["pattern"]
        except (KeyError, TypeError):
            raise BadRecordError(f"placement {i} needs cell, color and pattern") from None
        cell = CELL_BY_NAME.get(name) if isinstance(name, str) else None
        if cell is None:
            cell = CELL_BY_NAME.get(str(name).upper())
        if cell is None:
            raise BadRecordError(f"placement {i}: cell {name!r} is outside A1-E5")
        if cell in spots:
            raise BadRecordError(f"placement {i}: {name} is a goal spot")
        if quilt[cell] != EMPTY:
            raise BadRecordError(f"placement {i}: {name} is already filled")
        ci = color_index.get(color) if isinstance(color, str) else None
        if ci is None:
            raise BadRecordError(f"placement {i}: unknown colour {color!r}")
        pi = pattern_index.get(pattern) if isinstance(pattern, str) else None
        if pi is None:
            raise BadRecordError(f"placement {i}: unknown pattern {pattern!r}")
        t = ci * 6 + pi
        copies[t] += 1
        if copies[t] > MAX_COPIES:
            raise BadRecordError(f"more than {MAX_COPIES} {color} {pattern} tiles")
        quilt[cell] = t
        color_masks[t // 6] |= 1 << cell
        pattern_masks[t % 6] |= 1 << cell
        got = earn_masks(config, t, cell, color_masks[t // 6], pattern_masks[t % 6],
                         button_mask, cat_mask, button_colors, rainbow is not None)
        if got.button is not None:
            buttons.append((cell, got.button[0]))
            button_mask |= 1 << cell
            button_colors = button_colors | {got.button[0]}
        if got.cat is not None:
            cats.append((cell, got.cat[0]))
            cat_mask |= 1 << cell
        if got.rainbow:
            rainbow = cell
        placed.append(cell)
    seat = SeatState(rec["board"], tuple(quilt), (goals[0], goals[1], goals[2]), (),
                     (), tuple(placed), tuple(buttons), tuple(cats), rainbow, button_mask,
                     cat_mask)
    return config, seat


def score_record(catalog: Catalog, rec: dict[str, Any]) -> dict[str, Any]:
    """The score breakdown of one quilt record (the scorer contract's output)."""
    config, seat = replay_quilt(catalog, rec)
    return breakdown(config, seat)


def quilt_record(state: GameState, seat_index: int) -> dict[str, Any]:
    """The quilt record of one seat of a game, as the scorer reads it."""
    cfg = state.config
    seat = state.seats[seat_index]
    return {
        "board": seat.board,
        "goals": list(seat.goals) if seat.goals is not None else [],
        "cats": [{"cat": c.id, "patterns": [cfg.patterns[p] for p in c.patterns]}
                 for c in cfg.cats],
        "placements": [{"cell": cell_name(c), "color": cfg.colors[seat.quilt[c] // 6],
                        "pattern": cfg.patterns[seat.quilt[c] % 6]} for c in seat.placed],
    }
