"""The computer players: easy, normal and strong.

All three read only their seat's :class:`~engine.views.PrivateView` (public quilts and market,
their own hand and goal offer) and pick one of the legal moves they are given; each owns a
seeded ``random.Random`` and nothing else random. They share the quilt model
(:mod:`engine.ai.model`) and the value function (:mod:`engine.ai.evaluate`):

- **easy** scores every placement by the value function with short-sighted weights (tokens now
  and goals, little else), adds noise, and takes a market tile that suits its quilt more often
  than not. Quick and plausible, never absurd (it will not throw away a token it can see).
- **normal** is greedy on the full value function (tokens now plus positional potential:
  groups growing toward buttons and cats, goal neighbourhoods kept achievable), then for its
  best few placements looks one turn ahead at each market tile it could take: how much the
  best placement of that tile would add next turn.
- **strong** searches two turns: for its most promising placements, every market pick, and the
  best two placements of either tile in the hand it will then hold, each followed by the best
  spot of the tile left over (which may yet be swapped, so its gain counts a little less).
  Tiles it cannot see are sampled from the unseen pool (:mod:`engine.ai.seen`) to value the
  next market (in solo, the market tile that slides along the conveyor stays and is known).
  Against others it also weighs what its pick leaves in the market for the next player, whose
  quilt and goals are public: taking the tile that player wants most is worth something.
  Last, among its best few moves by that search (within :attr:`StrongPlayer.refine_margin`
  points, at most :attr:`StrongPlayer.refine_top`), it plays the one whose **playouts** end
  best: futures of the unseen tiles sampled from its view, each move followed by turns of the
  rollout policy (:mod:`engine.ai.rollout`, about the normal player) on the same futures, then
  valued by the value function. The search misjudges what the next turns really offer (which
  tiles come, which cells stay free); the playouts see it. The playouts are spent by
  successive halving (:func:`_halving`): every candidate on the first futures, the better
  half on more, and so on; the frame (:mod:`engine.ai.frame`), which values a placement from
  what it changes, makes them cheap enough. In a scenario it plays to pass: its search and its
  playouts value every condition and the minimum score at once (``scenario_pass``). Figures:
  ``docs/performance.md``.

The goal draft (:func:`draft_value`) scores each arrangement of three of the offered goals by
the value function of the empty quilt, whose goal part is the expected points of each goal from
an empty neighbourhood (:mod:`engine.ai.goals`: the achievable AAA-BB-C or AA-BB-C-D come out
worth more than their printed values suggest against all-different or AAA-BBB), plus measured
corrections per goal and spot (:data:`DRAFT_CORRECTION`). Easy adds noise to that choice.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.ai.evaluate import DEFAULT, Evaluator, Weights
from engine.ai.frame import frame_of
from engine.ai.model import Quilt, Rules
from engine.ai.rollout import Future, SeatSim
from engine.ai.seen import own_quilt, sample_tiles, seat_quilt, unseen_counts
from engine.config import GameConfig
from engine.hexgrid import NEIGHBOURS
from engine.moves import ChooseGoals, Move, PlaceTile
from engine.views import PrivateView

# The draft's correction to the goal model, per (goal, spot: 0 = B3, 1 = C4, 2 = D2): goal
# points the normal player really reached minus what the model expected, measured over 1,000
# solo games (``benchmarks/bench_ai.py --draft-table 1000``; standard error about 0.3). D2 shares
# only one neighbour with another goal (C2), B3 three, so goals that need many equal tiles do
# better on D2. AAA-BBB was never kept in those games: no correction.
DRAFT_CORRECTION: dict[tuple[str, int], float] = {
    ("aa-bb-c-d", 0): -0.97, ("aa-bb-c-d", 1): -0.78, ("aa-bb-c-d", 2): -0.56,
    ("aa-bb-cc", 0): 0.08, ("aa-bb-cc", 1): 0.02, ("aa-bb-cc", 2): 1.06,
    ("aaa-bb-c", 0): -0.92, ("aaa-bb-c", 1): -0.92, ("aaa-bb-c", 2): -0.24,
    ("aaaa-bb", 0): 0.71, ("aaaa-bb", 1): 0.30, ("aaaa-bb", 2): 1.47,
    ("all-different", 0): 0.06, ("all-different", 1): -0.03, ("all-different", 2): -0.13,
}

SCENARIO_PASS = 40.0  # strong's bonus for passing a scenario (solo achievement mode)
# easy: tokens now count, chances much less (about 40 points a solo game: a beginner's level)
EASY_WEIGHTS = replace(DEFAULT, button=0.4, button1=0.4, size_cat=0.45, shape_cat=0.5,
                       shape_cat2=0.0, rainbow=0.0, goal=0.7)


_Fit = Callable[[int], float]
_Tops = Callable[[int], list[tuple[float, "Quilt"]]]


@dataclass(slots=True)
class _Option:
    """One placement (which tile on which cell) and the moves that make it (one per pick)."""

    tile: int
    cell: int
    source: int | None  # hand position; None without a hand
    moves: list[PlaceTile]
    state: Quilt | None = None
    value: float = 0.0


class _Brain:
    """Per-game caches shared by a player's turns: rules and one evaluator per goal set."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._config: GameConfig | None = None
        self._rules: Rules | None = None
        self._evals: dict[tuple[str, str, str] | None, Evaluator] = {}

    def rules(self, config: GameConfig) -> Rules:
        """The rules model of ``config`` (kept while the game's configuration stays equal, so a
        state reloaded from storage with an equal but new config object reuses the caches)."""
        if self._rules is not None and (self._config is config or self._config == config):
            self._config = config
            return self._rules
        self._config = config
        self._rules = Rules(config)
        self._evals = {}
        return self._rules

    def evaluator(self, config: GameConfig, goals: tuple[str, str, str] | None) -> Evaluator:
        rules = self.rules(config)
        ev = self._evals.get(goals)
        if ev is None:
            ev = Evaluator(config, rules, goals, self.weights)
            self._evals[goals] = ev
        return ev


