"""A soak: N concurrent two-person games (default 30), each replaced by a new one when it ends,
for a while (default 10 minutes), watching the bot's memory: RSS at start, middle and end,
whether the second half is flat, and where the memory goes (tracemalloc snapshots: the
allocation sites that grew between snapshots, grouped by who allocated).

Three ways to drive it (``--mode``):

- ``manager``: the manager and the outbox dispatcher in this process, each notice turned into
  its message by the Discord layer's own renderer (``NoticeRenderer``: texts, buttons and the
  pictures drawn in worker threads), then dropped; moves are random legal moves;
- ``remote`` (the real thing): the real discord.py client (``CalicoBot``) in its OWN process,
  against the project's fake Discord (``tests/fakediscord``) running here with the players,
  who click through their DMs with ``tests/adapter/harness.py``; RSS and tracemalloc are the
  bot process's alone (the fake keeps every message, picture and request it ever saw, so its
  memory must not be counted as the bot's);
- ``discord``: the same, with the bot in this process next to the fake (what a quick test
  would do): RSS then includes the fake Discord, and tracemalloc tells the two apart.

    .venv/bin/python benchmarks/bench_soak.py                       # remote, 30 games, 10 min
    .venv/bin/python benchmarks/bench_soak.py --mode manager
    .venv/bin/python benchmarks/bench_soak.py --quick               # 1 minute, 10 games
    .venv/bin/python benchmarks/bench_soak.py --trace --minutes 4   # with tracemalloc (slower)

In the Discord modes every fifth table (``--solo``) plays solo games (``/calico solo``, then
its turns through the DM panel, and again), and each interaction a person makes is timed on the
fake Discord's clock (``tests/fakediscord`` records when it sent each interaction to the bot and
when each answer came): per kind (``/calico start`` and ``solo``, lobby Join and Start, draft
select and confirm, cell select, take), the bot's first response (a deferral or the answer)
and the answer itself (for ``/calico start`` and ``solo``: the one naming the game's thread,
what the person waits for), count, p50, p99 and max, printed as a table at the end (and in the
``--json`` file). They include the event-loop lag of the process holding the fake Discord (the
players' in remote mode), printed under the table.

    .venv/bin/python benchmarks/bench_soak.py --minutes 3 --json soak.json  # the latency

Target: RSS <= 150 MB after 10 minutes and flat over the second half (it grows by at most 5 %
or 5 MB from the middle to the end).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import linecache
import os
import random
import re
import signal
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core import queries

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import (
    ROOT,
    cancel,
    dispatching,
    lag_monitor,
    load_text,
    machine_line,
    pct,
    play_random_move,
    print_machine,
    rss_mb,
    table,
    two_player_game,
)

# --------------------------------------------------------------------------- memory probe


def owner_of(tb: tracemalloc.Traceback) -> str:
    """Who made an allocation: the most recent frame in this project (bot, render, engine,
    tests...), else the package of the most recent frame."""
    frames = list(tb)  # oldest first
    for fr in reversed(frames):
        path = fr.filename
        if path.startswith(str(ROOT)) and "/.venv/" not in path:
            rel = os.path.relpath(path, ROOT)
            return f"{rel}:{fr.lineno}"
    fr = frames[-1]
    return f"{_package(fr.filename)}:{fr.lineno}"


def _package(path: str) -> str:
    marker = "site-packages/"
    if marker in path:
        return path.split(marker, 1)[1]
    return "/".join(Path(path).parts[-2:])


def group_of(owner: str) -> str:
    """A coarse group for an owner: bot/adapter, bot/core, render, engine, tests/fakediscord,
    discord, aiohttp, PIL, python..."""
    path = owner.split(":", 1)[0]
    parts = path.split("/")
    if parts[0] in ("bot", "tests") and len(parts) > 2:
        return "/".join(parts[:2])
    if parts[0] in ("render", "engine", "data", "benchmarks", "bot", "tests"):
        return parts[0]
    return parts[0].split(".")[0]


@dataclass
class Snap:
    label: str
    t: float
    rss: float
    snapshot: tracemalloc.Snapshot | None
    types: Counter[str]


class Probe:
    """RSS samples, and (with ``trace``) tracemalloc snapshots with an object census."""

    def __init__(self, trace: bool, frames: int = 8) -> None:
        self.trace = trace
        self.t0 = time.monotonic()
        self.samples: list[tuple[float, float, float]] = []  # (s, RSS MB, traced MB)
        self.snaps: list[Snap] = []
        if trace and not tracemalloc.is_tracing():
            tracemalloc.start(frames)

    def sample(self) -> tuple[float, float, float]:
        traced = tracemalloc.get_traced_memory()[0] / 1e6 if self.trace else float("nan")
        s = (time.monotonic() - self.t0, rss_mb(), traced)
        self.samples.append(s)
        return s

    def snap(self, label: str) -> Snap:
        gc.collect()
        types: Counter[str] = Counter(type(o).__qualname__ for o in gc.get_objects())
        snapshot = None
        if self.trace:
            snapshot = tracemalloc.take_snapshot().filter_traces([
                tracemalloc.Filter(False, tracemalloc.__file__),
                tracemalloc.Filter(False, linecache.__file__),
            ])
        s = Snap(label, time.monotonic() - self.t0, rss_mb(), snapshot, types)
        self.snaps.append(s)
        return s

    @staticmethod
    def growth(a: Snap, b: Snap, top: int = 15) -> dict[str, Any]:
        """What grew from ``a`` to ``b``: by group, by owner line, by object type."""
        out: dict[str, Any] = {"from": a.label, "to": b.label, "rss": b.rss - a.rss}
        if a.snapshot is not None and b.snapshot is not None:
            def by_owner(snap: tracemalloc.Snapshot) -> Counter[str]:
                c: Counter[str] = Counter()
                for st in snap.statistics("traceback"):
                    c[owner_of(st.traceback)] += st.size
                return c

            oa, ob = by_owner(a.snapshot), by_owner(b.snapshot)
            diff = {k: ob.get(k, 0) - oa.get(k, 0) for k in set(oa) | set(ob)}
            groups: Counter[str] = Counter()
            for k, v in diff.items():
                groups[group_of(k)] += v
            out["traced"] = (sum(ob.values()) - sum(oa.values())) / 1e6
            out["traced_total"] = sum(ob.values()) / 1e6
            out["groups"] = [(g, v / 1e6) for g, v in groups.most_common() if abs(v) > 2e5]
            out["owners"] = [(k, v / 1e6, ob.get(k, 0) / 1e6)
                             for k, v in sorted(diff.items(), key=lambda kv: -kv[1])[:top]]
            lines = b.snapshot.compare_to(a.snapshot, "lineno")
            out["lines"] = [(f"{_package(st.traceback[0].filename)}:{st.traceback[0].lineno}",
                             st.size_diff / 1e6, st.count_diff) for st in lines[:top]]
        types = {k: b.types.get(k, 0) - a.types.get(k, 0) for k in set(a.types) | set(b.types)}
        out["types"] = sorted(((k, v) for k, v in types.items() if v), key=lambda kv: -kv[1])[
            :top]
        return out


def print_growth(g: dict[str, Any]) -> None:
    print(f"\n-- growth from '{g['from']}' to '{g['to']}': RSS {g['rss']:+.1f} MB"
          + (f", traced Python memory {g['traced']:+.1f} MB (now {g['traced_total']:.1f} MB)"
             if "traced" in g else ""))
    if "groups" in g:
        print(table(["allocated by", "MB"], [[k, f"{v:+.2f}"] for k, v in g["groups"]]))
        print()
        print(table(["allocation site (innermost frame in this project)", "grew MB", "now MB"],
                    [[k, f"{v:+.2f}", f"{n:.2f}"] for k, v, n in g["owners"]]))
        print()
        print(table(["allocating line (innermost frame)", "grew MB", "blocks"],
                    [[k, f"{v:+.2f}", f"{c:+d}"] for k, v, c in g["lines"]]))
    print()
    print(table(["object type", "count grew"], [[k, f"{v:+,d}"] for k, v in g["types"]]))


def flat(mid: float, end: float) -> bool:
    return end - mid <= max(5.0, 0.05 * mid)


# --------------------------------------------------------------------------- experiments


def render_in_own_threads(threads: int) -> None:
    """Size the Discord layer's render pool (``bot.adapter.ui.images``; CALICO_RENDER_THREADS,
    one by default) to ``threads``, to compare. Fonts are cached per thread (render/theme.py),
    so more render threads mean more font copies and heap arenas."""
    from bot.adapter.ui import images

    images.set_render_threads(threads)


def malloc_trim() -> float:
    """Give free heap memory back to the system (glibc); returns the RSS it released (MB)."""
    import ctypes

    before = rss_mb()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        return float("nan")
    return before - rss_mb()


def font_count() -> int:
    """FreeTypeFont objects alive (render/theme.py keeps them per thread and per size)."""
    from PIL.ImageFont import FreeTypeFont

    return sum(1 for o in gc.get_objects() if isinstance(o, FreeTypeFont))


def pil_images() -> tuple[int, float]:
    """PIL images alive and their pixel memory (MB): allocated by Pillow in C, so tracemalloc
    does not see it. Mostly the renderer's lru_caches of sprites and board bases."""
    from PIL import Image

    n, size = 0, 0
    for o in gc.get_objects():
        if isinstance(o, Image.Image):
            n += 1
            with contextlib.suppress(Exception):
                size += o.width * o.height * len(o.getbands())
    return n, size / 1e6


