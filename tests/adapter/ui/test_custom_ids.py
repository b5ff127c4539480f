"""Custom ids: every template round-trips, stays within Discord's limit and never overlaps."""

from __future__ import annotations

import re

import pytest

from bot.adapter.ui import custom_ids as ids

BIG = 10**19  # the largest game id the template accepts has 20 digits

SAMPLES: list[ids.ParsedId] = [
    *(ids.LobbyId(a, BIG) for a in ids.LOBBY_ACTIONS),
    ids.LobbyRemoveId(BIG),
    ids.DraftId(BIG, 9999),
    ids.DraftConfirmId(BIG, 9999, (3, 0, 2)),
    ids.DraftBackId(BIG, 9999),
    ids.CellId(BIG, 9999, "h1"),
    ids.CellId(BIG, 9999, "m2"),
    ids.TakeId(BIG, 9999, "h0", "E5", 2),
    ids.TakeId(BIG, 9999, "h1", "A1", None),
    ids.TakeId(BIG, 9999, "m2", "C3", None),
    ids.UndoId(BIG, 9999),
    ids.HandId(BIG),
    ids.HintId(BIG, 9999),
    ids.HintId(BIG, 9999, confirmed=True),
    ids.ReviewId(BIG),
]


@pytest.mark.parametrize("value", SAMPLES, ids=repr)
def test_round_trip_and_length(value: ids.ParsedId) -> None:
    """encode() then parse() gives the value back, within 100 characters."""
    text = value.encode()
    assert len(text) <= ids.MAX_LEN
    assert ids.parse(text) == value


@pytest.mark.parametrize("value", SAMPLES, ids=repr)
def test_exactly_one_template_matches(value: ids.ParsedId) -> None:
    """Templates never overlap, so a click reaches one handler only."""
    text = value.encode()
    assert sum(1 for t in ids.TEMPLATES if re.fullmatch(t, text)) == 1


def test_move_text_is_engine_notation() -> None:
    assert ids.TakeId(1, 5, "h0", "C3", 2).move_text() == "h0@C3>m2"
    assert ids.TakeId(1, 5, "h1", "E5", None).move_text() == "h1@E5"
    assert ids.TakeId(1, 5, "m2", "C3", None).move_text() == "m2@C3"


@pytest.mark.parametrize("text", ["", "calico:t:1:2", "other:l:join:1", "calico:l:dance:1",
                                  "calico:c:1:2:h9x", "calico:t:1:2:h0:F1:1"])
def test_foreign_ids_are_ignored(text: str) -> None:
    assert ids.parse(text) is None
