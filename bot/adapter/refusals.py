"""Which of Discord's answers to a post are final (issue #28): a post Discord refuses for good is
ended at once, never retried for days, and never holds up the posts queued behind it.

- a 4xx but a 401 or a 429: ``400`` (an invalid form body, 50035: too many mentions, a field
  too long...), ``403`` (missing access or permissions: 50001, 50013), ``404`` (an unknown
  channel or message: 10003, 10008), ``413`` (a file too large)... say the same request will
  be refused again:
  the delivery raises a *refused* :class:`~bot.core.outbox.DeliveryError`, which the outbox
  ends with one log line and counts (``calico_notices_total{outcome="refused"}``);
- everything else (``429`` past discord.py's own retries, ``5xx``, ``401``, timeouts) may pass:
  retried with backoff, in order.

The places that know more (a deleted thread ends its game, closed DMs reroute a reminder, an
archived thread is revived) handle their codes first; this is what is left.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.core.outbox import DeliveryError


def for_good(e: discord.HTTPException) -> bool:
    """Whether Discord will refuse the same request again, whenever it is sent: any 4xx but a
    401 (the token, which an operator may restore) and a 429 (a wait). Sending it again would
    be refused again and count towards Discord's invalid-request ban."""
    return 400 <= e.status < 500 and e.status not in (401, 429)


def failed(e: discord.HTTPException, what: str, metrics: Any = None, *,
           unreachable: bool = True) -> DeliveryError:
    """The :class:`DeliveryError` for Discord's answer ``e`` to ``what`` (a post, an edit...):
    refused for good, or to be retried. ``metrics`` (the bot's, when it has them) counts
    Discord's error code; ``unreachable=False``: a DM refused for good is that message only,
    not the person's DMs."""
    record = getattr(metrics, "record_http_exception", None)
    if callable(record):
        record(e)
    detail = f"{what}: {e.status} (code {e.code}) {str(e.text)[:200]}".rstrip()
    if for_good(e):
        return DeliveryError(f"refused by Discord, {detail}", refused=True,
                             unreachable=unreachable)
    return DeliveryError(f"failed, {detail}")
