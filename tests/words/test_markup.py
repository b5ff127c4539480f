"""Names in messages (issue 20, players 7): a display name is shown as itself, never as
Markdown, a masked link or a mass mention; and every words function that puts one in a message
goes through :func:`bot.words.markup.name`."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.core.challenge.model import Summary
from bot.core.models import (
    GameInfo,
    GameStatus,
    LeaderboardEntry,
    LobbyOptions,
    SeatInfo,
    UserStats,
)
from bot.words import answers, markup, narration, posts
from bot.words import progress as progress_words
from bot.words.catalogue import LANGS, Text
from engine.events import GameOver, TilePlaced

EN = Text("en")
NOW = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
NITRO = "[Free Nitro](https://ev.il)"


@pytest.mark.parametrize(("raw", "shown"), [
    ("alice", "alice"),
    ("Zoë 42", "Zoë 42"),
    (NITRO, r"\[Free Nitro\](https://ev.il)"),
    ("Computer (easy) for sam", "Computer (easy) for sam"),
    ("**x**", r"\*\*x\*\*"),
    ("__x__ ~~y~~", r"\_\_x\_\_ \~\~y\~\~"),
    ("`code`", r"\`code\`"),
    ("||spoiler||", r"\|\|spoiler\|\|"),
    ("> quote", r"\> quote"),
    ("# big", r"\# big"),
    ("- item", r"\- item"),
    ("back\\slash", r"back\\slash"),
    ("<@123> <@&5> <:cat:9>", r"\<@123\> \<@&5\> \<:cat:9\>"),
    ("two\nlines", "two lines"),
])
def test_a_name_is_escaped(raw: str, shown: str) -> None:
    assert markup.name(raw) == shown


@pytest.mark.parametrize("raw", ["@everyone", "@here", "hi @Everyone!", "@HERE"])
def test_mass_mentions_are_broken(raw: str) -> None:
    out = markup.name(raw)
    assert "@everyone" not in out.lower() and "@here" not in out.lower()
    assert out.replace(markup.ZWSP, "") == raw


def test_escaping_is_idempotent_to_the_eye() -> None:
    """Every escape is a backslash before the character: taking them away gives the name."""
    for raw in (NITRO, "**x**", "a_b|c~d`e>f#g-h[i]j(k)l<m\\n"):
        out = markup.name(raw)
        unescaped = "".join(ch for i, ch in enumerate(out)
                            if not (ch == "\\" and (i == 0 or out[i - 1] != "\\")))
        assert unescaped == raw


def _game() -> GameInfo:
    seats = (SeatInfo(0, 100, NITRO, None, False), SeatInfo(1, 101, "**bold**", None, False))
    return GameInfo(7, GameStatus.LOBBY, 1, 2, 3, None, 100, LobbyOptions(players=2),
                    seats, 0, None, None, NOW, NOW)


@pytest.mark.parametrize("lang", LANGS)
def test_words_that_name_players_escape_them(lang: str) -> None:
    tr = Text(lang)
    game = _game()
    shown = markup.name(NITRO)
    over = GameOver((30, 20), (1, 2), (0,), "score")
    texts = [
        posts.lobby_text(tr, game),
        narration.narrate_turn(tr, NITRO, [TilePlaced(0, "C3", "yellow", "dots", False, 22)]),
        narration.game_over_text(tr, [NITRO, "**bold**"], [over]),
        narration.score_line(tr, NITRO, {"total": 3}),
        answers.stats_text(tr, NITRO, UserStats(100, 0, 0, None, None)),
        answers.leaderboard_text(tr, [LeaderboardEntry(100, NITRO, 1, 1, 3.0, 3)]),
    ]
    for text in texts:
        assert shown in text and "[Free Nitro](" not in text, text
    # The challenge summary names people by mention (no ping); a name it shows is escaped.
    summary = progress_words.challenge_summary_text(tr, Summary(
        week="2025-W01", guild_id=1, entrants=1, language=None, top=((1, 100, NITRO, 50),),
        everywhere=1, best=None))
    assert "[Free Nitro](" not in summary and "<@100>" in summary
    assert "**bold**" not in texts[2] and markup.name("**bold**") in texts[2]
