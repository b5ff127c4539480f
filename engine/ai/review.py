"""Game review: how many points each decision of one seat cost, against the engine's choice.

This module owns the review of one seat of a game (issue #13): pure, deterministic for a given
``seed``, and fair by construction, because everything it computes comes from the seat's
:class:`~engine.views.PrivateView` at each of its decisions (:class:`Decision`), never from a
game state. Start from a game record (:func:`review_record`), from the states of a game
(:func:`decisions_from_states`) or from decisions you built (:func:`review`).

For every turn of the seat (a :class:`TurnReview`):

- **played**: the move the seat made; **engine**: the engine's choice between the move the
  ``strong`` computer player makes from the same private view (:func:`engine_move`; its seed
  is derived from the review seed and the ply, never from the game's seed) and the move played:
  whichever of the two has the higher expected final score on the turn's sampled futures (the
  strong player's, on a tie). When the seat's move does better there, the engine prefers it:
  the turn reads as the engine's move and loses nothing, and the engine's line never dips
  below the player's;
- **ev_played / ev_engine**: the seat's expected final score after each move: the mean, over
  ``samples`` sampled futures of the tiles the seat cannot see, of the seat's game played on by
  the rollout policy of :mod:`engine.ai.rollout` for ``depth`` turns and then valued by its leaf
  estimate (late in the game, to the end and scored exactly). Both moves see the same futures
  (common random numbers), so their difference is the moves', not the luck's. A move identical
  to the engine's is not played out twice: its loss is exactly 0;
- **ev_random**: the same for a uniformly random legal move (a new one in each future): the
  baseline that says how much was at stake on that turn;
- **loss** = max(0, ev_engine − ev_played), in points; **se**: the standard error of
  ev_engine − ev_played from the per-future differences (how far to trust the loss).

**Accuracy** (0-100, :func:`accuracy`): the share of the engine's expected gain over a random
move that the player's moves kept, over the whole game::

    stake_t = max(0, ev_engine_t − ev_random_t)
    kept_t  = min(stake_t, ev_played_t − ev_random_t)       (0 when stake_t = 0)
    accuracy = clamp(100 × Σ kept_t / Σ stake_t, 0, 100)    (100 when Σ stake_t = 0)

Copying the engine keeps every stake: exactly 100. A move better than the engine's keeps the
whole stake, no more; a move worse than a random one counts against the total, so uniformly
random play lands near 0 (measured: 0-11 on three games, against 24-56 for the ``easy``
computer player, 73-96 for ``normal`` and 99-100 for ``strong`` with another seed).

**Mistakes**: the (up to) three costliest turns whose loss is at least :data:`MISTAKE_MIN_LOSS`
points and twice its standard error (so that noise is not called a mistake), each with
structured reasons (:class:`Reason`): which cat,
button colour, rainbow or design goal the engine's line scored more of, by how many expected
points, and whether the engine's placement earned it at once or kept it open. The bot phrases
them in each language; nothing here is English prose.

**Goal draft** (:class:`DraftReview`): when the seat chose its goal tiles, the chosen
arrangement against the engine's, each valued by playouts from the draft view (the seat's first
``depth`` turns, then the leaf estimate) on the same futures (the engine's arrangement is the
better of the strong player's and the chosen one there, as for the turns). It is reported
beside the turns and not counted in the accuracy (a different kind of choice, made once).

Everything returned is a frozen dataclass that round-trips through plain JSON
(:meth:`Review.to_json` / :meth:`Review.from_json`). Inputs (records, decisions, views) are
picklable, so a review can run in a worker process.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from data import Catalog, load_catalog
from engine.ai.base import make_player
from engine.ai.model import Quilt
from engine.ai.rollout import (
    CAT_PARTS,
    DEFAULT_DEPTH,
    GOAL_PART,
    PARTS,
    RAINBOW_PART,
    Future,
    SeatSim,
    derive_seed,
    mean_outcome,
)
from engine.ai.why import sharpen
from engine.config import GameConfig, GameOptions
from engine.hexgrid import cell_name, parse_cell
from engine.moves import ChooseGoals, Move, PlaceTile, parse_move
from engine.rules import apply, legal_moves, place_tile
from engine.scoring import breakdown, goal_result
from engine.setup import new_game
from engine.state import SCHEMA_VERSION, GameState, SeatState
from engine.tiles import KINDS
from engine.views import PrivateView, SeatView, private_view

REVIEW_VERSION = 1
ENGINE_LEVEL = "strong"
DEFAULT_SAMPLES = 12  # futures per turn: a 22-turn review in 6-8 s of one core
MISTAKE_MIN_LOSS = 2.0  # points: smaller differences are often the estimates' noise
MISTAKE_MIN_Z = 2.0  # and the loss must be this many standard errors
MAX_MISTAKES = 3
REASON_MIN_POINTS = 0.5  # a part must differ by this much to be named as a reason
MAX_REASONS = 2
ROUND = 2  # decimals kept in results (so that a JSON round trip is exact)

# What each derived seed is for (mixed with the review seed, the ply and the seat).
_ENGINE, _FUTURES, _RANDOM = 1, 2, 3


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the reviewed seat: its private view before it, and what it played."""

    view: PrivateView
    move: Move


