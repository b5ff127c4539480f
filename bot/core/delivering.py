"""The outbox's contract with a delivery (the Discord layer, a test's stand-in, the demo's
transcript): what it is handed, what it answers, and how it says what went wrong.

:class:`Delivery` shows one notice (``notice.key`` as the Discord nonce; ``notice.run``: the
notices to show in the same post, :mod:`bot.core.folding`; ``notice.look_first``: it may be out
already, look first) and answers a :class:`Receipt`; it raises :class:`DeliveryError` when it
could not (permanent or not, or nowhere to go), or :class:`Later` when a rate limit would make
it wait (nothing was sent). :mod:`bot.core.outbox` re-exports them (the adapter imports them
from there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.core.notices import Notice
from bot.core.storage import NoticeStatus


class DeliveryError(Exception):
    """Raised by a Delivery. ``permanent``: retrying cannot help (DMs closed, no access);
    ``undeliverable``: there is nowhere to post it (no thread); ``refused``: the destination
    refused this very post for good (an invalid body, missing access, an unknown channel), so
    it ends at once, is counted apart and never holds up its lane. ``unreachable`` (of a
    permanent DM failure): the person cannot be reached by DM at all, so the outbox's follow-up
    runs (their DMs count as closed); False when only this message was refused."""

    def __init__(self, reason: str, *, permanent: bool = False, undeliverable: bool = False,
                 refused: bool = False, unreachable: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent or undeliverable or refused
        self.undeliverable = undeliverable
        self.refused = refused
        self.unreachable = unreachable


class Later(Exception):  # noqa: N818 - a wait, not an error
    """Raised by a Delivery before it sent anything: not now (a rate limit would make the
    request wait), and not a failure. The lane comes due again after ``seconds`` and its slot
    serves other lanes meanwhile; the notice keeps its attempts and is not in doubt."""

    def __init__(self, seconds: float, reason: str) -> None:
        super().__init__(reason)
        self.seconds = max(0.0, seconds)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a delivery did: ``done`` (with the Discord message id when one was created) or
    ``skipped`` (nothing worth showing any more: superseded, or the game is gone). ``found``:
    the post was already in Discord (``look_first``) and was not made again."""

    status: NoticeStatus = NoticeStatus.DONE
    message_id: int | None = None
    reason: str | None = None
    found: bool = False
    covered: int | None = None  # of a run (Notice.run): how many the post showed (None: all)


SKIPPED = Receipt(NoticeStatus.SKIPPED)


class Delivery(Protocol):
    async def deliver(self, notice: Notice) -> Receipt | None:
        """Show ``notice`` in Discord (``notice.key`` as the nonce); None means done. Raise
        DeliveryError when it could not be shown. With ``notice.look_first``, a post of it may
        be in Discord already, beyond the nonce's reach: find it and record it instead."""
        ...


class NullDelivery:
    """Accepts everything and shows nothing (offline demo, load generator)."""

    def __init__(self) -> None:
        self.count = 0

    async def deliver(self, notice: Notice) -> Receipt | None:
        self.count += 1
        return None

__all__ = ["SKIPPED", "Delivery", "DeliveryError", "Later", "NullDelivery", "Receipt"]
