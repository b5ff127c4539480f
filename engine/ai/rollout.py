"""Playouts of one seat's game from its private view, over sampled futures of the unseen tiles.

This module owns the simulation that the review (:mod:`engine.ai.review`) and the hints
(:mod:`engine.ai.hints`) use to put a number on a move: *the expected final score of the seat
if it makes this move now and then plays on with a fast policy*. It reads only a
:class:`~engine.views.PrivateView`, never a game state, so nothing it computes can depend on the
bag, the generator or another player's hand.

**Futures.** A :class:`Future` is one sampled continuation of what the seat cannot see: the
unseen tiles (bag and other hands, :func:`engine.ai.seen.unseen_counts`) shuffled, the first
ones dealt to the other players' hands and the rest drawn from the bag in that order, plus one
uniform number per turn of another player saying which market slot that player takes. Moves
compared on the *same* futures (common random numbers) differ by the moves and not by luck: a
draw depends only on the bag, and every branch draws the same number of tiles per turn, so the
same tiles enter the market in the same order whatever was taken.

**Rollout policy** (:meth:`SeatSim.play_out`), for each later turn of the seat:

- place the hand tile (without a hand: the market tile) on the cell where it scores best by the
  computer players' value function (:class:`engine.ai.evaluate.Evaluator`);
- take the market tile whose best placement on the new quilt scores best (that evaluation is
  kept and reused when the tile is placed next turn, so the pick costs little extra).

It plays about as well as the ``normal`` computer player (about 64 points a solo game). The
other players are not simulated: only the market tiles they take matter to this seat, and each
takes a uniformly random one (part of the future, so both moves compared see the same choices).
Rule restrictions on where a tile may go are applied as :func:`engine.rules.placements` does.

**Outcome.** A playout ends when the quilt is full, scored exactly, or after ``depth`` turns of
the seat, valued by the *leaf estimate*: the value function plus the mean gap between the final
score and the value function at that many empty cells, measured from the policy's own games
(:data:`engine.ai.leaf.LEAF_OFFSET`, per player count, with or without goals). The gap only
sets the level: every move compared at one decision reaches its leaf with as many empty cells,
so it cancels from their differences. Either way the mean over futures estimates an expected
final score.

Why cut playouts: a whole game played out from an early turn is so noisy that two placements
compared on the same futures hardly correlate. Measured on 16 positions of normal-level games
(turns 2-15, the engine's move against another): the per-future difference of whole playouts
has a standard deviation of 6-10 points, so 12 futures leave a standard error of 2-3 points,
more than most mistakes cost; cut after :data:`DEFAULT_DEPTH` turns it is 2-6 (typically 3),
and the cut estimate differs from a 100-future whole-playout estimate by 1.1 points root mean
square (that reference has a standard error near 0.8 itself). Late in the game, when fewer
turns are left than ``depth``, playouts are whole and scored exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.ai.evaluate import DEFAULT, Evaluator, Weights
from engine.ai.frame import frame_of
from engine.ai.leaf import LEAF_OFFSET
from engine.ai.model import INNER_MASK, Quilt, Rules, bits
from engine.ai.seen import own_quilt, unseen_counts
from engine.ai.tables import GOAL_M
from engine.config import Restriction
from engine.hexgrid import NEIGHBOUR_MASK, NEIGHBOURS
from engine.moves import PlaceTile
from engine.scoring import BUTTON_POINTS, goal_result
from engine.state import TURNS_PER_PLAYER
from engine.views import PrivateView

# Outcome parts, in this order: points per cat (the game's three cats), buttons per colour (six,
# the config's colour order), the rainbow button, then each design goal (B3, C4, D2).
CAT_PARTS = 3
COLOR_PARTS = 6
RAINBOW_PART = CAT_PARTS + COLOR_PARTS
GOAL_PART = RAINBOW_PART + 1
PARTS = GOAL_PART + 3

DEFAULT_DEPTH = 8  # turns of the seat played out before the leaf estimate

_MASK64 = (1 << 64) - 1
_RESTRICTED = (Restriction.ADJACENT, Restriction.SAME_COLOR, Restriction.SAME_PATTERN)

# (value, cell) of a tile's best placement on a quilt (cell -1: no cell to place it on)
Best = tuple[float, int]


@dataclass(frozen=True, slots=True)
class Future:
    """One sampled continuation of what the seat cannot see (see the module docstring)."""

    stream: tuple[int, ...]  # the tiles the bag gives, in order
    picks: tuple[float, ...]  # per turn of another player, in [0, 1): which market slot it takes


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where one playout ended: the seat's (estimated) final score and its parts.

    ``parts`` (order above) are the points of the tokens earned by then and each design goal's
    points (exact once surrounded, else the value function's expectation); when the playout
    was cut (``done`` false) ``total`` is the leaf estimate, which also counts potential the
    parts do not show (groups on their way to a token).
    """

    total: float
    parts: tuple[float, ...]
    done: bool
    # solo achievement mode, a playout played to the end: the value function's bonus for the
    # scenario's conditions met (not in ``total``, a score; a cut playout's leaf counts them)
    bonus: float = 0.0


