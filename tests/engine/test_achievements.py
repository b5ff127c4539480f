"""Achievements: the chart's data, which seat earns what from a finished game (constructed
games and real played ones), and the progress track."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.achievements import (
    FinishedGame,
    Mode,
    Reason,
    ScenarioPath,
    condition_met,
    evaluate,
    evaluate_all,
    game_mode,
    normal_rows_met,
    progress,
    scenario_path,
    track_position,
)
from engine.ai import make_player
from engine.config import GameOptions, Restriction, Setup
from engine.events import Event
from engine.rules import apply, legal_moves
from engine.scoring import breakdown, rank
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.views import private_view
from tests.engine.helpers import CATALOG, game_setups, play_random

CHART = CATALOG.achievements
NORMAL_IDS = ["normal-60", "normal-65", "normal-70", "normal-75", "normal-80", "normal-85",
              "normal-rainbow", "normal-no-buttons", "normal-no-cats", "normal-no-goals",
              "normal-two-of-each-cat"]


# --------------------------------------------------------------------------- the chart


def test_chart_rows_and_their_ids():
    """10 scenario rows, 11 normal-game rows that can be earned (three more that no text
    explains are kept but disabled), 5 restriction rows; ids are stable storage keys."""
    assert [a.id for a in CHART.of_mode("scenario")] == [f"scenario-{n}" for n in range(1, 11)]
    assert [a.scenario for a in CHART.of_mode("scenario")] == sorted(CATALOG.scenarios)
    assert [a.id for a in CHART.of_mode("normal")] == NORMAL_IDS
    assert [a.restriction for a in CHART.of_mode("restriction")] == [r.value for r in Restriction]
    assert [a.id for a in CHART.of_mode("restriction")] == [
        f"restriction-{r.value}" for r in Restriction]
    disabled = [a for a in CHART.achievements if not a.enabled]
    assert [(a.id, a.printed) for a in disabled] == [
        ("normal-printed-3", "3"), ("normal-printed-9", "9+"), ("normal-printed-2", "2")]
    assert all(a.condition is None for a in disabled)
    assert len(CHART.enabled) == 26 == CHART.track_length


def test_normal_rows_ask_what_the_rulebooks_say():
    """Score thresholds 60+ to 85+ in steps of 5, the rainbow button, no buttons, no cats, no
    design goal met, two of each cat."""
    cond = {a.id: a.condition for a in CHART.of_mode("normal")}
    for n in (60, 65, 70, 75, 80, 85):
        assert cond[f"normal-{n}"].min_score == n
        assert CHART.get(f"normal-{n}").printed == f"{n}+"
    assert cond["normal-rainbow"].rainbow
    assert cond["normal-no-buttons"].max_buttons == 0
    assert cond["normal-no-cats"].max_cats == 0
    assert cond["normal-no-goals"].max_goals_met == 0
    assert cond["normal-two-of-each-cat"].min_each_cat == 2


def test_rarity_lists_every_normal_row_and_orders_the_scores():
    """The rarity order holds each enabled normal row once; higher scores are rarer."""
    order = CHART.normal_rarity
    assert sorted(order) == sorted(NORMAL_IDS)
    scores = [i for i in order if i[-1].isdigit()]
    assert scores == sorted(scores, reverse=True)


def test_every_row_names_its_rulebooks():
    """Each row says which texts name it; the English text names 65+ (its example), the
    rainbow row, the scenarios and the restrictions."""
    for a in CHART.achievements:
        assert set(a.sources) <= {"en", "fr", "pl"} and a.sources
    english = {a.id for a in CHART.achievements if "en" in a.sources}
    assert {"normal-65", "normal-rainbow", "scenario-1", "restriction-no-hand"} <= english
    assert "normal-no-cats" not in english


# --------------------------------------------------------------------------- constructed games


def config(**options: Any):
    return new_game(CATALOG, GameOptions(**options), 1).config


def score(total: int = 50, *, rainbow: bool = False, buttons: int = 4,
          cats: tuple[int, int, int] = (1, 1, 1), goals_met: int = 2) -> dict[str, Any]:
    """A scorer breakdown with just the fields evaluation reads."""
    goals = [{"colors": i < goals_met, "patterns": False} for i in range(3)]
    return {"total": total, "rainbow": int(rainbow), "button_tokens": buttons + int(rainbow),
            "cat_tokens": sum(cats), "goals": goals,
            "cats": {f"cat{i}": {"tokens": n} for i, n in enumerate(cats)}}


def game(cfg, scores, winners=None, passed=()) -> FinishedGame:
    if winners is None:
        _, winners, _ = rank([dict(s) for s in scores])
    return FinishedGame(cfg, tuple(scores), tuple(winners), tuple(passed))


TWO = config(players=2)


def test_game_modes():
    """Scenario games count for the scenario, restricted games for the restriction, family
    games for nothing, every other game for the normal rows."""
    assert game_mode(TWO) is Mode.NORMAL
    assert game_mode(config(players=3, setup=Setup.BEGINNER)) is Mode.NORMAL
    assert game_mode(config(players=2, lower_variance=True)) is Mode.NORMAL
    assert game_mode(config(players=2, restriction=Restriction.NO_HAND)) is Mode.RESTRICTION
    assert game_mode(config(players=1, scenario=4)) is Mode.SCENARIO
    assert game_mode(config(players=1, scenario=4, restriction=Restriction.ADJACENT)) is (
        Mode.SCENARIO)
    assert game_mode(config(players=2, family=True)) is None


@pytest.mark.parametrize(("row", "yes", "no"), [
    ("normal-65", score(65), score(64)),
    ("normal-rainbow", score(rainbow=True), score()),
    ("normal-no-buttons", score(buttons=0), score(buttons=1)),
    ("normal-no-cats", score(cats=(0, 0, 0)), score(cats=(0, 1, 0))),
    ("normal-no-goals", score(goals_met=0), score(goals_met=1)),
    ("normal-two-of-each-cat", score(cats=(2, 3, 2)), score(cats=(2, 5, 1))),
])
def test_each_normal_condition(row, yes, no):
    cond = CHART.get(row).condition
    assert condition_met(cond, yes) and not condition_met(cond, no)


def test_a_goal_met_by_patterns_counts_as_met():
    s = score(goals_met=0)
    s["goals"][1]["patterns"] = True
    assert not condition_met(CHART.get("normal-no-goals").condition, s)


def test_winner_of_a_normal_game_fills_the_rarest_row():
    """67 points and a rainbow (the rulebook's example): 65+ or the rainbow row may be
    filled, one of them; by default the rarer (the rainbow), and never a loser."""
    g = game(TWO, [score(67, rainbow=True), score(60)])
    ev = evaluate(CHART, g, 0)
    assert ev.mode is Mode.NORMAL and ev.reason is Reason.EARNED
    assert ev.choices == ("normal-rainbow", "normal-65", "normal-60")
    assert ev.earned == ("normal-rainbow",)
    assert evaluate(CHART, g, 1).earned == () and evaluate(CHART, g, 1).reason is (
        Reason.NOT_WINNER)


def test_the_winner_may_choose_another_row():
    g = game(TWO, [score(67, rainbow=True), score(60)])
    assert evaluate(CHART, g, 0, prefer="normal-65").earned == ("normal-65",)
    with pytest.raises(ValueError):
        evaluate(CHART, g, 0, prefer="normal-70")  # not met
    with pytest.raises(ValueError):
        evaluate(CHART, g, 0, prefer="normal-rainbow", already={"normal-rainbow"})


def test_rows_already_earned_are_skipped():
    """A row is earned once: the rarest new one is filled; with none left, nothing."""
    g = game(TWO, [score(67, rainbow=True), score(60)])
    ev = evaluate(CHART, g, 0, already={"normal-rainbow", "scenario-3"})
    assert ev.earned == ("normal-65",) and ev.choices == ("normal-65", "normal-60")
    ev = evaluate(CHART, g, 0, already={"normal-rainbow", "normal-65", "normal-60"})
    assert ev.earned == () and ev.reason is Reason.ALREADY_EARNED


def test_a_win_matching_no_row_earns_nothing():
    ev = evaluate(CHART, game(TWO, [score(58), score(41)]), 0)
    assert ev.earned == () and ev.reason is Reason.NO_MATCH


def test_solo_normal_games_earn_nothing():
    """Normal-game rows need a multi-player game, also when the caller says the opponents
    did not count (all computers)."""
    solo = config(players=1)
    assert evaluate(CHART, game(solo, [score(90)]), 0).reason is Reason.SOLO
    g = game(TWO, [score(90), score(30)])
    assert evaluate(CHART, g, 0, multiplayer=False).reason is Reason.SOLO
    assert evaluate(CHART, g, 0, multiplayer=True).earned == ("normal-85",)


def test_a_shared_victory_rewards_each_winner():
    """Tied on points, cats and buttons: both are winners and both may fill a row."""
    g = game(config(players=3), [score(70), score(70), score(50)])
    assert g.winners == (0, 1)
    assert evaluate(CHART, g, 0).earned == evaluate(CHART, g, 1).earned == ("normal-70",)
    assert evaluate(CHART, g, 2).earned == ()


def test_restriction_game_rewards_its_winner_with_that_restriction():
    """The winner fills the restriction's circle, nothing from the normal rows."""
    cfg = config(players=3, restriction=Restriction.SAME_PATTERN)
    g = game(cfg, [score(40), score(85, rainbow=True), score(60)])
    ev = evaluate(CHART, g, 1)
    assert ev.mode is Mode.RESTRICTION
    assert ev.earned == ("restriction-same-pattern",) and ev.choices == ()
    assert evaluate(CHART, g, 2).reason is Reason.NOT_WINNER
    assert evaluate(CHART, g, 1, already={"restriction-same-pattern"}).reason is (
        Reason.ALREADY_EARNED)
    solo = game(config(players=1, restriction=Restriction.SAME_PATTERN), [score(85)])
    assert evaluate(CHART, solo, 0).reason is Reason.SOLO


def test_scenario_rewards_everyone_who_passes():
    """Solo or multi-player, every seat that passes earns the scenario; winning is not
    needed and losing does not matter."""
    cfg = config(players=3, scenario=6)
    g = game(cfg, [score(70), score(64), score(40)], passed=(True, True, False))
    assert [evaluate(CHART, g, s).earned for s in range(3)] == [
        ("scenario-6",), ("scenario-6",), ()]
    assert evaluate(CHART, g, 2).reason is Reason.NOT_PASSED
    assert evaluate(CHART, g, 0, already={"scenario-6"}).reason is Reason.ALREADY_EARNED
    solo = game(config(players=1, scenario=1), [score(60)], passed=(True,))
    assert evaluate(CHART, solo, 0).earned == ("scenario-1",)


@pytest.mark.parametrize("flag", ["computer_played", "hints_used"])
def test_help_from_a_computer_or_hints_earns_nothing(flag):
    g = game(TWO, [score(90, rainbow=True), score(30)])
    ev = evaluate(CHART, g, 0, **{flag: True})
    assert ev.earned == () and ev.reason == flag
    passed = game(config(players=1, scenario=2), [score(70)], passed=(True,))
    assert evaluate(CHART, passed, 0, **{flag: True}).earned == ()


def test_family_games_earn_nothing():
    g = game(config(players=2, family=True), [score(80), score(30)])
    ev = evaluate(CHART, g, 0)
    assert ev.mode is None and ev.reason is Reason.FAMILY


def test_evaluate_all_people_seats():
    """One call for the people's seats (seat -> achievements that player has)."""
    g = game(config(players=4), [score(75), score(80, rainbow=True), score(50), score(70)])
    out = evaluate_all(CHART, g, {1: {"normal-80"}, 3: set()})
    assert set(out) == {1, 3}
    assert out[1].earned == ("normal-75",)
    assert out[3].reason is Reason.NOT_WINNER


def test_only_the_seat_concerned_earns_nothing():
    """A hint or a computer move voids that seat's achievements, not the table's: in a
    scenario every other player who passes still earns it."""
    cfg = config(players=3, scenario=1)
    g = game(cfg, [score(70), score(70), score(70)], passed=(True, True, True))
    out = evaluate_all(CHART, g, {0: set(), 1: set(), 2: set()},
                       computer_played={1}, hints_used={2})
    assert out[0].earned == ("scenario-1",)
    assert out[1].reason is Reason.COMPUTER_PLAYED and out[1].earned == ()
    assert out[2].reason is Reason.HINTS_USED and out[2].earned == ()


def test_the_scenario_path_goes_up_from_the_lowest_open_scenario():
    """Start with scenario 1, work up to 10: the next is the lowest not passed."""
    assert scenario_path(CHART, []) == ScenarioPath((), 1, 10)
    assert scenario_path(CHART, ["scenario-1", "scenario-2", "normal-65"]).next == 3
    gap = scenario_path(CHART, ["scenario-1", "scenario-3"])
    assert gap.passed == (1, 3) and gap.next == 2
    done = scenario_path(CHART, [f"scenario-{n}" for n in range(1, 11)])
    assert done.next is None and len(done.passed) == 10


def test_no_such_seat():
    with pytest.raises(ValueError):
        evaluate(CHART, game(TWO, [score(), score()]), 2)


# --------------------------------------------------------------------------- real games


def play(options: GameOptions, seed: int, level: str = "normal") -> tuple[GameState,
                                                                          list[Event]]:
    """A whole game between computer players; the final state and the last move's events."""
    state = new_game(CATALOG, options, seed)
    players = [make_player(level, seed * 7 + i) for i in range(options.players)]
    events: list[Event] = []
    while state.phase is not Phase.OVER:
        seat = state.deciding_seat
        assert seat is not None
        move = players[seat].choose(private_view(state, seat), legal_moves(state, seat))
        state, events = apply(state, move)
    return state, events


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 5), (4, 8)])
def test_real_normal_games(players, seed):
    """Played games: the end events and the final state give the same finished game; the
    winner gets the rarest row their quilt meets, everyone else nothing."""
    state, events = play(GameOptions(players=players), seed)
    from_state = FinishedGame.from_state(state)
    from_events = FinishedGame.from_events(state.config, events)
    assert from_state == from_events
    for seat in range(players):
        ev = evaluate(CHART, from_events, seat)
        met = normal_rows_met(CHART, breakdown(state.config, state.seats[seat]))
        if seat in from_state.winners:
            assert ev.earned == met[:1] and ev.choices == met
        else:
            assert ev.earned == () and ev.reason is Reason.NOT_WINNER


