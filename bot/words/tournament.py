"""The words of tournaments (issue #23): the sign-up message, a round's tables, the standings
(as text, as the picture's headings and as its alt text), the podium, the organiser's notices
and the line a table's score sheet carries. The messages around them (buttons, the picture,
what is read from storage) are :mod:`bot.adapter.ui.tournament`'s."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.tournament.model import ROUND_ROBIN, SIGNUP, Table, TournamentInfo
from bot.core.tournament.pairing import Standing
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.markup import clip, mention

MAX_LISTED = 40  # entrants named in the sign-up message (the count says the rest)


def points(half: int) -> str:
    """Half points as points: ``3``, ``2.5``."""
    return str(half // 2) if half % 2 == 0 else f"{half / 2:.1f}"


def format_text(tr: Text, t: TournamentInfo) -> str:
    if t.format == ROUND_ROBIN:
        return tr("tournament.format.round_robin")
    return tr("tournament.format.swiss", count=t.rounds)


def status_text(tr: Text, t: TournamentInfo) -> str:
    # In its sign-up but closed (at its time, or by the organiser): waiting for round 1.
    status = "waiting" if t.status == SIGNUP and not t.signup_open else t.status
    return tr(f"tournament.status.{status}", round=t.round, rounds=t.rounds)


def summary(tr: Text, t: TournamentInfo) -> str:
    """One line: the format, table size and time per turn."""
    return tr("tournament.summary", format=format_text(tr, t), size=t.table_size,
              hours=tr("choice.hours", count=round(t.options.turn_hours)),
              timeout=tr(f"timeout.{t.options.timeout_action.value}"))


def signup_text(tr: Text, t: TournamentInfo, *, open_now: bool) -> str:
    names = [markup.name(e.name) for e in t.entrants[:MAX_LISTED]]
    more = len(t.entrants) - len(names)
    lines = [
        tr("tournament.signup.title", name=markup.name(t.name), id=t.id),
        summary(tr, t),
        tr("tournament.signup.organiser", user=mention(t.organiser_id)),
        tr("tournament.signup.closes" if open_now else "tournament.signup.closed",
           when=markup.timestamp(t.signup_ends_at, "R")),
        tr("tournament.signup.starts", when=markup.timestamp(t.starts_at, "F")),
        status_text(tr, t),
        "",
        tr("tournament.signup.entrants", count=len(t.entrants)),
    ]
    if names:
        lines.append(", ".join(names) + (tr("tournament.signup.more", count=more) if more else ""))
    if open_now:
        lines += ["", tr("tournament.signup.how")]
    return clip("\n".join(lines), 2000)


def table_line(tr: Text, t: TournamentInfo, table: Table, thread_id: int | None) -> str:
    if table.bye:
        return tr("tournament.round.bye", user=mention(table.players[0]))
    who = tr("tournament.round.versus").join(mention(u) for u in table.players)
    where = markup.channel_mention(thread_id) if thread_id is not None \
        else tr("tournament.round.game", game=table.game_id or "…")
    return tr("tournament.round.table", number=table.table_no, players=who, where=where)


def round_text(tr: Text, t: TournamentInfo, round_no: int,
               lines: Sequence[str]) -> str:
    head = [tr("tournament.round.title", name=markup.name(t.name), round=round_no,
               rounds=t.rounds)]
    if t.round_deadline_at is not None and t.round == round_no:
        head.append(tr("tournament.round.deadline",
                       when=markup.timestamp(t.round_deadline_at, "F")))
    return clip("\n".join([*head, "", *lines]), 2000)


def headings(tr: Text, t: TournamentInfo) -> list[str]:
    tie = tr("tournament.col.buchholz") if t.format != ROUND_ROBIN else ""
    return [tr("tournament.col.rank"), tr("tournament.col.player"), tr("tournament.col.points"),
            tie, tr("tournament.col.games"), tr("tournament.col.score")]


def standing_cells(tr: Text, t: TournamentInfo, s: Standing) -> list[str]:
    name = t.name_of(s.user_id)
    if any(e.user_id == s.user_id and e.withdrawn is not None for e in t.entrants):
        name = tr("tournament.withdrawn", name=name)
    return [str(s.rank), name, points(s.points),
            points(s.buchholz) if t.format != ROUND_ROBIN else "", str(s.games), str(s.score)]


def standings_title(tr: Text, t: TournamentInfo, round_no: int, final: bool) -> str:
    """The title as the picture and its alt text show it (the name as written)."""
    key = "tournament.standings.final" if final else "tournament.standings.after"
    return tr(key, name=t.name, round=round_no, rounds=t.rounds)


def standings_heading(tr: Text, t: TournamentInfo, round_no: int, final: bool) -> str:
    """The same title in a message (the name escaped)."""
    key = "tournament.standings.final" if final else "tournament.standings.after"
    return tr(key, name=markup.name(t.name), round=round_no, rounds=t.rounds)


def standings_lines(tr: Text, t: TournamentInfo, board: Sequence[Standing],
                    limit: int = 20) -> list[str]:
    """One line per entrant (the first ``limit``): rank, name, points, tie-break, games."""
    out = []
    for s in board[:limit]:
        name = markup.name(t.name_of(s.user_id))
        if t.format == ROUND_ROBIN:
            out.append(tr("tournament.line.rr", rank=s.rank, name=name,
                          points=points(s.points), games=s.games, score=s.score))
        else:
            out.append(tr("tournament.line.swiss", rank=s.rank, name=name,
                          points=points(s.points), buchholz=points(s.buchholz),
                          games=s.games, score=s.score))
    if len(board) > limit:
        out.append(tr("tournament.signup.more", count=len(board) - limit).strip())
    return out


def standings_alt(tr: Text, t: TournamentInfo, board: Sequence[Standing], round_no: int,
                  final: bool) -> str:
    """The picture's alt text: what it is, and the leaders."""
    top = [tr("tournament.alt.entry", rank=s.rank, name=t.name_of(s.user_id),
              points=points(s.points)) for s in board[:3]]
    return clip(tr("tournament.alt.standings",
                   title=standings_title(tr, t, round_no, final), count=len(board),
                   top="; ".join(top)), 1000)


