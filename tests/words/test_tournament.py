"""What a player reads of a tournament (:mod:`bot.words.tournament`), in English, French and
Polish: the sign-up message, a round's post and its table lines, the standings lines and the
picture's cells, the alt text and the standings in words, the score sheet's line. Names
people chose (the tournament's, the entrants') are escaped wherever they land in a message,
and left as they are in the picture and its alt text."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from bot.core.models import LobbyOptions, Setup
from bot.core.tournament import model as tour
from bot.core.tournament.model import Entrant, Table, TournamentInfo
from bot.core.tournament.pairing import Standing
from bot.words import markup
from bot.words import tournament as words
from bot.words.catalogue import LANGS, Text

NOW = dt.datetime(2025, 3, 1, 12, tzinfo=dt.UTC)
SLY = "**Sly** _x_ [Free Nitro](https://ev.il) @everyone"
CUP = "Cup_of_the_week *2*"
ORGANISER = 2900


def info(status: str = tour.SIGNUP, *, fmt: str = tour.SWISS, name: str = CUP,
         signup_open: bool = True, round_no: int = 0,
         entrants: tuple[Entrant, ...] | None = None) -> TournamentInfo:
    people = entrants if entrants is not None else (
        Entrant(11, "Ann", None), Entrant(12, SLY, None), Entrant(13, "Cat", None))
    return TournamentInfo(
        7, 500, 600, ORGANISER, name, fmt, 3, 2, LobbyOptions(setup=Setup.BEGINNER),
        NOW + dt.timedelta(days=1), NOW + dt.timedelta(days=2), 24.0, status, round_no,
        NOW + dt.timedelta(days=3) if round_no else None, 41, 5, people,
        signup_open=signup_open)


def raw_markup_of(text: str, name: str) -> bool:
    """Whether ``name`` appears in ``text`` unescaped (its Markdown would act)."""
    return name in text


# --------------------------------------------------------------------------- the sign-up


@pytest.mark.parametrize("lang", LANGS)
def test_the_open_sign_up_says_who_and_how_to_join(lang: str) -> None:
    tr = Text(lang)
    t = info()
    text = words.signup_text(tr, t, open_now=True)
    lines = text.splitlines()
    assert lines[0] == tr("tournament.signup.title", name=markup.name(CUP), id=7)
    assert lines[1] == words.summary(tr, t)
    assert tr("tournament.format.swiss", count=3) in lines[1]
    assert markup.mention(ORGANISER) in text
    assert tr("tournament.signup.closes", when=markup.timestamp(t.signup_ends_at, "R")) in lines
    assert tr("tournament.signup.starts", when=markup.timestamp(t.starts_at, "F")) in lines
    assert tr("tournament.signup.entrants", count=3) in lines
    assert f"Ann, {markup.name(SLY)}, Cat" in lines
    assert lines[-1] == tr("tournament.signup.how")
    # Names read as written: no bold, no masked link, no mass ping.
    assert not raw_markup_of(text, CUP) and not raw_markup_of(text, SLY)
    assert "[Free Nitro](https" not in text and "@everyone" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_sign_up_once_closed(lang: str) -> None:
    tr = Text(lang)
    t = info(tour.RUNNING, signup_open=False, round_no=2)
    text = words.signup_text(tr, t, open_now=False)
    assert tr("tournament.signup.closed", when=markup.timestamp(t.signup_ends_at, "R")) in text
    assert tr("tournament.signup.how") not in text
    assert tr("tournament.status.running", round=2, rounds=3) in text.splitlines()
    over = words.signup_text(tr, replace(t, status=tour.OVER), open_now=False)
    assert tr("tournament.status.over") in over.splitlines()
    empty = words.signup_text(tr, info(entrants=()), open_now=True)
    assert tr("tournament.signup.entrants", count=0) in empty.splitlines()


@pytest.mark.parametrize("lang", LANGS)
def test_a_closed_sign_up_does_not_read_open(lang: str) -> None:
    """Between the sign-up's end (or the organiser closing it) and round 1, the message said
    both "sign-up closed" and "sign-up open"."""
    tr = Text(lang)
    t = info(tour.SIGNUP, signup_open=False)
    text = words.signup_text(tr, t, open_now=False)
    assert tr("tournament.signup.closed", when=markup.timestamp(t.signup_ends_at, "R")) in text
    assert tr("tournament.status.signup") not in text
    assert tr("tournament.status.signup") not in words.list_line(tr, t)
    # While open, it says so.
    assert tr("tournament.status.signup") in words.signup_text(tr, info(), open_now=True)


# --------------------------------------------------------------------------- a round


@pytest.mark.parametrize("lang", LANGS)
def test_a_rounds_post_lists_its_tables(lang: str) -> None:
    tr = Text(lang)
    t = info(tour.RUNNING, signup_open=False, round_no=2)
    pair = Table(2, 1, (11, 12), 90, None, None)
    three = Table(2, 2, (13, 14, 15), 91, None, None)
    bye = Table(2, 3, (16,), None, None, None)
    versus = tr("tournament.round.versus")
    assert words.table_line(tr, t, pair, 800) == tr(
        "tournament.round.table", number=1, players=f"<@11>{versus}<@12>", where="<#800>")
    # No thread yet: the game is named by its number.
    line = words.table_line(tr, t, three, None)
    assert line == tr("tournament.round.table", number=2,
                      players=f"<@13>{versus}<@14>{versus}<@15>",
                      where=tr("tournament.round.game", game=91))
    assert words.table_line(tr, t, bye, None) == tr("tournament.round.bye", user="<@16>")
    lines = [words.table_line(tr, t, x, None) for x in (pair, three, bye)]
    text = words.round_text(tr, t, 2, lines)
    head = text.splitlines()
    assert head[0] == tr("tournament.round.title", name=markup.name(CUP), round=2, rounds=3)
    assert t.round_deadline_at is not None
    assert head[1] == tr("tournament.round.deadline",
                         when=markup.timestamp(t.round_deadline_at, "F"))
    assert head[-3:] == lines
    # A round no longer being played has no deadline to give.
    old = words.round_text(tr, t, 1, lines)
    assert tr("tournament.round.deadline", when=markup.timestamp(t.round_deadline_at, "F")) \
        not in old


# --------------------------------------------------------------------------- standings


BOARD = [Standing(12, 5, 7, 2, 130, 1, 1), Standing(11, 4, 9, 3, 190, 0, 2),
         Standing(13, 4, 9, 3, 150, 0, 3), Standing(99, 0, 3, 3, 80, 0, 4)]


@pytest.mark.parametrize("lang", LANGS)
def test_standings_lines(lang: str) -> None:
    tr = Text(lang)
    t = info(tour.RUNNING, signup_open=False, round_no=3)
    lines = words.standings_lines(tr, t, BOARD)
    assert lines[0] == tr("tournament.line.swiss", rank=1, name=markup.name(SLY),
                          points=words.points_count(tr, 5), buchholz=words.points(7, tr),
                          games=tr("tournament.n_games", count=2),
                          score=tr("tournament.n_scored", count=130))
    assert lines[1] == tr("tournament.line.swiss", rank=2, name="Ann",
                          points=words.points_count(tr, 4), buchholz=words.points(9, tr),
                          games=tr("tournament.n_games", count=3),
                          score=tr("tournament.n_scored", count=190))
    assert lines[3].startswith("4. 99")  # someone no longer listed: by their number
    assert "[Free Nitro](https" not in "\n".join(lines)
    rr = replace(t, format=tour.ROUND_ROBIN)
    assert words.standings_lines(tr, rr, BOARD)[1] == tr(
        "tournament.line.rr", rank=2, name="Ann", points=words.points_count(tr, 4),
        games=tr("tournament.n_games", count=3), score=tr("tournament.n_scored", count=190))
    if lang == "en":
        assert lines[1] == "2. Ann: **2 points** · Buchholz 4.5 · 3 games · 190 points scored"


@pytest.mark.parametrize("lang", LANGS)
def test_the_pictures_cells_and_headings(lang: str) -> None:
    tr = Text(lang)
    gone = (Entrant(11, "Ann", 2), Entrant(12, SLY, None), Entrant(13, "Cat", None))
    t = info(tour.RUNNING, signup_open=False, round_no=3, entrants=gone)
    # The picture takes names as written; a withdrawn entrant is marked in words too.
    half = tr("tournament.half", whole=2)  # 2.5, or 2,5 in French and Polish
    assert words.standing_cells(tr, t, BOARD[0]) == ["1", SLY, half,
                                                     tr("tournament.half", whole=3), "2", "130"]
    assert words.standing_cells(tr, t, BOARD[1]) == [
        "2", tr("tournament.withdrawn", name="Ann"), "2", tr("tournament.half", whole=4), "3",
        "190"]
    assert words.headings(tr, t) == [
        tr("tournament.col.rank"), tr("tournament.col.player"), tr("tournament.col.points"),
        tr("tournament.col.buchholz"), tr("tournament.col.games"), tr("tournament.col.score")]
    rr = replace(t, format=tour.ROUND_ROBIN)
    assert words.headings(tr, rr)[3] == "" and words.standing_cells(tr, rr, BOARD[0])[3] == ""


@pytest.mark.parametrize("lang", LANGS)
def test_the_alt_text_names_the_leaders(lang: str) -> None:
    tr = Text(lang)
    t = info(tour.RUNNING, signup_open=False, round_no=3)
    alt = words.standings_alt(tr, t, BOARD, 3, final=False)
    assert alt.startswith(words.standings_title(tr, t, 3, final=False))
    assert CUP in alt  # alt text is read aloud, not rendered: the name as written
    assert str(len(BOARD)) in alt
    for s, name in zip(BOARD[:3], (SLY, "Ann", "Cat"), strict=True):
        assert name in alt and words.points_count(tr, s.points) in alt
    assert "99" not in alt  # the leaders only
    final = words.standings_alt(tr, replace(t, status=tour.OVER), BOARD, 3, final=True)
    assert final.startswith(words.standings_title(tr, t, 3, final=True))
    assert len(alt) <= 1000


@pytest.mark.parametrize("lang", LANGS)
def test_the_standings_in_words_escape_the_tournament_name(lang: str) -> None:
    """The long description is read as a message (pictures in words): the tournament's name
    there is escaped like the entrants', and its title reads as in the picture."""
    tr = Text(lang)
    t = info(tour.RUNNING, signup_open=False, round_no=3)
    text = words.standings_long(tr, t, BOARD, 3, final=False)
    lines = text.splitlines()
    assert lines[0] == tr("tournament.standings.after", name=markup.name(CUP), round=3,
                          rounds=3)
    assert lines[0] == words.standings_heading(tr, t, 3, final=False)
    assert lines[1:] == words.standings_lines(tr, t, BOARD, limit=len(BOARD))
    assert not raw_markup_of(text, CUP)


