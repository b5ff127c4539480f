"""Three bot processes (real OS processes, ``calico-bot run``) share one PostgreSQL database and
the fake Discord's 8 shards, each holding the shards of the cluster slot it claimed. Forty games
in twelve servers, solo and multi-player, are played to the end by clicks arriving through
whichever shard Discord would use (a server's through its shard, DMs through shard 0). In the
middle, the process holding shard 0 is killed with SIGKILL and a new one started: it claims the
freed slot. At the end: every game finished, every acknowledged move stored exactly once, every
notice delivered once (never failed, never lost), one thread per game.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.adapter.delivery import nonce_for
from bot.core import folding, queries
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus
from bot.core.notices import Notice
from engine.ai import make_player
from engine.hexgrid import cell_name
from engine.moves import ChooseGoals, PlaceTile
from engine.rules import legal_moves
from engine.views import private_view
from tests.e2e.procs import BotProcess, logs, stop_all
from tests.fakediscord import DiscordEnv
from tests.fakediscord.state import FakeChannel, FakeMessage, FakeUser

pytestmark = pytest.mark.fakediscord(fail_on_violations=False, interaction_deadline=3.0)

SHARDS = 8
SLOTS = 3
CELL_SELECT = re.compile(r"calico:c:(\d+):(\d+):([hm]\d)")
ANY_TURN_CONTROL = re.compile(r"calico:[ctu]:(\d+):(\d+)(?::.*)?")
DRAFT_SELECT = re.compile(r"calico:g:(\d+):(\d+)")
GAME_ID = re.compile(r"Calico #(\d+)")
CLICK_TIMEOUT = 20.0
# Short, so the killed process's lanes come back soon; long enough that a live process on a
# loaded machine finishes a delivery inside it (it hands a lane back after a third of it, but
# a picture being drawn and posted is not interrupted): with 5 s, a CI run under a load of 10
# saw 55 notices sent again by a second process while the first was still posting them.
LEASE = 20



class Drain:
    """How the outbox emptied after the last game ended, and why anything was still pending:
    lanes held by the killed process (waiting out its lease), held by a live process (still
    posting), or unclaimed (waiting for the next pass)."""

    def __init__(self, victim_pid: int) -> None:
        self.victim = f":{victim_pid}:"
        self.first: Counter[str] = Counter()  # pending notices at the first look, by holder
        self.seconds = 0.0
        self.left = 0

    def holder(self, owner: str | None, lease_until: int | None, now_ms: int) -> str:
        if owner is None or lease_until is None or lease_until <= now_ms:
            return "unclaimed"
        return "killed process" if self.victim in owner else "live process"

    def report(self) -> str:
        held = ", ".join(f"{n} by {who}" for who, n in sorted(self.first.items())) or "none"
        return (f"outbox at the last game's end: {sum(self.first.values())} pending ({held}); "
                f"drained in {self.seconds:.1f} s, {self.left} left")


PENDING_BY_LANE = (
    "SELECT l.owner, l.lease_until, count(*) FROM outbox o JOIN lanes l "
    "ON l.game_id = o.game_id AND l.recipient = o.recipient "
    "WHERE o.status = 'pending' GROUP BY l.owner, l.lease_until")


async def wait_for_drain(reader: Manager, victim_pid: int, bound: float) -> Drain:
    """Poll the outbox until nothing is pending (at most ``bound`` seconds)."""
    drain = Drain(victim_pid)
    pool = reader.store.pool  # type: ignore[attr-defined]  # the PostgreSQL store
    started, first = time.monotonic(), True
    while True:
        now_ms = int(time.time() * 1000)
        rows = await pool.fetch(PENDING_BY_LANE)
        pending = Counter[str]()
        for owner, lease_until, count in rows:
            pending[drain.holder(owner, lease_until, now_ms)] += int(count)
        if first:
            drain.first, first = pending, False
        drain.seconds = time.monotonic() - started
        drain.left = sum(pending.values())
        if drain.left == 0 or drain.seconds > bound:
            return drain
        await asyncio.sleep(0.5)


class Table:
    """The test's side of the world: who is who, where the games are, what was acknowledged."""

    def __init__(self, env: DiscordEnv, reader: Manager) -> None:
        self.env = env
        self.reader = reader
        self.acked: list[tuple[int, int, int]] = []  # (game, ply, seat) of answered commits
        self.turns = 0
        self.names: dict[int, str] = {}
        self.trace: dict[int, list[str]] = {}  # per game: what the players did (on failure)

    def note(self, game_id: int, text: str) -> None:
        self.trace.setdefault(game_id, []).append(f"{time.monotonic():.1f} {text}")

    def controls(self, msg: FakeMessage, pattern: re.Pattern[str], game: int,
                 ply: int | None = None) -> str | None:
        for c in msg.walk_components():
            m = pattern.fullmatch(c.custom_id or "")
            if m and int(m[1]) == game and (ply is None or int(m[2]) == ply):
                return c.custom_id
        return None

    async def panel(self, user: str, game: int, ply: int | None,
                    pattern: re.Pattern[str] = CELL_SELECT) -> FakeMessage:
        return await self.env.wait_for_dm(
            user, lambda m: self.controls(m, pattern, game, ply) is not None, timeout=45)

    async def fresh(self, game_id: int) -> GameInfo:
        return await queries.game(self.reader.kernel, game_id, fresh=True)

    async def turn(self, user: str, game: GameInfo) -> None:
        """One turn through the DM: the cell, then the market tile (a commit). A click that is
        not answered (its shard's process was just killed) is simply tried again."""
        uid = self.env.user(user).id
        seat = game.seat_of(uid)
        assert seat is not None and game.state is not None
        move = make_player("random", game.ply).choose(private_view(game.state, seat),
                                                      legal_moves(game.state, seat))
        assert isinstance(move, PlaceTile)
        panel = await self.panel(user, game.id, game.ply, ANY_TURN_CONTROL)
        undo = f"calico:u:{game.id}:{game.ply}"
        if self.controls(self.env.get_message(panel.id), CELL_SELECT, game.id, game.ply) is None \
                and any(c.custom_id == undo for c in panel.walk_components()):
            # A previous try left the panel at its preview (the commit click was lost with a
            # killed process): back to choosing, as a player would.
            back = await self.env.click(user, panel, custom_id=undo)
            await back.wait_response(timeout=CLICK_TIMEOUT)
            await self.env.wait_for(lambda: self.controls(
                self.env.get_message(panel.id), CELL_SELECT, game.id, game.ply),
                timeout=CLICK_TIMEOUT)
        source = f"h{move.hand}" if move.hand is not None else f"m{move.market}"
        cell = cell_name(move.cell)
        first = await self.env.select(user, panel, f"calico:c:{game.id}:{game.ply}:{source}",
                                      [cell])
        await first.wait_response(timeout=CLICK_TIMEOUT)
        slot = "x" if move.hand is None or move.market is None else str(move.market)
        take = f"calico:t:{game.id}:{game.ply}:{source}:{cell}:{slot}"

        def has_take() -> bool:
            return any(c.custom_id == take for c in self.env.get_message(panel.id)
                       .walk_components())

        # The preview may come as a deferred edit (a busy machine): wait for its buttons.
        await self.env.wait_for(lambda: has_take() or None, timeout=CLICK_TIMEOUT)
        second = await self.env.click(user, self.env.get_message(panel.id), custom_id=take)
        record = await second.wait_response(timeout=CLICK_TIMEOUT)
        if record.type == 6:  # deferred: the answer is the edit that follows
            await self.env.wait_for(lambda: (not has_take()) or None, timeout=CLICK_TIMEOUT)
        if record.type in (6, 7) and not has_take():  # "played", in place: acknowledged
            self.acked.append((game.id, game.ply, seat))
            self.turns += 1

    async def draft(self, user: str, game: GameInfo) -> None:
        uid = self.env.user(user).id
        seat = game.seat_of(uid)
        assert seat is not None and game.state is not None
        panel = await self.panel(user, game.id, None, DRAFT_SELECT)  # drafts are simultaneous
        select = self.controls(panel, DRAFT_SELECT, game.id)
        assert select is not None
        move = make_player("random", 1).choose(private_view(game.state, seat),
                                               legal_moves(game.state, seat))
        assert isinstance(move, ChooseGoals)
        offer = game.state.seats[seat].goal_offer
        value = "".join(str(offer.index(g)) for g in move.goals)
        await (await self.env.select(user, panel, select, [value])).wait_response(
            timeout=CLICK_TIMEOUT)
        def confirm_button() -> str | None:
            return next((c.custom_id for c in self.env.get_message(panel.id).walk_components()
                         if (c.custom_id or "").startswith("calico:gc:")), None)

        confirm = await self.env.wait_for(confirm_button, timeout=CLICK_TIMEOUT)
        await (await self.env.click(user, panel, custom_id=confirm)).wait_response(
            timeout=CLICK_TIMEOUT)

    async def play(self, game_id: int) -> GameInfo:
        """Everyone's moves until the game is over."""
        failures = 0
        for _ in range(400):
            game = await self.fresh(game_id)
            if not game.status.active:
                return game
            try:
                if game.status is GameStatus.DRAFT:
                    for uid in game.drafting_user_ids:
                        self.note(game_id, f"draft by {self.names[uid]} at ply {game.ply}")
                        await self.draft(self.names[uid], game)
                elif game.current_user_id is not None:
                    self.note(game_id, f"turn of {self.names[game.current_user_id]} at ply "
                                       f"{game.ply}")
                    await self.turn(self.names[game.current_user_id], game)
                else:
                    await asyncio.sleep(0.2)  # a computer is thinking
                failures = 0
            except (TimeoutError, LookupError) as e:
                # Lost with a killed process, or refused as out of date: look again, retry.
                self.note(game_id, f"retry after {type(e).__name__}: {str(e)[:200]}")
                failures += 1
                if failures >= 8:
                    raise AssertionError("\n".join(self.trace[game_id][-20:])) from e
                await asyncio.sleep(0.5)
        raise AssertionError(f"game {game_id} did not end")

    async def open(self, user: str, channel: FakeChannel, command: str,
                   **options: object) -> int:
        """``/calico start|solo`` until answered (a click on a dead shard is tried again)."""
        for _ in range(10):
            ix = await self.env.slash(user, "calico", command, options=options, channel=channel)
            try:
                reply = await ix.wait_followup(timeout=CLICK_TIMEOUT)
            except TimeoutError:
                continue
            m = GAME_ID.search(reply.content)
            assert m, reply.content
            return int(m[1])
        raise AssertionError(f"/calico {command} was never answered")

    async def lobby(self, game_id: int) -> FakeMessage:
        def find() -> FakeMessage | None:
            game_thread = self.thread_of(game_id)
            if game_thread is None:
                return None
            return next((m for m in self.env.messages(game_thread) if m.button("Start")), None)

        return await self.env.wait_for(find, timeout=60)

    def thread_of(self, game_id: int) -> FakeChannel | None:
        found = [t for t in self.env.state.channels.values()
                 if t.is_thread and f"#{game_id} " in f"{t.name} "]
        return found[0] if found else None

    async def click_until_answered(self, user: str, game_id: int, label: str) -> None:
        for _ in range(10):
            msg = await self.lobby(game_id)
            ix = await self.env.click(user, msg, label=label)
            try:
                await ix.wait_response(timeout=CLICK_TIMEOUT)
                return
            except TimeoutError:
                continue
        raise AssertionError(f"{label} in game {game_id} never answered")


