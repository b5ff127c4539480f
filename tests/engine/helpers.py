"""Small helpers for the rules tests: build quilts tile by tile, read the board, play random games.

Everything here is written from ``../shared/rules/data.md`` (the grid, the neighbours, the axial
coordinates), not copied from the engine, so tests that use it check the engine against the
rulings rather than against itself.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from data import load_catalog
from engine.config import GameConfig, GameOptions, Restriction, Setup
from engine.events import Event
from engine.hexgrid import cell_of
from engine.moves import ChooseGoals, Move
from engine.quilt_record import replay_quilt
from engine.rules import apply, legal_moves, place_tile
from engine.setup import new_game
from engine.state import GameState, Phase, SeatState

CATALOG = load_catalog()
COLORS: tuple[str, ...] = CATALOG.color_ids
PATTERNS: tuple[str, ...] = CATALOG.pattern_ids
DATA = Path(__file__).resolve().parent / "data"
BOARDS: tuple[str, ...] = tuple(sorted(CATALOG.boards))

ROWS = "ABCDE"
GOAL_SPOTS = ("B3", "C4", "D2")
BEGINNER_GOALS = ("all-different", "aa-bb-cc", "aaa-bbb")
# millie/tibbit/coconut with every pattern given to exactly one cat (a legal setup)
BEGINNER_CATS = (
    ("millie", ("dots", "ferns")),
    ("tibbit", ("flowers", "quatrefoil")),
    ("coconut", ("stripes", "vines")),
)

Placement = tuple[str, str, str]  # (cell name, colour, pattern)
CatSpec = Sequence[tuple[str, Sequence[str]]]


# --------------------------------------------------------------------------- the grid (data.md)


def rc(name: str) -> tuple[int, int]:
    """``"C3"`` -> (3, 3): letter = row 1..5, digit = column 1..5."""
    return ROWS.index(name[0]) + 1, int(name[1])


def name_of(r: int, c: int) -> str:
    return f"{ROWS[r - 1]}{c}"


def is_inner(r: int, c: int) -> bool:
    return 1 <= r <= 5 and 1 <= c <= 5


def neighbours(r: int, c: int) -> list[tuple[int, int]]:
    """The six (or fewer, at the edge) neighbours in the odd-r layout of data.md."""
    if r % 2 == 0:
        cand = [(r - 1, c - 1), (r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c - 1), (r + 1, c)]
    else:
        cand = [(r - 1, c), (r - 1, c + 1), (r, c - 1), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
    return [(rr, cc) for rr, cc in cand if 0 <= rr < 7 and 0 <= cc < 7]


PLAYABLE: tuple[str, ...] = tuple(
    name_of(r, c) for r in range(1, 6) for c in range(1, 6) if name_of(r, c) not in GOAL_SPOTS
)


def to_axial(r: int, c: int) -> tuple[int, int]:
    return c - (r - (r & 1)) // 2, r


def from_axial(q: int, r: int) -> tuple[int, int]:
    return r, q + (r - (r & 1)) // 2


def border(board: str) -> dict[tuple[int, int], tuple[str, str]]:
    """The printed patches of ``board``: (row, col) -> (colour, pattern)."""
    return {k: (p.color, p.pattern) for k, p in CATALOG.boards[board].border.items()}


def border_neighbours(board: str, cells: Iterable[str]) -> list[tuple[str, str]]:
    """(colour, pattern) of every border patch touching one of ``cells``."""
    b = border(board)
    out = []
    for n in cells:
        for rr, cc in neighbours(*rc(n)):
            if (rr, cc) in b:
                out.append(b[(rr, cc)])
    return out


def free_patterns(board: str, cells: Iterable[str]) -> list[str]:
    """Patterns no border patch next to ``cells`` shows: a group of them is exactly ``cells``."""
    used = {p for _, p in border_neighbours(board, cells)}
    return [p for p in PATTERNS if p not in used]


def free_colors(board: str, cells: Iterable[str]) -> list[str]:
    used = {c for c, _ in border_neighbours(board, cells)}
    return [c for c in COLORS if c not in used]


# --------------------------------------------------------------------------- shapes (data.md)


def rotate(shape: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """60 degrees around the origin, in axial coordinates."""
    return [(-r, q + r) for q, r in shape]


def normalised(shape: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    pts = sorted(shape, key=lambda p: (p[1], p[0]))
    q0, r0 = pts[0]
    return tuple(sorted((q - q0, r - r0) for q, r in pts))


def rotations(shape: Iterable[tuple[int, int]]) -> list[tuple[tuple[int, int], ...]]:
    """The distinct rotations of ``shape`` (up to translation)."""
    out: list[tuple[tuple[int, int], ...]] = []
    pts = list(shape)
    for _ in range(6):
        n = normalised(pts)
        if n not in out:
            out.append(n)
        pts = rotate(pts)
    return out


@lru_cache(maxsize=16)
def positions(shape: tuple[tuple[int, int], ...]) -> tuple[frozenset[tuple[int, int]], ...]:
    """Every placement of ``shape`` in every rotation on the whole 7x7 grid (border included),
    as sets of (row, col)."""
    out = set()
    for rot in rotations(shape):
        for ar in range(-6, 13):
            for aq in range(-9, 13):
                cells = [from_axial(aq + q, ar + r) for q, r in rot]
                if all(0 <= r < 7 and 0 <= c < 7 for r, c in cells):
                    out.add(frozenset(cells))
    return tuple(sorted(out, key=sorted))


def holds_shape(cells: Iterable[tuple[int, int]], shape: tuple[tuple[int, int], ...]) -> bool:
    """Whether the (row, col) ``cells`` contain ``shape`` in some rotation and position."""
    have = set(cells)
    return any(p <= have for p in positions(shape))


def pattern_group(board: str, pattern: str, names: Iterable[str]) -> set[tuple[int, int]]:
    """The tiles ``names`` (all of ``pattern``) plus the border patches of ``pattern`` touching
    them (neighbouring border patches never share a pattern, so they only join through tiles)."""
    b = border(board)
    cells = {rc(n) for n in names}
    return cells | {n for c in cells for n in neighbours(*c) if n in b and b[n][1] == pattern}


def placements_of(shape: Iterable[tuple[int, int]]) -> list[list[str]]:
    """Every way to lay ``shape`` (as given, no rotation) on playable cells, as cell names."""
    shape = list(shape)
    out = []
    for ar in range(-6, 13):
        for aq in range(-6, 13):
            cells = [from_axial(aq + q, ar + r) for q, r in shape]
            names = [name_of(r, c) for r, c in cells if is_inner(r, c)]
            if len(names) == len(cells) and not set(names) & set(GOAL_SPOTS):
                out.append(names)
    return out


# --------------------------------------------------------------------------- building quilts


def cats_json(cats: CatSpec) -> list[dict[str, Any]]:
    return [{"cat": c, "patterns": list(ps)} for c, ps in cats]


def record(
    board: str,
    placements: Iterable[Placement],
    cats: CatSpec = BEGINNER_CATS,
    goals: Sequence[str] = BEGINNER_GOALS,
) -> dict[str, Any]:
    """A quilt record in the scorer contract's format."""
    return {
        "board": board,
        "goals": list(goals),
        "cats": cats_json(cats),
        "placements": [{"cell": c, "color": col, "pattern": pat} for c, col, pat in placements],
    }


