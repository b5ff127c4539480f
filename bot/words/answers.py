"""The text of command answers: ``/calico rules``, ``status``, ``games``, ``stats`` and
``leaderboard``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.models import GameInfo, GameStatus, LeaderboardEntry, UserStats
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.markup import clip, jump_url, timestamp
from bot.words.narration import score_line
from bot.words.terms import GOAL_SYMBOLS, seat_names, tile_code_name
from engine.views import public_view

RULE_TOPICS = ("overview", "turn", "cats", "buttons", "goals", "end", "solo", "variants",
               "achievements", "rulings", "bot", "tournaments")


def rules_text(tr: Text, topic: str) -> str:
    """``/calico rules [topic]``: the rules and our rulings in our own words."""
    if topic not in RULE_TOPICS:
        topic = "overview"
    body = tr(f"rules.{topic}", goal_lines=goal_help_lines(tr))
    if topic == "overview":
        others = ", ".join(f"`{t}`" for t in RULE_TOPICS if t != "overview")
        body += "\n\n" + tr("rules.more", topics=others)
    return clip(body, 2000)


def goal_help_lines(tr: Text) -> str:
    return "\n".join(
        tr("rules.goal_line", symbol=sym, text=tr(f"goal.{gid}"))
        for gid, sym in GOAL_SYMBOLS.items()
    )


def status_name(tr: Text, status: GameStatus) -> str:
    return tr(f"status.name.{status.value}")


def status_text(tr: Text, game: GameInfo) -> str:
    """``/calico status``: whose turn, the deadline and the scores as they stand."""
    lines = [tr("status.title", game=game.id, status=status_name(tr, game.status))]
    names = seat_names(game, tr)
    state = game.state
    if game.status is GameStatus.LOBBY:
        lines.append(tr("status.lobby", seats=", ".join(map(markup.name, names)) or "—"))
    elif game.status is GameStatus.DRAFT:
        lines.append(tr("status.draft"))
    elif game.status is GameStatus.PLAY and state is not None:
        seat = state.current_seat
        total = 22 * state.config.players
        if seat is not None:
            lines.append(tr("status.turn", turn=state.turn + 1, total=total,
                            name=markup.name(names[seat])))
        if game.deadline_at is not None and game.options.players > 1:
            lines.append(tr("status.deadline", deadline=timestamp(game.deadline_at)))
        market = ", ".join(tile_code_name(tr, state.config, t) for t in state.market)
        lines.append(tr("status.market", tiles=market))
        lines.append(tr("status.bag", count=state.bag_count))
    elif game.status is GameStatus.OVER:
        lines.append(tr("status.over"))
    if state is not None and game.status in (GameStatus.PLAY, GameStatus.OVER):
        view = public_view(state)
        lines.append("")
        lines.append(tr("status.scores"))
        for sv in view.seats:
            lines.append(score_line(tr, names[sv.seat], sv.score))
    return clip("\n".join(lines), 2000)


def games_text(tr: Text, games: Sequence[GameInfo], user_id: int) -> str:
    """``/calico games``: the user's games with links."""
    if not games:
        return tr("games.none")
    lines = [tr("games.title")]
    for g in games:
        where = jump_url(g.guild_id, g.thread_id or g.channel_id)
        turn = tr("games.your_turn") if g.current_user_id == user_id else ""
        lines.append(tr("games.line", game=g.id, status=status_name(tr, g.status),
                        where=where, turn=turn))
    return clip("\n".join(lines), 2000)


def stats_text(tr: Text, name: str, stats: UserStats) -> str:
    if not stats.games:
        return tr("stats.title", name=markup.name(name)) + "\n" + tr("stats.none")
    average = "—" if stats.average is None else f"{stats.average:.1f}"
    best = "—" if stats.best is None else str(stats.best)
    return tr("stats.title", name=markup.name(name)) + "\n" + tr(
        "stats.body", played=stats.games, wins=stats.wins, best=best, average=average)


def leaderboard_text(tr: Text, entries: Sequence[LeaderboardEntry]) -> str:
    if not entries:
        return tr("leaderboard.none")
    lines = [tr("leaderboard.title")]
    for rank_no, e in enumerate(entries, 1):
        lines.append(tr("leaderboard.line", rank=rank_no, name=markup.name(e.name), wins=e.wins,
                        best=e.best, played=e.games))
    return clip("\n".join(lines), 2000)
