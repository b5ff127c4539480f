"""Strength and speed of the computer players (issue 7).

    .venv/bin/python benchmarks/bench_ai.py                 # the full run (tens of minutes)
    .venv/bin/python benchmarks/bench_ai.py --quick         # a CI-size smoke run (~1 minute)
    .venv/bin/python benchmarks/bench_ai.py --solo 50 --solo-strong 20 --scenarios 10 --h2h 10

Printed, after the machine line (platform, CPU, Python):

- **solo standard** games (random cats, boards and goal offers): mean, standard deviation,
  median and range of the final score per level, and the average goal / cat / button points;
- **solo scenarios** 1 to 10: pass rate per level (every condition and the score reached);
- **head-to-head** games of 2, 3 and 4 players between levels, as duplicate games (each deal
  played once per rotation of the seats): each level's win rate (a shared win counts as a
  fraction) and mean score, and for two levels how many deals each one scored more over both
  seatings;
- **time per move** per level: median and 99th percentile of ``choose`` (goal choices
  included), measured inside the worker processes.

Games run in ``--workers`` processes (2 by default: both cores of the reference machine), so
the times are those of a machine with both cores busy. Every game has a fixed seed: a run is
reproducible. For scale: a plain one-move greedy player averages about 48 (sd 9) in solo
standard games, published human games about 58; the scenario targets are 58 to 72.

``--paired A B`` compares two players on the same deals (same seeds, so the same boards,
goals, cats and bag order; both sides also get the same player seed): solo standard games
(``--solo``, 200 by default) and optionally scenario games (``--scenarios`` per scenario, 0 by
default here). A player is written ``LEVEL[@GITREF][:NAME=VALUE,...]``: ``@GITREF`` plays with
the ``engine`` and ``data`` packages of that git revision (exported to a temporary directory), and
each ``NAME=VALUE`` sets an attribute of the player (``samples=8``) or, as ``w.NAME``, a field of
its value-function weights (``w.goal=1.2``). It prints each side's mean, the mean paired
difference B - A with its standard error, deals won, scenario passes (and how many deals only one
side passed), and the time per move of each side (wall clock and CPU time of the worker process),
with the load average before and after.

``--fit N`` plays N solo games (of ``--fit-level``, normal by default) and fits, per turns
left, weights of the value function's terms (:data:`engine.ai.evaluate.TERMS`) to the final
score by least squares (the learned alternative to the hand-tuned :class:`Weights`; use them as
``Weights.by_turns``); it prints how well they and today's weights predict held-out games.

``--calibrate N`` re-measures the chance tables of ``engine/ai/tables.py`` from N solo games of
the normal player (repeat with ``--rounds``: each round plays with the tables of the previous
one and the estimate pools all rounds) and prints the new module on standard output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import ROOT, machine_line, pct, pool_results, print_machine
from data import load_catalog
from engine.ai import make_player
from engine.ai.goals import counts_of, goal_value
from engine.ai.model import Quilt, Rules, bits
from engine.ai.seen import own_quilt
from engine.config import GameOptions
from engine.events import ScenarioResult
from engine.hexgrid import NEIGHBOURS
from engine.rules import apply, legal_moves
from engine.scoring import breakdown, rank
from engine.setup import new_game
from engine.state import Phase
from engine.views import private_view

CATALOG = load_catalog()
LEVEL_ORDER = ("random", "easy", "normal", "strong")


# --------------------------------------------------------------------------- one game


def play(task: tuple[str, tuple[str, ...], int, dict[str, Any]]) -> dict[str, Any]:
    """Play one game: ``(kind, levels per seat, seed, GameOptions fields)``."""
    kind, levels, seed, opts = task
    options = GameOptions(players=len(levels), **opts)
    state = new_game(CATALOG, options, seed)
    players = [make_player(lv, seed * 31 + i) for i, lv in enumerate(levels)]
    times: dict[str, list[float]] = defaultdict(list)
    passed: list[bool] = []
    while state.phase is not Phase.OVER:
        seat = state.deciding_seat
        assert seat is not None
        legal = legal_moves(state, seat)
        view = private_view(state, seat)
        t0 = time.perf_counter()
        move = players[seat].choose(view, legal)
        times[levels[seat]].append(time.perf_counter() - t0)
        state, events = apply(state, move)
        passed += [e.passed for e in events if isinstance(e, ScenarioResult)]
    scores = [breakdown(state.config, s) for s in state.seats]
    _, winners, _ = rank(scores)
    return {"kind": kind, "levels": levels, "seed": seed, "scenario": opts.get("scenario"),
            "scores": [s["total"] for s in scores],
            "parts": [(s["goal_points"], s["cat_points"], s["button_points"]) for s in scores],
            "winners": winners, "passed": passed, "times": dict(times)}


# --------------------------------------------------------------------------- reports


def report_solo(results: list[dict[str, Any]], levels: Iterable[str]) -> None:
    print("\n== solo standard games (random cats, boards and goal offers)")
    print(f"{'level':<8} {'games':>5} {'mean':>6} {'sd':>5} {'median':>6} {'min':>4} {'max':>4}"
          f" {'goals':>6} {'cats':>6} {'buttons':>7}")
    for lv in levels:
        rows = [r for r in results if r["kind"] == "solo" and r["levels"][0] == lv]
        if not rows:
            continue
        tot = [r["scores"][0] for r in rows]
        parts = [r["parts"][0] for r in rows]
        print(f"{lv:<8} {len(tot):>5} {statistics.mean(tot):>6.1f} "
              f"{statistics.pstdev(tot):>5.1f} {statistics.median(tot):>6.1f} {min(tot):>4} "
              f"{max(tot):>4} {statistics.mean(p[0] for p in parts):>6.1f} "
              f"{statistics.mean(p[1] for p in parts):>6.1f} "
              f"{statistics.mean(p[2] for p in parts):>7.1f}")


def report_scenarios(results: list[dict[str, Any]], levels: Iterable[str]) -> None:
    rows = [r for r in results if r["kind"] == "scenario"]
    if not rows:
        return
    print("\n== solo scenarios: pass rate (mean score)")
    nums = sorted({r["scenario"] for r in rows})
    print(f"{'level':<8} " + " ".join(f"{'#' + str(n):>11}" for n in nums))
    for lv in levels:
        cells = []
        for n in nums:
            rs = [r for r in rows if r["levels"][0] == lv and r["scenario"] == n]
            if not rs:
                cells.append(f"{'-':>11}")
                continue
            ok = sum(1 for r in rs if r["passed"] and r["passed"][0])
            mean = statistics.mean(r["scores"][0] for r in rs)
            cells.append(f"{ok:>2}/{len(rs):<2} ({mean:>3.0f})")
        if any(c.strip() != "-" for c in cells):
            print(f"{lv:<8} " + " ".join(cells))


def report_h2h(results: list[dict[str, Any]]) -> None:
    rows = [r for r in results if r["kind"] == "h2h"]
    if not rows:
        return
    print("\n== head-to-head: win rate (shared wins split), mean score")
    by: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[tuple(sorted(r["levels"], key=LEVEL_ORDER.index))].append(r)
    for lineup, rs in sorted(by.items(), key=lambda x: (len(x[0]), x[0])):
        wins: dict[str, float] = defaultdict(float)
        seats: dict[str, int] = defaultdict(int)
        score: dict[str, list[int]] = defaultdict(list)
        for r in rs:
            for i, lv in enumerate(r["levels"]):
                seats[lv] += 1
                score[lv].append(r["scores"][i])
                if i in r["winners"]:
                    wins[lv] += 1 / len(r["winners"])
        parts = [f"{lv} wins {wins[lv] / len(rs):.0%} (mean {statistics.mean(score[lv]):.1f})"
                 for lv in sorted(seats, key=LEVEL_ORDER.index)]
        print(f"{len(lineup)}p {'-'.join(lineup):<24} {len(rs):>4} games: " + "; ".join(parts))
        pair = sorted(seats, key=LEVEL_ORDER.index)
        if len(lineup) == 2 and len(pair) == 2:
            a, b = pair
            better = sum(1 for r in rs if r["scores"][r["levels"].index(b)]
                         > r["scores"][r["levels"].index(a)])
            print(f"{'':<28} {b} outscores {a} in {better}/{len(rs)} games")
            deals: dict[int, float] = defaultdict(float)
            for r in rs:
                ls = r["levels"]
                deals[r["seed"]] += r["scores"][ls.index(b)] - r["scores"][ls.index(a)]
            ahead = sum(1 for d in deals.values() if d > 0)
            even = sum(1 for d in deals.values() if d == 0)
            print(f"{'':<28} over both seatings of a deal, {b} scores more in {ahead}/"
                  f"{len(deals)} deals ({even} even)")


def report_times(results: list[dict[str, Any]]) -> None:
    print("\n== time per move (choose, goal choices included), ms")
    print(f"{'level':<8} {'moves':>7} {'median':>7} {'p99':>7} {'max':>7}")
    times: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for lv, ts in r["times"].items():
            times[lv].extend(ts)
    for lv in sorted(times, key=LEVEL_ORDER.index):
        ts = times[lv]
        print(f"{lv:<8} {len(ts):>7} {1000 * statistics.median(ts):>7.1f} "
              f"{1000 * pct(ts, 0.99):>7.1f} {1000 * max(ts):>7.1f}")


# --------------------------------------------------------------------------- calibration

_ROWS = 23  # turns left 0..22


def _snapshots(task: tuple[int, str]) -> dict[str, Any]:
    """One solo standard game of the normal player (with the tables given as module text, or
    the installed ones): the quilt after every placement."""
    seed, tables = task
    if tables:
        _install(tables)
    state = new_game(CATALOG, GameOptions(players=1), seed)
    player = make_player("normal", seed * 31)
    rules = Rules(state.config)
    snaps = []
    while state.phase is not Phase.OVER:
        view = private_view(state, 0)
        state, _ = apply(state, player.choose(view, legal_moves(state, 0)))
        if state.phase is not Phase.DRAFT:
            s = own_quilt(private_view(state, 0), rules)
            snaps.append((tuple(s.q), s.bm, s.cm, s.rainbow))
    return {"config": state.config, "goals": state.seats[0].goals, "snaps": snaps,
            "goal_points": [g["points"] for g in breakdown(state.config, state.seats[0])["goals"]]}


def _install(source: str) -> None:
    """Use the tables of a generated module (text) in this process."""
    import engine.ai.evaluate as ev

    ns: dict[str, Any] = {}
    exec(compile(source, "<tables>", "exec"), ns)
    for name in ("BUTTON", "SIZE_CAT", "SHAPE_FIRST", "SHAPE_SECOND", "GOAL_M"):
        setattr(ev, name, ns[name])


def _quilt(rules: Rules, snap: tuple[Any, ...]) -> Quilt:
    q, bm, cm, rainbow = snap
    buttons = tuple((c, q[c] // 6) for c in bits(bm))
    cats = tuple((c, rules.cat_of_pattern[q[c] % 6]) for c in bits(cm))
    return rules.quilt(q, bm, cm, buttons, cats, rainbow)


Agg = dict[Any, list[float]]


def _features(games: list[dict[str, Any]]) -> tuple[Agg, Agg, Agg, list[Any]]:
    """Outcome counts: buttons by (size, liberties, T), size cats by (need, liberties, T),
    shape cats by (length, k1, k2, T), and goal states with the points finally reached."""
    btn: Agg = defaultdict(lambda: [0.0, 0.0])
    size: Agg = defaultdict(lambda: [0.0, 0.0])
    shape: Agg = defaultdict(lambda: [0.0, 0.0])
    goals: list[Any] = []
    for g in games:
        cfg = g["config"]
        rules = Rules(cfg)
        qs = [_quilt(rules, s) for s in g["snaps"]]
        bev: list[tuple[int, int]] = []
        cev: list[tuple[int, int, int]] = []
        for i in range(1, len(qs)):
            a, b = qs[i - 1], qs[i]
            cell = (a.empty & ~b.empty).bit_length() - 1
            if b.bm != a.bm:
                bev.append((i, b.cgroups[b.cgid[cell]][0]))
            if b.cm != a.cm:
                cev.append((i, b.q[cell] % 6, b.pgroups[b.pgid[cell]][0]))
        for i, s in enumerate(qs[:-1]):
            turns = s.empty.bit_count()
            forbid = [0] * 6
            for m, nb, k in s.cgroups.values():
                if m & s.bm:
                    forbid[k] |= nb
            for m, nb, k in s.cgroups.values():
                libs = (nb & s.empty & ~forbid[k]).bit_count()
                if m & s.bm or not libs:
                    continue
                ok = any(j > i and gm & m == m for j, gm in bev)
                a_ = btn[(m.bit_count(), min(libs, 4), turns)]
                a_[0] += ok
                a_[1] += 1
            pf = [0] * 6
            opened = [0] * 6
            for m, nb, k in s.pgroups.values():
                if m & s.cm:
                    pf[k] |= nb
                else:
                    opened[k] |= m
            for m, nb, k in s.pgroups.values():
                c = cfg.cats[rules.cat_of_pattern[k]]
                libs = (nb & s.empty & ~pf[k]).bit_count()
                if m & s.cm or not c.min_size or not libs:
                    continue
                ok = any(j > i and gm & m == m for j, _, gm in cev)
                a_ = size[(c.min_size - m.bit_count(), min(libs, 3), turns)]
                a_[0] += ok
                a_[1] += 1
            for ci, c in enumerate(cfg.cats):
                if c.min_size:
                    continue
                for k in c.patterns:
                    ks: list[int] = []
                    if opened[k]:
                        blocked = ~(opened[k] | s.empty) | pf[k]
                        found = sorted(((m & s.empty).bit_count(), m)
                                       for m in rules.cat_shapes[ci]
                                       if not m & blocked and m & opened[k])
                        used = 0
                        for kk, m in found:
                            if m & used or kk > turns:
                                continue
                            ks.append(kk)
                            used |= m
                            if len(ks) == 2:
                                break
                    fut = sum(1 for j, p, _ in cev if j > i and p == k)
                    a_ = shape[(len(c.shape), ks[0] if ks else 0, ks[1] if len(ks) > 1 else 0,
                                turns)]
                    a_[0] += fut
                    a_[1] += 1
            for gi, (spot, gid) in enumerate(zip(cfg.goal_spots, g["goals"], strict=True)):
                ts = [s.q[n] for n in NEIGHBOURS[spot] if s.q[n] >= 0]
                if len(ts) < 6:
                    goals.append((cfg.goal(gid), counts_of([t // 6 for t in ts]),
                                  counts_of([t % 6 for t in ts]), turns, g["goal_points"][gi]))
    return btn, size, shape, goals


def _cell_key(a: int, b: int, t: int) -> tuple[int, int, int]:
    """A table cell's key: two indices and the turns left."""
    return a, b, t


