"""Component custom ids: what every button and select carries, encoded and parsed in one place.

A custom id holds everything needed to act on a click (the game, the ply the button was made for,
and the choices so far), so any button from any message works after a restart: nothing is kept
in memory between clicks. Each kind has one regular expression (the ``DynamicItem`` template) and
a frozen dataclass with ``encode()``; ``parse()`` reads any of them back. All fit in Discord's
100 characters by construction (ids are short numbers and cell names).

=========================================  ===============================================
``calico:l:<action>:<game>``               lobby buttons (join, leave, cpu, start, cancel, pet)
``calico:lr:<game>``                       lobby: the host's "remove computer" select (value: seat)
``calico:g:<game>:<ply>``                  goal draft: the arrangement select
``calico:gc:<game>:<ply>:<abc>``           goal draft: confirm goals ``a, b, c`` (offer indices)
``calico:gb:<game>:<ply>``                 goal draft: back to the select
``calico:c:<game>:<ply>:<src>``            turn: the cell select for source ``h0``/``h1``/``m0``..
``calico:t:<game>:<ply>:<src>:<cell>:<k>`` turn: take market slot ``k`` (``x``: place only) = commit
``calico:u:<game>:<ply>``                  turn: undo the placement preview
``calico:hand:<game>``                     show my hand (ephemeral), from a thread post
``calico:replay:<game>``                   score sheet: the game's replay GIF (ephemeral)
``calico:rematch:<game>``                  score sheet: open a rematch lobby
``calico:pick:<game>:<seat>``              score sheet: the winner fills another normal row
``calico:hint:<game>:<ply>[:y]``           turn: hints (``y``: confirmed, the game gets marked)
``calico:rv:<game>``                       score sheet: review my game (ephemeral)
=========================================  ===============================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

PREFIX: Final = "calico"
MAX_LEN: Final = 100

LobbyAction = Literal["join", "leave", "cpu", "start", "cancel", "pet"]
LOBBY_ACTIONS: Final[tuple[LobbyAction, ...]] = ("join", "leave", "cpu", "start", "cancel", "pet")

_GAME = r"(?P<game>[0-9]{1,20})"
_PLY = r"(?P<ply>[0-9]{1,4})"
_SRC = r"(?P<src>[hm][0-9])"
_CELL = r"(?P<cell>[A-E][1-5])"

LOBBY_TEMPLATE: Final = rf"calico:l:(?P<action>{'|'.join(LOBBY_ACTIONS)}):{_GAME}"
LOBBY_REMOVE_TEMPLATE: Final = rf"calico:lr:{_GAME}"
DRAFT_TEMPLATE: Final = rf"calico:g:{_GAME}:{_PLY}"
DRAFT_CONFIRM_TEMPLATE: Final = rf"calico:gc:{_GAME}:{_PLY}:(?P<order>[0-9]{{3}})"
DRAFT_BACK_TEMPLATE: Final = rf"calico:gb:{_GAME}:{_PLY}"
CELL_TEMPLATE: Final = rf"calico:c:{_GAME}:{_PLY}:{_SRC}"
TAKE_TEMPLATE: Final = rf"calico:t:{_GAME}:{_PLY}:{_SRC}:{_CELL}:(?P<slot>[0-9x])"
UNDO_TEMPLATE: Final = rf"calico:u:{_GAME}:{_PLY}"
HAND_TEMPLATE: Final = rf"calico:hand:{_GAME}"
REPLAY_TEMPLATE: Final = rf"calico:replay:{_GAME}"
REMATCH_TEMPLATE: Final = rf"calico:rematch:{_GAME}"
PICK_TEMPLATE: Final = rf"calico:pick:{_GAME}:(?P<seat>[0-3])"
HINT_TEMPLATE: Final = rf"calico:hint:{_GAME}:{_PLY}(?::(?P<ok>y))?"
REVIEW_TEMPLATE: Final = rf"calico:rv:{_GAME}"

TEMPLATES: Final[tuple[str, ...]] = (
    LOBBY_TEMPLATE, LOBBY_REMOVE_TEMPLATE, DRAFT_TEMPLATE, DRAFT_CONFIRM_TEMPLATE,
    DRAFT_BACK_TEMPLATE, CELL_TEMPLATE, TAKE_TEMPLATE, UNDO_TEMPLATE, HAND_TEMPLATE,
    REPLAY_TEMPLATE, REMATCH_TEMPLATE, PICK_TEMPLATE,
    HINT_TEMPLATE, REVIEW_TEMPLATE,
)


def _check(custom_id: str) -> str:
    if len(custom_id) > MAX_LEN:  # cannot happen with the templates above; kept as a guard
        raise ValueError(f"custom id longer than {MAX_LEN}: {custom_id!r}")
    return custom_id


@dataclass(frozen=True, slots=True)
class LobbyId:
    action: LobbyAction
    game: int

    def encode(self) -> str:
        return _check(f"calico:l:{self.action}:{self.game}")


@dataclass(frozen=True, slots=True)
class LobbyRemoveId:
    """The host's select of computer seats to remove; the chosen option's value is the seat."""

    game: int

    def encode(self) -> str:
        return _check(f"calico:lr:{self.game}")


@dataclass(frozen=True, slots=True)
class DraftId:
    game: int
    ply: int

    def encode(self) -> str:
        return _check(f"calico:g:{self.game}:{self.ply}")


@dataclass(frozen=True, slots=True)
class DraftConfirmId:
    game: int
    ply: int
    order: tuple[int, int, int]  # indices into the goal offer, for B3, C4, D2

    def encode(self) -> str:
        a, b, c = self.order
        return _check(f"calico:gc:{self.game}:{self.ply}:{a}{b}{c}")


@dataclass(frozen=True, slots=True)
class DraftBackId:
    game: int
    ply: int

    def encode(self) -> str:
        return _check(f"calico:gb:{self.game}:{self.ply}")


@dataclass(frozen=True, slots=True)
class CellId:
    game: int
    ply: int
    source: str  # "h0", "h1" (hand) or "m0".."m2" (no-hand: the market tile placed)

    def encode(self) -> str:
        return _check(f"calico:c:{self.game}:{self.ply}:{self.source}")


@dataclass(frozen=True, slots=True)
class TakeId:
    game: int
    ply: int
    source: str
    cell: str
    slot: int | None  # market slot taken; None: the placement alone ends the turn

    def encode(self) -> str:
        slot = "x" if self.slot is None else str(self.slot)
        return _check(f"calico:t:{self.game}:{self.ply}:{self.source}:{self.cell}:{slot}")

    def move_text(self) -> str:
        """The engine's move notation for this click: ``h0@C3>m2``, ``h1@E5`` or ``m2@C3``."""
        if self.source.startswith("m"):
            return f"{self.source}@{self.cell}"
        pick = "" if self.slot is None else f">m{self.slot}"
        return f"{self.source}@{self.cell}{pick}"


