"""Error codes (the core's :class:`~bot.core.models.ManagerError` and the engine's) to the
short private reply a player sees.

The core and the engine raise errors with a stable ``code``; nothing here reads their
messages. An unknown code gets a generic answer rather than leaking internals.
"""

from __future__ import annotations

from bot.words.catalogue import Text, has

MANAGER_CODES = (
    "unknown_game", "not_a_player", "not_your_turn", "stale", "game_full", "already_joined",
    "lobby_only", "host_only", "not_enough_players", "game_over", "not_allowed", "already_held",
    "removed",
)
ENGINE_CODES = (
    "not_your_turn", "wrong_phase", "game_over", "no_such_seat", "no_such_cell", "goal_spot",
    "cell_taken", "no_such_hand_tile", "no_such_market_slot", "market_pick", "restriction",
    "bad_goals", "bad_options", "bad_move", "bad_record", "engine_error",
)
# Engine codes that, arriving through a button, mean the player acted on an old picture.
STALE_LIKE = frozenset({"no_such_hand_tile", "no_such_market_slot", "cell_taken", "wrong_phase"})


def error_code(exc: BaseException) -> str | None:
    """The stable code of a manager or engine error, or None for anything else."""
    code = getattr(exc, "code", None)
    return code if isinstance(code, str) else None


def reply_key(code: str | None) -> str:
    """The catalogue key for ``code`` (``error.generic`` when unknown)."""
    if code is None:
        return "error.generic"
    key = f"error.{code}"
    return key if has(key) else "error.generic"


def reply_for(tr: Text, exc_or_code: BaseException | str | None) -> str:
    """The private answer for an error (an exception with a ``code``, or the code itself)."""
    code = exc_or_code if isinstance(exc_or_code, str) or exc_or_code is None else (
        error_code(exc_or_code))
    # A refusal may carry numbers for its text (a limit reached: ``LimitError.params``).
    params = getattr(exc_or_code, "params", None)
    return tr(reply_key(code), **(params if isinstance(params, dict) else {}))


def is_expected(exc: BaseException) -> bool:
    """Whether ``exc`` is a player-facing refusal (answered privately, not logged as a bug)."""
    return error_code(exc) is not None
