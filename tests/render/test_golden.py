"""Golden images of seeded games, one per picture type, compared with a small tolerance.

The goldens are the renders at phone width, 400 px wide (box-filtered, as a phone shows them):
small in the repo, forgiving of sub-pixel antialiasing differences between FreeType builds,
and what a player sees. To regenerate
after an intended change to the look, run:

    CALICO_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_golden.py

and look at the files in tests/render/golden/ before committing them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from data import load_catalog
from engine.config import GameOptions
from engine.events import ScenarioResult
from engine.scoring import breakdown, scenario_conditions
from engine.serialize import replay_views
from engine.state import GameState
from engine.views import private_view, public_view
from render import (
    render_achievements,
    render_draft,
    render_hand_market,
    render_quilt,
    render_replay,
    render_review_chart,
    render_rules,
    render_scoresheet,
    render_table,
    render_turn,
)
from render.samples import best_preview, play_record

from .helpers import decode
from .test_legibility import _compare
from .test_review import _review

GOLDEN = Path(__file__).resolve().parent / "golden"
REGEN = os.environ.get("CALICO_REGEN_GOLDEN") == "1"
NAMES = ["Marguerite", "Zbigniew", "Amélie", "Tomasz"]
# Mean absolute difference per channel (0-255) and the share of pixels allowed to differ by
# more than 48 in some channel: enough for antialiasing and palette rounding (measured: mean
# under 2, no such pixels), far too little for a moved tile (1.5 % of a quilt's pixels), a
# missing token (0.25 %) or a changed colour.
MAX_MEAN = 3.0
MAX_BAD_SHARE = 0.001


def _turn(state: GameState) -> bytes:
    seat = state.current_seat
    assert seat is not None
    prev, legal, source = best_preview(state)
    view = private_view(state, seat)
    last = view.public.seats[seat].placed[-1]
    return render_turn(view, name=NAMES[seat], highlight=last, preview=prev, legal=legal,
                       selected=source)


CASES: dict[str, Callable[[dict[str, GameState]], bytes]] = {
    "quilt_final": lambda g: render_quilt(public_view(g["end"]).seats[1], g["end"].config,
                                          name=NAMES[1]),
    "turn": lambda g: _turn(g["mid"]),
    "table_4p": lambda g: render_table(public_view(g["four"]), NAMES),
    "scoresheet": lambda g: render_scoresheet(public_view(g["end"]), NAMES[:2]),
    "draft": lambda g: render_draft(private_view(g["start"], 0).goal_offer, g["start"].config,
                                    seat=public_view(g["start"]).seats[0]),
    "quilt_family": lambda g: render_quilt(public_view(g["family"]).seats[0],
                                           g["family"].config),
    "table_1p": lambda g: render_table(public_view(g["solo"]), NAMES[:1]),
    "table_2p": lambda g: render_table(public_view(g["mid"]), NAMES[:2]),
    "table_3p": lambda g: render_table(public_view(g["family"]), NAMES[:3]),
    "scoresheet_scenario": lambda g: render_scoresheet(
        public_view(g["solo"]), NAMES[:1], scenario=scenario_result(g["solo"])),
    "strip": lambda g: render_hand_market(private_view(g["mid"], 0), selected=1),
    "achievements": lambda g: render_achievements(
        load_catalog().achievements, {"scenario-1", "scenario-2", "normal-60",
                                      "normal-rainbow", "restriction-no-hand"}, name=NAMES[0]),
    "review_chart": lambda g: render_review_chart(_review((3, 11, 19))),
    "review_turn": lambda g: _compare(g["mid"]),
    "rules_cats": lambda g: render_rules("cats"),
    "rules_goals": lambda g: render_rules("goals"),
    "rules_buttons": lambda g: render_rules("buttons"),
    "replay_finished": lambda g: _replay_frame(-2),
    "replay_scores": lambda g: _replay_frame(-1),
}


def scenario_result(state: GameState) -> ScenarioResult:
    sc = state.config.scenario
    assert sc is not None
    seat = state.seats[0]
    conds = tuple(scenario_conditions(state.config, seat, breakdown(state.config, seat)))
    return ScenarioResult(0, sc.number, all(c[3] for c in conds), conds)


def _replay_frame(k: int) -> bytes:
    """Frame ``k`` of a 2-player replay as a PNG (-2: the finished quilts, -1: the scores)."""
    record = play_record(GameOptions(players=2), 11, own_chooser=True)
    gif = Image.open(BytesIO(render_replay(replay_views(load_catalog(), record), NAMES[:2])))
    gif.seek(gif.n_frames + k)
    out = BytesIO()
    gif.convert("RGB").save(out, format="PNG")
    return out.getvalue()


PHONE = 400


def _phone(img: Image.Image) -> Image.Image:
    img = img.convert("RGB")
    return img.resize((PHONE, round(img.height * PHONE / img.width)), Image.Resampling.BOX)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str, two_mid: GameState, two_end: GameState, four_mid: GameState,
                draft_start: GameState, family_mid: GameState, solo_end: GameState) -> None:
    games = {"mid": two_mid, "end": two_end, "four": four_mid, "start": draft_start,
             "family": family_mid, "solo": solo_end}
    got = _phone(decode(CASES[name](games)))
    path = GOLDEN / f"{name}.png"
    if REGEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        # Stored as 256-colour PNGs to keep the repo small; the tolerance covers the rounding.
        got.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(
            path, optimize=True)
        pytest.skip(f"regenerated {path.name}")
    assert path.exists(), f"no golden {path.name}: run with CALICO_REGEN_GOLDEN=1"
    want = Image.open(path).convert("RGB")
    assert got.size == want.size
    diff = ImageChops.difference(got, want)
    stat = [sum(i * n for i, n in enumerate(h)) / (got.width * got.height)
            for h in (diff.getchannel(b).histogram() for b in range(3))]
    mean = sum(stat) / 3
    r, g, b = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b)
    bad = sum(worst.histogram()[49:]) / (got.width * got.height)
    if mean > MAX_MEAN or bad > MAX_BAD_SHARE:
        out = Path(os.environ.get("CALICO_GOLDEN_OUT", "/tmp")) / f"golden-{name}-got.png"
        got.save(out)
        pytest.fail(f"{name}: mean diff {mean:.2f}, {bad:.2%} pixels off; got saved to {out}")