def cats_with(cat: str, patterns: Sequence[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Three cats: ``cat`` liking ``patterns`` and two others sharing the remaining four."""
    rest = [p for p in PATTERNS if p not in patterns]
    others = [c for c in ("millie", "tibbit", "coconut", "callie", "rumi") if c != cat][:2]
    return (
        (cat, tuple(patterns)),
        (others[0], (rest[0], rest[1])),
        (others[1], (rest[2], rest[3])),
    )


def tile_of(color: str, pattern: str) -> int:
    return COLORS.index(color) * 6 + PATTERNS.index(pattern)


def empty_quilt(
    board: str,
    cats: CatSpec = BEGINNER_CATS,
    goals: Sequence[str] = BEGINNER_GOALS,
    restriction: Restriction | None = None,
) -> tuple[GameConfig, SeatState]:
    config, seat = replay_quilt(CATALOG, record(board, [], cats, goals))
    if restriction is not None:
        config = replace(config, restriction=restriction)
    return config, seat


def place_all(
    config: GameConfig, seat: SeatState, placements: Iterable[Placement], seat_index: int = 0
) -> tuple[SeatState, list[list[Event]]]:
    """Place the tiles one by one through ``engine.rules.place_tile``; events per placement."""
    steps = []
    for name, color, pattern in placements:
        r, c = rc(name)
        seat, events = place_tile(config, seat_index, seat, cell_of(r, c),
                                  tile_of(color, pattern), False)
        steps.append(events)
    return seat, steps


def build(
    board: str,
    placements: Iterable[Placement],
    cats: CatSpec = BEGINNER_CATS,
    goals: Sequence[str] = BEGINNER_GOALS,
    restriction: Restriction | None = None,
) -> tuple[GameConfig, SeatState, list[list[Event]]]:
    config, seat = empty_quilt(board, cats, goals, restriction)
    seat, steps = place_all(config, seat, placements)
    return config, seat, steps


def cat_count(config: GameConfig, seat: SeatState, cat: str) -> int:
    i = config.cat_index(cat)
    return sum(1 for _, ci in seat.cats if ci == i)


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def of_kind(events: Iterable[Event], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


# --------------------------------------------------------------------------- games


def started(options: GameOptions, seed: int) -> GameState:
    """A new game with any goal draft done (each seat keeps its first three offered, in order)."""
    state = new_game(CATALOG, options, seed)
    for i, s in enumerate(state.seats):
        if s.goal_offer:
            state, _ = apply(state, ChooseGoals(i, (s.goal_offer[0], s.goal_offer[1],
                                                    s.goal_offer[2])))
    return state


def solo_beginner(**kw: Any) -> GameOptions:
    return GameOptions(players=1, setup=Setup.BEGINNER, **kw)


def choose_move(state: GameState, rng: random.Random) -> Move:
    """A random legal move; during the draft, for a random seat still choosing."""
    if state.phase is Phase.DRAFT:
        seats = [i for i, s in enumerate(state.seats) if s.goal_offer]
        return rng.choice(legal_moves(state, rng.choice(seats)))
    return rng.choice(legal_moves(state))


def play_random(
    options: GameOptions,
    seed: int,
    move_seed: int,
    each: Callable[[GameState, Move, GameState, list[Event]], None] | None = None,
) -> tuple[GameState, list[Move], list[list[Event]]]:
    """Play a whole game with random legal moves; ``each(before, move, after, events)``."""
    rng = random.Random(move_seed)
    state = new_game(CATALOG, options, seed)
    moves: list[Move] = []
    events: list[list[Event]] = []
    while state.phase is not Phase.OVER:
        move = choose_move(state, rng)
        after, ev = apply(state, move)
        if each is not None:
            each(state, move, after, ev)
        moves.append(move)
        events.append(ev)
        state = after
    return state, moves, events


def tile_census(state: GameState) -> list[int]:
    """How many of each of the 36 tiles are in the bag, market, hands, quilts and discards."""
    counts = list(state.bag)
    for t in state.market:
        if t is not None:
            counts[t] += 1
    for t in state.discards:
        counts[t] += 1
    for s in state.seats:
        for t in s.hand:
            counts[t] += 1
        for cell in s.placed:
            counts[s.quilt[cell]] += 1
    return counts


# --------------------------------------------------------------------------- an independent reading


def oracle_tokens(
    board: str, cats: CatSpec, placements: Iterable[Placement]
) -> tuple[dict[str, int], dict[str, int], int]:
    """Buttons per colour, tokens per cat and the rainbow, worked out straight from the rulings
    with plain sets: a group earns when it reaches the size (or holds the shape) and none of
    its cells was in a group that already earned that kind of token."""
    grid: dict[tuple[int, int], tuple[str, str]] = dict(border(board))
    by_pattern = {p: cid for cid, ps in cats for p in ps}
    cat_defs = {cid: CATALOG.cats[cid] for cid, _ in cats}
    buttoned: set[tuple[int, int]] = set()
    catted: set[tuple[int, int]] = set()
    buttons = dict.fromkeys(COLORS, 0)
    tokens = dict.fromkeys((cid for cid, _ in cats), 0)
    rainbow = 0

    def group(start: tuple[int, int], k: int) -> set[tuple[int, int]]:
        seen = {start}
        todo = [start]
        while todo:
            here = todo.pop()
            for n in neighbours(*here):
                if n not in seen and n in grid and grid[n][k] == grid[start][k]:
                    seen.add(n)
                    todo.append(n)
        return seen

    for name, color, pattern in placements:
        at = rc(name)
        grid[at] = (color, pattern)
        g = group(at, 0)
        if len(g) >= 3 and not g & buttoned:
            buttoned |= g
            buttons[color] += 1
            if not rainbow and all(buttons.values()):
                rainbow = 1
        g = group(at, 1)
        cid = by_pattern[pattern]
        d = cat_defs[cid]
        ok = len(g) >= d.min_size if d.min_size else holds_shape(g, tuple(d.shape or ()))
        if ok and not g & catted:
            catted |= g
            tokens[cid] += 1
    return buttons, tokens, rainbow


def oracle_goal(board: str, spot: str, goal: str, placements: Iterable[Placement]
                ) -> tuple[bool, bool, int]:
    """(by colours, by patterns, points) of a goal, straight from the goal table."""
    grid = {rc(n): (c, p) for n, c, p in placements}
    around = [grid.get(n) for n in neighbours(*rc(spot))]
    if any(t is None for t in around):
        return False, False, 0
    d = CATALOG.goals[goal]
    want = sorted(d.counts)
    by_c = sorted(Counter(t[0] for t in around if t).values()) == want
    by_p = sorted(Counter(t[1] for t in around if t).values()) == want
    points = d.both_ways if by_c and by_p else d.one_way if by_c or by_p else 0
    return by_c, by_p, points


# --------------------------------------------------------------------------- hypothesis


def game_setups() -> Any:
    """A hypothesis strategy of (options, seed, move seed): 1-4 players, both setups, the
    variants, restrictions, scenarios, chosen cats and first seats."""
    from hypothesis import strategies as st

    @st.composite
    def build_setup(draw: Any) -> tuple[GameOptions, int, int]:
        players = draw(st.integers(1, 4))
        scenario = draw(st.one_of(st.none(), st.none(), st.integers(1, 10)))
        setup = draw(st.sampled_from(list(Setup)))
        # The family variant is played with the standard setup only.
        family = scenario is None and setup is Setup.STANDARD and draw(st.integers(0, 3)) == 0
        lower = players <= 2 and draw(st.booleans())
        restriction = draw(st.one_of(st.none(), st.sampled_from(list(Restriction))))
        first = draw(st.one_of(st.none(), st.integers(0, players - 1)))
        # Chosen cats: three different scoring tiles, one side of each, in any order.
        tiles = draw(st.one_of(st.none(), st.permutations(CATALOG.cat_tiles).map(
            lambda ts: ts[:3])))
        cats = None if tiles is None else [t.sides[draw(st.integers(0, 1))] for t in tiles]
        options = GameOptions(players=players, setup=setup, family=family, lower_variance=lower,
                              restriction=restriction, scenario=scenario, first_seat=first,
                              cats=None if cats is None else tuple(cats))
        return options, draw(st.integers(2**40, 2**62)), draw(st.integers(0, 2**32))

    return build_setup()