def decisions_from_states(states: Sequence[GameState], moves: Sequence[Move], seat: int
                          ) -> list[Decision]:
    """The seat's decisions in a game given as ``states[i]``, the state before ``moves[i]``.

    Only the seat's private view of each state is kept: what the review sees."""
    return [Decision(private_view(s, seat), m) for s, m in zip(states, moves, strict=True)
            if m.seat == seat]


def states_from_record(record: dict[str, Any], catalog: Catalog | None = None,
                       options: GameOptions | None = None
                       ) -> tuple[list[GameState], list[Move]]:
    """Replay a game record (``engine.serialize.game_record``): the state before each move,
    and the moves. ``options``: the record's options already read (else read from it)."""
    cat = catalog if catalog is not None else load_catalog()
    if options is None:
        options = GameOptions.model_validate(record["options"])
    state = new_game(cat, options, record["seed"])
    states: list[GameState] = []
    moves: list[Move] = []
    for m in record["moves"]:
        move = parse_move(m["seat"], m["move"])
        states.append(state)
        moves.append(move)
        state, _ = apply(state, move)
    return states, moves


def decisions_from_record(record: dict[str, Any], seat: int, catalog: Catalog | None = None
                          ) -> list[Decision]:
    """The seat's decisions in a game record (``engine.serialize.game_record``)."""
    return decisions_from_states(*states_from_record(record, catalog), seat)


def view_state(view: PrivateView) -> GameState:
    """A stand-in game state holding only what ``view`` shows (no bag, no generator, no other
    hands): enough for :func:`engine.rules.legal_moves` of the viewing seat, which depends on
    nothing hidden."""
    pub = view.public
    seats = []
    for i, sv in enumerate(pub.seats):
        mine = i == view.seat
        seats.append(SeatState(
            sv.board, sv.quilt, sv.goals, view.goal_offer if mine else (),
            view.hand if mine else (), sv.placed, sv.buttons, sv.cats, sv.rainbow,
            _mask(c for c, _ in sv.buttons), _mask(c for c, _ in sv.cats)))
    return GameState(SCHEMA_VERSION, pub.config, 0, 0, pub.phase, tuple(seats), pub.market,
                     (0,) * KINDS, pub.discards, pub.first_seat, pub.turn, pub.ply)


def legal_from_view(view: PrivateView) -> list[Move]:
    """The viewing seat's legal moves, from its view alone."""
    return legal_moves(view_state(view), view.seat)


def _mask(cells: Iterable[int]) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


def engine_move(view: PrivateView, legal: Sequence[Move] | None = None, *, seed: int = 0,
                level: str = ENGINE_LEVEL) -> Move:
    """The engine's move for the seat of ``view``: a ``level`` computer player seeded from
    ``seed``, the ply and the seat (so the review and the hints agree on it)."""
    moves = list(legal) if legal is not None else legal_from_view(view)
    player = make_player(level, derive_seed(seed, view.public.ply, view.seat, _ENGINE))
    return player.choose(view, moves)


