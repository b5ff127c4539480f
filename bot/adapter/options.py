"""The options of ``/calico start`` and ``/calico solo``, checked on arrival, and the numbers
people type anywhere else (:func:`whole_number`, :func:`game_number`).

Discord shows players only the choices a command offers, but nothing stops a client from
sending any value: every option is checked here, whatever arrives, and a bad one becomes a
short private answer naming it (:class:`BadOptionError`), never a traceback.
"""

from __future__ import annotations

from typing import Final

from pydantic import ValidationError

from bot.core.models import AI_LEVELS, FirstPlayer, LobbyOptions, TimeoutAction
from bot.words.catalogue import Text
from bot.words.terms import cat_name
from data import load_catalog
from engine.config import Restriction, Setup

SETUPS: Final = tuple(s.value for s in Setup)
VARIANTS: Final = ("none", "family", "lower", "family_lower")
RESTRICTIONS: Final = ("none", *(r.value for r in Restriction))
TURN_HOURS: Final = (1, 6, 12, 24, 48, 72, 168)
TIMEOUTS: Final = tuple(a.value for a in TimeoutAction)
FIRSTS: Final = tuple(f.value for f in FirstPlayer)
SCENARIOS: Final = range(1, 11)
HINTS: Final = ("off", "on")
CATS: Final = tuple(load_catalog().cats)  # every cat a host may choose, catalogue order


MAX_DIGITS: Final = 19  # a Discord snowflake or a game id fits; longer is not a number of ours


def whole_number(value: object) -> int | None:
    """A non-negative whole number a person typed or a client sent (``"12"``, ``" 3 "``,
    ``7``), else None. Only the digits 0-9 count: ``"²"`` is a digit to ``isdigit`` and not a
    number to ``int``, and other scripts' digits are not what anyone means by a seat or a game
    number. Every number a person sends the Discord layer is read here."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > MAX_DIGITS or not (text.isascii() and text.isdecimal()):
        return None
    return int(text)


def game_number(value: object) -> int | None:
    """The ``game`` option as it arrives: None when absent; BadOptionError when it is not a
    game number (an autocomplete carries what is typed so far, not a checked integer)."""
    if value is None or value == "":
        return None
    number = whole_number(value)
    if number is None or number < 1:
        raise BadOptionError("game")
    return number


class BadOptionError(ValueError):
    """An option value the command does not offer, or options that do not fit together."""

    def __init__(self, option: str, detail: str = "", *, key: str | None = None,
                 **values: str) -> None:
        super().__init__(f"{option}: {detail}" if detail else option)
        self.option = option
        self.detail = detail
        self.key = key  # a catalogue entry saying what is wrong, when there is one
        self.values = values  # the entry's placeholders

    def reason(self, tr: Text) -> str:
        if self.key:
            return tr(self.key, **self.values)
        return self.detail or tr("start.bad_option", option=self.option)


def _one_of(option: str, value: object, allowed: tuple[object, ...] | range) -> None:
    if value not in allowed:
        raise BadOptionError(option)


def _build(**fields: object) -> LobbyOptions:
    try:
        return LobbyOptions.model_validate(fields)
    except ValidationError as e:
        detail = "; ".join(str(err.get("msg", "")).removeprefix("Value error, ")
                           for err in e.errors())
        raise BadOptionError("options", detail) from None


def chosen_cats(cats: tuple[str | None, ...], *, scenario: int | None,
                setup: str) -> tuple[str, str, str] | None:
    """The three cats a host chose (``cat1``..``cat3``; None: none chosen, the cats are drawn).
    Refused: one or two cats only, a cat we do not have, the same cat twice, both sides of one
    cat scoring tile, or cats with a scenario or the beginner setup (those name their own)."""
    named = [c for c in cats if c is not None]
    if not named:
        return None
    for i, c in enumerate(cats, 1):
        if c is not None:
            _one_of(f"cat{i}", c, CATS)
    if len(named) != 3:
        raise BadOptionError("cats", key="start.cats_three")
    if len(set(named)) != 3:
        raise BadOptionError("cats", key="start.cats_different")
    if scenario is not None:
        raise BadOptionError("cats", key="start.cats_scenario")
    if setup == Setup.BEGINNER.value:
        raise BadOptionError("cats", key="start.cats_beginner")
    pair = load_catalog().same_tile(named)
    if pair is not None:
        raise BadOptionError("cats", key="start.cats_same_tile", first=cat_name(pair[0]),
                             second=cat_name(pair[1]))
    return named[0], named[1], named[2]


def start_options(*, players: int, setup: str, variant: str, restriction: str, computers: int,
                  level: str, turn_hours: int, timeout: str, first: str,
                  scenario: int | None = None, hints: str = "off",
                  cats: tuple[str | None, ...] = ()) -> LobbyOptions:
    """The lobby options of ``/calico start`` (BadOptionError when one is not acceptable).
    A scenario may be played by every player at the table (each who passes earns it)."""
    _one_of("players", players, range(1, 5))
    _one_of("setup", setup, SETUPS)
    _one_of("variant", variant, VARIANTS)
    _one_of("restriction", restriction, RESTRICTIONS)
    _one_of("computers", computers, range(0, 4))
    _one_of("level", level, AI_LEVELS)
    _one_of("turn_hours", turn_hours, TURN_HOURS)
    _one_of("timeout", timeout, TIMEOUTS)
    _one_of("first", first, FIRSTS)
    if scenario is not None:
        _one_of("scenario", scenario, SCENARIOS)
    _one_of("hints", hints, HINTS)
    if computers >= players:
        raise BadOptionError("computers", key="start.computers_too_many")
    family = variant in ("family", "family_lower")
    if family and setup == "beginner":
        raise BadOptionError("variant", key="start.family_beginner")
    if family and scenario is not None:
        raise BadOptionError("variant", key="start.family_scenario")
    chosen = chosen_cats(cats, scenario=scenario, setup=setup)
    return _build(players=players, setup=setup, family=family,
                  lower_variance=variant in ("lower", "family_lower"),
                  restriction=None if restriction == "none" else restriction,
                  turn_hours=float(turn_hours), timeout_action=timeout, first=first,
                  ai_level=level, scenario=scenario, hints=hints == "on", cats=chosen)


def solo_options(*, scenario: int | None, setup: str, restriction: str,
                 cats: tuple[str | None, ...] = ()) -> LobbyOptions:
    """The lobby options of ``/calico solo`` (BadOptionError when one is not acceptable)."""
    if scenario is not None:
        _one_of("scenario", scenario, SCENARIOS)
    _one_of("setup", setup, SETUPS)
    _one_of("restriction", restriction, RESTRICTIONS)
    chosen = chosen_cats(cats, scenario=scenario, setup=setup)
    return _build(players=1, setup=setup, scenario=scenario,
                  restriction=None if restriction == "none" else restriction, cats=chosen)
