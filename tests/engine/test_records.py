"""Quilt records through the scorer: hand-worked records, the 48 golden records, the sample
record, and the record validation of the scorer contract (design.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.errors import BadRecordError
from engine.quilt_record import replay_quilt, score_record
from tests.engine.hand_records import (
    HAND_RECORDS,
    RULEBOOK,
    SAMPLE_SCORE,
)
from tests.engine.helpers import CATALOG, COLORS, DATA, oracle_goal, oracle_tokens

GOLDEN: list[dict[str, Any]] = json.loads((DATA / "golden-records.json").read_text())
SAMPLE: dict[str, Any] = json.loads((DATA / "sample-record.json").read_text())


def assert_breakdown(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Every key of ``expected`` has that value in ``actual`` (keys may be added, never lost)."""
    for key, value in expected.items():
        if key == "goals":
            assert len(actual["goals"]) == len(value)
            for got, want in zip(actual["goals"], value, strict=True):
                assert {k: got[k] for k in want} == want
        else:
            assert actual[key] == value, key


@pytest.mark.parametrize(("rec", "expected"), [h[1:] for h in HAND_RECORDS],
                         ids=[h[0] for h in HAND_RECORDS])
def test_hand_worked_records(rec, expected):
    """Records scored by hand from the rules (reasoning in hand_records.py)."""
    assert_breakdown(score_record(CATALOG, rec), expected)


def test_rulebook_example_split():
    """The rulebook's example: 29 goal, 23 cat and 21 button points, 73 in all."""
    score = score_record(CATALOG, RULEBOOK)
    assert (score["goal_points"], score["cat_points"], score["button_points"]) == (29, 23, 21)
    assert score["total"] == 73
    assert len(RULEBOOK["placements"]) == 22


def test_rulebook_example_tokens_do_not_depend_on_the_order():
    """Each colour and pattern there has one big group, so any order scores the same."""
    rev = dict(RULEBOOK, placements=RULEBOOK["placements"][::-1])
    alt = dict(RULEBOOK, placements=RULEBOOK["placements"][1::2] + RULEBOOK["placements"][::2])
    assert score_record(CATALOG, rev) == score_record(CATALOG, alt) == score_record(CATALOG,
                                                                                    RULEBOOK)


@pytest.mark.parametrize("case", range(len(GOLDEN)))
def test_golden_records(case):
    """The 48 golden records score exactly the expected breakdown."""
    g = GOLDEN[case]
    assert_breakdown(score_record(CATALOG, g["record"]), g["expected"])


def test_golden_records_cover_the_rules():
    """The golden set exercises every goal, every cat, rainbows and partial quilts."""
    goals = {x["goal"] for g in GOLDEN for x in g["expected"]["goals"]}
    cats = {c for g in GOLDEN for c in g["expected"]["cats"]}
    assert goals == set(CATALOG.goals) and cats == set(CATALOG.cats)
    assert any(g["expected"]["rainbow"] for g in GOLDEN)


def test_sample_record():
    """The sample record scores 25, as followed placement by placement in hand_records.py."""
    assert_breakdown(score_record(CATALOG, SAMPLE), SAMPLE_SCORE)


def test_breakdown_shape():
    """Every cat under cats, every colour under buttons, every spot under goals, B3 C4 D2."""
    score = score_record(CATALOG, SAMPLE)
    assert list(score["cats"]) == [c["cat"] for c in SAMPLE["cats"]]
    assert set(score["buttons"]) == set(COLORS)
    assert [g["goal"] for g in score["goals"]] == SAMPLE["goals"]
    assert [g["spot"] for g in score["goals"]] == ["B3", "C4", "D2"]
    assert score["button_points"] == 3 * (sum(score["buttons"].values()) + score["rainbow"])
    assert score["total"] == score["cat_points"] + score["button_points"] + score["goal_points"]


def test_empty_record_scores_zero():
    """No placements: nothing earned, nothing surrounded."""
    rec = dict(SAMPLE, placements=[])
    assert score_record(CATALOG, rec)["total"] == 0


def test_cells_are_read_case_insensitively():
    """``c3`` names the same cell as ``C3``."""
    rec = dict(SAMPLE, placements=[dict(p, cell=p["cell"].lower()) for p in SAMPLE["placements"]])
    assert score_record(CATALOG, rec) == score_record(CATALOG, SAMPLE)


def _with(**changes: Any) -> dict[str, Any]:
    rec = json.loads(json.dumps(SAMPLE))
    rec.update(changes)
    return rec


def _placement(i: int, **changes: Any) -> dict[str, Any]:
    rec = json.loads(json.dumps(SAMPLE))
    rec["placements"][i].update(changes)
    return rec


