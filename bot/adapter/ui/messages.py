"""Message builders: a game snapshot (plus what happened) in, an :class:`Outgoing` out.

One builder per thing a player sees: the lobby, the start of play, the goal draft DM, the turn
DM (choose a cell / preview / done), the thread's narration of a move, reminders, the end. The
Discord delivery, the click handlers, ``/calico hand`` and the offline demo all use these, so a
message looks the same wherever it is produced.

The words come from :mod:`bot.words` (the text of posts, panels and narration, and the pictures'
alt text); this module puts them together with the pictures and the controls.

Privacy: a player's panel is built from ``private_view(state, their seat)`` (their own hand only);
thread posts use ``public_view``. Neither carries the bag or the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.adapter.ui import images, views
from bot.adapter.ui import review as review_ui
from bot.adapter.ui.outgoing import Outgoing
from bot.core.models import GameInfo, GameStatus
from bot.core.notices import Reminder
from bot.words import answers, describe, markup, narration, panels, posts, terms
from bot.words.catalogue import Text
from engine.errors import EngineError
from engine.events import Event, ScenarioResult, TilePlaced
from engine.hexgrid import CELL_BY_NAME, cell_name
from engine.rules import placements, preview
from engine.state import TURNS_PER_PLAYER, GameState, Phase
from engine.views import private_view, public_view

__all__ = ["Outgoing", "PanelStep"]


# --------------------------------------------------------------------------- lobby and start


def lobby_message(tr: Text, game: GameInfo, ping_role: int | None = None) -> Outgoing:
    """The lobby post (edited in place as people join); buttons only while it is open.
    ``ping_role``: the server's role for new tables, pinged while the lobby is open."""
    open_ = game.status is GameStatus.LOBBY
    computers = [(s.seat, posts.remove_computer_label(tr, s))
                 for s in game.seats if s.ai_level is not None]
    # People who joined, for the host to remove (never the host: they leave with Leave).
    people = [(s.user_id, posts.remove_computer_label(tr, s)) for s in game.seats
              if s.ai_level is None and s.user_id is not None and s.user_id != game.host_id]
    view = views.lobby_view(tr, game.id, pet=game.options.first.value == "pet", open_=open_,
                            computers=computers, people=people)
    out = Outgoing(posts.lobby_text(tr, game), view=view)
    if ping_role is not None and open_:
        out.content = posts.with_role_ping(tr, ping_role, out.content)
        out.ping_roles = [ping_role]
    return out


async def started_message(tr: Text, game: GameInfo, first_seat: int) -> Outgoing:
    """The table picture and the order of play, pinging whoever acts first."""
    out = Outgoing(posts.started_text(tr, game, first_seat))
    if game.state is not None:
        view, names = public_view(game.state), terms.seat_names(game, tr)
        png = await images.table_image(tr, view, names)
        out.attach(images.TABLE_PNG, png, describe.table(tr, view, names))
    if game.status is GameStatus.DRAFT or posts.table_without_lobby(game):
        out.ping = [s.user_id for s in game.seats if s.user_id and s.ai_level is None]
    elif 0 <= first_seat < len(game.seats):
        first = game.seats[first_seat]
        if first.user_id and first.ai_level is None:
            out.ping = [first.user_id]
    out.view = views.hand_view(tr, game.id)
    return out


# --------------------------------------------------------------------------- goal draft


def _offer(game: GameInfo, seat: int) -> tuple[str, ...]:
    return () if game.state is None else game.state.seats[seat].goal_offer


async def draft_panel(tr: Text, game: GameInfo, user_id: int,
                      chosen: tuple[int, int, int] | None = None) -> Outgoing:
    """The goal draft DM: the goals drawn and one select of every arrangement (≤ 24), or, once
    one is picked, the board showing it with Confirm / Back."""
    seat = game.seat_of(user_id)
    state = game.state
    if seat is None or state is None:
        return Outgoing(panels.not_a_player(tr, game))
    offer = _offer(game, seat)
    if not offer:
        return Outgoing(panels.draft_waiting(tr, game))
    scenario = state.config.scenario is not None or len(offer) == 3
    seat_view = public_view(state).seats[seat]
    if chosen is None:
        text = panels.draft_prompt(tr, game, offer, scenario=scenario)
        options = [(order, terms.arrangement_label(tr, offer, order),
                    terms.arrangement_left_out(tr, offer, order))
                   for order in terms.draft_arrangements(offer)]
        png = await images.draft_image(tr, offer, state.config, seat_view)
        alt = describe.draft(tr, offer, state.config)
        return Outgoing(text, [(images.GOALS_PNG, png)],
                        views.draft_view(tr, game.id, game.ply, options),
                        ).described(images.GOALS_PNG, alt)
    goals = (offer[chosen[0]], offer[chosen[1]], offer[chosen[2]])
    png = await images.draft_image(tr, offer, state.config, seat_view, goals)
    alt = describe.draft(tr, offer, state.config, goals)
    return Outgoing(panels.draft_chosen(tr, game, offer, chosen),
                    [(images.GOALS_PNG, png)],
                    views.draft_confirm_view(tr, game.id, game.ply, chosen),
                    ).described(images.GOALS_PNG, alt)


