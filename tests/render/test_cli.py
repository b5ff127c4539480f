"""``python -m render quilt FILE OUT.png`` and ``python -m render gallery DIR``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from engine.quilt_record import quilt_record
from engine.state import GameState
from render import quilt_layout
from render.__main__ import main

from .helpers import decode


def test_quilt_record_to_png(two_end: GameState, tmp_path: Path) -> None:
    rec = quilt_record(two_end, 1)
    src = tmp_path / "rec.json"
    src.write_text(json.dumps(rec), encoding="utf-8")
    out = tmp_path / "out.png"
    assert main(["quilt", str(src), str(out)]) == 0
    img = decode(out.read_bytes())
    assert img.size == quilt_layout().size


def test_quilt_record_from_stdin(two_end: GameState, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rec = quilt_record(two_end, 0)
    rec["placements"] = rec["placements"][:7]  # a quilt still in progress is fine too
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(rec)))
    out = tmp_path / "out.png"
    assert main(["quilt", "-", str(out)]) == 0
    assert decode(out.read_bytes()).size == quilt_layout().size


def test_bad_record_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "bad.json"
    src.write_text(json.dumps({"board": "nowhere", "goals": [], "cats": [], "placements": []}))
    assert main(["quilt", str(src), str(tmp_path / "x.png")]) == 2
    assert "board" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_gallery_writes_images(tmp_path: Path) -> None:
    assert main(["gallery", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.png"))
    names = {f.stem for f in files}
    assert {"draft", "turn", "table_2p", "quilt_final", "scoresheet_2p"} <= names
    for f in files:
        assert len(f.read_bytes()) <= 300 * 1024
        assert decode(f.read_bytes()).width >= 600


def test_gallery_replay_is_a_strong_game() -> None:
    """The gallery's replay is a real game: the stored record of the strong players' game
    plays to its end, with scores random play never reaches (random moves from the same
    seed: 3 to 17 points; the strong players: 57 to 76)."""
    from data import load_catalog
    from engine.serialize import replay
    from engine.state import Phase
    from engine.views import public_view
    from render.samples import STRONG_GAME_ARGS, play_record, strong_record

    record = strong_record()
    options, seed, _ = STRONG_GAME_ARGS
    assert record["seed"] == seed and record["options"]["players"] == options.players
    state = replay(load_catalog(), record)
    assert state.phase is Phase.OVER
    totals = [s.score["total"] for s in public_view(state).seats]
    assert min(totals) >= 50 and max(totals) >= 70, totals
    randomly = replay(load_catalog(), play_record(options, seed))
    assert max(s.score["total"] for s in public_view(randomly).seats) < min(totals)
