"""The review and the hints on Discord (issue #13): messages, pictures, buttons and their clicks.

- The review (``/calico review`` and the score sheet's "Review my game" button) answers the
  person who asks, privately: the interaction is deferred first (a review takes seconds the
  first time), then followed up with the summary (accuracy, the chart, the three costliest
  turns as before/after pictures, each with one sentence on why) and the turn-by-turn list.
- The turn DM's "Hint" button: the first time in a game it asks to confirm (a game in which
  anyone takes a hint counts for no rating, achievement or leaderboard), then shows the
  engine's three best placements with their values, privately.
- The score sheet says when hints were taken, and carries the review button.

The work itself is :class:`bot.core.review.ReviewService`'s (worker processes, storage); the
running bot's service is found with :func:`service_of` (the review cog registers it).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

import render
from bot import presenter as p
from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import respond
from bot.adapter.ui.items import HintButton, ReviewButton
from bot.adapter.ui.outgoing import Outgoing
from bot.adapter.ui.views import ItemsView
from bot.core import review as core_review
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.core.review import HintsOutcome, ReviewOutcome, ReviewService
from bot.i18n import Text
from engine.ai.hints import Hint
from engine.ai.review import Mistake, Placement, Reason, Review, TurnReview
from engine.config import GameConfig
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


# --------------------------------------------------------------------------- words


def num(tr: Text, value: float, digits: int = 1) -> str:
    """A number as the reader writes it (a decimal comma in French and Polish)."""
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if tr.lang in ("fr", "pl") else text


def labels(tr: Text) -> dict[str, str]:
    """The review pictures' words in the reader's language (``render.review_*`` keys)."""
    return {key: tr(f"render.{key}") for key in render.REVIEW_LABELS}


def move_words(tr: Text, cfg: GameConfig, move: Placement) -> str:
    """A turn in words: the tile sewn, where, and the market tile taken."""
    tile = p.tile_code_name(tr, cfg, move.tile)
    if move.pick is None:
        return tr("review.move", tile=tile, cell=move.cell)
    return tr("review.move_took", tile=tile, cell=move.cell,
              pick=p.tile_code_name(tr, cfg, move.pick))


def reason_words(tr: Text, reason: Reason) -> str:
    how = reason.how if reason.how in ("earned", "kept_open") else "kept_open"
    points = num(tr, reason.points)
    if reason.kind == "cat":
        return tr(f"review.why.cat.{how}", cat=p.cat_name(reason.cat or ""), points=points)
    if reason.kind == "button":
        return tr(f"review.why.button.{how}", color=p.color_name(tr, reason.color or ""),
                  points=points)
    if reason.kind == "rainbow":
        return tr(f"review.why.rainbow.{how}", points=points)
    return tr(f"review.why.goal.{how}", goal=p.goal_name(reason.goal), spot=reason.spot or "?",
              points=points)


def why_sentence(tr: Text, mistake: Mistake) -> str:
    """One sentence on why a costly turn cost points (from the review's structured reasons)."""
    parts = [reason_words(tr, r) for r in mistake.reasons[:2]]
    if len(parts) == 2:
        text = tr("review.why.sentence",
                  reasons=tr("review.why.and", first=parts[0], second=parts[1]))
    elif parts:
        text = tr("review.why.sentence", reasons=parts[0])
    else:
        text = tr("review.why.none")
    if mistake.differs == "pick":
        text = tr("review.why.pick") + " " + text
    return text


def _draft_line(tr: Text, review: Review) -> str | None:
    d = review.draft
    if d is None:
        return None
    if d.played == d.engine:
        return tr("review.draft_same")
    played = " · ".join(f"{p.goal_name(g)} ({s})" for g, s in zip(d.played, p.GOAL_SPOT_NAMES,
                                                                  strict=True))
    engine = " · ".join(f"{p.goal_name(g)} ({s})" for g, s in zip(d.engine, p.GOAL_SPOT_NAMES,
                                                                  strict=True))
    if d.loss < 0.05:
        return tr("review.draft_close", played=played, engine=engine)
    return tr("review.draft", played=played, engine=engine, loss=num(tr, d.loss))


def _seat_name(game: GameInfo, seat: int, tr: Text) -> str:
    names = p.seat_names(game, tr)
    return names[seat] if 0 <= seat < len(names) else "?"


def summary_text(tr: Text, outcome: ReviewOutcome) -> str:
    """The review's first message: accuracy, the loss, the draft, the costliest turns."""
    review, game = outcome.review, outcome.game
    assert game.state is not None
    cfg = game.state.config
    rows = {t.ply: t for t in review.turns}
    lines = [tr("review.title", game=game.id, name=_seat_name(game, outcome.seat, tr))]
    accuracy = num(tr, review.accuracy)
    if review.final_score is not None:
        lines.append(tr("review.accuracy", accuracy=accuracy, score=review.final_score))
    else:
        lines.append(tr("review.accuracy_no_score", accuracy=accuracy))
    lines.append(tr("review.loss", count=len(review.turns), loss=num(tr, review.total_loss)))
    draft = _draft_line(tr, review)
    if draft:
        lines.append(draft)
    lines.append("")
    lines.append(tr("review.mistakes"))
    if not review.mistakes:
        lines.append(tr("review.no_mistakes"))
    for rank, m in enumerate(review.mistakes, 1):
        row = rows.get(m.ply)
        if row is None:
            continue
        lines.append(tr("review.mistake", rank=rank, turn=m.turn, loss=num(tr, m.loss),
                        played=move_words(tr, cfg, row.played),
                        engine=move_words(tr, cfg, row.engine), why=why_sentence(tr, m)))
    lines.append("")
    lines.append(tr("review.method", samples=review.samples))
    lines.append(tr("review.stored", when=p.timestamp(outcome.created_at)))
    return p.clip("\n".join(lines), MESSAGE_LIMIT)


def turn_line(tr: Text, cfg: GameConfig, row: TurnReview) -> str:
    played = move_words(tr, cfg, row.played)
    if row.differs is None:
        return tr("review.turn_same", turn=row.turn, played=played)
    engine = move_words(tr, cfg, row.engine)
    if row.loss < 0.05:
        return tr("review.turn_even", turn=row.turn, played=played, engine=engine)
    return tr("review.turn_diff", turn=row.turn, played=played, engine=engine,
              loss=num(tr, row.loss))


def turn_texts(tr: Text, outcome: ReviewOutcome) -> list[str]:
    """Every turn of the seat, what was played against the engine's move and what the
    difference cost, split into messages of at most 2,000 characters."""
    assert outcome.game.state is not None
    cfg = outcome.game.state.config
    out: list[str] = []
    current = [tr("review.turns_title")]
    size = len(current[0])
    for row in outcome.review.turns:
        line = p.clip(turn_line(tr, cfg, row), 400)
        if size + 1 + len(line) > MESSAGE_LIMIT:
            out.append("\n".join(current))
            current = [tr("review.turns_more")]
            size = len(current[0])
        current.append(line)
        size += 1 + len(line)
    if len(current) > 1:
        out.append("\n".join(current))
    return out


def chart_alt(tr: Text, review: Review) -> str:
    turns, mine, engine = review.chart()
    if not turns:
        return tr("review.title", game="", name="")
    values = {"turns": len(turns), "start": num(tr, mine[0]), "end": num(tr, mine[-1]),
              "engine_end": num(tr, engine[-1])}
    if review.mistakes:
        marked = ", ".join(str(m.turn) for m in review.mistakes)
        return tr("review.alt_chart", mistakes=marked, **values)
    return tr("review.alt_chart_clean", **values)


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
    first = Outgoing(summary_text(tr, outcome))
    rows = {t.turn: t for t in review.turns}
    for turn, png in pictures:
        if turn == 0:
            first.attach(CHART_PNG, png, chart_alt(tr, review))
            continue
        row = rows[turn]
        first.attach(turn_png(turn), png, tr(
            "review.alt_turn", turn=turn, played=move_words(tr, cfg, row.played),
            engine=move_words(tr, cfg, row.engine), ev_played=num(tr, row.ev_played),
            ev_engine=num(tr, row.ev_engine)))
    return [first, *(Outgoing(text) for text in turn_texts(tr, outcome))]


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


def hint_choice_words(tr: Text, cfg: GameConfig, hint: Hint) -> str:
    tile = p.tile_code_name(tr, cfg, hint.tile)
    if hint.hand is None:
        return tr("hint.move_market", tile=tile, cell=hint.cell, slot=(hint.market or 0) + 1)
    if hint.pick is None:
        return tr("hint.move_last", tile=tile, cell=hint.cell)
    return tr("hint.move_hand", tile=tile, cell=hint.cell,
              pick=p.tile_code_name(tr, cfg, hint.pick))


def hints_message(tr: Text, outcome: HintsOutcome) -> Outgoing:
    game, view = outcome.game, outcome.view
    cfg = view.public.config
    number = len(view.public.seats[outcome.seat].placed) + 1
    lines = [tr("hint.title", number=number, game=game.id)]
    if not outcome.hints:
        lines.append(tr("hint.none"))
    for rank, h in enumerate(outcome.hints, 1):
        lines.append(tr("hint.line", rank=rank, move=hint_choice_words(tr, cfg, h),
                        value=num(tr, h.value), engine=tr("hint.engine") if h.engine else ""))
    lines += ["", tr("hint.note", samples=outcome.samples), tr("hint.marked")]
    return Outgoing(p.clip("\n".join(lines), MESSAGE_LIMIT))


def _check_hint(game: GameInfo, user_id: int, ply: int) -> None:
    """The refusals a hint click gets before anything is asked (the manager checks again)."""
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
    view.add_item(HintButton(ids.HintId(game, ply, confirmed=True), tr("hint.confirm_button")))
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
            game = await bot.manager.get_game(cid.game)
            _check_hint(game, uid, cid.ply)
            if not game.hints_used:
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
        view.add_item(HintButton(ids.HintId(game.id, game.ply), tr("hint.button"),
                                 row=HINT_ROW))


def score_sheet(tr: Text, game: GameInfo, out: Outgoing) -> None:
    """The score sheet's additions: whether hints were taken, and "Review my game"."""
    if game.hints_used:
        out.content = p.clip(out.content + "\n" + tr("hint.score_sheet"), MESSAGE_LIMIT)
    add_review_button(tr, game, out)


def add_review_button(tr: Text, game: GameInfo, out: Outgoing) -> None:
    """"Review my game" under a finished game's result (the score sheet in its thread, the
    weekly challenge's DM), when a person played in it."""
    if game.status is GameStatus.OVER and any(s.ai_level is None for s in game.seats):
        if out.view is None:
            out.view = ItemsView()
        out.view.add_item(ReviewButton(ids.ReviewId(game.id), tr("review.button")))


async def stats_line(tr: Text, manager: Kernel, user_id: int) -> str:
    """``/calico stats``: the person's reviewed games and their mean accuracy ("" if none)."""
    count, mean = await core_review.accuracy(manager, user_id)
    if not count or mean is None:
        return ""
    return tr("review.stats", count=count, accuracy=num(tr, mean))


def finished_label(tr: Text, game: GameInfo) -> str:
    return tr("review.pick", game=game.id, date=game.updated_at.date().isoformat())


def finished(games: Sequence[GameInfo]) -> list[GameInfo]:
    return [g for g in games if g.status is GameStatus.OVER]
