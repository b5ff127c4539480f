"""The words of issue #22's choices: the scenario path line of ``/calico achievements`` and the
achievement rulings of ``/calico rules topic:achievements``, in every language."""

from __future__ import annotations

import pytest

from bot.words import answers
from bot.words import progress as progress_words
from bot.words.catalogue import LANGS, Text
from data import load_catalog
from engine.achievements import scenario_path

CHART = load_catalog().achievements


@pytest.mark.parametrize("lang", LANGS)
def test_the_scenario_path_names_the_next_scenario(lang: str) -> None:
    tr = Text(lang)
    start = progress_words.scenario_path_line(tr, scenario_path(CHART, []))
    assert "scenario:1`" in start and "10" in start
    line = progress_words.scenario_path_line(
        tr, scenario_path(CHART, ["scenario-1", "scenario-2", "normal-60"]))
    assert "scenario:3`" in line and "1, 2" in line and "2" in line
    done = progress_words.scenario_path_line(
        tr, scenario_path(CHART, [f"scenario-{n}" for n in range(1, 11)]))
    assert done == tr("progress.path.done", total=10) and "scenario:" not in done


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_state_the_achievement_rulings(lang: str) -> None:
    """The points-row ruling (67 with a rainbow: 60+, 65+ or the rainbow row, one of them)
    and the per-seat voiding are written in /calico rules, in each language."""
    tr = Text(lang)
    assert "achievements" in answers.RULE_TOPICS
    text = answers.rules_text(tr, "achievements")
    assert text == tr("rules.achievements")
    for fact in ("67", "60+", "65+", "/calico achievements"):
        assert fact in text
    assert len(text) < 2000
    assert "`achievements`" in answers.rules_text(tr, "overview")
