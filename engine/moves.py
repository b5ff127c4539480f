"""Moves and their short text notation, which round-trips and fits in a button's custom id.

- ``goals:all-different,aa-bb-cc,aaa-bbb``: choose goal tiles for B3, C4, D2.
- ``h0@C3>m2``: place hand tile 0 on C3, then take market slot 2.
- ``h1@E5``: a player's 22nd turn (no pick).
- ``m2@C3``: no-hand restriction: place market slot 2 on C3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import BadMoveError
from engine.hexgrid import cell_name, parse_cell


@dataclass(frozen=True, slots=True)
class ChooseGoals:
    seat: int
    goals: tuple[str, str, str]  # on B3, C4, D2

    def text(self) -> str:
        return "goals:" + ",".join(self.goals)


@dataclass(frozen=True, slots=True)
class PlaceTile:
    """A whole turn: place a tile, then (except on the 22nd turn) take one from the market."""

    seat: int
    cell: int
    hand: int | None  # hand position; None in no-hand mode
    market: int | None  # market slot taken (no-hand: the tile placed); None on the 22nd turn

    def text(self) -> str:
        where = cell_name(self.cell)
        if self.hand is None:
            return f"m{self.market}@{where}"
        pick = "" if self.market is None else f">m{self.market}"
        return f"h{self.hand}@{where}{pick}"


Move = ChooseGoals | PlaceTile

_TURN = re.compile(r"^(?:h(?P<hand>[0-9])@(?P<cell>[A-Ea-e][1-5])(?:>m(?P<pick>[0-9]))?"
                   r"|m(?P<nohand>[0-9])@(?P<cell2>[A-Ea-e][1-5]))$")


def parse_move(seat: int, text: str) -> Move:
    """Read a move in the notation above for ``seat``; BadMoveError if it is not one."""
    text = text.strip()
    if text.startswith("goals:"):
        goals = tuple(g.strip() for g in text[6:].split(","))
        if len(goals) != 3:
            raise BadMoveError(f"three goals expected in {text!r}")
        return ChooseGoals(seat, (goals[0], goals[1], goals[2]))
    m = _TURN.match(text)
    if not m:
        raise BadMoveError(f"not a move: {text!r}")
    if m["nohand"] is not None:
        return PlaceTile(seat, parse_cell(m["cell2"]), None, int(m["nohand"]))
    pick = m["pick"]
    market = None if pick is None else int(pick)
    return PlaceTile(seat, parse_cell(m["cell"]), int(m["hand"]), market)