def draft_value(brain: _Brain, view: PrivateView, goals: tuple[str, str, str]) -> float:
    """How good an arrangement of goal tiles looks on this seat's empty quilt."""
    cfg = view.public.config
    ev = brain.evaluator(cfg, goals)
    quilt = own_quilt(view, brain.rules(cfg))
    return ev.value(quilt) + sum(DRAFT_CORRECTION.get((g, i), 0.0) for i, g in enumerate(goals))


def choose_draft(brain: _Brain, view: PrivateView, legal: list[Move], rng: random.Random,
                 noise: float) -> Move:
    """The best-valued legal :class:`ChooseGoals` (with ``noise`` points of randomness)."""
    best: Move = legal[0]
    best_v = float("-inf")
    for mv in legal:
        if not isinstance(mv, ChooseGoals):
            continue
        v = draft_value(brain, view, mv.goals) + (rng.gauss(0.0, noise) if noise else 0.0)
        if v > best_v:
            best, best_v = mv, v
    return best


def _options(view: PrivateView, legal: list[Move]) -> list[_Option]:
    """Group the legal turns by placement (tile source and cell)."""
    market = view.public.market
    out: dict[tuple[int | None, int, int | None], _Option] = {}
    for mv in legal:
        if not isinstance(mv, PlaceTile):
            continue
        if mv.hand is not None:
            key: tuple[int | None, int, int | None] = (mv.hand, mv.cell, None)
            t = view.hand[mv.hand]
        else:
            assert mv.market is not None
            key = (None, mv.cell, mv.market)
            m = market[mv.market]
            assert m is not None
            t = m
        opt = out.get(key)
        if opt is None:
            out[key] = _Option(t, mv.cell, mv.hand, [mv])
        else:
            opt.moves.append(mv)
    return list(out.values())


def _picked(view: PrivateView, mv: PlaceTile) -> int | None:
    """The market tile this move takes into the hand (None: no pick)."""
    if mv.hand is None or mv.market is None:
        return None
    return view.public.market[mv.market]


class _Searcher:
    """Evaluation helpers bound to one turn: evaluator and rules; the placements valued on a
    quilt are kept with it (:mod:`engine.ai.frame`)."""

    def __init__(self, ev: Evaluator, rules: Rules, root: Quilt | None = None) -> None:
        self.ev = ev
        self.rules = rules
        self.root = root

    def state(self, opt: _Option) -> Quilt:
        """The quilt after the option's placement on the root (made when first asked)."""
        if opt.state is None:
            assert self.root is not None
            opt.state = self.rules.place(self.root, opt.cell, opt.tile)
        return opt.state

    def best_value(self, s: Quilt, t: int) -> float:
        """Best value reachable by placing ``t`` anywhere on ``s`` (-inf: no empty cell)."""
        return frame_of(self.ev, s).best(t, s.empty)[0]

    def best_placement(self, s: Quilt, t: int) -> tuple[float, Quilt | None]:
        """Best value reachable by placing ``t`` anywhere on ``s`` (and the quilt it makes)."""
        v, c = frame_of(self.ev, s).best(t, s.empty)
        return v, (self.rules.place(s, c, t) if c >= 0 else None)

    def top_placements(self, s: Quilt, t: int, k: int) -> list[tuple[float, Quilt]]:
        """The ``k`` best placements of ``t`` on ``s``: (value, quilt), best first (the lower
        cell first among equal values)."""
        out = frame_of(self.ev, s).values(t, s.empty)
        out.sort(key=lambda x: (-x[0], x[1]))
        place = self.rules.place
        return [(v, place(s, c, t)) for v, c in out[:k]]