def standings_long(tr: Text, t: TournamentInfo, board: Sequence[Standing], round_no: int,
                   final: bool) -> str:
    """Every line of the picture in words (for readers who asked for pictures in words)."""
    head = standings_heading(tr, t, round_no, final)
    return "\n".join([head, *standings_lines(tr, t, board, limit=len(board))])


def podium_text(tr: Text, t: TournamentInfo, board: Sequence[Standing]) -> str:
    medals = ("🥇", "🥈", "🥉")
    shown = [s for s in board
             if not any(e.user_id == s.user_id and e.withdrawn is not None for e in t.entrants)]
    lines = [tr("tournament.podium.title", name=markup.name(t.name))]
    for medal, s in zip(medals, shown[:3], strict=False):
        lines.append(tr("tournament.podium.place", medal=medal, user=mention(s.user_id),
                        points=points(s.points)))
    lines.append(tr("tournament.podium.thanks", count=len(t.entrants)))
    return "\n".join(lines)


def notice_text(tr: Text, t: TournamentInfo, what: str) -> str:
    """The organiser's steps and the lack of players, as posted in the channel."""
    return tr(f"tournament.notice.{what}", name=markup.name(t.name))


def score_sheet_line(tr: Text, name: str, round_no: int, rounds: int) -> str:
    return tr("tournament.score_sheet", name=markup.name(name), round=round_no, rounds=rounds)


def list_line(tr: Text, t: TournamentInfo) -> str:
    return tr("tournament.list.line", id=t.id, name=markup.name(t.name),
              format=format_text(tr, t), status=status_text(tr, t), count=len(t.entrants))
