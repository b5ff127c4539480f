"""Seeded sample games for the gallery, the benchmark and the tests (computer players)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from data import load_catalog
from engine.ai import Player, make_player
from engine.config import GameOptions
from engine.moves import Move
from engine.rules import apply, legal_moves, placements, preview
from engine.serialize import game_record
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import PrivateView, private_view
from render.quilt import Preview


class _UniformChooser:
    """Any legal move, uniformly, from its own seeded generator: what ``random`` does today,
    kept here so the golden images do not move when the engine's computer players change."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: PrivateView, legal: list[Move]) -> Move:
        del view
        return self._rng.choice(legal)


def play_until(options: GameOptions, seed: int, moves: int | None,
               levels: Sequence[str] | None = None, *, own_chooser: bool = False) -> GameState:
    """Replay the seeded game ``engine.play.play_game`` would play (computer players of
    ``levels``, ``random`` by default), stopping after ``moves`` moves (None: to the end).

    ``own_chooser`` plays uniformly random moves with this module's own generator instead,
    so the result depends on the rules only (the tests' golden images use it).
    """
    n = options.players
    lv = tuple(levels or ("random",) * n)
    players: list[_UniformChooser | Player] = [
        _UniformChooser(seed * 31 + i) if own_chooser else make_player(level, seed * 31 + i)
        for i, level in enumerate(lv)
    ]
    state = new_game(load_catalog(), options, seed)
    done = 0
    while state.phase is not Phase.OVER and (moves is None or done < moves):
        seat = state.deciding_seat
        assert seat is not None
        move = players[seat].choose(private_view(state, seat), legal_moves(state, seat))
        state, _ = apply(state, move)
        done += 1
    return state


def play_record(options: GameOptions, seed: int, levels: Sequence[str] | None = None,
                *, own_chooser: bool = False) -> dict[str, Any]:
    """The game record (options, seed, every move) of the whole game :func:`play_until`
    plays with the same arguments: what a replay is drawn from."""
    n = options.players
    lv = tuple(levels or ("random",) * n)
    players: list[_UniformChooser | Player] = [
        _UniformChooser(seed * 31 + i) if own_chooser else make_player(level, seed * 31 + i)
        for i, level in enumerate(lv)
    ]
    state = new_game(load_catalog(), options, seed)
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        seat = state.deciding_seat
        assert seat is not None
        move = players[seat].choose(private_view(state, seat), legal_moves(state, seat))
        state, _ = apply(state, move)
        moves.append(move)
    return game_record(options, seed, moves)


STRONG_GAME = Path(__file__).resolve().parent / "strong_4p.json"
STRONG_GAME_ARGS = (GameOptions(players=4), 5, ("strong",) * 4)


def strong_record() -> dict[str, Any]:
    """The record of a whole 4-player game between the engine's strong players (seed 5),
    stored in ``render/strong_4p.json`` because playing it takes about 20 s of CPU: the
    gallery's replay shows real play, not random moves. ``python -m render strong-game``
    plays it again and rewrites the file."""
    record: dict[str, Any] = json.loads(STRONG_GAME.read_text("utf-8"))
    return record


def write_strong_record() -> Path:
    options, seed, levels = STRONG_GAME_ARGS
    STRONG_GAME.write_text(json.dumps(play_record(options, seed, levels)) + "\n", "utf-8")
    return STRONG_GAME


def best_preview(state: GameState) -> tuple[Preview | None, set[int], int]:
    """A placement worth showing (the one earning most), the legal cells of hand tile 0."""
    seat = state.current_seat
    assert seat is not None
    pairs = placements(state, seat)
    best: tuple[int, int, list[Any]] | None = None
    for source, cell in pairs:
        events = preview(state, seat, source, cell)
        if best is None or len(events) > len(best[2]):
            best = (source, cell, events)
    assert best is not None
    source, cell, events = best
    hand = state.seats[seat].hand
    tile = hand[source] if hand else state.market[source]
    assert tile is not None
    legal = {c for s, c in pairs if s == source}
    return Preview(cell, tile, tuple(events)), legal, source
