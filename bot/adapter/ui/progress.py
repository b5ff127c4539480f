"""Reasons to come back, on Discord (issue #12): what the score sheet adds (achievements
earned, a new title, the Replay and Rematch buttons, the winner's pick of another row), the
rematch lobby's invitation, the weekly challenge's DM and channel summary, and the answers of
``/calico achievements``, ``replay``, ``record``, ``challenge`` and the rating lines of
``stats`` and ``leaderboard``. Builders return an :class:`Outgoing`; click handlers answer
through :mod:`bot.adapter.ui.respond`. The core parts are :mod:`bot.core.progress`,
:mod:`bot.core.challenge` and :mod:`bot.core.replays`; the words are
:mod:`bot.words.progress`'s.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import discord

import render
from bot.adapter import hosting
from bot.adapter.context import app_of
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import images, items, messages, respond, views
from bot.adapter.ui import review as review_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core import challenge, progress, replays
from bot.core.manager import Manager
from bot.core.models import GameInfo, GameStatus, ManagerError, UserRef
from bot.words import answers, describe, markup, terms
from bot.words import progress as progress_words
from bot.words.catalogue import Text
from bot.words.replies import reply_for
from data import Catalog
from engine.achievements import scenario_path
from engine.events import ScenarioResult
from engine.views import public_view

log = logging.getLogger("calico.progress")

REPLAY_GIF = "replay.gif"
ACHIEVEMENTS_PNG = "achievements.png"
# Discord's attachment limit for a bot's message in any server (8 MiB before boosts).
ATTACHMENT_LIMIT = 8 * 1024 * 1024
MAX_PICKS = 3  # pick selects on one score sheet (one per winner of a shared victory)
# Replays drawn, per manager (its database): a finished game never changes.
_replays: weakref.WeakKeyDictionary[Manager, OrderedDict[tuple[int, str], bytes]] = (
    weakref.WeakKeyDictionary())
_REPLAY_CACHE = 16


def record_name(game_id: int) -> str:
    return f"calico-{game_id}.json"


def user_ref(interaction: discord.Interaction[Any]) -> UserRef:
    user = interaction.user
    return UserRef(id=user.id, name=user.display_name, locale=str(interaction.locale.value))


def _catalog(manager: Manager | None) -> Catalog | None:
    return None if manager is None else manager.catalog


def score_sheet_view(tr: Text, game: GameInfo, info: Mapping[str, Any],
                     view: views.ItemsView | None = None) -> views.ItemsView:
    """The score sheet's controls: Replay, Rematch, and a pick for each winner whose win fits
    several normal-game rows. Added to ``view`` when the message already has one."""
    view = view if view is not None else views.ItemsView()
    view.add_item(items.button(ids.ReplayId(game.id), tr("progress.button.replay")))
    if game.challenge_week is None:
        view.add_item(items.button(ids.RematchId(game.id), tr("progress.button.rematch")))
    names = terms.seat_names(game, tr)
    picks = [e for e in info.get("earned", [])
             if isinstance(e, dict) and len(e.get("choices", [])) > 1 and e.get("ids")]
    for e in picks[:MAX_PICKS]:
        seat = int(e.get("seat", 0))
        current = str(e["ids"][0])
        options = [discord.SelectOption(
                       label=markup.clip(progress_words.achievement_name(tr, str(c)), 100),
                       value=str(c), default=str(c) == current,
                       description=markup.clip(tr(f"achievements.desc.{c}"), 100))
                   for c in e["choices"][:views.MAX_OPTIONS]]
        placeholder = tr("progress.button.pick", name=names[seat] if seat < len(names) else "?")
        view.add_item(items.select(ids.PickId(game.id, seat), markup.clip(placeholder, 150),
                                   options))
    return view


def decorate_game_over(tr: Text, manager: Manager | None, game: GameInfo, out: Outgoing,
                       payload: Mapping[str, Any]) -> Outgoing:
    """The score sheet (:func:`messages.game_over_message`) with what this issue adds."""
    info = payload.get("progress")
    info = info if isinstance(info, dict) else {}
    lines = progress_words.game_over_lines(tr, _catalog(manager), game, info)
    if lines:
        out.content = markup.clip(out.content + "\n\n" + "\n".join(lines), 2000)
    current = out.view if isinstance(out.view, views.ItemsView) else None
    out.view = score_sheet_view(tr, game, info, current)
    return out


# --------------------------------------------------------------------------- rematch lobby


async def lobby_message(tr: Text, manager: Manager, game: GameInfo) -> Outgoing:
    """The lobby post; a rematch's lobby also invites (and, when first posted, pings) the
    previous game's players who have not joined yet; the server's lobby role is pinged too."""
    server = await manager.server_settings(game.guild_id)
    out = messages.lobby_message(tr, game, ping_role=server.ping_role_id)
    if game.rematch_of is None or game.status is not GameStatus.LOBBY:
        return out
    try:
        before = await manager.get_game(game.rematch_of)
    except ManagerError:
        return out
    invite = [u for u in progress.previous_people(before)
              if all(s.user_id != u for s in game.seats)]
    if invite:
        mentions = ", ".join(markup.mention(u) for u in invite)
        out.content = markup.clip(out.content + "\n\n" + tr("progress.rematch.line", game=before.id,
                                                        mentions=mentions), 2000)
        out.ping = invite
    return out


async def _wait_for_thread(manager: Manager, game_id: int, timeout: float = 5.0) -> GameInfo:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    delay = 0.05
    while True:
        game = await manager.get_game(game_id, fresh=True)
        if game.thread_id is not None or not game.status.active or loop.time() > end:
            return game
        await asyncio.sleep(delay)
        delay = min(0.5, delay * 1.5)


async def rematch_refusal(tr: Text, manager: Manager, interaction: discord.Interaction[Any],
                          game_id: int) -> str | None:
    """Why this click may not open a rematch (None: it may). A rematch opens a public thread
    in the finished game's channel, pinging people, exactly as ``/calico start`` would there:
    the same checks (the bot's and the person's permissions, the server's games channel and
    starter role)."""
    try:
        game = await manager.get_game(game_id)
    except ManagerError as e:
        return reply_for(tr, e)
    if interaction.guild_id is None or interaction.guild_id != game.guild_id:
        return tr("start.text_channel_only")
    refusal = hosting.permission_refusal(tr, interaction)
    if refusal is None:
        server = await manager.server_settings(game.guild_id)
        refusal = hosting.start_refusal(tr, interaction, server, channel_id=game.channel_id)
    return refusal


async def rematch_click(interaction: discord.Interaction[Any], cid: ids.RematchId) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    me = user_ref(interaction)
    refusal = await rematch_refusal(tr, bot.manager, interaction, cid.game)
    if refusal is not None:
        await respond.refuse_text(interaction, refusal)  # the start allowance is given back
        return
    bot.locales.remember(me.id, me.locale)

    async def work() -> Outgoing:
        lobby, created = await progress.rematch(bot.manager, cid.game, me)
        lobby = await _wait_for_thread(bot.manager, lobby.id)
        if lobby.thread_id is None:
            return Outgoing(tr("progress.rematch.opening", game=lobby.id))
        key = "progress.rematch.opened" if created else "progress.rematch.exists"
        return Outgoing(tr(key, game=lobby.id, thread=markup.channel_mention(lobby.thread_id)))

    await respond.reply(interaction, work(), ephemeral=True)


async def pick_click(interaction: discord.Interaction[Any], cid: ids.PickId,
                     values: list[str]) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)

    async def work() -> Outgoing:
        game = await bot.manager.get_game(cid.game)
        if game.seat_of(interaction.user.id) != cid.seat:
            raise ManagerError("not_a_player")
        chosen = values[0] if values else ""
        old = await progress.pick(bot.manager, cid.game, interaction.user.id, chosen)
        if old is None:
            return Outgoing(tr("progress.pick.same",
                               name=progress_words.achievement_name(tr, chosen)))
        return Outgoing(tr("progress.pick.done", name=progress_words.achievement_name(tr, chosen),
                           old=progress_words.achievement_name(tr, old)))

    await respond.reply(interaction, work(), ephemeral=True, defer_first=False)


# --------------------------------------------------------------------------- replay, record


async def replay_gif(tr: Text, manager: Manager, game_id: int) -> tuple[GameInfo, bytes]:
    """The replay GIF of a finished game, drawn in a worker thread (kept: it never changes)."""
    key = (game_id, tr.lang)
    replay = await replays.replay(manager, game_id)
    cache = _replays.setdefault(manager, OrderedDict())
    gif = cache.get(key)
    if gif is None:
        names = terms.seat_names(replay.game, tr)
        labels = {k: tr(f"achievements.replay.{k}") for k in render.REPLAY_LABELS}
        gif = await images.draw(render.render_replay, replay.views, names, labels=labels)
        cache[key] = gif
        while len(cache) > _REPLAY_CACHE:
            cache.popitem(last=False)
    return replay.game, gif


async def replay_message(tr: Text, manager: Manager, game_id: int) -> Outgoing:
    game, gif = await replay_gif(tr, manager, game_id)
    if len(gif) > ATTACHMENT_LIMIT:
        return Outgoing(tr("progress.replay.too_big"))
    names = ", ".join(terms.seat_names(game, tr))
    shown = ", ".join(markup.name(n) for n in terms.seat_names(game, tr))  # in the message
    out = Outgoing(tr("progress.replay.caption", game=game.id, players=shown))
    out.attach(REPLAY_GIF, gif, tr("progress.replay.alt", game=game.id, players=names))
    return out


def allowed_to_see(game: GameInfo, user_id: int, guild_id: int | None) -> bool:
    """A finished game's replay: for its players, and for anyone in its server."""
    return replays.played_in(game, user_id) or (guild_id is not None
                                                 and guild_id == game.guild_id)


