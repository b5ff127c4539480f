"""Discord's limits under bursts (issue 29), through the real client and the stand-in enforcing
them (per-route buckets, the bot-wide thread budget, the global limit, invalid requests):

- ``computers``: 50 games whose computers all move at once (50 hosts move together, each
  game's computer answers);
- ``table``: a four-seat table (a host who plays the moment her turn comes, three easy
  computers) played to the end, with runs shown as one post and, for comparison, one post per
  move (``before``); posts per game, and how long after the game ended its score sheet came;
- ``channel``: 30 people in one channel: 15 two-person games in one channel, everyone moving the
  moment their turn comes, for ``--moves`` moves each game;
- ``starts``: 100 games started (``/calico solo``) within one minute: when each table's
  thread opened, against what its player was told.

For each: the 429 answers (and how many came after the first second of the burst), the
invalid requests per minute (Discord bans at 10,000 in 10 minutes), notices lost (not
delivered when everything settled), posts made twice (two messages with the same mark),
lanes out of order (a lane's posts not in its notices' order).

    .venv/bin/python -m benchmarks.bench_paced [--scale S] [--parts computers,table,...]

``--scale`` shrinks every window of Discord's (default 0.1: 5 messages per 0.5 s in a channel,
the thread budget's 5 minutes in 30 s, "one minute" of starts in 6 s): the same bursts against
the same limits, ten times faster. ``--scale 1`` runs Discord's own windows.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_machine
from bot.adapter import postmarks
from bot.adapter.client import CalicoBot
from bot.core import lobby, queries, turns
from bot.core.models import GameStatus, LobbyOptions, UserRef
from bot.settings import Settings
from engine.ai import make_player
from engine.rules import legal_moves
from engine.views import private_view
from tests.fakediscord import DiscordEnv
from tests.fakediscord.ratelimits import RateLimits
from tests.fakediscord.state import snowflake_ms


@dataclass
class Report:
    name: str
    seconds: float = 0.0
    rate_limited: int = 0
    late_429s: int = 0  # after the first second of the burst
    by_bucket: Counter[str] = field(default_factory=Counter)
    invalid: int = 0
    requests: int = 0
    notices: int = 0
    lost: int = 0
    twice: int = 0
    out_of_order: int = 0
    extra: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        per_minute = self.invalid / max(self.seconds / 60, 1e-9)
        out = [f"{self.name}: {self.seconds:.1f} s, {self.requests} requests, "
               f"{self.notices} notices: lost {self.lost}, posted twice {self.twice}, "
               f"lanes out of order {self.out_of_order}",
               f"  429: {self.rate_limited} ({self.late_429s} after the burst's first second)"
               f" {dict(self.by_bucket) or ''}; invalid requests {self.invalid} "
               f"({per_minute:.2f} a minute)"]
        out += [f"  {k}: {v}" for k, v in self.extra.items()]
        return out


def move_for(game: Any, user_id: int, rng: random.Random) -> str:
    seat = game.seat_of(user_id)
    legal = legal_moves(game.state, seat)
    return str(make_player("random", rng.randrange(1 << 30)).choose(
        private_view(game.state, seat), legal).text())


class Run:
    """One part: a fresh stand-in (fresh budgets) and a fresh bot."""

    def __init__(self, name: str, scale: float, users: int, tmp: Path) -> None:
        self.name = name
        self.limits = RateLimits(scale=scale)
        self.env = DiscordEnv(rate_limits=self.limits)
        self.users = [f"p{i}" for i in range(users)]
        self.tmp = tmp
        self.bot: CalicoBot | None = None
        self.began = 0.0

    async def __aenter__(self) -> Run:
        await self.env.start()
        for name in self.users:
            self.env.add_user(name)
        settings = Settings(token="fake", db_path=str(self.tmp / f"{self.name}.sqlite3"),
                            start_cooldown=0, lobbies_per_hour=0, ai_workers=0,
                            max_active_games=50)
        self.bot = await self.env.start_client(
            lambda: CalicoBot(settings, sync="never", sweep_interval=3600.0, dispatch_poll=0.05),
            timeout=30)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.env.close()

    @property
    def kernel(self) -> Any:
        assert self.bot is not None
        return self.bot.kernel

    def uid(self, name: str) -> int:
        return self.env.user(name).id

    async def settled(self, timeout: float = 900.0) -> None:
        """Back once no notice is pending and no computer thinks."""
        assert self.bot is not None
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            await self.kernel.computers_idle()
            stats = await self.bot.manager.store.outbox_stats(int(time.time() * 1000) + 10**9)
            if not stats.pending and not (self.bot.dispatcher and self.bot.dispatcher.serving):
                return
            await asyncio.sleep(0.2)
        raise TimeoutError(f"{self.name}: the outbox did not drain")

    def start_burst(self) -> None:
        self.began = self.env.state.clock()
        self.limits.records.clear()
        self.requests0 = len(self.env.state.requests)
        self.invalid0 = self.limits.invalid_total

    async def report(self, game_ids: list[int] | None = None) -> Report:
        assert self.bot is not None
        await self.settled()
        r = Report(self.name, seconds=self.env.state.clock() - self.began)
        r.rate_limited = len(self.limits.records)
        r.late_429s = sum(1 for x in self.limits.records if x.at - self.began > 1.0)
        r.by_bucket = Counter(x.bucket if x.scope != "global" else "global"
                              for x in self.limits.records)
        r.invalid = self.limits.invalid_total - self.invalid0
        r.requests = len(self.env.state.requests) - self.requests0
        notices = await self.bot.manager.store.notices()
        if game_ids is not None:
            notices = [n for n in notices if n.game_id in game_ids]
        r.notices = len(notices)
        r.lost = sum(1 for n in notices if n.status in ("pending", "failed", "undeliverable"))
        marks: Counter[tuple[int, str]] = Counter()
        for m in self.env.state.messages.values():
            mark = postmarks.mark_in(m.content) if not m.deleted else None
            if mark and m.author.id == self.env.bot_user.id:
                marks[(m.channel_id, mark)] += 1
        r.twice = sum(c - 1 for c in marks.values() if c > 1)
        lanes: dict[tuple[int, int | None], list[int]] = {}
        for n in sorted(notices, key=lambda n: n.id):
            if n.status == "done" and n.message_id and n.kind not in ("lobby", "open_thread"):
                lane = lanes.setdefault((n.game_id, n.user_id), [])
                if not lane or lane[-1] != n.message_id:
                    lane.append(n.message_id)
        r.out_of_order = sum(1 for ids in lanes.values()
                             for a, b in itertools.pairwise(ids) if b < a)
        return r


async def computers(scale: float, tmp: Path) -> list[Report]:
    """50 games, each a host and an easy computer; the 50 hosts move at once."""
    async with Run("computers", scale, 50, tmp) as run:
        k, env = run.kernel, run.env
        games = []
        for name in run.users:
            g = await lobby.create_game(
                k, UserRef(run.uid(name), name), env.guild.id, env.channel.id,
                LobbyOptions(players=2, setup="beginner"), computers=["easy"], open_thread=True,
                start=True)
            games.append(g.id)
        await run.settled()
        rng = random.Random(7)
        run.start_burst()

        async def move(game_id: int) -> None:
            g = await queries.game(k, game_id)
            user = g.current_user_id
            if user is not None:
                await turns.play_turn(k, game_id, user, g.ply, move_for(g, user, rng))

        await asyncio.gather(*(move(g) for g in games))
        return [await run.report(games)]


async def table(scale: float, tmp: Path) -> list[Report]:
    """A host and three easy computers, the host playing at once; runs on and off."""
    out = []
    for runs in (False, True):
        async with Run(f"table ({'runs' if runs else 'one post a move, before'})", scale, 1,
                       tmp) as run:
            assert run.bot is not None and run.bot.dispatcher is not None
            run.bot.dispatcher.delivery.shows_runs = runs  # type: ignore[attr-defined]
            k, env, host = run.kernel, run.env, run.uid("p0")
            g = await lobby.create_game(
                k, UserRef(host, "p0"), env.guild.id, env.channel.id,
                LobbyOptions(players=4, setup="beginner"), computers=["easy"] * 3,
                open_thread=True, start=True)
            await run.settled()
            rng = random.Random(3)
            run.start_burst()
            while g.status.active:
                if g.current_user_id == host:
                    await turns.play_turn(k, g.id, host, g.ply, move_for(g, host, rng))
                else:
                    await asyncio.sleep(0.005)
                g = await queries.game(k, g.id)
            ended = env.state.clock()
            report = await run.report([g.id])
            g = await queries.game(k, g.id)
            assert g.thread_id is not None
            posts = [m for m in env.messages(g.thread_id) if m.author.id == env.bot_user.id]
            sheet = next((m for m in posts if any(a.filename == "scores.png"
                                                  for a in m.attachments)), None)
            moves = len([n for n in await run.bot.manager.store.notices(g.id)
                         if n.kind == "table"])
            report.extra["posts in the thread"] = f"{len(posts)} for {moves} moves"
            if sheet is not None:
                report.extra["score sheet after the game ended"] = \
                    f"{sheet.created_at - ended:.1f} s"
            out.append(report)
    return out


async def channel(scale: float, tmp: Path, moves: int) -> list[Report]:
    """15 two-person games in one channel, everyone moving the moment their turn comes."""
    async with Run("channel", scale, 30, tmp) as run:
        k, env = run.kernel, run.env
        games = []
        for i in range(15):
            a, b = run.users[2 * i], run.users[2 * i + 1]
            g = await lobby.create_game(k, UserRef(run.uid(a), a), env.guild.id,
                                        env.channel.id, LobbyOptions(players=2,
                                                                     setup="beginner"),
                                        open_thread=True)
            await lobby.join(k, g.id, UserRef(run.uid(b), b))
            await lobby.start(k, g.id, run.uid(a))
            games.append(g.id)
        await run.settled()
        run.start_burst()
        rng = random.Random(11)

        async def play(game_id: int) -> None:
            for _ in range(moves):
                g = await queries.game(k, game_id)
                if g.status is not GameStatus.PLAY or g.current_user_id is None:
                    return
                await turns.play_turn(k, game_id, g.current_user_id, g.ply,
                                      move_for(g, g.current_user_id, rng))

        await asyncio.gather(*(play(g) for g in games))
        return [await run.report(games)]


async def starts(scale: float, tmp: Path, count: int = 100) -> list[Report]:
    """``count`` solo games started within (scaled) one minute; when each thread opened."""
    async with Run("starts", scale, count, tmp) as run:
        env = run.env
        run.start_burst()
        spread = 60.0 * scale / count
        asked: list[tuple[Any, float]] = []
        for name in run.users:
            asked.append((await env.slash(name, "calico", "solo",
                                          options={"setup": "beginner"}), time.time()))
            await asyncio.sleep(spread)
        messages = [await ix.wait_followup(timeout=60) for ix, _ in asked]
        await run.settled()
        # What each player was told first (the answer is edited once the thread opens).
        answers = [SimpleNamespace(content=m.history[0].content if m.history else m.content)
                   for m in messages]
        report = await run.report()
        created = {int(t.name.split("#")[1].split()[0]): snowflake_ms(t.id) / 1000
                   for t in env.threads(env.channel)}
        waited, errors, queued = [], [], 0
        for (_, at), answer in zip(asked, answers, strict=True):
            game = int(answer.content.split("#")[1].split("*")[0])
            opened = created[game] - at  # the ids carry the stand-in's time
            waited.append(opened)
            if "<t:" in answer.content:
                queued += 1
                errors.append(opened - (int(answer.content.split("<t:")[1].split(":")[0]) - at))
        report.extra["threads opened"] = (
            f"{len(created)} of {count}; {sum(w < 10 for w in waited)} within 10 s of their "
            f"start, the last {max(waited):.0f} s after its start")
        report.extra["told when"] = (
            f"{queued} answers said when; opened {min(errors):+.0f} to {max(errors):+.0f} s "
            "from the time said" if errors else "no answer said when")
        return [report]


PARTS: dict[str, Callable[..., Awaitable[list[Report]]]] = {
    "computers": computers, "table": table, "channel": channel, "starts": starts}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--moves", type=int, default=20, help="moves per game (channel)")
    args = parser.parse_args()
    print_machine()
    print(f"Discord's windows scaled by {args.scale}")
    with tempfile.TemporaryDirectory() as tmp:
        for part in args.parts.split(","):
            kwargs: dict[str, Any] = {"moves": args.moves} if part == "channel" else {}
            for report in await PARTS[part](args.scale, Path(tmp), **kwargs):
                for line in report.lines():
                    print(line, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
