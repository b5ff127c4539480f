"""The winner: most points; ties go to most cat tokens, then most buttons, then are shared."""

from __future__ import annotations

from engine.quilt_record import score_record
from engine.scoring import rank
from tests.engine.hand_records import RULEBOOK
from tests.engine.helpers import CATALOG


def score(total, cats, buttons):
    return {"total": total, "cat_tokens": cats, "button_tokens": buttons}


def test_most_points_wins():
    """The highest total wins outright."""
    assert rank([score(60, 0, 0), score(61, 0, 0)]) == ((2, 1), (1,), "score")


def test_tie_broken_by_cat_tokens():
    """Equal totals: the player with more cat tokens wins, even with fewer buttons."""
    assert rank([score(60, 4, 9), score(60, 5, 1)]) == ((2, 1), (1,), "cats")


def test_then_by_buttons():
    """Equal totals and cat tokens: more buttons wins."""
    assert rank([score(60, 4, 6), score(60, 4, 7), score(50, 9, 9)]) == ((2, 1, 3), (1,),
                                                                         "buttons")


def test_then_the_victory_is_shared():
    """Equal on all three: the victory is shared."""
    assert rank([score(60, 4, 6), score(55, 1, 1), score(60, 4, 6)]) == ((1, 3, 1), (0, 2),
                                                                         "shared")


def test_places_below_the_winner():
    """Places count the players strictly ahead; ties below share a place."""
    places, winners, decided = rank([score(30, 0, 0), score(50, 0, 0), score(40, 1, 1),
                                     score(40, 1, 1)])
    assert places == (4, 1, 2, 2) and winners == (1,) and decided == "score"


def test_tie_break_only_among_the_tied_leaders():
    """A trailing player's many cat tokens do not matter."""
    assert rank([score(70, 1, 0), score(70, 2, 0), score(10, 9, 9)])[1:] == ((1,), "cats")


def test_solo_player_wins():
    """One player: first place."""
    assert rank([score(12, 0, 0)]) == ((1,), (0,), "score")


def test_token_counts_in_the_breakdown():
    """The rulebook quilt has 5 cat tokens and 7 button tokens (the rainbow is a button)."""
    s = score_record(CATALOG, RULEBOOK)
    assert (s["cat_tokens"], s["button_tokens"]) == (5, 7)
