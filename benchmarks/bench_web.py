"""Page views during the soak (issue #32): the project's soak (``bench_soak.py``, remote mode:
the real client in its own process against the fake Discord, N two-person and solo games
played by clicking through DMs) run three times: without the web site, then with visitors
asking the bot's site (on its event loop, then in the child process it starts) for pages at
a steady rate (default 100 a second: a mix of game pages at random steps, their table
pictures, the server page and player pages, found from the server page's links). Prints the
players' click latency (first response and answer, p50/p99 per kind of click, and p99 over
every click) for each run, and the page views' own latency and statuses.

    nice -n 10 .venv/bin/python benchmarks/bench_web.py                  # 30 games, 3 min each
    nice -n 10 .venv/bin/python benchmarks/bench_web.py --games 10 --minutes 1 --rate 50
    nice -n 10 .venv/bin/python benchmarks/bench_web.py --minutes 6 --interleave 20 --pairs 3 \
        --only /static/site.css       # what serving 100 requests a second costs, pages aside

Target: click p99 with page views within 10 % of the soak without them.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import math
import os
import random
import re
import secrets
import socket
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp

from benchmarks import bench_soak as soak
from benchmarks.common import cpu_seconds, load_text, pct, pids_running, print_machine, table
from bot.web import links

WEB_ENV = ("CALICO_WEB_PORT", "CALICO_WEB_SECRET", "CALICO_WEB_RATE_PER_MINUTE",
           "CALICO_WEB_PROCESS")
WHERE = {"inline": "on the bot's event loop (CALICO_WEB_PROCESS=inline)",
         "apart": "in the child process the bot starts (apart, the default)"}
CLICKS = ("draft", "confirm", "cell", "take", "join", "begin")
GAME_LINK = re.compile(r'href="(/g/[0-9a-f-]+)"')
PLAYER_LINK = re.compile(r'href="(/p/[0-9.]+-[0-9a-f]+)"')
MAX_STEP = re.compile(r'max="(\d+)"')
SITE = "-m bot web --parent"  # the site's child process (bot.web.process)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Visitors:
    """Page views at ``rate`` a second (open loop: each on its own task, at most ``inflight``
    at once), until stopped."""

    def __init__(self, base: str, signer: links.Signer, rate: float, inflight: int = 64,
                 only: str = "") -> None:
        self.base, self.signer, self.rate = base, signer, rate
        self.only = only  # --only: one kind of view (or one path) instead of the mix
        self.gate = asyncio.Semaphore(inflight)
        self.stop = asyncio.Event()
        self.on = asyncio.Event()  # cleared: no new views until set again (--interleave)
        self.on.set()
        self.times: list[float] = []
        self.statuses: dict[str, int] = {}
        self.skipped = 0  # not sent: too many in flight already
        self.cpu = 0.0  # seconds of CPU their own process used (when in one)
        self.games: list[tuple[str, int]] = []  # (path, last step)
        self.players: list[str] = []
        self.rng = random.Random(1)

    async def run(self, guild: int) -> None:
        server = self.signer.path(links.SERVER, guild)
        async with aiohttp.ClientSession() as http:
            tasks: set[asyncio.Task[None]] = set()
            t0 = time.monotonic()
            n = 0
            while not self.stop.is_set():
                if not self.on.is_set():  # paused: the views in flight finish, no new ones
                    await self.resumed()
                    t0, n = time.monotonic(), 0
                    continue
                n += 1
                await asyncio.sleep(max(0.0, t0 + n / self.rate - time.monotonic()))
                if self.gate.locked():
                    self.skipped += 1
                    continue
                path = self.pick(server, n)
                task = asyncio.create_task(self.view(http, path, server))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            await asyncio.gather(*tasks, return_exceptions=True)

    async def resumed(self) -> None:
        """Until the views are turned on again, or stopped."""
        waits = [asyncio.ensure_future(e.wait()) for e in (self.on, self.stop)]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    def pick(self, server: str, n: int) -> str:
        if self.only.startswith("/"):
            return self.only
        if n % 20 == 1 or not self.games or self.only == "server":
            return server  # also how the games are found, whatever the kind asked
        if self.only == "player" and self.players:
            return self.rng.choice(self.players)
        if self.only in ("page", "picture"):
            return self.game_view(picture=self.only == "picture")
        roll = self.rng.random()
        if roll < 0.1 and self.players:
            return self.rng.choice(self.players)
        return self.game_view(picture=roll < 0.45)

    def game_view(self, *, picture: bool) -> str:
        """A game found so far at a random step it has reached: its page or its picture."""
        path, last = self.rng.choice(self.games)
        step = self.rng.randint(0, max(0, last))
        return f"{path}/{step}.png" if picture else f"{path}?step={step}"

    async def view(self, http: aiohttp.ClientSession, path: str, server: str) -> None:
        async with self.gate:
            started = time.monotonic()
            try:
                async with http.get(self.base + path) as resp:
                    body = await resp.read()
                    status = str(resp.status)
            except aiohttp.ClientError as e:
                status, body = type(e).__name__, b""
            self.times.append(time.monotonic() - started)
            self.statuses[status] = self.statuses.get(status, 0) + 1
        if path == server and status == "200":
            text = body.decode("utf-8", "replace")
            known = dict(self.games)
            for link in set(GAME_LINK.findall(text)):
                known.setdefault(link, 0)
            self.games = list(known.items())
            self.players = sorted(set(PLAYER_LINK.findall(text)))
        elif "?step=" in path and status == "200":
            found = MAX_STEP.search(body.decode("utf-8", "replace"))
            if found:
                game = path.split("?", 1)[0]
                self.games = [(g, int(found[1]) if g == game else s) for g, s in self.games]


async def visitors_process(v: Visitors, secret: str, guild: int, niceness: int = 0,
                           paused: bool = False,
                           beside_site: bool = False) -> asyncio.subprocess.Process:
    """The visitors in a process of their own, as browsers are: on the fake Discord's event
    loop their requests delayed the very clock that times the players' clicks. ``niceness``
    (``--visitors-nice``): their own CPU put behind everyone else's, as browsers on other
    machines would be; 0, the default, counts it against the bot like any other load.
    ``paused``: no views until :func:`switch` turns them on. ``beside_site``
    (``--visitors-beside-site``): at the site's priority and on its CPUs, so that what the
    clicks pay is the site's own cost, not the browsers' stand-in's (real browsers are on
    other machines)."""
    return await asyncio.create_subprocess_exec(
        "nice", "-n", str(niceness), sys.executable, __file__, "--visit", v.base,
        str(guild), str(v.rate), *(["--visit-paused"] if paused else []),
        *(["--visitors-beside-site"] if beside_site else []),
        *([f"--only={v.only}"] if v.only else []),
        # Not on the command line: a secret beginning with "-" read as an option there.
        env={**os.environ, "CALICO_WEB_SECRET": secret},
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)


# --burn: the CPU the site would use, without the site: a process that lowers its priority,
# keeps to the site's CPUs and offers the CPU every half millisecond as the site does
# (bot.web.giveway, which needs the main thread), and burns ``share`` of each 20 ms while on.
BURNER = """
import os, sys, threading, time
from bot.web.giveway import giving_way
from bot.web.process import lower_priority
lower_priority()
share, on = float(sys.argv[1]), threading.Event()
def listen():
    for line in sys.stdin:
        (on.set if line.strip() == "on" else on.clear)()
    os._exit(0)  # input closed: the run is over, whatever the main thread is doing
