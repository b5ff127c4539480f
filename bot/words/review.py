"""The review's and the hints' words: the summary (accuracy, the loss, the draft, the costliest
turns with why each cost points), the turn-by-turn list, the chart's alt text, the hints, and
the review line of ``/calico stats``. Numbers are written as the reader writes them.

The messages around them (pictures, buttons, the deferred answer) are
:mod:`bot.adapter.ui.review`'s.
"""

from __future__ import annotations

from bot.core.models import GameInfo
from bot.core.review.model import HintsOutcome, ReviewOutcome
from bot.words import markup, terms
from bot.words.catalogue import Text
from bot.words.catalogue import has as i18n_has
from engine.ai.hints import Hint
from engine.ai.review import Mistake, Placement, Reason, Review, TurnReview
from engine.config import GameConfig

# Discord's limit on a message's content.
MESSAGE_LIMIT = 2000


def num(tr: Text, value: float, digits: int = 1) -> str:
    """A number as the reader writes it (a decimal comma in French and Polish)."""
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if tr.lang in ("fr", "pl") else text


def move_words(tr: Text, cfg: GameConfig, move: Placement) -> str:
    """A turn in words: the tile sewn, where, and the market tile taken."""
    tile = terms.tile_code_name(tr, cfg, move.tile)
    if move.pick is None:
        return tr("review.move", tile=tile, cell=move.cell)
    return tr("review.move_took", tile=tile, cell=move.cell,
              pick=terms.tile_code_name(tr, cfg, move.pick))


def reason_words(tr: Text, reason: Reason) -> str:
    """One reason in the player's words: what their move did (closed a goal off, cut a group
    short of a cat or a button, gave up a token) or what the engine's move did at once."""
    how = reason.how
    if not i18n_has(f"review.why.{reason.kind}.{how}"):
        how = "kept_open"  # an older review's code, or one this kind has no sentence for
    points = num(tr, reason.points)
    if reason.kind == "cat":
        return tr(f"review.why.cat.{how}", cat=terms.cat_name(reason.cat or ""), points=points)
    if reason.kind == "button":
        return tr(f"review.why.button.{how}", color=terms.color_name(tr, reason.color or ""),
                  points=points)
    if reason.kind == "rainbow":
        return tr(f"review.why.rainbow.{how}", points=points)
    return tr(f"review.why.goal.{how}", goal=terms.goal_name(reason.goal), spot=reason.spot or "?",
              points=points)


def why_sentence(tr: Text, mistake: Mistake) -> str:
    """One sentence on why a costly turn cost points (from the review's structured reasons)."""
    parts = [reason_words(tr, r) for r in mistake.reasons[:2]]
    if len(parts) == 2:
        text = tr("review.why.sentence",
                  reasons=tr("review.why.and", first=parts[0], second=parts[1]))
    elif parts:
        text = tr("review.why.sentence", reasons=parts[0])
    else:
        text = tr("review.why.none")
    if mistake.differs == "pick":
        text = tr("review.why.pick") + " " + text
    return text


def draft_line(tr: Text, review: Review) -> str | None:
    d = review.draft
    if d is None:
        return None
    if d.played == d.engine:
        return tr("review.draft_same")
    spots = terms.GOAL_SPOT_NAMES
    played = " · ".join(f"{terms.goal_name(g)} ({s})" for g, s in zip(d.played, spots,
                                                                      strict=True))
    engine = " · ".join(f"{terms.goal_name(g)} ({s})" for g, s in zip(d.engine, spots,
                                                                      strict=True))
    if d.loss < 0.05:
        return tr("review.draft_close", played=played, engine=engine)
    return tr("review.draft", played=played, engine=engine, loss=num(tr, d.loss))


def seat_name_of(game: GameInfo, seat: int, tr: Text) -> str:
    names = terms.seat_names(game, tr)
    return names[seat] if 0 <= seat < len(names) else "?"


def summary_text(tr: Text, outcome: ReviewOutcome) -> str:
    """The review's first message: accuracy, the loss, the draft, the costliest turns."""
    review, game = outcome.review, outcome.game
    assert game.state is not None
    cfg = game.state.config
    rows = {t.ply: t for t in review.turns}
    lines = [tr("review.title", game=game.id,
                name=markup.name(seat_name_of(game, outcome.seat, tr)))]
    accuracy = num(tr, review.accuracy)
    if review.final_score is not None:
        lines.append(tr("review.accuracy", accuracy=accuracy, score=review.final_score))
    else:
        lines.append(tr("review.accuracy_no_score", accuracy=accuracy))
    lines.append(tr("review.loss", count=len(review.turns), loss=num(tr, review.total_loss)))
    if review.turns:
        lines.append(tr("review.chart_caption", you=tr("render.review_you"),
                        engine=tr("render.review_engine")))
    draft = draft_line(tr, review)
    if draft:
        lines.append(draft)
    lines.append("")
    lines.append(tr("review.mistakes"))
    if not review.mistakes:
        lines.append(tr("review.no_mistakes"))
    for rank, m in enumerate(review.mistakes, 1):
        row = rows.get(m.ply)
        if row is None:
            continue
        lines.append(tr("review.mistake", rank=rank, turn=m.turn, loss=num(tr, m.loss),
                        played=move_words(tr, cfg, row.played),
                        engine=move_words(tr, cfg, row.engine), why=why_sentence(tr, m)))
    lines.append("")
    lines.append(tr("review.method", samples=review.samples))
    lines.append(tr("review.stored", when=markup.timestamp(outcome.created_at)))
    return markup.clip("\n".join(lines), MESSAGE_LIMIT)


