"""``python -m engine score`` and ``python -m engine play`` (the contracts in design.md)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.quilt_record import score_record
from engine.scoring import rank
from tests.engine.helpers import CATALOG, DATA
from tests.engine.test_records import GOLDEN, MALFORMED, SAMPLE, assert_breakdown

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def test_score_a_file():
    """A record file: its breakdown as JSON on stdout, exit 0."""
    out = run("score", str(DATA / "sample-record.json"))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == score_record(CATALOG, SAMPLE)


def test_score_standard_input():
    """``-`` reads the record from standard input."""
    out = run("score", "-", stdin=json.dumps(SAMPLE))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["total"] == 25


def test_score_an_array_in_order(tmp_path):
    """An array of records gives an array of breakdowns in the same order (the 48 golden)."""
    path = tmp_path / "golden.json"
    path.write_text(json.dumps([g["record"] for g in GOLDEN]))
    out = run("score", str(path))
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert len(got) == len(GOLDEN)
    for actual, g in zip(got, GOLDEN, strict=True):
        assert_breakdown(actual, g["expected"])


def test_malformed_record_exits_2_with_one_line(tmp_path):
    """A malformed record: exit 2, nothing on stdout, a one-line reason on stderr."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dict(SAMPLE, board="red")))
    out = run("score", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "board" in out.stderr


def score_in_process(monkeypatch, capsys, data):
    monkeypatch.setattr(sys, "stdin", io.StringIO(data if isinstance(data, str)
                                                  else json.dumps(data)))
    code = main(["score", "-"])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(("what", "rec", "word"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_each_kind_of_malformed_record_exits_2(monkeypatch, capsys, what, rec, word):
    """Every kind of malformed record listed in design.md: exit 2 and one line naming it."""
    code, out, err = score_in_process(monkeypatch, capsys, rec)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and word.lower() in lines[0].lower(), err


def test_score_an_empty_array(monkeypatch, capsys):
    """``[]`` gives ``[]``."""
    code, out, _ = score_in_process(monkeypatch, capsys, "[]")
    assert (code, json.loads(out)) == (0, [])


def test_malformed_record_in_an_array_is_named(monkeypatch, capsys):
    """In an array, the message says which record is wrong."""
    bad = dict(SAMPLE, board="red")
    code, out, err = score_in_process(monkeypatch, capsys, [SAMPLE, bad])
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()] and "record 1" in err


@pytest.mark.parametrize("text", ["{not json", ""])
def test_not_json_exits_2(monkeypatch, capsys, text):
    """Input that is not JSON: exit 2 and one line."""
    code, out, err = score_in_process(monkeypatch, capsys, text)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_missing_file_exits_2(tmp_path, capsys):
    """A file that cannot be read: exit 2 and one line."""
    code = main(["score", str(tmp_path / "nope.json")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_play_json_matches_the_contract():
    """``play --json --games 2``: one contract object per game; each record re-scores the same."""
    out = run("play", "--players", "2", "--ai", "random", "--json", "--games", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2
    games = [json.loads(line) for line in lines]
    assert len({g["seed"] for g in games}) == 2
    for game in games:
        assert {"seed", "players"} <= game.keys()
        players = game["players"]
        assert [p["seat"] for p in players] == [0, 1]
        for p in players:
            assert {"seat", "ai", "place", "score", "record"} <= p.keys()
            assert p["ai"] == "random"
            assert {"board", "goals", "cats", "placements"} <= p["record"].keys()
            assert len(p["record"]["placements"]) == 22
            assert score_record(CATALOG, p["record"]) == p["score"]
        places, _, _ = rank([p["score"] for p in players])
        assert [p["place"] for p in players] == list(places)
        assert len({p["record"]["board"] for p in players}) == 2


def test_play_rescored_through_the_cli(tmp_path):
    """The records printed by ``play`` go through ``score`` unchanged and score the same."""
    out = run("play", "--players", "3", "--ai", "random", "--json", "--seed", "11")
    game = json.loads(out.stdout)
    path = tmp_path / "records.json"
    path.write_text(json.dumps([p["record"] for p in game["players"]]))
    scored = run("score", str(path))
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout) == [p["score"] for p in game["players"]]


def test_play_is_reproducible_by_seed(capsys):
    """The same seed plays the same games; another seed plays another."""
    outs = []
    for seed in ("5", "5", "6"):
        assert main(["play", "--players", "2", "--ai", "random", "--json", "--seed", seed]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] != outs[2]


def test_play_table_without_json(capsys):
    """Without ``--json``: a readable table with one row per seat."""
    code = main(["play", "--players", "2", "--ai", "random", "--seed", "3"])
    text = capsys.readouterr().out
    assert code == 0
    lines = text.strip().splitlines()
    assert "total" in lines[1] and len(lines) == 4


@pytest.mark.parametrize("args", [["--ai", "random,random,random"], ["--ai", "grandmaster"]])
def test_play_rejects_bad_levels(capsys, args):
    """A wrong number of levels or an unknown level: exit 2 and a message."""
    code = main(["play", "--players", "2", *args, "--json"])
    assert code == 2 and capsys.readouterr().err.strip()