def _row(agg: Agg, key: Callable[[int], Any], minn: int = 40) -> list[float]:
    """A chance per T, pooling neighbouring T until ``minn`` samples."""
    out = []
    for t in range(_ROWS):
        s = n = 0.0
        for r in range(_ROWS):
            s = n = 0.0
            for tt in range(t - r, t + r + 1):
                a = agg.get(key(tt))
                if a:
                    s += a[0]
                    n += a[1]
            if n >= minn:
                break
        out.append(round(s / n, 3) if n else 0.0)
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        if abs(m[i][i]) < 1e-9:
            continue
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-9 else 0.0 for i in range(n)]


def _shape_rows(shape: Agg, length: int) -> tuple[list[list[float]], list[list[float]]]:
    """Additive fit E[cats] = first[k1] + second[k2] per T (ridge, T window ±2)."""
    first = [[0.0] * _ROWS for _ in range(length)]
    second = [[0.0] * _ROWS for _ in range(length)]
    n = 2 * length
    for t in range(_ROWS):
        xtx = [[0.0] * n for _ in range(n)]
        xty = [0.0] * n
        for (ln, k1, k2, tt), (s, cnt) in shape.items():
            if ln != length or abs(tt - t) > 2:
                continue
            cols = [k1] + ([length + k2] if k2 else [])
            for a in cols:
                xty[a] += s
                for b in cols:
                    xtx[a][b] += cnt
        for i in range(n):
            xtx[i][i] += 5.0
        sol = _solve(xtx, xty)
        for k in range(length):
            first[k][t] = round(max(0.0, sol[k]), 3)
            second[k][t] = round(max(0.0, sol[length + k]), 3)
    for rows in (first, second):  # fewer cells needed is never worse
        for k in range(2, length):
            rows[k] = [min(a, b) for a, b in zip(rows[k], rows[k - 1], strict=True)]
    return first, second


