"""The text of a game's posts and DMs: the lobby, the start of play, who plays next, the DM
panel's header, reminders, a seat changing hands and a game ending.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.core.models import GameInfo, GameStatus, LobbyOptions, SeatInfo
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.catalogue import has as i18n_has
from bot.words.markup import channel_mention, clip, jump_url, mention, role_mention, timestamp
from bot.words.terms import cat_name, cat_summary, level_name, seat_name, who


def thread_url(game: GameInfo) -> str:
    return jump_url(game.guild_id, game.thread_id or game.channel_id)


def hours_text(hours: float) -> str:
    return f"{hours:g}"


def options_lines(tr: Text, options: LobbyOptions) -> list[str]:
    """The lobby's settings, one short line each."""
    lines = [tr("lobby.players", count=options.players)]
    lines.append(tr(f"lobby.setup.{options.setup.value}"))
    if options.family:
        lines.append(tr("lobby.family"))
    if options.lower_variance:
        lines.append(tr("lobby.lower_variance"))
    if options.restriction is not None:
        lines.append(tr("lobby.restriction",
                        restriction=tr(f"restriction.{options.restriction.value}")))
    if options.scenario is not None:
        lines.append(tr("lobby.scenario", number=options.scenario))
    if options.cats is not None:
        lines.append(tr("lobby.cats", cats=", ".join(cat_name(c) for c in options.cats)))
    if options.hints:
        lines.append(tr("hint.lobby"))
    if options.players > 1:
        lines.append(tr("lobby.turn_limit", hours=hours_text(options.turn_hours)))
        lines.append(tr("lobby.timeout", action=tr(f"timeout.{options.timeout_action.value}")))
        lines.append(tr(f"lobby.first.{options.first.value}"))
    return lines


def lobby_text(tr: Text, game: GameInfo) -> str:
    """The lobby post: title, settings, seats and what to do next."""
    host = next((s for s in game.seats if s.user_id == game.host_id), None)
    host_name = markup.name(host.name) if host is not None else mention(game.host_id)
    lines = [tr("lobby.title", game=game.id, host=host_name), "", tr("lobby.settings")]
    lines += [f"• {line}" for line in options_lines(tr, game.options)]
    lines += ["", tr("lobby.seats")]
    for i in range(max(game.options.players, len(game.seats))):
        seat = game.seats[i] if i < len(game.seats) else None
        if seat is None:
            lines.append(tr("lobby.seat.free", number=i + 1))
        elif seat.ai_level is not None:
            lines.append(tr("lobby.seat.computer", number=i + 1, name=tr("term.computer"),
                            level=level_name(tr, seat.ai_level)))
        elif seat.user_id == game.host_id:
            lines.append(tr("lobby.seat.host", number=i + 1, name=markup.name(seat.name)))
        else:
            lines.append(tr("lobby.seat.human", number=i + 1, name=markup.name(seat.name)))
    if game.options.barred and game.status is GameStatus.LOBBY:
        lines.append(tr("lobby.removed", count=len(game.options.barred)))
    if game.first_user_id is not None:
        first = next((s.name for s in game.seats if s.user_id == game.first_user_id), "?")
        lines += ["", tr("lobby.first.claimed", name=markup.name(first))]
    if game.status is GameStatus.LOBBY:
        lines += ["", tr("lobby.help")]
    elif game.status is GameStatus.CANCELLED:
        lines += ["", tr("lobby.cancelled")]
    else:
        lines += ["", tr("lobby.started")]
    return clip("\n".join(lines), 2000)


def started_text(tr: Text, game: GameInfo, first_seat: int) -> str:
    """The post that opens play: cats in the game, order of play, what happens next."""
    parts = [tr("started.title", game=game.id)]
    state = game.state
    if state is not None:
        title = tr("started.cats_chosen" if game.options.cats is not None else "started.cats")
        parts.append(title + "\n" + cat_summary(tr, state.config))
        n = len(game.seats)
        order = [game.seats[(first_seat + k) % n] for k in range(n)]
        order_text = " → ".join(markup.name(seat_name(tr, s)) for s in order)
        parts.append(tr("started.order", order=order_text))
    if table_without_lobby(game):
        # A table dealt at once (a tournament's): its players never saw a lobby, so they are
        # named (and pinged) here, in their own game's thread.
        parts.append(tr("started.players", players=", ".join(
            markup.mention(s.user_id) for s in game.seats
            if s.user_id is not None and s.ai_level is None)))
    if game.status is GameStatus.DRAFT:
        parts.append(tr("started.draft"))
    elif 0 <= first_seat < len(game.seats):
        parts.append(tr("started.first", mention=who(game.seats[first_seat], tr)))
    return clip("\n\n".join(parts), 2000)