threading.Thread(target=listen, daemon=True).start()
def spin():
    t = time.perf_counter()
    while time.perf_counter() - t < share * 0.02:
        pass
while True:
    on.wait()
    giving_way(spin)
    time.sleep((1 - share) * 0.02)
"""


async def burner_process(share: float) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", BURNER, str(share), stdin=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})


def switch(child: asyncio.subprocess.Process, on: bool) -> None:
    """Turn the visitors' views (or the burner) on or off: a line on its standard input."""
    assert child.stdin is not None
    child.stdin.write(b"on\n" if on else b"off\n")


async def collect(child: asyncio.subprocess.Process, v: Visitors) -> None:
    """Stop the visitors (their standard input closed) and read what they saw."""
    assert child.stdin is not None
    v.cpu = cpu_seconds(child.pid)  # what the browsers' stand-in cost the machine
    child.stdin.close()
    out, _ = await child.communicate()
    seen = json.loads(out.decode().strip().splitlines()[-1])
    v.times, v.statuses, v.skipped = seen["times"], seen["statuses"], seen["skipped"]
    v.games = [(g, 0) for g in seen["games"]]


async def visit(base: str, secret: str, guild: int, rate: float, paused: bool,
                only: str = "") -> None:
    """``--visit``: page views until standard input closes (a line ``off`` pauses them, ``on``
    resumes them), then one line of JSON."""
    v = Visitors(base, links.Signer(secret), rate, only=only)
    if paused:
        v.on.clear()
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    task = asyncio.create_task(v.run(guild))
    while line := await reader.readline():
        word = line.strip()
        if word == b"on":
            v.on.set()
        elif word == b"off":
            v.on.clear()
    v.stop.set()
    await task
    print(json.dumps({"times": v.times, "statuses": v.statuses, "skipped": v.skipped,
                      "games": [g for g, _ in v.games]}), flush=True)


