"""Words for what happened: engine events, views and game records in, message text out.

Pure: no discord, no I/O, no rules. Every function takes a :class:`~bot.i18n.Text` (the reader's
language) and returns strings, so the whole product's wording can be tested without a client.
Discord markup (mentions, timestamps, jump links) is plain text and is built here too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.models import (
    GameInfo,
    GameStatus,
    LeaderboardEntry,
    LobbyOptions,
    SeatInfo,
    UserStats,
)
from bot.i18n import Text
from bot.i18n import has as i18n_has
from engine.config import GameConfig
from engine.events import (
    ButtonSewn,
    CatAttracted,
    Event,
    GameOver,
    GameStarted,
    GoalsChosen,
    MarketDiscarded,
    MarketRefilled,
    RainbowSewn,
    ScenarioResult,
    TilePlaced,
    TileTaken,
)
from engine.hexgrid import NEIGHBOURS, cell_name
from engine.views import public_view

GOAL_SYMBOLS: Mapping[str, str] = {
    "all-different": "≠",
    "aaa-bbb": "AAA-BBB",
    "aa-bb-cc": "AA-BB-CC",
    "aaaa-bb": "AAAA-BB",
    "aaa-bb-c": "AAA-BB-C",
    "aa-bb-c-d": "AA-BB-C-D",
}
GOAL_SPOT_NAMES = ("B3", "C4", "D2")
CAT_NAMES: Mapping[str, str] = {
    "millie": "Millie", "tibbit": "Tibbit", "coconut": "Coconut", "cira": "Cira",
    "gwenivere": "Gwenivere", "callie": "Callie", "rumi": "Rumi", "tecolote": "Tecolote",
    "almond": "Almond", "leo": "Leo",
}
RULE_TOPICS = ("overview", "turn", "cats", "buttons", "goals", "end", "solo", "variants",
               "rulings", "bot")


# --------------------------------------------------------------------------- Discord markup


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def channel_mention(channel_id: int) -> str:
    return f"<#{channel_id}>"


def role_mention(role_id: int) -> str:
    return f"<@&{role_id}>"


def jump_url(guild_id: int | None, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens the channel (or the message) in Discord."""
    where = "@me" if guild_id is None else str(guild_id)
    tail = "" if message_id is None else f"/{message_id}"
    return f"https://discord.com/channels/{where}/{channel_id}{tail}"


