"""The presenter's words: narration, previews, endings, rules; no discord involved."""

from __future__ import annotations

import pytest

from bot import presenter as p
from bot.i18n import LANGS, Text
from engine.events import ButtonSewn, CatAttracted, GameOver, RainbowSewn, TilePlaced, TileTaken

EN = Text("en")


def test_narration_of_a_turn() -> None:
    events = [TilePlaced(0, "C3", "yellow", "dots", False, 5),
              ButtonSewn(0, "yellow", "C3", ("C3", "C4", "B3")),
              CatAttracted(0, "millie", "dots", "C3", ("C3", "C2", "B2"), 3),
              RainbowSewn(0, "C3"), TileTaken(0, 2, "green", "ferns")]
    text = p.narrate_turn(EN, "Alice", events)
    assert "**Alice** sewed yellow dots on C3 and took green ferns" in text
    assert "yellow button" in text and "Millie" in text and "+3 points" in text
    assert "rainbow" in text


def test_preview_says_what_a_placement_earns() -> None:
    text = p.preview_text(EN, "yellow dots", "C3", [ButtonSewn(0, "yellow", "C3", ("C3",) * 3)])
    assert "yellow button" in text
    assert "no token" in p.preview_text(EN, "yellow dots", "C3", [])


def test_winner_and_tie_break() -> None:
    over = GameOver((60, 60), (1, 2), (0,), "cats", ({}, {}))
    text = p.winner_text(EN, ["Alice", "Bob"], over)
    assert "Alice" in text and "Master Quilter" in text and "cat tokens" in text
    shared = GameOver((60, 60), (1, 1), (0, 1), "shared", ({}, {}))
    assert "Shared victory" in p.winner_text(EN, ["Alice", "Bob"], shared)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("topic", p.RULE_TOPICS)
def test_rules_fit_a_message(lang: str, topic: str) -> None:
    text = p.rules_text(Text(lang), topic)
    assert 50 < len(text) <= 2000
    assert "{" not in text


def test_rulings_are_stated() -> None:
    text = p.rules_text(EN, "rulings")
    for needle in ("contains", "22nd turn", "rainbow", "first tile"):
        assert needle in text


def test_draft_arrangements_fit_one_select() -> None:
    offer = ["all-different", "aaa-bbb", "aa-bb-cc", "aaaa-bb"]
    options = p.draft_arrangements(offer)
    assert len(options) == 24 and len(set(options)) == 24
    assert len(p.draft_arrangements(offer[:3])) == 6
    label = p.arrangement_label(EN, offer, (0, 1, 2))
    assert label == "B3 ≠ · C4 AAA-BBB · D2 AA-BB-CC"
    assert "AAAA-BB" in p.arrangement_left_out(EN, offer, (0, 1, 2))


def test_discord_markup() -> None:
    assert p.jump_url(1, 2) == "https://discord.com/channels/1/2"
    assert p.mention(5) == "<@5>"
    assert p.clip("abcdef", 4) == "abc…"
