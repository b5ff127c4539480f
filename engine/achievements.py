"""The rulebook's achievements: which ones a seat earns from a finished game, and where a
player stands on the progress track. Pure functions of their arguments, no I/O: the chart comes
from the catalogue (``catalog.achievements``, ``data/achievements.json``), the game from its
final state or its end events, and what the player already has from the caller's storage.

The rules (rulebook pages 10-13), and the rulings where the text leaves room:

- Each game counts for one achievement mode, fixed by its options: a **scenario** game for
  that scenario, a game with a **rule restriction** for that restriction, any other game for
  the **normal game** rows. Ruling: a scenario game played with a restriction still counts for
  the scenario (the restriction only makes it harder) and never for the restriction.
- Scenario: every seat that passes earns the scenario's achievement, solo or multi-player.
- Normal game and rule restriction: only the winner of a multi-player game earns. Ruling: in a
  shared victory (tied after both tie-breaks) every winner earns. Ruling: the family variant
  counts for neither (its goals are face down, so it is not played "under the normal rules";
  the text calls it a variant for a casual game); the beginner setup and the lower-variance
  variant count (the English text asks only for the normal rules).
- Normal game: at most one row per game. The seat may choose any matching row it has not
  earned yet (``prefer``); otherwise it gets the rarest, by the chart's ``normal_rarity``
  order (rarest first: see ``docs/achievements-sources.md`` for how it was set).
- A seat for which a computer played a move (autopilot, a takeover after leaving) or whose
  player took a hint earns nothing; only that seat: the other players still earn (the
  rulebook lets every player who passes a scenario fill their circle). The caller says which
  seats (``computer_played``, ``hints_used``); the engine cannot know. Computer seats never
  earn: the caller evaluates people's seats only.
- An achievement is earned once: ``already`` (the ids a player has) are never returned again.
- Every achievement is one point; each point fills the next shape of the progress track
  (:func:`track_position`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from data.catalog import AchievementChart, AchievementDef, NormalCondition, TrackLevel
from engine.config import GameConfig
from engine.events import Event, GameOver, ScenarioResult
from engine.scoring import breakdown, rank, scenario_conditions
from engine.state import GameState, Phase


class Mode(StrEnum):
    """The rulebook's three achievement modes."""

    SCENARIO = "scenario"
    NORMAL = "normal"
    RESTRICTION = "restriction"


class Reason(StrEnum):
    """Why an evaluation came out as it did: a stable code for the bot's wording."""

    EARNED = "earned"  # ``earned`` holds the new achievement(s)
    NOT_OVER = "not_over"  # the game has not ended
    COMPUTER_PLAYED = "computer_played"  # a computer played for a person's seat
    HINTS_USED = "hints_used"
    FAMILY = "family"  # the family variant counts for no mode
    SOLO = "solo"  # normal game and restriction rows need a multi-player game
    NOT_WINNER = "not_winner"
    NOT_PASSED = "not_passed"  # the scenario was not passed
    NO_MATCH = "no_match"  # the winner's quilt matches no normal-game row
    ALREADY_EARNED = "already_earned"  # everything this game could give is already earned


