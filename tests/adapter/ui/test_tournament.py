"""The tournament's messages in Discord (:mod:`bot.adapter.ui.tournament`), without a client:
the sign-up message's buttons by status (Join and Leave while the sign-up is open, Leave alone
while it runs, none once it is over), the standings message's text, and a table's score
sheet."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import tournament as ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo, Setup
from bot.core.notices import GameOver
from bot.core.tournament import model as tour
from bot.core.tournament import records
from bot.core.tournament.model import Entrant, TournamentInfo
from bot.words import markup
from bot.words import tournament as words
from bot.words.catalogue import LANGS, Text
from tests.core.conftest import seeds
from tests.core.tournament.conftest import play_round, started

NOW = dt.datetime(2025, 3, 1, 12, tzinfo=dt.UTC)


def info(status: str, signup_open: bool = False) -> TournamentInfo:
    return TournamentInfo(
        7, 500, 600, 2900, "Spring Cup", tour.SWISS, 3, 2, LobbyOptions(setup=Setup.BEGINNER),
        NOW + dt.timedelta(days=1), NOW + dt.timedelta(days=2), 24.0, status,
        0 if status == tour.SIGNUP else 1, None, 41, 5,
        (Entrant(11, "Ann", None), Entrant(12, "Bob", None)), signup_open=signup_open)


def buttons(out: Outgoing) -> list[tuple[Any, str]]:
    """(parsed custom id, label) of each button of the message."""
    if out.view is None:
        return []
    return [(ids.parse(c.item.custom_id), c.item.label)  # type: ignore[attr-defined]
            for c in out.view.children]


@pytest.mark.parametrize("lang", LANGS)
async def test_the_sign_up_messages_buttons_follow_its_status(lang: str) -> None:
    tr = Text(lang)
    join = (ids.TournamentJoinId(7), tr("tournament.button.join"))
    leave = (ids.TournamentLeaveId(7), tr("tournament.button.leave"))
    cases = {
        "open": (info(tour.SIGNUP, signup_open=True), [join, leave]),
        "closed, not started": (info(tour.SIGNUP), [leave]),
        "running": (info(tour.RUNNING), [leave]),
        "paused": (info(tour.PAUSED), [leave]),
        "over": (info(tour.OVER), []),
        "cancelled": (info(tour.CANCELLED), []),
    }
    for what, (t, expected) in cases.items():
        out = ui.signup_message(tr, t)
        assert buttons(out) == expected, what
        assert out.content == words.signup_text(tr, t, open_now=t.signup_open), what
        if not expected:
            # No view at all: the edit that ends it takes the old buttons away.
            assert out.view is None and out.edit_kwargs()["view"] is None
        assert out.ping == []  # the sign-up message pings nobody


@pytest.mark.parametrize("lang", LANGS)
async def test_a_tables_score_sheet_names_the_tournament(lang: str) -> None:
    tr = Text(lang)
    game = GameInfo(9, GameStatus.OVER, 500, 600, 800, None, 11, LobbyOptions(),
                    (SeatInfo(0, 11, "Ann", None, False), SeatInfo(1, 12, "Bob", None, False)),
                    60, None, None, NOW, NOW)
    line = tour.ScoreSheetLine(id=7, name="Cup_1", round=2, rounds=3)
    over = GameOver(totals=(60, 50), places=(1, 2), winners=(0,), parts=(line,))
    out = ui.score_sheet(tr, game, Outgoing("Ann wins"), over)
    assert out.content == "Ann wins\n" + words.score_sheet_line(tr, "Cup_1", 2, 3)
    plain = ui.score_sheet(tr, game, Outgoing("Ann wins"), replace(over, parts=()))
    assert plain.content == "Ann wins"


async def test_the_standings_message_escapes_the_tournament_name(tmp_path: Path) -> None:
    """Posted in the channel, the standings' heading is text: a name with underscores or
    asterisks reads as written (the picture and its alt text keep it as it is)."""
    clock = FakeClock()
    m = await Manager.open(tmp_path / "calico.db", clock=clock, seed_source=seeds())
    try:
        name = "Cup_of_the_week *2*"
        t = await started(m, clock, 4, rounds=2, name=name)
        await play_round(m, t.id, 1, random.Random(1))
        await m.sweep()
        t = await records.get(m.kernel, t.id)
        tr = Text("en")
        out = await ui.standings_message(tr, m.kernel, t, 1)
        first = out.content.splitlines()[0]
        assert first == f"**{words.standings_heading(tr, t, 1, final=False)}**"
        assert markup.name(name) in first and name not in out.content
        assert out.descriptions[ui.STANDINGS_PNG].startswith(
            words.standings_title(tr, t, 1, final=False))
        assert name in out.descriptions[ui.STANDINGS_PNG]
    finally:
        await m.close()