class _Base(abc.ABC):
    """Shared plumbing: the draft, then ``_turn`` for placements."""

    level = "base"
    weights: Weights = DEFAULT
    draft_noise = 0.0

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._brain = _Brain(self.weights)

    def choose(self, view: PrivateView, legal: list[Move]) -> Move:
        if not legal:
            raise ValueError("no legal move to choose from")
        if isinstance(legal[0], ChooseGoals):
            return self._draft(view, legal)
        cfg = view.public.config
        sv = view.public.seats[view.seat]
        ev = self._brain.evaluator(cfg, sv.goals)
        rules = self._brain.rules(cfg)
        root = own_quilt(view, rules)
        options = _options(view, legal)
        if not options:
            return self._rng.choice(legal)
        frame = frame_of(ev, root)  # children derive their features from the root's
        for opt in options:
            opt.value = frame.value(opt.cell, opt.tile)
        return self._turn(view, legal, root, options, _Searcher(ev, rules, root))

    def _draft(self, view: PrivateView, legal: list[Move]) -> Move:
        """The goal draft: the arrangement the value function likes best."""
        return choose_draft(self._brain, view, legal, self._rng, self.draft_noise)

    @abc.abstractmethod
    def _turn(self, view: PrivateView, legal: list[Move], root: Quilt, options: list[_Option],
              search: _Searcher) -> Move:
        """Pick the turn among ``options`` (each level searches its own way)."""


class EasyPlayer(_Base):
    """Short-sighted, a little random: see the module docstring."""

    level = "easy"
    weights = EASY_WEIGHTS
    draft_noise = 2.0
    noise = 1.2

    def _turn(self, view: PrivateView, legal: list[Move], root: Quilt, options: list[_Option],
              search: _Searcher) -> Move:
        rng = self._rng
        earned_now = max(search.state(o).score for o in options)
        scored = []
        for o in options:
            v = o.value + rng.gauss(0.0, self.noise)
            if search.state(o).score < earned_now:
                v -= 2.0  # never leave a visible token on the table for noise's sake
            scored.append((v, rng.random(), o))
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        opt = scored[0][2]
        if len(opt.moves) == 1:
            return opt.moves[0]
        # market: usually the tile that would fit best, sometimes any
        if rng.random() < 0.3:
            return rng.choice(opt.moves)
        assert opt.state is not None
        return max(opt.moves, key=lambda mv: _quick_fit(opt.state, _picked(view, mv)))


