"""Hints: the engine's three best placements for the seat to move, each with its value.

This module owns the hint a player asks for during their turn (issue #13). It reads the seat's
:class:`~engine.views.PrivateView` only (the bot passes ``private_view(state, seat)``), so a hint
never leaks the bag or another hand, and it is deterministic for a given ``seed``.

How (:func:`hints`):

1. the strong player's move: what the ``strong`` computer player plays here
   (:func:`engine.ai.review.engine_move`, with the same seed as the review);
2. other candidates: the placements (tile and cell) best valued by the value function right
   after placing, a different placement from the strong player's each, with the market tile
   the rollout policy would take after it;
3. every candidate is valued like a turn of the review: the mean over ``samples`` sampled
   futures (the same for all candidates) of playouts cut after ``depth`` turns
   (:mod:`engine.ai.rollout`): an expected final score.

The result lists the candidates best value first (the strong player's move first on a tie);
the first is the engine's choice (``engine``): the engine compares its candidates on the same
futures, as the review compares the engine's move with the move played, so no hint below the
engine's shows a higher value. The values are estimates (a standard error near one point early
in the game); the review values a move on more futures and may judge it a little differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.ai.review import ENGINE_LEVEL, engine_move, futures_seed, legal_from_view
from engine.ai.rollout import DEFAULT_DEPTH, SeatSim, mean_outcome
from engine.hexgrid import cell_name, parse_cell
from engine.moves import PlaceTile
from engine.state import GameState
from engine.views import PrivateView, private_view

HINT_SAMPLES = 6  # futures per candidate: half a review's, for a button click
HINT_CANDIDATES = 4  # placements valued besides the engine's (the best of them are shown)
ROUND = 2


@dataclass(frozen=True, slots=True)
class Hint:
    """One suggested turn: a placement and the market tile taken after it."""

    move: str  # the move's notation (engine.moves), e.g. "h0@C3>m2"
    cell: str  # where the tile goes, "A1".."E5"
    tile: int  # the tile placed (colour * 6 + pattern)
    hand: int | None  # the hand position it comes from (None without a hand)
    market: int | None  # the market slot taken (without a hand: the tile placed); None: none
    pick: int | None  # the tile taken into the hand; None when none is
    value: float  # expected final score of the seat after this move
    engine: bool  # the engine's choice (always the first hint, the best valued)

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "cell": self.cell, "tile": self.tile, "hand": self.hand,
                "market": self.market, "pick": self.pick, "value": self.value,
                "engine": self.engine}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Hint:
        return Hint(d["move"], d["cell"], d["tile"], d["hand"], d["market"], d["pick"],
                    d["value"], d["engine"])

    def to_move(self, seat: int) -> PlaceTile:
        """The move to play for ``seat`` (the bot's "play this hint" button)."""
        return PlaceTile(seat, parse_cell(self.cell), self.hand, self.market)


def hints(view: PrivateView, *, count: int = 3, samples: int = HINT_SAMPLES,
          depth: int | None = DEFAULT_DEPTH, seed: int = 0, level: str = ENGINE_LEVEL
          ) -> list[Hint]:
    """Up to ``count`` suggested turns for the seat of ``view``, whose turn it is to place a
    tile: the engine's move first, then the best other placements (see the module docstring).
    Empty when the seat has no tile to place now (not its turn, the draft, the game over)."""
    pub = view.public
    if pub.current_seat != view.seat or count < 1:
        return []
    legal = [m for m in legal_from_view(view) if isinstance(m, PlaceTile)]
    if not legal:
        return []
    eng = engine_move(view, legal, seed=seed, level=level)
    assert isinstance(eng, PlaceTile)
    sim = SeatSim(view)
    others = _candidates(sim, legal, eng, HINT_CANDIDATES if count > 1 else 0)
    futures = sim.sample_futures(samples, futures_seed(view, seed))
    valued = [(mean_outcome([sim.play_out(m, f, depth) for f in futures])[0], m)
              for m in [eng, *others]]
    # stable: the strong player's move first on a tie, then the value function's order
    valued.sort(key=lambda x: -x[0])
    return [_hint(sim, m, v, i == 0) for i, (v, m) in enumerate(valued[:count])]


def hints_for_state(state: GameState, seat: int, *, count: int = 3,
                    samples: int = HINT_SAMPLES, depth: int | None = DEFAULT_DEPTH,
                    seed: int = 0, level: str = ENGINE_LEVEL) -> list[Hint]:
    """:func:`hints` for ``seat`` of a game state: only the seat's private view is passed on."""
    return hints(private_view(state, seat), count=count, samples=samples, depth=depth,
                 seed=seed, level=level)


def _candidates(sim: SeatSim, legal: list[PlaceTile], eng: PlaceTile, k: int
                ) -> list[PlaceTile]:
    """The ``k`` placements best valued right after placing, other than the engine's, each
    with the market pick the rollout policy makes after it."""
    by_place: dict[tuple[int, int], list[PlaceTile]] = {}
    for m in legal:
        by_place.setdefault((sim.tile_of(m), m.cell), []).append(m)
    by_place.pop((sim.tile_of(eng), eng.cell), None)
    ranked = sorted(by_place.values(), key=lambda ms: -sim.value_after(ms[0]))[:k]
    return [_with_pick(sim, ms) for ms in ranked]


def _with_pick(sim: SeatSim, moves: list[PlaceTile]) -> PlaceTile:
    """Of the moves making one placement, the one taking the market tile that places best on
    the quilt after it (the rollout policy's pick); without a pick there is one move."""
    if len(moves) == 1 or moves[0].hand is None:
        return moves[0]
    after = sim.after(moves[0])

    def fit(m: PlaceTile) -> float:
        assert m.market is not None
        t = sim.market[m.market]
        assert t is not None
        return sim.best(after, t, after.empty)[0]

    return max(moves, key=fit)


def _hint(sim: SeatSim, m: PlaceTile, value: float, is_engine: bool) -> Hint:
    pick = sim.market[m.market] if m.hand is not None and m.market is not None else None
    return Hint(m.text(), cell_name(m.cell), sim.tile_of(m), m.hand, m.market, pick,
                round(value, ROUND), is_engine)