async def replay_click(interaction: discord.Interaction[Any], cid: ids.ReplayId) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)

    async def work() -> Outgoing:
        game = await bot.manager.get_game(cid.game)
        if not allowed_to_see(game, interaction.user.id, interaction.guild_id):
            raise ManagerError("unknown_game")  # as if it did not exist (issue 20)
        return await replay_message(tr, bot.manager, cid.game)

    await respond.reply(interaction, work(), ephemeral=True, defer_first=True)


async def record_message(tr: Text, manager: Manager, game_id: int, user_id: int) -> Outgoing:
    data = await replays.record(manager, game_id, user_id)
    blob = json.dumps(data, ensure_ascii=False, indent=1).encode()
    out = Outgoing(tr("progress.record.caption", game=game_id))
    out.attach(record_name(game_id), blob)
    return out


async def finished_game(manager: Manager, user_id: int, channel_id: int | None,
                        game_id: int | None) -> GameInfo:
    """The game ``/calico replay`` and ``record`` are about: the one named, this thread's,
    or the person's latest finished one."""
    if game_id is not None:
        return await manager.get_game(game_id)
    if channel_id is not None:
        here = await manager.game_for_thread(channel_id)
        if here is not None:
            return here
    for game in await manager.games_for_user(user_id, active_only=False, limit=25):
        if game.status is GameStatus.OVER:
            return game
    raise ManagerError("no_finished_game")