def test_real_restriction_and_scenario_games():
    """A restricted game rewards its winner with the restriction; a scenario game every seat
    whose ScenarioResult says passed."""
    state, events = play(GameOptions(players=2, restriction=Restriction.ADJACENT), 4)
    g = FinishedGame.from_events(state.config, events)
    (winner,) = g.winners
    assert evaluate(CHART, g, winner).earned == ("restriction-adjacent",)
    for seed in range(6):
        state, events = play(GameOptions(players=1, scenario=1), seed)
        g = FinishedGame.from_events(state.config, events)
        assert g == FinishedGame.from_state(state)
        (result,) = [e for e in events if e.kind == "scenario_result"]
        assert evaluate(CHART, g, 0).earned == (("scenario-1",) if result.passed else ())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(), st.sets(st.sampled_from([a.id for a in CHART.enabled])))
def test_evaluation_invariants(setup, already):
    """Any game, any achievements already held: at most one new achievement per seat, never
    one already held, of the game's mode; losers and non-passers get nothing; both ways of
    describing the finished game agree."""
    options, seed, move_seed = setup
    state, _, events = play_random(options, seed, move_seed)
    g = FinishedGame.from_state(state)
    assert g == FinishedGame.from_events(state.config, events[-1])
    mode = game_mode(state.config)
    for seat in range(options.players):
        ev = evaluate(CHART, g, seat, already=already)
        assert len(ev.earned) <= 1 and not set(ev.earned) & already
        assert ev.mode is mode
        for i in ev.earned:
            assert CHART.get(i).mode == mode
        if ev.earned and mode in (Mode.NORMAL, Mode.RESTRICTION):
            assert seat in g.winners and options.players > 1
        if ev.earned and mode is Mode.SCENARIO:
            assert g.scenario_passed[seat]
        assert (ev.reason is Reason.EARNED) == bool(ev.earned)
        assert ev.earned == ev.choices[:1] or mode is not Mode.NORMAL