def turn_line(tr: Text, cfg: GameConfig, row: TurnReview) -> str:
    played = move_words(tr, cfg, row.played)
    if row.differs is None:
        return tr("review.turn_same", turn=row.turn, played=played)
    engine = move_words(tr, cfg, row.engine)
    if row.loss < 0.05:
        return tr("review.turn_even", turn=row.turn, played=played, engine=engine)
    return tr("review.turn_diff", turn=row.turn, played=played, engine=engine,
              loss=num(tr, row.loss))


def turn_alt(tr: Text, cfg: GameConfig, turn: int, row: TurnReview) -> str:
    """The alt text of a costly turn's before/after picture."""
    return tr("review.alt_turn", turn=turn, played=move_words(tr, cfg, row.played),
              engine=move_words(tr, cfg, row.engine), ev_played=num(tr, row.ev_played),
              ev_engine=num(tr, row.ev_engine))


def turn_texts(tr: Text, outcome: ReviewOutcome) -> list[str]:
    """Every turn of the seat, what was played against the engine's move and what the
    difference cost, split into messages of at most 2,000 characters."""
    assert outcome.game.state is not None
    cfg = outcome.game.state.config
    out: list[str] = []
    current = [tr("review.turns_title")]
    size = len(current[0])
    for row in outcome.review.turns:
        line = markup.clip(turn_line(tr, cfg, row), 400)
        if size + 1 + len(line) > MESSAGE_LIMIT:
            out.append("\n".join(current))
            current = [tr("review.turns_more")]
            size = len(current[0])
        current.append(line)
        size += 1 + len(line)
    if len(current) > 1:
        out.append("\n".join(current))
    return out


def chart_alt(tr: Text, review: Review) -> str:
    """The chart in words: both lines, what the engine's (per turn, not a game of its own)
    means, its largest lead and what the turns cost in all."""
    turns, mine, engine = review.chart()
    if not turns:
        return tr("review.title", game="", name="")
    gaps = [e - m for m, e in zip(mine, engine, strict=True)]
    widest = max(range(len(gaps)), key=lambda i: gaps[i])
    values = {"turns": len(turns), "start": num(tr, mine[0]), "end": num(tr, mine[-1]),
              "gap": num(tr, max(0.0, gaps[widest])), "gap_turn": turns[widest],
              "loss": num(tr, review.total_loss), "you": tr("render.review_you"),
              "engine": tr("render.review_engine")}
    if review.mistakes:
        marked = ", ".join(str(m.turn) for m in review.mistakes)
        return tr("review.alt_chart", mistakes=marked, **values)
    return tr("review.alt_chart_clean", **values)


def hint_choice_words(tr: Text, cfg: GameConfig, hint: Hint) -> str:
    tile = terms.tile_code_name(tr, cfg, hint.tile)
    if hint.hand is None:
        return tr("hint.move_market", tile=tile, cell=hint.cell, slot=(hint.market or 0) + 1)
    if hint.pick is None:
        return tr("hint.move_last", tile=tile, cell=hint.cell)
    return tr("hint.move_hand", tile=tile, cell=hint.cell,
              pick=terms.tile_code_name(tr, cfg, hint.pick))


def hints_text(tr: Text, outcome: HintsOutcome) -> str:
    """The hints answer: the engine's best placements for this turn, with their values."""
    game, view = outcome.game, outcome.view
    cfg = view.public.config
    number = len(view.public.seats[outcome.seat].placed) + 1
    lines = [tr("hint.title", number=number, game=game.id)]
    if not outcome.hints:
        lines.append(tr("hint.none"))
    for rank, h in enumerate(outcome.hints, 1):
        lines.append(tr("hint.line", rank=rank, move=hint_choice_words(tr, cfg, h),
                        value=num(tr, h.value), engine=tr("hint.engine") if h.engine else ""))
    lines += ["", tr("hint.note", samples=outcome.samples), tr("hint.marked")]
    return markup.clip("\n".join(lines), MESSAGE_LIMIT)


def stats_text(tr: Text, count: int, mean: float | None) -> str:
    """``/calico stats``: the person's reviewed games and their mean accuracy ("" if none)."""
    if not count or mean is None:
        return ""
    return tr("review.stats", count=count, accuracy=num(tr, mean))


def finished_label(tr: Text, game: GameInfo) -> str:
    """A finished game in the review's game picker."""
    return tr("review.pick", game=game.id, date=game.updated_at.date().isoformat())
