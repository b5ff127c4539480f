"""Pictures in words: every tile and token named, goal needs right, limits kept, languages."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter
from dataclasses import replace
from functools import cache
from itertools import product

import discord
import pytest

from bot.adapter.ui import messages
from bot.adapter.ui.outgoing import Outgoing
from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo
from bot.words import describe as d
from bot.words import terms
from bot.words.catalogue import LANGS, Text
from data import load_catalog
from engine.ai import make_player
from engine.config import GameOptions, Restriction, Setup
from engine.events import ScenarioResult
from engine.hexgrid import CELL_BY_NAME, INNER, NEIGHBOURS, cell_name
from engine.play import play_game
from engine.rules import apply, legal_moves, placements, preview
from engine.scoring import breakdown
from engine.setup import new_game
from engine.state import GameState, Phase
from engine.tiles import EMPTY, tile
from engine.views import PublicView, SeatView, private_view, public_view
from render.quilt import goal_states

EN = Text("en")
LIMIT = d.ATTACHMENT_DESCRIPTION_LIMIT
LONG_NAMES = ["Bartholomew the Magnificent", "Zofia Brzęczyszczykiewicz", "Anne-Sophie de la Tour",
              "Computer (strong)"]
# Colour and pattern indices in the catalogue's order.
DARK_BLUE, GREEN, LIGHT_BLUE, MAGENTA, PURPLE, YELLOW = range(6)
DOTS, FERNS, FLOWERS, QUATREFOIL, STRIPES, VINES = range(6)


@cache
def played(seed: int, players: int = 4, restriction: Restriction | None = None) -> GameState:
    """A finished game between computer players: full quilts with many tokens."""
    levels = ("easy", "normal", "easy", "normal")[:players]
    options = GameOptions(players=players, restriction=restriction)
    return play_game(load_catalog(), options, seed, levels).state


@cache
def midway(seed: int, moves: int, players: int = 2) -> GameState:
    """A game ``moves`` moves in (goal choices included)."""
    state = new_game(load_catalog(), GameOptions(players=players), seed)
    ai = [make_player("normal", seed + i) for i in range(players)]
    for _ in range(moves):
        seat = state.deciding_seat
        assert seat is not None
        state, _ = apply(state, ai[seat].choose(private_view(state, seat),
                                                legal_moves(state, seat)))
    return state


def cell_segments(text: str) -> dict[str, str]:
    """Each named cell's words in a long description: ``{"A1": "A1 yellow dots (button)"}``."""
    out = {}
    for line in text.split("\n"):
        for part in re.split(r"[;:] ", line.rstrip(".")):
            m = re.match(r"([A-E][1-5]) ", part)
            if m and m[1] not in out:
                out[m[1]] = part
    return out


def tile_words(tr: Text, view: PublicView, code: int) -> str:
    return terms.tile_code_name(tr, view.config, code)


