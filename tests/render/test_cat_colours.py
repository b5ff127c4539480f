"""One colour per cat: a cat's face has its own colour (the catalogue's ``fur``) in every
picture and every game, whichever of the three slots it is dealt to."""

from __future__ import annotations

import itertools

import pytest

from data import load_catalog
from engine.config import GameOptions
from engine.views import public_view
from render import render_rules, render_table
from render.rules import cat_card_positions
from render.samples import play_until
from render.sprites import cat_token
from render.table import GAP, MARGIN, TABLE_WIDTH
from render.theme import cat_fur

from .helpers import decode, share_near


def test_every_cat_has_its_own_colour() -> None:
    cats = load_catalog().cats
    assert len(cats) == 10
    furs = {cid: cat_fur(cid) for cid in cats}
    assert furs["leo"] == (230, 138, 52)  # orange, as the rules picture always showed him
    assert furs["callie"] == (146, 152, 162)  # grey
    for (a, fa), (b, fb) in itertools.combinations(furs.items(), 2):
        dist = sum((x - y) ** 2 for x, y in zip(fa, fb, strict=True)) ** 0.5
        assert dist >= 40, f"{a} and {b} look alike: {fa} {fb}"


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
    card_w = (TABLE_WIDTH - 2 * MARGIN - 2 * GAP) // 3
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