@dataclass(frozen=True, slots=True)
class UndoId:
    game: int
    ply: int

    def encode(self) -> str:
        return _check(f"calico:u:{self.game}:{self.ply}")


@dataclass(frozen=True, slots=True)
class HandId:
    game: int

    def encode(self) -> str:
        return _check(f"calico:hand:{self.game}")


@dataclass(frozen=True, slots=True)
class ReplayId:
    game: int

    def encode(self) -> str:
        return _check(f"calico:replay:{self.game}")


@dataclass(frozen=True, slots=True)
class RematchId:
    game: int

    def encode(self) -> str:
        return _check(f"calico:rematch:{self.game}")


@dataclass(frozen=True, slots=True)
class PickId:
    """The winner of ``seat`` picks which normal-game row the win fills (value: its id)."""

    game: int
    seat: int

    def encode(self) -> str:
        return _check(f"calico:pick:{self.game}:{self.seat}")


@dataclass(frozen=True, slots=True)
class HintId:
    game: int
    ply: int
    confirmed: bool = False  # the player agreed that the game gets marked

    def encode(self) -> str:
        return _check(f"calico:hint:{self.game}:{self.ply}{':y' if self.confirmed else ''}")


@dataclass(frozen=True, slots=True)
class ReviewId:
    game: int

    def encode(self) -> str:
        return _check(f"calico:rv:{self.game}")


ParsedId = (LobbyId | LobbyRemoveId | DraftId | DraftConfirmId | DraftBackId | CellId | TakeId
            | UndoId | HandId | ReplayId | RematchId | PickId | HintId | ReviewId)

_COMPILED = {t: re.compile(t) for t in TEMPLATES}


def from_match(template: str, m: re.Match[str]) -> ParsedId:
    """The id value for a regex match of one of :data:`TEMPLATES`."""
    game = int(m["game"])
    if template == LOBBY_TEMPLATE:
        action = m["action"]
        assert action in LOBBY_ACTIONS
        return LobbyId(action, game)
    if template == LOBBY_REMOVE_TEMPLATE:
        return LobbyRemoveId(game)
    if template == HAND_TEMPLATE:
        return HandId(game)
    if template == REPLAY_TEMPLATE:
        return ReplayId(game)
    if template == REMATCH_TEMPLATE:
        return RematchId(game)
    if template == PICK_TEMPLATE:
        return PickId(game, int(m["seat"]))
    if template == REVIEW_TEMPLATE:
        return ReviewId(game)
    ply = int(m["ply"])
    if template == DRAFT_TEMPLATE:
        return DraftId(game, ply)
    if template == DRAFT_CONFIRM_TEMPLATE:
        o = m["order"]
        return DraftConfirmId(game, ply, (int(o[0]), int(o[1]), int(o[2])))
    if template == DRAFT_BACK_TEMPLATE:
        return DraftBackId(game, ply)
    if template == CELL_TEMPLATE:
        return CellId(game, ply, m["src"])
    if template == TAKE_TEMPLATE:
        slot = m["slot"]
        return TakeId(game, ply, m["src"], m["cell"], None if slot == "x" else int(slot))
    if template == UNDO_TEMPLATE:
        return UndoId(game, ply)
    if template == HINT_TEMPLATE:
        return HintId(game, ply, m["ok"] == "y")
    raise ValueError(f"unknown template {template!r}")


def parse(custom_id: str) -> ParsedId | None:
    """The id value for ``custom_id``, or None when it is not one of ours."""
    for template, rx in _COMPILED.items():
        m = rx.fullmatch(custom_id)
        if m is not None:
            return from_match(template, m)
    return None