def thread_count() -> int:
    import threading

    return threading.active_count()


def cached_games(manager: Any) -> int:
    """Games the manager holds in its cache."""
    return len(manager.kernel.cached_games())


def view_store_size(client: Any) -> int:
    """Messages (and the message-less entry) with views in discord.py's view store."""
    # discord.py 2.7 has no public size of its view store (``persistent_views`` lists only
    # the persistent ones): the one private read left, of discord.py's, not of ours.
    return len(client._connection._view_store._views)  # noqa: SLF001


# --------------------------------------------------------------------------- manager mode


async def soak_manager(args: argparse.Namespace, probe: Probe) -> dict[str, Any]:
    from bot.adapter.delivery import NoticeRenderer
    from bot.adapter.locales import LocaleSource
    from bot.core.manager import Manager
    from bot.core.models import UserRef
    from bot.core.notices import Notice

    tmp = tempfile.mkdtemp(prefix="calico-soak-")
    m = await Manager.open(Path(tmp) / "soak.db")
    renderer = NoticeRenderer(m.kernel, LocaleSource(m.kernel))
    built = Counter[str]()

    class RenderDelivery:
        """Builds each notice's message as the Discord layer would (pictures included)."""

        async def deliver(self, notice: Notice) -> None:
            game = await queries.game(m.kernel, notice.game_id)
            out = await renderer.build(notice, game)
            built[notice.kind] += 1
            if out is not None:
                built["bytes"] += sum(len(data) for _, data in out.files)

    stop = asyncio.Event()
    moves = [0]
    games = [0]

    async def slot(k: int) -> None:
        rng = random.Random(k)
        n = 0
        while not stop.is_set():
            n += 1
            base = 1000 * k + 2 * n
            g = await two_player_game(m, UserRef(base + 1, f"h{k}"), UserRef(base + 2, f"g{k}"),
                                      guild_id=1, channel_id=2)
            while g.status.active and not stop.is_set():
                await asyncio.sleep(rng.uniform(0, 2 * args.think))
                g = await play_random_move(m, g, rng)
                moves[0] += 1
            games[0] += 1

    errors: Counter[str] = Counter()

    async def guarded(k: int) -> None:
        while not stop.is_set():
            try:
                await slot(k)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                errors[type(e).__name__] += 1
                if sum(errors.values()) <= 5:
                    print(f"  slot {k}: {type(e).__name__}: {e}", flush=True)

    def counters() -> dict[str, Any]:
        c: dict[str, Any] = {"moves": moves[0], "games": games[0],
                             "notices": sum(v for k, v in built.items() if k != "bytes"),
                             "cached games": cached_games(m), "fonts": font_count(),
                             "threads": thread_count()}
        n, mb = pil_images()
        c["images (MB)"] = f"{n} ({mb:.0f})"
        if args.malloc_trim:
            c["trim MB"] = f"{malloc_trim():.1f}"
        c["errors"] = sum(errors.values())
        return c

    try:
        async with dispatching(m, RenderDelivery()):
            tasks = [asyncio.create_task(guarded(k)) for k in range(args.games)]
            try:
                return await watch(args, probe, counters)
            finally:
                stop.set()
                await cancel(tasks)
    finally:
        await m.close()