# --------------------------------------------------------------------------- every tile, token


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_quilt_names_every_tile_and_token(lang: str, seed: int) -> None:
    """The long form gives each inner cell its colour and pattern (or empty / goal), with the
    cat, button and rainbow tokens on it, in every language."""
    tr = Text(lang)
    view = public_view(played(seed))
    for seat in view.seats:
        text = d.quilt(tr, seat, view.config, "Ann", highlight=seat.placed[-1]).long
        cells = cell_segments(text)
        assert set(cells) == {cell_name(c) for c in INNER}
        for c in seat.placed:
            assert tile_words(tr, view, seat.quilt[c]) in cells[cell_name(c)]
        for c, ci in seat.cats:
            cat = terms.cat_name(view.config.cats[ci].id)
            assert tr("alt.token.cat", cat=cat) in cells[cell_name(c)]
        for c, _ in seat.buttons:
            assert tr("alt.token.button_plain") in cells[cell_name(c)]
        if seat.rainbow is not None:
            assert tr("alt.token.rainbow") in cells[cell_name(seat.rainbow)]
        n_tokens = sum(seg.count(tr("alt.token.cat", cat="")) for seg in cells.values())
        assert n_tokens == len(seat.cats)
        for i, spot in enumerate(view.config.goal_spots):
            assert seat.goals is not None
            assert terms.goal_name(seat.goals[i]) in cells[cell_name(spot)]
        assert tr("alt.token.last") in cells[cell_name(seat.placed[-1])]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_the_alt_text_names_every_tile_and_token(lang: str, seed: int) -> None:
    """The short form (the attachment's alt text) of a full quilt keeps every tile and token
    and is never clipped; in English it keeps each cell's name too."""
    tr = Text(lang)
    view = public_view(played(seed))
    for seat in view.seats:
        short = d.quilt(tr, seat, view.config, LONG_NAMES[seat.seat],
                        highlight=seat.placed[-1]).short
        assert d.length(short) <= LIMIT and not short.endswith(d.ELLIPSIS)
        wanted = Counter(tile_words(tr, view, seat.quilt[c]) for c in seat.placed)
        for name, n in wanted.items():
            assert short.count(name) >= n, name
        cats = Counter(terms.cat_name(view.config.cats[ci].id) for _, ci in seat.cats)
        for cat, n in cats.items():
            assert short.count(tr("alt.token.cat", cat=cat)) == n
        assert short.count(tr("alt.token.button_plain")) >= len(seat.buttons)
        if lang == "en":
            for c in seat.placed:
                assert f"{cell_name(c)} {tile_words(tr, view, seat.quilt[c])}" in short


def test_a_quilt_midway_lists_its_empty_cells() -> None:
    view = public_view(midway(11, 22))
    seat = view.seats[0]
    desc = d.quilt(EN, seat, view.config, "Ann")
    empty = [cell_name(c) for c in INNER if seat.quilt[c] == EMPTY]
    assert "Empty: " + ", ".join(empty) in desc.short
    assert ":." not in desc.short  # no row left without words
    cells = cell_segments(desc.long)
    assert all(cells[c].endswith("empty") for c in empty)
    assert "Top border: " in desc.long and "Bottom border: " in desc.long


def test_goal_spots_while_drafting_and_face_down() -> None:
    catalog = load_catalog()
    drafting = public_view(new_game(catalog, GameOptions(players=2), 5))
    text = d.quilt(EN, drafting.seats[0], drafting.config).long
    assert text.count("goal spot, not chosen yet") == 3
    family = public_view(new_game(catalog, GameOptions(players=2, family=True), 5))
    text = d.quilt(EN, family.seats[0], family.config).long
    assert text.count("goal tile face down") == 3
    assert "Goal B3" not in text


# --------------------------------------------------------------------------- goal needs


def test_need_when_all_different() -> None:
    n = d.need([GREEN, YELLOW, PURPLE], (1, 1, 1, 1, 1, 1))
    assert n.state == "open" and n.placed == 3
    assert n.ways == (d.Way((), (1, 1, 1)),)
    assert d.need([GREEN, GREEN], (1,) * 6).state == "impossible"


def test_need_grows_what_is_there() -> None:
    assert d.need([GREEN, GREEN, YELLOW], (3, 3)).ways == (
        d.Way(((GREEN, 1), (YELLOW, 2)), ()),)
    # AAAA-BB with one of each: either colour may become the four.
    assert set(d.need([GREEN, YELLOW], (4, 2)).ways) == {
        d.Way(((GREEN, 3), (YELLOW, 1)), ()), d.Way(((GREEN, 1), (YELLOW, 3)), ())}
    # A value may also stay as it is while new ones fill the rest.
    ways = d.need([GREEN], (2, 2, 1, 1)).ways
    assert d.Way(((GREEN, 1),), (2, 1, 1)) in ways and d.Way((), (2, 2, 1)) in ways


def test_need_when_surrounded_or_spoiled() -> None:
    assert d.need([GREEN] * 3 + [YELLOW] * 3, (3, 3)).state == "met"
    assert d.need([GREEN] * 4 + [YELLOW] * 2, (3, 3)).state == "failed"
    assert d.need([GREEN] * 4, (3, 3)).state == "impossible"
    assert d.need([GREEN] * 3, (2, 2, 2)).state == "impossible"