def test_unfinished_game_is_refused():
    state = new_game(CATALOG, GameOptions(players=2), 1)
    with pytest.raises(ValueError):
        FinishedGame.from_state(state)
    with pytest.raises(ValueError):
        FinishedGame.from_events(state.config, [])


# --------------------------------------------------------------------------- the track


def test_track_from_nothing_to_master():
    """Each point fills the next shape; a title is reached with the last shape of its
    stretch; the next target is where the next title is reached."""
    start = track_position(CHART, 0)
    assert (start.title, start.next_shape, start.next_level, start.next_target) == (
        None, 0, 0, 5)
    assert start.to_next == 5 and not start.complete
    mid = track_position(CHART, 12)
    assert (mid.title, mid.next_shape, mid.next_level, mid.next_target) == (1, 12, 2, 15)
    assert mid.shapes_filled == (5, 5, 2, 0, 0, 0)
    five = track_position(CHART, 5)
    assert (five.title, five.next_level, five.next_target) == (0, 1, 10)
    last = track_position(CHART, 25)
    assert (last.title, last.next_shape, last.next_level, last.next_target) == (4, 25, 5, 26)
    full = track_position(CHART, 26)
    assert full.complete and full.title == 5 and full.next_target is None
    assert full.to_next is None and full.shapes_filled == (5, 5, 5, 5, 5, 1)
    assert track_position(CHART, 40) == full
    with pytest.raises(ValueError):
        track_position(CHART, -1)