# --------------------------------------------------------------------------- the game


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What evaluation needs to know of a finished game.

    ``scores`` are the scorer's breakdowns per seat (:func:`engine.scoring.breakdown`, as the
    ``GameOver`` event carries them); ``winners`` the seats ranked first (several in a shared
    victory); ``scenario_passed`` per seat for a scenario game, else empty.
    """

    config: GameConfig
    scores: tuple[Mapping[str, Any], ...]
    winners: tuple[int, ...]
    scenario_passed: tuple[bool, ...] = ()

    @classmethod
    def from_state(cls, state: GameState) -> FinishedGame:
        """From a final state (``phase`` OVER); ValueError for a game still running."""
        if state.phase is not Phase.OVER:
            raise ValueError("the game has not ended")
        cfg = state.config
        scores = tuple(breakdown(cfg, s) for s in state.seats)
        _, winners, _ = rank(list(scores))
        passed: tuple[bool, ...] = ()
        if cfg.scenario is not None:
            passed = tuple(all(c[3] for c in scenario_conditions(cfg, s, sc))
                           for s, sc in zip(state.seats, scores, strict=True))
        return cls(cfg, scores, winners, passed)

    @classmethod
    def from_events(cls, config: GameConfig, events: Iterable[Event]) -> FinishedGame:
        """From the events of the game's last move (its ``ScenarioResult``s and ``GameOver``);
        ValueError when there is no ``GameOver`` among them."""
        over: GameOver | None = None
        passed = [False] * config.players
        for ev in events:
            if isinstance(ev, GameOver):
                over = ev
            elif isinstance(ev, ScenarioResult) and 0 <= ev.seat < config.players:
                passed[ev.seat] = ev.passed
        if over is None or len(over.scores) != config.players:
            raise ValueError("no GameOver event with every seat's score")
        return cls(config, tuple(over.scores), tuple(over.winners),
                   tuple(passed) if config.scenario is not None else ())


def game_mode(config: GameConfig) -> Mode | None:
    """The achievement mode a game with ``config`` counts for (None: the family variant)."""
    if config.scenario is not None:
        return Mode.SCENARIO
    if config.family:
        return None
    if config.restriction is not None:
        return Mode.RESTRICTION
    return Mode.NORMAL


# --------------------------------------------------------------------------- normal rows


def _goals_met(score: Mapping[str, Any]) -> int:
    return sum(1 for g in score.get("goals", ()) if g.get("colors") or g.get("patterns"))


def condition_met(condition: NormalCondition, score: Mapping[str, Any]) -> bool:
    """Does the quilt with this scorer breakdown meet every requirement of ``condition``?"""
    c = condition
    per_cat = [int(v.get("tokens", 0)) for v in score.get("cats", {}).values()]
    checks = (
        c.min_score is None or int(score.get("total", 0)) >= c.min_score,
        not c.rainbow or bool(score.get("rainbow")),
        c.max_buttons is None or int(score.get("button_tokens", 0)) <= c.max_buttons,
        c.max_cats is None or int(score.get("cat_tokens", 0)) <= c.max_cats,
        c.max_goals_met is None or _goals_met(score) <= c.max_goals_met,
        c.min_each_cat is None or (bool(per_cat) and min(per_cat) >= c.min_each_cat),
    )
    return all(checks)


def normal_rows_met(chart: AchievementChart, score: Mapping[str, Any]) -> tuple[str, ...]:
    """Every enabled normal-game row this quilt meets, rarest first (whether or not it won)."""
    return tuple(i for i in chart.normal_rarity
                 if condition_met(_condition(chart.get(i)), score))


def _condition(row: AchievementDef) -> NormalCondition:
    assert row.condition is not None  # the chart's validator guarantees it for enabled rows
    return row.condition


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What one seat earns from one game.

    ``earned``: the achievement ids to record now (new ones only; at most one). ``choices``:
    for a normal game, every new row the seat could fill instead, rarest first (``earned`` is
    the first, or the preferred one), so the bot can offer a pick; otherwise empty. ``mode``:
    the mode the game counted for (None for the family variant). ``reason``: why, as a code.
    """

    mode: Mode | None
    earned: tuple[str, ...]
    choices: tuple[str, ...]
    reason: Reason


def evaluate(
    chart: AchievementChart,
    game: FinishedGame,
    seat: int,
    *,
    already: Collection[str] = (),
    multiplayer: bool | None = None,
    computer_played: bool = False,
    hints_used: bool = False,
    prefer: str | None = None,
) -> Evaluation:
    """The achievements ``seat`` earns from ``game`` (see the module docstring for the rules).

    ``already``: the ids this player has earned before. ``multiplayer``: whether the game
    counts as multi-player; None means "more than one seat" (a caller that wants only games
    against other people to count passes False when every other seat was a computer).
    ``computer_played`` / ``hints_used``: the game earns nothing. ``prefer``: for a normal
    game, the row the player chooses to fill; it must be one of the ``choices`` (ValueError
    otherwise).
    """
    cfg = game.config
    if not 0 <= seat < cfg.players or len(game.scores) != cfg.players:
        raise ValueError(f"no seat {seat} in this game")
    mode = game_mode(cfg)
    owned = frozenset(already)

    def nothing(reason: Reason) -> Evaluation:
        if prefer is not None:
            raise ValueError(f"{prefer!r} is not a choice: this game earns nothing ({reason})")
        return Evaluation(mode, (), (), reason)

    if computer_played:
        return nothing(Reason.COMPUTER_PLAYED)
    if hints_used:
        return nothing(Reason.HINTS_USED)
    if mode is None:
        return nothing(Reason.FAMILY)
    if mode is Mode.SCENARIO:
        assert cfg.scenario is not None
        if not (seat < len(game.scenario_passed) and game.scenario_passed[seat]):
            return nothing(Reason.NOT_PASSED)
        row = _the_row(chart.of_mode("scenario"), "scenario", cfg.scenario.number)
        return _single(mode, row, owned, prefer)
    many = cfg.players > 1 if multiplayer is None else multiplayer
    if not many:
        return nothing(Reason.SOLO)
    if seat not in game.winners:
        return nothing(Reason.NOT_WINNER)
    if mode is Mode.RESTRICTION:
        assert cfg.restriction is not None
        row = _the_row(chart.of_mode("restriction"), "restriction", cfg.restriction.value)
        return _single(mode, row, owned, prefer)
    met = normal_rows_met(chart, game.scores[seat])
    if not met:
        return nothing(Reason.NO_MATCH)
    choices = tuple(i for i in met if i not in owned)
    if not choices:
        return nothing(Reason.ALREADY_EARNED)
    if prefer is not None and prefer not in choices:
        raise ValueError(f"{prefer!r} is not one of this game's choices: {', '.join(choices)}")
    return Evaluation(mode, (prefer or choices[0],), choices, Reason.EARNED)