def test_need_lists_exactly_the_ways_that_work() -> None:
    """Against brute force: every filling of the empty neighbours that meets the goal is one
    of the ways, and every way comes from such a filling."""
    rng = random.Random(7)
    goals = [tuple(sorted(g.counts, reverse=True)) for g in load_catalog().goals.values()]
    for _ in range(150):
        counts = rng.choice(goals)
        values = [rng.randrange(6) for _ in range(rng.randint(2, 5))]
        found = set()
        for fill in product(range(6), repeat=6 - len(values)):
            final = Counter(values + list(fill))
            if sorted(final.values(), reverse=True) != list(counts):
                continue
            grow = tuple((v, final[v] - n) for v, n in sorted(Counter(values).items())
                         if final[v] > n)
            new = tuple(sorted((n for v, n in final.items() if v not in values), reverse=True))
            found.add(d.Way(grow, new))
        result = d.need(values, counts)
        assert set(result.ways) == found, (values, counts)
        assert result.state == ("open" if found else "impossible")


def test_needs_agree_with_the_pictures_hints() -> None:
    """Open / met / failed as the quilt picture's goal marks show them, on random quilts."""
    rng = random.Random(3)
    catalog = load_catalog()
    for _ in range(400):
        goal = rng.choice(list(catalog.goals.values()))
        counts = tuple(sorted(goal.counts, reverse=True))
        quilt = [EMPTY] * 49
        for n in NEIGHBOURS[CELL_BY_NAME["B3"]]:
            if rng.random() < 0.7:
                quilt[n] = tile(rng.randrange(3), rng.randrange(6))
        mine = d.goal_needs(quilt, CELL_BY_NAME["B3"], counts)
        theirs = goal_states(quilt, CELL_BY_NAME["B3"], counts)
        for need, state in zip(mine, theirs, strict=True):
            assert {"impossible": "failed"}.get(need.state, need.state) == state


def with_tiles(state: GameState, seat: int, tiles: dict[str, int]) -> SeatView:
    """The seat's view with ``tiles`` (cell name: tile code) sewn on, nothing earned."""
    s = state.seats[seat]
    quilt = list(s.quilt)
    for name, t in tiles.items():
        quilt[CELL_BY_NAME[name]] = t
    s = replace(s, quilt=tuple(quilt), placed=s.placed + tuple(CELL_BY_NAME[n] for n in tiles))
    return public_view(replace(state, seats=(s, *state.seats[1:]))).seats[0]


def beginner(restriction: Restriction | None = None) -> GameState:
    """Goals ≠ on B3, AA-BB-CC on C4, AAA-BBB on D2; play starts at once."""
    return new_game(load_catalog(), GameOptions(players=1, setup=Setup.BEGINNER,
                                                 restriction=restriction), 1)


def goal_line(text: str, spot: str) -> str:
    return next(line for line in text.split("\n") if line.startswith(f"Goal {spot}"))


def test_goal_lines_say_what_is_still_needed() -> None:
    state = beginner()
    # Around C4 (AA-BB-CC): B4 B5 C3 C5 D4 D5. Two greens and a yellow so far.
    seat = with_tiles(state, 0, {"B4": tile(GREEN, DOTS), "B5": tile(GREEN, FERNS),
                                 "C3": tile(YELLOW, DOTS)})
    text = d.quilt(EN, seat, state.config).long
    c4 = goal_line(text, "C4")
    assert "by colours needs yellow +1 and 1 new colour ×2" in c4
    assert "by patterns needs ferns +1 and 1 new pattern ×2" in c4
    assert "empty around it: C5, D4, D5" in c4
    assert "nothing around it yet" in goal_line(text, "D2")
    # Three of one colour around C4 spoil its colours for good.
    seat = with_tiles(state, 0, {"B4": tile(GREEN, DOTS), "B5": tile(GREEN, FERNS),
                                 "C3": tile(GREEN, FLOWERS)})
    c4 = goal_line(d.quilt(EN, seat, state.config).long, "C4")
    assert "by colours no longer possible" in c4
    assert "by patterns needs dots +1, ferns +1 and flowers +1" in c4