def test_progress_counts_only_awardable_ids():
    held = {"scenario-1", "normal-65", "normal-printed-3", "something-old"}
    assert progress(CHART, held).points == 2
    assert progress(CHART, {a.id for a in CHART.enabled}).complete


def test_track_length_follows_the_data():
    """The position works for any track the data describes (here, a first title of one
    shape: model_construct skips the check that the track fits the rows)."""
    levels = (CHART.track[0].model_copy(update={"shapes": 1}), *CHART.track[1:])
    short = CHART.model_construct(track=levels, achievements=CHART.achievements,
                                  normal_rarity=CHART.normal_rarity)
    assert track_position(short, 1).title == 0
    assert track_position(short, 22).complete


def _chart_dict() -> dict[str, Any]:
    return CHART.model_dump(mode="json")


def _drop_rarity(d):
    d["normal_rarity"] = d["normal_rarity"][1:]


def _short_track(d):
    d["track"][0]["shapes"] = 4


def _twice(d):
    d["achievements"].append(dict(d["achievements"][0]))


def _no_condition(d):
    next(a for a in d["achievements"] if a["id"] == "normal-60")["condition"] = None


def _empty_condition(d):
    next(a for a in d["achievements"] if a["id"] == "normal-60")["condition"] = {}


def _mixed_fields(d):
    d["achievements"][0]["restriction"] = "adjacent"


@pytest.mark.parametrize("edit", [_drop_rarity, _short_track, _twice, _no_condition,
                                  _empty_condition, _mixed_fields])
def test_chart_data_is_checked(edit):
    """The loader refuses a chart whose rarity order misses a row, whose track does not fit
    the rows, with a duplicate id, a normal row without (or with an empty) condition, or a
    row carrying another mode's field."""
    from data.catalog import AchievementChart

    d = _chart_dict()
    AchievementChart.model_validate(d)
    edit(d)
    with pytest.raises(ValueError):
        AchievementChart.model_validate(d)
