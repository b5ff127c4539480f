"""Public API of the renderer: engine views in, PNG bytes out (Pillow only, no I/O).

Every function here is pure and synchronous and only reads its arguments and caches of drawn
sprites, so the bot may call them from worker threads. They take views (``SeatView``,
``PublicView``, ``PrivateView``), never a ``GameState``: nothing secret can reach a picture.

Words drawn on images come from ``labels`` (a mapping of the keys in
:data:`render.theme.DEFAULT_LABELS` to the player's language; English fills any gap); the rest
is symbols, numbers, cell names and player names. The achievements chart and the replay GIF
have their own label keys (:data:`ACHIEVEMENT_LABELS`, :data:`REPLAY_LABELS`), translated in
the bot's ``achievements.image.*`` and ``achievements.replay.*`` catalogue entries; the game
review's pictures (:mod:`render.review`) take theirs from :data:`REVIEW_LABELS` the same way.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from PIL import Image

from data.catalog import AchievementChart
from engine.config import GameConfig
from engine.events import ScenarioResult
from engine.state import TURNS_PER_PLAYER
from engine.views import PrivateView, PublicView, SeatView
from render import theme
from render.achievements import ACHIEVEMENT_LABELS, achievements_layout, draw_achievements
from render.draft import draw_draft
from render.encode import to_png
from render.geometry import DEFAULT_RADIUS, QuiltLayout, cell_center, quilt_layout
from render.palette import game_palette
from render.quilt import Preview, draw_quilt, goal_states
from render.replay import REPLAY_LABELS, frame_count, render_replay, replay_layout
from render.review import REVIEW_LABELS, render_review_chart
from render.review_turn import render_turn_compare
from render.rules import RULES_PICTURES
from render.scoresheet import draw_scoresheet
from render.strip import draw_strip
from render.table import draw_table
from render.theme import DEFAULT_LABELS

__all__ = [
    "ACHIEVEMENT_LABELS",
    "DEFAULT_LABELS",
    "DEFAULT_RADIUS",
    "REPLAY_LABELS",
    "REVIEW_LABELS",
    "RULES_TOPICS",
    "Preview",
    "QuiltLayout",
    "achievements_layout",
    "cell_center",
    "draw_turn",
    "frame_count",
    "goal_states",
    "quilt_layout",
    "render_achievements",
    "render_draft",
    "render_hand_market",
    "render_quilt",
    "render_replay",
    "render_review_chart",
    "render_rules",
    "render_scoresheet",
    "render_strip",
    "render_table",
    "render_turn",
    "render_turn_compare",
    "replay_layout",
    "strip_offset",
]


def render_quilt(
    seat: SeatView,
    config: GameConfig,
    *,
    highlight: int | None = None,
    preview: Preview | None = None,
    legal: Collection[int] | None = None,
    name: str | None = None,
    radius: int = DEFAULT_RADIUS,
    hints: bool = True,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """One quilt as a PNG.

    ``highlight``: a cell to ring (the tile just placed). ``preview``: a tile drawn
    see-through on a cell with the tokens it would earn and the groups that would earn them.
    ``legal``: cells where the tile may go (warm); other empty cells are dimmed. ``name`` goes
    in the header next to the score so far. ``hints`` draws the live progress
    (:mod:`render.progress`): on each goal tile whether colours and patterns meet it (green),
    still may (faint) or no longer can (red), the value it scores on a green pill and the
    values it can no longer reach struck through (counting the tiles ``seat.elsewhere`` says
    are gone); and the pattern groups that can still become a cat's, ringed in the cat's colour
    with ``have/need`` (:mod:`render.progress`). Cell centres are
    :func:`cell_center` ``(cell, radius)``. ``labels`` is accepted for symmetry: a quilt has
    no words.
    """
    del labels
    return to_png(draw_quilt(seat, config, highlight=highlight, preview=preview, legal=legal,
                             name=name, radius=radius, hints=hints))


def render_strip(
    hand: Sequence[int],
    market: Sequence[int | None],
    *,
    bag_count: int | None = None,
    selected: int | None = None,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """Hand tiles numbered 1-2 (dark badges) and market tiles 1-3 (terracotta badges), as the
    bot's buttons number them; ``selected`` rings a hand tile; ``bag_count`` adds the bag."""
    return to_png(draw_strip(hand, market, bag_count=bag_count, selected=selected,
                             labels=labels))


