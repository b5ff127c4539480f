"""Game reviews and hints in the bot (issue #13): who may ask, where the work runs, what is kept.

The computation itself is the engine's (:mod:`engine.ai.review`, :mod:`engine.ai.hints`,
``docs/review-api.md``); this module is its Discord-free service, used by the Discord layer and
the benchmarks:

- **Reviews** (:meth:`ReviewService.review`): any person who held a seat of a finished game to
  its end may ask for the review of that seat. A review costs several seconds of one core, so it
  never runs on the event loop: it runs in a pool of worker processes (:class:`Lane`, its own,
  ``workers`` of them) with a bounded queue; when the queue is full the request is refused at
  once (:class:`ReviewsBusyError`, "try again in a minute") instead of piling up work. Once
  computed it is stored (``Store.save_review``: the first one stored wins, also across
  processes), and asking again returns the stored one without any work. Two requests for the
  same seat at once share one computation.
- **Hints** (:meth:`ReviewService.hints`): the engine's three best placements for the person to
  move, in a game that allows them (:func:`hints_allowed`). Taking one marks the game
  (``FLAG_HINTS``, committed by :func:`bot.core.turns.take_hint`
  before the hints are shown), which then counts for no rating, achievement or leaderboard. A
  hint is about as costly as a strong computer move, so it runs in the computer players'
  processes (:meth:`ComputerPool.run <bot.core.computers.ComputerPool.run>`, same bound), or in
  this service's pool when computers play in threads.

Fairness: a worker gets the game's record (options, seed and moves: it must replay the game),
but the review reads only the seat's private view at each decision, and a hint gets the private
view alone. The review's own seed is the game's id, never the game's seed (which decides the
bag); hints use the same seed and the same futures (a hint's fewer), and both let the engine pick
by comparing moves on those futures, so the engine's value is never below a move it passed over.
Nothing stored or shown carries the seed, the bag or another player's hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core import turns
from bot.core.clock import from_ms, to_ms
from bot.core.computers import ComputersBusyError
from bot.core.game import FLAG_HINTS, LiveGame
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.core.review import store
from bot.core.review.model import HintsOutcome, ReviewOutcome
from bot.core.review.store import ReviewRow
from bot.core.turns import HintGrant
from bot.core.workers import WorkerPool, keep_recent
from engine.ai.hints import HINT_SAMPLES, Hint
from engine.ai.review import (
    DEFAULT_SAMPLES,
    Decision,
    Review,
    decisions_from_states,
    review,
    states_from_record,
)
from engine.ai.rollout import DEFAULT_DEPTH
from engine.config import STORED, GameOptions
from engine.moves import Move
from engine.state import SCHEMA_VERSION, GameState
from engine.views import PrivateView

log = logging.getLogger("calico.review")


HINT_COUNT = 3  # placements a hint shows
REVIEW_WAITING = 3  # reviews that may wait per review worker before "try again in a minute"


class ReviewsBusyError(Exception):
    """Every review (or hint) worker is busy and the queue is full: ask again in a minute."""

    code = "reviews_busy"  # a player-facing refusal (bot.words.replies)


# --------------------------------------------------------------------------- who may


async def accuracy(kernel: Kernel, user_id: int) -> tuple[int, float | None]:
    """(reviewed games, mean accuracy) of a person. Games in which someone took a hint are
    left out, as they are from ratings and leaderboards: the figure is the person's own play."""
    return await store.accuracy(kernel.store, user_id, without_flags=FLAG_HINTS)


def review_seat(game: GameInfo, user_id: int) -> int:
    """The seat of ``game`` this person may have reviewed, or a refusal: a person's seat they
    held to the end, of a game that finished."""
    mine = [s for s in game.seats if s.user_id == user_id]
    if not mine:
        raise ManagerError("not_a_player", "you did not play in this game")
    if game.status.active:
        raise ManagerError("review_in_play", "the game is still being played")
    if game.status is not GameStatus.OVER:
        raise ManagerError("review_unfinished", "the game ended before its last tile")
    held = [s for s in mine if s.ai_level is None]
    if not held:
        raise ManagerError("review_left", "a computer player finished this seat")
    return held[0].seat


# --------------------------------------------------------------------------- worker side


def game_states(record: dict[str, Any]) -> tuple[list[GameState], list[Move]]:
    """Replay a record (``engine.serialize`` schema): the state before each move, and the
    moves. Stored options load with the STORED context (later option rules do not refuse an
    old game)."""
    options = GameOptions.model_validate(record["options"], context=STORED)
    return states_from_record(record, options=options)