async def test_three_processes_share_forty_games_across_a_crash(
        discord_env: DiscordEnv, tmp_path: Path, pg_db: str) -> None:
    env = discord_env
    rng = random.Random(11)
    guilds = [env.add_guild(f"Server {i}", shard=(i % SHARDS, SHARDS)) for i in range(12)]
    channels = [env.add_text_channel("games", guild=g) for g in guilds]
    people: list[FakeUser] = [env.add_user(f"p{i}", guild=False) for i in range(36)]
    for g in guilds:
        for u in people:
            env.add_member(u, g)
    env.state.nonce_window = 600.0  # Discord's own window is a few minutes; nothing here waits

    settings = {"calico_cluster_slots": str(SLOTS), "calico_shard_count": str(SHARDS),
                "calico_lease_seconds": str(LEASE)}
    bots = [await BotProcess(env, pg_db, tmp_path, f"p{i}", **settings).start()
            for i in range(SLOTS)]
    reader = await Manager.open(pg_db)
    table = Table(env, reader)
    table.names = {u.id: u.name for u in people}
    try:
        try:
            await env.wait_for_shards(*range(SHARDS), shard_count=SHARDS, timeout=90)
        except TimeoutError:
            raise AssertionError(logs(bots)) from None

        async def solo(k: int) -> int:
            user = people[k]
            game_id = await table.open(user.name, channels[k % 12], "solo", setup="beginner")
            return (await table.play(game_id)).id

        async def duel(k: int, setup: str) -> int:
            host, guest = people[24 + 2 * k], people[25 + 2 * k]
            game_id = await table.open(host.name, channels[k % 12], "start", players=2,
                                       setup=setup)
            await table.click_until_answered(guest.name, game_id, "Join")
            await table.click_until_answered(host.name, game_id, "Start")
            return (await table.play(game_id)).id

        async def against_computer(k: int) -> int:
            user = people[20 + k]
            game_id = await table.open(user.name, channels[(k + 5) % 12], "start", players=2,
                                       setup="beginner", computers=1, level="easy")
            await table.click_until_answered(user.name, game_id, "Start")
            return (await table.play(game_id)).id

        jobs = ([solo(k) for k in range(20)] + [duel(k, "beginner") for k in range(4)]
                + [duel(k + 4, "standard") for k in range(2)]
                + [against_computer(k) for k in range(4)])
        # Ten more solo games by the same people, in other servers: forty in all.
        jobs += [solo(k) for k in range(10)]
        rng.shuffle(jobs)
        limit = asyncio.Semaphore(12)

        async def bounded(job: object) -> int:
            async with limit:
                return await job  # type: ignore[misc, no-any-return]

        running = [asyncio.create_task(bounded(j)) for j in jobs]

        # Mid-way, the process holding slot 0 (shards 0, 3, 6: every DM) dies; a new process
        # is started and claims the freed slot.
        await env.wait_for(lambda: table.turns >= 250 or None, timeout=600)
        victim = next(b for b in bots if "cluster slot 0 " in b.log())
        victim.kill()
        killed_at = env.state.clock()
        assert await victim.wait(30) == -9
        bots.append(await BotProcess(env, pg_db, tmp_path, "p3", **settings).start())
        try:
            await env.wait_for_shards(0, 3, 6, shard_count=SHARDS, timeout=90)
        except TimeoutError:
            raise AssertionError(logs(bots)) from None

        started = time.monotonic()
        finished = await asyncio.wait_for(asyncio.gather(*running), timeout=1200)
        assert len(set(finished)) == 40, finished
        assert "cluster slot 0 " in bots[-1].log()  # the new process took the freed slot
        elapsed = time.monotonic() - started
        assert elapsed > 0

        # Every game over; every acknowledged move stored exactly once (and nothing else).
        games = [await queries.game(reader.kernel, i, fresh=True) for i in finished]
        assert all(g.status is GameStatus.OVER for g in games)
        for g in games:
            moves = await reader.store.moves(g.id)
            assert [m.ply for m in moves] == list(range(g.ply)), g.id
        stored = {(g.id, m.ply, m.seat) for g in games for m in await reader.store.moves(g.id)}
        assert set(table.acked) <= stored and len(table.acked) == len(set(table.acked))
        # Every notice delivered (or, superseded, skipped): none lost, none failed. The last
        # games' posts may still be on their way when their final move is acknowledged (a
        # loaded machine), so wait for the outbox to drain, with a bound, before judging it.
        drain = await wait_for_drain(reader, victim_pid=victim.pid, bound=240.0)
        print(drain.report())
        notices = await reader.store.notices()
        statuses = Counter(n.status for n in notices)
        assert set(statuses) <= {"done", "skipped"}, (statuses, drain.report())
        # ...each exactly once: one message per nonce, and each delivered notice's message is
        # the one Discord holds for its nonce.
        await asyncio.sleep(1.0)
        by_nonce = Counter((m.channel_id, m.nonce) for m in env.state.messages.values()
                           if m.nonce is not None and not m.deleted)
        assert all(count == 1 for count in by_nonce.values())
        # (the lobby message is edited in place after its first post: its later notices point
        # at the first one's message)
        delivered = [n for n in notices if n.status == "done" and n.message_id is not None
                     and n.kind not in ("open_thread", "lobby")]
        # A run of computer moves is one post (bot.core.folding): its notices share the
        # message, whose nonce is the run's (its first notice's key and the run's length).
        by_message: dict[int, list[Notice]] = {}
        for n in delivered:
            by_message.setdefault(n.message_id or 0, []).append(n)
        for message_id, run in by_message.items():
            run.sort(key=lambda n: n.id)
            msg = env.state.messages.get(message_id)
            assert msg is not None, run[0].kind
            assert msg.nonce == nonce_for(folding.run_key(run[0].key, len(run))), run[0].kind
        # At most the notices the killed process had in flight were sent twice (and Discord's
        # nonce check kept them from showing twice). The message says when each repeat's first
        # copy came, against the kill, to tell the dead process's lanes from any other cause.
        repeats = env.state.nonce_duplicate_times
        assert len(repeats) <= 16, (
            f"{len(repeats)} repeats: {env.state.nonce_duplicates[:12]}; first copies at "
            f"{sorted(round(a - killed_at, 1) for a, _ in repeats)[:12]} s from the kill, "
            f"repeated after {sorted(round(b - a, 1) for a, b in repeats)[:12]} s")
        # One thread per game.
        for g in games:
            threads = [t for t in env.state.channels.values()
                       if t.is_thread and f"#{g.id} " in f"{t.name} "]
            assert len(threads) == 1 and threads[0].id == g.thread_id
    finally:
        await reader.close()
        await stop_all(bots)
