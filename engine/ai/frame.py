"""Values of every placement of one tile on one quilt, from what each placement changes.

Search and playouts mostly ask one question: of these empty cells, where does this tile score
best by the value function (:class:`engine.ai.evaluate.Evaluator`)? Placing the tile on each
cell and evaluating each new quilt in full repeats, for every cell, the work that is the same
for all of them. A :class:`Frame` does that shared work once per quilt: every colour group,
size-cat group, shape-cat placement and design goal valued at the turns left after one more
placement. It then values each placement from the few terms the placement changes:

- the colour groups next to the cell: merged into the tile's group (which may earn a button and
  so forbid its liberties to the other groups of that colour), or losing a liberty;
- the size-cat groups the cell can reach: a liberty lost, or room to grow (cells within two
  steps), or merged into the tile's group (which may earn its cat);
- the shape-cat placements through the cell: closed for the other patterns, one cell nearer
  for the tile's own;
- the goals around the cell: one more colour and pattern among their neighbours.

The numbers are the value function's own (``tests/engine/ai/test_frame.py`` compares them on
thousands of placements in every variant); only float rounding may differ. A placement that
fills the quilt is valued by the value function itself. One frame serves every tile asked of
its quilt (the search tries several tiles on the same quilt), so it is kept on the quilt.
"""

from __future__ import annotations

from engine.ai.evaluate import Evaluator
from engine.ai.goals import goal_value
from engine.ai.model import ALL_COLORS, BUTTON_POINTS, Quilt, dilate
from engine.ai.tables import BUTTON, GOAL_M, SHAPE_FIRST, SHAPE_SECOND, SIZE_CAT
from engine.hexgrid import NEIGHBOUR_MASK, NEIGHBOURS

# A colour group's term at the turns left T: (colour, size, free liberties, the table's chance
# of a button, its part of the 2-group potential, of the 1-group potential, its factor in the
# chance that its colour gets no button).
_CEntry = tuple[int, int, int, float, float, float, float]
# A size-cat group's term: (pattern, cat, tiles needed, liberties, liberty cells, the cells whose
# filling can change the term, points expected, chance).
_SEntry = tuple[int, int, int, int, int, int, float, float]


def frame_of(ev: Evaluator, s: Quilt) -> Frame:
    """The frame of ``s`` for ``ev`` (made once, kept on the quilt)."""
    f = s.frame
    if isinstance(f, Frame) and f.ev is ev:
        return f
    f = Frame(ev, s)
    if f.last is None:  # a frame holding its quilt is not kept on it: no reference cycle
        s.frame = f
    return f


