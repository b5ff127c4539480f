"""Typed errors for illegal moves and bad input, each with a stable ``code`` for the bot."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: every rules error has a stable machine-readable ``code``."""

    code = "engine_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotYourTurnError(EngineError):
    """The move is for a seat whose turn it is not."""

    code = "not_your_turn"


class WrongPhaseError(EngineError):
    """The move does not fit the phase (goal draft, play)."""

    code = "wrong_phase"


class GameOverError(EngineError):
    """The game has ended."""

    code = "game_over"


class NoSuchSeatError(EngineError):
    """No such seat in this game."""

    code = "no_such_seat"


class NoSuchCellError(EngineError):
    """The cell is not one of A1..E5."""

    code = "no_such_cell"


class GoalSpotError(EngineError):
    """The cell holds a design goal tile."""

    code = "goal_spot"


class CellTakenError(EngineError):
    """The cell already holds a patch tile."""

    code = "cell_taken"


class NoSuchHandTileError(EngineError):
    """The hand has no tile at that position."""

    code = "no_such_hand_tile"


class NoSuchMarketSlotError(EngineError):
    """The market has no tile at that position."""

    code = "no_such_market_slot"


class MarketPickError(EngineError):
    """A market pick is required (or, on the last turn, not allowed)."""

    code = "market_pick"


class RestrictionError(EngineError):
    """The placement breaks the game's rule restriction."""

    code = "restriction"


class BadGoalsError(EngineError):
    """The chosen goal tiles are not three of the ones offered."""

    code = "bad_goals"


class BadOptionsError(EngineError):
    """The game options are inconsistent (player count, variant, scenario, ...)."""

    code = "bad_options"


class BadMoveError(EngineError):
    """The move text could not be read."""

    code = "bad_move"


class BadRecordError(EngineError):
    """A quilt or game record is malformed."""

    code = "bad_record"


def engine_error(exc: BaseException) -> EngineError | None:
    """The :class:`EngineError` behind ``exc``: ``exc`` itself, or the one a pydantic
    ``ValidationError`` wraps (``GameOptions`` raises ``BadOptionsError`` from its validator,
    and pydantic reports it as a ``ValueError`` with the original in each error's context)."""
    if isinstance(exc, EngineError):
        return exc
    errors = getattr(exc, "errors", None)
    if callable(errors):
        for err in errors():
            inner = (err.get("ctx") or {}).get("error") if isinstance(err, dict) else None
            if isinstance(inner, EngineError):
                return inner
    return None


ALL_ERRORS: tuple[type[EngineError], ...] = (
    NotYourTurnError,
    WrongPhaseError,
    GameOverError,
    NoSuchSeatError,
    NoSuchCellError,
    GoalSpotError,
    CellTakenError,
    NoSuchHandTileError,
    NoSuchMarketSlotError,
    MarketPickError,
    RestrictionError,
    BadGoalsError,
    BadOptionsError,
    BadMoveError,
    BadRecordError,
)
