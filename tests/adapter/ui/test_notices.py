"""Every notice kind the core and its features declare has a way to Discord: a builder for a
notice about a game (``bot/adapter/ui/notices.py`` ``BUILDERS``; the thread's opening is the
delivery's own step), a poster for a notice about no game (``bot/adapter/delivery.py``
``CHANNEL``), and every score-sheet part its decoration (``PARTS``). A kind declared without
one would be stored and never shown."""

from __future__ import annotations

from bot.adapter import delivery
from bot.adapter.ui import notices as ui
from bot.core import notices


def test_every_declared_kind_is_built_or_posted() -> None:
    declared = set(notices.kinds().values())
    assert {notices.TurnPrompt, notices.GameOver} <= declared  # the core's
    assert len(declared) > len(notices.NoticeKind)  # and the features' (loaded by the adapter)
    shown = set(ui.BUILDERS) | set(delivery.CHANNEL) | {notices.OpenThread}
    assert declared - shown == set()
    assert set(ui.BUILDERS) & set(delivery.CHANNEL) == set()  # one way each


def test_every_score_sheet_part_is_drawn() -> None:
    # The declared parts (declare_part sets each one's key; a dataclass made with slots leaves
    # its first class behind among the subclasses, without one).
    parts = {c for c in notices.Part.__subclasses__() if "key" in vars(c)}
    assert parts and parts == set(ui.PARTS)