def seat_decisions(record: dict[str, Any], seat: int) -> list[Decision]:
    """The seat's decisions of a game record: each its private view and the move it made."""
    states, moves = game_states(record)
    return decisions_from_states(states, moves, seat)


def review_job(record: dict[str, Any], seat: int, seed: int, samples: int,
               depth: int | None) -> tuple[dict[str, Any], float]:
    """In a worker process: the review of ``seat`` as plain JSON, and the CPU seconds taken."""
    started = time.process_time()
    done = review(seat_decisions(record, seat), samples=samples, depth=depth, seed=seed)
    return done.to_json(), time.process_time() - started


def hints_job(view: PrivateView, seed: int, count: int) -> tuple[list[dict[str, Any]], float]:
    """In a worker process: the hints for the seat of ``view`` as JSON, and the CPU seconds."""
    from engine.ai.hints import hints

    started = time.process_time()
    got = hints(view, count=count, seed=seed)
    return [h.to_json() for h in got], time.process_time() - started


def turn_views(record: dict[str, Any], seat: int, plies: Sequence[int]
               ) -> dict[int, PrivateView]:
    """The seat's private view before each of ``plies`` (for the turn pictures)."""
    wanted = set(plies)
    return {d.view.public.ply: d.view for d in seat_decisions(record, seat)
            if d.view.public.ply in wanted}


def _warm() -> None:
    # Import the engine and read the catalogue once per worker, before the first review.
    import engine.ai.players  # noqa: F401
    from data import load_catalog

    load_catalog()


# --------------------------------------------------------------------------- the pool


@dataclass
class LaneStats:
    jobs: int = 0
    busy: int = 0  # refused because the queue was full
    seconds: list[float] = field(default_factory=list)  # recent wall seconds per job


class Lane(WorkerPool):
    """Reviews and hints in worker processes with a bounded queue: at most ``workers +
    max_waiting`` jobs in flight; past that :meth:`run` raises :class:`ReviewsBusyError` at
    once."""

    def __init__(self, workers: int = 1, max_waiting: int | None = None) -> None:
        count = max(1, workers)
        super().__init__(count, count * REVIEW_WAITING if max_waiting is None else max_waiting,
                         _warm)
        self.stats = LaneStats()

    def _busy(self) -> Exception:
        self.stats.busy += 1
        return ReviewsBusyError(f"{self._in_flight} jobs in flight")

    def _finished(self, seconds: float) -> None:
        self.stats.jobs += 1
        self.stats.seconds.append(seconds)
        keep_recent(self.stats.seconds)


# --------------------------------------------------------------------------- the service