def draft_done(tr: Text, game: GameInfo, goals: Sequence[str]) -> Outgoing:
    return Outgoing(panels.draft_done(tr, game, goals))


# --------------------------------------------------------------------------- turn panel


@dataclass(frozen=True, slots=True)
class PanelStep:
    """Where the player is in their turn: nothing chosen yet, or a tile on a cell."""

    source: str | None = None  # "h0".."h1" / "m0".."m2"
    cell: str | None = None
    events: tuple[Event, ...] = ()


def _source_index(source: str) -> int:
    return int(source[1:])


def _tile_of(state: GameState, seat: int, source: str) -> int | None:
    if source.startswith("m"):
        return state.market[_source_index(source)]
    hand = state.seats[seat].hand
    i = _source_index(source)
    return hand[i] if 0 <= i < len(hand) else None


def _is_last_turn(state: GameState, seat: int) -> bool:
    return len(state.seats[seat].placed) == TURNS_PER_PLAYER - 1


def source_choices(tr: Text, state: GameState, seat: int) -> list[views.SourceChoice]:
    """For each tile the player may place: its legal cells, each described by what it earns
    (the engine's own preview) and which goal it touches."""
    cfg = state.config
    no_hand = cfg.no_hand
    legal = placements(state, seat)
    by_source: dict[int, list[int]] = {}
    for src, cell in legal:
        by_source.setdefault(src, []).append(cell)
    goals = state.seats[seat].goals
    out: list[views.SourceChoice] = []
    for src in sorted(by_source):
        source = f"{'m' if no_hand else 'h'}{src}"
        tile = _tile_of(state, seat, source)
        options = []
        for cell in sorted(by_source[src], key=cell_name):
            try:
                gains = narration.gain_short(tr, preview(state, seat, src, cell))
            except EngineError:
                gains = ""
            hint = terms.cell_hint(tr, cfg, goals, cell)
            options.append(views.CellOption(cell_name(cell), " · ".join(x for x in (gains, hint)
                                                                         if x)))
        out.append(views.SourceChoice(source, terms.tile_code_name(tr, cfg, tile), tuple(options)))
    return out


def _market_offer(tr: Text, state: GameState) -> list[tuple[int, str]]:
    return [(k, terms.tile_code_name(tr, state.config, t)) for k, t in enumerate(state.market)
            if t is not None]