def _goal_m(goals: list[Any]) -> list[float]:
    by: dict[int, list[Any]] = defaultdict(list)
    for rule, cc, pc, t, pts in goals:
        by[t].append((rule, cc, pc, pts))
    ms = [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 7, 8]
    best = [4.0]
    for t in range(1, _ROWS):
        rows = by.get(t, [])
        if not rows:
            best.append(best[-1])
            continue
        err = [(sum((goal_value(r.counts, r.one_way, r.both_ways, False, m, cc, pc) - pts) ** 2
                    for r, cc, pc, pts in rows), m) for m in ms]
        best.append(float(min(err)[1]))
    best[0] = best[1]
    return best


def _fmt(row: Iterable[float], indent: int) -> str:
    vals = [(f"{x:.3f}".rstrip("0").rstrip(".") if x else "0.0") for x in row]
    pad = " " * (indent + 4)
    lines = [", ".join(vals[i:i + 11]) for i in range(0, len(vals), 11)]
    return "(\n" + ",\n".join(pad + ln for ln in lines) + ",\n" + " " * indent + ")"


def tables_module(games: list[dict[str, Any]]) -> str:
    """The text of engine/ai/tables.py measured from ``games``."""
    btn, size, shape, goals = _features(games)
    out = ['"""Chance tables for the value function, measured from self-play '
           '(do not edit by hand).',
           "",
           f"Generated by ``benchmarks/bench_ai.py --calibrate`` from {len(games)} solo standard "
           "games.",
           "Every table is indexed last by the turns left (empty cells of the quilt), 0 to 22.",
           '"""', "", "from __future__ import annotations", "", "Row = tuple[float, ...]", "",
           "# chance that a colour group without a button gets one: [size - 1][free liberties - 1]"
           "[T]",
           "BUTTON: tuple[tuple[Row, ...], ...] = ("]
    for s in (1, 2):
        out.append("    (")
        for lib in (1, 2, 3, 4):
            out.append(f"        {_fmt(_row(btn, partial(_cell_key, s, lib)), 8)},")
        out.append("    ),")
    out += [")", "",
            "# chance that a pattern group without a cat attracts its size cat: "
            "[need - 1][libs - 1][T]",
            "SIZE_CAT: tuple[tuple[Row, ...], ...] = ("]
    for need in range(1, 7):
        out.append("    (")
        for lib in (1, 2, 3):
            row = _row(size, partial(_cell_key, need, lib), 30)
            out.append(f"        {_fmt(row, 8)},")
        out.append("    ),")
    out.append(")")
    fits = {n: _shape_rows(shape, n) for n in (3, 4, 5)}
    for name, part, doc in (("SHAPE_FIRST", 0, "expected cats of a pattern from its best open "
                             "shape placement"),
                            ("SHAPE_SECOND", 1, "extra expected cats from the second-best "
                             "placement")):
        out += ["", f"# {doc}:",
                "# shape length -> [empty cells still needed][T] (row 0: no open placement)",
                f"{name}: dict[int, tuple[Row, ...]] = {{"]
        for n in (3, 4, 5):
            out.append(f"    {n}: (")
            out += [f"        {_fmt(r, 8)}," for r in fits[n][part]]
            out.append("    ),")
        out.append("}")
    out += ["", "# goal choosiness m (engine.ai.goals) that best predicts the goal points "
            "reached: [T]", f"GOAL_M: Row = {_fmt(_goal_m(goals), 0)}"]
    return "\n".join(out) + "\n"