# (what is wrong, the record, a word the message must contain)
MALFORMED: list[tuple[str, Any, str]] = [
    ("unknown board", _with(board="red"), "board"),
    ("unknown goal", _with(goals=["aaa-bbb", "aa-bb-cc", "nope"]), "goal"),
    ("unknown cat", _with(cats=[{"cat": "garfield", "patterns": ["quatrefoil", "ferns"]},
                                *SAMPLE["cats"][1:]]), "cat"),
    ("unknown pattern of a cat", _with(cats=[{"cat": "millie", "patterns": ["plaid", "ferns"]},
                                             *SAMPLE["cats"][1:]]), "pattern"),
    ("unknown colour", _placement(0, color="orange"), "colour"),
    ("unknown pattern", _placement(0, pattern="plaid"), "pattern"),
    ("cell outside A1-E5", _placement(0, cell="F1"), "A1"),
    ("cell outside A1-E5 (column)", _placement(0, cell="A6"), "A1"),
    ("border cell", _placement(0, cell="A0"), "A1"),
    ("goal spot", _placement(0, cell="C4"), "goal"),
    ("already filled cell", _placement(1, cell=SAMPLE["placements"][0]["cell"]), "filled"),
    ("two cats sharing a pattern", _with(cats=[
        {"cat": "millie", "patterns": ["quatrefoil", "ferns"]},
        {"cat": "cira", "patterns": ["ferns", "dots"]},
        SAMPLE["cats"][2]]), "share"),
    ("more than three copies", _with(placements=[
        {"cell": c, "color": "green", "pattern": "dots"} for c in ("A1", "A2", "A3", "A4")]),
     "more than 3"),
    ("two goals", _with(goals=["aaa-bbb", "aa-bb-cc"]), "three goals"),
    ("four goals", _with(goals=["aaa-bbb", "aa-bb-cc", "aaaa-bb", "all-different"]),
     "three goals"),
    ("two cats", _with(cats=SAMPLE["cats"][:2]), "three cats"),
    ("four cats", _with(cats=[*SAMPLE["cats"], {"cat": "leo", "patterns": ["a", "b"]}]),
     "three cats"),
    ("the same goal twice", _with(goals=["aaa-bbb", "aaa-bbb", "aa-bb-cc"]), "goal"),
    ("the same cat twice", _with(cats=[SAMPLE["cats"][0], SAMPLE["cats"][1],
                                       {"cat": "millie", "patterns": ["flowers", "stripes"]}]),
     "cat"),
    ("missing placements", {k: v for k, v in SAMPLE.items() if k != "placements"},
     "placements"),
    ("not an object", ["not", "a", "record"], "object"),
    ("a list where the board id belongs", _with(board=["blue"]), "board"),
    ("a list where a goal id belongs", _with(goals=[["aaa-bbb"], "aa-bb-cc", "aaaa-bb"]), "goal"),
    ("a list where a cat id belongs", _with(cats=[{"cat": ["millie"], "patterns": ["dots",
                                                                                 "ferns"]},
                                                  *SAMPLE["cats"][1:]]), "cat"),
]


@pytest.mark.parametrize(("what", "rec", "word"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_records_are_rejected(what, rec, word):
    """Each kind of malformed record raises BadRecordError naming the problem."""
    with pytest.raises(BadRecordError) as exc:
        replay_quilt(CATALOG, rec)
    assert exc.value.code == "bad_record"
    assert word.lower() in exc.value.message.lower(), exc.value.message
    assert "\n" not in exc.value.message


def _oracle_breakdown(rec: dict[str, Any]) -> dict[str, Any]:
    placements = [(p["cell"].upper(), p["color"], p["pattern"]) for p in rec["placements"]]
    cats = [(c["cat"], c["patterns"]) for c in rec["cats"]]
    buttons, tokens, rainbow = oracle_tokens(rec["board"], cats, placements)
    goals = [oracle_goal(rec["board"], spot, g, placements)
             for spot, g in zip(("B3", "C4", "D2"), rec["goals"], strict=True)]
    return {
        "buttons": buttons, "rainbow": rainbow,
        "cats": {c: {"tokens": n, "points": n * CATALOG.cats[c].points} for c, n in tokens.items()},
        "goals": [{"goal": g, "colors": a, "patterns": b, "points": pts}
                  for g, (a, b, pts) in zip(rec["goals"], goals, strict=True)],
    }


ALL_RECORDS = ([(f"golden-{i}", g["record"]) for i, g in enumerate(GOLDEN)]
               + [("sample", SAMPLE)] + [(h[0], h[1]) for h in HAND_RECORDS])


@pytest.mark.parametrize(("rec"), [r[1] for r in ALL_RECORDS], ids=[r[0] for r in ALL_RECORDS])
def test_scorer_agrees_with_an_independent_reading_of_the_rulings(rec):
    """A plain-sets re-reading of the token and goal rulings gives the scorer's breakdown."""
    assert_breakdown(score_record(CATALOG, rec), _oracle_breakdown(rec))


@pytest.mark.parametrize(("rec", "expected"), [h[1:] for h in HAND_RECORDS],
                         ids=[h[0] for h in HAND_RECORDS])
def test_the_independent_reading_matches_the_hand_scores(rec, expected):
    """(The test oracle itself agrees with the hand-worked records.)"""
    mine = _oracle_breakdown(rec)
    for key in ("cats", "buttons", "rainbow", "goals"):
        if key in expected:
            assert_breakdown(mine, {key: expected[key]})