async def turn_panel(tr: Text, game: GameInfo, user_id: int,
                     step: PanelStep | None = None) -> Outgoing:
    """The player's private panel: header with a jump link, the picture (quilt, hand, market),
    and, on their turn, the controls for the current step."""
    state = game.state
    seat = game.seat_of(user_id)
    if state is None or seat is None:
        return Outgoing(panels.not_a_player(tr, game))
    view = private_view(state, seat)
    names = terms.seat_names(game, tr)
    lines = [posts.panel_header(tr, game)]
    cfg = state.config
    hand = ", ".join(terms.tile_code_name(tr, cfg, t) for t in view.hand)
    my_turn = (game.status is GameStatus.PLAY and state.phase is Phase.PLAY
               and state.current_seat == seat)
    controls: views.ItemsView | None = None
    preview_arg: tuple[int, int, Sequence[Event]] | None = None
    legal_cells: set[int] | None = None
    selected: int | None = None
    lines.append(panels.turn_state_line(tr, game, state, seat, names, my_turn=my_turn))
    if hand:
        lines.append(panels.hand_line(tr, hand))
    if my_turn and (step is None or step.source is None or step.cell is None):
        choices = source_choices(tr, state, seat)
        legal_cells = {CELL_BY_NAME[o.cell] for c in choices for o in c.cells}
        lines.append(panels.choose_line(tr, market=cfg.no_hand))
        controls = views.turn_view(tr, game.id, game.ply, choices, market=cfg.no_hand)
        review_ui.add_hint_button(controls, tr, game)
    elif my_turn and step is not None and step.source is not None and step.cell is not None:
        tile = _tile_of(state, seat, step.source)
        cell = CELL_BY_NAME[step.cell]
        tile_text = terms.tile_code_name(tr, cfg, tile)
        last_turn = _is_last_turn(state, seat)
        lines += panels.preview_lines(tr, tile_text, step.cell, step.events,
                                      market_only=cfg.no_hand, last_turn=last_turn)
        if not step.source.startswith("m"):
            selected = _source_index(step.source)
        if tile is not None:
            preview_arg = (cell, tile, step.events)
        market = None if cfg.no_hand or last_turn else _market_offer(tr, state)
        controls = views.preview_view(tr, game.id, game.ply, step.source, step.cell, market)
    png = await images.turn_image(tr, view, name=names[seat], preview=preview_arg,
                                  legal=legal_cells, selected=selected)
    alt = describe.turn(tr, view, name=names[seat], preview=preview_arg, legal=legal_cells,
                        selected=selected)
    return Outgoing(panels.panel_text(lines), [(images.TURN_PNG, png)],
                    controls).described(images.TURN_PNG, alt)


def turn_committed(tr: Text, game: GameInfo, user_id: int,
                   events: Sequence[Event]) -> Outgoing:
    """The panel once the turn is committed: what happened, no controls, and no picture: the
    preview's would show a turn that is no longer to play (its hand, market and choices), and
    nothing is drawn here, so the click is answered at once. The thread post shows the updated
    quilt; the next prompt comes by DM as usual."""
    return Outgoing(panels.committed(tr, game, user_id, events))


# --------------------------------------------------------------------------- thread posts


def _move_text(tr: Text, game: GameInfo, lines: list[str], *, current: bool) -> Outgoing:
    """A thread post's text: the moves told, then (while the game has not moved on since, so
    it is still right) whose turn it is now, pinging them."""
    out = Outgoing()
    if current:
        nxt = posts.next_player_line(tr, game)
        if nxt:
            lines = [*lines, nxt]
            if game.current_user_id is not None:
                out.ping = [game.current_user_id]
    out.content = markup.clip("\n".join(x for x in lines if x), 2000)
    return out


async def table_post(tr: Text, game: GameInfo, state: GameState | None, seat: int,
                     events: Sequence[Event], *, autoplayed: bool, current: bool) -> Outgoing:
    """The thread's account of one move: narration, the mover's quilt, the next player pinged.

    ``state`` is the game as it was right after the move (for the picture); ``current`` says the
    game has not moved on since, so pinging the next player is still right.
    """
    names = terms.seat_names(game, tr)
    name = names[seat] if 0 <= seat < len(names) else "?"
    out = _move_text(tr, game, [narration.narrate_turn(tr, name, events, autoplayed=autoplayed)],
                     current=current)
    if state is not None and 0 <= seat < len(state.seats):
        placed = next((e for e in events if isinstance(e, TilePlaced)), None)
        highlight = CELL_BY_NAME.get(placed.cell) if placed is not None else None
        seat_view = public_view(state).seats[seat]
        png = await images.quilt_image(tr, seat_view, state.config, name=name,
                                       highlight=highlight)
        alt = describe.quilt(tr, seat_view, state.config, name, highlight=highlight)
        out.attach(images.QUILT_PNG, png, alt)
    if game.status is GameStatus.PLAY:
        out.view = views.hand_view(tr, game.id)
    return out


async def table_run_post(tr: Text, game: GameInfo, state: GameState | None,
                         moves: Sequence[tuple[int, Sequence[Event], bool]], *,
                         current: bool) -> Outgoing:
    """Several moves in one thread post (a run of computer moves, :mod:`bot.core.folding`):
    each move told in a line, the next player pinged, and one picture of the whole table as it
    stands after the last. ``moves``: (seat, events, autoplayed) in order."""
    names = terms.seat_names(game, tr)
    lines = [narration.narrate_turn(tr, names[seat] if 0 <= seat < len(names) else "?",
                                    events, autoplayed=autoplayed)
             for seat, events, autoplayed in moves]
    out = _move_text(tr, game, lines, current=current)
    if state is not None:
        view = public_view(state)
        png = await images.table_image(tr, view, names)
        out.attach(images.TABLE_PNG, png, describe.table(tr, view, names))
    if game.status is GameStatus.PLAY:
        out.view = views.hand_view(tr, game.id)
    return out