def test_half_points_read_as_points() -> None:
    assert [words.points(h) for h in (0, 1, 2, 3, 8, 13)] == ["0", "0.5", "1", "1.5", "4",
                                                                "6.5"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_score_sheet_line_and_the_notices(lang: str) -> None:
    tr = Text(lang)
    line = words.score_sheet_line(tr, CUP, 2, 3)
    assert line == tr("tournament.score_sheet", name=markup.name(CUP), round=2, rounds=3)
    assert not raw_markup_of(line, CUP)
    t = info()
    for what in ("cancelled", "paused", "resumed", "too_few"):
        text = words.notice_text(tr, t, what)
        assert text == tr(f"tournament.notice.{what}", name=markup.name(CUP))
        assert text != f"tournament.notice.{what}"  # a text of the catalogue
    listed = words.list_line(tr, info(tour.OVER, signup_open=False))
    assert markup.name(CUP) in listed and tr("tournament.status.over") in listed


# --------------------------------------------------------------------------- issue #28


@pytest.mark.parametrize(("lang", "half", "expected"), [
    ("en", 2, "1 point"), ("en", 3, "1.5 points"), ("en", 4, "2 points"), ("en", 0, "0 points"),
    ("fr", 2, "1 point"), ("fr", 3, "1,5 point"), ("fr", 4, "2 points"), ("fr", 0, "0 point"),
    ("pl", 2, "1 pkt"), ("pl", 3, "1,5 pkt"), ("pl", 10, "5 pkt")])
def test_points_read_in_each_languages_plural(lang: str, half: int, expected: str) -> None:
    assert words.points_count(Text(lang), half) == expected


@pytest.mark.parametrize("lang", LANGS)
def test_one_point_one_game_one_entrant_are_singular(lang: str) -> None:
    """"with 1 points" (issue #28): every count goes through its plural table."""
    tr = Text(lang)
    t = info(tour.OVER, signup_open=False, round_no=1,
             entrants=(Entrant(11, "Ann", None), Entrant(12, "Bob", None)))
    board = [Standing(11, 2, 0, 1, 60, 0, 1), Standing(12, 0, 2, 1, 50, 0, 2)]
    alt = words.standings_alt(tr, t, board, 1, final=True)
    line = words.standings_lines(tr, t, board)[0]
    assert words.points_count(tr, 2) in alt and words.points_count(tr, 2) in line
    assert tr("tournament.n_games", count=1) in line
    if lang == "en":
        assert "Ann, 1 point;" in alt and "1 points" not in alt + line
        assert "1 game " in line + " " and "1 games" not in line
    assert words.list_line(tr, replace(t, entrants=t.entrants[:1])) == tr(
        "tournament.list.line", id=7, name=markup.name(CUP), format=words.format_text(tr, t),
        status=words.status_text(tr, t), count=1)


@pytest.mark.parametrize("lang", LANGS)
def test_medals_picture_text_and_alt_from_one_source(lang: str) -> None:
    """A withdrawn entrant in the top three: no medal for them anywhere, the medals go to the
    three best still in, and the alt text marks them "(withdrawn)" as the picture does."""
    tr = Text(lang)
    gone = (Entrant(11, "Ann", 2), Entrant(12, SLY, None), Entrant(13, "Cat", None),
            Entrant(99, "Dee", None))
    t = info(tour.OVER, signup_open=False, round_no=3, entrants=gone)
    medals = words.medals(t, BOARD)
    assert medals == {0: 0, 2: 1, 3: 2}  # Sly gold, Cat silver, Dee bronze; Ann none
    podium = words.podium_text(tr, t, BOARD)
    assert [line.split()[0] for line in podium.splitlines()[1:4]] == list(words.MEDALS)
    assert "<@11>" not in podium and all(f"<@{u}>" in podium for u in (12, 13, 99))
    alt = words.standings_alt(tr, t, BOARD, 3, final=True)
    assert tr("tournament.withdrawn", name="Ann") in alt
    assert alt.count("🥇") == 1 and "🥈" in alt and "🥉" not in alt  # the leaders: the first three
    assert words.medals(t, BOARD, final=False) == {}
    # Equal lines share their medal.
    tied = [replace(BOARD[0], rank=1), replace(BOARD[2], rank=1), replace(BOARD[3], rank=3)]
    assert words.medals(t, tied) == {0: 0, 1: 0, 2: 2}


@pytest.mark.parametrize("lang", LANGS)
def test_a_big_round_lists_what_fits_and_attaches_the_rest(lang: str) -> None:
    tr = Text(lang)
    t = info(tour.RUNNING, signup_open=False, round_no=1)
    tables = [Table(1, i + 1, (10**17 + 2 * i, 10**17 + 2 * i + 1), 500 + i, None, None)
              for i in range(80)]
    lines = [words.table_line(tr, t, x, 10**18 + x.table_no) for x in tables]
    assert not words.round_fits(tr, t, 1, lines)
    text = words.round_text(tr, t, 1, lines, "round-1.txt")
    assert len(text) <= words.ROOM and "round-1.txt" in text
    shown = sum(line in text.splitlines() for line in lines)
    assert 10 < shown < 80
    assert tr("tournament.round.more", count=80 - shown, file="round-1.txt") in text
    listed = words.round_list(tr, t, 1, tables)
    assert all(tr("tournament.round.game", game=500 + i) in listed for i in range(80))
    assert "<@" not in listed  # names, not mentions, in a file
    few = lines[:3]
    assert words.round_fits(tr, t, 1, few)
    assert words.round_text(tr, t, 1, few).splitlines()[-3:] == few


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_state_the_tournaments_rules_caps_and_powers(lang: str) -> None:
    """``/calico rules topic:tournaments`` (issue #28) says what withdrawing costs, the byes,
    the tie-breaks, the caps (the model's own numbers) and who may do what."""
    from bot.words import answers

    tr = Text(lang)
    assert "tournaments" in answers.RULE_TOPICS
    text = answers.rules_text(tr, "tournaments")
    assert len(text) <= 2000 and text == tr("rules.tournaments")
    plain = text.replace(",", "").replace(" ", "").replace("\u202f", "")
    assert str(tour.MAX_SWISS_ENTRANTS) in plain
    for size, cap in tour.ROUND_ROBIN_ENTRANTS.items():
        assert f"{cap}" in text and f"{size}" in text
    assert str(tour.MAX_OPEN_PER_SERVER) in text and str(tour.MAX_ROUNDS) in text
    for words_in in ("`/calico tournament leave`", "`timeout: computer`", "Buchholz",
                     "`tournament:`", "`/calico admin`"):
        assert words_in in text, words_in