def _goal_outcomes(seed: int) -> list[tuple[str, int, float, float]]:
    """One normal solo standard game: (goal, spot index, points, model points at the draft)."""
    from engine.ai.evaluate import Evaluator
    from engine.ai.tables import GOAL_M

    state = new_game(CATALOG, GameOptions(players=1), seed)
    player = make_player("normal", seed * 31)
    while state.phase is not Phase.OVER:
        state, _ = apply(state, player.choose(private_view(state, 0), legal_moves(state, 0)))
    goals = state.seats[0].goals
    assert goals is not None
    rules = Rules(state.config)
    ev = Evaluator(state.config, rules, goals)
    empty = rules.quilt(new_game(CATALOG, GameOptions(players=1), seed).seats[0].quilt,
                        0, 0, (), (), False)
    model = ev.goal_points(empty, GOAL_M[22] * ev.w.goal_m)
    points = [g["points"] for g in breakdown(state.config, state.seats[0])["goals"]]
    return [(g, i, float(points[i]), model[i]) for i, g in enumerate(goals)]


def draft_table(games: int, workers: int) -> str:
    """Measured minus modelled goal points per (goal, spot), as the DRAFT_CORRECTION literal."""
    sums: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    with Pool(workers) as pool:
        for rows in pool.imap_unordered(_goal_outcomes, range(70_000, 70_000 + games), 4):
            for g, i, pts, model in rows:
                a = sums[(g, i)]
                a[0] += pts - model
                a[1] += 1
    lines = [f"# measured over {games} normal solo games: goal points reached minus the model's",
             "DRAFT_CORRECTION: dict[tuple[str, int], float] = {"]
    for (g, i), (d, n) in sorted(sums.items()):
        lines.append(f"    ({g!r}, {i}): {d / n:.2f},  # {int(n)} games")
    lines.append("}")
    return "\n".join(lines) + "\n"


def calibrate(games: int, rounds: int, workers: int) -> str:
    pooled: list[dict[str, Any]] = []
    source = ""
    for r in range(rounds):
        tasks = [(90_000 + 1000 * r + i, source) for i in range(games)]
        with Pool(workers) as pool:
            pooled += pool.map(_snapshots, tasks, chunksize=2)
        source = tables_module(pooled)
        print(f"calibration round {r + 1}: {len(pooled)} games pooled", file=sys.stderr)
    return source


# --------------------------------------------------------------------------- fitted weights


def _fit_rows(task: tuple[int, str]) -> dict[str, Any]:
    """One solo standard game of ``level``: after each placement that leaves the quilt open,
    (turns left, points earned, the value function's terms); and the final score."""
    from engine.ai.evaluate import Evaluator

    seed, level = task
    state = new_game(CATALOG, GameOptions(players=1), seed)
    player = make_player(level, seed * 31)
    rows: list[tuple[int, int, tuple[float, ...]]] = []
    ev: Evaluator | None = None
    while state.phase is not Phase.OVER:
        state, _ = apply(state, player.choose(private_view(state, 0), legal_moves(state, 0)))
        if state.phase is Phase.DRAFT:
            continue
        if ev is None:
            ev = Evaluator(state.config, Rules(state.config), state.seats[0].goals)
        s = own_quilt(private_view(state, 0), ev.rules)
        if s.empty:
            rows.append((s.empty.bit_count(), s.score, ev.terms(s)))
    return {"seed": seed, "final": breakdown(state.config, state.seats[0])["total"],
            "rows": rows}


def fit_weights(games: list[dict[str, Any]], ridge: float = 200.0, window: int = 1
                ) -> list[tuple[float, ...]]:
    """Per turns left, least squares of (final score - points earned) on the value function's
    terms plus a constant, pooling ``window`` turns either side, pulled toward today's weights
    by ``ridge`` (turns left 0: today's weights; nothing is weighed there)."""
    from engine.ai.evaluate import DEFAULT

    w0 = DEFAULT.per_turn()[0]
    by_t: dict[int, list[tuple[float, tuple[float, ...]]]] = defaultdict(list)
    for g in games:
        for t, score, terms in g["rows"]:
            by_t[t].append((g["final"] - score, tuple(terms)))
    out = [w0]
    n = len(w0) + 1
    for t in range(1, _ROWS):
        xtx = [[0.0] * n for _ in range(n)]
        xty = [0.0] * n
        for tt in range(t - window, t + window + 1):
            for y, terms in by_t.get(tt, []):
                x = (1.0, *terms)
                for a in range(n):
                    xty[a] += x[a] * y
                    for b in range(n):
                        xtx[a][b] += x[a] * x[b]
        for k in range(1, n):
            xtx[k][k] += ridge
            xty[k] += ridge * w0[k - 1]
        out.append(tuple(round(v, 3) for v in _solve(xtx, xty)[1:]))
    return out