async def game_over_message(tr: Text, game: GameInfo, events: Sequence[Event]) -> Outgoing:
    """The score sheet, the Master Quilter and the tie-break, and the standings; in a solo
    scenario, whether it was passed and which targets were met or missed (text and sheet)."""
    names = terms.seat_names(game, tr)
    out = Outgoing(markup.clip(narration.game_over_text(tr, names, events), 2000))
    if game.state is not None:
        scenario = next((e for e in events if isinstance(e, ScenarioResult)), None)
        view = public_view(game.state)
        png = await images.scores_image(tr, view, names, scenario)
        out.attach(images.SCORES_PNG, png, describe.scoresheet(tr, view, names, scenario))
    review_ui.score_sheet(tr, game, out)
    return out


def reminder_message(tr: Text, game: GameInfo, reminder: Reminder, *, in_thread: bool,
                     user_id: int) -> Outgoing:
    """A nudge with a jump link, also listing the player's other games waiting for them.

    ``in_thread``: their DMs are closed, so it is posted in the game's thread, pinging them,
    with the "Show my hand" button to play from there. ``overdue``: past the deadline (the
    game keeps reminding), worded as such, with when the next reminder comes, if one does."""
    text = posts.reminder_text(tr, game, final=reminder.final, deadline=game.deadline_at,
                               in_thread=in_thread, user_id=user_id, overdue=reminder.overdue,
                               next_at=reminder.next_time(), idle_days=reminder.idle_days)
    others = [g for g in reminder.waiting if g != game.id]
    text += posts.also_waiting(tr, others)
    if not in_thread:
        return Outgoing(text)
    view = views.hand_view(tr, game.id) if game.status.active else None
    return Outgoing(text, ping=[user_id], view=view)


async def autoplayed_message(tr: Text, game: GameInfo, user_id: int, seat: int,
                             events: Sequence[Event]) -> Outgoing:
    """The DM to a player whose turn a computer played when their time ran out: what was
    played, then their panel as it is now (hand, quilt, market; the turn controls when it is
    their turn again)."""
    names = terms.seat_names(game, tr)
    name = names[seat] if 0 <= seat < len(names) else "?"
    panel = await turn_panel(tr, game, user_id)
    panel.content = panels.autoplayed(tr, game, name, events, panel.content)
    return panel


def seat_changed_message(tr: Text, game: GameInfo, seat: int, reason: str) -> Outgoing:
    return Outgoing(posts.seat_changed_text(tr, game, seat, reason))


def ended_message(tr: Text, reason: str | None) -> Outgoing:
    return Outgoing(posts.ended_text(tr, reason))


def dm_fallback_message(tr: Text, game: GameInfo, user_id: int) -> Outgoing:
    return Outgoing(posts.dm_closed_text(tr, user_id), ping=[user_id],
                    view=views.hand_view(tr, game.id) if game.status.active else None)


# --------------------------------------------------------------------------- commands


async def board_message(tr: Text, game: GameInfo, seat: int) -> Outgoing:
    """``/calico board``: one player's quilt (public information only)."""
    names = terms.seat_names(game, tr)
    if game.state is None:
        return Outgoing(posts.lobby_text(tr, game))
    seat_view = public_view(game.state).seats[seat]
    last = seat_view.placed[-1] if seat_view.placed else None
    png = await images.quilt_image(tr, seat_view, game.state.config, name=names[seat],
                                   highlight=last)
    text = panels.board_caption(tr, game, names[seat], seat_view.score)
    alt = describe.quilt(tr, seat_view, game.state.config, names[seat], highlight=last)
    return Outgoing(text, [(images.QUILT_PNG, png)]).described(images.QUILT_PNG, alt)


async def status_message(tr: Text, game: GameInfo) -> Outgoing:
    out = Outgoing(answers.status_text(tr, game))
    if game.state is not None and game.status in (GameStatus.PLAY, GameStatus.DRAFT):
        view, names = public_view(game.state), terms.seat_names(game, tr)
        png = await images.table_image(tr, view, names)
        out.attach(images.TABLE_PNG, png, describe.table(tr, view, names))
    return out
