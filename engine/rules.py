"""The rules: which moves are legal, and what a move does.

``legal_moves`` is the single source of legality for the bot's buttons, the validator and the
computer players; ``apply`` checks a move in a fixed order (phase, seat, turn, cell, tiles,
restriction), raising a typed :class:`~engine.errors.EngineError`, and returns the new state with
the events it caused. Nothing here mutates its input.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations

from engine import errors
from engine.bag import draw
from engine.config import GameConfig, Restriction
from engine.events import (
    ButtonSewn,
    CatAttracted,
    Event,
    GameOver,
    GameStarted,
    GoalsChosen,
    GoalScored,
    MarketDiscarded,
    MarketRefilled,
    MarketSlid,
    RainbowSewn,
    ScenarioResult,
    TilePlaced,
    TileTaken,
    TurnPassed,
)
from engine.hexgrid import INNER, NEIGHBOUR_MASK, NEIGHBOURS, cell_name
from engine.moves import ChooseGoals, Move, PlaceTile
from engine.scoring import breakdown, rank, scenario_conditions
from engine.state import TURNS_PER_PLAYER, GameState, Phase, SeatState
from engine.tiles import EMPTY
from engine.tokens import cells_of, earn

_INNER_SET = frozenset(INNER)


# --------------------------------------------------------------------------- legality


def _sources(state: GameState, seat: SeatState) -> list[tuple[int, int]]:
    """(source index, tile) the player may place: hand positions, or market slots (no hand)."""
    if state.config.no_hand:
        return [(i, t) for i, t in enumerate(state.market) if t is not None]
    return list(enumerate(seat.hand))


def _restriction_ok(config: GameConfig, seat: SeatState, tile: int, cell: int) -> bool:
    r = config.restriction
    if r is Restriction.ADJACENT:
        return bool(NEIGHBOUR_MASK[cell] & seat.placed_mask)
    if r is Restriction.SAME_COLOR:
        return any(seat.quilt[n] >= 0 and seat.quilt[n] // 6 == tile // 6 for n in NEIGHBOURS[cell])
    if r is Restriction.SAME_PATTERN:
        return any(seat.quilt[n] >= 0 and seat.quilt[n] % 6 == tile % 6 for n in NEIGHBOURS[cell])
    return True


def placements(state: GameState, seat_index: int) -> list[tuple[int, int]]:
    """Legal (source, cell) pairs for the seat's next placement.

    Ruling for the adjacency, same-colour and same-pattern restrictions: the first tile may go
    anywhere, and when no pair satisfies the restriction, any empty cell is allowed.
    """
    seat = state.seats[seat_index]
    empty = [c for c in INNER if seat.quilt[c] == EMPTY]
    pairs = [(i, c) for i, _ in _sources(state, seat) for c in empty]
    r = state.config.restriction
    if r in (Restriction.ADJACENT, Restriction.SAME_COLOR, Restriction.SAME_PATTERN) and (
        r is not Restriction.ADJACENT or seat.placed
    ):
        sources = dict(_sources(state, seat))
        ok = [(i, c) for i, c in pairs if _restriction_ok(state.config, seat, sources[i], c)]
        if ok:
            return ok
    return pairs


def _is_last_turn(seat: SeatState) -> bool:
    return len(seat.placed) == TURNS_PER_PLAYER - 1


def legal_moves(state: GameState, seat: int | None = None) -> list[Move]:
    """Every legal move (for ``seat`` only, when given)."""
    if state.phase is Phase.OVER:
        return []
    if state.phase is Phase.DRAFT:
        out: list[Move] = []
        for i, s in enumerate(state.seats):
            if s.goal_offer and (seat is None or seat == i):
                out.extend(ChooseGoals(i, (a, b, c)) for a, b, c in permutations(s.goal_offer, 3))
        return out
    current = state.current_seat
    assert current is not None
    if seat is not None and seat != current:
        return []
    pairs = placements(state, current)
    if state.config.no_hand:
        return [PlaceTile(current, c, None, i) for i, c in pairs]
    if _is_last_turn(state.seats[current]):
        return [PlaceTile(current, c, i, None) for i, c in pairs]
    slots = [k for k, t in enumerate(state.market) if t is not None]
    return [PlaceTile(current, c, i, k) for i, c in pairs for k in slots]


# --------------------------------------------------------------------------- checks


def _check_turn(state: GameState, move: PlaceTile) -> None:
    if state.phase is Phase.OVER:
        raise errors.GameOverError("the game is over")
    if not 0 <= move.seat < state.config.players:
        raise errors.NoSuchSeatError(f"no seat {move.seat}")
    if state.phase is not Phase.PLAY:
        raise errors.WrongPhaseError("goal tiles are still being chosen")
    if move.seat != state.current_seat:
        raise errors.NotYourTurnError(f"it is seat {state.current_seat}'s turn")
    seat = state.seats[move.seat]
    if move.cell not in _INNER_SET:
        raise errors.NoSuchCellError("cells are A1 to E5")
    if seat.quilt[move.cell] != EMPTY:
        if move.cell in state.config.goal_spots:
            raise errors.GoalSpotError(f"{cell_name(move.cell)} holds a design goal")
        raise errors.CellTakenError(f"{cell_name(move.cell)} already has a tile")
    last = _is_last_turn(seat)
    if state.config.no_hand:
        if move.hand is not None:
            raise errors.NoSuchHandTileError("this game is played without a hand")
        if move.market is None or not 0 <= move.market < 3 or state.market[move.market] is None:
            raise errors.NoSuchMarketSlotError("pick one of the market tiles")
        source = move.market
    else:
        if move.hand is None or not 0 <= move.hand < len(seat.hand):
            raise errors.NoSuchHandTileError("pick one of the tiles in your hand")
        if last and move.market is not None:
            raise errors.MarketPickError("your 22nd turn ends with the placement")
        if not last:
            if move.market is None:
                raise errors.MarketPickError("take a tile from the market")
            if not 0 <= move.market < 3 or state.market[move.market] is None:
                raise errors.NoSuchMarketSlotError("no tile in that market slot")
        source = move.hand
    if state.config.restriction in (
        Restriction.ADJACENT, Restriction.SAME_COLOR, Restriction.SAME_PATTERN
    ) and (source, move.cell) not in placements(state, move.seat):
        raise errors.RestrictionError(f"the {state.config.restriction} restriction forbids that")


def _check_goals(state: GameState, move: ChooseGoals) -> None:
    if state.phase is Phase.OVER:
        raise errors.GameOverError("the game is over")
    if not 0 <= move.seat < state.config.players:
        raise errors.NoSuchSeatError(f"no seat {move.seat}")
    if state.phase is not Phase.DRAFT or not state.seats[move.seat].goal_offer:
        raise errors.WrongPhaseError("goal tiles are already chosen")
    offer = state.seats[move.seat].goal_offer
    if len(set(move.goals)) != 3 or any(g not in offer for g in move.goals):
        raise errors.BadGoalsError("choose three different goal tiles from the ones offered")


# --------------------------------------------------------------------------- effects


def place_tile(
    config: GameConfig, seat_index: int, seat: SeatState, cell: int, tile: int, from_market: bool
) -> tuple[SeatState, list[Event]]:
    """Put ``tile`` on ``cell`` and take whatever tokens that earns (no market, no hand change)."""
    quilt = seat.quilt[:cell] + (tile,) + seat.quilt[cell + 1 :]
    got = earn(config, quilt, cell, seat.button_mask, seat.cat_mask,
               frozenset(c for _, c in seat.buttons), seat.rainbow is not None)
    name = cell_name(cell)
    events: list[Event] = [TilePlaced(seat_index, name, config.colors[tile // 6],
                                      config.patterns[tile % 6], from_market, len(seat.placed) + 1)]
    buttons, button_mask = seat.buttons, seat.button_mask
    cats, cat_mask, rainbow = seat.cats, seat.cat_mask, seat.rainbow
    if got.button is not None:
        color, g = got.button
        buttons += ((cell, color),)
        button_mask |= 1 << cell
        events.append(ButtonSewn(seat_index, config.colors[color], name,
                                 tuple(_names(g))))
    if got.cat is not None:
        ci, pattern, g = got.cat
        cats += ((cell, ci),)
        cat_mask |= 1 << cell
        cat = config.cats[ci]
        events.append(CatAttracted(seat_index, cat.id, config.patterns[pattern], name,
                                   tuple(_names(g)), cat.points))
    if got.rainbow:
        rainbow = cell
        events.append(RainbowSewn(seat_index, name))
    new = replace(seat, quilt=quilt, placed=(*seat.placed, cell), buttons=buttons,
                  button_mask=button_mask, cats=cats, cat_mask=cat_mask, rainbow=rainbow)
    return new, events


def _names(mask: int) -> list[str]:
    return [cell_name(c) if c in _INNER_SET else f"border:{c}" for c in cells_of(mask)]


def _take_and_refill(
    state: GameState, seat_index: int, slot: int, bag: tuple[int, ...], rng: int
) -> tuple[tuple[int | None, ...], tuple[int, ...], int, tuple[int, ...], list[Event]]:
    """Remove market ``slot`` and refill: ``(market, bag, rng, discards, events)``."""
    cfg = state.config
    market = list(state.market)
    discards = state.discards
    events: list[Event] = []
    market[slot] = None
    if cfg.solo:
        # Conveyor: drop the tile furthest from the bag (slot 0 side), slide the other one to
        # the far end, and refill one slot at a time toward the bag.
        rest = [i for i in range(3) if i != slot]
        far, near = rest
        gone = market[far]
        if gone is not None:
            discards = (*discards, gone)
            events.append(MarketDiscarded(far, cfg.colors[gone // 6], cfg.patterns[gone % 6]))
        kept = market[near]
        if near != 0:
            events.append(MarketSlid(near, 0))
        market = [kept, None, None]
        refill = [1, 2]
    else:
        refill = [slot]
    for k in refill:
        bag, rng, t = draw(bag, rng)
        market[k] = t
        events.append(MarketRefilled(k, None if t is None else cfg.colors[t // 6],
                                     None if t is None else cfg.patterns[t % 6]))
    return tuple(market), bag, rng, discards, events


def _finish(state: GameState) -> tuple[GameState, list[Event]]:
    cfg = state.config
    events: list[Event] = []
    scores = [breakdown(cfg, s) for s in state.seats]
    for i, sc in enumerate(scores):
        for g in sc["goals"]:
            if g["goal"] is not None:
                events.append(GoalScored(i, g["spot"], g["goal"], g["colors"], g["patterns"],
                                         g["points"]))
        if cfg.scenario is not None:
            conds = scenario_conditions(cfg, state.seats[i], sc)
            events.append(ScenarioResult(i, cfg.scenario.number, all(c[3] for c in conds),
                                         tuple(conds)))
    places, winners, decided = rank(scores)
    events.append(GameOver(tuple(s["total"] for s in scores), places, winners, decided,
                           tuple(scores)))
    return replace(state, phase=Phase.OVER), events


def _apply_turn(state: GameState, move: PlaceTile) -> tuple[GameState, list[Event]]:
    cfg = state.config
    seat = state.seats[move.seat]
    bag, rng, discards, market = state.bag, state.rng, state.discards, state.market
    events: list[Event] = []
    if cfg.no_hand:
        assert move.market is not None
        tile = market[move.market]
        assert tile is not None
        seat, placed = place_tile(cfg, move.seat, seat, move.cell, tile, True)
        events += placed
        market, bag, rng, discards, refill = _take_and_refill(state, move.seat, move.market,
                                                              bag, rng)
        events += refill
    else:
        assert move.hand is not None
        tile = seat.hand[move.hand]
        hand = seat.hand[: move.hand] + seat.hand[move.hand + 1 :]
        seat, placed = place_tile(cfg, move.seat, seat, move.cell, tile, False)
        events += placed
        if move.market is not None:
            taken = market[move.market]
            assert taken is not None
            hand += (taken,)
            events.append(TileTaken(move.seat, move.market, cfg.colors[taken // 6],
                                    cfg.patterns[taken % 6]))
            market, bag, rng, discards, refill = _take_and_refill(state, move.seat, move.market,
                                                                  bag, rng)
            events += refill
        seat = replace(seat, hand=hand)
    seats = state.seats[: move.seat] + (seat,) + state.seats[move.seat + 1 :]
    new = replace(state, seats=seats, market=market, bag=bag, rng=rng, discards=discards,
                  turn=state.turn + 1, ply=state.ply + 1)
    if all(s.full for s in seats):
        new, end = _finish(new)
        return new, events + end
    nxt = new.current_seat
    assert nxt is not None
    events.append(TurnPassed(nxt, new.turn))
    return new, events


def _apply_goals(state: GameState, move: ChooseGoals) -> tuple[GameState, list[Event]]:
    seat = replace(state.seats[move.seat], goals=move.goals, goal_offer=())
    seats = state.seats[: move.seat] + (seat,) + state.seats[move.seat + 1 :]
    events: list[Event] = [GoalsChosen(move.seat, move.goals)]
    phase = state.phase
    if not any(s.goal_offer for s in seats):
        phase = Phase.PLAY
        events += [GameStarted(state.first_seat), TurnPassed(state.first_seat, 0)]
    return replace(state, seats=seats, phase=phase, ply=state.ply + 1), events


def apply(state: GameState, move: Move) -> tuple[GameState, list[Event]]:
    """Check ``move`` and play it: ``(new state, events)``. Raises EngineError if illegal."""
    if isinstance(move, PlaceTile):
        _check_turn(state, move)
        return _apply_turn(state, move)
    _check_goals(state, move)
    return _apply_goals(state, move)


def preview(state: GameState, seat_index: int, source: int, cell: int) -> list[Event]:
    """What placing hand tile (or, without a hand, market tile) ``source`` on ``cell`` would earn,
    without taking from the market. Raises EngineError if the placement is illegal."""
    seat = state.seats[seat_index]
    if (source, cell) not in placements(state, seat_index) or state.current_seat != seat_index:
        move = PlaceTile(seat_index, cell, None if state.config.no_hand else source,
                         source if state.config.no_hand else
                         (None if _is_last_turn(seat) else _first_slot(state)))
        _check_turn(state, move)
    tile = state.market[source] if state.config.no_hand else seat.hand[source]
    assert tile is not None
    _, events = place_tile(state.config, seat_index, seat, cell, tile, state.config.no_hand)
    return events


def _first_slot(state: GameState) -> int | None:
    return next((k for k, t in enumerate(state.market) if t is not None), None)