def futures_seed(view: PrivateView, seed: int) -> int:
    """The seed of the futures sampled at this decision (the review and the hints share it,
    so they value the engine's move alike)."""
    return derive_seed(seed, view.public.ply, view.seat, _FUTURES)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Placement:
    """A turn as the review shows it."""

    move: str  # the move's notation (engine.moves), e.g. "h0@C3>m2"
    cell: str  # where the tile went, "A1".."E5"
    tile: int  # the tile placed (colour * 6 + pattern)
    pick: int | None  # the market tile taken into the hand; None when none was

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "cell": self.cell, "tile": self.tile, "pick": self.pick}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Placement:
        return Placement(d["move"], d["cell"], d["tile"], d["pick"])


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn of the seat (see the module docstring for the values)."""

    turn: int  # the seat's turn, 1..22
    ply: int  # moves applied to the game before this one (GameState.ply)
    played: Placement
    engine: Placement
    differs: str | None  # None (same move), "placement", "pick" or "both"
    ev_played: float  # expected final score after the played move
    ev_engine: float  # ... after the engine's move
    ev_random: float  # ... after a random legal move
    loss: float  # max(0, ev_engine - ev_played)
    se: float  # standard error of ev_engine - ev_played (0 for the same move)

    @property
    def stake(self) -> float:
        """What the engine's move is worth over a random one (the accuracy's weight)."""
        return max(0.0, self.ev_engine - self.ev_random)

    @property
    def kept(self) -> float:
        """How much of the stake the played move kept (negative: worse than a random move)."""
        stake = self.stake
        return min(stake, self.ev_played - self.ev_random) if stake > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "ply": self.ply, "played": self.played.to_json(),
                "engine": self.engine.to_json(), "differs": self.differs,
                "ev_played": self.ev_played, "ev_engine": self.ev_engine,
                "ev_random": self.ev_random, "loss": self.loss, "se": self.se}

    @staticmethod
    def from_json(d: dict[str, Any]) -> TurnReview:
        return TurnReview(d["turn"], d["ply"], Placement.from_json(d["played"]),
                          Placement.from_json(d["engine"]), d["differs"], d["ev_played"],
                          d["ev_engine"], d["ev_random"], d["loss"], d["se"])


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a move cost points: one scoring part the engine's line got more of.

    ``kind`` and the fields that go with it:

    - ``"cat"``: ``cat`` (its id, e.g. ``"millie"``);
    - ``"button"``: ``color`` (its id, e.g. ``"purple"``);
    - ``"rainbow"``: nothing else;
    - ``"goal"``: ``goal`` (its id, e.g. ``"aa-bb-cc"``) and ``spot`` (``"B3"``, ``"C4"`` or
      ``"D2"``).

    ``how``: ``"earned"`` when the engine's placement scored it at once (a token, or a goal
    completed) and the player's did not; ``"closed"`` when the player's move made a design goal
    impossible; ``"cut_short"`` when the player's tile left a group next to it unable to grow
    to the cat's (or a button's) size (:mod:`engine.ai.why`); ``"kept_open"`` otherwise (it came
    later in the engine's line: the player's move made it less likely). ``points``: the
    expected points of that part in the engine's line minus the player's.
    """

    kind: str
    points: float
    how: str
    cat: str | None = None
    color: str | None = None
    goal: str | None = None
    spot: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "points": self.points, "how": self.how}
        for key in ("cat", "color", "goal", "spot"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v
        return out

    @staticmethod
    def from_json(d: dict[str, Any]) -> Reason:
        return Reason(d["kind"], d["points"], d["how"], d.get("cat"), d.get("color"),
                      d.get("goal"), d.get("spot"))


@dataclass(frozen=True, slots=True)
class Mistake:
    """One of the costliest turns."""

    turn: int
    ply: int
    loss: float
    differs: str  # "placement", "pick" or "both": which part of the move was not the engine's
    reasons: tuple[Reason, ...]  # most points first; may be empty when no part stands out

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "ply": self.ply, "loss": self.loss, "differs": self.differs,
                "reasons": [r.to_json() for r in self.reasons]}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Mistake:
        return Mistake(d["turn"], d["ply"], d["loss"], d["differs"],
                       tuple(Reason.from_json(r) for r in d["reasons"]))


@dataclass(frozen=True, slots=True)
class DraftReview:
    """The goal draft: arrangements are (B3, C4, D2) goal ids."""

    ply: int
    played: tuple[str, str, str]
    engine: tuple[str, str, str]
    ev_played: float  # expected final score of the whole game with the chosen goals
    ev_engine: float
    loss: float

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "played": list(self.played), "engine": list(self.engine),
                "ev_played": self.ev_played, "ev_engine": self.ev_engine, "loss": self.loss}

    @staticmethod
    def from_json(d: dict[str, Any]) -> DraftReview:
        p, e = d["played"], d["engine"]
        return DraftReview(d["ply"], (p[0], p[1], p[2]), (e[0], e[1], e[2]), d["ev_played"],
                           d["ev_engine"], d["loss"])