def _quick_fit(s: Quilt | None, t: int | None) -> int:
    """How many placed neighbours of some empty cell share the tile's colour or pattern."""
    if s is None or t is None:
        return 0
    color, pattern = t // 6, t % 6
    best = 0
    q = s.q
    e = s.empty
    while e:
        low = e & -e
        e ^= low
        c = low.bit_length() - 1
        n = 0
        for x in NEIGHBOURS[c]:
            u = q[x]
            if u >= 0:
                n += (u // 6 == color) + (u % 6 == pattern)
        best = max(best, n)
    return best


class NormalPlayer(_Base):
    """Greedy on the value function, with a one-turn look at the market: see the docstring."""

    level = "normal"
    top = 3
    pick_weight = 0.6

    def _turn(self, view: PrivateView, legal: list[Move], root: Quilt, options: list[_Option],
              search: _Searcher) -> Move:
        options.sort(key=lambda o: o.value, reverse=True)
        best_move: Move = options[0].moves[0]
        best_v = float("-inf")
        fit_cache: dict[tuple[int, int], float] = {}
        for i, opt in enumerate(options[: self.top]):
            state = search.state(opt)
            for mv in opt.moves:
                t = _picked(view, mv)
                gain = 0.0
                if t is not None:
                    key = (i, t)
                    if key not in fit_cache:
                        fit_cache[key] = search.best_value(state, t) - opt.value
                    gain = fit_cache[key]
                v = opt.value + self.pick_weight * gain
                if v > best_v:
                    best_move, best_v = mv, v
        return best_move


def _halving(n: int, plan: list[tuple[int, int | None]], futures: list[Future],
             playout: Callable[[int, Future, int | None], float]) -> tuple[list[int], list[float]]:
    """Successive halving over ``n`` choices: each round of ``plan`` (futures, depth) plays
    every choice still in on the round's next futures (the same for each: common random
    numbers), then the better half by the mean so far goes on. Returns the choices left and
    each one's mean over the futures it was played on."""
    sums = [0.0] * n
    counts = [0] * n
    alive = list(range(n))
    pos = 0
    for r, (k, depth) in enumerate(plan):
        batch = futures[pos:pos + k]
        pos += k
        for i in alive:
            for f in batch:
                sums[i] += playout(i, f, depth)
            counts[i] += len(batch)
        if r < len(plan) - 1:
            alive.sort(key=lambda i: -sums[i])  # stable: the earlier order among equals
            alive = alive[: (len(alive) + 1) // 2]
    return alive, [x / c if c else float("-inf") for x, c in zip(sums, counts, strict=True)]


class StrongPlayer(_Base):
    """Two-turn search with sampled market refills: see the module docstring."""

    level = "strong"
    # In a scenario, a bonus for passing it (every condition and the score) on top of each
    # condition's: see docs/performance.md (issue 31, scenarios)
    weights = replace(DEFAULT, scenario_pass=SCENARIO_PASS)
    pool = 40  # placements (best on their own) tried with the other hand tile ...
    width = 8  # ... of which the best are searched
    keep = 3  # and the best few placements on their own
    samples = 6  # unseen tiles sampled to value the next market
    leftover_weight = 0.85
    market_weight = 0.35
    pair_top = 2  # next turn: cells tried for the first of the two hand tiles
    # against others: what the market left to the next seat is worth to it, counted against
    # strong's own gain one for one (a point for a rival is a point behind it; 2-player
    # duplicate games against normal: 0 and 0.5 won 65-66 %, 1.0 won 70 %, 1.5 won 74 %)
    deny_weight = 1.0
    # the playouts that choose among the best searched moves: futures of the first round (0:
    # none), own turns played before the value function, how many moves and how far below the
    # best (issue 21: 6 futures 4 deep for 3 moves within 3 points; with the frame, 8 deep
    # for up to 6 moves within 5 points, halved over 3 rounds, costs 1.2-1.5 times that)
    playouts = 6
    playout_depth: int | None = 8
    refine_top = 6
    refine_margin = 5.0
    refine_search_weight = 0.0  # weight of the search value (below the best) added to a mean
    # the goal draft by playouts from the start (0: by the value function alone)
    draft_playouts = 0
    draft_depth: int | None = 8
    draft_top = 6
    draft_margin = 4.0
    draft_rounds = 3
    # Count what the market leaves the next player in the playouts' choice too (issue 31:
    # duplicate 2-player games against strong without it, 60 deals: +2.37 +- 1.15 points a
    # deal, 55 % of the games, no more CPU; solo games are unchanged: no one is next).
    refine_deny = True
    rounds = 3  # rounds of the halving (1: every move on the same futures, no halving)
    halve_futures = 6  # futures added in each later round, for the better half
    halve_depth: int | None = 8  # their depth (None: to the end of the game)

    def __init__(self, seed: int, width: int | None = None, samples: int | None = None,
                 pool: int | None = None) -> None:
        """``width``, ``samples`` and ``pool`` shrink the search (tests use a small one)."""
        super().__init__(seed)
        if width is not None:
            self.width = width
        if samples is not None:
            self.samples = samples
        if pool is not None:
            self.pool = pool

    def _turn(self, view: PrivateView, legal: list[Move], root: Quilt, options: list[_Option],
              search: _Searcher) -> Move:
        options.sort(key=lambda o: o.value, reverse=True)
        hand = view.hand
        market = view.public.market
        if options[0].source is None or len(hand) < 2:
            return options[0].moves[0]  # no hand, or nothing left to plan with
        turns_after = root.turns_left - 1
        if turns_after == 0 or all(mv.market is None for mv in options[0].moves):
            return options[0].moves[0]
        solo = view.public.config.solo
        pool = unseen_counts(view)
        draws = self._draws(pool)
        # preselect: the placements that go best with the other hand tile placed next turn,
        # plus the best few on their own
        pre: list[tuple[float, int]] = []
        for i, opt in enumerate(options[: self.pool]):
            assert opt.source is not None
            pre.append((search.best_value(search.state(opt), hand[1 - opt.source]), i))
        pre.sort(reverse=True)
        chosen = {i for _, i in pre[: self.width]} | set(range(min(self.keep, len(options))))
        deny = {} if solo else self._denial(view, search)
        best_move: Move = options[0].moves[0]
        best_v = float("-inf")
        scored: list[tuple[float, PlaceTile]] = []
        for i in sorted(chosen):
            opt = options[i]
            child = search.state(opt)
            assert opt.source is not None
            other = hand[1 - opt.source]

            def fit(t: int, s: Quilt = child) -> float:
                return search.best_value(s, t)

            tops_memo: dict[int, list[tuple[float, Quilt]]] = {}

            def tops(t: int, s: Quilt = child,
                     memo: dict[int, list[tuple[float, Quilt]]] = tops_memo
                     ) -> list[tuple[float, Quilt]]:
                got = memo.get(t)
                if got is None:
                    got = search.top_placements(s, t, self.pair_top)
                    memo[t] = got
                return got

            # value of what the next market may offer, from sampled tiles
            sample_gain = [fit(t) - opt.value for t in draws]
            mean_gain = sum(sample_gain) / len(sample_gain) if sample_gain else 0.0
            for mv in opt.moves:
                picked = _picked(view, mv)
                if picked is None:
                    v = opt.value
                else:
                    v = self._two_tiles(search, fit, tops, other, picked, turns_after)
                    if solo and turns_after > 2:
                        kept = self._kept(market, mv.market)
                        if kept is not None:
                            # the conveyor keeps one known tile for the next market
                            gk = fit(kept) - opt.value
                            v += self.market_weight * max(0.0, gk - mean_gain)
                    if turns_after > 2:
                        v += self.market_weight * mean_gain
                    v -= deny.get(mv.market, 0.0)
                scored.append((v, mv))
                if v > best_v:
                    best_move, best_v = mv, v
        if self.playouts and turns_after > 1:
            return self._refine(view, scored, best_move, best_v,
                                deny if self.refine_deny else None)
        return best_move

    def _refine(self, view: PrivateView, scored: list[tuple[float, PlaceTile]],
                best_move: Move, best_v: float, deny: dict[int | None, float] | None = None
                ) -> Move:
        """Among the searched moves within ``refine_margin`` of the best (at most
        ``refine_top``), the one whose playouts (:mod:`engine.ai.rollout`) end best on average,
        by successive halving: every move is played out on the same sampled futures, the
        better half goes on to more futures (the same for each, played ``halve_depth`` turns
        deep), and so on until one is left or ``rounds`` are played. ``deny`` (against others):
        what each market slot taken leaves the next player, subtracted from the mean."""
        scored.sort(key=lambda x: x[0], reverse=True)
        cands: list[tuple[float, PlaceTile]] = []
        seen: set[tuple[int, int | None, int | None]] = set()
        for v, mv in scored:
            if v < best_v - self.refine_margin or len(cands) >= self.refine_top:
                break
            key = (mv.cell, mv.hand, mv.market)
            if key not in seen:
                seen.add(key)
                cands.append((v, mv))
        if len(cands) < 2:
            return best_move
        sim = SeatSim(view, weights=self.weights)
        seed = self._rng.getrandbits(64)
        plan = self._plan(len(cands), self.playouts, self.playout_depth, self.rounds,
                          self.halve_futures, self.halve_depth)
        futures = self._futures(sim, sum(n for n, _ in plan), seed)

        def playout(i: int, f: Future, depth: int | None) -> float:
            o = sim.play_out(cands[i][1], f, depth)
            return o.total + o.bonus

        alive, means = _halving(len(cands), plan, futures, playout)

        def final(i: int) -> float:
            v, mv = cands[i]
            return (means[i] + self.refine_search_weight * (v - best_v)
                    - (deny.get(mv.market, 0.0) if deny else 0.0))

        return cands[max(alive, key=final)][1]

    def _draft(self, view: PrivateView, legal: list[Move]) -> Move:
        """The goal draft: with ``draft_playouts``, the best few arrangements by the value
        function (within ``draft_margin`` of the best, at most ``draft_top``) are played out
        from the start on the same sampled futures, halving as the turns' playouts do."""
        if not self.draft_playouts:
            return super()._draft(view, legal)
        ranked = sorted(((draft_value(self._brain, view, mv.goals), i, mv)
                         for i, mv in enumerate(legal) if isinstance(mv, ChooseGoals)),
                        key=lambda x: (-x[0], x[1]))
        cands = [mv for v, _, mv in ranked if v >= ranked[0][0] - self.draft_margin]
        cands = cands[: self.draft_top]
        if len(cands) < 2:
            return cands[0] if cands else legal[0]
        sims = [SeatSim(view, goals=mv.goals, weights=self.weights) for mv in cands]
        plan = self._plan(len(cands), self.draft_playouts, self.draft_depth, self.draft_rounds,
                          self.draft_playouts, self.draft_depth)
        futures = self._futures(sims[0], sum(n for n, _ in plan), self._rng.getrandbits(64))

        def playout(i: int, f: Future, depth: int | None) -> float:
            o = sims[i].play_from_start(f, depth)
            return o.total + o.bonus

        alive, means = _halving(len(cands), plan, futures, playout)
        return cands[max(alive, key=lambda i: means[i])]

    @staticmethod
    def _plan(n: int, first: int, depth: int | None, rounds: int, more: int,
              more_depth: int | None) -> list[tuple[int, int | None]]:
        """(futures, depth) of each round of the halving for ``n`` choices: ``first`` futures
        ``depth`` turns deep for all, then ``more`` futures ``more_depth`` deep for the better
        half, and so on (``rounds`` at most)."""
        plan: list[tuple[int, int | None]] = [(first, depth)]
        alive = n
        while alive > 1 and len(plan) < rounds:
            alive = (alive + 1) // 2
            plan.append((more, more_depth))
        return plan

    def _draws(self, pool: list[int]) -> list[int]:
        """Tiles that may come to the market next, sampled from the unseen ``pool`` (counts
        per kind)."""
        return sample_tiles(pool, self.samples, self._rng)

    def _futures(self, sim: SeatSim, n: int, seed: int) -> list[Future]:
        """``n`` sampled futures of what the seat cannot see (a benchmark's clairvoyant
        reference gives the real one instead: never the bot)."""
        return sim.sample_futures(n, seed)

    def _two_tiles(self, search: _Searcher, fit: _Fit, tops: _Tops, other: int, picked: int,
                   turns_after: int) -> float:
        """Best of placing either hand tile next turn, the other one valued by its best spot
        after that (``leftover_weight`` of its gain: it may yet be swapped for a better one)."""
        va = fit(other)
        vb = fit(picked)
        if turns_after == 1:
            return max(va, vb)
        lw = self.leftover_weight
        best = float("-inf")
        for first, second in ((other, picked), (picked, other)):
            for v1, s1 in tops(first):
                v2 = search.best_value(s1, second)
                best = max(best, v1 + lw * (v2 - v1))
        return best

    def _denial(self, view: PrivateView, search: _Searcher) -> dict[int | None, float]:
        """Per market slot taken: what the best tile left would add to the next seat's quilt
        (its quilt and goals are public), times ``deny_weight`` shared among the others."""
        pub = view.public
        nxt = (view.seat + 1) % pub.config.players
        osv = pub.seats[nxt]
        if len(osv.placed) >= 21 or self.deny_weight <= 0:
            return {}  # the next seat will not place a tile taken now
        rules = search.rules
        oev = self._brain.evaluator(pub.config, osv.goals)
        oq = seat_quilt(view, nxt, rules)
        base = oev.value(oq)
        opp = _Searcher(oev, rules)
        gains: dict[int, float] = {}
        for t in pub.market:
            if t is not None and t not in gains:
                gains[t] = opp.best_value(oq, t) - base
        weight = self.deny_weight / (pub.config.players - 1)
        out: dict[int | None, float] = {}
        for k, t in enumerate(pub.market):
            if t is not None:
                rest = [gains[u] for j, u in enumerate(pub.market) if j != k and u is not None]
                out[k] = weight * max(rest, default=0.0)
        return out

    @staticmethod
    def _kept(market: tuple[int | None, ...], slot: int | None) -> int | None:
        """Solo conveyor: the market tile that stays after taking ``slot``."""
        if slot is None:
            return None
        rest = [i for i in range(3) if i != slot]
        return market[rest[1]]


