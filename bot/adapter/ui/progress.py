"""Achievements and ratings on Discord (issue #12): what the score sheet adds (achievements
earned, a new title, the Replay and Rematch buttons, the winner's pick of another row), and the
answers of ``/calico achievements`` and the rating lines of ``stats`` and ``leaderboard``.
Builders return an :class:`Outgoing`; click handlers answer through
:mod:`bot.adapter.ui.respond`. The core part is :mod:`bot.core.progress`; the words are
:mod:`bot.words.progress`'s.
"""

from __future__ import annotations

from typing import Any

import discord

import render
from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import images, items, respond, views
from bot.adapter.ui.outgoing import Outgoing
from bot.core import queries
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, ManagerError
from bot.core.notices import GameOver
from bot.core.progress import achievements, ratings
from bot.core.progress.model import EVERYWHERE, MIN_RATED_GAMES, Progress, person_key
from bot.words import answers, markup, terms
from bot.words import progress as progress_words
from bot.words.catalogue import Text
from data import load_catalog
from engine.achievements import scenario_path

ACHIEVEMENTS_PNG = "achievements.png"
MAX_PICKS = 3  # pick selects on one score sheet (one per winner of a shared victory)


def score_sheet_view(tr: Text, game: GameInfo, info: Progress | None,
                     view: views.ItemsView | None = None) -> views.ItemsView:
    """The score sheet's controls: Replay, Rematch, and a pick for each winner whose win fits
    several normal-game rows. Added to ``view`` when the message already has one."""
    view = view if view is not None else views.ItemsView()
    view.add_item(items.button(ids.ReplayId(game.id), tr("progress.button.replay")))
    if game.challenge_week is None:
        view.add_item(items.button(ids.RematchId(game.id), tr("progress.button.rematch")))
    names = terms.seat_names(game, tr)
    picks = [e for e in (info.earned if info is not None else ())
             if len(e.choices) > 1 and e.ids]
    for e in picks[:MAX_PICKS]:
        current = e.ids[0]
        options = [discord.SelectOption(
                       label=markup.clip(progress_words.achievement_name(tr, c), 100),
                       value=c, default=c == current,
                       description=markup.clip(tr(f"achievements.desc.{c}"), 100))
                   for c in e.choices[:views.MAX_OPTIONS]]
        placeholder = tr("progress.button.pick",
                         name=names[e.seat] if e.seat < len(names) else "?")
        view.add_item(items.select(ids.PickId(game.id, e.seat), markup.clip(placeholder, 150),
                                   options))
    return view

def decorate_game_over(tr: Text, game: GameInfo, out: Outgoing, over: GameOver) -> Outgoing:
    """The score sheet (:func:`messages.game_over_message`) with what achievements and
    ratings add (its :class:`~bot.core.progress.model.Progress` part)."""
    info = over.part(Progress)
    lines = progress_words.game_over_lines(tr, None, game, info)
    if lines:
        out.content = markup.clip(out.content + "\n\n" + "\n".join(lines), 2000)
    current = out.view if isinstance(out.view, views.ItemsView) else None
    out.view = score_sheet_view(tr, game, info, current)
    return out

async def pick_click(interaction: discord.Interaction[Any], cid: ids.PickId,
                     values: list[str]) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)

    async def work() -> Outgoing:
        game = await queries.game(bot.kernel, cid.game)
        if game.seat_of(interaction.user.id) != cid.seat:
            raise ManagerError("not_a_player")
        chosen = values[0] if values else ""
        old = await achievements.pick(bot.kernel, cid.game, interaction.user.id, chosen)
        if old is None:
            return Outgoing(tr("progress.pick.same",
                               name=progress_words.achievement_name(tr, chosen)))
        return Outgoing(tr("progress.pick.done", name=progress_words.achievement_name(tr, chosen),
                           old=progress_words.achievement_name(tr, old)))

    await respond.reply(interaction, work(), ephemeral=True, defer_first=False)