def test_a_surrounded_goal_says_how_it_scores() -> None:
    state = beginner()
    # D2 (AAA-BBB) is surrounded by C1 C2 D1 D3 E1 E2: three yellow, three green, and the
    # patterns in pairs: met by colours only.
    ring = {"C1": tile(YELLOW, DOTS), "C2": tile(YELLOW, DOTS), "D1": tile(YELLOW, FERNS),
            "D3": tile(GREEN, FERNS), "E1": tile(GREEN, VINES), "E2": tile(GREEN, VINES)}
    seat = with_tiles(state, 0, ring)
    d2 = goal_line(d.quilt(EN, seat, state.config).long, "D2")
    assert "met by colours; scores 8 points" in d2
    strict = beginner(Restriction.BOTH_WAYS)
    both = with_tiles(strict, 0, ring)
    assert "met by colours; scores nothing" in goal_line(
        d.quilt(EN, both, strict.config).long, "D2")


@pytest.mark.parametrize("restriction", [None, Restriction.BOTH_WAYS])
def test_goal_points_match_the_score(restriction: Restriction | None) -> None:
    state = played(8, 2, restriction)
    view = public_view(state)
    for seat in view.seats:
        text = d.quilt(EN, seat, view.config).long
        for g in breakdown(view.config, state.seats[seat.seat])["goals"]:
            line = goal_line(text, g["spot"])
            if g["points"]:
                assert f"scores {g['points']} points" in line
            else:
                assert "scores nothing" in line


# --------------------------------------------------------------------------- the turn


def test_turn_names_hand_market_and_preview() -> None:
    state = midway(3, 20)
    seat = state.current_seat
    assert seat is not None
    view = private_view(state, seat)
    src, cell = placements(state, seat)[0]
    events = preview(state, seat, src, cell)
    legal = {c for _, c in placements(state, seat)}
    desc = d.turn(EN, view, name="Bob", preview=(cell, view.hand[src], events), legal=legal,
                  selected=src)
    cfg = state.config
    hand = [terms.tile_code_name(EN, cfg, t) for t in view.hand]
    market = [terms.tile_code_name(EN, cfg, t) for t in state.market]
    for text in (desc.short, desc.long):
        assert f"Preview: {hand[src]} on {cell_name(cell)}" in text
        assert f"{src + 1} {hand[src]} (selected)" in text
        assert "Market: " + ", ".join(f"{k + 1} {t}" for k, t in enumerate(market)) in text
    assert d.length(desc.short) <= LIMIT
    assert "You may sew on: " + ", ".join(sorted(cell_name(c) for c in legal)) in desc.long
    assert f"{cell_name(cell)} empty, {hand[src]} previewed here" in desc.long


@pytest.mark.parametrize("lang", LANGS)
def test_a_crowded_turn_still_fits(lang: str) -> None:
    """On a 22nd turn (21 tiles down, a preview, four players) the alt text fits without being
    cut: detail gives way first, then the hand and preview the DM's text already states; the
    market and every tile stay."""
    tr = Text(lang)
    for seed in (0, 1, 2):
        state = midway(seed, 4 + 4 * 21, players=4)
        seat = state.current_seat
        assert seat is not None
        view = private_view(state, seat)
        src, cell = placements(state, seat)[0]
        desc = d.turn(tr, view, name=LONG_NAMES[seat],
                      preview=(cell, view.hand[src], preview(state, seat, src, cell)),
                      legal={c for _, c in placements(state, seat)}, selected=src)
        assert d.length(desc.short) <= LIMIT and not desc.short.endswith(d.ELLIPSIS)
        assert tr("alt.market", tiles="") in desc.short
        pub = view.public
        for c in pub.seats[seat].placed:
            assert tile_words(tr, pub, pub.seats[seat].quilt[c]) in desc.short
        parts = d.message_parts(tr, "", desc.long)
        assert all(d.length(x) <= d.MESSAGE_CONTENT_LIMIT for x in parts)


