"""The weekly challenge on Discord (issue #12): ``/calico challenge`` (deal this week's game,
or say how the attempt stands, with the boards), the DM at the end of an attempt, and a closed
week's summary in a server's challenge channel. The core part is :mod:`bot.core.challenge`;
the words are :mod:`bot.words.progress`'s."""

from __future__ import annotations

from typing import Any

import discord

from bot.adapter import postmarks
from bot.adapter.postmarks import Look
from bot.adapter.ui import images
from bot.adapter.ui import review as review_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core.challenge import play as challenge
from bot.core.challenge.model import Over, Summary
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, UserRef
from bot.core.notices import Notice
from bot.core.outbox import Receipt
from bot.words import describe, markup, terms
from bot.words import progress as progress_words
from bot.words.catalogue import Text
from engine.events import ScenarioResult
from engine.views import public_view


async def challenge_message(tr: Text, kernel: Kernel, user: UserRef, guild_id: int,
                            channel_id: int) -> Outgoing:
    """``/calico challenge``: deal this week's game (first time), or say how the attempt
    stands, with the boards once it is finished (and last week's, once closed)."""
    standing = await challenge.standing(kernel, user.id, guild_id)
    ends = markup.timestamp(standing.ends_at)
    if standing.entry is None:
        game = await challenge.start(kernel, user, guild_id, channel_id)
        lines = [tr("progress.challenge.started", week=game.challenge_week, ends=ends,
                    game=game.id)]
    elif standing.entry.score is not None:
        lines = [tr("progress.challenge.done", week=standing.week, score=standing.entry.score,
                    ends=ends)]
        lines += progress_words.challenge_boards(tr, standing.server, standing.everywhere)
    elif standing.game is not None and standing.game.status.active:
        lines = [tr("progress.challenge.playing", week=standing.week, game=standing.game.id,
                    ends=ends)]
    else:
        lines = [tr("progress.challenge.ended", week=standing.week, ends=ends)]
    if standing.last_week is not None and (standing.last_server or standing.last_everywhere):
        lines += ["", tr("progress.challenge.last_week", week=standing.last_week)]
        lines += progress_words.challenge_boards(tr, standing.last_server,
                                                 standing.last_everywhere)
    return Outgoing(markup.clip("\n".join(lines), 2000))

async def challenge_over_message(tr: Text, kernel: Kernel, game: GameInfo,
                                 over: Over) -> Outgoing:
    """The DM at the end of a challenge game (it has no thread): the score, the rank so far,
    the score sheet, and "Review my game"."""
    week, score = over.week, over.score
    lines = [tr("progress.challenge.over", week=week, score=score)]
    if over.recorded:
        rank, entrants = await challenge.rank(kernel, week, game.guild_id, score)
        rank_all, entrants_all = await challenge.rank(kernel, week, None, score)
        lines.append(tr("progress.challenge.over_rank", rank=rank, entrants=entrants,
                        rank_all=rank_all, entrants_all=entrants_all))
    elif over.hints:
        lines.append(tr("progress.challenge.over_hints"))
    else:
        lines.append(tr("progress.challenge.over_late"))
    out = Outgoing(markup.clip("\n".join(lines), 2000))
    if game.state is not None:
        events = over.events.decoded()
        scenario = next((e for e in events if isinstance(e, ScenarioResult)), None)
        view, names = public_view(game.state), terms.seat_names(game, tr)
        png = await images.scores_image(tr, view, names, scenario)
        out.attach(images.SCORES_PNG, png,
                   describe.scoresheet(tr, view, names, scenario).short)
    review_ui.add_review_button(tr, game, out)
    return out

def challenge_summary_message(tr: Text, summary: Summary) -> Outgoing:
    """A closed week's summary, posted in the server's challenge channel."""
    return Outgoing(progress_words.challenge_summary_text(tr, summary))


async def deliver(_bot: Any, client: discord.Client, notice: Notice, nonce: str,
                  look: Look | None = None) -> Receipt:
    """Post a closed week's summary in its channel (``notice.channel_id``), in the server's
    language. With ``look`` (it may be out already, unrecorded, past Discord's nonce window),
    a post found in the channel is recorded instead of posted again."""
    summary = notice.body
    assert isinstance(summary, Summary)
    guild = client.get_guild(summary.guild_id)
    locale = summary.language or (guild.preferred_locale if guild else None)
    out = challenge_summary_message(Text(locale), summary)
    channel = client.get_channel(notice.channel_id)
    target: discord.abc.Messageable
    if isinstance(channel, discord.abc.Messageable):
        target = channel
    else:
        target = client.get_partial_messageable(notice.channel_id,
                                                guild_id=summary.guild_id or None)
    return await postmarks.post_once(target, out.send_kwargs(), nonce, look,
                                     "challenge summary")
