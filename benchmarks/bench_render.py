"""Rendering speed and sizes: quilt, turn, table, score sheet, draft and achievements PNGs,
and the replay GIF of a 4-player game, from seeded games; then what names in other scripts
cost (render/script.py): the fallback fonts on disk, the memory the first names in every
script take (fonts opened, their character maps read), and the time of a table and a score
sheet whose names are in ten scripts against the same pictures with Latin names.

Run: .venv/bin/python benchmarks/bench_render.py [--repeat N]
Budgets (design): quilt <= 15 ms median, table <= 60 ms, every PNG <= 300 KB; the replay GIF
of a 4-player game <= 1.5 s and <= 8 MB (Discord's attachment limit).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import print_machine
from benchmarks.common.machine import rss_mb
from data import load_catalog
from engine.config import GameOptions
from engine.serialize import replay_views
from engine.views import private_view, public_view
from render import (
    frame_count,
    render_achievements,
    render_draft,
    render_quilt,
    render_replay,
    render_scoresheet,
    render_table,
    render_turn,
)
from render.samples import best_preview, play_record, play_until

BUDGET_MS = {"quilt": 15.0, "table": 60.0}
BUDGET_BYTES = 300 * 1024
REPLAY_BUDGET_MS = 1500.0
REPLAY_BUDGET_BYTES = 8 * 1024 * 1024


def measure(fn: Callable[[], bytes], repeat: int) -> tuple[float, float, float, int]:
    """Median wall ms, median CPU ms of this thread, worst wall ms, PNG bytes.

    The CPU time is what the render itself costs; the wall time also counts waiting for other
    processes. On a busy machine (see the load average printed) both grow: the cores are
    shared, so read the figures with the load beside them.
    """
    data = fn()  # warm the sprite caches, as a running bot has them
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.thread_time()
        data = fn()
        cpu.append((time.thread_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)
    return statistics.median(wall), statistics.median(cpu), max(wall), len(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--replay-repeat", type=int, default=10)
    parser.add_argument("--fonts-only", action="store_true",
                        help="only the fonts' cost (a fresh process measures its memory)")
    args = parser.parse_args()
    print_machine()
    if args.fonts_only:
        fonts_cost(args.repeat)
        return
    catalog = load_catalog()
    chart = catalog.achievements
    some = {a.id for a in chart.enabled[::2]}

    two = GameOptions(players=2)
    mid = play_until(two, 11, 2 + 25)
    end = play_until(two, 11, None)
    four = play_until(GameOptions(players=4), 5, 4 + 60)
    four_end = play_until(GameOptions(players=4), 5, None)
    start = play_until(two, 11, 0)
    seat = mid.current_seat
    assert seat is not None
    prev, legal, source = best_preview(mid)
    names = ["Marguerite", "Zbigniew", "Amélie", "Tomasz"]
    pub_end = public_view(end)
    cases: list[tuple[str, Callable[[], bytes]]] = [
        ("quilt", lambda: render_quilt(pub_end.seats[0], end.config, name="Marguerite",
                                       highlight=pub_end.seats[0].placed[-1])),
        ("quilt+preview", lambda: render_quilt(public_view(mid).seats[seat], mid.config,
                                               preview=prev, legal=legal)),
        ("turn", lambda: render_turn(private_view(mid, seat), name="Marguerite", preview=prev,
                                     legal=legal, selected=source)),
        ("table", lambda: render_table(public_view(four), names)),
        ("scoresheet", lambda: render_scoresheet(public_view(four_end), names)),
        ("draft", lambda: render_draft(private_view(start, 0).goal_offer, start.config,
                                       seat=public_view(start).seats[0])),
        ("achievements", lambda: render_achievements(chart, some, name="Marguerite")),
    ]
    print(f"{'image':<15}{'median ms':>10}{'cpu ms':>8}{'max ms':>8}{'KB':>8}  budget (median)")
    for name, fn in cases:
        med, cpu, worst, size = measure(fn, args.repeat)
        budget = BUDGET_MS.get(name)
        verdict = []
        if budget is not None:
            verdict.append(f"{'ok' if med <= budget else 'OVER'} ({budget:.0f} ms)")
        verdict.append("ok" if size <= BUDGET_BYTES else "OVER 300 KB")
        print(f"{name:<15}{med:>10.2f}{cpu:>8.2f}{worst:>8.2f}{size / 1024:>8.1f}  "
              f"{', '.join(verdict)}")

    # The replay GIF of a whole 4-player game between computer players, from its record:
    # the views (engine) and the GIF (render) timed together, as the bot would call them.
    record = play_record(GameOptions(players=4), 5, ("normal",) * 4)
    med, cpu, worst, size = measure(
        lambda: render_replay(replay_views(catalog, record), names), args.replay_repeat)
    frames = frame_count(4)
    ok = med <= REPLAY_BUDGET_MS and size <= REPLAY_BUDGET_BYTES
    print(f"{'replay GIF 4p':<15}{med:>10.2f}{cpu:>8.2f}{worst:>8.2f}{size / 1024:>8.1f}  "
          f"{frames} frames; {'ok' if ok else 'OVER'} ({REPLAY_BUDGET_MS:.0f} ms, "
          f"{REPLAY_BUDGET_BYTES // (1024 * 1024)} MB)")


SCRIPTS = ["Łukasz Nguyễn", "Αλέξανδρος", "Владимир", "李小龙", "さくら桜", "김민준",
           "محمد علي", "דוד כהן", "สมชาย", "🐱Mia🎲"]


def fonts_cost(repeat: int) -> None:
    """The fallback fonts: disk, memory of a first use of each, and time per picture."""
    from render import script, theme
    from render.common import text

    files = [theme.FONT_FILE] + [theme.FONT_DIR / f for f in script.CHAIN]
    disk = sum(f.stat().st_size for f in files[1:])
    print(f"fallback fonts on disk: {disk / 1e6:.1f} MB in {len(files) - 1} files "
          f"(Nunito {files[0].stat().st_size / 1e3:.0f} KB)")
    from PIL import Image

    four = play_until(GameOptions(players=4), 5, 4 + 60)
    end = play_until(GameOptions(players=4), 5, None)
    latin = ["Marguerite", "Zbigniew", "Amélie", "Tomasz"]
    render_table(public_view(four), latin)  # Nunito and the sprites warm, as in a bot
    render_scoresheet(public_view(end), latin)
    before = rss_mb()
    img = Image.new("RGB", (600, 60))
    peak = before
    for name in SCRIPTS:  # every fallback font at the sizes and weights names are drawn in
        for size, weight in ((22, theme.BOLD), (25, theme.BLACK), (26, theme.BOLD),
                             (30, theme.BLACK)):
            text(img, (0, 30), name, size, weight=weight, anchor="lm", max_w=300)
            peak = max(peak, rss_mb())
    after = rss_mb()
    print(f"RSS: {before:.1f} MB before the first non-Latin names, {after:.1f} MB after "
          f"drawing names in ten scripts at 4 sizes (+{after - before:.1f} MB; highest "
          f"+{peak - before:.1f} MB with the most faces open: FreeType maps a font's file "
          f"for each face, {script.FACES_PER_THREAD} kept a thread)")
    print(f"{'picture':<26}{'median ms':>10}{'cpu ms':>8}{'max ms':>8}")
    for label, names in (("Latin names", latin), ("ten scripts", SCRIPTS)):
        for kind, fn in (
                ("table", lambda n=names: render_table(public_view(four), n[:4])),
                ("table", lambda n=names: render_table(public_view(four), n[4:8])),
                ("scoresheet", lambda n=names: render_scoresheet(public_view(end), n[-4:]))):
            med, cpu, worst, _ = measure(fn, repeat)
            print(f"{kind + ', ' + label:<26}{med:>10.2f}{cpu:>8.2f}{worst:>8.2f}")
    print(f"RSS at the end: {rss_mb():.1f} MB")


if __name__ == "__main__":
    main()
