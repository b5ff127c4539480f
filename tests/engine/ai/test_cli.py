"""``python -m engine play --ai LEVEL --json``: every record re-scores to the seat's score."""

from __future__ import annotations

import json

import pytest

from data import Catalog
from engine.ai import LEVELS
from engine.ai.players import StrongPlayer
from engine.cli import main
from engine.quilt_record import score_record


@pytest.mark.parametrize("args", [
    ["--players", "1", "--ai", "easy", "--games", "2"],
    ["--players", "2", "--ai", "normal,easy", "--seed", "4"],
    ["--players", "1", "--ai", "normal", "--scenario", "1"],
    ["--players", "2", "--ai", "strong,normal", "--setup", "beginner", "--seed", "9"],
    ["--players", "1", "--ai", "strong", "--seed", "3"],
])
def test_play_json_records_rescore(catalog: Catalog, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    # strong with a small search budget: same code path, quick enough for the suite
    monkeypatch.setitem(LEVELS, "strong",
                        lambda seed: StrongPlayer(seed, width=2, samples=1, pool=6))
    assert main(["play", *args, "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    games = int(args[args.index("--games") + 1]) if "--games" in args else 1
    assert len(lines) == games
    levels = args[args.index("--ai") + 1].split(",")
    for line in lines:
        game = json.loads(line)
        for p in game["players"]:
            assert p["ai"] == (levels[p["seat"]] if len(levels) > 1 else levels[0])
            assert len(p["record"]["placements"]) == 22
            assert score_record(catalog, p["record"]) == p["score"]