def _residual_sd(games: list[dict[str, Any]], weights: list[tuple[float, ...]]
                 ) -> dict[int, float]:
    """Per turns left: the spread of final score minus (points earned + weighted terms)."""
    by_t: dict[int, list[float]] = defaultdict(list)
    for g in games:
        for t, score, terms in g["rows"]:
            pred = score + sum(w * x for w, x in zip(weights[t], terms, strict=True))
            by_t[t].append(g["final"] - pred)
    return {t: statistics.pstdev(v) for t, v in sorted(by_t.items()) if len(v) > 1}


def fit(games: int, level: str, workers: int) -> str:
    """Fit per-turn weights on four fifths of ``games`` self-play games, compare how well they
    and today's weights predict the final score on the other fifth, and print the rows."""
    from engine.ai.evaluate import DEFAULT, TERMS

    with Pool(workers) as pool:
        played = pool.map(_fit_rows, [(80_000 + i, level) for i in range(games)], chunksize=4)
    train = [g for g in played if g["seed"] % 5]
    test = [g for g in played if not g["seed"] % 5]
    fitted = fit_weights(train)
    today = _residual_sd(test, DEFAULT.per_turn())
    new = _residual_sd(test, fitted)
    lines = [f"# {len(train)} {level} solo games fitted, {len(test)} held out; per turns left:",
             "# sd of (final - prediction) on the held-out games, today's weights / fitted"]
    lines += [f"#   T={t:>2}: {today[t]:.2f} / {new.get(t, float('nan')):.2f}" for t in today]
    lines.append(f"# terms: {', '.join(TERMS)}")
    lines.append("BY_TURNS: tuple[tuple[float, ...], ...] = (")
    lines += [f"    {row!r}," for row in fit_weights(played)]
    lines.append(")")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- paired comparison

_PACKAGES = ("engine", "data")
_stash: dict[str, dict[str, Any]] = {}  # per worker process: tree -> its imported modules
_tree = ""  # the tree whose modules are imported now ("" = this checkout)


def export_ref(ref: str) -> str:
    """The ``engine`` and ``data`` packages of git revision ``ref``, in a temporary directory."""
    import subprocess
    import tempfile

    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", ref + "^{commit}"],
                         check=True, capture_output=True, text=True).stdout.strip()
    out = Path(tempfile.gettempdir()) / f"calico-bench-{sha[:12]}"
    if not (out / "engine").is_dir():
        tmp = Path(tempfile.mkdtemp(prefix="calico-bench-"))
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", sha, *_PACKAGES],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        tmp.rename(out) if not out.exists() else None
    return str(out)


def _use_tree(tree: str) -> None:
    """Make ``import engine`` / ``import data`` resolve to ``tree`` ("" = this checkout)."""
    global _tree
    if tree == _tree:
        return
    names = [n for n in sys.modules if n.split(".")[0] in _PACKAGES]
    _stash[_tree] = {n: sys.modules.pop(n) for n in names}
    if tree in _stash:
        sys.modules.update(_stash[tree])
    else:
        sys.path.insert(0, tree)
        try:
            import importlib

            for name in ("data", "engine.ai", "engine.rules", "engine.setup", "engine.views"):
                importlib.import_module(name)
        finally:
            sys.path.remove(tree)
    _tree = tree


def parse_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """``LEVEL[@GITREF][:NAME=VALUE,...]`` -> (level, git ref or "", overrides)."""
    head, _, rest = spec.partition(":")
    level, _, ref = head.partition("@")
    overrides: dict[str, str] = {}
    for item in filter(None, rest.split(",")):
        name, eq, value = item.partition("=")
        if not eq:
            raise SystemExit(f"bad override {item!r} in {spec!r}: NAME=VALUE expected")
        overrides[name.strip()] = value.strip()
    return level, ref, overrides


def _convert(old: Any, value: str) -> Any:
    if value.lower() == "none":
        return None
    if old is None:  # an optional number (a depth): whatever the text says
        return float(value) if "." in value else int(value)
    if isinstance(old, bool):
        return value.lower() in ("1", "true", "yes", "on")
    if isinstance(old, int):
        return int(value)
    if isinstance(old, float):
        return float(value)
    return value


def real_stream(state: Any) -> tuple[int, ...]:
    """The tiles the bag of ``state`` will give, in order (the game's secret: benchmarks only)."""
    from engine.bag import draw

    bag, rng = state.bag, state.rng
    out = []
    while True:
        bag, rng, t = draw(bag, rng)
        if t is None:
            return tuple(out)
        out.append(t)


def clairvoyant_class(strong: type) -> type:
    """The clairvoyant reference: the strong player's search, told the real order of the bag
    before each move (``see``) and using it wherever it would sample (its playouts' futures,
    the next market's tiles). Solo games only; it lives here, out of the bot's reach."""
    from engine.ai.rollout import Future

    class Clairvoyant(strong):  # type: ignore[valid-type,misc]
        level = "clairvoyant"
        stream: tuple[int, ...] = ()

        def see(self, state: Any) -> None:
            self.stream = real_stream(state)

        def _draws(self, pool: list[int]) -> list[int]:
            return list(self.stream[:2])  # solo: the next market draws these two

        def _futures(self, sim: Any, n: int, seed: int) -> list[Any]:
            return [Future(self.stream, ())] * n

    return Clairvoyant


