"""The presenter's words: narration, previews, endings, rules; no discord involved."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo
from bot.words import answers, markup, narration, panels, terms
from bot.words.catalogue import LANGS, Text
from engine.events import (
    ButtonSewn,
    CatAttracted,
    GameOver,
    RainbowSewn,
    ScenarioResult,
    TilePlaced,
    TileTaken,
)

EN = Text("en")
NOW = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def test_narration_of_a_turn() -> None:
    events = [TilePlaced(0, "C3", "yellow", "dots", False, 5),
              ButtonSewn(0, "yellow", "C3", ("C3", "C4", "B3")),
              CatAttracted(0, "millie", "dots", "C3", ("C3", "C2", "B2"), 3),
              RainbowSewn(0, "C3"), TileTaken(0, 2, "green", "ferns")]
    text = narration.narrate_turn(EN, "Alice", events)
    assert "**Alice** sewed yellow dots on C3 and took green ferns" in text
    assert "yellow button" in text and "Millie" in text and "+3 points" in text
    assert "rainbow" in text


def test_preview_says_what_a_placement_earns() -> None:
    text = narration.preview_text(EN, "yellow dots", "C3",
                                  [ButtonSewn(0, "yellow", "C3", ("C3",) * 3)])
    assert "yellow button" in text
    assert "no token" in narration.preview_text(EN, "yellow dots", "C3", [])


def test_winner_and_tie_break() -> None:
    over = GameOver((60, 60), (1, 2), (0,), "cats", ({}, {}))
    text = narration.winner_text(EN, ["Alice", "Bob"], over)
    assert "Alice" in text and "Master Quilter" in text and "cat tokens" in text
    shared = GameOver((60, 60), (1, 1), (0, 1), "shared", ({}, {}))
    assert "Shared victory" in narration.winner_text(EN, ["Alice", "Bob"], shared)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("topic", answers.RULE_TOPICS)
def test_rules_fit_a_message(lang: str, topic: str) -> None:
    text = answers.rules_text(Text(lang), topic)
    assert 50 < len(text) <= 2000
    assert "{" not in text


def test_rulings_are_stated() -> None:
    text = answers.rules_text(EN, "rulings")
    for needle in ("contains", "22nd turn", "rainbow", "first tile"):
        assert needle in text


def test_draft_arrangements_fit_one_select() -> None:
    offer = ["all-different", "aaa-bbb", "aa-bb-cc", "aaaa-bb"]
    options = terms.draft_arrangements(offer)
    assert len(options) == 24 and len(set(options)) == 24
    assert len(terms.draft_arrangements(offer[:3])) == 6
    label = terms.arrangement_label(EN, offer, (0, 1, 2))
    assert label == "B3 ≠ · C4 AAA-BBB · D2 AA-BB-CC"
    assert "AAAA-BB" in terms.arrangement_left_out(EN, offer, (0, 1, 2))


def test_discord_markup() -> None:
    assert markup.jump_url(1, 2) == "https://discord.com/channels/1/2"
    assert markup.mention(5) == "<@5>"
    assert markup.clip("abcdef", 4) == "abc…"


FAILED = ScenarioResult(0, 3, False, (("goals_met", 2, 2, True), ("each_cat", 3, 2, False),
                                      ("rainbow", 1, 1, True), ("score", 60, 55, False)))
PASSED = ScenarioResult(0, 1, True, (("rainbow", 1, 1, True), ("score", 58, 61, True)))
SOLO_OVER = GameOver((55,), (1,), (0,), "score",
                     ({"cat_points": 10, "button_points": 15, "goal_points": 30, "total": 55},))


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_of_a_scenario_says_passed_or_not_and_each_target(lang: str) -> None:
    tr = Text(lang)
    text = narration.game_over_text(tr, ["Ann"], [FAILED, SOLO_OVER])
    assert tr("scenario.failed", number=3) in text
    assert tr("scenario.passed", number=3) not in text
    lines = text.splitlines()
    for name, needed, reached, met in FAILED.conditions:
        line = ("✅ " if met else "❌ ") + tr(f"scenario.need.{name}", needed=needed,
                                              reached=reached, count=needed)
        assert line in lines, line
    assert f"{55}/{60}" in text and "2/3" in text  # reached / needed, as numbers
    won = narration.game_over_text(tr, ["Ann"], [PASSED, SOLO_OVER])
    assert tr("scenario.passed", number=1) in won and "❌" not in won


def test_scenario_result_survives_the_notice_payload() -> None:
    """The core stores end events as dicts in the notice; the post reads them back the same."""
    from bot.core.notices import Events
    from engine.events import event_to_dict

    events = Events.of([event_to_dict(FAILED), event_to_dict(SOLO_OVER)]).decoded()
    assert narration.game_over_text(EN, ["Ann"], events) == narration.game_over_text(EN, ["Ann"],
                                                                     [FAILED, SOLO_OVER])
    assert "Scenario 3 not passed" in narration.game_over_text(EN, ["Ann"], events)


@pytest.mark.parametrize("lang", LANGS)
def test_the_turn_told_to_its_player_speaks_to_them(lang: str) -> None:
    """The DM after one's own turn: "You sewed...", "Your quilt is complete!", never a name
    built from "you" ("you's quilt"), in every language."""
    tr = Text(lang)
    last = [TilePlaced(0, "C3", "yellow", "dots", False, 22), TileTaken(0, 2, "green", "ferns")]
    text = narration.narrate_turn(tr, None, last)
    assert tr("narrate.quilt_done_you") in text
    assert tr("narrate.place_take_you", tile=terms.tile_name(tr, "yellow", "dots"), cell="C3",
              taken=terms.tile_name(tr, "green", "ferns")) in text
    assert tr("term.you") + "'s" not in text and "**" + tr("term.you") + "**" not in text
    if lang == "en":
        assert "✨ Your quilt is complete!" in text and "**You** sewed" in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_challenge_turn_has_no_thread_to_point_to(lang: str) -> None:
    tr = Text(lang)
    seats = (SeatInfo(0, 100, "Ann", None, False),)
    events = [TilePlaced(0, "C3", "yellow", "dots", False, 5)]
    for week, key, other in ((None, "panel.done_thread", "panel.done_challenge"),
                             ("2025-W01", "panel.done_challenge", "panel.done_thread")):
        game = GameInfo(7, GameStatus.PLAY, 1, None, None, None, 100, LobbyOptions(players=1),
                        seats, 5, None, None, NOW, NOW, challenge_week=week)
        text = panels.committed(tr, game, 100, events)
        assert tr(key) in text and tr(other) not in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_turn_answered_while_the_computer_thinks_says_so(lang: str) -> None:
    """Issue 21: the click is answered before the computer that plays next has moved; the
    answer says it is thinking and where its move will come (not "waiting for")."""
    from data import load_catalog
    from engine.setup import new_game

    tr = Text(lang)
    options = LobbyOptions(players=2, setup="beginner")
    state = new_game(load_catalog(), options.engine_options(2, 1), 5)
    events = [TilePlaced(0, "C3", "yellow", "dots", False, 5)]
    for level, key, other in (("strong", "panel.thinking", "panel.waiting"),
                              (None, "panel.waiting", "panel.thinking")):
        seats = (SeatInfo(0, 100, "Ann", None, False),
                 SeatInfo(1, 200 if level is None else None, "Bob", level, False))
        game = GameInfo(7, GameStatus.PLAY, 1, 2, 3, None, 100, options, seats, 5, state, None,
                        NOW, NOW)
        assert game.current_seat == 1
        text = panels.committed(tr, game, 100, events)
        name = markup.name(terms.seat_name(tr, seats[1]))
        assert tr(key, name=name) in text and tr(other, name=name) not in text
        if lang == "en" and level is not None:
            assert "🤖 Computer (strong) is thinking… Its move comes in the thread" in text
