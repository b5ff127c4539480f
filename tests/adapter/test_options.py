"""The numbers people type (issue 20, players 6): parsed in one place, :mod:`bot.adapter.options`,
so input that passes Discord's checks (``"²"`` is a digit to ``str.isdigit()``) is refused,
never a crash; and no handler of the Discord layer parses user text another way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.adapter.cogs.info import _seat_from
from bot.adapter.options import BadOptionError, game_number, whole_number
from bot.core.models import SeatInfo

ADAPTER = Path(__file__).resolve().parents[2] / "bot" / "adapter"


@pytest.mark.parametrize(("value", "number"), [
    ("12", 12), (" 3 ", 3), ("0", 0), (7, 7),
    ("²", None), ("³", None), ("٣", None), ("１２", None), ("-1", None), ("1.5", None),
    ("1e3", None), ("", None), ("  ", None), ("abc", None), ("9" * 20, None), (-4, None),
    (True, None), (None, None), (2.0, None),
])
def test_whole_number(value: object, number: int | None) -> None:
    assert whole_number(value) == number


def test_game_number() -> None:
    assert game_number(None) is None and game_number("") is None
    assert game_number("42") == 42 and game_number(42) == 42
    for bad in ("abc", "²", "0", "-3", 0):
        with pytest.raises(BadOptionError):
            game_number(bad)


def test_the_board_player_option() -> None:
    seats = (SeatInfo(0, 100, "Ann", None, False), SeatInfo(1, 101, "Bob", None, False))
    assert _seat_from(seats, None, 101) == 1
    assert _seat_from(seats, "2", 100) == 1 and _seat_from(seats, " bob ", 100) == 1
    assert _seat_from(seats, "<@100>", 101) == 0
    for odd in ("²", "٣", "0", "3", "nobody", ""):
        assert _seat_from(seats, odd, 100) is None


def test_no_handler_parses_user_text_by_itself() -> None:
    """``isdigit()`` admits "²"; every number a person sends goes through whole_number."""
    offenders = [f"{path.relative_to(ADAPTER)}:{n}"
                 for path in ADAPTER.rglob("*.py")
                 for n, line in enumerate(path.read_text().splitlines(), 1)
                 if re.search(r"\.isdigit\(\)|\.isnumeric\(\)", line)]
    assert offenders == []
