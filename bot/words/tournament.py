"""The words of tournaments (issue #23): the sign-up message, a round's tables, the standings
(as text, as the picture's headings and as its alt text, and in full as an attached list), the
podium, the organiser's notices and the line a table's score sheet carries. The messages
around them (buttons, the picture, what is read from storage) are
:mod:`bot.adapter.ui.tournament`'s.

One source each (issue #28): who gets a medal (:func:`medals`, read by the picture and the
podium text alike), how an entrant is named (:func:`entrant_name`: "(withdrawn)" in the picture,
its alt text and the text), and counts through the catalogues' plural tables (points, games,
entrants) in each language's own forms.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.tournament.model import ROUND_ROBIN, SIGNUP, Table, TournamentInfo
from bot.core.tournament.pairing import Standing
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.markup import clip, mention

MAX_LISTED = 40  # entrants named in the sign-up message (the count says the rest)
ROOM = 1900  # characters of a post's text (Discord's 2,000, less the post's invisible mark)
MEDALS = ("🥇", "🥈", "🥉")


def points(half: int, tr: Text | None = None) -> str:
    """Half points as points: ``3``, ``2.5`` (``2,5`` where the language writes it so)."""
    if half % 2 == 0:
        return str(half // 2)
    return tr("tournament.half", whole=half // 2) if tr is not None else f"{half / 2:.1f}"


def points_count(tr: Text, half: int) -> str:
    """``2.5 points``, ``1 point``: the number and its word, in the language's plural form."""
    return tr("tournament.n_points", count=half / 2, points=points(half, tr))


def format_text(tr: Text, t: TournamentInfo) -> str:
    if t.format == ROUND_ROBIN:
        return tr("tournament.format.round_robin")
    return tr("tournament.format.swiss", count=t.rounds)


def status_text(tr: Text, t: TournamentInfo) -> str:
    # In its sign-up but closed (at its time, or by the organiser): waiting for round 1.
    status = "waiting" if t.status == SIGNUP and not t.signup_open else t.status
    if status == "paused" and not t.round:
        status = "paused_signup"
    return tr(f"tournament.status.{status}", round=t.round, rounds=t.rounds)


def summary(tr: Text, t: TournamentInfo) -> str:
    """One line: the format, table size and time per turn."""
    return tr("tournament.summary", format=format_text(tr, t), size=t.table_size,
              hours=tr("choice.hours", count=round(t.options.turn_hours)),
              timeout=tr(f"timeout.{t.options.timeout_action.value}"))


def withdrawn(t: TournamentInfo, user_id: int) -> bool:
    return any(e.user_id == user_id and e.withdrawn is not None for e in t.entrants)


def entrant_name(tr: Text, t: TournamentInfo, user_id: int, *, escaped: bool = True) -> str:
    """An entrant as every standing reads them: their name (escaped for a message, as written
    for a picture, its alt text or a file), "(withdrawn)" when they withdrew."""
    name = t.name_of(user_id)
    name = markup.name(name) if escaped else name
    return tr("tournament.withdrawn", name=name) if withdrawn(t, user_id) else name


def signup_text(tr: Text, t: TournamentInfo, *, open_now: bool) -> str:
    names = [entrant_name(tr, t, e.user_id) for e in t.entrants[:MAX_LISTED]]
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
    return clip("\n".join(lines), ROOM)


def table_line(tr: Text, t: TournamentInfo, table: Table, thread_id: int | None) -> str:
    if table.bye:
        return tr("tournament.round.bye", user=mention(table.players[0]))
    who = tr("tournament.round.versus").join(mention(u) for u in table.players)
    where = markup.channel_mention(thread_id) if thread_id is not None \
        else tr("tournament.round.game", game=table.game_id or "…")
    return tr("tournament.round.table", number=table.table_no, players=who, where=where)


def round_head(tr: Text, t: TournamentInfo, round_no: int) -> list[str]:
    head = [tr("tournament.round.title", name=markup.name(t.name), round=round_no,
               rounds=t.rounds)]
    if t.round_deadline_at is not None and t.round == round_no:
        head.append(tr("tournament.round.deadline",
                       when=markup.timestamp(t.round_deadline_at, "F")))
    return head