async def finished_autocomplete(manager: Manager, user_id: int, current: str,
                                tr: Text) -> list[discord.app_commands.Choice[int]]:
    games = await manager.games_for_user(user_id, active_only=False, limit=50)
    return views.game_choices(
        ((tr("progress.game_choice", game=g.id, players=", ".join(terms.seat_names(g, tr))), g.id)
         for g in games if g.status is GameStatus.OVER), current)


# --------------------------------------------------------------------------- achievements


async def achievements_message(tr: Text, manager: Manager, user_id: int,
                               name: str, *, path: bool = True) -> Outgoing:
    """``/calico achievements``: the progress track as a picture, and in words; with ``path``
    (not for a bot account, which plays no scenarios), the next scenario on the solo path."""
    mine = await progress.achievements_of(manager, user_id)
    chart = manager.catalog.achievements
    lines = [tr("progress.achievements.title", name=markup.name(name)),
             *progress_words.position_lines(tr, manager.catalog, mine.position)]
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
        title=progress_words.title_name(tr, manager.catalog, mine.position.title)))
    return out


async def scenario_suggestion(tr: Text, manager: Manager, user_id: int) -> str:
    """A line for ``/calico solo`` played without a scenario: the next one on the person's
    path ("" once every scenario is passed)."""
    mine = await progress.achievements_of(manager, user_id)
    path = scenario_path(manager.catalog.achievements, mine.ids)
    return "" if path.next is None else "\n" + tr("progress.path.suggest", next=path.next)


