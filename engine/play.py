"""Playing whole games between computer players (used by the CLI, the demo and benchmarks)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from data import Catalog
from engine.ai import make_player
from engine.config import GameOptions
from engine.quilt_record import quilt_record
from engine.rules import apply, legal_moves
from engine.scoring import breakdown, rank
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view


@dataclass(frozen=True, slots=True)
class PlayedGame:
    seed: int
    levels: tuple[str, ...]
    state: GameState
    moves: int


def play_game(catalog: Catalog, options: GameOptions, seed: int,
              levels: tuple[str, ...]) -> PlayedGame:
    """Play one game to the end with a computer player of ``levels[i]`` in seat ``i``."""
    players = [make_player(lv, seed * 31 + i) for i, lv in enumerate(levels)]
    state = new_game(catalog, options, seed)
    n = 0
    while state.phase is not Phase.OVER:
        seat = state.deciding_seat
        assert seat is not None
        legal = legal_moves(state, seat)
        move = players[seat].choose(private_view(state, seat), legal)
        state, _ = apply(state, move)
        n += 1
    return PlayedGame(seed, levels, state, n)


def game_summary(game: PlayedGame) -> dict[str, Any]:
    """The ``play --json`` line for one game (the contract in design.md)."""
    cfg = game.state.config
    scores = [breakdown(cfg, s) for s in game.state.seats]
    places, _, _ = rank(scores)
    return {
        "seed": game.seed,
        "players": [
            {"seat": i, "ai": game.levels[i], "place": places[i], "score": scores[i],
             "record": quilt_record(game.state, i)}
            for i in range(cfg.players)
        ],
    }