class Frame:
    """The value-function terms of one quilt with at least two empty cells, at the turns left
    after one more placement (see the module docstring)."""

    __slots__ = (
        "_around",
        "_best",
        "_excl",
        "_gcache",
        "bcnt",
        "bcol",
        "bm",
        "buttons",
        "by_colour",
        "ccnt",
        "centries",
        "cforbid",
        "cgid",
        "cgroups",
        "cm",
        "empty",
        "ev",
        "gcols",
        "goals",
        "gpats",
        "gsum",
        "has_scenario",
        "last",
        "m",
        "miss",
        "opened",
        "pforbid",
        "pgid",
        "pgroups",
        "pot1",
        "pot2",
        "q",
        "rainbow",
        "score",
        "sentries",
        "shape1",
        "shape2",
        "shape_cells",
        "shape_keys",
        "shapes",
        "size_total",
        "slist",
        "t1",
        "tokens",
        "wt",
    )

    def __init__(self, ev: Evaluator, s: Quilt) -> None:
        self.ev = ev
        # the quilt's groups (not the quilt: a quilt keeps its frame, and objects without
        # reference cycles are freed at once, not by the garbage collector)
        self.q, self.cgid, self.pgid = s.q, s.cgid, s.pgid
        self.cgroups, self.pgroups = s.cgroups, s.pgroups
        t1 = s.empty.bit_count() - 1
        self.last = s if t1 < 1 else None  # the last placement: valued on the quilt itself
        self.t1 = t1
        self.empty = s.empty
        self.score, self.bm, self.cm, self.bcol = s.score, s.bm, s.cm, s.bcol
        self.rainbow, self.bcnt, self.ccnt = s.rainbow, s.bcnt, s.ccnt
        self._around: dict[int, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = {}
        self.has_scenario = ev.scenario is not None
        self._gcache: dict[int, float] = {}  # (tile, goal) -> its value with the tile around
        self._best: dict[int, tuple[float, int]] = {}  # (tile, cells) -> best()
        self._excl: dict[int, float] = {}  # see _chance_without
        if t1 < 1:
            return  # only the last placement is left: valued by the value function itself
        self.wt = ev.weights_at(t1)
        f = ev.features(s)
        empty = s.empty
        # -- colour groups
        self.cforbid = f.colour_forbid
        centries: dict[int, _CEntry] = {}
        by_colour: list[list[int]] = [[], [], [], [], [], []]
        pot2 = pot1 = 0.0
        miss = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
        buttons = [0.0] * 6
        cgroups = self.cgroups
        forbid = f.colour_forbid
        for gid, (key, size, _) in f.colour.items():
            _, nb, _ = cgroups[gid]
            e = _centry(key, size, (nb & empty & ~forbid[key]).bit_count(), t1)
            assert e is not None
            centries[gid] = e
            by_colour[key].append(gid)
            pot2 += e[4]
            pot1 += e[5]
            miss[key] *= e[6]
            buttons[key] += e[3]
        self.centries, self.by_colour = centries, by_colour
        self.pot2, self.pot1, self.miss, self.buttons = pot2, pot1, miss, buttons
        # -- size cats
        self.pforbid = f.pattern_forbid
        self.opened = f.opened
        points = ev.cat_points
        tokens = [0.0, 0.0, 0.0]
        size_total = 0.0
        sentries: dict[int, _SEntry] = {}
        pgroups = self.pgroups
        for gid, (ci, need, _) in f.pattern.items():
            _, nb, key = pgroups[gid]
            free = empty & ~f.pattern_forbid[key]
            se = _sentry(key, ci, need, nb & free, free, points[ci], t1)
            assert se is not None
            sentries[gid] = se
            size_total += se[6]
            tokens[ci] += se[7]
        self.sentries, self.size_total = sentries, size_total
        self.slist = list(sentries.items())
        # -- shape cats: per pattern, (pattern, cat index, points, shape length, open
        # placements, k1, k2, their masks)
        shapes = []
        shape1 = shape2 = 0.0
        for cat in ev.cats:
            if cat.size:
                continue
            first = SHAPE_FIRST[cat.shape_len]
            second = SHAPE_SECOND[cat.shape_len]
            for key in ev.config.cats[cat.index].patterns:
                lst = ev.shape_list(s, cat, key, f.opened[key], f.pattern_forbid[key])
                k1 = k2 = m1 = m2 = 0
                if f.opened[key]:
                    k1, k2, m1, m2 = _walk(lst, cat.shape_len, t1)
                shapes.append((key, cat, lst, k1, k2, m1 | m2, _union(lst)))
                shape1 += cat.points * first[k1][t1]
                shape2 += cat.points * second[k2][t1]
                tokens[cat.index] += first[k1][t1] + second[k2][t1]
        self.shapes, self.shape1, self.shape2, self.tokens = shapes, shape1, shape2, tokens
        # the patterns of shape cats, and the cells whose filling changes a shape term of
        # another pattern (a placement counted by the walk)
        self.shape_keys = 0
        self.shape_cells = 0
        for key, _, _, _, _, used, _ in shapes:
            self.shape_keys |= 1 << key
            if f.opened[key]:
                self.shape_cells |= used
        # -- goals: per goal, the colour and pattern counts around it
        self.m = GOAL_M[t1] * ev.w.goal_m
        q = s.q
        gcols = []
        gpats = []
        for spot in ev.goal_spots[: len(ev.goal_rules)]:
            cc = [0, 0, 0, 0, 0, 0]
            pc = [0, 0, 0, 0, 0, 0]
            for n in NEIGHBOURS[spot]:
                u = q[n]
                if u >= 0:
                    cc[u // 6] += 1
                    pc[u % 6] += 1
            gcols.append(cc)
            gpats.append(pc)
        self.gcols, self.gpats = gcols, gpats
        self.goals = [self._goal(i, gcols[i], gpats[i]) for i in range(len(gcols))]
        self.gsum = sum(self.goals)

    def _goal(self, i: int, cc: list[int], pc: list[int]) -> float:
        r = self.ev.goal_rules[i]
        a = sorted(cc, reverse=True)
        b = sorted(pc, reverse=True)
        return goal_value(r.counts, r.one_way, r.both_ways, self.ev.both_only, self.m,
                          (a[0], a[1], a[2], a[3], a[4], a[5]),
                          (b[0], b[1], b[2], b[3], b[4], b[5]))

    def around(self, c: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The colour groups (id, colour) and pattern groups (id, pattern) next to cell ``c``."""
        got = self._around.get(c)
        if got is None:
            q, cgid, pgid = self.q, self.cgid, self.pgid
            ac: list[tuple[int, int]] = []
            ap: list[tuple[int, int]] = []
            for x in NEIGHBOURS[c]:
                u = q[x]
                if u >= 0:
                    g = cgid[x]
                    if (g, u // 6) not in ac:
                        ac.append((g, u // 6))
                    g = pgid[x]
                    if (g, u % 6) not in ap:
                        ap.append((g, u % 6))
            got = (ac, ap)
            self._around[c] = got
        return got

    # ------------------------------------------------------------------ placements

    def best(self, t: int, mask: int) -> tuple[float, int]:
        """(value, cell) of the best placement of tile ``t`` on a cell of ``mask`` (the lowest
        cell among equal values); (-inf, -1) for an empty mask. Kept: asked again, it is not
        worked out again."""
        key = mask << 6 | t
        got = self._best.get(key)
        if got is not None:
            return got
        best_v = float("-inf")
        best_c = -1
        for v, c in self.values(t, mask):
            if v > best_v:
                best_v, best_c = v, c
        self._best[key] = got = (best_v, best_c)
        return got

    def value(self, c: int, t: int) -> float:
        """The value function of the quilt once tile ``t`` is placed on empty cell ``c``."""
        return self.values(t, 1 << c)[0][0]

    def _chance_without(self, skip: int) -> float:
        """The product of the no-button chances' complements over the colours without a
        button and not in ``skip`` (a mask of colours), kept per mask."""
        got = self._excl.get(skip)
        if got is None:
            got = 1.0
            for x in range(6):
                if not (self.bcol | skip) >> x & 1:
                    got *= 1.0 - self.miss[x]
            self._excl[skip] = got
        return got

    def values(self, t: int, mask: int) -> list[tuple[float, int]]:
        """(value, cell) of every placement of tile ``t`` on a cell of ``mask``, lowest cell
        first: the value function of each quilt it makes."""
        t1 = self.t1
        ev = self.ev
        out: list[tuple[float, int]] = []
        if self.last is not None:
            s = self.last
            while mask:
                low = mask & -mask
                mask ^= low
                c = low.bit_length() - 1
                out.append((ev.value(ev.rules.place(s, c, t)), c))
            return out
        # what depends on the tile only
        color = t // 6
        pattern = t % 6
        cbit = 1 << color
        scenario = self.has_scenario
        around = self._around
        centries = self.centries
        cgroups = self.cgroups
        pgroups = self.pgroups
        cforbid = self.cforbid
        forbid_c = cforbid[color]
        by_colour = self.by_colour
        by_colour_c = by_colour[color]
        bm, cm = self.bm, self.cm
        rules = ev.rules
        ci = rules.cat_of_pattern[pattern]
        need_size = rules.cat_size[ci]
        shape_len = ev.cats[ci].shape_len
        shapes_c = rules.cat_shapes_by_cell[ci]
        cat_points = ev.cat_points
        pforbid = self.pforbid
        forbid_p = pforbid[pattern]
        slist = self.slist
        shapes = self.shapes
        shape_mine = self.shape_keys >> pattern & 1
        shape_cells = self.shape_cells
        opened = self.opened
        spots_of_cell = ev.spots_of_cell
        gcache = self._gcache
        wt0, wt1, wt2, wt3, wt4, wt5, wt6 = self.wt
        while mask:
            low = mask & -mask
            mask ^= low
            c = low.bit_length() - 1
            bit = low
            e1 = self.empty & ~bit
            got = around.get(c)
            ac, ap = got if got is not None else self.around(c)
            # -- colour groups: merged into the tile's, or a liberty lost
            pot2, pot1 = self.pot2, self.pot1
            changed: dict[int, _CEntry | None] = {}
            touched = 0  # colours whose no-button chance changes
            gm = bit
            gn = NEIGHBOUR_MASK[c]
            for g, col in ac:
                e = centries.get(g)
                if col == color:
                    m, n, _ = cgroups[g]
                    gm |= m
                    gn |= n
                    if e is not None:
                        changed[g] = None
                        pot2 -= e[4]
                        pot1 -= e[5]
                        touched |= cbit
                elif e is not None and not cforbid[col] >> c & 1:
                    ne = _centry(col, e[1], e[2] - 1, t1)
                    changed[g] = ne
                    pot2 -= e[4]
                    pot1 -= e[5]
                    if ne is not None:
                        pot2 += ne[4]
                        pot1 += ne[5]
                    touched |= 1 << col
            score = self.score
            bcol = self.bcol
            rainbow = self.rainbow
            bcnt = self.bcnt
            size = gm.bit_count()
            has_button = gm & bm
            new_c: _CEntry | None = None
            if has_button or size >= 3:
                if not has_button:  # a button earned now
                    score += BUTTON_POINTS
                    bcol |= cbit
                    if scenario:
                        bl = list(bcnt)
                        bl[color] += 1
                        bcnt = tuple(bl)
                    if not rainbow and bcol == ALL_COLORS:
                        rainbow = True
                        score += BUTTON_POINTS
                nf = forbid_c | gn
                if nf != forbid_c:
                    for g in by_colour_c:
                        if g in changed:
                            continue
                        e = centries[g]
                        libs = (cgroups[g][1] & e1 & ~nf).bit_count()
                        if libs != e[2]:
                            ne = _centry(color, e[1], libs, t1)
                            changed[g] = ne
                            pot2 -= e[4]
                            pot1 -= e[5]
                            if ne is not None:
                                pot2 += ne[4]
                                pot1 += ne[5]
                            touched |= cbit
            else:
                new_c = _centry(color, size, (gn & e1 & ~forbid_c).bit_count(), t1)
                if new_c is not None:
                    pot2 += new_c[4]
                    pot1 += new_c[5]
                    touched |= cbit
            chance = 0.0
            if not rainbow:
                chance = self._chance_without(touched | (bcol ^ self.bcol))
                if touched:
                    for x in range(6):
                        if not touched >> x & 1 or bcol >> x & 1:
                            continue
                        mx = 1.0
                        for g in by_colour[x]:
                            e = changed[g] if g in changed else centries[g]
                            if e is not None:
                                mx *= e[6]
                        if x == color and new_c is not None:
                            mx *= new_c[6]
                        chance *= 1.0 - mx
            # -- the tile's pattern group: a cat earned, or merged into a group with one
            pm = bit
            pn = NEIGHBOUR_MASK[c]
            merged: list[int] = []
            for g, pat in ap:
                if pat == pattern:
                    m, n, _ = pgroups[g]
                    pm |= m
                    pn |= n
                    merged.append(g)
            ccnt = self.ccnt
            cat_event = bool(pm & cm)
            if not cat_event:
                if need_size:
                    earned = pm.bit_count() >= need_size
                elif pm.bit_count() >= shape_len:
                    assert shapes_c is not None
                    earned = any(m & pm == m for m in shapes_c[c])
                else:
                    earned = False
                if earned:
                    cat_event = True
                    score += cat_points[ci]
                    if scenario:
                        cl = list(ccnt)
                        cl[ci] += 1
                        ccnt = tuple(cl)
            nfp = forbid_p | pn if cat_event else forbid_p
            # -- size-cat groups: a liberty or room lost, merged, or forbidden by a new cat
            size_total = self.size_total
            tokens = self.tokens.copy() if scenario else self.tokens
            for g, se in slist:
                key = se[0]
                if key == pattern and g in merged:
                    ns: _SEntry | None = None
                elif key == pattern and nfp != forbid_p:
                    free = e1 & ~nfp
                    ns = _sentry(key, se[1], se[2], pgroups[g][1] & free, free,
                                 cat_points[se[1]], t1)
                elif se[5] >> c & 1:
                    free = e1 & ~pforbid[key]
                    ns = _sentry(key, se[1], se[2], pgroups[g][1] & free, free,
                                 cat_points[se[1]], t1)
                else:
                    continue
                size_total -= se[6]
                if ns is not None:
                    size_total += ns[6]
                if scenario:
                    tokens[se[1]] += (ns[7] if ns is not None else 0.0) - se[7]
            if need_size and not cat_event:
                free = e1 & ~forbid_p
                ns = _sentry(pattern, ci, need_size - pm.bit_count(), pn & free, free,
                             cat_points[ci], t1)
                if ns is not None:
                    size_total += ns[6]
                    if scenario:
                        tokens[ci] += ns[7]
            # -- shape cats: placements through the cell closed, or one cell nearer
            shape1, shape2 = self.shape1, self.shape2
            for key, cat, lst, k1, k2, used, through in (
                    shapes if shape_mine or shape_cells & bit else ()):
                length = cat.shape_len
                if key == pattern:
                    if not cat_event and opened[key] and not through & bit:
                        continue  # no open placement through the cell: nothing changes
                    if cat_event:
                        op = opened[key] & ~pm
                        if op:
                            blocked = ~(op | e1) | nfp
                            fresh = sorted([((m & e1).bit_count(), m) for m in cat.shapes
                                            if not m & blocked])
                            n1, n2, _, _ = _walk(fresh, length, t1)
                        else:
                            n1 = n2 = 0
                    else:
                        n1, n2, _, _ = _walk(sorted([(k - 1, m) if m & bit else (k, m)
                                                     for k, m in lst]), length, t1)
                elif not opened[key] or not used & bit:
                    continue
                else:
                    n1, n2, _, _ = _walk([x for x in lst if not x[1] & bit], length, t1)
                if n1 == k1 and n2 == k2:
                    continue
                first = SHAPE_FIRST[length]
                second = SHAPE_SECOND[length]
                shape1 += cat.points * (first[n1][t1] - first[k1][t1])
                shape2 += cat.points * (second[n2][t1] - second[k2][t1])
                if scenario:
                    tokens[cat.index] += (first[n1][t1] + second[n2][t1]
                                          - first[k1][t1] - second[k2][t1])
            # -- goals around the cell
            goals = self.goals
            gsum = self.gsum
            spots = spots_of_cell[c]
            if spots:
                goals = goals.copy()
                for i in spots:
                    gk = t * 3 + i
                    gv = gcache.get(gk)
                    if gv is None:
                        cc = self.gcols[i].copy()
                        cc[color] += 1
                        pc = self.gpats[i].copy()
                        pc[pattern] += 1
                        gv = self._goal(i, cc, pc)
                        gcache[gk] = gv
                    goals[i] = gv
                gsum = sum(goals)
            value = (score + wt0 * gsum + wt1 * (BUTTON_POINTS * pot2)
                     + wt2 * (BUTTON_POINTS * pot1) + wt3 * (BUTTON_POINTS * chance)
                     + wt4 * size_total + wt5 * shape1 + wt6 * shape2)
            if scenario:
                buttons = self.buttons.copy()
                for g, ne2 in changed.items():
                    old = centries[g]
                    buttons[old[0]] += (ne2[3] if ne2 is not None else 0.0) - old[3]
                if new_c is not None:
                    buttons[color] += new_c[3]
                value += ev.scenario_extra(ccnt, bcnt, rainbow, goals, tokens, buttons,
                                           rainbow_chance=chance, total=value, turns=t1)
            out.append((value, c))
        return out


def _centry(key: int, size: int, libs: int, t1: int) -> _CEntry | None:
    """The term of a colour group without a button (None: no free liberty left)."""
    if not libs:
        return None
    k = ((t1 * 6 + key) * 3 + size) * 64 + libs
    got = _CENTRIES.get(k)
    if got is None:
        got = _CENTRIES[k] = _make_centry(key, size, libs, t1)
    return got


def _make_centry(key: int, size: int, libs: int, t1: int) -> _CEntry:
    if size == 2:
        p = BUTTON[1][min(libs, 4) - 1][t1]
        return key, size, libs, p, p, 0.0, 1.0 - p
    p = BUTTON[0][min(libs, 4) - 1][t1]
    if t1 >= 2:
        return key, size, libs, p, 0.0, p, 1.0 - p
    return key, size, libs, p, 0.0, 0.0, 1.0


# Colour group terms made so far (a few hundred at most: they depend on small numbers only)
_CENTRIES: dict[int, _CEntry] = {}


def _sentry(key: int, ci: int, need: int, libs_mask: int, free: int, points: int, t1: int
            ) -> _SEntry | None:
    """The term of a size-cat group without its cat that needs ``need`` more tiles, with
    ``libs_mask`` its free liberties (None: no liberty, or no room to grow)."""
    if not libs_mask:
        return None
    nlibs = libs_mask.bit_count()
    if nlibs < need:
        room = dilate(libs_mask) & free
        if room.bit_count() < need:
            return None
        affect = libs_mask | room
    else:
        affect = libs_mask
    p = SIZE_CAT[need - 1][min(nlibs, 3) - 1][t1] if need <= t1 else 0.0
    return key, ci, need, nlibs, libs_mask, affect, points * p, p


def _union(lst: list[tuple[int, int]]) -> int:
    """The cells of all the placements of ``lst``."""
    out = 0
    for _, m in lst:
        out |= m
    return out


def _walk(lst: list[tuple[int, int]], length: int, turns: int) -> tuple[int, int, int, int]:
    """Empty cells still needed by the best and by the second-best non-overlapping open
    placement (0: none), and their masks: as :meth:`Evaluator._shapes` reads them."""
    k1 = k2 = m1 = m2 = 0
    used = 0
    for k, m in lst:
        if k >= length or k > turns:
            break
        if m & used:
            continue
        if k1:
            k2, m2 = k, m
            break
        k1, m1 = k, m
        used = m
    return k1, k2, m1, m2