def build_player(level: str, seed: int, overrides: dict[str, str], ai: Any = None) -> Any:
    """``make_player(level, seed)`` of the imported tree (or of the ``engine.ai`` package
    ``ai``), with ``overrides`` applied; ``clairvoyant``: the clairvoyant reference."""
    from dataclasses import fields, replace

    import engine.ai

    ai = ai or engine.ai
    if level == "clairvoyant":
        player: Any = clairvoyant_class(ai.LEVELS["strong"])(seed)
    else:
        player = ai.make_player(level, seed)
    weights: dict[str, Any] = {}
    attributes: dict[str, Any] = {}
    for name, value in overrides.items():
        if name.startswith("w."):
            field = name[2:]
            known = {f.name for f in fields(player.weights)}
            if field not in known:
                raise SystemExit(f"no weight {field!r}: choose from {', '.join(sorted(known))}")
            weights[field] = _convert(getattr(player.weights, field), value)
        elif hasattr(player, name):
            attributes[name] = _convert(getattr(player, name), value)
        else:
            raise SystemExit(f"a {level} player has no attribute {name!r}")
    if weights:
        # Other weights make another level, a subclass with its own ``weights`` (as the levels
        # themselves are declared): the player builds its caches from them when it is made.
        level_cls = type(player)
        player = type(level_cls.__name__, (level_cls,),
                      {"weights": replace(player.weights, **weights)})(seed)
    for name, value in attributes.items():
        setattr(player, name, value)
    return player


def play_paired(task: tuple[str, str, dict[str, str], str, int, dict[str, Any]]
                ) -> dict[str, Any]:
    """One solo game of one side: ``(side, level, overrides, tree, seed, GameOptions fields)``."""
    side, level, overrides, tree, seed, opts = task
    _use_tree(tree)
    import data
    from engine.config import GameOptions as Options
    from engine.events import ScenarioResult as Result
    from engine.rules import apply as apply_
    from engine.rules import legal_moves as legal_
    from engine.scoring import breakdown as breakdown_
    from engine.setup import new_game as new_game_
    from engine.state import Phase as Phase_
    from engine.views import private_view as view_

    catalog = data.load_catalog()
    state = new_game_(catalog, Options(players=1, **opts), seed)
    player = build_player(level, seed * 31, overrides)
    wall: list[float] = []
    cpu: list[float] = []
    conds: list[tuple[str, int, int, bool]] = []
    passed = None
    while state.phase is not Phase_.OVER:
        legal = legal_(state, 0)
        view = view_(state, 0)
        if hasattr(player, "see"):
            player.see(state)
        t0, c0 = time.perf_counter(), time.process_time()
        move = player.choose(view, legal)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
        state, events = apply_(state, move)
        for e in events:
            if isinstance(e, Result):
                passed, conds = e.passed, list(e.conditions)
    score = breakdown_(state.config, state.seats[0])
    return {"side": side, "seed": seed, "scenario": opts.get("scenario"),
            "score": score["total"],
            "parts": (score["goal_points"], score["cat_points"], score["button_points"]),
            "passed": passed, "conditions": conds, "wall": wall, "cpu": cpu}


def _mean_se(diffs: list[float]) -> tuple[float, float]:
    if len(diffs) < 2:
        return (diffs[0] if diffs else float("nan")), float("nan")
    return statistics.mean(diffs), statistics.stdev(diffs) / len(diffs) ** 0.5


def report_paired(results: list[dict[str, Any]], names: tuple[str, str]) -> None:
    by: dict[tuple[str, int], dict[str, Any]] = {}
    for r in results:
        by[(r["side"], r["seed"])] = r
    seeds = sorted({r["seed"] for r in results})
    solo = [s for s in seeds if by[("A", s)]["scenario"] is None]
    a_name, b_name = names
    print(f"\nA = {a_name}\nB = {b_name}")
    if solo:
        a = [by[("A", s)]["score"] for s in solo]
        b = [by[("B", s)]["score"] for s in solo]
        d = [y - x for x, y in zip(a, b, strict=True)]
        m, se = _mean_se(d)
        print(f"\n== solo standard games, {len(solo)} deals")
        for name, xs, side in (("A", a, "A"), ("B", b, "B")):
            parts = [by[(side, s)]["parts"] for s in solo]
            print(f"{name}: mean {statistics.mean(xs):.2f} (sd {statistics.pstdev(xs):.1f}), "
                  f"median {statistics.median(xs):.1f}; goals "
                  f"{statistics.mean(p[0] for p in parts):.1f}, cats "
                  f"{statistics.mean(p[1] for p in parts):.1f}, buttons "
                  f"{statistics.mean(p[2] for p in parts):.1f}")
        print(f"B - A: {m:+.2f} ± {se:.2f} (s.e.; sd of the difference "
              f"{statistics.stdev(d) if len(d) > 1 else float('nan'):.1f}); B scores more in "
              f"{sum(1 for x in d if x > 0)}, less in {sum(1 for x in d if x < 0)}, "
              f"even in {sum(1 for x in d if x == 0)} deals")
    scen = [s for s in seeds if by[("A", s)]["scenario"] is not None]
    if scen:
        print(f"\n== solo scenarios, {len(scen)} deals: passes A / B (only A, only B), "
              "mean score A / B")
        total = [0, 0]
        for k in sorted({by[("A", s)]["scenario"] for s in scen}):
            ss = [s for s in scen if by[("A", s)]["scenario"] == k]
            pa = [bool(by[("A", s)]["passed"]) for s in ss]
            pb = [bool(by[("B", s)]["passed"]) for s in ss]
            total[0] += sum(pa)
            total[1] += sum(pb)
            fails: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for s in ss:
                for i, side in enumerate("AB"):
                    for name, _, _, met in by[(side, s)]["conditions"]:
                        fails[name][i] += not met
            missed = ", ".join(f"{n} {f[0]}/{f[1]}" for n, f in fails.items())
            only_a = sum(1 for x, y in zip(pa, pb, strict=True) if x and not y)
            only_b = sum(1 for x, y in zip(pa, pb, strict=True) if y and not x)
            mean_a = statistics.mean(by[("A", s)]["score"] for s in ss)
            mean_b = statistics.mean(by[("B", s)]["score"] for s in ss)
            print(f"#{k:<3} {sum(pa):>3} / {sum(pb):<3} ({only_a}, {only_b})  {mean_a:5.1f} / "
                  f"{mean_b:5.1f}   missed A/B: {missed}")
        print(f"all  {total[0]:>3} / {total[1]:<3} of {len(scen)}")
    print("\n== time per move, ms: wall median / p99 / max; CPU median / p99 / max")
    for side in "AB":
        wall = [t for r in results if r["side"] == side for t in r["wall"]]
        cpu = [t for r in results if r["side"] == side for t in r["cpu"]]
        print(f"{side}: {len(wall)} moves; wall {1000 * statistics.median(wall):.0f} / "
              f"{1000 * pct(wall, 0.99):.0f} / {1000 * max(wall):.0f}; CPU "
              f"{1000 * statistics.median(cpu):.0f} / {1000 * pct(cpu, 0.99):.0f} / "
              f"{1000 * max(cpu):.0f}; CPU per game {sum(cpu) / max(1, len(wall) / 23):.1f} s")