# --------------------------------------------------------------------------- watching


async def watch(args: argparse.Namespace, probe: Probe,
                counters: Callable[[], dict[str, Any]],
                snap: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """Sample every ``--every`` seconds for ``--minutes``; snapshots after the warm-up, at the
    middle and at the end. ``snap`` (remote mode) asks the bot process for them instead."""
    total = args.minutes * 60
    warm = min(30.0, total / 10)
    marks = [("start (after warm-up)", warm), ("middle", total / 2), ("end", total)]
    t0 = time.monotonic()
    rows: list[list[str]] = []
    taken: list[Any] = []
    next_sample = 0.0
    while marks:
        now = time.monotonic() - t0
        if now >= marks[0][1]:
            label = marks.pop(0)[0]
            taken.append(await snap(label) if snap is not None else probe.snap(label))
            continue
        if now >= next_sample:
            s = probe.sample()
            c = counters()
            rows.append([f"{now:.0f}", f"{s[1]:.1f}",
                         "-" if s[2] != s[2] else f"{s[2]:.1f}",
                         *(str(v) for v in c.values()), load_text()[5:9]])
            print("  " + " | ".join(rows[-1]), flush=True)
            next_sample += args.every
        await asyncio.sleep(min(1.0, max(0.05, next_sample - now)))
    return {"rows": rows, "columns": list(counters().keys()), "snaps": taken}


# --------------------------------------------------------------------------- Discord modes


# -- what each person waits for: the bot's first response to each interaction, and its answer

# The interactions a person makes, in the order of a game (kind: its name in the table).
KINDS: dict[str, str] = {
    "start": "/calico start", "solo": "/calico solo", "join": "lobby Join",
    "begin": "lobby Start", "draft": "draft select", "confirm": "draft confirm",
    "cell": "cell select", "take": "take (commit turn)",
}
OPENING = ("start", "solo")  # answered with a link to the game's thread
THREAD_LINK = re.compile(r"<#\d+>")
ANSWER_CALLBACKS = (4, 7)  # the callback is the answer: a message, or the clicked one edited


@dataclass
class Sent:
    """One interaction a person made: the fake Discord's record of it (``FakeInteraction``,
    with the time it was sent to the bot and the time of each answer), and for ``/calico
    start`` and ``solo`` the game's thread once known."""

    kind: str
    ix: Any
    game_id: int | None = None
    thread_id: int | None = None
    refused: bool = False  # a cooldown or a limit said no (privately): no game opened


def first_response(ix: Any) -> float | None:
    """Seconds from the fake Discord sending the interaction to the bot's first callback (a
    deferral or the answer itself), both read on the fake's clock."""
    return ix.callbacks[0].at - ix.dispatched_at if ix.callbacks else None


def answer_event(ix: Any) -> Any | None:
    """The event that brought the answer: the callback when it was the answer (a message, or
    the clicked message edited), else (after a deferral) the first follow-up or edit."""
    for e in ix.events:
        if e.kind == "callback" and e.callback_type in ANSWER_CALLBACKS:
            return e
        if e.kind in ("followup", "edit_original"):
            return e
    return None


def thread_shown(env: Any, s: Sent) -> tuple[float | None, bool]:
    """Seconds until the person was shown their game's thread: the answer, when it links the
    thread; else (the answer said the thread is on its way) the thread's first post. And
    whether it was the answer."""
    e = answer_event(s.ix)
    if e is not None and e.message_id is not None:
        msg = env.state.messages.get(e.message_id)
        if msg is not None and THREAD_LINK.search(msg.content):
            return e.at - s.ix.dispatched_at, True
    chan = env.state.channels.get(s.thread_id) if s.thread_id is not None else None
    if chan is not None and chan.message_ids:
        return env.state.messages[chan.message_ids[0]].created_at - s.ix.dispatched_at, False
    return None, False


def threads_made(env: Any) -> dict[int, float]:
    """When the bot asked the fake Discord to make each game's thread (by game number, read
    in the thread's name, "Calico #12 (host)")."""
    out: dict[int, float] = {}
    for r in env.state.requests:
        if r.method == "POST" and r.path.endswith("/threads") and isinstance(r.body, dict):
            found = GAME_NO.search(str(r.body.get("name") or ""))
            if found:
                out.setdefault(int(found[1]), r.at)
    return out


def thread_ready(env: Any, s: Sent, made: dict[int, float]) -> float | None:
    """Seconds until what ``_wait_for_thread`` waits for was there: for a table, its lobby
    post in the thread (the thread's first post); for a solo game, the thread (asked for)."""
    if s.kind == "start":
        chan = env.state.channels.get(s.thread_id) if s.thread_id is not None else None
        if chan is None or not chan.message_ids:
            return None
        return float(env.state.messages[chan.message_ids[0]].created_at - s.ix.dispatched_at)
    at = made.get(s.game_id) if s.game_id is not None else None
    return None if at is None else at - s.ix.dispatched_at


def spread(seconds: list[float]) -> dict[str, float] | None:
    """p50, p99 and max in ms (None without values)."""
    if not seconds:
        return None
    return {"p50": round(pct(seconds, 0.5) * 1000, 1), "p99": round(pct(seconds, 0.99) * 1000, 1),
            "max": round(max(seconds) * 1000, 1)}


def latency_figures(env: Any, sent: list[Sent]) -> dict[str, dict[str, Any]]:
    """Per kind of interaction: how many, how many the bot never answered, deferred, refused,
    and the spread of the first response and of the answer (for ``/calico start`` and
    ``solo``: the game's thread shown)."""
    out: dict[str, dict[str, Any]] = {}
    made = threads_made(env)
    for kind, label in KINDS.items():
        mine = [s for s in sent if s.kind == kind and not s.refused]
        first = [t for s in mine if (t := first_response(s.ix)) is not None]
        answer: list[float] = []
        late_thread = 0
        for s in mine:
            if kind in OPENING:
                t, linked = thread_shown(env, s)
                late_thread += t is not None and not linked
            else:
                e = answer_event(s.ix)
                t = None if e is None else e.at - s.ix.dispatched_at
            if t is not None:
                answer.append(t)
        out[kind] = {"label": label, "count": len(mine), "unanswered": len(mine) - len(first),
                     "deferred": sum(1 for s in mine if s.ix.deferred),
                     "refused": sum(1 for s in sent if s.kind == kind and s.refused),
                     "first_response_ms": spread(first), "answers": len(answer),
                     "answer_ms": spread(answer)}
        if kind in OPENING:
            out[kind]["thread_after_answer"] = late_thread
            # The slowest few, and when in the run (a start-up cost, or spread out?).
            begin = min((s.ix.dispatched_at for s in sent), default=0.0)
            timed = sorted(((t, s.ix.dispatched_at - begin) for s in mine
                            if (t := thread_shown(env, s)[0]) is not None), reverse=True)
            out[kind]["slowest"] = [(round(t * 1000, 1), round(at, 1)) for t, at in timed[:3]]
            out[kind]["ready_ms"] = spread([t for s in mine
                                            if (t := thread_ready(env, s, made)) is not None])
    return out


def print_latency(figures: dict[str, dict[str, Any]], lag: dict[str, float] | None,
                  mode: str) -> None:
    def cells(d: dict[str, float] | None) -> list[str]:
        return ["-"] * 3 if d is None else [f"{d['p50']:.1f}", f"{d['p99']:.1f}",
                                            f"{d['max']:.1f}"]

    rows = [[f["label"], str(f["count"]), *cells(f["first_response_ms"]), str(f["deferred"]),
             *cells(f["answer_ms"]), str(f["unanswered"])]
            for f in figures.values() if f["count"] or f["refused"]]
    print("\nLatency of each interaction a person makes (ms, on the fake Discord's clock): "
          "from the interaction sent to the bot to its first response (a deferral or the "
          "answer), and to the answer itself (after a deferral: its follow-up or edit; for "
          "/calico start and solo: the answer naming the game's thread)")
    print_machine()
    print(table(["interaction", "n", "first p50", "first p99", "first max", "deferred",
                 "answer p50", "answer p99", "answer max", "unanswered"], rows))
    for kind in OPENING:
        f = figures[kind]
        if f.get("ready_ms"):
            r = f["ready_ms"]
            what = "its lobby posted in its thread" if kind == "start" else "its thread asked for"
            print(f"  {f['label']}: the game had {what} after p50 {r['p50']:.1f}, p99 "
                  f"{r['p99']:.1f}, max {r['max']:.1f} ms (the answer waits for it, polling)")
        if f.get("slowest"):
            print(f"  {f['label']}: slowest " + ", ".join(
                f"{ms:.0f} ms at {at:.0f} s" for ms, at in f["slowest"]) + " into the run")
        if f.get("thread_after_answer"):
            print(f"  {f['label']}: {f['thread_after_answer']} answer(s) said the thread was on "
                  "its way (the 10 s wait ran out); those count until the thread's first post")
        if f["refused"]:
            print(f"  {f['label']}: {f['refused']} refused privately (the start cooldown), "
                  "left out")
    if lag is not None:
        where = "the players' and the fake Discord's process" if mode == "remote" else \
            "this process (the fake Discord, the players and the bot)"
        print(f"  event-loop lag of {where} (included in the figures): p50 {lag['p50']:.1f}, "
              f"p99 {lag['p99']:.1f}, max {lag['max']:.1f} ms")


async def settle_answers(env: Any, sent: list[Sent], timeout: float = 15.0) -> None:
    """Once the players stopped: let the bot answer what they had sent (up to ``timeout``)."""
    def answered() -> bool:
        return all(s.ix.callbacks and (s.kind not in OPENING or answer_event(s.ix) is not None)
                   for s in sent if not s.refused)

    with contextlib.suppress(TimeoutError):
        await env.state.wait_for(answered, timeout=timeout, what="the last answers")


@dataclass
class Players:
    """The fake Discord and the people clicking in it."""

    env: Any
    game_of: Callable[[int], Any]
    interactions: int = 0
    moves: int = 0
    games: int = 0
    solo_games: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    sent: list[Sent] = field(default_factory=list)

    def note(self, kind: str, ix: Any) -> Sent:
        """An interaction just sent, to be timed at the end."""
        s = Sent(kind, ix)
        self.sent.append(s)
        self.interactions += 1
        return s


GAME_NO = re.compile(r"Calico #(\d+)")


async def control(env: Any, message_id: int, prefix: str, timeout: float = 30) -> str:
    """The custom id starting with ``prefix`` on the message's current version, once there
    (an answer may be deferred and edited a moment later)."""
    from tests.adapter.harness import custom_ids

    def find() -> str | None:
        return next((c for c in custom_ids(env.get_message(message_id))
                     if c.startswith(prefix)), None)

    found: str = await env.state.wait_for(find, timeout=timeout, what=f"a {prefix} control")
    return found


async def draft(p: Players, user: str, msg: Any, game: Any) -> None:
    """tests/adapter/harness.draft_via, waiting for the Confirm button to appear."""
    from engine.moves import ChooseGoals
    from tests.adapter.harness import pick_move

    env = p.env
    uid = env.user(user).id
    move = pick_move(game, uid)
    assert isinstance(move, ChooseGoals)
    seat = game.seat_of(uid)
    offer = game.state.seats[seat].goal_offer
    value = "".join(str(offer.index(g)) for g in move.goals)
    select = await control(env, msg.id, "calico:g:")
    ix = await env.select(user, msg, select, [value])
    p.note("draft", ix)
    await ix.wait_response(timeout=30)
    confirm = await control(env, msg.id, "calico:gc:")
    ix = await env.click(user, env.get_message(msg.id), custom_id=confirm)
    p.note("confirm", ix)
    await ix.wait_response(timeout=30)


async def turn(p: Players, user: str, msg: Any, game: Any) -> None:
    """tests/adapter/harness.turn_via, waiting for the take button to appear."""
    from engine.hexgrid import cell_name
    from engine.moves import PlaceTile
    from tests.adapter.harness import pick_move

    env = p.env
    move = pick_move(game, env.user(user).id)
    assert isinstance(move, PlaceTile)
    source = f"h{move.hand}" if move.hand is not None else f"m{move.market}"
    cell = cell_name(move.cell)
    ix = await env.select(user, msg, f"calico:c:{game.id}:{game.ply}:{source}", [cell])
    p.note("cell", ix)
    await ix.wait_response(timeout=30)
    slot = "x" if move.hand is None or move.market is None else str(move.market)
    take = f"calico:t:{game.id}:{game.ply}:{source}:{cell}:{slot}"
    await control(env, msg.id, take)
    ix = await env.click(user, env.get_message(msg.id), custom_id=take)
    p.note("take", ix)
    await ix.wait_response(timeout=30)


async def open_game(p: Players, user: str, command: str,
                    options: dict[str, Any] | None = None) -> Any | None:
    """``/calico start`` or ``/calico solo`` by ``user``: the game once its thread is known,
    or None when the bot refused privately (the start cooldown: 3 games, then one per 20 s)."""
    env = p.env
    ix = await env.slash(user, "calico", command, options=options)
    s = p.note(command, ix)
    await ix.wait_response(timeout=30)
    reply = await ix.wait_followup(timeout=30)
    found = GAME_NO.search(reply.content)
    if found is None and reply.ephemeral:
        s.refused = True
        return None
    assert found, reply.content
    game_id = s.game_id = int(found[1])
    game = await p.game_of(game_id)
    for _ in range(600):  # the answer may have said that the thread is on its way
        if game.thread_id is not None:
            break
        await asyncio.sleep(0.1)
        game = await p.game_of(game_id)
    assert game.thread_id is not None, f"game {game_id} has no thread after a minute"
    s.thread_id = game.thread_id
    return game


async def play_game(p: Players, game_id: int, names: dict[int, str],
                    stop: asyncio.Event) -> None:
    """The goal draft, then every turn, each person through the panel in their DMs."""
    from bot.core.models import GameStatus
    from tests.adapter.harness import DRAFT_SELECT, wait_panel

    env = p.env
    for user in names.values():
        panel = await wait_panel(env, user, game_id, 0, DRAFT_SELECT, timeout=30)
        game = await p.game_of(game_id)
        await draft(p, user, panel, game)
        p.moves += 1
    game = await p.game_of(game_id)
    while game.status is GameStatus.DRAFT:
        await asyncio.sleep(0.05)
        game = await p.game_of(game_id)
    while game.status is GameStatus.PLAY and not stop.is_set():
        user = names[game.current_user_id or 0]
        panel = await wait_panel(env, user, game_id, game.ply, timeout=30)
        await turn(p, user, panel, game)
        p.moves += 1
        ply = game.ply
        for _ in range(600):
            game = await p.game_of(game_id)
            if game.ply != ply:
                break
            await asyncio.sleep(0.02)


async def play_slot(p: Players, k: int, stop: asyncio.Event, solo: bool = False,
                    delay: float = 0.0) -> None:
    """One table, a new game each time the last one ends: two people (``host{k}`` and
    ``guest{k}``, who take turns opening with ``/calico start``, the other joining), or one
    (``/calico solo`` by ``solo{k}a``, ``b`` or ``c`` in turn). Taking turns keeps each person
    within the start cooldown (3 games, then one per 20 s) however fast the games go."""
    env = p.env
    await asyncio.sleep(delay)
    n = 0
    while not stop.is_set():
        n += 1
        try:
            if solo:
                player = f"solo{k}{'abc'[n % 3]}"
                game = await open_game(p, player, "solo")
                names = {env.user(player).id: player}
            else:
                host, guest = (f"host{k}", f"guest{k}")[::1 if n % 2 else -1]
                game = await open_game(p, host, "start", {"players": 2})
                names = {env.user(host).id: host, env.user(guest).id: guest}
            if game is None:  # refused: the cooldown lets the next one through in 20 s
                await asyncio.sleep(5)
                continue
            if not solo:
                lobby = await env.wait_for_message(game.thread_id, lambda m: bool(m.components),
                                                   timeout=30)
                ix = await env.click(guest, lobby, label="Join")
                p.note("join", ix)
                await ix.wait_response(timeout=30)
                ix = await env.click(host, env.get_message(lobby.id), label="Start")
                p.note("begin", ix)
                await ix.wait_response(timeout=30)
            await play_game(p, game.id, names, stop)
            p.games += 1
            p.solo_games += solo
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a stuck game: count it and open another
            p.errors[type(e).__name__] += 1
            if sum(p.errors.values()) <= 5:
                print(f"  slot {k}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            await asyncio.sleep(1)


def solo_slots(args: argparse.Namespace) -> set[int]:
    """The slots that play solo games: ``--solo`` of them, spread over the ``--games``."""
    n, k = args.games, max(0, min(args.solo, args.games))
    return {i * n // k for i in range(k)} if k else set()


async def players_at_work(args: argparse.Namespace, p: Players, stop: asyncio.Event,
                          watching: Any) -> dict[str, Any]:
    """The slots playing while ``watching`` (``watch(...)``) runs; then the latency of every
    interaction they made, and the event-loop lag of this process meanwhile."""
    solos = solo_slots(args)
    lag: list[float] = []
    lag_stop = asyncio.Event()
    lagging = asyncio.create_task(lag_monitor(lag, lag_stop, 0.05))
    tasks = [asyncio.create_task(play_slot(p, k, stop, k in solos, k * args.stagger))
             for k in range(args.games)]
    try:
        result: dict[str, Any] = await watching
    finally:
        stop.set()
        await cancel(tasks)
        lag_stop.set()
        await cancel([lagging])
    await settle_answers(p.env, p.sent)
    # The ramp (the bot just started, the tables opening one after another) apart from the
    # steady state the targets are about: 30 games being played.
    begin = min((s.ix.dispatched_at for s in p.sent), default=0.0)
    steady = [s for s in p.sent if s.ix.dispatched_at - begin >= args.warmup]
    ramp = [s for s in p.sent if s.ix.dispatched_at - begin < args.warmup]
    result["latency"] = latency_figures(p.env, steady)
    result["latency_ramp"] = latency_figures(p.env, ramp)
    result["warmup_s"] = args.warmup
    result["loop_lag_ms"] = spread(lag)
    result["played"] = {"games": p.games, "solo games": p.solo_games, "moves": p.moves,
                        "interactions": p.interactions, "errors": dict(p.errors)}
    return result


def bot_factory(db: Path, render_threads: int = 0) -> Callable[[], Any]:
    """The bot as ``calico-bot run`` makes it (``render_threads`` 0: the setting's default)."""
    from bot.adapter.client import CalicoBot
    from bot.settings import Settings

    def make() -> Any:
        extra = {"render_threads": render_threads} if render_threads else {}
        return CalicoBot(Settings(token="fake", db_path=str(db), **extra), sync="never",
                         sweep_interval=60.0, dispatch_poll=0.05)

    return make


# Display names in ten scripts (--scripts): every picture then draws names through the
# fallback fonts (render/script.py), as on an international server.
SCRIPT_NAMES = ("Łukasz Nguyễn", "Αλέξανδρος", "Владимир", "李小龙", "さくら桜", "김민준",
                "محمد علي", "דוד כהן", "สมชาย", "🐱Mia🎲")


def _add_players(env: Any, games: int, scripts: bool = False) -> None:
    for k in range(games):
        host = env.add_user(f"host{k}")
        guest = env.add_user(f"guest{k}")
        solos = [env.add_user(f"solo{k}{who}") for who in "abc"]
        if scripts:
            for n, user in enumerate((host, guest, *solos)):
                user.global_name = SCRIPT_NAMES[(5 * k + n) % len(SCRIPT_NAMES)]


async def soak_discord(args: argparse.Namespace, probe: Probe) -> dict[str, Any]:
    """The bot in this process, next to the fake Discord."""
    from tests.fakediscord import DiscordEnv

    tmp = Path(tempfile.mkdtemp(prefix="calico-soak-"))
    env = DiscordEnv(interaction_deadline=30.0)
    _add_players(env, args.games, args.scripts)
    stop = asyncio.Event()
    async with env:
        client = await env.start_client(bot_factory(tmp / "soak.sqlite3", args.render_threads),
                                        timeout=30)
        manager = client.manager

        async def game_of(game_id: int) -> Any:
            return await queries.game(manager.kernel, game_id)

        p = Players(env, game_of)
        return await players_at_work(args, p, stop, watch(args, probe, lambda: {
            "interactions": p.interactions, "moves": p.moves, "games": p.games,
            "fake: messages": len(env.state.messages),
            "fake: requests": len(env.state.requests),
            "bot: msg cache": len(client.cached_messages),
            "bot: view store": view_store_size(client),
            "errors": sum(p.errors.values())}))


# -- remote: the bot in its own process


BOT_COUNTERS = ("bot: msg cache", "bot: view store", "bot: cached games",
                "bot: Discord threads", "bot: DM channels", "bot: fonts", "bot: OS threads",
                "bot: images (MB)")


async def child_bot(db: str, report: str, trace: bool, render_threads: int = 0,
                    trim: bool = False) -> None:
    """The bot process (``--child-bot``): runs CalicoBot against the fake Discord named by the
    environment, writes a JSON line to ``report`` at each SIGUSR1 (a snapshot) and when asked
    for a sample (SIGUSR2); SIGTERM stops it."""
    from tests.fakediscord.remote import redirect, token

    redirect()
    probe = Probe(trace)
    bot = bot_factory(Path(db), render_threads)()
    bot.sync_mode = "always"  # a remote bot's commands reach the fake by syncing
    loop = asyncio.get_running_loop()
    out = open(report, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the process

    def write(kind: str, data: dict[str, Any]) -> None:
        out.write(json.dumps({"kind": kind, **data}) + "\n")
        out.flush()

    def counters() -> dict[str, Any]:
        try:
            games = cached_games(bot.manager)
        except RuntimeError:  # the manager opens in setup_hook
            games = 0
        return {"bot: msg cache": len(bot.cached_messages),
                "bot: view store": view_store_size(bot),
                "bot: cached games": games,
                "bot: Discord threads": sum(len(g.threads) for g in bot.guilds),
                "bot: DM channels": len(bot.private_channels),
                "bot: fonts": font_count(), "bot: OS threads": thread_count(),
                "bot: images (MB)": "{} ({:.0f})".format(*pil_images()),
                **({"bot: trim MB": round(malloc_trim(), 1)} if trim else {})}

    def on_sample() -> None:
        s = probe.sample()
        write("sample", {"t": s[0], "rss": s[1], "traced": s[2], **counters()})

    def on_snap() -> None:
        label = ["start (after warm-up)", "middle", "end"][min(2, len(probe.snaps))]
        probe.snap(label)
        if len(probe.snaps) >= 2:
            write("growth", Probe.growth(probe.snaps[0], probe.snaps[-1]))
            if len(probe.snaps) == 3:
                write("growth", Probe.growth(probe.snaps[1], probe.snaps[2]))
        write("snap", {"label": label, "rss": probe.snaps[-1].rss})

    loop.add_signal_handler(signal.SIGUSR1, on_snap)
    loop.add_signal_handler(signal.SIGUSR2, on_sample)
    stopping = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)
    async with bot:
        runner = asyncio.create_task(bot.start(token()))
        write("started", {"pid": os.getpid()})
        await stopping.wait()
        await bot.close()
        with contextlib.suppress(Exception):
            await runner
    out.close()


async def soak_remote(args: argparse.Namespace, probe: Probe) -> dict[str, Any]:
    from tests.fakediscord import DiscordEnv

    env = DiscordEnv(interaction_deadline=30.0)
    _add_players(env, args.games, args.scripts)
    async with env:
        return await _remote_bot(args, probe, env)


async def _remote_bot(args: argparse.Namespace, probe: Probe, env: Any) -> dict[str, Any]:
    """The bot process started against ``env``, the players clicking, the bot watched."""
    from bot.core.manager import Manager

    tmp = Path(tempfile.mkdtemp(prefix="calico-soak-"))
    db = tmp / "soak.sqlite3"
    report = tmp / "report.jsonl"
    child_env = {**os.environ, **env.remote_environ()}
    if args.malloc_arena_max:
        child_env["MALLOC_ARENA_MAX"] = str(args.malloc_arena_max)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-bot", str(db),
           "--report", str(report)] + (["--trace"] if args.trace else []) + (
               ["--render-threads", str(args.render_threads)] if args.render_threads else []) + (
               ["--malloc-trim"] if args.malloc_trim else [])
    proc = await asyncio.create_subprocess_exec(*cmd, env=child_env)
    stop = asyncio.Event()
    lines_read = [0]

    def read_report() -> list[dict[str, Any]]:
        if not report.exists():
            return []
        lines = report.read_text(encoding="utf-8").splitlines()
        new = [json.loads(x) for x in lines[lines_read[0]:]]
        lines_read[0] = len(lines)
        return new

    try:
        # The bot syncs its commands at start; wait until /calico exists and the bot is in.
        await env.state.wait_for(lambda: any(c.get("name") == "calico"
                                             for c in _synced(env)) or None,
                                 timeout=600 if args.trace else 120,
                                 what="the bot's commands")
        await asyncio.sleep(1.0)
        reader = await Manager.open(db, exclusive=False)  # reads only (the players' eyes)

        async def game_of(game_id: int) -> Any:
            return await queries.game(reader.kernel, game_id, fresh=True)

        p = Players(env, game_of)
        pending: list[dict[str, Any]] = []

        class Remote:
            """RSS of the bot process, and its counters, read from its report."""

            def __init__(self) -> None:
                self.last: dict[str, Any] = {}

            def counters(self) -> dict[str, Any]:
                assert proc.pid is not None
                os.kill(proc.pid, signal.SIGUSR2)
                for item in read_report():
                    if item["kind"] == "sample":
                        self.last = item
                    else:
                        pending.append(item)
                extra = {k: self.last.get(k, "-") for k in BOT_COUNTERS}
                if args.malloc_trim:
                    extra["bot: trim MB"] = self.last.get("bot: trim MB", "-")
                return {"interactions": p.interactions, "moves": p.moves, "games": p.games,
                        **extra, "errors": sum(p.errors.values())}

        remote = Remote()
        original_sample = probe.sample

        def bot_sample() -> tuple[float, float, float]:
            # The bot's RSS from /proc (its own process), not ours.
            assert proc.pid is not None
            rss = rss_mb(proc.pid)
            traced = float(remote.last.get("traced", float("nan")))
            s = (time.monotonic() - probe.t0, rss, traced)
            probe.samples.append(s)
            return s

        probe.sample = bot_sample  # type: ignore[method-assign]

        async def snap(label: str) -> dict[str, Any]:
            assert proc.pid is not None
            os.kill(proc.pid, signal.SIGUSR1)
            for _ in range(600):
                await asyncio.sleep(0.5)
                items = read_report()
                for item in items:
                    if item["kind"] == "sample":
                        remote.last = item
                    else:
                        pending.append(item)
                if any(i["kind"] == "snap" for i in pending):
                    break
            done = [i for i in pending if i["kind"] == "snap"]
            growth = [i for i in pending if i["kind"] == "growth"]
            pending.clear()
            return {"label": label, "rss": rss_mb(proc.pid),
                    "snap": done[-1] if done else None, "growth": growth}

        try:
            result = await players_at_work(args, p, stop,
                                           watch(args, probe, remote.counters, snap))
        finally:
            probe.sample = original_sample  # type: ignore[method-assign]
            await reader.close()
        result["fake_messages"] = len(env.state.messages)
        return result
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 30)
            except TimeoutError:
                proc.kill()


def _synced(env: Any) -> list[dict[str, Any]]:
    """The commands the bot synced to the fake (global ones)."""
    return list(env.state.global_commands.values())


# --------------------------------------------------------------------------- main


def summarize(args: argparse.Namespace, result: dict[str, Any]) -> None:
    rows = result["rows"]
    cols = ["s", "RSS MB", "traced MB", *result["columns"], "load"]
    print()
    print(table(cols, rows))
    snaps = result["snaps"]

    def rss_of(s: Any) -> float:
        return float(s.rss if isinstance(s, Snap) else s["rss"])

    if len(snaps) == 3:
        start, mid, end = (rss_of(s) for s in snaps)
        ok_size = end <= 150
        ok_flat = flat(mid, end)
        print(f"\nRSS of the bot: start {start:.1f} MB, middle {mid:.1f} MB, end {end:.1f} MB "
              f"after {args.minutes:g} min; second half {end - mid:+.1f} MB "
              f"({'flat' if ok_flat else 'GROWING'}); target <= 150 MB and flat: "
              f"{'met' if ok_size and ok_flat else 'MISSED'}")
        if args.mode == "discord":
            print("  (mode discord: this process holds the fake Discord too; see 'allocated "
                  "by' below for the bot's share, or use --mode remote)")
    for s in snaps:
        if isinstance(s, dict):
            for g in s.get("growth", []):
                print_growth(g)
    if snaps and isinstance(snaps[0], Snap):
        probe_growth = [Probe.growth(snaps[0], snaps[-1])]
        if len(snaps) == 3:
            probe_growth.append(Probe.growth(snaps[1], snaps[2]))
        for g in probe_growth:
            print_growth(g)
    if "latency" in result:
        played = result["played"]
        print(f"\nplayed: {played['games']} games ({played['solo games']} solo), "
              f"{played['moves']} moves, {played['interactions']} interactions, errors "
              f"{played['errors'] or 'none'}")
        print(f"\nfrom {result['warmup_s']:g} s into the run (the ramp apart):")
        print_latency(result["latency"], result["loop_lag_ms"], args.mode)
        for kind in OPENING:
            f = result["latency_ramp"][kind]
            if f["answer_ms"]:
                print(f"  during the ramp (the first {result['warmup_s']:g} s): {f['label']} "
                      f"n {f['count']}, answer p50 {f['answer_ms']['p50']:.1f}, max "
                      f"{f['answer_ms']['max']:.1f} ms")


def commit() -> str:
    """The commit measured (``+dirty`` when tracked files differ from it)."""
    import subprocess

    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True,
                              check=False).stdout.strip()

    head = git("rev-parse", "HEAD") or "?"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def write_json(path: str, args: argparse.Namespace, result: dict[str, Any]) -> None:
    """The figures as JSON: the run, the bot's memory (samples and snapshots) and, in the
    Discord modes, the latency of each kind of interaction."""
    snaps = [{"label": s.label if isinstance(s, Snap) else s["label"],
              "rss": s.rss if isinstance(s, Snap) else s["rss"]} for s in result["snaps"]]
    out = {"commit": commit(), "machine": machine_line(), "mode": args.mode,
           "games": args.games, "solo": len(solo_slots(args)) if args.mode != "manager" else 0,
           "minutes": args.minutes, "columns": ["s", "RSS MB", "traced MB",
                                                *result["columns"], "load"],
           "rows": result["rows"], "snaps": snaps,
           **{k: result[k] for k in ("latency", "latency_ramp", "warmup_s", "loop_lag_ms",
                                     "played") if k in result}}
    Path(path).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"\nfigures written to {path}")