def render_hand_market(view: PrivateView, *, selected: int | None = None,
                       labels: Mapping[str, str] | None = None) -> bytes:
    """The strip for the player of ``view``: their hand and the market."""
    return render_strip(view.hand, view.public.market, bag_count=view.public.bag_count,
                        selected=selected, labels=labels)


def draw_turn(
    view: PrivateView,
    *,
    name: str | None = None,
    highlight: int | None = None,
    preview: Preview | None = None,
    legal: Collection[int] | None = None,
    selected: int | None = None,
    labels: Mapping[str, str] | None = None,
) -> Image.Image:
    """The quilt on top (at the image's top-left corner, so :func:`cell_center` holds) and the
    hand and market strip under it (the market faded on the player's 22nd turn, which takes
    nothing from it)."""
    pub = view.public
    seat = pub.seats[view.seat]
    quilt = draw_quilt(seat, pub.config, highlight=highlight, preview=preview, legal=legal,
                       name=name)
    # The 22nd tile ends the game for this quilt: nothing is taken from the market.
    last = bool(view.hand) and len(seat.placed) == TURNS_PER_PLAYER - 1
    strip = draw_strip(view.hand, pub.market, width=quilt.width, bag_count=pub.bag_count,
                       selected=selected, last_turn=last, labels=labels)
    img = Image.new("RGB", (max(quilt.width, strip.width), quilt.height + strip.height),
                    theme.BACKGROUND)
    img.paste(quilt, (0, 0))
    img.paste(strip, (0, quilt.height))
    return img


def strip_offset(radius: int = DEFAULT_RADIUS) -> int:
    """Where the strip starts (its top y) in the turn image."""
    return quilt_layout(radius).size[1]


def render_turn(
    view: PrivateView,
    *,
    name: str | None = None,
    highlight: int | None = None,
    preview: Preview | None = None,
    legal: Collection[int] | None = None,
    selected: int | None = None,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """The one image of a turn prompt in the player's DM: quilt, hand and market."""
    return to_png(draw_turn(view, name=name, highlight=highlight, preview=preview, legal=legal,
                            selected=selected, labels=labels))


def render_table(
    view: PublicView,
    names: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    highlight_last: bool = True,
) -> bytes:
    """The public table: cats (patterns, needs, points), market and bag, whose turn it is and
    every player's quilt (``names[seat]``; ``P1``... where missing)."""
    return to_png(draw_table(view, names, labels=labels, highlight_last=highlight_last),
                  game_palette())


def render_scoresheet(
    view: PublicView,
    names: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    scenario: ScenarioResult | None = None,
) -> bytes:
    """The final score sheet: goals, cats, buttons and total per player, best first; the
    Master Quilter marked, and the tie-break said when points alone did not decide. With
    ``scenario`` (the engine's ``ScenarioResult`` of a solo scenario): passed or not, and
    each target's needed / reached, green when met and red when missed."""
    return to_png(draw_scoresheet(view, names, labels=labels, scenario=scenario),
                  game_palette())


def render_draft(
    offer: Sequence[str],
    config: GameConfig,
    *,
    seat: SeatView | None = None,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """The goal tiles offered for the draft (``PrivateView.goal_offer``), numbered 1-4, each
    with its values and an example; with ``seat``, the board showing B3, C4 and D2."""
    return to_png(draw_draft(offer, config, seat=seat, labels=labels))


RULES_TOPICS: tuple[str, ...] = tuple(RULES_PICTURES)


def render_rules(topic: str, *, labels: Mapping[str, str] | None = None) -> bytes:
    """A picture for ``/calico rules`` (``topic`` in :data:`RULES_TOPICS`): ``cats`` (the ten
    cats, points and needs), ``goals`` (the six design goals and their values) or ``buttons``
    (buttons and the rainbow). It shows pieces, not a game: no view needed."""
    if topic not in RULES_PICTURES:
        raise ValueError(f"no rules picture for {topic!r}; one of {', '.join(RULES_TOPICS)}")
    return to_png(RULES_PICTURES[topic](labels))


def render_achievements(
    chart: AchievementChart,
    earned: Collection[str],
    *,
    name: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """A player's achievements chart as a PNG: the progress track (title reached, points,
    the next title and how many points it needs) and every achievement grouped as scenarios,
    normal game and rule restrictions, the ids in ``earned`` filled and ticked. ``chart`` is
    ``catalog.achievements``; ``name`` goes top right; ``labels``: keys of
    :data:`ACHIEVEMENT_LABELS`. Where each row sits: :func:`achievements_layout`."""
    return to_png(draw_achievements(chart, earned, name=name, labels=labels))