def test_preview_says_what_it_would_earn_and_do_to_goals() -> None:
    state = beginner()
    seat = with_tiles(state, 0, {"B4": tile(GREEN, DOTS), "B5": tile(GREEN, FERNS)})
    s = replace(state.seats[0], quilt=seat.quilt, placed=seat.placed,
                hand=(tile(GREEN, FLOWERS), tile(YELLOW, DOTS)))
    state = replace(state, seats=(s,))
    view = private_view(state, 0)
    cell = CELL_BY_NAME["C5"]
    events = preview(state, 0, 0, cell)
    text = d.turn(EN, view, preview=(cell, s.hand[0], events)).long
    assert "it would earn a green button" in text
    assert "With it, goal C4 AA-BB-CC: by colours no longer possible" in text
    nothing = d.turn(EN, view, preview=(CELL_BY_NAME["A1"], s.hand[1], [])).long
    assert "it would earn no token" in nothing


def test_last_turn_and_empty_market_slots() -> None:
    state = midway(5, 20, players=1)
    s = replace(state.seats[0], placed=state.seats[0].placed + (0,) * (21 - len(
        state.seats[0].placed)))
    state = replace(state, seats=(s,), market=(state.market[0], None, state.market[2]))
    text = d.turn(EN, private_view(state, 0)).long
    assert "Last tile: nothing is taken from the market" in text
    assert "2 (empty)" in text


# --------------------------------------------------------------------------- table, sheet


@pytest.mark.parametrize("lang", LANGS)
def test_table_and_score_sheet_fit_for_four_players(lang: str) -> None:
    """A full four-player table and its score sheet (long names) fit the alt text limit, and
    the sheet keeps every number."""
    tr = Text(lang)
    for seed in (1, 2, 3):
        view = public_view(played(seed))
        table = d.table(tr, view, LONG_NAMES)
        assert d.length(table.short) <= LIMIT and not table.short.endswith(d.ELLIPSIS)
        sheet = d.scoresheet(tr, view, LONG_NAMES)
        assert d.length(sheet.short) <= LIMIT and not sheet.short.endswith(d.ELLIPSIS)
        for seat in view.seats:
            s = seat.score
            line = next(x for x in sheet.short.split(". ") if LONG_NAMES[seat.seat] in x)
            for n in (s["total"], s["goal_points"], s["cat_points"], s["cat_tokens"],
                      s["button_points"], s["button_tokens"]):
                assert str(n) in line
            assert LONG_NAMES[seat.seat] in table.short
            assert str(s["total"]) in table.short


def test_score_sheet_places_goals_and_tie_break() -> None:
    view = public_view(played(7))
    text = d.scoresheet(EN, view, ["A", "B", "C", "D"]).long
    lines = text.split("\n")
    assert lines[0] == "Final scores."
    scores = [s.score for s in view.seats]
    best = max(range(4), key=lambda i: (scores[i]["total"], scores[i]["cat_tokens"],
                                        scores[i]["button_tokens"]))
    assert lines[1].startswith(f"1. {'ABCD'[best]} (Master Quilter): total {scores[best]['total']}")
    for g in scores[best]["goals"]:
        assert f"{g['spot']} {terms.goal_name(g['goal'])}" in lines[1]


def test_score_sheet_with_a_scenario() -> None:
    state = played(9, 1)
    view = public_view(state)
    result = ScenarioResult(0, 4, False, (("rainbow", 1, 0, False), ("score", 60, 61, True)))
    for lang in LANGS:
        desc = d.scoresheet(Text(lang), view, ["Solo"], result)
        assert d.length(desc.short) <= LIMIT
    text = d.scoresheet(EN, view, ["Solo"], result).long
    assert "Scenario 4: not passed" in text
    assert "Rainbow: 0 of 1, missed" in text and "Score: 61 of 60, met" in text


def test_table_names_turn_cats_and_market() -> None:
    state = midway(2, 30, players=3)
    view = public_view(state)
    desc = d.table(EN, view, ["Ann", "Bob", "Cy"])
    assert desc.short.startswith("To play: ")
    for cat in view.config.cats:
        assert f"Cat {terms.cat_name(cat.id)}, {cat.points} points" in desc.short
    assert "Market: 1 " in desc.short
    for name in ("Ann", "Bob", "Cy"):
        assert f"{name}'s quilt: " in desc.long
    assert "Players are choosing" in d.table(EN, public_view(midway(2, 1, 3)), []).long