class ReviewService:
    """Reviews and hints for a running bot (see the module docstring)."""

    def __init__(self, kernel: Kernel, *, workers: int = 1, max_waiting: int | None = None,
                 samples: int = DEFAULT_SAMPLES, depth: int | None = DEFAULT_DEPTH,
                 hint_cache: int = 256) -> None:
        self.kernel = kernel
        self.samples = samples
        self.depth = depth
        self.lane = Lane(workers, max_waiting)
        self._running: dict[tuple[int, int], asyncio.Future[ReviewOutcome]] = {}
        self._hints: OrderedDict[tuple[int, int, int], tuple[Hint, ...]] = OrderedDict()
        self._hint_cache = hint_cache
        self.hint_seconds: list[float] = []  # recent wall seconds per computed hint

    def close(self) -> None:
        self.lane.close()

    # ------------------------------------------------------------------ reviews

    async def review(self, game_id: int, user_id: int) -> ReviewOutcome:
        """The review of this person's seat in a finished game: the stored one, or computed
        in a worker process (then stored). Refusals: ``ManagerError`` (not a player, still in
        play, unfinished, a computer finished the seat), :class:`ReviewsBusyError`."""
        game = await self.kernel.get_game(game_id)
        if game.status.active:
            game = await self.kernel.get_game(game_id, fresh=True)  # it may have just ended
        seat = review_seat(game, user_id)
        stored = await self.stored(game, seat)
        if stored is not None:
            return stored
        key = (game_id, seat)
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[ReviewOutcome] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            outcome = await self._compute(game, seat, user_id)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # retrieved: a failure nobody else waits on is not logged
            raise
        finally:
            del self._running[key]
        future.set_result(outcome)
        return outcome

    async def stored(self, game: GameInfo, seat: int) -> ReviewOutcome | None:
        row = await store.review(self.kernel.store, game.id, seat)
        if row is None:
            return None
        try:
            done = Review.from_json(json.loads(row.data))
        except (ValueError, KeyError, TypeError):
            log.warning("stored review of game %s seat %s is unreadable; recomputed", game.id,
                        seat)
            return None
        return ReviewOutcome(game, seat, done, from_ms(row.created_at), computed=False)

    async def record(self, game_id: int) -> dict[str, Any]:
        """The game as an engine record (options, seed, moves). Secret (the seed decides the
        bag): for the workers that replay it, never for players."""
        row = await self.kernel.store.load_game(game_id)
        if row is None:
            raise ManagerError("unknown_game", f"no game {game_id}")
        g = LiveGame.from_row(row)
        if g.state is None or g.engine_options is None:
            raise ManagerError("review_unfinished", "the game never started")
        moves = await self.kernel.store.moves(game_id)
        return {"schema": SCHEMA_VERSION, "options": g.engine_options.model_dump(mode="json"),
                "seed": g.state.seed,
                "moves": [{"seat": m.seat, "move": m.move} for m in moves]}

    async def _compute(self, game: GameInfo, seat: int, user_id: int) -> ReviewOutcome:
        if not self.lane.has_room():
            self.lane.stats.busy += 1
            raise ReviewsBusyError("every review worker is busy")
        record = await self.record(game.id)
        started = time.perf_counter()
        data, cpu = await self.lane.run(review_job, record, seat, game.id, self.samples,
                                        self.depth)
        wall = time.perf_counter() - started
        done = Review.from_json(data)
        log.info("review of game %s seat %s: %.1f s (%.1f s CPU, %d samples), accuracy %s",
                 game.id, seat, wall, cpu, self.samples, done.accuracy)
        now = to_ms(self.kernel.now())
        text = json.dumps(data, separators=(",", ":"))
        row = await store.save(self.kernel.store, ReviewRow(
            game.id, seat, user_id, done.accuracy, text, now))
        if row.data != text:
            # Another process stored one first: that one is the review (first stored wins).
            with contextlib.suppress(ValueError, KeyError, TypeError):
                done = Review.from_json(json.loads(row.data))
        return ReviewOutcome(game, seat, done, from_ms(row.created_at), computed=True,
                             seconds=wall, cpu=cpu)

    async def views_for(self, outcome: ReviewOutcome, plies: Sequence[int]
                        ) -> dict[int, PrivateView]:
        """The seat's private view before each of ``plies`` (replayed in a thread)."""
        if not plies:
            return {}
        record = await self.record(outcome.game.id)
        return await asyncio.to_thread(turn_views, record, outcome.seat, list(plies))

    async def accuracy(self, user_id: int) -> tuple[int, float | None]:
        """(reviewed games, mean accuracy) of a person: for ``/calico stats``."""
        return await accuracy(self.kernel, user_id)

    # ------------------------------------------------------------------ hints

    def _hint_room(self) -> bool:
        computers = self.kernel.computers
        return computers.has_room() if computers is not None else self.lane.has_room()

    async def hints(self, game_id: int, user_id: int, ply: int) -> HintsOutcome:
        """Take a hint on this person's turn (from a button made for ``ply``): the game is
        marked first (committed), then the engine's best placements are worked out in a worker
        process. Refusals: ``ManagerError`` (stale, not your turn, hints off...),
        :class:`ReviewsBusyError` (checked before the game is marked)."""
        if not self._hint_room():
            raise ReviewsBusyError("every worker is busy")
        grant = await turns.take_hint(self.kernel, game_id, user_id, ply)
        key = (game_id, grant.view.public.ply, grant.seat)
        got = self._hints.get(key)
        if got is None:
            got = await self._compute_hints(grant)
            self._hints[key] = got
            while len(self._hints) > self._hint_cache:
                self._hints.popitem(last=False)
        return HintsOutcome(grant.game, grant.seat, grant.view, got, HINT_SAMPLES, grant.first)

    async def _compute_hints(self, grant: HintGrant) -> tuple[Hint, ...]:
        started = time.perf_counter()
        computers = self.kernel.computers
        try:
            if computers is not None:
                data, _ = await computers.run(hints_job, grant.view, grant.seed, HINT_COUNT)
            else:
                data, _ = await self.lane.run(hints_job, grant.view, grant.seed, HINT_COUNT)
        except ComputersBusyError:
            raise ReviewsBusyError("every computer worker is busy") from None
        self.hint_seconds.append(time.perf_counter() - started)
        if len(self.hint_seconds) > 1000:
            del self.hint_seconds[:500]
        return tuple(Hint.from_json(d) for d in data)

