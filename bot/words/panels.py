"""The text of a player's private panels (their DMs and ephemeral answers): the goal draft,
the turn panel at each step, the panel once a turn is committed, the DM after a computer
played for them, and ``/calico board``'s caption.

Each function returns the message content; the pictures, alt text and controls are added by
:mod:`bot.adapter.ui.messages`, which calls these.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.models import GameInfo, GameStatus
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.markup import clip, timestamp
from bot.words.narration import narrate_turn, preview_text, score_line
from bot.words.posts import panel_header, thread_url, turn_number
from bot.words.terms import arrangement_label, goal_name, seat_name
from engine.events import Event
from engine.state import GameState, Phase

# Discord's limit on a message's content.
CONTENT_LIMIT = 2000


def not_a_player(tr: Text, game: GameInfo) -> str:
    return panel_header(tr, game) + "\n" + tr("error.not_a_player")


# --------------------------------------------------------------------------- goal draft


def draft_waiting(tr: Text, game: GameInfo) -> str:
    return panel_header(tr, game) + "\n" + tr("draft.waiting")


def draft_prompt(tr: Text, game: GameInfo, offer: Sequence[str], *, scenario: bool) -> str:
    """The goals drawn, and what to do with them (a scenario keeps all three)."""
    names = ", ".join(goal_name(g) for g in offer)
    text = tr("draft.prompt_scenario" if scenario else "draft.prompt", offer=names)
    return panel_header(tr, game) + "\n" + text


def draft_chosen(tr: Text, game: GameInfo, offer: Sequence[str],
                 chosen: Sequence[int]) -> str:
    arrangement = arrangement_label(tr, offer, chosen)
    return panel_header(tr, game) + "\n" + tr("draft.chosen", arrangement=arrangement)


def draft_done(tr: Text, game: GameInfo, goals: Sequence[str]) -> str:
    arrangement = tr("draft.option", b3=goal_name(goals[0]), c4=goal_name(goals[1]),
                     d2=goal_name(goals[2]))
    return panel_header(tr, game) + "\n" + tr("draft.done", arrangement=arrangement)


# --------------------------------------------------------------------------- turn panel


def turn_state_line(tr: Text, game: GameInfo, state: GameState, seat: int,
                    names: Sequence[str], *, my_turn: bool) -> str:
    """Where the game stands for this player: over, drafting, someone else's turn, or theirs
    (with the deadline when there is one)."""
    if game.status is GameStatus.OVER or state.phase is Phase.OVER:
        return tr("panel.over")
    if game.status is GameStatus.DRAFT or state.phase is Phase.DRAFT:
        return tr("panel.drafting")
    if not my_turn:
        current = state.current_seat
        return tr("panel.not_your_turn",
                  name=markup.name(names[current]) if current is not None else "?")
    number = turn_number(game, seat)
    if game.deadline_at is not None and game.options.players > 1:
        return tr("panel.your_turn_deadline", number=number,
                  deadline=timestamp(game.deadline_at))
    return tr("panel.your_turn", number=number)


def hand_line(tr: Text, hand: str) -> str:
    return tr("panel.hand", tiles=hand)


def choose_line(tr: Text, *, market: bool) -> str:
    return tr("panel.choose_market" if market else "panel.choose")


def preview_lines(tr: Text, tile: str, cell: str, events: Sequence[Event], *,
                  market_only: bool, last_turn: bool) -> list[str]:
    """The previewed placement, what it earns, and what the buttons below it do: place it
    (a game without a hand, or the last tile), or take a market tile (which ends the turn)."""
    lines = [preview_text(tr, tile, cell, events)]
    if market_only:
        lines.append(tr("preview.place_market"))
    elif last_turn:
        lines.append(tr("preview.place"))
    else:
        lines.append(tr("preview.take"))
    return lines


def panel_text(lines: Sequence[str]) -> str:
    return clip("\n".join(lines), CONTENT_LIMIT)


def committed(tr: Text, game: GameInfo, user_id: int, events: Sequence[Event]) -> str:
    """The panel once the turn is committed: what happened, where to see it, and who plays
    next when it is someone else (a computer: that it is thinking, and where its move comes)."""
    summary = narrate_turn(tr, None, events)
    # A weekly challenge game is played alone, in DMs: it has no thread to look at.
    where = "panel.done_challenge" if game.challenge_week is not None else "panel.done_thread"
    lines = [panel_header(tr, game), tr("panel.done", summary=summary), tr(where)]
    if game.status is GameStatus.PLAY and game.current_user_id != user_id:
        current = game.current_seat
        if current is not None:
            seat = game.seats[current]
            # A computer still to move here is one that thinks (the random player has moved
            # already): its move is on its way (queued for a worker), not awaited by a person.
            key = "panel.thinking" if seat.ai_level is not None else "panel.waiting"
            lines.append(tr(key, name=markup.name(seat_name(tr, seat))))
    return panel_text(lines)


def autoplayed(tr: Text, game: GameInfo, name: str, events: Sequence[Event],
               panel: str) -> str:
    """The DM to a player whose turn a computer played: what was played, then ``panel`` (the
    content of their panel as it is now)."""
    lines = [tr("autoplay.dm", game=game.id, url=thread_url(game)),
             narrate_turn(tr, name, events, autoplayed=True)]
    return clip("\n".join(lines) + "\n\n" + panel, CONTENT_LIMIT)


def board_caption(tr: Text, game: GameInfo, name: str, score: dict[str, object]) -> str:
    """``/calico board``: whose quilt, and its score so far."""
    return (tr("board.title", name=markup.name(name), game=game.id) + "\n"
            + score_line(tr, name, score))