@dataclass(frozen=True, slots=True)
class Review:
    """The review of one seat's game."""

    version: int  # REVIEW_VERSION of the code that made it
    seat: int
    engine: str  # the computer player level the moves are compared with
    samples: int  # sampled futures per turn (and for the draft)
    depth: int | None  # turns played out before the leaf estimate; None: whole playouts
    seed: int  # the review's own seed (not the game's)
    turns: tuple[TurnReview, ...]
    draft: DraftReview | None
    accuracy: float  # 0-100, see the module docstring
    total_loss: float  # sum of the turns' losses
    mistakes: tuple[Mistake, ...]  # up to three, costliest first
    final_score: int | None  # the seat's actual final score, when the game reached it

    def chart(self) -> tuple[list[int], list[float], list[float]]:
        """(turns, the player's line, the engine's line): the expected final score after each
        turn with the player's move, and with the engine's move instead."""
        return ([t.turn for t in self.turns], [t.ev_played for t in self.turns],
                [t.ev_engine for t in self.turns])

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "seat": self.seat, "engine": self.engine,
                "samples": self.samples, "depth": self.depth, "seed": self.seed,
                "turns": [t.to_json() for t in self.turns],
                "draft": None if self.draft is None else self.draft.to_json(),
                "accuracy": self.accuracy, "total_loss": self.total_loss,
                "mistakes": [m.to_json() for m in self.mistakes],
                "final_score": self.final_score}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Review:
        if d.get("version") != REVIEW_VERSION:
            raise ValueError(f"unsupported review version {d.get('version')!r}")
        return Review(d["version"], d["seat"], d["engine"], d["samples"], d["depth"], d["seed"],
                      tuple(TurnReview.from_json(t) for t in d["turns"]),
                      None if d["draft"] is None else DraftReview.from_json(d["draft"]),
                      d["accuracy"], d["total_loss"],
                      tuple(Mistake.from_json(m) for m in d["mistakes"]), d["final_score"])


# --------------------------------------------------------------------------- the review


def review_record(record: dict[str, Any], seat: int, *, samples: int = DEFAULT_SAMPLES,
                  depth: int | None = DEFAULT_DEPTH, seed: int = 0, level: str = ENGINE_LEVEL,
                  catalog: Catalog | None = None) -> Review:
    """Review ``seat`` of the game in ``record`` (plain JSON: fine to send to a worker)."""
    return review(decisions_from_record(record, seat, catalog), samples=samples, depth=depth,
                  seed=seed, level=level)


def review(decisions: Sequence[Decision], *, samples: int = DEFAULT_SAMPLES,
           depth: int | None = DEFAULT_DEPTH, seed: int = 0, level: str = ENGINE_LEVEL
           ) -> Review:
    """Review one seat's decisions (all from the same seat, in game order).

    ``seed`` seeds the engine's players, the futures and the random baseline: any int you like
    except the game's own seed (pass e.g. 0 or the game's id). ``samples``: futures per turn;
    ``depth``: turns played out before the leaf estimate (None: whole playouts, see
    :mod:`engine.ai.rollout`).
    """
    if samples < 1:
        raise ValueError("samples must be at least 1")
    seats = {d.view.seat for d in decisions}
    if len(seats) > 1:
        raise ValueError("decisions of more than one seat")
    seat = seats.pop() if seats else 0
    turns: list[TurnReview] = []
    reasons: dict[int, tuple[Reason, ...]] = {}
    draft: DraftReview | None = None
    for d in decisions:
        if isinstance(d.move, ChooseGoals):
            draft = _review_draft(d.view, d.move, samples, depth, seed, level)
        else:
            row, why = _review_turn(d.view, d.move, samples, depth, seed, level)
            turns.append(row)
            reasons[row.ply] = why
    final = None
    if turns and turns[-1].turn == 22:
        final = round(turns[-1].ev_played)  # the 22nd placement fills the quilt: exact
    ranked = sorted((t for t in turns if is_mistake(t)), key=lambda t: (-t.loss, t.turn))
    ranked = ranked[:MAX_MISTAKES]
    mistakes = tuple(Mistake(t.turn, t.ply, t.loss, t.differs or "both", reasons[t.ply])
                     for t in ranked)
    return Review(REVIEW_VERSION, seat, level, samples, depth, seed, tuple(turns), draft,
                  accuracy(turns), round(sum(t.loss for t in turns), ROUND), mistakes, final)


