"""The three catalogues stay in step: same keys, same placeholders, valid plural tables."""

from __future__ import annotations

import pytest

from bot.words import catalogue as i18n
from bot.words.catalogue import LANGS, Text, lang_of, load, placeholders, plural_form, t

PLURAL_FORMS = {"en": {"one", "other"}, "fr": {"one", "other"}, "pl": {"one", "few", "many"}}


@pytest.mark.parametrize("lang", LANGS)
def test_same_keys_as_english(lang: str) -> None:
    """Every catalogue has exactly the English keys."""
    en, other = set(load("en")), set(load(lang))
    assert sorted(en - other) == [], f"{lang} is missing keys"
    assert sorted(other - en) == [], f"{lang} has extra keys"


@pytest.mark.parametrize("lang", LANGS)
def test_same_placeholders_as_english(lang: str) -> None:
    """A translation uses the same {placeholders} as the English text."""
    en = load("en")
    bad = {k: (placeholders(en[k]), placeholders(v)) for k, v in load(lang).items()
           if placeholders(en[k]) != placeholders(v)}
    assert bad == {}


@pytest.mark.parametrize("lang", LANGS)
def test_plural_tables_have_the_language_forms(lang: str) -> None:
    """Plural entries list exactly the forms that language needs."""
    for key, entry in load(lang).items():
        if isinstance(entry, dict):
            assert set(entry) == PLURAL_FORMS[lang], (lang, key)
            assert isinstance(load("en")[key], dict), key


@pytest.mark.parametrize("lang", LANGS)
def test_every_entry_formats(lang: str) -> None:
    """Each entry formats with its own placeholders filled in."""
    for key, entry in load(lang).items():
        kwargs = dict.fromkeys(placeholders(entry), "x")
        kwargs["count"] = 3
        text = t(lang, key, **kwargs)
        assert "{" not in text or key.startswith("rules."), (lang, key, text)


def test_locale_mapping() -> None:
    """Discord locales map to our three languages; anything else reads English."""
    assert lang_of("fr") == "fr"
    assert lang_of("pl") == "pl"
    assert lang_of("en-US") == "en"
    assert lang_of("de") == "en"
    assert lang_of(None) == "en"


def test_polish_plurals() -> None:
    assert [plural_form("pl", n) for n in (1, 2, 4, 5, 12, 22, 25)] == [
        "one", "few", "few", "many", "many", "few", "many"]
    assert Text("pl")("status.bag", count=22) == "W woreczku zostały 22 kafelki."


def test_missing_key_falls_back_to_the_key() -> None:
    assert t("fr", "no.such.key") == "no.such.key"


def test_game_terms_come_from_the_rulebooks() -> None:
    """The French and Polish catalogues use each rulebook's own names for the game's pieces."""
    assert "Maître Couturier" in i18n.t("fr", "term.master_quilter")
    assert "Mistrz szycia kołder" in i18n.t("pl", "term.master_quilter")
    assert i18n.t("fr", "term.market") == "Marché"
    assert i18n.t("pl", "term.market") == "Rynek"
    assert "Objectifs de réalisation" in i18n.t("fr", "term.goals")
    assert "kafelki projektów" in i18n.t("pl", "term.goals").lower()
