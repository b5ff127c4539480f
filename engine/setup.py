"""Setting up a game: resolve options with the catalogue and a seed into the first state."""

from __future__ import annotations

from dataclasses import replace

from data import Catalog
from engine.bag import draw
from engine.config import (
    CatRule,
    GameConfig,
    GameOptions,
    GoalRule,
    Restriction,
    ScenarioRule,
    Setup,
)
from engine.errors import BadOptionsError
from engine.hexgrid import CELLS, cell_of
from engine.rng import below, seed_state, shuffled
from engine.state import SCHEMA_VERSION, GameState, Phase, SeatState
from engine.tiles import EMPTY, GOAL, KINDS, tile


def _pick_cats(catalog: Catalog, options: GameOptions, rng: int) -> tuple[int, list[str]]:
    """The three cats in play. Scenarios and the beginner setup name them; players may choose
    them; otherwise one cat scoring tile is drawn from each dot group and one of its two sides
    (the rulebook's standard setup), so a game never holds both sides of one tile."""
    if options.scenario is not None:
        return rng, list(catalog.scenarios[options.scenario].cats)
    if options.cats is not None:
        if len(set(options.cats)) != 3 or any(c not in catalog.cats for c in options.cats):
            raise BadOptionsError("choose three different cats from the catalogue")
        pair = catalog.same_tile(list(options.cats))
        if pair is not None:
            raise BadOptionsError(f"{pair[0]} and {pair[1]} are the two sides of one cat "
                                  "scoring tile: choose at most one of them")
        return rng, list(options.cats)
    if options.setup is Setup.BEGINNER:
        return rng, list(catalog.beginner_cats)
    chosen = []
    for dots in (1, 2, 3):
        # Each tile's sides in name order, the tiles in the order of their sides: one draw
        # over the 2n (tile, side) pairs is a uniform tile and an independent uniform side,
        # and it reads the generator exactly as the draw of one of the group's cats by name
        # did before tiles were data, so games stored before this change replay unchanged.
        tiles = sorted(tuple(sorted(t.sides)) for t in catalog.cat_tiles
                       if catalog.cats[t.sides[0]].dots == dots)
        rng, i = below(rng, 2 * len(tiles))
        chosen.append(tiles[i // 2][i % 2])
    return rng, chosen


def _check(catalog: Catalog, options: GameOptions) -> None:
    if options.lower_variance and options.players > 2:
        raise BadOptionsError("the lower-variance variant is for one or two players")
    if options.scenario is not None:
        if options.scenario not in catalog.scenarios:
            raise BadOptionsError(f"no scenario {options.scenario}")
        if options.family:
            raise BadOptionsError("scenarios need design goals, so not the family variant")
    if options.boards is not None:
        if len(options.boards) != options.players or len(set(options.boards)) != options.players:
            raise BadOptionsError("one different board per player")
        if any(b not in catalog.boards for b in options.boards):
            raise BadOptionsError("unknown board")
    if options.first_seat is not None and not 0 <= options.first_seat < options.players:
        raise BadOptionsError("first seat out of range")


def new_game(catalog: Catalog, options: GameOptions, seed: int) -> GameState:
    """The state after setup. Everything random comes from ``seed``."""
    _check(catalog, options)
    rng = seed_state(seed)
    colors = catalog.color_ids
    patterns = catalog.pattern_ids

    rng, cat_ids = _pick_cats(catalog, options, rng)
    rng, order = shuffled(rng, list(range(len(patterns))))
    cats = []
    for i, cid in enumerate(cat_ids):
        cd = catalog.cats[cid]
        cats.append(CatRule(cd.id, cd.points, cd.min_size or 0, tuple(cd.shape or ()),
                            (order[2 * i], order[2 * i + 1])))

    if options.boards is not None:
        boards = list(options.boards)
    else:
        rng, all_boards = shuffled(rng, sorted(catalog.boards))
        boards = all_boards[: options.players]

    scenario = None
    if options.scenario is not None:
        sd = catalog.scenarios[options.scenario]
        n = sd.needs
        scenario = ScenarioRule(sd.number, sd.min_score, n.goals_met, n.goals_both, n.rainbow,
                                n.cat_tokens, n.each_cat, n.same_cat, n.buttons_one_color)

    spots = tuple(cell_of(r, c) for r, c in catalog.goal_spots)
    copies = catalog.lower_variance_copies if options.lower_variance else catalog.copies
    config = GameConfig(
        players=options.players,
        setup=options.setup,
        family=options.family,
        lower_variance=options.lower_variance,
        restriction=options.restriction,
        colors=colors,
        patterns=patterns,
        cats=(cats[0], cats[1], cats[2]),
        goals=tuple(GoalRule(g.id, tuple(sorted(g.counts, reverse=True)), g.one_way, g.both_ways)
                    for g in catalog.goals.values()),
        goal_spots=(spots[0], spots[1], spots[2]),
        boards=tuple(boards),
        scenario=scenario,
        bag_size=copies * KINDS,
    )

    goal_ids = sorted(catalog.goals)
    bag = tuple([copies] * KINDS)
    seats: list[SeatState] = []
    for b in boards:
        quilt = [EMPTY] * CELLS
        for (r, c), patch in catalog.boards[b].border.items():
            quilt[cell_of(r, c)] = tile(colors.index(patch.color), patterns.index(patch.pattern))
        for spot in spots:
            quilt[spot] = GOAL
        goals: tuple[str, str, str] | None = None
        offer: tuple[str, ...] = ()
        if options.family:
            pass
        elif scenario is not None:
            offer = catalog.scenarios[scenario.number].goals
        elif options.setup is Setup.BEGINNER:
            bg = catalog.beginner_goals
            goals = (bg[0], bg[1], bg[2])
        else:
            rng, dealt = shuffled(rng, goal_ids)
            offer = tuple(dealt[:4])
        seats.append(SeatState(b, tuple(quilt), goals, offer, (), (), (), (), None, 0, 0))

    if options.restriction is not Restriction.NO_HAND:
        for i, seat in enumerate(seats):
            hand = []
            for _ in range(2):
                bag, rng, t = draw(bag, rng)
                assert t is not None
                hand.append(t)
            seats[i] = replace(seat, hand=tuple(hand))
    market: list[int | None] = []
    for _ in range(3):
        bag, rng, t = draw(bag, rng)
        market.append(t)

    if options.first_seat is not None:
        first = options.first_seat
    else:
        rng, first = below(rng, options.players)

    drafting = any(s.goal_offer for s in seats)
    return GameState(
        schema=SCHEMA_VERSION,
        config=config,
        seed=seed,
        rng=rng,
        phase=Phase.DRAFT if drafting else Phase.PLAY,
        seats=tuple(seats),
        market=tuple(market),
        bag=bag,
        discards=(),
        first_seat=first,
        turn=0,
        ply=0,
    )