def namespace(games: int, minutes: float) -> argparse.Namespace:
    """The soak's own options (as ``bench_soak.py --games N --minutes M`` would make them)."""
    return argparse.Namespace(
        mode="remote", games=games, minutes=minutes, every=min(30.0, max(5.0, minutes * 6)),
        think=0.0, trace=False, malloc_arena_max=0, render_threads=0, malloc_trim=False,
        solo=(games + 4) // 5 if games > 1 else 0, stagger=0.5, warmup=games * 0.5 + 5.0,
        json=None, quick=False, scripts=False, child_bot=None, report=None)


def steady_timed(p: Any, warmup: float) -> list[tuple[float, float]]:
    """Every click of the steady state: when it was made (the fake Discord's clock, which is
    ``time.monotonic()`` in a soak) and its first response (seconds)."""
    begin = min((s.ix.dispatched_at for s in p.sent), default=0.0)
    return [(s.ix.dispatched_at, t) for s in p.sent
            if s.ix.dispatched_at - begin >= warmup and not s.refused
            and s.kind in CLICKS and (t := soak.first_response(s.ix)) is not None]


# --interleave: the windows' order, off and on, repeated; each kind comes as often first as
# second, so a drift of the machine's speed over the run weighs on both alike.
ORDER = (False, True, True, False)


async def toggle(child: asyncio.subprocess.Process, every: float,
                 windows: list[tuple[float, bool]], aa: bool) -> None:
    """Switch the views off and on in :data:`ORDER` every ``every`` seconds, noting when each
    window began and whether it was one with views (with ``aa`` they stay off in both)."""
    k = 0
    while True:
        views = ORDER[k % len(ORDER)]
        windows.append((time.monotonic(), views))
        switch(child, views and not aa)
        k += 1
        await asyncio.sleep(every)


Window = tuple[bool, list[float]]  # with views or not; the first responses of its clicks


def by_window(timed: list[tuple[float, float]], windows: list[tuple[float, bool]],
              settle: float) -> list[Window]:
    """Clicks' first responses by the window they were made in, except those made in the
    first ``settle`` seconds after a switch (views still finishing, or starting)."""
    starts = [at for at, _ in windows]
    out: list[Window] = [(views, []) for _, views in windows]
    for at, took in timed:
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at - starts[i] >= settle:
            out[i][1].append(took)
    return [w for w in out if w[1]]


def split(windows: list[Window]) -> dict[bool, list[float]]:
    out: dict[bool, list[float]] = {False: [], True: []}
    for views, took in windows:
        out[views] += took
    return out


def p99_interval(windows: list[Window], rounds: int = 1000) -> tuple[float, float]:
    """A 90 % interval of the change in p99 (with views over without, in %): windows drawn
    again at random with replacement, each kind apart (a window's clicks stay together: clicks
    close in time are slow or fast together, so they are not drawn one by one)."""
    rng = random.Random(7)
    kinds = {v: [took for views, took in windows if views is v] for v in (False, True)}
    if not kinds[False] or not kinds[True]:
        return math.nan, math.nan
    changes = []
    for _ in range(rounds):
        p99 = {v: pct([t for w in rng.choices(ws, k=len(ws)) for t in w], 0.99)
               for v, ws in kinds.items()}
        changes.append((p99[True] / p99[False] - 1) * 100)
    return pct(changes, 0.05), pct(changes, 0.95)


