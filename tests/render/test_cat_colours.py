"""One colour per cat: a cat's face and the rings round its growing groups have its own colour
(the catalogue's ``fur``) in every picture and every game, whichever slot it is dealt to; any
two cats that can meet are told apart by every eye, and by their initials on every ring."""

from __future__ import annotations

import itertools

import pytest
from coloraide import Color

from data import load_catalog
from engine.config import GameOptions
from engine.state import GameState
from engine.views import public_view
from render import render_quilt, render_rules, render_table
from render.progress import shown_groups
from render.rules import cat_card_positions
from render.samples import play_until
from render.sprites import cat_token
from render.table import GAP, MARGIN, table_width
from render.theme import cat_fur, cat_initial

from .helpers import decode, share_near
from .legibility import recording

# How colour-blind eyes see: Machado et al. 2009 (full severity) for the red-green kinds,
# Brettel et al. 1997 for tritanopia, as ColorAide implements them.
VISION = {"normal": None, "protanopia": ("protan", "machado"),
          "deuteranopia": ("deutan", "machado"), "tritanopia": ("tritan", "brettel")}
MIN_DELTA_E = 20.0  # CIEDE2000


def _seen(rgb: tuple[int, int, int], vision: str) -> Color:
    c = Color("srgb", [v / 255 for v in rgb])
    how = VISION[vision]
    if how is not None:
        c = c.filter(how[0], method=how[1]).convert("srgb").clip()
    return c


def can_meet() -> list[tuple[str, str]]:
    """Every two cats that can be in one game: any three cats may be chosen, except both
    sides of one scoring tile."""
    catalog = load_catalog()
    return [(a, b) for a, b in itertools.combinations(catalog.cats, 2)
            if catalog.same_tile([a, b]) is None]


def test_cats_that_can_meet_differ_for_every_eye() -> None:
    pairs = can_meet()
    assert len(pairs) == 40  # 45 pairs less the five tiles' two sides
    close = []
    for vision in VISION:
        for a, b in pairs:
            de = _seen(cat_fur(a), vision).delta_e(_seen(cat_fur(b), vision), method="2000")
            if de < MIN_DELTA_E:
                close.append(f"{a}/{b} {vision}: {de:.1f}")
    assert not close, close


def test_the_colour_check_sees_a_clash() -> None:
    """The old orange of Leo and gold of Tecolote, 41 RGB apart, fail it (deuteranopia)."""
    seen = [_seen(rgb, "deuteranopia") for rgb in ((230, 138, 52), (198, 160, 64))]
    assert seen[0].delta_e(seen[1], method="2000") < MIN_DELTA_E


def test_initials_tell_apart_cats_that_can_meet() -> None:
    for a, b in can_meet():
        assert cat_initial(a) != cat_initial(b), (a, b)


def _token_share(img_region_owner: object, region: tuple[int, int, int, int],
                 rgb: tuple[int, int, int]) -> float:
    from PIL import Image
    assert isinstance(img_region_owner, Image.Image)
    return share_near(img_region_owner, region, rgb, tol=24)


@pytest.mark.parametrize("cats", [("callie", "tecolote", "leo"), ("millie", "coconut", "leo"),
                                  ("rumi", "cira", "gwenivere")])
def test_table_cards_wear_each_cats_colour(cats: tuple[str, str, str]) -> None:
    state = play_until(GameOptions(players=2, cats=cats), 3, 2, own_chooser=True)
    img = decode(render_table(public_view(state), ["A", "B"]))
    card_w = (table_width(2) - 2 * MARGIN - 2 * GAP) // 3
    for i, cat in enumerate(state.config.cats):
        x = MARGIN + i * (card_w + GAP)
        face = (x + 16, 56 + 23, x + 16 + 38, 56 + 23 + 38)  # the card's token
        own = _token_share(img, face, cat_fur(cat.id))
        assert own >= 0.12, f"{cat.id} in slot {i}: {own:.2f} of its face in its colour"
        for other in load_catalog().cats:
            # (A pale cat's fur is close to the token's cream: not a fair comparison.)
            pale = sum(cat_fur(other)) > 650
            if other != cat.id and not pale and sum(
                    abs(a - b) for a, b in zip(cat_fur(other), cat_fur(cat.id),
                                                strict=True)) > 90:
                assert _token_share(img, face, cat_fur(other)) < own


def test_rules_picture_and_tokens_agree() -> None:
    img = decode(render_rules("cats"))
    places = dict(cat_card_positions())
    for cid, (x, y) in places.items():
        face = (x + 16, y + 23, x + 16 + 38, y + 23 + 38)
        assert _token_share(img, face, cat_fur(cid)) >= 0.12, cid
    # The token itself: the same fur whatever asks for it.
    tok = cat_token("leo", 20).convert("RGB")
    assert share_near(tok, (0, 0, tok.width, tok.height), cat_fur("leo"), 24) >= 0.12


def test_every_ring_names_its_cat(two_mid: GameState, four_mid: GameState) -> None:
    """Each ringed group's pill carries its cat's initials as well as its colour."""
    seen = 0
    for state in (two_mid, four_mid):
        view = public_view(state)
        for seat in view.seats:
            groups = shown_groups(state.config, seat)
            with recording() as marks:
                render_quilt(seat, state.config)
            drawn = [m.text for m in marks]
            for cat in {g.cat for g in groups}:
                initial = cat_initial(state.config.cats[cat].id)
                want = sum(1 for g in groups if g.cat == cat)
                assert drawn.count(initial) == want, (initial, drawn)
                seen += want
    assert seen >= 4