def fitting(head: Sequence[str], lines: Sequence[str], more: str, room: int = ROOM) -> int:
    """How many of ``lines`` fit after ``head`` with the ``more`` line (the rest attached)."""
    used = sum(len(h) + 1 for h in head) + 1
    if used + sum(len(x) + 1 for x in lines) <= room:
        return len(lines)
    used += len(more) + 8
    for i, line in enumerate(lines):
        used += len(line) + 1
        if used > room:
            return i
    return len(lines)


def round_fits(tr: Text, t: TournamentInfo, round_no: int, lines: Sequence[str]) -> bool:
    """Whether every table of a round fits in its post (else: the attached list)."""
    head = round_head(tr, t, round_no)
    return fitting(head, lines, tr("tournament.round.more", count=len(lines), file="")) \
        == len(lines)


def round_text(tr: Text, t: TournamentInfo, round_no: int, lines: Sequence[str],
               attachment: str = "") -> str:
    """A round's post: its title, deadline and tables; those that do not fit are in the
    attached list (``attachment``: its file name), which the post says."""
    head = round_head(tr, t, round_no)
    more = tr("tournament.round.more", count=len(lines), file=attachment)
    shown = fitting(head, lines, more)
    body = [*head, "", *lines[:shown]]
    if shown < len(lines):
        body.append(tr("tournament.round.more", count=len(lines) - shown, file=attachment))
    return clip("\n".join(body), ROOM)


def round_list(tr: Text, t: TournamentInfo, round_no: int, tables: Sequence[Table]) -> str:
    """Every table of a round as plain text (the attached list of a big round): names as
    written, each game by its number."""
    versus = tr("tournament.round.versus")
    out = [tr("tournament.round.title", name=t.name, round=round_no, rounds=t.rounds), ""]
    for x in tables:
        if x.bye:
            out.append(tr("tournament.round.bye", user=t.name_of(x.players[0])))
        else:
            out.append(tr("tournament.round.table", number=x.table_no,
                          players=versus.join(t.name_of(u) for u in x.players),
                          where=tr("tournament.round.game", game=x.game_id or "…")))
    return "\n".join(out) + "\n"


def headings(tr: Text, t: TournamentInfo) -> list[str]:
    tie = tr("tournament.col.buchholz") if t.format != ROUND_ROBIN else ""
    return [tr("tournament.col.rank"), tr("tournament.col.player"), tr("tournament.col.points"),
            tie, tr("tournament.col.games"), tr("tournament.col.score")]


def standing_cells(tr: Text, t: TournamentInfo, s: Standing) -> list[str]:
    return [str(s.rank), entrant_name(tr, t, s.user_id, escaped=False), points(s.points, tr),
            points(s.buchholz, tr) if t.format != ROUND_ROBIN else "", str(s.games),
            str(s.score)]


def standings_title(tr: Text, t: TournamentInfo, round_no: int, final: bool) -> str:
    """The title as the picture and its alt text show it (the name as written)."""
    key = "tournament.standings.final" if final else "tournament.standings.after"
    return tr(key, name=t.name, round=round_no, rounds=t.rounds)


def standings_heading(tr: Text, t: TournamentInfo, round_no: int, final: bool) -> str:
    """The same title in a message (the name escaped)."""
    key = "tournament.standings.final" if final else "tournament.standings.after"
    return tr(key, name=markup.name(t.name), round=round_no, rounds=t.rounds)


def standing_line(tr: Text, t: TournamentInfo, s: Standing, *, escaped: bool = True) -> str:
    """One entrant's line: rank, name, points, tie-break (Swiss), games, score."""
    name = entrant_name(tr, t, s.user_id, escaped=escaped)
    games = tr("tournament.n_games", count=s.games)
    scored = tr("tournament.n_scored", count=s.score)
    if t.format == ROUND_ROBIN:
        return tr("tournament.line.rr", rank=s.rank, name=name,
                  points=points_count(tr, s.points), games=games, score=scored)
    return tr("tournament.line.swiss", rank=s.rank, name=name,
              points=points_count(tr, s.points), buchholz=points(s.buchholz, tr),
              games=games, score=scored)


def standings_lines(tr: Text, t: TournamentInfo, board: Sequence[Standing],
                    limit: int = 20) -> list[str]:
    """One line per entrant (the first ``limit``; the rest: attached in full)."""
    out = [standing_line(tr, t, s) for s in board[:limit]]
    if len(board) > limit:
        out.append(tr("tournament.standings.more", count=len(board) - limit))
    return out


