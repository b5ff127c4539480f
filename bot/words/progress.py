"""The words of reasons to come back: achievements and titles (earned, offered, the track's
progress), ratings and the rating board, and the weekly challenge's boards and summary.

The messages around them (buttons, pictures, what is read from storage) are
:mod:`bot.adapter.ui.progress`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.challenge import model as challenge
from bot.core.models import GameInfo
from bot.core.progress import model as progress
from bot.words import markup, terms
from bot.words.catalogue import Text
from bot.words.markup import clip, mention
from data import Catalog, load_catalog
from engine.achievements import ScenarioPath, TrackPosition


def achievement_name(tr: Text, achievement: str) -> str:
    return tr(f"achievements.name.{achievement}")


def title_name(tr: Text, catalog: Catalog | None, index: int | None) -> str:
    """A title's name (``None``: the catalogue the game was played with is the default)."""
    if index is None:
        return tr("achievements.no_title")
    chart = (catalog if catalog is not None else load_catalog()).achievements
    return tr(f"achievements.level.{chart.track[index].id}")


def position_lines(tr: Text, catalog: Catalog, position: TrackPosition) -> list[str]:
    """"6/26 achievement points · Weekend Warrior" and what the next title needs."""
    lines = [tr("achievements.progress", points=position.points, total=position.total,
                title=title_name(tr, catalog, position.title))]
    if position.complete:
        lines.append(tr("achievements.complete"))
    else:
        lines.append(tr("achievements.next", title=title_name(tr, catalog, position.next_level),
                        target=position.next_target, to_go=position.to_next))
    return lines


def scenario_path_line(tr: Text, path: ScenarioPath) -> str:
    """Where a player stands on the solo scenarios, and the one to play next."""
    if path.next is None:
        return tr("progress.path.done", total=path.total)
    if not path.passed:
        return tr("progress.path.start", total=path.total)
    return tr("progress.path.next", count=len(path.passed), total=path.total, next=path.next,
              numbers=", ".join(map(str, path.passed)))


def rating_text(row: Any) -> str:
    return f"{row.ordinal:.1f}"


def scope_name(tr: Text, scope: int) -> str:
    return tr("progress.scope.everywhere" if scope == progress.EVERYWHERE
              else "progress.scope.server")


def computer_name(tr: Text, player: str) -> str:
    level = progress.level_of(player) or "?"
    return tr("progress.board.computer", level=tr(f"level.{level}"))


def game_over_lines(tr: Text, catalog: Catalog | None, game: GameInfo,
                    info: progress.Progress | None) -> list[str]:
    """What the game earned: each achievement, each new title, a pick offered; and who
    earned nothing because of what happened to their own seat (a computer played for it, a
    hint taken): only that seat is voided."""
    names = terms.seat_names(game, tr)
    lines: list[str] = []
    for e in info.earned if info is not None else ():
        name = names[e.seat] if 0 <= e.seat < len(names) else "?"
        for a in e.ids:
            key = "achievements.choose" if len(e.choices) > 1 else "achievements.earned"
            lines.append(tr(key, player=markup.name(name), name=achievement_name(tr, a)))
        if e.title is not None:
            lines.append(tr("achievements.earned_title", player=markup.name(name),
                            title=title_name(tr, catalog, e.title)))
        reason = e.reason
        if reason in VOIDED:
            lines.append(tr(f"achievements.void.{reason}", player=markup.name(name)))
    return lines


# Why a seat earned nothing that is that seat's own doing, said on the score sheet.
VOIDED = frozenset({"computer_played", "hints_used"})


def board_lines(tr: Text, entries: Sequence[progress.BoardEntry]) -> list[str]:
    lines = []
    for e in entries:
        if progress.user_of(e.player) is None:
            lines.append(tr("progress.board.line_computer", rank=e.rank,
                            name=computer_name(tr, e.player), rating=rating_text(e.rating),
                            count=e.rating.games))
            continue
        average = "—" if e.average is None else f"{e.average:.1f}"
        lines.append(tr("progress.board.line", rank=e.rank, name=markup.name(e.name),
                        rating=rating_text(e.rating), wins=e.wins or 0, games=e.games or 0,
                        average=average, count=e.rating.games))
    return lines


def challenge_board_lines(tr: Text, title: str, board: challenge.Board | None) -> list[str]:
    if board is None or not board.lines:
        return []
    if board.mine is not None:
        head = tr("progress.challenge.board_mine", where=title, rank=board.mine,
                  entrants=board.entrants)
    else:
        head = tr("progress.challenge.board", where=title, entrants=board.entrants)
    return ["", head, *(tr("progress.challenge.line", rank=x.rank, name=markup.name(x.name),
                           score=x.score)
                        for x in board.lines)]


def challenge_boards(tr: Text, server: challenge.Board | None,
                     everywhere: challenge.Board | None) -> list[str]:
    """A week's two boards, this server's then every server's."""
    return [*challenge_board_lines(tr, tr("progress.scope.server"), server),
            *challenge_board_lines(tr, tr("progress.scope.everywhere"), everywhere)]


def challenge_summary_text(tr: Text, summary: challenge.Summary) -> str:
    """A closed week's summary, posted in the server's challenge channel."""
    lines = [tr("progress.challenge.summary", week=summary.week, count=summary.entrants)]
    for rank, user_id, name, score in summary.top:
        lines.append(tr("progress.challenge.summary_line", rank=rank, name=markup.name(name),
                        mention=mention(user_id), score=score))
    if summary.best is not None:
        lines.append("")
        lines.append(tr("progress.challenge.summary_best", best=summary.best,
                        count=summary.everywhere))
    lines.append(tr("progress.challenge.summary_next"))
    return clip("\n".join(lines), 2000)
