"""The review's and the hints' words and pictures in English, French and Polish: every reason
phrased, every label translated, every message within Discord's limits; no discord involved."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

import render
from bot.adapter.ui import review as review_ui
from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo
from bot.core.review.model import HintsOutcome, ReviewOutcome
from bot.words import review as review_words
from bot.words.catalogue import LANGS, Text, load
from data import load_catalog
from engine.ai.hints import Hint
from engine.ai.review import (
    REVIEW_VERSION,
    DraftReview,
    Mistake,
    Placement,
    Reason,
    Review,
    TurnReview,
    accuracy,
)
from engine.config import GameOptions
from engine.setup import new_game
from engine.views import private_view

STATE = new_game(load_catalog(), GameOptions(players=1), 41)
CFG = STATE.config
NOW = datetime(2025, 11, 26, 12, 0, tzinfo=UTC)
REASONS = [
    Reason("cat", 2.5, "kept_open", cat=CFG.cats[0].id),
    Reason("cat", 3.0, "earned", cat=CFG.cats[1].id),
    Reason("button", 1.6, "earned", color="purple"),
    Reason("button", 0.8, "kept_open", color="dark-blue"),
    Reason("rainbow", 3.0, "earned"),
    Reason("rainbow", 1.2, "kept_open"),
    Reason("goal", 4.4, "earned", goal="aa-bb-cc", spot="C4"),
    Reason("goal", 1.9, "kept_open", goal="all-different", spot="B3"),
    Reason("goal", 4.2, "closed", goal="aaaa-bb", spot="B3"),
    Reason("cat", 3.1, "cut_short", cat=CFG.cats[2].id),
    Reason("button", 2.2, "cut_short", color="yellow"),
    Reason("rainbow", 1.1, "cut_short"),  # no such sentence: read as "kept open"
]


def game() -> GameInfo:
    return GameInfo(
        id=77, status=GameStatus.OVER, guild_id=1, channel_id=2, thread_id=3,
        lobby_message_id=None, host_id=10, options=LobbyOptions(players=1),
        seats=(SeatInfo(0, 10, "Zoë Łucja", None, False),), ply=45, state=STATE,
        deadline_at=None, created_at=NOW, updated_at=NOW)


def a_review(mistakes: int = 3) -> Review:
    """A made-up review of 22 turns (the longest tile names), the costly ones with reasons."""
    turns = []
    for t in range(1, 23):
        played = Placement(f"h0@C{t % 5 + 1}>m1", f"C{t % 5 + 1}", 23, None if t == 22 else 34)
        engine = Placement(f"h1@D{t % 5 + 1}>m0", f"D{t % 5 + 1}", 35, None if t == 22 else 22)
        same = t % 3 == 0
        loss = 0.0 if same else round(0.4 * t, 2)
        turns.append(TurnReview(t, t + 1, played, played if same else engine,
                                None if same else ("pick" if t == 4 else "both"),
                                40 + t - loss, 40 + t, 30.0, loss, 0.5))
    costly = sorted((t for t in turns if t.differs), key=lambda t: -t.loss)[:mistakes]
    pairs = itertools.cycle([REASONS[i:i + 2] for i in range(0, len(REASONS), 2)])
    marked = tuple(Mistake(t.turn, t.ply, t.loss, t.differs or "both", tuple(next(pairs)))
                   for t in costly)
    draft = DraftReview(1, ("aa-bb-cc", "all-different", "aaa-bbb"),
                        ("aaa-bbb", "aa-bb-cc", "all-different"), 60.0, 62.5, 2.5)
    return Review(REVIEW_VERSION, 0, "strong", 12, 8, 77, tuple(turns), draft, accuracy(turns),
                  round(sum(t.loss for t in turns), 2), marked, 62)


@pytest.mark.parametrize("lang", LANGS)
def test_every_reason_is_phrased(lang: str) -> None:
    tr = Text(lang)
    for r in REASONS:
        text = review_words.reason_words(tr, r)
        assert "{" not in text and "review.why" not in text
        assert review_words.num(tr, r.points) in text
    assert "Millie" in review_words.reason_words(tr, Reason("cat", 1.0, "earned", cat="millie"))
    assert tr("color.purple") in review_words.reason_words(tr, REASONS[2])
    assert "AA-BB-CC" in review_words.reason_words(tr, REASONS[6]) and "C4" in \
        review_words.reason_words(tr, REASONS[6])
    two = review_words.why_sentence(tr, Mistake(5, 6, 3.0, "both", tuple(REASONS[:2])))
    assert review_words.reason_words(tr, REASONS[0]) in two
    assert review_words.reason_words(tr, REASONS[1]) in two
    assert review_words.why_sentence(tr, Mistake(5, 6, 3.0, "both", ())) == tr("review.why.none")
    assert tr("review.why.pick") in review_words.why_sentence(tr, Mistake(5, 6, 3.0, "pick", ()))


@pytest.mark.parametrize("lang", LANGS)
def test_reasons_say_what_the_players_move_did(lang: str) -> None:
    """Issue #22: a goal closed off, a group cut short of a cat or a button, a token given up,
    each its own sentence (not "the engine kept ... open")."""
    tr = Text(lang)
    said = {r.how + r.kind: review_words.reason_words(tr, r) for r in REASONS}
    assert said["closedgoal"] == tr("review.why.goal.closed", goal="AAAA-BB", spot="B3",
                                    points=review_words.num(tr, 4.2))
    assert said["cut_shortcat"] == tr("review.why.cat.cut_short", cat=CFG.cats[2].id.title(),
                                      points=review_words.num(tr, 3.1))
    assert tr("color.yellow") in said["cut_shortbutton"]
    assert said["cut_shortbutton"] != tr("review.why.button.kept_open",
                                         color=tr("color.yellow"),
                                         points=review_words.num(tr, 2.2))
    assert said["cut_shortrainbow"] == tr("review.why.rainbow.kept_open",
                                          points=review_words.num(tr, 1.1))
    assert len(set(said.values())) == len(said)


@pytest.mark.parametrize("lang", LANGS)
def test_the_chart_is_explained_in_its_caption_and_alt_text(lang: str) -> None:
    """Both lines explained; the engine's is per turn (not a game of its own), and the alt text
    says what the turns cost in all rather than where the engine's line ends."""
    tr = Text(lang)
    review = a_review(3)
    you, engine = tr("render.review_you"), tr("render.review_engine")
    alt = review_words.chart_alt(tr, review)
    assert you in alt and engine in alt
    assert review_words.num(tr, review.total_loss) in alt  # what following it would add
    widest = max(review.turns, key=lambda t: t.ev_engine - t.ev_played)
    assert review_words.num(tr, widest.ev_engine - widest.ev_played) in alt
    summary = review_words.summary_text(tr, ReviewOutcome(game(), 0, review, NOW,
                                                          computed=True))
    assert tr("review.chart_caption", you=you, engine=engine) in summary