def timestamp(when: dt.datetime, style: str = "R") -> str:
    """A Discord timestamp: every reader sees it in their own time zone (``R`` = relative)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return f"<t:{int(when.timestamp())}:{style}>"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (Discord refuses longer fields)."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


# --------------------------------------------------------------------------- game terms


def color_name(tr: Text, color: str) -> str:
    return tr(f"color.{color}")


def pattern_name(tr: Text, pattern: str) -> str:
    return tr(f"pattern.{pattern}")


def tile_name(tr: Text, color: str, pattern: str) -> str:
    return tr("tile", color=color_name(tr, color), pattern=pattern_name(tr, pattern))


def tile_code_name(tr: Text, config: GameConfig, code: int | None) -> str:
    """The name of a tile code (``color * 6 + pattern``); an empty slot reads as such."""
    if code is None or code < 0:
        return tr("tile.none")
    return tile_name(tr, config.colors[code // 6], config.patterns[code % 6])


def goal_name(goal: str | None) -> str:
    return GOAL_SYMBOLS.get(goal or "", goal or "?")


def cat_name(cat: str) -> str:
    return CAT_NAMES.get(cat, cat.title())


def cat_summary(tr: Text, config: GameConfig) -> str:
    """One line per cat in play: its points, what it wants and its two patterns."""
    lines = []
    for cat in config.cats:
        pats = " / ".join(pattern_name(tr, config.patterns[p]) for p in cat.patterns)
        lines.append(tr("cat.line", cat=cat_name(cat.id), points=cat.points,
                        wants=tr(f"cat.wants.{cat.id}"), patterns=pats))
    return "\n".join(lines)


def cell_hint(tr: Text, config: GameConfig, goals: Sequence[str] | None, cell: int) -> str:
    """"next to ≠ (B3)" for a cell that touches design goal spots, else ""."""
    near = []
    for i, spot in enumerate(config.goal_spots):
        if cell in NEIGHBOURS[spot]:
            goal = goal_name(goals[i]) if goals else "?"
            near.append(f"{goal} ({GOAL_SPOT_NAMES[i]})")
    return tr("cell.near", goals=", ".join(near)) if near else ""


# --------------------------------------------------------------------------- events


def gain_lines(tr: Text, events: Sequence[Event]) -> list[str]:
    """What a placement earned (buttons, cats, rainbow), one short line each."""
    lines: list[str] = []
    for ev in events:
        if isinstance(ev, ButtonSewn):
            lines.append(tr("gain.button", color=color_name(tr, ev.color), size=len(ev.group)))
        elif isinstance(ev, CatAttracted):
            lines.append(tr("gain.cat", cat=cat_name(ev.cat), pattern=pattern_name(tr, ev.pattern),
                            points=ev.points, count=ev.points))
        elif isinstance(ev, RainbowSewn):
            lines.append(tr("gain.rainbow"))
    return lines


def gain_short(tr: Text, events: Sequence[Event]) -> str:
    """A compact form of :func:`gain_lines` for a select option's description."""
    parts: list[str] = []
    for ev in events:
        if isinstance(ev, ButtonSewn):
            parts.append(tr("gain.short.button", color=color_name(tr, ev.color)))
        elif isinstance(ev, CatAttracted):
            parts.append(tr("gain.short.cat", cat=cat_name(ev.cat), points=ev.points))
        elif isinstance(ev, RainbowSewn):
            parts.append(tr("gain.short.rainbow"))
    return " · ".join(parts)


def preview_text(tr: Text, tile: str, cell: str, events: Sequence[Event]) -> str:
    """The DM line under a previewed placement: what it would earn."""
    gains = gain_lines(tr, events)
    head = tr("preview.head", tile=tile, cell=cell)
    if not gains:
        return head + "\n" + tr("preview.nothing")
    return head + "\n" + "\n".join(f"• {g}" for g in gains)


def narrate_turn(
    tr: Text, name: str, events: Sequence[Event], *, autoplayed: bool = False
) -> str:
    """The thread's friendly account of one turn (placement, tokens, market), in a few lines."""
    placed = next((e for e in events if isinstance(e, TilePlaced)), None)
    taken = next((e for e in events if isinstance(e, TileTaken)), None)
    lines: list[str] = []
    if any(isinstance(e, GoalsChosen) for e in events):
        lines.append(tr("narrate.goals", name=name))
    if any(isinstance(e, GameStarted) for e in events):
        lines.append(tr("narrate.all_goals"))
    if placed is not None:
        tile = tile_name(tr, placed.color, placed.pattern)
        if taken is not None:
            lines.append(tr("narrate.place_take", name=name, tile=tile, cell=placed.cell,
                            taken=tile_name(tr, taken.color, taken.pattern)))
        else:
            lines.append(tr("narrate.place", name=name, tile=tile, cell=placed.cell))
        if placed.number >= 22:
            lines.append(tr("narrate.quilt_done", name=name))
    for gain in gain_lines(tr, events):
        lines.append(gain)
    discarded = [e for e in events if isinstance(e, MarketDiscarded)]
    for d in discarded:
        lines.append(tr("narrate.discard", tile=tile_name(tr, d.color, d.pattern)))
    refills = [e for e in events if isinstance(e, MarketRefilled)]
    new = [tile_name(tr, e.color, e.pattern) for e in refills if e.color and e.pattern]
    if new:
        lines.append(tr("narrate.refill", tiles=", ".join(new), count=len(new)))
    elif refills:
        lines.append(tr("narrate.bag_empty"))
    if autoplayed:
        lines.append(tr("narrate.autoplayed", name=name))
    return "\n".join(lines)