# --------------------------------------------------------------------------- draft, rules


def test_draft_lists_the_offer_and_the_arrangement() -> None:
    cfg = beginner().config
    offer = ("all-different", "aaa-bbb", "aa-bb-cc", "aaaa-bb")
    text = d.draft(EN, offer, cfg).long
    assert "1. ≠ (six different): 10 one way, 15 both ways" in text
    assert "4. AAAA-BB (a set of four and a pair): 8 one way, 14 both ways" in text
    chosen = d.draft(EN, offer, cfg, ("aaa-bbb", "all-different", "aaaa-bb")).long
    assert "Your board: B3 AAA-BBB, C4 ≠, D2 AAAA-BB" in chosen
    assert "leaves out AA-BB-CC" in chosen


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("topic", d.RULES_PICTURE_TOPICS)
def test_rules_pictures(lang: str, topic: str) -> None:
    desc = d.rules(Text(lang), topic)
    assert 40 < d.length(desc.short) <= LIMIT
    if topic == "cats":
        for cat in load_catalog().cats:
            assert terms.cat_name(cat) in desc.short


def test_rules_topics_match_the_renderer() -> None:
    import render

    assert tuple(render.RULES_TOPICS) == d.RULES_PICTURE_TOPICS
    with pytest.raises(ValueError):
        d.rules(EN, "overview")


# --------------------------------------------------------------------------- languages


@pytest.mark.parametrize("lang", LANGS)
def test_every_text_is_in_the_readers_language(lang: str) -> None:
    """No catalogue key or placeholder leaks, and French and Polish read in their words
    (the rulebooks' terms for rows, goals, cats and buttons)."""
    tr = Text(lang)
    state = played(1)
    view = public_view(state)
    texts = [d.quilt(tr, view.seats[0], view.config, "Ann", highlight=view.seats[0].placed[0]).long,
             d.table(tr, view, LONG_NAMES).long, d.scoresheet(tr, view, LONG_NAMES).long,
             d.turn(tr, private_view(midway(3, 20), midway(3, 20).current_seat or 0)).long,
             d.draft(tr, ("all-different", "aaa-bbb", "aa-bb-cc"), view.config).long,
             *(d.rules(tr, t).long for t in d.RULES_PICTURE_TOPICS)]
    words = {"en": ("Row A", "Goal ", "cat ", "button"),
             "fr": ("Rangée A", "Objectif ", "chat ", "bouton"),
             "pl": ("Rząd A", "Projekt ", "kot ", "guzik")}[lang]
    for text in texts:
        assert "alt." not in text and "{" not in text
    assert all(w in texts[0] for w in words)
    if lang != "en":
        assert not any(w in texts[0] for w in ("Row A", "Goal ", " button", "empty"))


# --------------------------------------------------------------------------- long form


def test_length_counts_like_discord() -> None:
    assert d.length("abc") == 3
    assert d.length("🐱") == 2  # outside the basic plane: two UTF-16 units
    assert d.length(d.clip("word " * 400, 100)) <= 100
    assert d.clip("Short.", 100) == "Short."
    assert d.clip("One two. Three four five six seven.", 20) == "One two. Three…"
    assert d.clip("Tiles: A1 yellow dots; A2 green ferns; A3 purple vines.", 45) == (
        "Tiles: A1 yellow dots; A2 green ferns;…")