def _the_row(rows: Sequence[AchievementDef], key: str, value: object) -> AchievementDef | None:
    return next((r for r in rows if getattr(r, key) == value), None)


def _single(mode: Mode, row: AchievementDef | None, owned: frozenset[str],
            prefer: str | None) -> Evaluation:
    """The one achievement of a scenario or restriction game, unless already earned."""
    if prefer is not None and (row is None or prefer != row.id):
        raise ValueError(f"{prefer!r} is not a choice: a {mode} game earns only its own row")
    if row is None or row.id in owned:
        # No row (a chart without it) reads as nothing new to earn.
        return Evaluation(mode, (), (), Reason.ALREADY_EARNED)
    return Evaluation(mode, (row.id,), (), Reason.EARNED)


def evaluate_all(
    chart: AchievementChart,
    game: FinishedGame,
    already: Mapping[int, Collection[str]],
    *,
    multiplayer: bool | None = None,
    computer_played: Collection[int] = (),
    hints_used: Collection[int] = (),
) -> dict[int, Evaluation]:
    """:func:`evaluate` for each seat in ``already`` (seat -> ids that seat's player has):
    the people's seats, since computer seats earn nothing. ``computer_played`` and
    ``hints_used`` name the seats concerned: only those earn nothing."""
    return {seat: evaluate(chart, game, seat, already=owned, multiplayer=multiplayer,
                           computer_played=seat in computer_played,
                           hints_used=seat in hints_used)
            for seat, owned in already.items()}


# --------------------------------------------------------------------------- scenario path


@dataclass(frozen=True, slots=True)
class ScenarioPath:
    """A player's way through the solo scenarios (the rulebook: start with the first, work up
    to the last). ``passed``: the scenario numbers passed, ascending. ``next``: the lowest
    scenario not passed yet (None when every one is passed)."""

    passed: tuple[int, ...]
    next: int | None
    total: int


def scenario_path(chart: AchievementChart, earned: Collection[str]) -> ScenarioPath:
    """Where a player holding the achievement ids ``earned`` stands on the scenario path."""
    held = set(earned)
    numbers = sorted(a.scenario for a in chart.of_mode("scenario") if a.scenario is not None)
    passed = tuple(n for n in numbers
                   if any(a.id in held for a in chart.of_mode("scenario") if a.scenario == n))
    following = next((n for n in numbers if n not in passed), None)
    return ScenarioPath(passed, following, len(numbers))


# --------------------------------------------------------------------------- progress track


@dataclass(frozen=True, slots=True)
class TrackPosition:
    """Where ``points`` achievement points put a player on the progress track.

    ``title``: index in ``chart.track`` of the last title completed (all its shapes filled),
    None before the first. ``next_shape``: 0-based index of the shape the next point fills,
    None when the track is full. ``next_level``: the title that shape belongs to.
    ``next_target``: the points at which that title is completed. ``shapes_filled`` per title.
    """

    points: int
    total: int
    title: int | None
    next_shape: int | None
    next_level: int | None
    next_target: int | None
    shapes_filled: tuple[int, ...]

    @property
    def complete(self) -> bool:
        return self.next_shape is None

    @property
    def to_next(self) -> int | None:
        """Points still needed for the next title (None when complete)."""
        return None if self.next_target is None else self.next_target - self.points


def track_position(chart: AchievementChart, points: int) -> TrackPosition:
    """The track after ``points`` achievement points (capped at the track's length)."""
    if points < 0:
        raise ValueError("points cannot be negative")
    levels: tuple[TrackLevel, ...] = chart.track
    total = chart.track_length
    p = min(points, total)
    title: int | None = None
    filled: list[int] = []
    start = 0
    next_level = next_target = None
    for i, level in enumerate(levels):
        end = start + level.shapes
        filled.append(max(0, min(p, end) - start))
        if p >= end:
            title = i
        elif next_level is None:
            next_level, next_target = i, end
        start = end
    return TrackPosition(p, total, title, p if p < total else None, next_level, next_target,
                         tuple(filled))


def progress(chart: AchievementChart, earned: Collection[str]) -> TrackPosition:
    """The track position of a player holding the achievement ids ``earned`` (ids the chart
    does not award, such as disabled rows or unknown ones, count for nothing)."""
    awardable = {a.id for a in chart.enabled}
    return track_position(chart, len(awardable & set(earned)))