def clicks_p99(p: Any, warmup: float) -> tuple[float | None, float | None]:
    """p99 (ms) over every click of the steady state: first response, answer."""
    begin = min((s.ix.dispatched_at for s in p.sent), default=0.0)
    steady = [s for s in p.sent if s.ix.dispatched_at - begin >= warmup and not s.refused
              and s.kind in CLICKS]
    first = [t for s in steady if (t := soak.first_response(s.ix)) is not None]
    answer = [e.at - s.ix.dispatched_at for s in steady
              if (e := soak.answer_event(s.ix)) is not None]
    def p99(xs: list[float]) -> float | None:
        return round(pct(xs, 0.99) * 1000, 1) if xs else None
    return p99(first), p99(answer)


async def one_run(args: argparse.Namespace, rate: float, where: str = "apart",
                  windows: list[tuple[float, bool]] | None = None) -> dict[str, Any]:
    """One soak; with ``rate`` > 0 visitors ask the bot's site for pages. ``where``: the bot's
    ``CALICO_WEB_PROCESS`` (``apart``: the child process it starts, the default; ``inline``:
    its own event loop). With ``windows`` (``--interleave``): the views switched on and off
    (:func:`toggle`), each window's start noted there."""
    soak_args = namespace(args.games, args.minutes)
    secret = secrets.token_urlsafe(24)
    port = free_port()
    visitors = Visitors(f"http://127.0.0.1:{port}", links.Signer(secret), rate,
                        only=args.only) if rate > 0 else None
    for name in WEB_ENV:
        os.environ.pop(name, None)
    if visitors is not None:  # read by the bot process's settings
        os.environ.update({"CALICO_WEB_PORT": str(port), "CALICO_WEB_SECRET": secret,
                           "CALICO_WEB_RATE_PER_MINUTE": "100000000",
                           "CALICO_WEB_PROCESS": where})
    original = soak.players_at_work
    overall: dict[str, Any] = {}

    async def players_at_work(a: argparse.Namespace, p: Any, stop: asyncio.Event,
                              watching: Any) -> dict[str, Any]:
        child = None
        if args.burn:  # the site on and idle; a burner switched on and off instead of views
            child = await burner_process(args.burn)
        elif visitors is not None:
            inter = await p.env.slash("owner", "calico", "admin", options={"web_pages": "on"})
            await inter.wait_response()
            child = await visitors_process(visitors, secret, p.env.guild.id,
                                           args.visitors_nice, paused=windows is not None,
                                           beside_site=args.visitors_beside_site)
        toggling = None if child is None or windows is None else asyncio.create_task(
            toggle(child, args.interleave, windows, args.aa))
        try:
            result = await original(a, p, stop, watching)
        finally:
            if toggling is not None:
                toggling.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await toggling
            # The site's CPU over the run (its child process started with the bot, and its
            # pictures' worker), read before the bot stops it.
            overall["site_cpu"] = sum(cpu_seconds(pid) for pid in pids_running(SITE))
            if args.burn and child is not None:
                assert child.stdin is not None
                overall["burner_cpu"] = cpu_seconds(child.pid)
                child.stdin.close()
                await child.wait()
            elif child is not None and visitors is not None:
                await collect(child, visitors)
        overall["p99"] = clicks_p99(p, a.warmup)
        overall["timed"] = steady_timed(p, a.warmup)
        overall["clicks"] = [took for _, took in overall["timed"]]
        return result

    soak.players_at_work = players_at_work  # type: ignore[assignment]
    probe = soak.Probe(False)
    try:
        result = await soak.soak_remote(soak_args, probe)
    finally:
        soak.players_at_work = original
        for name in WEB_ENV:
            os.environ.pop(name, None)
    result["overall_p99"] = overall.get("p99")
    result["clicks"] = overall.get("clicks", [])
    result["timed"] = overall.get("timed", [])
    result["visitors"] = visitors
    result["site_cpu"] = overall.get("site_cpu", 0.0)
    result["burner_cpu"] = overall.get("burner_cpu", 0.0)
    return result


