"""The review and the hints on Discord (issue #13): messages, pictures, buttons and their clicks.

- The review (``/calico review`` and the score sheet's "Review my game" button) answers the
  person who asks, privately: the interaction is deferred first (a review takes seconds the
  first time), then followed up with the summary (accuracy, the chart, the three costliest
  turns as before/after pictures, each with one sentence on why) and the turn-by-turn list.
- The turn DM's "Hint" button: the first time in a game it asks to confirm (a game in which
  anyone takes a hint counts for no rating, achievement or leaderboard), then shows the
  engine's three best placements with their values, privately.
- The score sheet says when hints were taken, and carries the review button.

The work itself is :class:`bot.core.review.service.ReviewService`'s (worker processes, storage); the
running bot's service is found with :func:`service_of` (the review cog registers it).
The words are :mod:`bot.words.review`'s.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

import render
from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import items, respond
from bot.adapter.ui.outgoing import Outgoing
from bot.adapter.ui.views import ItemsView
from bot.core import queries
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.core.review import service as core_review
from bot.core.review.model import HintsOutcome, ReviewOutcome
from bot.core.review.service import ReviewService
from bot.words import markup
from bot.words import review as review_words
from bot.words.catalogue import Text
from engine.ai.review import Review
from engine.views import PrivateView

log = logging.getLogger("calico.review")

CHART_PNG = "review.png"
MESSAGE_LIMIT = 2000
HINT_ROW = 4  # the turn panel's selects use rows 0-2

_services: weakref.WeakKeyDictionary[Any, ReviewService] = weakref.WeakKeyDictionary()


# --------------------------------------------------------------------------- the service


def register(client: Any, service: ReviewService) -> None:
    """Make ``service`` the review service of ``client`` (done by the review cog)."""
    _services[client] = service


def unregister(client: Any) -> ReviewService | None:
    return _services.pop(client, None)


def service_of(client: Any) -> ReviewService:
    service = _services.get(client)
    if service is None:
        raise RuntimeError("the review cog is not loaded")
    return service


# --------------------------------------------------------------------------- pictures


def labels(tr: Text) -> dict[str, str]:
    """The review pictures' words in the reader's language (``render.review_*`` keys)."""
    return {key: tr(f"render.{key}") for key in render.REVIEW_LABELS}


def turn_png(turn: int) -> str:
    return f"review-turn-{turn}.png"


def _pictures(review: Review, views: dict[int, PrivateView], words: dict[str, str]
              ) -> list[tuple[int, bytes]]:
    """In a worker thread: the chart (turn 0) and each costly turn's comparison."""
    out = [(0, render.render_review_chart(review, labels=words))]
    rows = {t.ply: t for t in review.turns}
    for m in review.mistakes:
        view, row = views.get(m.ply), rows.get(m.ply)
        if view is not None and row is not None:
            out.append((m.turn, render.render_turn_compare(view, row, labels=words)))
    return out


async def review_messages(tr: Text, service: ReviewService, outcome: ReviewOutcome
                          ) -> list[Outgoing]:
    """The whole review as messages: the summary with its pictures, then the turn list."""
    review = outcome.review
    assert outcome.game.state is not None
    cfg = outcome.game.state.config
    views = await service.views_for(outcome, [m.ply for m in review.mistakes])
    pictures = await asyncio.to_thread(_pictures, review, views, labels(tr))
    first = Outgoing(review_words.summary_text(tr, outcome))
    rows = {t.turn: t for t in review.turns}
    for turn, png in pictures:
        if turn == 0:
            first.attach(CHART_PNG, png, review_words.chart_alt(tr, review))
            continue
        row = rows[turn]
        first.attach(turn_png(turn), png, review_words.turn_alt(tr, cfg, turn, row))
    return [first, *(Outgoing(text) for text in review_words.turn_texts(tr, outcome))]


# --------------------------------------------------------------------------- answering