def table_without_lobby(game: GameInfo) -> bool:
    """A game of several people dealt without a lobby message (a tournament's table)."""
    people = [s for s in game.seats if s.user_id is not None and s.ai_level is None]
    return game.lobby_message_id is None and len(people) >= 2


def next_player_line(tr: Text, game: GameInfo) -> str:
    """Who plays next, pinged, with the deadline."""
    seat = game.current_seat
    if seat is None or game.status is not GameStatus.PLAY:
        return ""
    info = game.seats[seat]
    if info.ai_level is not None:
        return tr("narrate.next_computer", name=markup.name(seat_name(tr, info)))
    if game.deadline_at is not None and game.options.players > 1:
        return tr("narrate.next", mention=who(info, tr), deadline=timestamp(game.deadline_at))
    return tr("narrate.next_nodeadline", mention=who(info, tr))


def panel_header(tr: Text, game: GameInfo) -> str:
    """The first line of every DM: which game, where, and a jump link."""
    where = channel_mention(game.thread_id or game.channel_id)
    return tr("panel.header", game=game.id, thread=where, url=thread_url(game))


def turn_number(game: GameInfo, seat: int) -> int:
    """Which of the seat's 22 tiles it is placing now (1-based)."""
    if game.state is None:
        return 1
    return len(game.state.seats[seat].placed) + 1


def reminder_text(tr: Text, game: GameInfo, *, final: bool, deadline: dt.datetime | None,
                  in_thread: bool = False, user_id: int | None = None, overdue: bool = False,
                  next_at: dt.datetime | None = None, idle_days: float = 30) -> str:
    """A nudge. Before the deadline it says when time runs out (and, the last time, what
    happens then); after it, that the turn is overdue and what comes next: another reminder,
    or (the last one) nothing but the game's idle limit."""
    when = timestamp(deadline) if deadline is not None else "—"
    action = tr(f"timeout.{game.options.timeout_action.value}")
    if overdue:
        key = "reminder.thread_overdue" if in_thread else "reminder.overdue"
        if final or next_at is None:
            key += "_final"
        return tr(key, mention=mention(user_id or 0), game=game.id, url=thread_url(game),
                  deadline=when, next=timestamp(next_at) if next_at is not None else "—",
                  days=f"{idle_days:g}")
    if in_thread:
        # Their DMs are closed: the nudge pings them in the thread, with the same jump link.
        key = "reminder.thread_final" if final else "reminder.thread"
        return tr(key, mention=mention(user_id or 0), game=game.id, url=thread_url(game),
                  deadline=when, action=action)
    key = "reminder.final" if final else "reminder.text"
    return tr(key, game=game.id, url=thread_url(game), deadline=when, action=action)


def seat_changed_text(tr: Text, game: GameInfo, seat: int, reason: str) -> str:
    name = game.seats[seat].name if 0 <= seat < len(game.seats) else "?"
    key = f"seat.reason.{reason}"
    reason_text = tr(key) if i18n_has(key) else tr("seat.reason.other")
    return tr("seat.changed", name=markup.name(name), reason=reason_text)


def ended_text(tr: Text, reason: str | None) -> str:
    key = f"ended.{reason}"
    return tr(key) if reason and i18n_has(key) else tr("ended.other")


def with_role_ping(tr: Text, role_id: int, lobby: str) -> str:
    """The lobby post with the server's role for new tables pinged above it."""
    return clip(tr("hosting.lobby_ping", role=role_mention(role_id)) + "\n" + lobby, 2000)


def remove_computer_label(tr: Text, seat: SeatInfo) -> str:
    """A computer seat in the host's "remove computer" select."""
    return tr("lobby.remove_cpu_option", number=seat.seat + 1, name=seat_name(tr, seat))


def thread_name(tr: Text, game_id: int, host: str) -> str:
    """The name of a game's thread (Discord allows 100 characters)."""
    return clip(tr("lobby.thread_name", game=game_id, host=host), 100)


def also_waiting(tr: Text, games: Sequence[int]) -> str:
    """The reminder's tail listing the player's other games waiting for them ("" if none)."""
    if not games:
        return ""
    return "\n" + tr("reminder.also", games=", ".join(f"#{g}" for g in games))


def dm_closed_text(tr: Text, user_id: int) -> str:
    """Posted in the thread when a player's DMs are closed: play from the button here."""
    return tr("fallback.dm_closed", mention=mention(user_id))