def report(without: dict[str, Any], with_: dict[str, Any], rate: float, minutes: float) -> None:
    print("\nclick latency (ms, steady state), without and with page views")
    rows = []
    for kind in CLICKS:
        a, b = without["latency"].get(kind, {}), with_["latency"].get(kind, {})
        if not a.get("count") and not b.get("count"):
            continue
        def cell(d: dict[str, Any], key: str, q: str) -> str:
            v = d.get(key)
            return "-" if not v else f"{v[q]:.1f}"
        rows.append([a.get("label", kind), f"{a.get('count', 0)}/{b.get('count', 0)}",
                     cell(a, "first_response_ms", "p99"), cell(b, "first_response_ms", "p99"),
                     cell(a, "answer_ms", "p99"), cell(b, "answer_ms", "p99")])
    print(table(["click", "n without/with", "first p99 w/o", "first p99 with",
                      "answer p99 w/o", "answer p99 with"], rows))
    (f0, a0), (f1, a1) = without["overall_p99"], with_["overall_p99"]
    print(f"every click: first response p99 {f0} ms without, {f1} ms with"
          + (f" ({(f1 / f0 - 1) * 100:+.0f} %)" if f0 and f1 else "")
          + f"; answer p99 {a0} ms without, {a1} ms with"
          + (f" ({(a1 / a0 - 1) * 100:+.0f} %)" if a0 and a1 else ""))
    v: Visitors = with_["visitors"]
    print(f"{views_line(v, with_['site_cpu'])} ({rate:g}/s asked over {minutes:g} min; "
          f"{len(v.games)} games found on the server page)")


def views_line(v: Visitors, site_cpu: float) -> str:
    return (f"page views: {len(v.times)} served, {v.skipped} not sent (64 in flight already), "
            f"statuses {v.statuses}; their latency {soak.spread(v.times)} ms; the site's "
            f"processes used {site_cpu:.1f} s of CPU "
            f"({site_cpu * 1000 / max(1, len(v.times)):.2f} ms a view), the visitors' process "
            f"{v.cpu:.1f} s")


def p99_line(windows: list[Window]) -> str:
    def p(xs: list[float], q: float) -> str:
        return f"{pct(xs, q) * 1000:.1f}" if xs else "-"
    parts = split(windows)
    off, on = parts[False], parts[True]
    low, high = p99_interval(windows)
    change = (f" ({(pct(on, 0.99) / pct(off, 0.99) - 1) * 100:+.0f} %; 90 % interval "
              f"{low:+.0f} to {high:+.0f} %)" if off and on else "")
    return (f"click first response p99 without views {p(off, 0.99)} ms ({len(off)} clicks), "
            f"with {p(on, 0.99)} ms ({len(on)} clicks){change}; p50 {p(off, 0.5)} / "
            f"{p(on, 0.5)} ms")


async def interleaved(args: argparse.Namespace) -> None:
    """``--interleave``: each pair one soak, the views switched on and off in windows."""
    pooled: list[Window] = []
    what = ("never on (A/A)" if args.aa else f"replaced by a burner of {args.burn:g} CPU"
            if args.burn else f"at {args.rate:g}/s" + (f", only {args.only}" if args.only
                                                       else ""))
    for n in range(1, args.pairs + 1):
        print(f"soak with the site on, views {what} in windows of {args.interleave:g} s "
              f"(off, on, on, off, ...; {args.settle:g} s after each switch not counted): "
              f"{args.games} games, {args.minutes:g} min (pair {n})", flush=True)
        windows: list[tuple[float, bool]] = []
        result = await one_run(args, args.rate, "apart", windows)
        parts = by_window(result["timed"], windows, args.settle)
        pooled += parts
        print(f"\n== pair {n}: {len(windows)} windows; {p99_line(parts)}")
        if args.burn:
            print(f"the burner used {result['burner_cpu']:.1f} s of CPU")
        else:
            print(views_line(result["visitors"], result["site_cpu"]))
    if args.pairs > 1:
        print(f"\n== every pair pooled: {p99_line(pooled)}")