async def answer_review(interaction: discord.Interaction[Any], game_id: int | None,
                        resolve: Callable[[], Awaitable[int]] | None = None) -> None:
    """Answer a review request privately: defer at once (the 3-second rule), then follow up
    with the review (stored, or computed in a worker process) and its turn list.
    ``resolve`` finds the game when ``game_id`` is None."""
    service = service_of(interaction.client)
    tr = Text(interaction.locale)
    uid = interaction.user.id
    extra: list[Outgoing] = []

    async def work() -> Outgoing:
        if game_id is not None:
            gid = game_id
        elif resolve is not None:
            gid = await resolve()
        else:
            raise ManagerError("no_game_here")
        outcome = await service.review(gid, uid)
        messages = await review_messages(tr, service, outcome)
        extra.extend(messages[1:])
        return messages[0]

    await respond.reply(interaction, work(), ephemeral=True, defer_first=True)
    for out in extra:
        try:
            await interaction.followup.send(ephemeral=True, **out.send_kwargs())
        except discord.HTTPException:
            log.warning("could not send the rest of a review", exc_info=True)
            break


async def review_click(interaction: discord.Interaction[Any], cid: ids.ReviewId) -> None:
    """The score sheet's "Review my game" button: the clicker's own seat."""
    await answer_review(interaction, cid.game)


def hints_message(tr: Text, outcome: HintsOutcome) -> Outgoing:
    return Outgoing(review_words.hints_text(tr, outcome))


def _check_hint(game: GameInfo, user_id: int, ply: int) -> None:
    """The refusals a hint click gets before anything is asked (the kernel checks again)."""
    if not game.status.active:
        raise ManagerError("game_over")
    if game.seat_of(user_id) is None:
        raise ManagerError("not_a_player")
    if game.ply != ply:
        raise ManagerError("stale")
    if not game.hints_allowed:
        raise ManagerError("hints_off")
    if game.status is not GameStatus.PLAY or game.current_user_id != user_id:
        raise ManagerError("not_your_turn")


def confirm_view(tr: Text, game: int, ply: int) -> ItemsView:
    view = ItemsView()
    view.add_item(items.button(ids.HintId(game, ply, confirmed=True), tr("hint.confirm_button")))
    return view


async def hint_click(interaction: discord.Interaction[Any], cid: ids.HintId) -> None:
    """The turn DM's "Hint" button (a private answer), and the confirmation's button (which
    turns the confirmation into the hints)."""
    bot = app_of(interaction)
    service = service_of(interaction.client)
    tr = Text(interaction.locale)
    uid = interaction.user.id

    async def work() -> Outgoing:
        if not cid.confirmed:
            game = await queries.game(bot.kernel, cid.game)
            _check_hint(game, uid, cid.ply)
            # Asked once per seat: each person's own achievements are at stake.
            if game.seat_of(uid) not in game.hinted:
                return Outgoing(tr("hint.confirm"), view=confirm_view(tr, cid.game, cid.ply))
        return hints_message(tr, await service.hints(cid.game, uid, cid.ply))

    if cid.confirmed:
        await respond.update(interaction, work())
    else:
        await respond.reply(interaction, work(), ephemeral=True, defer_first=False)


# --------------------------------------------------------------------------- other messages


def add_hint_button(view: discord.ui.View | None, tr: Text, game: GameInfo) -> None:
    """The turn panel's "Hint" button, in a game that offers hints."""
    if view is not None and game.hints_allowed:
        view.add_item(items.button(ids.HintId(game.id, game.ply), tr("hint.button"),
                                   row=HINT_ROW))


def score_sheet(tr: Text, game: GameInfo, out: Outgoing) -> None:
    """The score sheet's additions: whether hints were taken, and "Review my game"."""
    if game.hints_used:
        out.content = markup.clip(out.content + "\n" + tr("hint.score_sheet"), MESSAGE_LIMIT)
    add_review_button(tr, game, out)


def add_review_button(tr: Text, game: GameInfo, out: Outgoing) -> None:
    """"Review my game" under a finished game's result (the score sheet in its thread, the
    weekly challenge's DM), when a person played in it."""
    if game.status is GameStatus.OVER and any(s.ai_level is None for s in game.seats):
        if out.view is None:
            out.view = ItemsView()
        out.view.add_item(items.button(ids.ReviewId(game.id), tr("review.button")))


async def stats_line(tr: Text, kernel: Kernel, user_id: int) -> str:
    """``/calico stats``: the person's reviewed games and their mean accuracy ("" if none)."""
    count, mean = await core_review.accuracy(kernel, user_id)
    return review_words.stats_text(tr, count, mean)


def finished(games: Sequence[GameInfo]) -> list[GameInfo]:
    return [g for g in games if g.status is GameStatus.OVER]