def test_numbers_read_as_written_in_each_language() -> None:
    assert review_words.num(Text("en"), 87.25) == "87.2"
    assert review_words.num(Text("fr"), 4.15, 2) == "4,15"
    assert review_words.num(Text("pl"), 100.0) == "100,0"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("mistakes", [0, 3])
def test_review_text_fits_and_says_everything(lang: str, mistakes: int) -> None:
    tr = Text(lang)
    review = a_review(mistakes)
    outcome = ReviewOutcome(game(), 0, review, NOW, computed=True)
    text = review_words.summary_text(tr, outcome)
    assert len(text) <= 2000 and "{" not in text
    assert review_words.num(tr, review.accuracy) in text and "62" in text
    assert tr("review.method", samples=12) in text
    if mistakes:
        assert tr("review.no_mistakes") not in text
        for rank, m in enumerate(review.mistakes, 1):
            assert f"{rank}. **" in text and review_words.why_sentence(tr, m) in text
    else:
        assert tr("review.no_mistakes") in text
    parts = review_words.turn_texts(tr, outcome)
    assert parts and all(len(x) <= 2000 and "{" not in x for x in parts)
    lines = [x for part in parts for x in part.splitlines()[1:]]
    assert len(lines) == 22  # every turn, in order
    assert [int(x.split(".", 1)[0]) for x in lines] == list(range(1, 23))
    assert sum("✓" in x for x in lines) == 7
    alt = review_words.chart_alt(tr, review)
    assert "{" not in alt and len(alt) <= 1024


@pytest.mark.parametrize("lang", LANGS)
def test_hint_text(lang: str) -> None:
    tr = Text(lang)
    view = private_view(STATE, 0)
    hints = (Hint("h0@C3>m1", "C3", 23, 0, 1, 34, 63.25, True),
             Hint("h1@D2>m0", "D2", 35, 1, 0, 22, 63.5, False),
             Hint("h1@E5", "E5", 35, 1, None, None, 61.0, False))
    out = review_ui.hints_message(tr, HintsOutcome(game(), 0, view, hints, 6, True))
    lines = [x for x in out.content.splitlines() if x[:2] in ("1.", "2.", "3.")]
    assert len(lines) == 3 and tr("hint.engine") in lines[0]
    assert tr("hint.engine") not in lines[1]
    assert review_words.num(tr, 63.25, 1) in lines[0] and "C3" in lines[0]
    assert tr("hint.marked") in out.content and "{" not in out.content
    assert len(out.content) <= 2000


@pytest.mark.parametrize("lang", LANGS)
def test_picture_labels_are_translated(lang: str) -> None:
    words = review_ui.labels(Text(lang))
    assert set(words) == set(render.REVIEW_LABELS)
    assert all(v and not v.startswith("render.") for v in words.values())
    if lang == "en":
        assert words == dict(render.REVIEW_LABELS)
    png = render.render_review_chart(a_review(), labels=words)
    assert png.startswith(b"\x89PNG")


def test_command_texts_fit_discord() -> None:
    for lang in LANGS:
        texts = load(lang)
        for key in ("review.cmd", "review.opt_game", "hint.option", "review.button",
                    "hint.button", "hint.confirm_button"):
            entry = texts[key]
            assert isinstance(entry, str) and 0 < len(entry) <= 100, (lang, key)
