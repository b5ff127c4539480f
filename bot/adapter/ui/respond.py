"""Answering interactions inside Discord's 3-second window, whatever the work costs.

The work (storage, rendering) starts at once as a task. If it finishes within ``budget`` seconds
(the common case: a turn step takes tens of milliseconds), the answer *is* the first response:
one round trip, and a component click edits its message in place (``response.edit_message``).
If it is slower, the interaction is deferred before the budget runs out and the answer follows as
an edit of the original response or a follow-up. Either way Discord hears from us in time.

Player-facing refusals (errors with a ``code``) become a short ephemeral reply and change
nothing; anything else is logged and answered with a generic apology. Both are private even
for an answer meant for the channel: a public answer is never deferred before its work (the
refusal, found first, goes out privately as the first response), and when slow work was
deferred publicly and then refused, the channel's "thinking" message is deleted and the
refusal follows privately. Work that outlives the interaction's 15-minute token (a review
queued at a busy hour) is still delivered: by DM, or for a public answer as a new message in
its channel, said to be late. Each answer is recorded
once in the bot's metrics (ok, refused, error, or deferred when it outlasted the budget), and a
Discord error while answering is counted by its code.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import discord

from bot.adapter import cooldowns, telemetry
from bot.adapter.ui import described
from bot.adapter.ui.outgoing import Outgoing
from bot.ops.metrics import Metrics, Outcome
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.replies import is_expected, reply_for

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 1.5  # seconds; Discord allows 3 from the event's creation
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction's token lets the bot answer in place
TOKEN_MARGIN = 30.0  # ...less this, for the answer to get there in time
INVALID_TOKEN = 50027
UNKNOWN_WEBHOOK = 10015


async def _settle(
    task: asyncio.Task[Outgoing | None], budget: float
) -> tuple[bool, Outgoing | None, BaseException | None]:
    """(finished in time, result, error)."""
    done, _ = await asyncio.wait({task}, timeout=budget)
    if not done:
        return False, None, None
    exc = task.exception()
    if exc is not None:
        return True, None, exc
    return True, task.result(), None


def _metrics(interaction: discord.Interaction[Any]) -> Metrics | None:
    metrics = getattr(interaction.client, "metrics", None)
    return metrics if isinstance(metrics, Metrics) else None


def _done(interaction: discord.Interaction[Any], outcome: Outcome) -> None:
    telemetry.answered(_metrics(interaction), interaction, outcome)


def _http_error(interaction: discord.Interaction[Any], exc: discord.HTTPException) -> None:
    metrics = _metrics(interaction)
    if metrics is not None:
        metrics.record_http_exception(exc)


def _error_text(tr: Text, exc: BaseException) -> tuple[str, Outcome]:
    if is_expected(exc):
        return reply_for(tr, exc), "refused"
    log.error("interaction failed", exc_info=exc)
    return tr("error.generic"), "error"


async def _private(interaction: discord.Interaction[Any], text: str,
                   outcome: Outcome = "refused") -> None:
    cooldowns.give_back(interaction)  # refused work uses up no start allowance
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as e:
        _http_error(interaction, e)
        log.warning("could not send a private reply", exc_info=True)
    _done(interaction, outcome)


async def _answer(interaction: discord.Interaction[Any], outcome: Outcome,
                  send: Awaitable[object]) -> None:
    """Send an answer and record it (a Discord error is counted, then raised as before)."""
    try:
        await send
    except discord.HTTPException as e:
        _http_error(interaction, e)
        _done(interaction, "error")
        raise
    _done(interaction, outcome)


async def _retract(interaction: discord.Interaction[Any]) -> None:
    """Delete a public "thinking" response, so that what follows can be private (the first
    follow-up of a defer takes the defer's visibility)."""
    try:
        await interaction.delete_original_response()
    except discord.HTTPException as e:
        _http_error(interaction, e)
        log.warning("could not take back a public defer", exc_info=True)


def token_gone(interaction: discord.Interaction[Any], error: BaseException | None = None,
               now: datetime | None = None) -> bool:
    """Whether the interaction can no longer be answered in place: its token lives 15 minutes
    (a little less is allowed here: the answer must arrive in time), or Discord said it is gone
    (401, 50027 invalid webhook token, 10015 unknown webhook)."""
    if isinstance(error, discord.HTTPException):
        return error.status == 401 or error.code in (INVALID_TOKEN, UNKNOWN_WEBHOOK)
    age = (now or discord.utils.utcnow()) - interaction.created_at
    return age.total_seconds() > TOKEN_LIFETIME - TOKEN_MARGIN


async def _late(interaction: discord.Interaction[Any], tr: Text, out: Outgoing,
                outcome: Outcome, *, public: bool) -> None:
    """An answer whose work outlived the interaction's token (a review queued at a busy hour):
    still delivered, said to be late: a private one by DM, a public one as a new message in
    its channel. If even that fails, it is logged and counted, never dropped silently."""
    kwargs = out.send_kwargs()
    kwargs["content"] = markup.clip(tr("answer.late") + "\n" + (out.content or ""), 2000)
    try:
        if public and interaction.channel is not None:
            await interaction.channel.send(**kwargs)  # type: ignore[union-attr]
        else:
            await interaction.user.send(**kwargs)
    except discord.HTTPException as e:
        _http_error(interaction, e)
        log.warning("an answer that outlived its interaction (%s) could not be delivered: %s",
                    telemetry.kind_of(interaction), e)
        _done(interaction, "error")
        return
    log.info("an answer that outlived its interaction (%s) went %s", telemetry.kind_of(
        interaction), "to its channel" if public else "by DM")
    _done(interaction, outcome)


async def _after_defer(interaction: discord.Interaction[Any], task: asyncio.Task[Outgoing | None],
                       tr: Text, answer: Callable[[Outgoing], Awaitable[object]],
                       outcome: Outcome = "deferred", *, public: bool = False) -> None:
    """Once deferred: wait for the work, then ``answer`` with it (a refusal or a failure goes
    out as a private reply instead, the public defer taken back first; None sends nothing).
    Work that outlived the interaction's token is delivered another way (:func:`_late`)."""
    try:
        out = await task
    except Exception as late:
        text, late_outcome = _error_text(tr, late)
        if token_gone(interaction):
            await _late(interaction, tr, Outgoing(text), late_outcome, public=False)
            return
        if public:
            await _retract(interaction)
        await _private(interaction, text, late_outcome)
        return
    if out is None:
        _done(interaction, outcome)
        return
    if token_gone(interaction):  # no request that can only be refused (an invalid one)
        await _late(interaction, tr, out, outcome, public=public)
        return
    try:
        await answer(out)
    except discord.HTTPException as e:
        _http_error(interaction, e)
        if not token_gone(interaction, e):
            _done(interaction, "error")
            raise
        await _late(interaction, tr, out, outcome, public=public)
        return
    _done(interaction, outcome)


async def update(
    interaction: discord.Interaction[Any],
    work: Awaitable[Outgoing | None],
    *,
    budget: float = DEFAULT_BUDGET,
) -> None:
    """Answer a component click by editing its message with the result of ``work``.

    ``work`` returning None means "nothing to change" (the click is acknowledged silently).
    """
    tr = Text(interaction.locale)
    if described.is_private(interaction):
        work = described.for_reader(interaction, work)  # pictures in words, for who asked
    task: asyncio.Task[Outgoing | None] = asyncio.ensure_future(work)
    in_time, out, exc = await _settle(task, budget)
    if not in_time:
        try:
            await interaction.response.defer()
        except discord.HTTPException:
            log.warning("could not defer a slow click", exc_info=True)
        await _after_defer(interaction, task, tr,
                           lambda out: interaction.edit_original_response(**out.edit_kwargs()))
        return
    if exc is not None:
        await _private(interaction, *_error_text(tr, exc))
        return
    if out is None:
        await _answer(interaction, "ok", interaction.response.defer())
        return
    await _answer(interaction, "ok", interaction.response.edit_message(**out.edit_kwargs()))


async def reply(
    interaction: discord.Interaction[Any],
    work: Awaitable[Outgoing | None],
    *,
    ephemeral: bool = True,
    budget: float = DEFAULT_BUDGET,
    defer_first: bool = True,
) -> None:
    """Answer with a new message built by ``work`` (a slash command, or a click that opens a panel).

    With ``defer_first`` (slash commands that read storage or render) a private answer is
    deferred before any work; otherwise, and always for a public answer (whose refusal must
    stay private), the work races the budget as in :func:`update`.
    """
    tr = Text(interaction.locale)
    if defer_first and ephemeral and not interaction.response.is_done():
        try:
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        except BaseException:
            if inspect.iscoroutine(work):
                work.close()  # never started: no "never awaited" warning on top of the error
            raise
    if ephemeral:
        work = described.for_reader(interaction, work)  # pictures in words, for who asked
    task: asyncio.Task[Outgoing | None] = asyncio.ensure_future(work)

    def follow_up(out: Outgoing) -> Awaitable[object]:
        return interaction.followup.send(ephemeral=ephemeral, **out.send_kwargs())

    if interaction.response.is_done():
        # Deferred up front (the command's choice, not a slow answer): counted as ok.
        await _after_defer(interaction, task, tr, follow_up, "ok", public=not ephemeral)
        return
    in_time, out, exc = await _settle(task, budget)
    if not in_time:
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        await _after_defer(interaction, task, tr, follow_up, public=not ephemeral)
        return
    if exc is not None:
        await _private(interaction, *_error_text(tr, exc))
        return
    if out is None:
        _done(interaction, "ok")
        return
    await _answer(interaction, "ok",
                  interaction.response.send_message(ephemeral=ephemeral, **out.send_kwargs()))


async def refuse(interaction: discord.Interaction[Any], error: BaseException | str) -> None:
    """A short private refusal (``error`` is an exception with a code, or a catalogue code)."""
    tr = Text(interaction.locale)
    await _private(interaction, reply_for(tr, error), "refused")


async def refuse_text(interaction: discord.Interaction[Any], text: str) -> None:
    """A short private refusal already worded (e.g. which options do not fit together)."""
    await _private(interaction, text, "refused")
