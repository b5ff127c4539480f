"""What tournaments do when Discord changes around them (issue #28), the feature's ``life``
hook (:mod:`bot.core.hooks`, told by :mod:`bot.core.leaving`):

- **its channel deleted, or the bot's access there lost**: the tournament pauses (no round
  starts or ends: nothing could be posted) and its organiser is told by DM; they resume it
  (``/calico tournament pause paused:False``) once the bot can post there again, or cancel it;
- **the bot removed from the server**: its tournaments are cancelled (nothing is posted:
  there is nowhere to post);
- **a member leaving the server**: withdrawn from its tournaments (out of a sign-up), their
  open game's seat already a computer's (:func:`bot.core.leaving.member_left`), that game
  lost for them.
"""

from __future__ import annotations

import contextlib

from bot.core.hooks import AccessLost, ChannelGone, GuildGone, Life, MemberLeft
from bot.core.kernel import Kernel
from bot.core.models import ManagerError
from bot.core.tournament import records, signup, store
from bot.core.tournament.model import (
    CANCELLED,
    PAUSED,
    RUNNING,
    SIGNUP,
    PostKind,
    TournamentRow,
)
from bot.core.tournament.store import TournamentWrite


async def life(k: Kernel, event: Life) -> int:
    """The feature's answer to ``event``; how many tournaments it changed."""
    changed = 0
    if isinstance(event, ChannelGone | AccessLost):
        what = PostKind.CHANNEL_GONE if isinstance(event, ChannelGone) else PostKind.NO_ACCESS
        for row in await store.open_of(k.store, channel_id=event.channel_id):
            changed += await channel_lost(k, row.id, what)
    elif isinstance(event, GuildGone):
        for row in await store.open_of(k.store, guild_id=event.guild_id):
            changed += await _cancel_quietly(k, row.id)
    elif isinstance(event, MemberLeft):
        for row in await store.open_of(k.store, guild_id=event.guild_id):
            with contextlib.suppress(ManagerError):  # not an entrant (or withdrawn already)
                await signup.drop(k, row.id, event.user_id)
                changed += 1
    return changed


async def channel_lost(k: Kernel, tournament_id: int, what: PostKind) -> int:
    """Pause the tournament (in its sign-up or running) and tell its organiser by DM (1), or
    nothing when it is paused or over already (0)."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int]:
        if row.status not in (SIGNUP, RUNNING):
            return None, 0
        w = records.write(row, now, status=PAUSED)
        w.notices.append(records.dm(row, 0, what, row.organiser_id))
        return w, 1

    return await records.step(k, tournament_id, change)


async def _cancel_quietly(k: Kernel, tournament_id: int) -> int:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int]:
        if row.status not in (SIGNUP, RUNNING, PAUSED):
            return None, 0
        return records.write(row, now, status=CANCELLED, round_deadline_at=None), 1

    return await records.step(k, tournament_id, change)