def standings_list(tr: Text, t: TournamentInfo, board: Sequence[Standing], round_no: int,
                   final: bool) -> str:
    """Every entrant's line as plain text (attached when they do not all fit in a post)."""
    lines = [standings_title(tr, t, round_no, final), summary(tr, t), ""]
    lines += [standing_line(tr, t, s, escaped=False) for s in board]
    return "\n".join(lines) + "\n"


def own_line(tr: Text, t: TournamentInfo, board: Sequence[Standing], viewer: int) -> str:
    """The reader's own standing, wherever it is (nothing for someone not entered)."""
    mine = next((s for s in board if s.user_id == viewer), None)
    if mine is None:
        return ""
    return tr("tournament.your_line", line=standing_line(tr, t, mine), count=len(board))


def medals(t: TournamentInfo, board: Sequence[Standing], final: bool = True) -> dict[int, int]:
    """Who gets a medal, by line of ``board``: the entrants still in whose rank among those
    still in is 1 to 3 (a withdrawn entrant gets none; equal lines share a medal). The value
    is the medal: 0 gold, 1 silver, 2 bronze. Nothing before the end."""
    if not final:
        return {}
    out: dict[int, int] = {}
    place, counted, last = 0, 0, None
    for i, s in enumerate(board):
        if withdrawn(t, s.user_id):
            continue
        counted += 1
        if last is None or s.rank != last:
            place, last = counted, s.rank
        if place > len(MEDALS):
            break
        out[i] = place - 1
    return out


def standings_alt(tr: Text, t: TournamentInfo, board: Sequence[Standing], round_no: int,
                  final: bool, shown: int | None = None) -> str:
    """The picture's alt text: what it is, the leaders (with their medals at the end, and
    "(withdrawn)" as the picture shows it), and how many lines it shows."""
    won = medals(t, board, final)
    top = [tr("tournament.alt.entry", rank=s.rank,
              name=(f"{MEDALS[won[i]]} " if i in won else "")
              + entrant_name(tr, t, s.user_id, escaped=False),
              points=points_count(tr, s.points)) for i, s in enumerate(board[:3])]
    text = tr("tournament.alt.standings", title=standings_title(tr, t, round_no, final),
              count=len(board), top="; ".join(top))
    if shown is not None and shown < len(board):
        text += " " + tr("tournament.alt.cut", shown=shown, count=len(board))
    return clip(text, 1000)


def standings_long(tr: Text, t: TournamentInfo, board: Sequence[Standing], round_no: int,
                   final: bool) -> str:
    """Every line of the picture in words (for readers who asked for pictures in words)."""
    head = standings_heading(tr, t, round_no, final)
    return "\n".join([head, *standings_lines(tr, t, board, limit=len(board))])


def podium_text(tr: Text, t: TournamentInfo, board: Sequence[Standing]) -> str:
    """The end: the medals (as the picture shows them) and thanks."""
    lines = [tr("tournament.podium.title", name=markup.name(t.name))]
    for i, medal in medals(t, board).items():
        s = board[i]
        lines.append(tr("tournament.podium.place", medal=MEDALS[medal], user=mention(s.user_id),
                        points=points_count(tr, s.points)))
    lines.append(tr("tournament.podium.thanks", count=len(t.entrants)))
    return "\n".join(lines)


def notice_text(tr: Text, t: TournamentInfo, what: str) -> str:
    """The organiser's steps and the lack of players, as posted in the channel (or, for a
    channel lost, said to the organiser by DM)."""
    return tr(f"tournament.notice.{what}", name=markup.name(t.name), id=t.id,
              channel=markup.channel_mention(t.channel_id))


def score_sheet_line(tr: Text, name: str, round_no: int, rounds: int) -> str:
    return tr("tournament.score_sheet", name=markup.name(name), round=round_no, rounds=rounds)


def list_line(tr: Text, t: TournamentInfo) -> str:
    return tr("tournament.list.line", id=t.id, name=markup.name(t.name),
              format=format_text(tr, t), status=status_text(tr, t), count=len(t.entrants))


def choices_text(tr: Text, found: Sequence[TournamentInfo]) -> str:
    """The tournaments a command could mean, to pick one with ``tournament:``."""
    return ", ".join(tr("tournament.choice", id=t.id, name=markup.name(t.name))
                     for t in found[:10])