def is_mistake(t: TurnReview) -> bool:
    """A turn that may be called a mistake: see :data:`MISTAKE_MIN_LOSS`."""
    return (t.differs is not None and t.loss >= MISTAKE_MIN_LOSS
            and t.loss >= MISTAKE_MIN_Z * t.se)


def accuracy(turns: Sequence[TurnReview]) -> float:
    """100 × Σ kept / Σ stake over the turns, within 0-100 (see the module docstring); 100
    when nothing was at stake."""
    stake = sum(t.stake for t in turns)
    if stake <= 0:
        return 100.0
    share = 100.0 * sum(t.kept for t in turns) / stake
    return round(min(100.0, max(0.0, share)), 1)


def _key(sim: SeatSim, move: PlaceTile) -> tuple[int, int, int | None, int | None]:
    """What decides a move's outcome: the cell, the tile placed, the tile picked and, in solo
    (where the conveyor keeps a slot's neighbour), the slot. Two moves with the same key are
    the same move (two copies of one tile in the hand or the market)."""
    pick = None
    if move.hand is not None and move.market is not None:
        pick = sim.market[move.market]
    slot = move.market if sim.solo else None
    return move.cell, sim.tile_of(move), pick, slot


def _placement(sim: SeatSim, move: PlaceTile) -> Placement:
    pick = sim.market[move.market] if move.hand is not None and move.market is not None \
        else None
    return Placement(move.text(), cell_name(move.cell), sim.tile_of(move), pick)


def _differs(a: Placement, b: Placement, same: bool) -> str | None:
    if same:
        return None
    placement = (a.cell, a.tile) != (b.cell, b.tile)
    pick = a.pick != b.pick
    if placement and pick:
        return "both"
    if placement:
        return "placement"
    # same tiles from another slot (solo): which tile the conveyor keeps differs, a pick matter
    return "pick"


def _review_turn(view: PrivateView, move: PlaceTile, samples: int, depth: int | None,
                 seed: int, level: str) -> tuple[TurnReview, tuple[Reason, ...]]:
    pub = view.public
    ply = pub.ply
    legal = legal_from_view(view)
    eng = engine_move(view, legal, seed=seed, level=level)
    assert isinstance(eng, PlaceTile)
    sim = SeatSim(view)
    futures = sim.sample_futures(samples, futures_seed(view, seed))
    rng = random.Random(derive_seed(seed, ply, view.seat, _RANDOM))
    eng_out = [sim.play_out(eng, f, depth) for f in futures]
    same = _key(sim, move) == _key(sim, eng)
    played_out = eng_out if same else [sim.play_out(move, f, depth) for f in futures]
    eng_mean, played_mean = mean_outcome(eng_out), mean_outcome(played_out)
    if played_mean[0] > eng_mean[0]:
        # On these very futures the seat's move does better: comparing the two, the engine
        # prefers it (its line is never below the move it would have played instead).
        eng, eng_out, eng_mean, same = move, played_out, played_mean, True
    # the baseline: a new random move in each future (its mean is a random move's value)
    random_moves = [rng.choice(legal) for _ in futures]
    rnd_total, _ = mean_outcome([sim.play_out(m, f, depth) for m, f in
                                 zip(random_moves, futures, strict=True)
                                 if isinstance(m, PlaceTile)])
    played, engine = _placement(sim, move), _placement(sim, eng)
    ev_p, ev_e = round(played_mean[0], ROUND), round(eng_mean[0], ROUND)
    se = 0.0 if same else _standard_error([e.total - p.total for e, p in
                                           zip(eng_out, played_out, strict=True)])
    row = TurnReview(len(pub.seats[view.seat].placed) + 1, ply, played, engine,
                     _differs(played, engine, same), ev_p, ev_e, round(rnd_total, ROUND),
                     round(max(0.0, ev_e - ev_p), ROUND), round(se, ROUND))
    why = () if same else _reasons(sim, sim.after(eng), sim.after(move), eng_mean[1],
                                   played_mean[1], move.cell)
    return row, why