async def main_async(args: argparse.Namespace) -> None:
    if args.interleave:
        await interleaved(args)
        return
    runs = [r for r in args.runs.split(",") if r]
    pooled: dict[str, list[float]] = {"without": [], **{w: [] for w in runs}}
    for n in range(1, args.pairs + 1):
        print(f"soak without page views: {args.games} games, {args.minutes:g} min (pair {n})",
              flush=True)
        without = await one_run(args, 0.0)
        pooled["without"] += without["clicks"]
        done = {}
        for where in runs:
            print(f"\nsoak with page views at {args.rate:g}/s, the site {WHERE[where]}; "
                  f"visitors at nice {args.visitors_nice}", flush=True)
            done[where] = await one_run(args, args.rate, where)
            pooled[where] += done[where]["clicks"]
        for where, result in done.items():
            print(f"\n== the site {WHERE[where]} (pair {n})")
            report(without, result, args.rate, args.minutes)
    if args.pairs > 1:
        base = pct(pooled["without"], 0.99) * 1000
        print(f"\n== every pair pooled: click first response p99 without {base:.1f} ms "
              f"({len(pooled['without'])} clicks)")
        for where in runs:
            p99 = pct(pooled[where], 0.99) * 1000 if pooled[where] else float("nan")
            print(f"   the site {WHERE[where]}: {p99:.1f} ms ({len(pooled[where])} clicks, "
                  f"{(p99 / base - 1) * 100:+.0f} %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=3.0, help="each of the two runs")
    parser.add_argument("--rate", type=float, default=100.0, help="page views a second")
    parser.add_argument("--pairs", type=int, default=1,
                        help="runs without and with page views, alternating; then pooled")
    parser.add_argument("--runs", default="inline,apart",
                        help="the runs with page views after the one without: inline, apart")
    parser.add_argument("--visitors-nice", type=int, default=0,
                        help="the visitors' process's niceness (0: as the bot's)")
    parser.add_argument("--visitors-beside-site", action="store_true",
                        help="the visitors' process at the site's priority and on its CPUs "
                             "(as the site's processes are), instead of --visitors-nice")
    parser.add_argument("--interleave", type=float, default=0.0, metavar="SECONDS",
                        help="instead of separate runs: one soak per pair with the site on "
                             "and the views switched on and off every SECONDS (off, on, on, "
                             "off, ...), each click counted in the window it was made in")
    parser.add_argument("--settle", type=float, default=2.0,
                        help="with --interleave: seconds after each switch not counted")
    parser.add_argument("--aa", action="store_true",
                        help="with --interleave: never switch the views on (both windows "
                             "without them: the method's own noise)")
    parser.add_argument("--burn", type=float, default=0.0, metavar="SHARE",
                        help="with --interleave: instead of page views, a process niced and "
                             "pinned as the site is burning SHARE of a CPU (0-1): what the "
                             "site's CPU alone costs the clicks")
    parser.add_argument("--only", default="", metavar="KIND",
                        help="one kind of view instead of the mix: page (game pages), "
                             "picture (their tables), server (the server page), player "
                             "(player pages), or a path "
                             "such as /static/site.css (the visitors and the site's handling "
                             "of a request without a page's work); the kinds still ask the "
                             "server page every 20th view, to find the games")
    parser.add_argument("--visit", nargs=3, metavar=("BASE", "GUILD", "RATE"),
                        help=argparse.SUPPRESS)  # the visitors' own process
    parser.add_argument("--visit-paused", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.visit:
        base, guild, rate = args.visit
        if args.visitors_beside_site:
            from bot.web.process import lower_priority

            lower_priority()
        asyncio.run(visit(base, os.environ["CALICO_WEB_SECRET"], int(guild), float(rate),
                          args.visit_paused, args.only))
        return
    print_machine()
    print(f"commit {soak.commit()}")
    asyncio.run(main_async(args))
    print(load_text())


if __name__ == "__main__":
    main()