def winner_text(tr: Text, names: Sequence[str], over: GameOver) -> str:
    """The winner (the Master Quilter), with the tie-break that decided it."""
    winners = [names[i] for i in over.winners]
    top = over.totals[over.winners[0]] if over.winners else 0
    if len(names) == 1:
        return tr("over.solo", name=names[0], points=top, count=top)
    if len(winners) > 1:
        return tr("over.shared", names=", ".join(f"**{w}**" for w in winners), points=top,
                  count=top)
    text = tr("over.winner", name=winners[0], points=top, count=top)
    if over.decided_by == "cats":
        text += "\n" + tr("over.tiebreak.cats")
    elif over.decided_by == "buttons":
        text += "\n" + tr("over.tiebreak.buttons")
    return text


def standings(tr: Text, names: Sequence[str], over: GameOver) -> str:
    order = sorted(range(len(names)), key=lambda i: (over.places[i], i))
    lines = []
    for i in order:
        sc: Mapping[str, Any] = over.scores[i] if i < len(over.scores) else {}
        lines.append(tr("over.line", place=over.places[i], name=names[i], total=over.totals[i],
                        cats=sc.get("cat_points", 0), buttons=sc.get("button_points", 0),
                        goals=sc.get("goal_points", 0)))
    return "\n".join(lines)


def scenario_text(tr: Text, result: ScenarioResult) -> str:
    head = tr("scenario.passed" if result.passed else "scenario.failed", number=result.number)
    lines = [head]
    for name, needed, reached, met in result.conditions:
        mark = "✅" if met else "❌"
        lines.append(f"{mark} " + tr(f"scenario.need.{name}", needed=needed, reached=reached,
                                      count=needed))
    return "\n".join(lines)


def game_over_text(tr: Text, names: Sequence[str], events: Sequence[Event]) -> str:
    """The closing post: winner, tie-break, standings, solo scenario result."""
    over = next((e for e in events if isinstance(e, GameOver)), None)
    if over is None:
        return tr("over.title")
    parts = [tr("over.title"), winner_text(tr, names, over)]
    if len(names) > 1:
        parts.append(standings(tr, names, over))
    else:
        sc = over.scores[0] if over.scores else {}
        parts.append(tr("over.solo_breakdown", cats=sc.get("cat_points", 0),
                        buttons=sc.get("button_points", 0), goals=sc.get("goal_points", 0)))
    for ev in events:
        if isinstance(ev, ScenarioResult):
            parts.append(scenario_text(tr, ev))
    return "\n\n".join(parts)


def score_line(tr: Text, name: str, score: Mapping[str, Any]) -> str:
    return tr("score.line", name=name, total=score.get("total", 0),
              cats=score.get("cat_points", 0), buttons=score.get("button_points", 0),
              goals=score.get("goal_points", 0))


# --------------------------------------------------------------------------- goal draft


def draft_arrangements(offer: Sequence[str]) -> list[tuple[int, int, int]]:
    """Every way to keep three goals of the offer and place them on B3, C4, D2 (≤ 24)."""
    n = len(offer)
    out = []
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if len({a, b, c}) == 3:
                    out.append((a, b, c))
    return out


def arrangement_label(tr: Text, offer: Sequence[str], order: Sequence[int]) -> str:
    return tr("draft.option", b3=goal_name(offer[order[0]]), c4=goal_name(offer[order[1]]),
              d2=goal_name(offer[order[2]]))


def arrangement_left_out(tr: Text, offer: Sequence[str], order: Sequence[int]) -> str:
    rest = [goal_name(g) for i, g in enumerate(offer) if i not in order]
    return tr("draft.left_out", goal=", ".join(rest)) if rest else ""


# --------------------------------------------------------------------------- rules


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


def cell_name_safe(cell: int) -> str:
    try:
        return cell_name(cell)
    except ValueError:
        return "?"


# --------------------------------------------------------------------------- games and seats


def level_name(tr: Text, level: str) -> str:
    key = f"level.{level}"
    return tr(key) if i18n_has(key) else level