def _cache_key(level: str, overrides: dict[str, str], seed: int, opts: dict[str, Any]) -> str:
    return json.dumps([level, sorted(overrides.items()), seed, sorted(opts.items())])


def paired(args: argparse.Namespace) -> int:
    """Play both players on the same deals and report the paired differences. Games of a side
    that plays a git revision are kept in that revision's export directory and reused."""
    specs = []
    for spec in args.paired:
        level, ref, overrides = parse_spec(spec)
        specs.append((level, export_ref(ref) if ref else "", overrides))
    numbers = [int(k) for k in args.scenario_numbers.split(",") if k]
    deals: list[tuple[int, dict[str, Any]]] = [(args.seed + i, {}) for i in range(args.solo)]
    for k in numbers:
        deals += [(args.seed + 100 * k + i, {"scenario": k}) for i in range(args.scenarios)]
    caches: dict[str, dict[str, dict[str, Any]]] = {}
    for _, tree, _ in specs:
        if tree and tree not in caches:
            caches[tree] = {}
            path = Path(tree) / "paired-cache.jsonl"
            if path.exists():
                for line in path.read_text().splitlines():
                    item = json.loads(line)
                    caches[tree][item["key"]] = item["result"]
    tasks: list[tuple[str, str, dict[str, str], str, int, dict[str, Any]]] = []
    out: list[dict[str, Any]] = []
    for seed, opts in deals:
        for side, (level, tree, overrides) in zip("AB", specs, strict=True):
            got = caches.get(tree, {}).get(_cache_key(level, overrides, seed, opts))
            if got is not None:
                out.append({**got, "side": side})
            else:
                tasks.append((side, level, overrides, tree, seed, opts))
    print_machine()
    print(f"workers: {args.workers}; first seed {args.seed}; {len(deals)} deals; "
          f"{len(out)} games reused from earlier runs of a git revision")
    t0 = time.time()
    for res in pool_results(play_paired, tasks, args.workers, "paired"):
        out.append(res)
        level, tree, overrides = specs["AB".index(res["side"])]
        if tree:
            key = _cache_key(level, overrides, res["seed"], (
                {"scenario": res["scenario"]} if res["scenario"] is not None else {}))
            with (Path(tree) / "paired-cache.jsonl").open("a") as f:
                f.write(json.dumps({"key": key, "result": res}) + "\n")
    print(f"{len(tasks)} games in {time.time() - t0:.0f}s; at the end: {machine_line()}")
    report_paired(out, (args.paired[0], args.paired[1]))
    if args.json:
        Path(args.json).write_text(json.dumps(out))
    return 0


# --------------------------------------------------------------------------- duplicate games


def ai_package(tree: str) -> Any:
    """The ``engine.ai`` package of an exported git revision, imported under a name of its own
    beside this checkout's (its other engine modules are this checkout's: only ``engine/ai``
    may differ between the two sides of a duplicate game). Made by :func:`alias_ai` first."""
    import importlib

    name, root = _alias_name(tree)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


def _alias_name(tree: str) -> tuple[str, Path]:
    return "ai_" + Path(tree).name.replace("-", "_"), Path(tree) / "_alias"


