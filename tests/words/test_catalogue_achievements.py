"""The achievements catalogue files cover everything the achievements code and pictures name."""

from __future__ import annotations

import pytest

from bot.words.catalogue import LANGS, load
from data import load_catalog
from engine.achievements import Reason
from render import ACHIEVEMENT_LABELS, REPLAY_LABELS

CHART = load_catalog().achievements


@pytest.mark.parametrize("lang", LANGS)
def test_every_achievement_has_a_name_and_a_description(lang: str) -> None:
    texts = load(lang)
    for a in CHART.enabled:
        assert f"achievements.name.{a.id}" in texts and f"achievements.desc.{a.id}" in texts
    for level in CHART.track:
        assert f"achievements.level.{level.id}" in texts
    for reason in Reason:
        assert f"achievements.reason.{reason.value}" in texts
    for mode in ("scenario", "normal", "restriction"):
        assert f"achievements.mode.{mode}" in texts


@pytest.mark.parametrize("lang", LANGS)
def test_picture_labels_are_translated(lang: str) -> None:
    """The bot builds the pictures' labels from achievements.image.* and .replay.*."""
    texts = load(lang)
    assert all(f"achievements.image.{k}" in texts for k in ACHIEVEMENT_LABELS)
    assert all(f"achievements.replay.{k}" in texts for k in REPLAY_LABELS)


def test_english_picture_labels_are_the_renderer_defaults() -> None:
    en = load("en")
    assert {k: en[f"achievements.image.{k}"] for k in ACHIEVEMENT_LABELS} == dict(
        ACHIEVEMENT_LABELS)
    assert {k: en[f"achievements.replay.{k}"] for k in REPLAY_LABELS} == dict(REPLAY_LABELS)


def test_titles_are_the_rulebooks_own() -> None:
    """French and Polish track titles as the rulebooks print them."""
    assert load("fr")["achievements.level.master-quilter"] == "MAÎTRE Quilter de Calico !"
    assert load("pl")["achievements.level.budding-quilter"] == "Początkujący kołdernik"
    assert load("fr")["achievements.mode.normal"] == "Partie classique"
    assert load("pl")["achievements.mode.restriction"] == "Ograniczenia zasad"
