"""Closing a week of the challenge (the feature's periodic work): each week whose end has
passed is closed once across processes, and a summary queued in the same transaction for each
server that had finished attempts and chose a challenge channel (``/calico admin``)."""

from __future__ import annotations

import json
import logging
from typing import Any

from bot.core.challenge import store
from bot.core.challenge.model import CHANNEL_KEY, LANGUAGE_KEY, ChallengeRow, Summary
from bot.core.challenge.play import board
from bot.core.kernel import Kernel
from bot.core.notices import encode
from bot.core.storage import NoticeDraft, Store

log = logging.getLogger("calico.challenge")


def guild_setting(data: str | None, key: str) -> Any:
    """One value of a server's settings JSON (None when unset or unreadable)."""
    if not data:
        return None
    try:
        settings = json.loads(data)
    except ValueError:
        return None
    return settings.get(key) if isinstance(settings, dict) else None


async def challenge_channel(db: Store, guild_id: int) -> int | None:
    """The channel a server chose for the weekly summary (``/calico admin``), if any."""
    value = guild_setting(await db.guild_settings(guild_id), CHANNEL_KEY)
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def summary_key(week: str, index: int) -> str:
    """The notice key (the Discord nonce, at most 25 characters) of one server's summary."""
    return f"cw{week}.{index}"


async def summary_notices(db: Store, row: ChallengeRow) -> list[NoticeDraft]:
    """One summary per server with finished attempts and a challenge channel."""
    guilds = await store.guilds(db, row.week)
    if not guilds:
        return []
    everywhere = await board(db, row.week, None, None, 3)
    notices = []
    for index, (guild_id, entrants) in enumerate(sorted(guilds.items())):
        channel = await challenge_channel(db, guild_id)
        if channel is None:
            continue
        top = await board(db, row.week, guild_id)
        language = guild_setting(await db.guild_settings(guild_id), LANGUAGE_KEY)
        body = Summary(
            week=row.week, guild_id=guild_id, entrants=entrants,
            language=language if isinstance(language, str) else None,
            top=tuple((x.rank, x.user_id, x.name, x.score) for x in top.lines),
            everywhere=everywhere.entrants,
            best=everywhere.lines[0].score if everywhere.lines else None)
        notices.append(NoticeDraft(body.kind, None, 0, encode(body),
                                   summary_key(row.week, index), channel_id=channel))
    return notices


async def close_due(kernel: Kernel, now: int) -> int:
    """Close every week whose end has passed (once, across processes), queueing each
    server's summary in the closing transaction. Returns how many this call closed."""
    closed = 0
    for row in await store.to_close(kernel.store, now):
        try:
            notices = await summary_notices(kernel.store, row)
            if await store.close(kernel.store, row.week, now, notices):
                closed += 1
                log.info("weekly challenge %s closed: %d summaries", row.week, len(notices))
        except Exception:
            log.exception("closing the weekly challenge %s failed", row.week)
    return closed
