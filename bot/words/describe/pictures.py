"""The other pictures in words: the turn picture, the table, the score sheet, the goal draft
and the rules pictures (each built on :mod:`~bot.words.describe.quilt` where it shows quilts).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from bot.words import terms
from bot.words.catalogue import Text
from bot.words.describe.fit import (
    RULES_PICTURE_TOPICS,
    Description,
    join,
    long_blocks,
    long_form,
    sentence,
    short_form,
)
from bot.words.describe.goals import goal_label, goal_lines, goal_status, pattern_of, tile_of
from bot.words.describe.quilt import (
    SHORT_STYLES,
    Marks,
    quilt_forms,
    quilt_head,
    row_lines,
    token_words,
    tokens_by_cell,
)
from data import load_catalog
from engine.config import GameConfig
from engine.events import ButtonSewn, CatAttracted, Event, RainbowSewn, ScenarioResult
from engine.hexgrid import NEIGHBOURS, cell_name
from engine.scoring import rank
from engine.state import TURNS_PER_PLAYER, Phase
from engine.views import PrivateView, PublicView, SeatView

__all__ = ["RULES_PICTURE_TOPICS", "draft", "rules", "scoresheet", "table", "turn"]

def _gains(tr: Text, events: Sequence[Event]) -> list[str]:
    out = []
    for ev in events:
        if isinstance(ev, ButtonSewn):
            out.append(tr("alt.gain.button", color=terms.color_name(tr, ev.color)))
        elif isinstance(ev, CatAttracted):
            out.append(tr("alt.gain.cat", cat=terms.cat_name(ev.cat), points=ev.points,
                          count=ev.points))
        elif isinstance(ev, RainbowSewn):
            out.append(tr("alt.gain.rainbow"))
    return out


def _preview_lines(tr: Text, seat: SeatView, config: GameConfig, cell: int, tile: int,
                   events: Sequence[Event], *, goals: bool) -> list[str]:
    """The previewed placement, what it would earn and (with ``goals``) where each goal it
    touches would stand with it."""
    gains = _gains(tr, events)
    where = {"tile": tile_of(tr, config, tile), "cell": cell_name(cell)}
    lines = [tr("alt.preview", gains=join(gains), **where) if gains
             else tr("alt.preview.nothing", **where)]
    if goals and seat.goals is not None:
        after = list(seat.quilt)
        after[cell] = tile
        for i, spot in enumerate(config.goal_spots):
            if cell in NEIGHBOURS[spot]:
                status = goal_status(tr, seat, config, i, after)
                lines.append(tr("alt.preview.goal", spot=cell_name(spot),
                                goal=terms.goal_name(seat.goals[i]), status=status))
    return lines


def _hand_market(tr: Text, view: PrivateView, selected: int | None
                 ) -> tuple[list[str], str, list[str]]:
    """(the hand, numbered as the buttons number it; the market in slot order; notes: the
    last-turn note and the bag)."""
    cfg = view.public.config
    hand = []
    if view.hand:
        tiles = []
        for k, t in enumerate(view.hand):
            tile = tile_of(tr, cfg, t)
            if k == selected:
                tile += f" ({tr('alt.selected')})"
            tiles.append(f"{k + 1} {tile}")
        hand.append(tr("alt.hand", tiles=join(tiles)))
    seat = view.public.seats[view.seat]
    market = tr("alt.market", tiles=join(f"{k + 1} {tile_of(tr, cfg, t)}"
                                          for k, t in enumerate(view.public.market)))
    notes = []
    if view.hand and len(seat.placed) == TURNS_PER_PLAYER - 1:
        notes.append(tr("alt.market.last"))
    notes.append(tr("status.bag", count=view.public.bag_count))
    return hand, market, notes


def turn(tr: Text, view: PrivateView, *, name: str | None = None,
         preview: tuple[int, int, Sequence[Event]] | None = None,
         legal: Collection[int] | None = None, selected: int | None = None) -> Description:
    """The turn picture in a player's DM: the previewed placement and what it would earn
    (``preview`` = cell, tile, the engine's preview events), the hand (``selected`` marked),
    the market in slot order and the bag, the player's quilt, and the cells where the tile may
    go (``legal``)."""
    pub = view.public
    seat = pub.seats[view.seat]
    cfg = pub.config
    marks = Marks(preview=None if preview is None else (preview[0], preview[1]))
    short_q, long_q = quilt_forms(tr, seat, cfg, name, marks)
    top_long: list[str] = []
    top_short: list[str] = []
    if preview is not None:
        top_long = _preview_lines(tr, seat, cfg, preview[0], preview[1], preview[2],
                                  goals=True)
        top_short = _preview_lines(tr, seat, cfg, preview[0], preview[1], preview[2],
                                   goals=False)
    hand, market, notes = _hand_market(tr, view, selected)
    strip = [*hand, market, *notes]
    legal_line = [tr("alt.legal", cells=join(sorted(cell_name(c) for c in legal)))] if legal \
        else []
    long = [*top_long, *strip, *long_q, *legal_line]
    # The preview, hand and market come first in every short form: they are what the player
    # acts on. At each of the quilt's levels of detail, the legal cells (also in the menus) go
    # first, then what the preview would do to the goals around it.
    short = []
    for lines in short_q:
        short += [[*top_long, *strip, *lines, *legal_line], [*top_long, *strip, *lines],
                  [*top_short, *strip, *lines]]
    # Last resort for a crowded quilt: the DM's own text already states the hand and the
    # preview, so the alt text keeps only what the picture alone shows (market and quilt).
    short += [[market, *lines] for lines in short_q[-2:]]
    return Description(short_form(short), long_form(long))


# --------------------------------------------------------------------------- the table


def _cat_lines(tr: Text, config: GameConfig) -> list[str]:
    lines = []
    for cat in config.cats:
        pats = join(pattern_of(tr, config, k) for k in cat.patterns)
        lines.append(tr("alt.cat", cat=terms.cat_name(cat.id), points=cat.points, count=cat.points,
                        wants=tr(f"cat.wants.{cat.id}"), patterns=pats))
    return lines


def _turn_line(tr: Text, view: PublicView, names: Sequence[str]) -> str:
    if view.phase is Phase.DRAFT:
        return tr("status.draft")
    if view.phase is Phase.OVER or view.current_seat is None:
        return tr("status.over")
    seat = view.seats[view.current_seat]
    return tr("alt.table.turn", name=_player(names, view.current_seat),
              number=min(len(seat.placed) + 1, TURNS_PER_PLAYER), turns=TURNS_PER_PLAYER)


def _player(names: Sequence[str], seat: int) -> str:
    """The seat's display name, or P1, P2... as the pictures write it when none is given."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"P{seat + 1}"


def _market_line(tr: Text, view: PublicView) -> list[str]:
    market = join(f"{k + 1} {tile_of(tr, view.config, t)}" for k, t in enumerate(view.market))
    return [tr("alt.market", tiles=market), tr("status.bag", count=view.bag_count)]


def _seat_tokens(tr: Text, seat: SeatView, config: GameConfig) -> str:
    """``cat Millie on C3, yellow button on B4``: a quilt's tokens without its tiles."""
    words = []
    for cell, toks in sorted(tokens_by_cell(seat, config).items(), key=lambda kv: cell_name(kv[0])):
        for w in token_words(tr, toks):
            words.append(tr("alt.on", what=w, cell=cell_name(cell)))
    return join(words)


def table(tr: Text, view: PublicView, names: Sequence[str]) -> Description:
    """The public table: whose turn, the three cats (points, need, patterns), the market and
    the bag, and every quilt (its score so far; rows and goals in the long form)."""
    cfg = view.config
    top = [_turn_line(tr, view, names), *_cat_lines(tr, cfg), *_market_line(tr, view)]
    long = list(top)
    heads = []
    with_tokens = []
    for seat in view.seats:
        last = seat.placed[-1] if seat.placed else None
        name = _player(names, seat.seat)
        head = quilt_head(tr, seat, name)
        heads.append(head)
        toks = _seat_tokens(tr, seat, cfg)
        with_tokens.append(head + (" " + tr("alt.tokens", tokens=toks) if toks else ""))
        marks = Marks(highlight=last)
        long.append("")
        if last is not None:
            head += " " + tr("alt.quilt.last", cell=cell_name(last))
        long += [head, *row_lines(tr, seat, cfg, marks, SHORT_STYLES[1]),
                 *goal_lines(tr, seat, cfg, detail=True, values=False)]
    short = [[*top, *with_tokens], [*top, *heads],
             [_turn_line(tr, view, names), *_market_line(tr, view), *heads]]
    return Description(short_form(short), long_blocks(long))



def _goal_scores(tr: Text, score: Mapping[str, Any]) -> str:
    parts = []
    for g in score.get("goals", []):
        if g.get("goal") is None:
            continue
        if g.get("colors") and g.get("patterns"):
            how = tr("render.both_ways")
        elif g.get("colors") or g.get("patterns"):
            how = tr("render.one_way")
        else:
            how = tr("alt.score.goal_missed")
        parts.append(tr("alt.score.goal", spot=g.get("spot", "?"),
                        goal=terms.goal_name(g.get("goal")), how=how, count=g.get("points", 0)))
    return join(parts)


def scoresheet(tr: Text, view: PublicView, names: Sequence[str],
               scenario: ScenarioResult | None = None) -> Description:
    """The final score sheet, best first: every number on it (place, goals with how each was
    met, cat points and tokens, button points and buttons, total), the Master Quilter, the
    tie-break and, for a solo scenario, each target's reached / needed."""
    scores: list[dict[str, Any]] = [dict(s.score) for s in view.seats]
    places, winners, decided = rank(scores)
    order = sorted(range(len(scores)), key=lambda i: (places[i], i))
    detailed, plain = [], []
    for i in order:
        s = scores[i]
        name = _player(names, i)
        if i in winners:
            name += f" ({tr('term.master_quilter')})"
        line = tr("alt.score.line", place=places[i], name=name, total=s.get("total", 0),
                  goals=s.get("goal_points", 0), cats=s.get("cat_points", 0),
                  cat_tokens=s.get("cat_tokens", 0), buttons=s.get("button_points", 0),
                  button_tokens=s.get("button_tokens", 0))
        plain.append(line)
        goals = _goal_scores(tr, s)
        detailed.append(sentence(line) + (" " + tr("alt.score.goals", goals=goals)
                                           if goals else ""))
    title = tr("render.final_scores")
    tail: list[str] = []
    if len(scores) > 1 and decided != "score":
        tail.append(tr(f"render.tiebreak_{decided}"))
    if scenario is not None:
        verdict = tr("render.scenario_passed" if scenario.passed else "render.scenario_failed")
        tail.append(f"{tr('render.scenario')} {scenario.number}: {verdict}")
        for cond, needed, reached, met in scenario.conditions:
            tail.append(tr("alt.score.condition", name=tr(f"render.cond_{cond}"),
                           reached=reached, needed=needed,
                           verdict=tr("alt.score.cond_met" if met else "alt.score.cond_missed")))
    long = [title, *detailed, *tail]
    short = [long, [title, *plain, *tail]]
    return Description(short_form(short), long_form(long))


# --------------------------------------------------------------------------- goal draft


def draft(tr: Text, offer: Sequence[str], config: GameConfig,
          goals: tuple[str, str, str] | None = None) -> Description:
    """The goal draft: the goal tiles offered, numbered as the buttons number them, each with
    what it asks for and its values; with ``goals`` (an arrangement being confirmed) the board
    with them on B3, C4 and D2 and what is left out."""
    lines = [tr("render.choose_goals")]
    for k, gid in enumerate(offer):
        rule = config.goal(gid)
        lines.append(tr("alt.draft.offer", number=k + 1, goal=goal_label(tr, gid),
                        one_way=rule.one_way, both_ways=rule.both_ways))
    if goals is not None:
        spots = [cell_name(c) for c in config.goal_spots]
        lines.append(tr("alt.draft.board", goals=join(
            f"{s} {terms.goal_name(g)}" for s, g in zip(spots, goals, strict=True))))
        rest = [terms.goal_name(g) for g in offer if g not in goals]
        if rest:
            lines.append(tr("draft.left_out", goal=join(rest)))
    else:
        lines.append(tr("alt.draft.spots"))
    return Description(short_form([lines]), long_form(lines))


# --------------------------------------------------------------------------- rules


def rules(tr: Text, topic: str) -> Description:
    """The ``/calico rules`` picture of ``topic`` (one of :data:`RULES_PICTURE_TOPICS`): the
    ten cats with points and needs, the six design goals with their values, or buttons and
    the rainbow button."""
    catalog = load_catalog()
    if topic == "cats":
        cats = sorted(catalog.cats.values(), key=lambda c: (c.points, c.need != "size"))
        lines = [tr("render.rules_cats"),
                 *(tr("alt.rules.cat", cat=terms.cat_name(c.id), points=c.points, count=c.points,
                      wants=tr(f"cat.wants.{c.id}")) for c in cats),
                 tr("render.cats_note")]
    elif topic == "goals":
        lines = [tr("render.rules_goals"),
                 *(tr("alt.draft.offer", number=k + 1, goal=goal_label(tr, g.id),
                      one_way=g.one_way, both_ways=g.both_ways)
                   for k, g in enumerate(catalog.goals.values())),
                 tr("render.goals_note")]
    elif topic == "buttons":
        lines = [tr("render.rules_buttons"),
                 tr("alt.rules.points", what=tr("render.button_group"), count=3),
                 tr("alt.rules.points", what=tr("render.button_rainbow"), count=3)]
    else:
        raise ValueError(f"no rules picture for {topic!r}")
    return Description(short_form([lines]), long_form(lines))