def seat_name(tr: Text | None, seat: SeatInfo) -> str:
    """A seat's name in the reader's language: a person's own name; a computer's, with its
    level, from the catalogue (the stored name is English); and a seat a computer took over
    from a person (they left, or their time ran out) names both, so that results never credit
    the person with the computer's turns."""
    if seat.ai_level is None:
        return seat.name
    tr = tr or Text("en")
    computer = tr("names.computer", level=level_name(tr, seat.ai_level))
    if seat.user_id is not None or seat.left:
        return tr("names.took_over", computer=computer, name=seat.name)
    return computer


def seat_names(game: GameInfo, tr: Text | None = None) -> list[str]:
    """Display names by seat (a computer seat says so: see :func:`seat_name`)."""
    return [seat_name(tr, s) for s in game.seats]


def who(seat: SeatInfo, tr: Text | None = None) -> str:
    """A mention for a person, the name for a computer."""
    if seat.user_id is not None and seat.ai_level is None:
        return mention(seat.user_id)
    return f"🤖 {seat_name(tr, seat)}"


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
    host_name = host.name if host is not None else mention(game.host_id)
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
            lines.append(tr("lobby.seat.host", number=i + 1, name=seat.name))
        else:
            lines.append(tr("lobby.seat.human", number=i + 1, name=seat.name))
    if game.first_user_id is not None:
        first = next((s.name for s in game.seats if s.user_id == game.first_user_id), "?")
        lines += ["", tr("lobby.first.claimed", name=first)]
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
        parts.append(tr("started.cats") + "\n" + cat_summary(tr, state.config))
        n = len(game.seats)
        order = [game.seats[(first_seat + k) % n] for k in range(n)]
        parts.append(tr("started.order", order=" → ".join(seat_name(tr, s) for s in order)))
    if game.status is GameStatus.DRAFT:
        parts.append(tr("started.draft"))
    elif 0 <= first_seat < len(game.seats):
        parts.append(tr("started.first", mention=who(game.seats[first_seat], tr)))
    return clip("\n\n".join(parts), 2000)


def next_player_line(tr: Text, game: GameInfo) -> str:
    """Who plays next, pinged, with the deadline."""
    seat = game.current_seat
    if seat is None or game.status is not GameStatus.PLAY:
        return ""
    info = game.seats[seat]
    if info.ai_level is not None:
        return tr("narrate.next_computer", name=seat_name(tr, info))
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
    return tr("seat.changed", name=name, reason=reason_text)


def ended_text(tr: Text, reason: str | None) -> str:
    key = f"ended.{reason}"
    return tr(key) if reason and i18n_has(key) else tr("ended.other")


def status_name(tr: Text, status: GameStatus) -> str:
    return tr(f"status.name.{status.value}")


def status_text(tr: Text, game: GameInfo) -> str:
    """``/calico status``: whose turn, the deadline and the scores as they stand."""
    lines = [tr("status.title", game=game.id, status=status_name(tr, game.status))]
    names = seat_names(game, tr)
    state = game.state
    if game.status is GameStatus.LOBBY:
        lines.append(tr("status.lobby", seats=", ".join(names) or "—"))
    elif game.status is GameStatus.DRAFT:
        lines.append(tr("status.draft"))
    elif game.status is GameStatus.PLAY and state is not None:
        seat = state.current_seat
        total = 22 * state.config.players
        if seat is not None:
            lines.append(tr("status.turn", turn=state.turn + 1, total=total, name=names[seat]))
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
        return tr("stats.title", name=name) + "\n" + tr("stats.none")
    average = "—" if stats.average is None else f"{stats.average:.1f}"
    best = "—" if stats.best is None else str(stats.best)
    return tr("stats.title", name=name) + "\n" + tr(
        "stats.body", played=stats.games, wins=stats.wins, best=best, average=average)


def leaderboard_text(tr: Text, entries: Sequence[LeaderboardEntry]) -> str:
    if not entries:
        return tr("leaderboard.none")
    lines = [tr("leaderboard.title")]
    for rank_no, e in enumerate(entries, 1):
        lines.append(tr("leaderboard.line", rank=rank_no, name=e.name, wins=e.wins,
                        best=e.best, played=e.games))
    return clip("\n".join(lines), 2000)