@pytest.mark.parametrize("lang", LANGS)
def test_the_long_form_fits_messages(lang: str) -> None:
    """Split over messages, nothing of the description is lost and every part fits; fitted
    into one message, whole lines are kept and the cut is said."""
    tr = Text(lang)
    view = public_view(played(2))
    long = d.table(tr, view, LONG_NAMES).long
    assert d.length(long) > d.MESSAGE_CONTENT_LIMIT  # the case worth testing
    content = "🧵 Turn played." * 20
    parts = d.message_parts(tr, content, long)
    assert len(parts) >= 2
    assert all(d.length(x) <= d.MESSAGE_CONTENT_LIMIT for x in parts)
    assert parts[0].startswith(content)
    joined = "\n".join(parts)
    for line in long.split("\n"):
        assert line in joined
    one = d.fit_message(tr, content, long)
    assert d.length(one) <= d.MESSAGE_CONTENT_LIMIT
    assert one.startswith(content + "\n\n" + tr("alt.heading"))
    assert one.endswith(tr("alt.trimmed"))
    small = d.quilt(tr, view.seats[0], view.config).short
    assert d.fit_message(tr, "Hi", small) == "Hi\n\n" + tr("alt.heading") + "\n" + small


def test_a_line_longer_than_a_message_is_cut_between_words() -> None:
    parts = d.message_parts(EN, "", "lorem " * 900, limit=500)
    assert all(d.length(x) <= 500 for x in parts)
    assert sum(x.count("lorem") for x in parts) == 900


# --------------------------------------------------------------------------- discord files


def test_outgoing_sets_the_file_descriptions() -> None:
    from discord.http import handle_message_parameters

    out = Outgoing("Board")
    out.attach("quilt.png", b"png", "Ann's quilt: 3 of 22 tiles.")
    out.files.append(("plain.png", b"png"))  # an old-style caller: no description
    out.descriptions["long.png"] = "x" * 3000
    out.files.append(("long.png", b"png"))
    files = out.send_kwargs()["files"]
    assert all(isinstance(f, discord.File) for f in files)
    assert [f.description for f in files][:2] == ["Ann's quilt: 3 of 22 tiles.", None]
    assert d.length(files[2].description or "") <= LIMIT
    edit = out.edit_kwargs()["attachments"]
    assert edit[0].description == "Ann's quilt: 3 of 22 tiles."
    with handle_message_parameters(**Outgoing("x", [("a.png", b"p")],
                                              descriptions={"a.png": "A quilt."}
                                              ).send_kwargs()) as params:
        assert params.multipart is not None
        assert '"description":"A quilt."' in str(params.multipart[0]["value"])
    # The pairs stay pairs for code that unpacks them.
    assert [n for n, _ in out.files] == ["quilt.png", "plain.png", "long.png"]


def game_info(state: GameState, status: GameStatus) -> GameInfo:
    now = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    seats = tuple(SeatInfo(i, 100 + i, f"P{i + 1}", None, False)
                  for i in range(state.config.players))
    return GameInfo(7, status, 1, 2, 3, None, 100, LobbyOptions(players=state.config.players),
                    seats, state.ply, state, None, now, now)


async def test_every_picture_the_builders_attach_has_alt_text() -> None:
    """Each builder that attaches a picture gives it a description within the limit."""
    state = midway(4, 12)
    game = game_info(state, GameStatus.PLAY)
    user = game.seats[state.current_seat or 0].user_id
    assert user is not None
    outs = [await messages.started_message(EN, game, state.first_seat),
            await messages.turn_panel(EN, game, user),
            await messages.board_message(EN, game, 0),
            await messages.status_message(EN, game),
            await messages.table_post(EN, game, state, 0, [], autoplayed=False, current=True)]
    src, cell = placements(state, state.current_seat or 0)[0]
    events = tuple(preview(state, state.current_seat or 0, src, cell))
    outs.append(await messages.turn_panel(EN, game, user, messages.PanelStep(
        f"h{src}", cell_name(cell), events)))
    over = played(3, 2)
    outs.append(await messages.game_over_message(EN, game_info(over, GameStatus.OVER), []))
    draft_state = new_game(load_catalog(), GameOptions(players=2), 8)
    assert draft_state.phase is Phase.DRAFT
    drafting = game_info(draft_state, GameStatus.DRAFT)
    outs.append(await messages.draft_panel(EN, drafting, 100))
    outs.append(await messages.draft_panel(EN, drafting, 100, (0, 1, 2)))
    for out in outs:
        assert out.files
        for f in out.send_kwargs()["files"]:
            assert f.description and d.length(f.description) <= LIMIT, f.filename
