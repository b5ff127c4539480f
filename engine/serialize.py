"""The game state and game records as JSON (lossless round trip, schema version stored).

A game record is ``{"schema", "options", "seed", "moves"}``: with the catalogue it rebuilds the
identical state (python-chess's "everything from a record of moves").
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from data import Catalog
from engine.config import (
    STORED,
    CatRule,
    GameConfig,
    GameOptions,
    GoalRule,
    Restriction,
    ScenarioRule,
    Setup,
)
from engine.errors import BadRecordError
from engine.moves import Move, PlaceTile, parse_move
from engine.rules import apply
from engine.setup import new_game
from engine.state import SCHEMA_VERSION, GameState, Phase, SeatState
from engine.views import PublicView, public_view


def state_to_json(state: GameState) -> dict[str, Any]:
    data = asdict(state)
    data["phase"] = state.phase.value
    return data


def _tuples(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_tuples(x) for x in v)
    return v


def _config_from_json(d: dict[str, Any]) -> GameConfig:
    sc = d["scenario"]
    return GameConfig(
        players=d["players"],
        setup=Setup(d["setup"]),
        family=d["family"],
        lower_variance=d["lower_variance"],
        restriction=None if d["restriction"] is None else Restriction(d["restriction"]),
        colors=tuple(d["colors"]),
        patterns=tuple(d["patterns"]),
        cats=tuple(CatRule(c["id"], c["points"], c["min_size"], _tuples(c["shape"]),
                           tuple(c["patterns"])) for c in d["cats"]),  # type: ignore[arg-type]
        goals=tuple(GoalRule(g["id"], tuple(g["counts"]), g["one_way"], g["both_ways"])
                    for g in d["goals"]),
        goal_spots=tuple(d["goal_spots"]),
        boards=tuple(d["boards"]),
        scenario=None if sc is None else ScenarioRule(**sc),
        bag_size=d["bag_size"],
    )


def state_from_json(data: dict[str, Any]) -> GameState:
    if data.get("schema") != SCHEMA_VERSION:
        raise BadRecordError(f"unsupported state schema {data.get('schema')!r}")
    seats = tuple(
        SeatState(**{f.name: _tuples(s[f.name]) for f in fields(SeatState)}) for s in data["seats"]
    )
    return GameState(
        schema=data["schema"],
        config=_config_from_json(data["config"]),
        seed=data["seed"],
        rng=data["rng"],
        phase=Phase(data["phase"]),
        seats=seats,
        market=tuple(data["market"]),
        bag=tuple(data["bag"]),
        discards=tuple(data["discards"]),
        first_seat=data["first_seat"],
        turn=data["turn"],
        ply=data["ply"],
    )


def game_record(options: GameOptions, seed: int, moves: list[Move]) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "options": options.model_dump(mode="json"),
        "seed": seed,
        "moves": [{"seat": m.seat, "move": m.text()} for m in moves],
    }


def replay(catalog: Catalog, record: dict[str, Any]) -> GameState:
    """Rebuild a game from its record; EngineError if a move is illegal."""
    if record.get("schema") != SCHEMA_VERSION:
        raise BadRecordError(f"unsupported record schema {record.get('schema')!r}")
    # A record may predate a check on options (STORED): it still replays as it was played.
    options = GameOptions.model_validate(record["options"], context=STORED)
    state = new_game(catalog, options, record["seed"])
    for m in record["moves"]:
        state, _ = apply(state, parse_move(m["seat"], m["move"]))
    return state


def replay_views(catalog: Catalog, record: dict[str, Any]) -> list[PublicView]:
    """What everyone saw of a game, from its record: the public view when play starts (after
    setup and the goal draft: goals placed, quilts empty), then after every placement. A
    finished game gives ``1 + 22 * players`` views, the last one over. Nothing secret (bag,
    hands, seed) is in a view, so this is what a replay picture may be drawn from."""
    if record.get("schema") != SCHEMA_VERSION:
        raise BadRecordError(f"unsupported record schema {record.get('schema')!r}")
    options = GameOptions.model_validate(record["options"], context=STORED)
    state = new_game(catalog, options, record["seed"])
    views: list[PublicView] = []
    if state.phase is Phase.PLAY:
        views.append(public_view(state))
    for m in record["moves"]:
        move = parse_move(m["seat"], m["move"])
        state, _ = apply(state, move)
        if isinstance(move, PlaceTile) or (not views and state.phase is Phase.PLAY):
            views.append(public_view(state))
    return views