async def main_async(args: argparse.Namespace) -> None:
    if args.render_threads and args.mode == "manager":
        render_in_own_threads(args.render_threads)
    probe = Probe(args.trace and args.mode != "remote")
    if args.mode == "manager":
        result = await soak_manager(args, probe)
    elif args.mode == "discord":
        result = await soak_discord(args, probe)
    else:
        result = await soak_remote(args, probe)
    summarize(args, result)
    if args.json:
        write_json(args.json, args, result)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("remote", "discord", "manager"), default="remote")
    parser.add_argument("--games", type=int, default=30, help="games at a time")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--every", type=float, default=None,
                        help="seconds between samples (default: 30, or a tenth of a shorter "
                             "run, at least 5)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="manager mode: mean seconds a player thinks before a move")
    parser.add_argument("--trace", action="store_true",
                        help="tracemalloc snapshots (slows the bot down several times)")
    parser.add_argument("--malloc-arena-max", type=int, default=0,
                        help="remote mode: MALLOC_ARENA_MAX for the bot process")
    parser.add_argument("--render-threads", type=int, default=0,
                        help="size of the render pool (default: CALICO_RENDER_THREADS's "
                             "default, one)")
    parser.add_argument("--malloc-trim", action="store_true",
                        help="call glibc's malloc_trim at each sample (shows how much of the "
                             "RSS is freed heap not yet given back)")
    parser.add_argument("--solo", type=int, default=None,
                        help="remote/discord modes: how many of the --games tables play solo "
                             "games (/calico solo) instead of two-person ones (default: every "
                             "5th: the 1st, 6th, 11th...)")
    parser.add_argument("--stagger", type=float, default=0.5,
                        help="remote/discord modes: seconds between the tables' first games "
                             "(0: all open at once)")
    parser.add_argument("--warmup", type=float, default=None,
                        help="remote/discord modes: seconds at the start (the bot's first "
                             "moments and the tables opening) kept apart from the latency "
                             "table, and summed up on their own (default: the tables' "
                             "stagger, plus 5 s)")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the figures (memory, and each interaction kind's "
                             "latency) to FILE")
    parser.add_argument("--quick", action="store_true", help="1 minute, 10 games")
    parser.add_argument("--scripts", action="store_true",
                        help="remote/discord modes: players' display names in ten scripts "
                             "(Greek, CJK, Arabic, emoji...), so that the fallback fonts are "
                             "in use")
    parser.add_argument("--child-bot", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--report", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_bot is not None:
        asyncio.run(child_bot(args.child_bot, args.report, args.trace, args.render_threads,
                              args.malloc_trim))
        return
    if args.quick:
        args.minutes, args.games, args.every = 1.0, 10, 10.0
    if args.solo is None:  # every fifth table (the first, the sixth...)
        args.solo = (args.games + 4) // 5 if args.games > 1 else 0
    if args.every is None:
        args.every = min(30.0, max(5.0, args.minutes * 6))  # ten samples, or one each 30 s
    if args.warmup is None:
        args.warmup = args.games * args.stagger + 5.0
    print_machine()
    print(f"commit {commit()}")
    print(f"mode {args.mode}: {args.games} games at a time for {args.minutes:g} min"
          + (f" ({len(solo_slots(args))} of them solo)"
             if args.mode != "manager" and args.solo else "")
          + (", tracemalloc on" if args.trace else "")
          + (f", pictures in {args.render_threads} render thread(s)"
             if args.render_threads else "")
          + (f", MALLOC_ARENA_MAX={os.environ.get('MALLOC_ARENA_MAX')}"
             if os.environ.get("MALLOC_ARENA_MAX") else "")
          + (f", bot MALLOC_ARENA_MAX={args.malloc_arena_max}" if args.malloc_arena_max
             else ""), flush=True)
    c0 = time.process_time()
    asyncio.run(main_async(args))
    print(f"\nCPU of this process: {time.process_time() - c0:.0f} s; {load_text()}")


if __name__ == "__main__":
    main()