# --------------------------------------------------------------------------- ratings


async def stats_lines(tr: Text, manager: Manager, user_id: int, guild_id: int | None) -> str:
    """The lines ``/calico stats`` adds: rating and rank (this server, every server), and the
    achievement points."""
    lines: list[str] = []
    player = progress.person_key(user_id)
    scopes = [guild_id, progress.EVERYWHERE] if guild_id else [progress.EVERYWHERE]
    for scope in scopes:
        standing = await progress.rating_of(manager, player, scope)
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
                            min=progress.MIN_RATED_GAMES))
    if not lines:
        lines.append(tr("progress.stats.unrated"))
    mine = await progress.achievements_of(manager, user_id)
    lines.append(tr("progress.stats.achievements", points=mine.position.points,
                    total=mine.position.total,
                    title=progress_words.title_name(tr, manager.catalog, mine.position.title)))
    return "\n" + "\n".join(lines)


async def leaderboard_message(tr: Text, manager: Manager, guild_id: int,
                              everywhere: bool = False) -> Outgoing:
    """``/calico leaderboard``: players by rating (ordinal), from MIN_RATED_GAMES rated games,
    with their wins and average; while nobody qualifies, the most wins as before."""
    scope = progress.EVERYWHERE if everywhere else guild_id
    entries = await progress.rating_board(manager, scope)
    if entries:
        lines = [tr("progress.board.title", scope=progress_words.scope_name(tr, scope),
                    min=progress.MIN_RATED_GAMES), *progress_words.board_lines(tr, entries), "",
                 tr("progress.board.how")]
        return Outgoing(markup.clip("\n".join(lines), 2000))
    wins = await manager.leaderboard(scope)
    head = tr("progress.board.none", min=progress.MIN_RATED_GAMES)
    return Outgoing(markup.clip(head + "\n\n" + answers.leaderboard_text(tr, wins), 2000))


# --------------------------------------------------------------------------- the challenge


async def challenge_message(tr: Text, manager: Manager, user: UserRef, guild_id: int,
                            channel_id: int) -> Outgoing:
    """``/calico challenge``: deal this week's game (first time), or say how the attempt
    stands, with the boards once it is finished (and last week's, once closed)."""
    standing = await challenge.standing(manager, user.id, guild_id)
    ends = markup.timestamp(standing.ends_at)
    if standing.entry is None:
        game = await challenge.start(manager, user, guild_id, channel_id)
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


async def challenge_over_message(tr: Text, manager: Manager, game: GameInfo,
                                 payload: Mapping[str, Any]) -> Outgoing:
    """The DM at the end of a challenge game (it has no thread): the score, the rank so far,
    the score sheet, and "Review my game"."""
    week = str(payload.get("week") or game.challenge_week or "")
    score = int(payload.get("score") or 0)
    lines = [tr("progress.challenge.over", week=week, score=score)]
    if payload.get("recorded"):
        rank, entrants = await challenge.rank(manager, week, game.guild_id, score)
        rank_all, entrants_all = await challenge.rank(manager, week, None, score)
        lines.append(tr("progress.challenge.over_rank", rank=rank, entrants=entrants,
                        rank_all=rank_all, entrants_all=entrants_all))
    elif payload.get("hints"):
        lines.append(tr("progress.challenge.over_hints"))
    else:
        lines.append(tr("progress.challenge.over_late"))
    out = Outgoing(markup.clip("\n".join(lines), 2000))
    if game.state is not None:
        events = messages.events_from_payload(payload.get("events"))
        scenario = next((e for e in events if isinstance(e, ScenarioResult)), None)
        view, names = public_view(game.state), terms.seat_names(game, tr)
        png = await images.scores_image(tr, view, names, scenario)
        out.attach(images.SCORES_PNG, png,
                   describe.scoresheet(tr, view, names, scenario).short)
    review_ui.add_review_button(tr, game, out)
    return out


def challenge_summary_message(tr: Text, payload: Mapping[str, Any]) -> Outgoing:
    """A closed week's summary, posted in the server's challenge channel."""
    return Outgoing(progress_words.challenge_summary_text(tr, payload))