def derive_seed(*parts: int) -> int:
    """A 64-bit seed mixed from ints (a review seed, a ply, a seat, a purpose): the same on
    every run and platform, and far apart for neighbouring inputs."""
    x = 0x9E3779B97F4A7C15
    for p in parts:
        x = ((x ^ (p & _MASK64)) * 0xBF58476D1CE4E5B9) & _MASK64
        x ^= x >> 29
        x = (x * 0x94D049BB133111EB) & _MASK64
        x ^= x >> 32
    return x


class SeatSim:
    """The rollout model of one seat at one decision, built from its private view alone.

    ``view`` is the private view of the seat at a decision: its turn to place a tile, or its
    goal draft (then pass the ``goals`` to play with, and use :meth:`play_from_start`).
    """

    def __init__(self, view: PrivateView, *, goals: tuple[str, str, str] | None = None,
                 weights: Weights = DEFAULT) -> None:
        pub = view.public
        cfg = pub.config
        self.view = view
        self.config = cfg
        self.seat = view.seat
        self.rules = Rules(cfg)
        self.weights = weights
        sv = pub.seats[view.seat]
        self.goals = goals if goals is not None else sv.goals
        self.evaluator = Evaluator(cfg, self.rules, self.goals, weights)
        self.offset = LEAF_OFFSET[(cfg.players, self.goals is not None)]
        self.root = own_quilt(view, self.rules)
        self.evaluator.features(self.root)  # children derive theirs from the root's
        self.hand = tuple(view.hand)
        self.market = tuple(pub.market)
        self.no_hand = cfg.no_hand
        self.solo = cfg.solo
        self.restriction = cfg.restriction if cfg.restriction in _RESTRICTED else None
        self.goal_mask = sum(1 << s for s in cfg.goal_spots)
        players = cfg.players
        # The other seats in the order they play after this one, and their tiles placed so far.
        self.others = tuple((view.seat + k) % players for k in range(1, players))
        self.others_placed = tuple(len(pub.seats[j].placed) for j in self.others)
        self.others_hand_tiles = sum(pub.seats[j].hand_size for j in self.others)
        # Before the first turn (a draft view): the seats that play before this one.
        self.first_round = (view.seat - pub.first_seat) % players
        self.unseen = tuple(unseen_counts(view))
        # one quilt object per position reached (its frame, with the placements valued on
        # it, serves every playout that reaches it)
        self._quilts: dict[tuple[int, ...], Quilt] = {}

    # ------------------------------------------------------------------ futures

    def sample_futures(self, n: int, seed: int) -> list[Future]:
        """``n`` futures from a generator seeded by ``seed`` alone (never by the game)."""
        rng = random.Random(seed)
        pool = [t for t, k in enumerate(self.unseen) for _ in range(k)]
        n_picks = sum(TURNS_PER_PLAYER - p for p in self.others_placed)
        out = []
        for _ in range(n):
            order = pool.copy()
            rng.shuffle(order)
            # the other players' hands are the first tiles: they never come out of the bag
            stream = tuple(order[self.others_hand_tiles:])
            picks = tuple(rng.random() for _ in range(n_picks))
            out.append(Future(stream, picks))
        return out

    # ------------------------------------------------------------------ the move itself

    def tile_of(self, move: PlaceTile) -> int:
        """The tile ``move`` places."""
        if move.hand is not None:
            return self.hand[move.hand]
        assert move.market is not None
        t = self.market[move.market]
        assert t is not None
        return t

    def after(self, move: PlaceTile) -> Quilt:
        """The seat's quilt model once ``move``'s tile is placed (nothing sampled)."""
        return self.child(self.root, move.cell, self.tile_of(move))

    def value_after(self, move: PlaceTile) -> float:
        """The value function's estimate of the quilt once ``move``'s tile is placed."""
        return self.evaluator.value(self.after(move))

    # ------------------------------------------------------------------ playouts

    def play_out(self, move: PlaceTile, future: Future, depth: int | None = DEFAULT_DEPTH
                 ) -> Outcome:
        """Play ``move``, then up to ``depth`` more turns of the seat (None: to the end of its
        game) with the rollout policy."""
        run = _Run(self, future)
        hand = list(self.hand)
        if move.hand is not None:
            del hand[move.hand]
        q = self.after(move)
        if move.market is not None:
            got = run.take(move.market)
            if move.hand is not None and got is not None:
                hand.append(got)
        run.others_play(0)
        return self._continue(run, q, hand, depth, None)

    def play_from_start(self, future: Future, depth: int | None = DEFAULT_DEPTH,
                        trace: list[Quilt] | None = None) -> Outcome:
        """The seat's game from a view before its first turn (the goal draft): the seats
        before it take their first tiles, then it plays ``depth`` turns (None: all) by the
        policy. ``trace`` (if given) receives the quilt after each of the seat's turns."""
        run = _Run(self, future)
        run.others_play(len(self.others) - self.first_round)
        return self._continue(run, self.root, list(self.hand), depth, trace)

    def policy_move(self) -> PlaceTile:
        """The move the rollout policy makes from the view (what its playouts do each turn)."""
        q = self.root
        if self.no_hand:
            slots = [i for i, t in enumerate(self.market) if t is not None]
            tiles = [t for t in self.market if t is not None]
            best: Best = (float("-inf"), -1)
            best_slot = -1
            for i, t, m in zip(slots, tiles, self.allowed(q, tiles), strict=True):
                got = self.best(q, t, m)
                if got[0] > best[0]:
                    best, best_slot = got, i
            return PlaceTile(self.seat, best[1], None, best_slot)
        best = (float("-inf"), -1)
        best_i = -1
        for i, (t, m) in enumerate(zip(self.hand, self.allowed(q, self.hand), strict=True)):
            got = self.best(q, t, m)
            if got[0] > best[0]:
                best, best_i = got, i
        assert best[1] >= 0
        nq = self.child(q, best[1], self.hand[best_i])
        pick: int | None = None
        if nq.empty:
            pick_v = float("-inf")
            for i, u in enumerate(self.market):
                if u is not None:
                    v = self.best(nq, u, nq.empty)[0]
                    if v > pick_v:
                        pick, pick_v = i, v
        return PlaceTile(self.seat, best[1], best_i, pick)

    def _continue(self, run: _Run, q: Quilt, hand: list[int], depth: int | None,
                  trace: list[Quilt] | None) -> Outcome:
        """Own turns (and the others' in between) until the quilt is full or ``depth`` turns
        are played."""
        memo: dict[int, Best] = {}
        turns = 0
        while q.empty:
            if depth is not None and turns >= depth:
                return self.outcome(q, done=False)
            nq = run.own_turn(q, hand, memo)
            if nq is None:  # no tile to place: an exhausted bag, never in a real game
                return self.outcome(q, done=False)
            q = nq
            turns += 1
            if trace is not None:
                trace.append(q)
            run.others_play(0)
        return self.outcome(q, done=True)

    def leaf(self, q: Quilt) -> float:
        """The leaf estimate of the final score of a quilt that is not full."""
        return self.evaluator.value(q) + self.offset[q.empty.bit_count()]

    def outcome(self, q: Quilt, done: bool) -> Outcome:
        """The quilt's parts, and its exact score (``done``) or the leaf estimate."""
        cfg = self.config
        parts: list[float] = [0.0] * PARTS
        for ci in range(CAT_PARTS):
            parts[ci] = float(q.ccnt[ci] * cfg.cats[ci].points)
        for c in range(COLOR_PARTS):
            parts[CAT_PARTS + c] = float(q.bcnt[c] * BUTTON_POINTS)
        parts[RAINBOW_PART] = float(BUTTON_POINTS if q.rainbow else 0)
        if self.goals is not None:
            if q.empty:
                m = GOAL_M[q.empty.bit_count()] * self.weights.goal_m
                for i, g in enumerate(self.evaluator.goal_points(q, m)):
                    parts[GOAL_PART + i] = g
            else:
                quilt = tuple(q.q)
                for i, spot in enumerate(cfg.goal_spots):
                    parts[GOAL_PART + i] = float(goal_result(cfg, quilt, spot,
                                                             self.goals[i])[2])
        if not q.empty:
            total = sum(parts)
            bonus = (self.evaluator.scenario_points(q, total) if cfg.scenario is not None
                     else 0.0)
            return Outcome(total, tuple(parts), True, bonus)
        return Outcome(self.leaf(q), tuple(parts), done)

    # ------------------------------------------------------------------ placement helpers

    def allowed(self, q: Quilt, tiles: Sequence[int]) -> list[int]:
        """Per tile, the mask of the cells it may go to, with the restrictions' fallback: when
        no tile may go anywhere, every empty cell is allowed (as in the rules)."""
        empty = q.empty
        r = self.restriction
        if r is None:
            return [empty] * len(tiles)
        qq = q.q
        if r is Restriction.ADJACENT:
            placed = INNER_MASK & ~empty & ~self.goal_mask
            if not placed:
                return [empty] * len(tiles)  # the first tile goes anywhere
            near = 0
            for c in bits(placed):
                near |= NEIGHBOUR_MASK[c]
            masks = [empty & near] * len(tiles)
        else:
            by_color = r is Restriction.SAME_COLOR
            masks = []
            for t in tiles:
                key = t // 6 if by_color else t % 6
                m = 0
                for c in bits(empty):
                    for n in NEIGHBOURS[c]:
                        u = qq[n]
                        if u >= 0 and (u // 6 if by_color else u % 6) == key:
                            m |= 1 << c
                            break
                masks.append(m)
        if not any(masks):
            return [empty] * len(tiles)
        return masks

    def best(self, q: Quilt, t: int, mask: int) -> Best:
        """The best placement of ``t`` on a cell of ``mask`` by the value function
        (:mod:`engine.ai.frame`).

        Playouts from one decision often reach the same quilt with the same tile (the tile kept
        in the hand is placed on the same quilt in every future, and so on): quilts reached
        are kept one object per position (:meth:`child`), and each keeps what was asked of it
        for the life of this object."""
        return frame_of(self.evaluator, q).best(t, mask)

    def child(self, q: Quilt, c: int, t: int) -> Quilt:
        """The quilt once ``t`` is placed on ``c`` of ``q``: the same object for the same
        position each time it is reached."""
        n = self.rules.place(q, c, t)
        key = tuple(n.q)
        got = self._quilts.get(key)
        if got is None:
            self._quilts[key] = n
            return n
        return got


def mean_outcome(outcomes: Sequence[Outcome]) -> tuple[float, tuple[float, ...]]:
    """The mean total and the mean of each part."""
    n = len(outcomes)
    if not n:
        return 0.0, (0.0,) * PARTS
    total = sum(o.total for o in outcomes) / n
    parts = tuple(sum(o.parts[i] for o in outcomes) / n for i in range(PARTS))
    return total, parts


class _Run:
    """The changing part of one playout: the market, the bag position, the others' turns."""

    __slots__ = ("k", "market", "others_placed", "picks", "pos", "sim", "stream")

    def __init__(self, sim: SeatSim, future: Future) -> None:
        self.sim = sim
        self.market: list[int | None] = list(sim.market)
        self.stream = future.stream
        self.picks = future.picks
        self.pos = 0
        self.k = 0
        self.others_placed = list(sim.others_placed)

    def draw(self) -> int | None:
        if self.pos < len(self.stream):
            t = self.stream[self.pos]
            self.pos += 1
            return t
        return None

    def take(self, slot: int) -> int | None:
        """Take market ``slot`` and refill it as the rules do (solo: the conveyor drops the
        tile furthest from the bag, slides the other to slot 0 and draws two)."""
        market = self.market
        t = market[slot]
        market[slot] = None
        if self.sim.solo:
            _, near = (i for i in range(3) if i != slot)
            market[0] = market[near]
            market[1] = self.draw()
            market[2] = self.draw()
        else:
            market[slot] = self.draw()
        return t

    def others_play(self, start: int) -> None:
        """The other players' turns (from ``start`` in their order) until this seat's next
        turn: each takes the market slot its pick number says."""
        no_hand = self.sim.no_hand
        for j in range(start, len(self.others_placed)):
            placed = self.others_placed[j]
            if placed >= TURNS_PER_PLAYER:
                continue
            self.others_placed[j] = placed + 1
            u = self.picks[self.k] if self.k < len(self.picks) else 0.0
            self.k += 1
            if not no_hand and placed == TURNS_PER_PLAYER - 1:
                continue  # their 22nd turn takes nothing
            # Slots ordered by tile, not position: two markets holding the same tiles give
            # the same choice, so moves that differ only in which copy they took compare equal.
            market = self.market
            slots = sorted((t, i) for i, t in enumerate(market) if t is not None)
            if slots:
                self.take(slots[int(u * len(slots))][1])

    def own_turn(self, q: Quilt, hand: list[int], memo: dict[int, Best]) -> Quilt | None:
        """One turn of the rollout policy; ``hand`` changes in place. Returns the new quilt
        (None: no tile to place). ``memo`` holds best placements on ``q`` from the last pick
        and is refilled with those on the new quilt."""
        sim = self.sim
        market = self.market
        if sim.no_hand:
            slots = [i for i, t in enumerate(market) if t is not None]
            tiles = [t for t in market if t is not None]
            best: Best = (float("-inf"), -1)
            best_slot = -1
            for i, t, m in zip(slots, tiles, sim.allowed(q, tiles), strict=True):
                got = sim.best(q, t, m)
                if got[0] > best[0]:
                    best, best_slot = got, i
            if best[1] < 0:
                return None
            taken = self.take(best_slot)
            assert taken is not None
            return sim.child(q, best[1], taken)
        best = (float("-inf"), -1)
        best_i = -1
        for i, (t, m) in enumerate(zip(hand, sim.allowed(q, hand), strict=True)):
            known = memo.get(t) if m == q.empty else None
            placed = known if known is not None else sim.best(q, t, m)
            if placed[0] > best[0]:
                best, best_i = placed, i
        memo.clear()
        if best[1] < 0:
            return None
        nq = sim.child(q, best[1], hand[best_i])
        del hand[best_i]
        if nq.empty:  # not the 22nd turn: take the market tile that places best next
            pick = -1
            pick_v = float("-inf")
            for i, u in enumerate(market):
                if u is None:
                    continue
                fit = memo.get(u)
                if fit is None:
                    fit = sim.best(nq, u, nq.empty)
                    memo[u] = fit
                if fit[0] > pick_v:
                    pick, pick_v = i, fit[0]
            if pick >= 0:
                taken = self.take(pick)
                assert taken is not None
                hand.append(taken)
        return nq
