"""The computer players' value function: what a quilt is worth, tokens earned plus the points
it can still expect.

``value(quilt) = points earned + Σ weight × points × chance`` over these potentials:

- **buttons**: each colour group without a button (border patches included), by its size (1 or
  2) and its free liberties: the empty cells next to it that do not also touch a buttoned group
  of that colour (a tile there would merge into that group and earn nothing);
- **size cats**: each pattern group without a cat, by the tiles it still needs and its free
  liberties, if there is room to grow (enough free cells within two steps);
- **shape cats**: for each of the cat's patterns, its best and second-best non-overlapping open
  placements of the shape (only empty cells or unscored tiles of that pattern, not touching a
  group that already has the cat), by the empty cells each still needs;
- **design goals**: the exact expected points of :mod:`engine.ai.goals` for the colour and
  pattern counts the neighbours show;
- **rainbow**: 3 points times the chance that every colour still without a button gets one
  (per colour: one minus the chance that none of its groups gets one);
- **scenario** (solo achievement mode): a bonus per condition, by a rough chance of meeting it,
  and (``scenario_pass``, strong's) one for all of them and the minimum score at once.

The chances are not guessed: :mod:`engine.ai.tables` holds how often each situation led to the
token in self-play, by the turns left (``benchmarks/bench_ai.py --calibrate``). The weights in
:class:`Weights` scale them; they were tuned by playing games.

Evaluating a quilt made by one placement from an evaluated quilt only redoes the groups that
placement can have changed (:meth:`Evaluator.features`): this is what makes search affordable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.ai.goals import Counts, counts_of, goal_value
from engine.ai.model import BUTTON_POINTS, Quilt, Rules, dilate
from engine.ai.tables import BUTTON, GOAL_M, SHAPE_FIRST, SHAPE_SECOND, SIZE_CAT
from engine.config import GameConfig, Restriction
from engine.hexgrid import CELLS, NEIGHBOURS


@dataclass(frozen=True, slots=True)
class Weights:
    """Scales on the measured chance tables.

    The tables say how often a token came *on average*; a greedy player does better trusting
    those chances less than the points it can take now, and goals somewhat more (a coordinate
    search over solo games of the normal player: potentials at one half to two thirds, goals at
    1.17 with a goal choosiness three quarters of the measured one scored best; on the same 200
    seeds the normal player averages 63.3 with these weights, 62.0 with the previous ones).
    """

    button: float = 0.65  # colour groups of 2
    button1: float = 0.49  # colour groups of 1 (border patches too)
    size_cat: float = 0.53
    shape_cat: float = 0.7  # best open placement
    shape_cat2: float = 0.7  # second-best open placement
    rainbow: float = 1.0
    goal: float = 1.17
    goal_m: float = 0.75  # scale on the goal choosiness of the tables
    scenario_bonus: float = 12.0  # per scenario condition (solo achievement mode)
    # for every condition at once (a scenario is passed only with all of them and the score):
    # times the product of the conditions' chances
    scenario_pass: float = 0.0
    # per turns left (0 to 22): a weight per term of TERMS, replacing the scales above
    by_turns: tuple[tuple[float, ...], ...] | None = None

    def per_turn(self) -> list[tuple[float, ...]]:
        """The weight of each term of :data:`TERMS` by the turns left (0 to 22)."""
        if self.by_turns is not None:
            return list(self.by_turns)
        row = (self.goal, self.button, self.button1, self.rainbow, self.size_cat,
               self.shape_cat, self.shape_cat2)
        return [row] * 23


DEFAULT = Weights()

# The potentials the value function weighs, each in expected points (see Evaluator.terms)
TERMS = ("goals", "button2", "button1", "rainbow", "size_cat", "shape_cat", "shape_cat2")


class Features:
    """Per-group terms of a quilt that do not depend on the turns left (see ``_derive``)."""

    __slots__ = ("colour", "colour_forbid", "opened", "pattern", "pattern_forbid")

    def __init__(self) -> None:
        # colour group id -> (colour, size, free liberties capped at 4), buttonless groups only
        self.colour: dict[int, tuple[int, int, int]] = {}
        # per colour: cells next to a buttoned group of that colour
        self.colour_forbid = [0, 0, 0, 0, 0, 0]
        # pattern group id -> (cat index, tiles still needed, liberties capped at 3)
        self.pattern: dict[int, tuple[int, int, int]] = {}
        self.pattern_forbid = [0, 0, 0, 0, 0, 0]
        self.opened = [0, 0, 0, 0, 0, 0]  # per pattern: tiles in groups without a cat


@dataclass(slots=True)
class _Cat:
    index: int
    points: int
    size: int
    shape_len: int
    shapes: tuple[int, ...] = field(default_factory=tuple)


class Evaluator:
    """The value function for one seat: its board's goals, the game's cats and the weights."""

    def __init__(self, config: GameConfig, rules: Rules, goals: tuple[str, str, str] | None,
                 weights: Weights = DEFAULT) -> None:
        self.config = config
        self.rules = rules
        self.w = weights
        self._wt = weights.per_turn()
        self.both_only = config.restriction is Restriction.BOTH_WAYS
        self.goal_spots = config.goal_spots
        self.goal_rules = ([config.goal(g) for g in goals] if goals is not None else [])
        self.cats = [
            _Cat(i, c.points, c.min_size, len(c.shape), rules.cat_shapes[i])
            for i, c in enumerate(config.cats)
        ]
        self.cat_of_pattern = [self.cats[ci] for ci in rules.cat_of_pattern]
        self.cat_points = [c.points for c in self.cats]
        self.scenario = config.scenario
        self.spots_of_cell: list[list[int]] = [
            [i for i, spot in enumerate(self.goal_spots[: len(self.goal_rules)])
             if cell in NEIGHBOURS[spot]] for cell in range(CELLS)]

    # ------------------------------------------------------------------ pieces

    def _goal_key(self, s: Quilt, i: int) -> tuple[Counts, Counts]:
        q = s.q
        cols = []
        pats = []
        for n in NEIGHBOURS[self.goal_spots[i]]:
            t = q[n]
            if t >= 0:
                cols.append(t // 6)
                pats.append(t % 6)
        return counts_of(cols), counts_of(pats)

    def goal_points(self, s: Quilt, m: float) -> list[float]:
        """Expected points of each goal on the quilt (exact once surrounded)."""
        keys = s.goal_keys
        if keys is None:
            p = s.parent
            if p is not None and p.goal_keys is not None:
                keys = p.goal_keys.copy()
                for i in self.spots_of_cell[s.cell]:
                    keys[i] = self._goal_key(s, i)
            else:
                keys = [self._goal_key(s, i) for i in range(len(self.goal_rules))]
            s.goal_keys = keys
        both_only = self.both_only
        return [goal_value(r.counts, r.one_way, r.both_ways, both_only, m, k[0], k[1])
                for r, k in zip(self.goal_rules, keys, strict=True)]

    def value(self, s: Quilt) -> float:
        """Points earned plus the potentials described in the module docstring."""
        turns = s.empty.bit_count()
        goals = self.goal_points(s, GOAL_M[turns] * self.w.goal_m)
        if turns == 0:
            total = s.score + sum(goals)
            return total + self.scenario_extra(s.ccnt, s.bcnt, s.rainbow, goals, None, None,
                                               total=total)
        _, expected, extra = self._terms(s, turns, goals)
        return expected + extra

    def weights_at(self, turns: int) -> tuple[float, ...]:
        """The weight of each term of :data:`TERMS` with ``turns`` turns left."""
        return self._wt[turns]

    def scenario_points(self, s: Quilt, total: float | None = None) -> float:
        """The bonus :meth:`value` gives a full quilt for the scenario's conditions met
        (``total``: its score, for the scenario's minimum; None: not counted)."""
        return self.scenario_extra(s.ccnt, s.bcnt, s.rainbow, self.goal_points(s, 0.0), None,
                                   None, total=total)

    def terms(self, s: Quilt) -> tuple[float, ...]:
        """The unweighted potentials of a quilt that is not full, in :data:`TERMS` order (what
        :meth:`value` weighs; ``benchmarks/bench_ai.py --fit`` fits the weights to them)."""
        turns = s.empty.bit_count()
        goals = self.goal_points(s, GOAL_M[turns] * self.w.goal_m)
        return self._terms(s, turns, goals)[0]

    def _terms(self, s: Quilt, turns: int, goals: list[float]
               ) -> tuple[tuple[float, float, float, float, float, float, float], float, float]:
        """(the potentials in :data:`TERMS` order, the points expected from them and those
        earned, the scenario bonus) of a quilt not full."""
        f = self.features(s)
        # -- buttons
        pot1 = pot2 = 0.0
        b1, b2 = BUTTON
        miss = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]  # chance each colour gets no (more) button
        for key, size, libs in f.colour.values():
            if size == 2:
                p = b2[libs - 1][turns]
                pot2 += p
            elif turns >= 2:
                p = b1[libs - 1][turns]
                pot1 += p
            else:
                continue
            miss[key] *= 1.0 - p
        # -- rainbow: every colour without a button still gets one
        chance = 0.0
        if not s.rainbow:
            chance = 1.0
            for c in range(6):
                if not s.bcol >> c & 1:
                    chance *= 1.0 - miss[c]
        # -- cats
        size_total = 0.0
        cat_tokens = [0.0, 0.0, 0.0]  # expected future tokens per cat
        points = self.cat_points
        for ci, need, libs in f.pattern.values():
            if need <= turns:
                p = SIZE_CAT[need - 1][libs - 1][turns]
                size_total += points[ci] * p
                cat_tokens[ci] += p
        shape1, shape2 = self._shapes(s, f, turns, cat_tokens)
        terms = (sum(goals), BUTTON_POINTS * pot2, BUTTON_POINTS * pot1, BUTTON_POINTS * chance,
                 size_total, shape1, shape2)
        wt = self._wt[turns]
        expected = (s.score + wt[0] * terms[0] + wt[1] * terms[1] + wt[2] * terms[2]
                    + wt[3] * terms[3] + wt[4] * terms[4] + wt[5] * terms[5] + wt[6] * terms[6])
        extra = 0.0
        if self.scenario is not None:
            buttons = [0.0] * 6
            for key, size, libs in f.colour.values():
                buttons[key] += (b2 if size == 2 else b1)[libs - 1][turns]
            extra = self.scenario_extra(s.ccnt, s.bcnt, s.rainbow, goals, cat_tokens, buttons,
                                        rainbow_chance=chance, total=expected, turns=turns)
        return terms, expected, extra

    # ------------------------------------------------------------------ group features

    def features(self, s: Quilt) -> Features:
        """The quilt's group features, derived from its parent's where possible."""
        f = s.features
        if isinstance(f, Features):
            return f
        p = s.parent
        pf = p.features if p is not None else None
        f = self._derive(s, pf) if isinstance(pf, Features) else self._fresh(s)
        s.features = f
        return f

    def _colour_entry(self, s: Quilt, gid: int, forbid: list[int]
                      ) -> tuple[int, int, int] | None:
        mask, nb, key = s.cgroups[gid]
        if mask & s.bm:
            return None
        libs = (nb & s.empty & ~forbid[key]).bit_count()
        if not libs:
            return None
        return key, mask.bit_count(), min(libs, 4)

    def _pattern_entry(self, s: Quilt, gid: int, forbid: list[int]
                       ) -> tuple[int, int, int] | None:
        mask, nb, key = s.pgroups[gid]
        cat = self.cat_of_pattern[key]
        if not cat.size or mask & s.cm:
            return None
        need = cat.size - mask.bit_count()
        if need <= 0:
            return None
        free = s.empty & ~forbid[key]
        libs = nb & free
        if not libs:
            return None
        nlibs = libs.bit_count()
        # room to grow: enough free cells within two steps of the group
        if nlibs < need and (dilate(libs) & free).bit_count() < need:
            return None
        return cat.index, need, min(nlibs, 3)

    def _fresh(self, s: Quilt) -> Features:
        f = Features()
        bm, cm = s.bm, s.cm
        for mask, nb, key in s.cgroups.values():
            if mask & bm:
                f.colour_forbid[key] |= nb
        for gid in s.cgroups:
            e = self._colour_entry(s, gid, f.colour_forbid)
            if e is not None:
                f.colour[gid] = e
        for mask, nb, key in s.pgroups.values():
            if mask & cm:
                f.pattern_forbid[key] |= nb
            else:
                f.opened[key] |= mask
        for gid in s.pgroups:
            pe = self._pattern_entry(s, gid, f.pattern_forbid)
            if pe is not None:
                f.pattern[gid] = pe
        return f

    def _derive(self, s: Quilt, pf: Features) -> Features:
        """Features after one placement: only the groups it can have changed are redone."""
        p = s.parent
        assert p is not None
        cell = s.cell
        bit = 1 << cell
        t = s.q[cell]
        color, pattern = t // 6, t % 6
        f = Features.__new__(Features)
        # colour groups: the ones next to the cell lost a liberty or merged into the new one
        colour = pf.colour.copy()
        forbid = pf.colour_forbid
        gid = s.cgid[cell]
        mask, nb, _ = s.cgroups[gid]
        redo = {gid}
        pq = p.q
        for x in NEIGHBOURS[cell]:
            if pq[x] >= 0:
                colour.pop(p.cgid[x], None)
                redo.add(s.cgid[x])
        if mask & s.bm and forbid[color] | nb != forbid[color]:
            forbid = forbid.copy()
            forbid[color] |= nb
            redo.update(g for g, e in colour.items() if e[0] == color)
        for g in redo:
            e = self._colour_entry(s, g, forbid)
            if e is None:
                colour.pop(g, None)
            else:
                colour[g] = e
        f.colour, f.colour_forbid = colour, forbid
        # pattern groups: the ones within two steps (liberties and room), and the new one
        pattern_ = pf.pattern.copy()
        pforbid = pf.pattern_forbid
        opened = pf.opened
        gid = s.pgid[cell]
        mask, nb, _ = s.pgroups[gid]
        redo = {gid}
        near = dilate(dilate(bit)) & ~bit
        while near:
            low = near & -near
            near ^= low
            x = low.bit_length() - 1
            if pq[x] >= 0:
                pattern_.pop(p.pgid[x], None)
                redo.add(s.pgid[x])
        opened = opened.copy()
        if mask & s.cm:
            opened[pattern] &= ~mask
            if pforbid[pattern] | nb != pforbid[pattern]:
                pforbid = pforbid.copy()
                pforbid[pattern] |= nb
                redo.update(g for g, e in pattern_.items()
                            if s.pgroups[g][2] == pattern)
        else:
            opened[pattern] |= bit
        for g in redo:
            pe = self._pattern_entry(s, g, pforbid)
            if pe is None:
                pattern_.pop(g, None)
            else:
                pattern_[g] = pe
        f.pattern, f.pattern_forbid, f.opened = pattern_, pforbid, opened
        return f

    def _shapes(self, s: Quilt, f: Features, turns: int, tokens: list[float]
                ) -> tuple[float, float]:
        """Points expected from the shape cats, from the best and from the second-best open
        placements; adds the expected tokens per cat to ``tokens``."""
        total1 = total2 = 0.0
        for cat in self.cats:
            if cat.size:
                continue
            first = SHAPE_FIRST[cat.shape_len]
            second = SHAPE_SECOND[cat.shape_len]
            length = cat.shape_len
            for key in self.rules.config.cats[cat.index].patterns:
                k1 = k2 = 0
                opened = f.opened[key]
                if opened:
                    used = 0
                    for k, m in self.shape_list(s, cat, key, opened, f.pattern_forbid[key]):
                        if k >= length or k > turns:
                            break
                        if m & used:
                            continue
                        if k1:
                            k2 = k
                            break
                        k1 = k
                        used = m
                total1 += cat.points * first[k1][turns]
                total2 += cat.points * second[k2][turns]
                tokens[cat.index] += first[k1][turns] + second[k2][turns]
        return total1, total2

    @staticmethod
    def shape_list(s: Quilt, cat: _Cat, key: int, opened: int, forbid: int
                   ) -> list[tuple[int, int]]:
        """Open placements of the cat's shape for pattern ``key``, as sorted (empty cells, mask).

        Open: every cell an empty cell or an unscored tile of the pattern, none next to a group
        of the pattern that already has its cat. Derived from the parent quilt's list when the
        last placement only removed an empty cell (the usual case), else computed afresh.
        """
        got = s.shapes.get(key)
        if got is not None:
            return got[2]
        p = s.parent
        lst: list[tuple[int, int]] | None = None
        if p is not None:
            prev = p.shapes.get(key)
            if prev is not None and prev[1] == forbid:
                bit = 1 << s.cell
                if prev[0] == opened:  # another pattern placed: its cell closes placements
                    lst = [x for x in prev[2] if not x[1] & bit]
                elif prev[0] | bit == opened:  # this pattern placed, no cat yet
                    lst = sorted([(k - 1, m) if m & bit else (k, m) for k, m in prev[2]])
        if lst is None:
            empty = s.empty
            blocked = ~(opened | empty) | forbid
            lst = sorted([((m & empty).bit_count(), m) for m in cat.shapes if not m & blocked])
        s.shapes[key] = (opened, forbid, lst)
        return lst

    def scenario_extra(self, ccnt: tuple[int, ...], bcnt: tuple[int, ...], rainbow: bool,
                       goals: list[float], cat_tokens: list[float] | None,
                       buttons: list[float] | None, *, rainbow_chance: float = 0.0,
                       total: float | None = None, turns: int = 0) -> float:
        """Bonus for the scenario's conditions (solo achievement mode), for a quilt with
        ``ccnt`` cat tokens per cat, ``bcnt`` buttons per colour and ``rainbow``.

        Each condition is worth ``scenario_bonus`` once met; before that, a rough chance from the
        tokens earned plus those expected (``cat_tokens`` per cat, ``buttons`` per colour; None
        once the quilt is full) and ``rainbow_chance``. ``scenario_pass`` more for all of them at
        once (the product of their chances: a scenario is passed only with every condition; a
        full quilt's are met or not). ``total``: the quilt's score, or with ``turns`` left its
        expected final score, for the chance of reaching the scenario's minimum (None: not
        counted).
        """
        sc = self.scenario
        if sc is None:
            return 0.0
        full = cat_tokens is None
        chances: list[float] = []  # each condition's (1: met)
        cats = [n + (cat_tokens[i] if cat_tokens else 0.0) for i, n in enumerate(ccnt)]
        if sc.rainbow:
            chances.append(1.0 if rainbow else (0.0 if full else rainbow_chance))
        if sc.cat_tokens:
            chances.append(_chance(sum(cats), sc.cat_tokens))
        if sc.each_cat:
            chances.append(min(1.0, cats[0]) * min(1.0, cats[1]) * min(1.0, cats[2]))
        if sc.same_cat:
            chances.append(_chance(max(cats), sc.same_cat))
        if sc.buttons_one_color:
            per = [n + (buttons[i] if buttons else 0.0) for i, n in enumerate(bcnt)]
            chances.append(_chance(max(per), sc.buttons_one_color))
        if sc.goals_met or sc.goals_both:
            # goal expectations, normalised by each goal's one-way / both-ways value; a goal met
            # one way only is worth about two thirds of both ways, and counted so it made
            # three goals met one way look like two met both ways: the chance of both ways
            # falls off with the cube (a full quilt's goals are met both ways or not at all)
            rules = self.goal_rules
            one = [min(1.0, g / r.one_way) for g, r in zip(goals, rules, strict=False)]
            if full:
                both = [1.0 if g >= r.both_ways else 0.0 for g, r in zip(goals, rules,
                                                                         strict=False)]
            else:
                both = [min(1.0, g / r.both_ways) ** 3 for g, r in zip(goals, rules,
                                                                     strict=False)]
            if sc.goals_met:
                chances.append(_chance(sum(one), sc.goals_met))
            if sc.goals_both:
                chances.append(_chance(sum(both), sc.goals_both))
        out = self.w.scenario_bonus * sum(chances)
        if self.w.scenario_pass:
            # all of them: a full quilt's conditions are met or not
            joint = float(all(c >= 1.0 for c in chances)) if full else math.prod(chances)
            if total is not None:
                joint *= _score_chance(total - sc.min_score, turns)
            out += self.w.scenario_pass * joint
        return out


def _score_chance(margin: float, turns: int) -> float:
    """A rough chance that a quilt whose expected final score is ``margin`` above a minimum
    (below when negative) ends at or above it, with ``turns`` left (0: known, met or not): a
    logistic curve whose spread grows with the turns left, as the final score's does (a solo
    game's score varies by about 7 points from the start)."""
    if turns <= 0:
        return 1.0 if margin >= 0 else 0.0
    x = 1.7 * margin / (1.5 * math.sqrt(turns) + 0.5)
    if x < -30.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def _chance(expected: float, needed: int) -> float:
    """A rough chance of reaching ``needed`` when ``expected`` are expected: 1 once reached,
    falling off quadratically below."""
    if expected >= needed:
        return 1.0
    return (expected / needed) ** 2
