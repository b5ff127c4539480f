"""The game flow (like boardgame.io's ``flow``): how a game moves from deal to end.

Dealing a lobby, starting the next turn's clock and prompt, applying one move (with its log
entry, notices, timers and results), playing the computer seats (those that think through the
computers' queue, :mod:`bot.core.thinking`), turning a person's seat into a
computer player, and ending a game. Every function works on the kernel's public API
(:class:`bot.core.kernel.Kernel`) and a :class:`~bot.core.game.Tx` or a
:class:`~bot.core.game.LiveGame`; the services (lobby, turns, leaving, sweep, challenge) call
them. What a game's end adds beyond its result (achievements, ratings, the challenge's score, a
tournament's line) comes from the features registered with the kernel (:mod:`bot.core.hooks`):
the flow names no feature and imports no service.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging

from bot.core import notices
from bot.core.clock import iso_at
from bot.core.game import FLAG_HINTS, FLAG_PLAY_OUT, LiveGame, Tx
from bot.core.hooks import Ending
from bot.core.kernel import Kernel, StaleError
from bot.core.models import FirstPlayer, GameStatus, ManagerError
from bot.core.notices import Events
from bot.core.storage import MoveRow, ResultRow
from bot.core.storage.codec import dumps, encode_config, event_dict
from bot.core.thinking import TurnQueue
from engine.ai import LEVELS, Player, make_player
from engine.events import Event, GameOver, ScenarioResult
from engine.moves import Move
from engine.rules import apply, legal_moves
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view

log = logging.getLogger("calico.manager")

_END_KINDS = frozenset({"goal_scored", "scenario_result", "game_over"})


# ---------------------------------------------------------------------- deal and turns


def deal(k: Kernel, tx: Tx, seed: int | None = None) -> None:
    """Deal the lobby of ``tx`` and queue its start (notices, timers, first prompts).
    ``seed``: a given deal (the weekly challenge's) instead of a fresh secret one."""
    g = tx.g
    first_seat = None
    if g.options.first is FirstPlayer.PET and g.first_user_id is not None:
        claimed = g.person(g.first_user_id)
        first_seat = None if claimed is None else claimed.seat
    engine_options = g.options.engine_options(len(g.seats), first_seat)
    state = new_game(k.catalog, engine_options, k.seed_source() if seed is None else seed)
    status = GameStatus.DRAFT if state.phase is Phase.DRAFT else GameStatus.PLAY
    tx.set(status=status, state=state, config_json=encode_config(state),
           engine_options=engine_options, ply=state.ply)
    tx.activity = True
    tx.thread(notices.Started(first_seat=state.first_seat, phase=status.value,
                              players=len(g.seats)))
    if status is GameStatus.DRAFT:
        deadline = None
        for i, s in enumerate(state.seats):
            if not s.goal_offer:
                continue
            computer = g.seats[i].ai_level is not None
            timer = k.turn_timer(g.id, i, tx.now, g.options.turn_hours, computer)
            if computer or g.clocked:
                tx.upsert_timers.append(timer)
            if not computer:
                deadline = timer.deadline_at if g.clocked else None
                tx.dm(i, notices.DraftPrompt(seat=i, deadline_at=iso_at(deadline)))
        tx.set(deadline_at=deadline)
    else:
        next_turn(k, tx)


def next_turn(k: Kernel, tx: Tx) -> None:
    """Start the clock of the seat to play next, and prompt its player."""
    g = tx.g
    assert g.state is not None
    seat = g.state.current_seat
    assert seat is not None
    computer = mover_level(g, seat) is not None
    timer = k.turn_timer(g.id, seat, tx.now, g.options.turn_hours, computer)
    tx.clear_turn_timers = True
    if computer or g.clocked:
        tx.upsert_timers.append(timer)
    deadline = timer.deadline_at if g.clocked and not computer else None
    tx.set(deadline_at=deadline)
    if not computer:
        tx.dm(seat, notices.TurnPrompt(seat=seat, deadline_at=iso_at(deadline)))


# ---------------------------------------------------------------------- moves


async def apply_move(k: Kernel, g: LiveGame, seat: int, move: Move,
                     by: str) -> tuple[LiveGame, list[Event]]:
    """Apply one move and commit it with its log entry, notices, timers and results."""
    assert g.state is not None
    state, events = apply(g.state, move)  # raises EngineError if illegal
    tx = await k.begin(g)
    status = {Phase.OVER: GameStatus.OVER, Phase.DRAFT: GameStatus.DRAFT}.get(
        state.phase, GameStatus.PLAY)
    tx.set(state=state, ply=state.ply, status=status)
    tx.activity = True
    dicts = [event_dict(e) for e in events]
    played = [d for d in dicts if d["kind"] not in _END_KINDS]
    # The events go to the move log and the table notice: encode them once.
    events_json = dumps(dicts)
    tx.move = MoveRow(g.id, g.state.ply, seat, move.text(), by, events_json, tx.now)
    shown = Events(events_json if len(played) == len(dicts) else dumps(played))
    tx.thread(notices.Table(seat=seat, move=move.text(), by=by, autoplayed=by == "autopilot",
                            next_seat=state.current_seat, events=shown))
    if by == "autopilot" and not g.flags & FLAG_PLAY_OUT:
        # The absent player hears of it where they play: what was played, and their hand (a
        # game played out at a deadline is told in its thread, not move by move).
        tx.dm(seat, notices.Autoplayed(seat=seat, move=move.text(), events=shown))
    if status is GameStatus.OVER:
        over = events[-1]
        assert isinstance(over, GameOver)
        tx.set(deadline_at=None)
        tx.results = results(g, events, over, tx.now)
        # What features add (achievements, ratings, a challenge's score...), with the result.
        parts = await k.hooks.game_over(k, tx, Ending(events, over))
        tx.thread(notices.GameOver(
            totals=over.totals, places=over.places, winners=over.winners,
            decided_by=over.decided_by,
            events=Events.of([d for d in dicts if d["kind"] in _END_KINDS]), parts=parts))
    elif status is GameStatus.DRAFT:
        tx.delete_timers.append(("turn", seat))
    else:
        next_turn(k, tx)
    return await k.commit(tx), events


def results(g: LiveGame, events: list[Event], over: GameOver, now: int) -> list[ResultRow]:
    """The result rows of a finished game (one per seat)."""
    passed = {e.seat: e.passed for e in events if isinstance(e, ScenarioResult)}
    solo = len(g.seats) == 1
    hints = bool(g.flags & FLAG_HINTS)
    rows = []
    for i, s in enumerate(g.seats):
        # Solo: a "win" is passing the scenario. A seat a computer finished is not counted,
        # nor is any seat of a game in which someone took a hint.
        win = passed.get(i, False) if solo else over.places[i] == 1
        rows.append(ResultRow(
            game_id=g.id, seat=i, user_id=s.user_id, guild_id=g.guild_id,
            total=over.totals[i], place=over.places[i], win=win,
            counted=s.ai_level is None and s.user_id is not None and not hints,
            breakdown=json.dumps(over.scores[i] if i < len(over.scores) else {}),
            finished_at=now))
    return rows


# ---------------------------------------------------------------------- computers


def _player_seed(state: GameState, seat: int) -> int:
    # A per-move generator derived one-way from the game seed: reproducible for a stored
    # game, and revealing nothing about the seed.
    digest = hashlib.blake2b(f"{state.seed}:{state.ply}:{seat}".encode(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def _player(level: str, seed: int) -> Player:
    try:
        return make_player(level, seed)
    except ValueError:
        return make_player("random", seed)


def thinks(level: str | None) -> bool:
    """Whether a computer of ``level`` searches (in a worker): its turns go through the
    computers' queue (:mod:`bot.core.thinking`), never inside a person's click. The random
    player answers in microseconds and moves at once."""
    return level is not None and level in LEVELS and level != "random"


async def choose(k: Kernel, state: GameState, seat: int, level: str) -> Move:
    """The move a computer player of ``level`` makes for ``seat``."""
    legal = legal_moves(state, seat)
    seed = _player_seed(state, seat)
    view = private_view(state, seat)
    if not thinks(level):
        return _player(level, seed).choose(view, legal)
    if k.computers is not None:
        # A thinking player runs in another process (see bot.core.computers).
        return await k.computers.choose(level, seed, view, legal)
    return await asyncio.to_thread(_player(level, seed).choose, view, legal)


def mover_level(g: LiveGame, seat: int) -> str | None:
    """The computer level that plays ``seat``'s moves: its own computer's, or, in a game being
    played out (:func:`play_out`), the game's level on a person's behalf (None: a person)."""
    level = g.seats[seat].ai_level
    if level is None and g.flags & FLAG_PLAY_OUT:
        level = g.options.ai_level
    return level


def computer_to_move(g: LiveGame) -> int | None:
    """A seat the game is waiting for that the computer plays, if any."""
    st = g.state
    if st is None:
        return None
    if g.status is GameStatus.DRAFT:
        for i, s in enumerate(st.seats):
            if s.goal_offer and mover_level(g, i) is not None:
                return i
        return None
    if g.status is GameStatus.PLAY:
        seat = st.current_seat
        if seat is not None and mover_level(g, seat) is not None:
            return seat
    return None


def _by(g: LiveGame, seat: int) -> str:
    return "computer" if g.seats[seat].ai_level is not None else "autopilot"


def autopilot_later(k: Kernel, g: LiveGame, seat: int) -> None:
    """A person's turn timed out (timeout: autopilot) at a level that thinks: their move is
    played from the computers' queue (:func:`play_queued`), in turn with the others."""
    k.overdue[g.id] = (seat, g.ply)
    turn_queue(k).push(g.id)


def _due(k: Kernel, g: LiveGame) -> int | None:
    """The seat the queue plays now: a computer's (:func:`computer_to_move`), or a person's
    whose turn timed out (:func:`autopilot_later`) and who has not moved since."""
    seat = computer_to_move(g)
    if seat is not None:
        return seat
    overdue = k.overdue.get(g.id)
    if overdue is not None:
        seat, ply = overdue
        if (g.ply == ply or g.status is GameStatus.DRAFT) and g.must_act(seat):
            return seat
        k.overdue.pop(g.id, None)  # they moved meanwhile (or the game went on)
    return None


def _level(k: Kernel, g: LiveGame, seat: int) -> str | None:
    level = mover_level(g, seat)
    if level is None and k.overdue.get(g.id, (None, None))[0] == seat:
        level = g.options.ai_level
    return level


def turn_queue(k: Kernel) -> TurnQueue:
    """This process's computers' queue (made on first use: one runner per computer worker,
    one when computers think in a thread)."""
    queue = k.computer_turns
    if queue is None:
        runners = k.computers.workers if k.computers is not None else 1
        queue = k.computer_turns = TurnQueue(runners, functools.partial(play_queued, k))
    return queue


async def run_computers(k: Kernel, g: LiveGame, *, strict: bool = False) -> LiveGame:
    """Play the computer moves now due that need no thinking (the random player), each
    committed on its own; a computer that thinks is queued (:func:`turn_queue`) and this
    returns at once. A failure leaves the move to its timer; it is raised only when
    ``strict`` (the sweep counts it), never to a caller whose own move is already stored."""
    try:
        for _ in range(4 * 23 + 8):
            seat = computer_to_move(g)
            if seat is None:
                break
            level = mover_level(g, seat)
            assert g.state is not None and level is not None
            if thinks(level):
                turn_queue(k).push(g.id)
                break
            move = await choose(k, g.state, seat, level)
            g, _ = await apply_move(k, g, seat, move, _by(g, seat))
    except StaleError:
        pass  # another process moved this game on (and plays its computers)
    except Exception:
        if strict:
            raise
        log.exception("computer move failed in game %s", g.id)
    return g


async def computers_after(k: Kernel, game_id: int, g: LiveGame) -> LiveGame:
    """After a committed change outside the game's lock: play the computers it led to (a
    thinking one is only queued: no lock, no wait)."""
    seat = computer_to_move(g)
    if seat is None:
        return g
    if thinks(mover_level(g, seat)):
        turn_queue(k).push(game_id)
        return g
    async with k.lock(game_id):
        return await run_computers(k, await k.load(game_id))


async def play_queued(k: Kernel, game_id: int) -> bool:
    """One queued computer turn of ``game_id`` (the queue's ``play``): think without the
    game's lock (the game's people are not held up meanwhile), then store the move under it
    if the game still waits for that seat at that ply. Returns whether to look at the game
    again (it changed while the computer thought); a computer turn that follows is queued
    again by :func:`run_computers`."""
    try:
        g = await k.load(game_id)
    except ManagerError:
        k.overdue.pop(game_id, None)
        return False  # the game is gone
    seat = _due(k, g)
    if seat is None:
        return False
    level = _level(k, g, seat)
    assert g.state is not None and level is not None
    if not thinks(level):  # queued before the seat changed hands: no thinking needed
        async with k.lock(game_id):
            await run_computers(k, await k.load(game_id))
        return False
    move = await choose(k, g.state, seat, level)
    async with k.lock(game_id):
        now = await k.load(game_id)
        # The move still fits if the game waits for the same seat at the same ply (in the
        # goal draft, where choices are simultaneous, a person's choice meanwhile is fine).
        same_turn = now.ply == g.ply or now.status is GameStatus.DRAFT
        if _due(k, now) != seat or not same_turn or _level(k, now, seat) != level:
            return _due(k, now) is not None
        try:
            now, _ = await apply_move(k, now, seat, move, _by(now, seat))
            k.overdue.pop(game_id, None)
        except StaleError:
            # Another process stored a move first (its sweep, after the grace): nothing of
            # this one was written; look at the stored game again.
            await k.reload(game_id)
            return True
        await run_computers(k, now)
    return False


# ---------------------------------------------------------------------- seats and ends


async def convert(k: Kernel, g: LiveGame, seat: int, reason: str) -> LiveGame:
    """Turn a person's seat into a computer player (the game ends if nobody is left)."""
    tx = await k.begin(g)
    level = g.options.ai_level
    tx.set_seat(seat, ai_level=level, left=True)
    tx.activity = reason != "timeout"
    tx.thread(notices.SeatChanged(seat=seat, reason=reason, level=level))
    people = tx.g.people
    if not people:
        tx.set(status=GameStatus.ABANDONED, end_reason="everyone_left", deadline_at=None)
        tx.thread(notices.Ended(reason="everyone_left"))
        return await k.commit(tx)
    if g.host_id == g.seats[seat].user_id and people[0].user_id is not None:
        tx.set(host_id=people[0].user_id)
    if not tx.g.clocked:
        # One person left: their clock stops (see LiveGame.clocked).
        tx.clear_turn_timers = True
        tx.set(deadline_at=None)
    for i, row in enumerate(tx.g.seats):
        if row.ai_level is not None and g.must_act(i):
            # Due after the grace: played right after this commit, or by the sweep.
            tx.upsert_timers.append(k.turn_timer(g.id, i, tx.now, g.options.turn_hours, True))
    if g.status is GameStatus.PLAY and g.must_act(seat):
        tx.set(deadline_at=None)
    return await k.commit(tx)


async def play_out(k: Kernel, g: LiveGame) -> LiveGame:
    """A deadline the whole game had to meet passed (a tournament round's): from now on the
    computer plays every seat that must act (a person's on autopilot, at the game's level)
    until the game ends. Only the mark is stored here (one commit, with computer turn timers
    in case this process dies) and the game queued: the moves are the computers' queue's
    (:mod:`bot.core.thinking`), never the caller's. Marking a game again queues it again."""
    if not g.flags & FLAG_PLAY_OUT:
        tx = await k.begin(g)
        tx.set(flags=g.flags | FLAG_PLAY_OUT, deadline_at=None)
        tx.clear_turn_timers = True
        for i in range(len(g.seats)):
            if g.must_act(i):
                tx.upsert_timers.append(k.turn_timer(g.id, i, tx.now, g.options.turn_hours,
                                                     True))
        g = await k.commit(tx)
    if computer_to_move(g) is not None:
        turn_queue(k).push(g.id)
    return g


async def end(k: Kernel, g: LiveGame, status: GameStatus, reason: str, *,
              notify: bool = True) -> LiveGame:
    """End a game early (cancelled, abandoned, idle...)."""
    tx = await k.begin(g)
    was_lobby = g.status is GameStatus.LOBBY
    tx.set(status=status, end_reason=reason, deadline_at=None)
    if notify:
        if was_lobby:
            tx.thread(notices.Lobby())
        tx.thread(notices.Ended(reason=reason))
    else:
        # The place to post is gone: drop what was still queued for this game.
        tx.skip_pending = True
    return await k.commit(tx)