def alias_ai(tree: str) -> None:
    """Copy ``tree``'s engine/ai to a package of its own name, its imports renamed."""
    import shutil

    name, root = _alias_name(tree)
    if (root / name).is_dir():
        return
    tmp = root / (name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(Path(tree) / "engine" / "ai", tmp)
    for f in tmp.glob("*.py"):
        text = f.read_text().replace("from engine.ai import", f"from {name} import")
        f.write_text(text.replace("engine.ai.", name + "."))
    tmp.rename(root / name)


def play_duplicate(task: tuple[tuple[tuple[str, str, dict[str, str]], ...], int, bool]
                   ) -> dict[str, Any]:
    """One two-player standard game: A in seat 0 and B in seat 1 (``swap``: the other way)."""
    specs, seed, swap = task
    sides = ("B", "A") if swap else ("A", "B")
    players = []
    for i, side in enumerate(sides):
        level, tree, overrides = specs["AB".index(side)]
        players.append(build_player(level, seed * 31 + i, overrides,
                                    ai_package(tree) if tree else None))
    state = new_game(CATALOG, GameOptions(players=2), seed)
    cpu: dict[str, list[float]] = {"A": [], "B": []}
    while state.phase is not Phase.OVER:
        seat = state.deciding_seat
        assert seat is not None
        legal = legal_moves(state, seat)
        view = private_view(state, seat)
        c0 = time.process_time()
        move = players[seat].choose(view, legal)
        cpu[sides[seat]].append(time.process_time() - c0)
        state, _ = apply(state, move)
    sheets = [breakdown(state.config, s) for s in state.seats]
    _, winners, _ = rank(sheets)
    return {"seed": seed, "sides": sides, "scores": [s["total"] for s in sheets],
            "winners": winners, "cpu": cpu}


def duplicate(args: argparse.Namespace) -> int:
    """Duplicate two-player games between A and B: each deal played twice, seats swapped."""
    specs = []
    for spec in args.duplicate:
        level, ref, overrides = parse_spec(spec)
        tree = export_ref(ref) if ref else ""
        if tree:
            alias_ai(tree)
        specs.append((level, tree, overrides))
    tasks = [(tuple(specs), args.seed + 5000 + i, swap) for i in range(args.deals)
             for swap in (False, True)]
    print_machine()
    print(f"workers: {args.workers}; {args.deals} deals (seeds {args.seed + 5000}-"
          f"{args.seed + 5000 + args.deals - 1}), two games each")
    t0 = time.time()
    rows = list(pool_results(play_duplicate, tasks, args.workers, "games"))
    print(f"{len(rows)} games in {time.time() - t0:.0f}s; at the end: {machine_line()}")
    print(f"\nA = {args.duplicate[0]}\nB = {args.duplicate[1]}")
    wins = {"A": 0.0, "B": 0.0}
    score: dict[str, list[int]] = {"A": [], "B": []}
    margin: dict[int, float] = defaultdict(float)
    for r in rows:
        for seat, side in enumerate(r["sides"]):
            score[side].append(r["scores"][seat])
            if seat in r["winners"]:
                wins[side] += 1 / len(r["winners"])
        b = r["sides"].index("B")
        margin[r["seed"]] += r["scores"][b] - r["scores"][1 - b]
    d = list(margin.values())
    m, se = _mean_se(d)
    for side in "AB":
        print(f"{side}: wins {wins[side]:.1f} of {len(rows)} games "
              f"({wins[side] / len(rows):.0%}), mean score {statistics.mean(score[side]):.2f}")
    print(f"B - A over both seatings of a deal: {m:+.2f} ± {se:.2f} points (s.e.); B ahead in "
          f"{sum(1 for x in d if x > 0)}, behind in {sum(1 for x in d if x < 0)}, even in "
          f"{sum(1 for x in d if x == 0)} of {len(d)} deals")
    for side in "AB":
        cpu = [t for r in rows for t in r["cpu"][side]]
        print(f"{side} CPU per move: median {1000 * statistics.median(cpu):.0f} ms, p99 "
              f"{1000 * pct(cpu, 0.99):.0f} ms, max {1000 * max(cpu):.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(rows))
    return 0


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="easy,normal,strong")
    ap.add_argument("--solo", type=int, default=200, help="solo standard games per level")
    ap.add_argument("--solo-strong", type=int, default=None,
                    help="solo standard games for strong (default: --solo)")
    ap.add_argument("--scenarios", type=int, default=None,
                    help="games per scenario per level (default 20; with --paired, 0)")
    ap.add_argument("--scenario-levels", default="normal,strong")
    ap.add_argument("--h2h", type=int, default=40,
                    help="games per head-to-head line-up (rounded up to whole deals, each "
                         "played in every rotation of the seats)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1000, help="first seed")
    ap.add_argument("--quick", action="store_true",
                    help="CI smoke run: 6 solo games per level, 1 per scenario, 2 per line-up")
    ap.add_argument("--json", metavar="FILE", help="also write every game's result here")
    ap.add_argument("--calibrate", type=int, metavar="N",
                    help="print engine/ai/tables.py measured from N normal solo games per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--paired", nargs=2, metavar=("A", "B"),
                    help="compare two players LEVEL[@GITREF][:NAME=VALUE,...] on the same deals")
    ap.add_argument("--duplicate", nargs=2, metavar=("A", "B"),
                    help="duplicate two-player games between two players LEVEL[@GITREF][:...]")
    ap.add_argument("--deals", type=int, default=100, help="with --duplicate: deals (two "
                    "games each)")
    ap.add_argument("--scenario-numbers", default="1,2,3,4,5,6,7,8,9,10",
                    help="with --paired: which scenarios to play")
    ap.add_argument("--fit", type=int, metavar="N",
                    help="fit per-turn weights of the value function's terms to the final "
                         "score of N solo games (--fit-level) and print them")
    ap.add_argument("--fit-level", default="normal")
    ap.add_argument("--draft-table", type=int, metavar="N",
                    help="print the draft corrections measured from N normal solo games")
    args = ap.parse_args(argv)
    if args.fit:
        sys.stdout.write(fit(args.fit, args.fit_level, args.workers))
        return 0
    if args.draft_table:
        sys.stdout.write(draft_table(args.draft_table, args.workers))
        return 0
    if args.calibrate:
        sys.stdout.write(calibrate(args.calibrate, args.rounds, args.workers))
        return 0
    if args.duplicate:
        return duplicate(args)
    if args.paired:
        if args.scenarios is None:
            args.scenarios = 0
        return paired(args)
    if args.scenarios is None:
        args.scenarios = 20
    if args.quick:
        args.solo, args.solo_strong, args.scenarios, args.h2h = 6, 3, 1, 2
    levels = [lv for lv in args.levels.split(",") if lv]
    solo_strong = args.solo if args.solo_strong is None else args.solo_strong
    print_machine()
    print(f"workers: {args.workers}; first seed {args.seed}")
    tasks: list[tuple[str, tuple[str, ...], int, dict[str, Any]]] = []
    for lv in levels:
        n = solo_strong if lv == "strong" else args.solo
        tasks += [("solo", (lv,), args.seed + i, {}) for i in range(n)]
    for lv in [x for x in args.scenario_levels.split(",") if x in levels]:
        for k in range(1, 11):
            tasks += [("scenario", (lv,), args.seed + 100 * k + i, {"scenario": k})
                      for i in range(args.scenarios)]
    lineups: list[tuple[str, ...]] = []
    if len(levels) >= 2:
        for i, a in enumerate(levels):
            for b in levels[i + 1:]:
                lineups.append((a, b))
        lineups.append(tuple(levels[:3]) if len(levels) >= 3 else (levels[0], levels[1],
                                                                      levels[1]))
        lineups.append((*levels[:3], levels[-1]) if len(levels) >= 3
                       else (levels[0], levels[1], levels[0], levels[1]))
    for lineup in lineups:
        # Duplicate games: each deal is played once per rotation of the seats, so every level
        # gets every seat's board, goals and tiles (the luck of the deal cancels out).
        n = len(lineup)
        for i in range(-(-args.h2h // n)):
            for k in range(n):
                tasks.append(("h2h", lineup[k:] + lineup[:k], args.seed + 5000 + i, {}))
    # longest games first keeps both workers busy to the end
    cost = {"random": 0, "easy": 1, "normal": 2, "strong": 30}
    tasks.sort(key=lambda t: -sum(cost.get(lv, 1) for lv in t[1]))
    t0 = time.time()
    results = list(pool_results(play, tasks, args.workers, "games"))
    print(f"{len(results)} games in {time.time() - t0:.0f}s")
    if solo_strong != args.solo and "strong" in levels:
        print(f"(strong played {solo_strong} solo standard games, the others {args.solo})")
    report_solo(results, levels)
    report_scenarios(results, levels)
    report_h2h(results)
    report_times(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
