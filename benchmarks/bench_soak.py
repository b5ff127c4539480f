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
    load_text,
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


@dataclass
class Players:
    """The fake Discord and the people clicking in it."""

    env: Any
    game_of: Callable[[int], Any]
    interactions: int = 0
    moves: int = 0
    games: int = 0
    errors: Counter[str] = field(default_factory=Counter)


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


async def draft(env: Any, user: str, msg: Any, game: Any) -> None:
    """tests/adapter/harness.draft_via, waiting for the Confirm button to appear."""
    from engine.moves import ChooseGoals
    from tests.adapter.harness import pick_move

    uid = env.user(user).id
    move = pick_move(game, uid)
    assert isinstance(move, ChooseGoals)
    seat = game.seat_of(uid)
    offer = game.state.seats[seat].goal_offer
    value = "".join(str(offer.index(g)) for g in move.goals)
    select = await control(env, msg.id, "calico:g:")
    await (await env.select(user, msg, select, [value])).wait_response(timeout=30)
    confirm = await control(env, msg.id, "calico:gc:")
    await (await env.click(user, env.get_message(msg.id), custom_id=confirm)
           ).wait_response(timeout=30)


async def turn(env: Any, user: str, msg: Any, game: Any) -> None:
    """tests/adapter/harness.turn_via, waiting for the take button to appear."""
    from engine.hexgrid import cell_name
    from engine.moves import PlaceTile
    from tests.adapter.harness import pick_move

    move = pick_move(game, env.user(user).id)
    assert isinstance(move, PlaceTile)
    source = f"h{move.hand}" if move.hand is not None else f"m{move.market}"
    cell = cell_name(move.cell)
    first = await env.select(user, msg, f"calico:c:{game.id}:{game.ply}:{source}", [cell])
    await first.wait_response(timeout=30)
    slot = "x" if move.hand is None or move.market is None else str(move.market)
    take = f"calico:t:{game.id}:{game.ply}:{source}:{cell}:{slot}"
    await control(env, msg.id, take)
    await (await env.click(user, env.get_message(msg.id), custom_id=take)
           ).wait_response(timeout=30)


async def play_slot(p: Players, k: int, stop: asyncio.Event) -> None:
    from bot.core.models import GameStatus
    from tests.adapter.harness import DRAFT_SELECT, wait_panel

    env = p.env
    host, guest = f"host{k}", f"guest{k}"
    while not stop.is_set():
        try:
            inter = await env.slash(host, "calico", "start", options={"players": 2})
            await inter.wait_response(timeout=30)
            reply = await inter.wait_followup(timeout=30)
            p.interactions += 1
            found = GAME_NO.search(reply.content)
            assert found, reply.content
            game_id = int(found[1])
            game = await p.game_of(game_id)
            thread = game.thread_id
            lobby = await env.wait_for_message(thread, lambda m: bool(m.components),
                                               timeout=30)
            await (await env.click(guest, lobby, label="Join")).wait_response(timeout=30)
            await (await env.click(host, env.get_message(lobby.id), label="Start")
                   ).wait_response(timeout=30)
            p.interactions += 2
            for user in (host, guest):
                panel = await wait_panel(env, user, game_id, 0, DRAFT_SELECT, timeout=30)
                game = await p.game_of(game_id)
                await draft(env, user, panel, game)
                p.interactions += 2
                p.moves += 1
            names = {env.user(host).id: host, env.user(guest).id: guest}
            game = await p.game_of(game_id)
            while game.status is GameStatus.DRAFT:
                await asyncio.sleep(0.05)
                game = await p.game_of(game_id)
            while game.status is GameStatus.PLAY and not stop.is_set():
                user = names[game.current_user_id or 0]
                panel = await wait_panel(env, user, game_id, game.ply, timeout=30)
                await turn(env, user, panel, game)
                p.interactions += 2
                p.moves += 1
                ply = game.ply
                for _ in range(600):
                    game = await p.game_of(game_id)
                    if game.ply != ply:
                        break
                    await asyncio.sleep(0.02)
            p.games += 1
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a stuck game: count it and open another
            p.errors[type(e).__name__] += 1
            if sum(p.errors.values()) <= 5:
                print(f"  slot {k}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            await asyncio.sleep(1)


def bot_factory(db: Path, render_threads: int = 0) -> Callable[[], Any]:
    """The bot as ``calico-bot run`` makes it (``render_threads`` 0: the setting's default)."""
    from bot.adapter.client import CalicoBot
    from bot.settings import Settings

    def make() -> Any:
        extra = {"render_threads": render_threads} if render_threads else {}
        return CalicoBot(Settings(token="fake", db_path=str(db), **extra), sync="never",
                         sweep_interval=60.0, dispatch_poll=0.05)

    return make


def _add_players(env: Any, games: int) -> None:
    for k in range(games):
        env.add_user(f"host{k}")
        env.add_user(f"guest{k}")


async def soak_discord(args: argparse.Namespace, probe: Probe) -> dict[str, Any]:
    """The bot in this process, next to the fake Discord."""
    from tests.fakediscord import DiscordEnv

    tmp = Path(tempfile.mkdtemp(prefix="calico-soak-"))
    env = DiscordEnv(interaction_deadline=30.0)
    _add_players(env, args.games)
    stop = asyncio.Event()
    async with env:
        client = await env.start_client(bot_factory(tmp / "soak.sqlite3", args.render_threads),
                                        timeout=30)
        manager = client.manager

        async def game_of(game_id: int) -> Any:
            return await queries.game(manager.kernel, game_id)

        p = Players(env, game_of)
        tasks = [asyncio.create_task(play_slot(p, k, stop)) for k in range(args.games)]
        try:
            return await watch(args, probe, lambda: {
                "interactions": p.interactions, "moves": p.moves, "games": p.games,
                "fake: messages": len(env.state.messages),
                "fake: requests": len(env.state.requests),
                "bot: msg cache": len(client.cached_messages),
                "bot: view store": view_store_size(client),
                "errors": sum(p.errors.values())})
        finally:
            stop.set()
            await cancel(tasks)


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
    _add_players(env, args.games)
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

        tasks = [asyncio.create_task(play_slot(p, k, stop)) for k in range(args.games)]
        try:
            result = await watch(args, probe, remote.counters, snap)
        finally:
            probe.sample = original_sample  # type: ignore[method-assign]
            stop.set()
            await cancel(tasks)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("remote", "discord", "manager"), default="remote")
    parser.add_argument("--games", type=int, default=30, help="games at a time")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--every", type=float, default=30.0, help="seconds between samples")
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
    parser.add_argument("--quick", action="store_true", help="1 minute, 10 games")
    parser.add_argument("--child-bot", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--report", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_bot is not None:
        asyncio.run(child_bot(args.child_bot, args.report, args.trace, args.render_threads,
                              args.malloc_trim))
        return
    if args.quick:
        args.minutes, args.games, args.every = 1.0, 10, 10.0
    print_machine()
    print(f"mode {args.mode}: {args.games} games at a time for {args.minutes:g} min"
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