def _standard_error(xs: Sequence[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    mean = sum(xs) / n
    return float((sum((x - mean) ** 2 for x in xs) / (n - 1) / n) ** 0.5)


def _reasons(sim: SeatSim, eng_q: Quilt, played_q: Quilt, eng_parts: tuple[float, ...],
             played_parts: tuple[float, ...], cell: int) -> tuple[Reason, ...]:
    """The scoring parts the engine's line got most more of (see :class:`Reason`), each
    sharpened by what the player's tile on ``cell`` did (:func:`engine.ai.why.sharpen`)."""
    cfg = sim.config
    out: list[Reason] = []
    for i in range(PARTS):
        diff = eng_parts[i] - played_parts[i]
        if diff < REASON_MIN_POINTS:
            continue
        pts = round(diff, ROUND)
        if i < CAT_PARTS:
            how = _how(eng_q.ccnt[i] > played_q.ccnt[i])
            out.append(Reason("cat", pts, how, cat=cfg.cats[i].id))
        elif i < RAINBOW_PART:
            c = i - CAT_PARTS
            how = _how(eng_q.bcnt[c] > played_q.bcnt[c])
            out.append(Reason("button", pts, how, color=cfg.colors[c]))
        elif i == RAINBOW_PART:
            out.append(Reason("rainbow", pts, _how(eng_q.rainbow and not played_q.rainbow)))
        elif sim.goals is not None:
            g = i - GOAL_PART
            spot = cfg.goal_spots[g]
            now_e = goal_result(cfg, tuple(eng_q.q), spot, sim.goals[g])[2]
            now_p = goal_result(cfg, tuple(played_q.q), spot, sim.goals[g])[2]
            out.append(Reason("goal", pts, _how(now_e > now_p), goal=sim.goals[g],
                              spot=cell_name(spot)))
    out.sort(key=lambda r: -r.points)
    return tuple(replace(r, how=sharpen(cfg, sim.goals, r.kind, r.how, played=played_q.q,
                                        engine=eng_q.q, cell=cell, index=_index(cfg, r)))
                 for r in out[:MAX_REASONS])


def _index(cfg: GameConfig, r: Reason) -> int:
    """The cat's, colour's or goal spot's index a reason is about (0 for the rainbow)."""
    if r.kind == "cat":
        return cfg.cat_index(r.cat or "")
    if r.kind == "button":
        return cfg.colors.index(r.color or "")
    if r.kind == "goal":
        return [cell_name(s) for s in cfg.goal_spots].index(r.spot or "")
    return 0


def _how(earned: bool) -> str:
    return "earned" if earned else "kept_open"


def _review_draft(view: PrivateView, move: ChooseGoals, samples: int, depth: int | None,
                  seed: int, level: str) -> DraftReview:
    eng = engine_move(view, seed=seed, level=level)
    assert isinstance(eng, ChooseGoals)
    base = SeatSim(view, goals=eng.goals)
    futures = base.sample_futures(samples, futures_seed(view, seed))
    ev_e = _draft_value(base, futures, depth)
    ev_p = ev_e if move.goals == eng.goals else _draft_value(
        SeatSim(view, goals=move.goals), futures, depth)
    engine_goals = eng.goals
    if ev_p > ev_e:  # the chosen arrangement does better on these futures: the engine's pick
        engine_goals, ev_e = move.goals, ev_p
    e, p = round(ev_e, ROUND), round(ev_p, ROUND)
    return DraftReview(view.public.ply, move.goals, engine_goals, p, e,
                       round(max(0.0, e - p), ROUND))


def _draft_value(sim: SeatSim, futures: Sequence[Future], depth: int | None) -> float:
    return mean_outcome([sim.play_from_start(f, depth) for f in futures])[0]


# --------------------------------------------------------------------------- pictures' data


def seat_after(view: PrivateView, placement: Placement) -> SeatView:
    """The seat's quilt (as a view) after ``placement``'s tile is placed, with the tokens it
    earned: what :func:`render.review.render_turn_compare` draws for each move."""
    sv = view.public.seats[view.seat]
    cfg: GameConfig = view.public.config
    seat = view_state(view).seats[view.seat]
    cell = parse_cell(placement.cell)
    new, _ = place_tile(cfg, view.seat, seat, cell, placement.tile, cfg.no_hand)
    return replace(sv, quilt=new.quilt, placed=new.placed, buttons=new.buttons, cats=new.cats,
                   rainbow=new.rainbow, score=breakdown(cfg, new))
