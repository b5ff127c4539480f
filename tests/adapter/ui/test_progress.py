"""The words and controls issue #12 adds, without a client: the score sheet's lines and
buttons, the rematch invitation's pings, the challenge summary, the leaderboard lines, the
new custom ids, and the /calico start options it touches."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from bot.adapter.options import BadOptionError, start_options
from bot.adapter.ui import challenge as challenge_ui
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import progress as ui
from bot.core.challenge.model import Summary
from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo
from bot.core.progress import model as progress
from bot.core.progress.model import RatingRow
from bot.words import progress as progress_words
from bot.words.catalogue import LANGS, Text

EN = Text("en")
NOW = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def game(players: int = 2, *, challenge: str | None = None) -> GameInfo:
    seats = tuple(SeatInfo(i, 100 + i, f"P{i + 1}", None, False) for i in range(players))
    return GameInfo(7, GameStatus.OVER, 1, 2, 3, None, 100, LobbyOptions(players=players),
                    seats, 50, None, None, NOW, NOW, challenge_week=challenge)


INFO = progress.Progress(earned=(
    progress.Earned(seat=0, user_id=100, ids=("normal-65",), choices=("normal-65", "normal-60"),
                    reason="earned", points=5, title=0),
    progress.Earned(seat=1, user_id=101, ids=(), choices=(), reason="not_winner", points=0,
                    title=None)), rated=True)


def test_custom_ids_round_trip() -> None:
    for cid in (ids.ReplayId(12), ids.RematchId(12), ids.PickId(12, 3)):
        text = cid.encode()
        assert len(text) <= 100 and ids.parse(text) == cid
    assert ids.parse("calico:pick:12:7") is None  # four seats at most


def test_score_sheet_lines() -> None:
    lines = progress_words.game_over_lines(EN, None, game(), INFO)
    assert lines[0].startswith("🏅 P1") and "65+ points" in lines[0]
    assert "unless you pick another" in lines[0]  # the win fits two rows
    assert lines[1] == EN("achievements.earned_title", player="P1", title="Budding Quilter")
    assert len(lines) == 2  # the loser's "not the winner" is not announced
    # Only the seats concerned are voided, each named with its own reason.
    first = progress.Earned(seat=0, user_id=100, ids=("normal-60",), choices=("normal-60",),
                            reason="earned", points=1, title=None)
    hinted = progress.Earned(seat=1, user_id=101, ids=(), choices=(), reason="hints_used",
                             points=0, title=None)
    voided = progress.Progress(earned=(first, hinted))
    assert progress_words.game_over_lines(EN, None, game(), voided) == [
        EN("achievements.earned", player="P1", name="60+ points"),
        EN("achievements.void.hints_used", player="P2")]
    voided = progress.Progress(earned=(first, replace(hinted, reason="computer_played")))
    assert progress_words.game_over_lines(EN, None, game(), voided)[1] == EN(
        "achievements.void.computer_played", player="P2")


def test_score_sheet_controls() -> None:
    view = ui.score_sheet_view(EN, game(), INFO)
    custom = [getattr(c, "custom_id", None) or c.item.custom_id for c in view.children]
    assert custom == ["calico:replay:7", "calico:rematch:7", "calico:pick:7:0"]
    pick = view.children[2].item  # type: ignore[attr-defined]
    assert [o.value for o in pick.options] == ["normal-65", "normal-60"]
    assert [o.default for o in pick.options] == [True, False]
    # A challenge game has no rematch (one attempt a week), only its replay.
    lone = ui.score_sheet_view(EN, game(1, challenge="2025-W01"), None)
    assert [c.item.custom_id for c in lone.children] == ["calico:replay:7"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGS)
def test_challenge_summary_names_without_pinging(lang: str) -> None:
    summary = Summary(week="2025-W01", guild_id=1, entrants=2, language=None, everywhere=9,
                      best=81, top=((1, 100, "Ann", 70), (2, 101, "Bob", 64)))
    out = challenge_ui.challenge_summary_message(Text(lang), summary)
    assert "2025-W01" in out.content and "<@100>" in out.content and "**70**" in out.content
    assert "81" in out.content and out.ping == []


def test_leaderboard_lines() -> None:
    rows = [progress.BoardEntry(1, "ai:strong", "", RatingRow(5, "ai:strong", 33, 2, 27, 9, 1)),
            progress.BoardEntry(2, "u:100", "Ann", RatingRow(5, "u:100", 30, 2, 24, 4, 1),
                                games=6, wins=4, average=61.25)]
    lines = progress_words.board_lines(EN, rows)
    assert lines[0] == "1. 🤖 **Computer (strong)** · rating 27.0 · 9 rated games"
    assert lines[1] == "2. **Ann** · rating 24.0 · 4 wins in 6 games · average 61.2"


def test_start_options() -> None:
    base = {"players": 2, "setup": "standard", "variant": "none", "restriction": "none",
            "computers": 0, "level": "normal", "turn_hours": 24, "timeout": "autopilot",
            "first": "random"}
    assert start_options(**base, scenario=4).scenario == 4  # type: ignore[arg-type]
    with pytest.raises(BadOptionError) as err:
        start_options(**{**base, "setup": "beginner", "variant": "family"})  # type: ignore[arg-type]
    assert err.value.key == "start.family_beginner"
    assert "standard setup" in err.value.reason(EN)
    assert "mise en place standard" in err.value.reason(Text("fr"))
    assert "rozstawieniem standardowym" in err.value.reason(Text("pl"))
    with pytest.raises(BadOptionError) as err:
        start_options(**{**base, "variant": "family"}, scenario=2)  # type: ignore[arg-type]
    assert err.value.key == "start.family_scenario"
    with pytest.raises(BadOptionError):
        start_options(**base, scenario=11)  # type: ignore[arg-type]