async def achievements_message(tr: Text, kernel: Kernel, user_id: int,
                               name: str, *, path: bool = True) -> Outgoing:
    """``/calico achievements``: the progress track as a picture, and in words; with ``path``
    (not for a bot account, which plays no scenarios), the next scenario on the solo path."""
    mine = await achievements.achievements_of(kernel, user_id)
    chart = load_catalog().achievements
    lines = [tr("progress.achievements.title", name=markup.name(name)),
             *progress_words.position_lines(tr, load_catalog(), mine.position)]
    if mine.rows:
        latest = [progress_words.achievement_name(tr, r.achievement) for r in mine.rows[-3:]][::-1]
        lines.append(tr("progress.achievements.latest", names=", ".join(latest)))
    else:
        lines.append(tr("progress.achievements.none"))
    if path:
        lines.append(progress_words.scenario_path_line(tr, scenario_path(chart, mine.ids)))
    labels = {k: tr(f"achievements.image.{k}") for k in render.ACHIEVEMENT_LABELS}
    png = await images.draw(render.render_achievements, chart, mine.ids, name=name,
                                  labels=labels)
    out = Outgoing(markup.clip("\n".join(lines), 2000))
    out.attach(ACHIEVEMENTS_PNG, png, tr(
        "progress.achievements.alt", name=name, points=mine.position.points,
        total=mine.position.total,
        title=progress_words.title_name(tr, load_catalog(), mine.position.title)))
    return out

async def scenario_suggestion(tr: Text, kernel: Kernel, user_id: int) -> str:
    """A line for ``/calico solo`` played without a scenario: the next one on the person's
    path ("" once every scenario is passed)."""
    mine = await achievements.achievements_of(kernel, user_id)
    path = scenario_path(load_catalog().achievements, mine.ids)
    return "" if path.next is None else "\n" + tr("progress.path.suggest", next=path.next)

async def stats_lines(tr: Text, kernel: Kernel, user_id: int, guild_id: int | None) -> str:
    """The lines ``/calico stats`` adds: rating and rank (this server, every server), and the
    achievement points."""
    lines: list[str] = []
    player = person_key(user_id)
    scopes = [guild_id, EVERYWHERE] if guild_id else [EVERYWHERE]
    for scope in scopes:
        standing = await ratings.rating_of(kernel, player, scope)
        if standing.row is None:
            continue
        where = progress_words.scope_name(tr, scope)
        if standing.rank is not None:
            lines.append(tr("progress.stats.rating", scope=where, rating=progress_words.rating_text(
                standing.row), rank=standing.rank, ranked=standing.ranked,
                count=standing.row.games))
        else:
            lines.append(tr("progress.stats.rating_unranked", scope=where,
                            rating=progress_words.rating_text(standing.row),
                            count=standing.row.games,
                            min=MIN_RATED_GAMES))
    if not lines:
        lines.append(tr("progress.stats.unrated"))
    mine = await achievements.achievements_of(kernel, user_id)
    lines.append(tr("progress.stats.achievements", points=mine.position.points,
                    total=mine.position.total,
                    title=progress_words.title_name(tr, load_catalog(), mine.position.title)))
    return "\n" + "\n".join(lines)

async def leaderboard_message(tr: Text, kernel: Kernel, guild_id: int,
                              everywhere: bool = False) -> Outgoing:
    """``/calico leaderboard``: players by rating (ordinal), from MIN_RATED_GAMES rated games,
    with their wins and average; while nobody qualifies, the most wins as before."""
    scope = EVERYWHERE if everywhere else guild_id
    entries = await ratings.rating_board(kernel, scope)
    if entries:
        lines = [tr("progress.board.title", scope=progress_words.scope_name(tr, scope),
                    min=MIN_RATED_GAMES), *progress_words.board_lines(tr, entries), "",
                 tr("progress.board.how")]
        return Outgoing(markup.clip("\n".join(lines), 2000))
    wins = await queries.leaderboard(kernel, scope)
    head = tr("progress.board.none", min=MIN_RATED_GAMES)
    return Outgoing(markup.clip(head + "\n\n" + answers.leaderboard_text(tr, wins), 2000))
