"""Pictures for messages: the renderer called in its own worker threads, with translated labels.

Rendering is CPU work (tens of milliseconds); running it on the event loop would stall every
other game's clicks, so each call goes through :func:`draw`, which runs it in the render pool:
threads of its own (one by default; not asyncio's default pool, which database file checks and
the computers' thread fallback share). Few threads also keep memory down: each render thread
holds its own fonts (FreeType faces cannot be shared between threads) and its own malloc
arena. Only views reach the renderer (public views for everyone, the player's own private view
for their DM), never a ``GameState``: the bag, the seed and other hands cannot end up in a
picture.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Collection, Sequence
from contextvars import ContextVar
from dataclasses import replace
from typing import ParamSpec, TypeVar

import render
from bot.adapter.ui.render_pool import BACKGROUND, URGENT, RenderPool
from bot.words.catalogue import Text
from engine.config import GameConfig
from engine.events import Event, ScenarioResult
from engine.views import PrivateView, PublicView, SeatView

RENDER_LABEL_KEYS = tuple(render.DEFAULT_LABELS)

TURN_PNG = "turn.png"
QUILT_PNG = "quilt.png"
TABLE_PNG = "table.png"
SCORES_PNG = "scores.png"
GOALS_PNG = "goals.png"

P = ParamSpec("P")
R = TypeVar("R")

# The pool's size: CALICO_RENDER_THREADS, set by the client at start (bot/settings.py says why
# one is the default).
RENDER_THREADS = 1
_pool: RenderPool | None = None
# Set while the outbox delivers a notice: its pictures wait behind the answers to clicks.
in_background: ContextVar[bool] = ContextVar("calico_render_background", default=False)


def set_render_threads(threads: int) -> None:
    """Size the render pool; a pool already made at another size is replaced (its threads
    finish what they were given)."""
    global RENDER_THREADS, _pool
    if threads == RENDER_THREADS:
        return
    RENDER_THREADS = max(1, threads)
    if _pool is not None:
        _pool.shutdown()
        _pool = None


async def draw(func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``func(*args, **kwargs)`` in the render pool (made on first use): at once for someone
    waiting on a click, after those for the outbox's posts (:data:`in_background`)."""
    global _pool
    if _pool is None:
        _pool = RenderPool(RENDER_THREADS)
    priority = BACKGROUND if in_background.get() else URGENT
    return await asyncio.wrap_future(_pool.submit(functools.partial(func, *args, **kwargs),
                                                  priority))


async def warm_up() -> None:
    """Draw sample pictures once, behind any real one and one at a time (a click may come in
    between): the first pictures of a process build the fonts and sprite caches (a table took
    320 ms cold, 20 ms warm), and the first players should not wait for that. The samples: a
    seeded two-player game (the most common kind) a few turns in, a turn with a preview, both
    quilts, the table."""
    from engine.config import GameOptions
    from engine.views import private_view, public_view
    from render.samples import best_preview, play_until

    token = in_background.set(True)
    try:
        state = await draw(play_until, GameOptions(players=2), 1, 2 + 8)
        seat = state.current_seat
        assert seat is not None
        preview, legal, source = await draw(best_preview, state)
        await draw(render.render_turn, private_view(state, seat), name="Calico",
                   preview=preview, legal=legal, selected=source)
        pub = public_view(state)
        for quilt in pub.seats:
            await draw(render.render_quilt, quilt, state.config, name="Calico")
        await draw(render.render_table, pub, ["Calico"] * 2)
    finally:
        in_background.reset(token)


RULES_TOPICS = render.RULES_TOPICS  # the /calico rules topics that come with a picture
_rules_cache: dict[tuple[str, str], bytes] = {}


def labels(tr: Text) -> dict[str, str]:
    """The renderer's words in the reader's language (from the ``render.*`` catalogue keys)."""
    return {key: tr(f"render.{key}") for key in RENDER_LABEL_KEYS}


async def turn_image(
    tr: Text,
    view: PrivateView,
    *,
    name: str | None = None,
    preview: tuple[int, int, Sequence[Event]] | None = None,
    legal: Collection[int] | None = None,
    selected: int | None = None,
    highlight: int | None = None,
) -> bytes:
    """The DM picture: the player's quilt, hand and market (with a previewed placement)."""
    pv = None if preview is None else render.Preview(preview[0], preview[1], tuple(preview[2]))
    return await draw(render.render_turn, view, name=name, preview=pv, legal=legal,
                                   selected=selected, highlight=highlight, labels=labels(tr))


async def quilt_image(
    tr: Text, seat: SeatView, config: GameConfig, *, name: str | None = None,
    highlight: int | None = None,
) -> bytes:
    return await draw(render.render_quilt, seat, config, name=name,
                                   highlight=highlight, labels=labels(tr))


async def table_image(tr: Text, view: PublicView, names: Sequence[str]) -> bytes:
    return await draw(render.render_table, view, list(names), labels=labels(tr))


async def scores_image(tr: Text, view: PublicView, names: Sequence[str],
                       scenario: ScenarioResult | None = None) -> bytes:
    """The score sheet; with a solo scenario's result, whether it was passed and each target."""
    return await draw(render.render_scoresheet, view, list(names),
                                   labels=labels(tr), scenario=scenario)


async def draft_image(
    tr: Text, offer: Sequence[str], config: GameConfig, seat: SeatView | None = None,
    goals: tuple[str, str, str] | None = None,
) -> bytes:
    """The goal tiles offered; with ``goals``, the board showing them on B3, C4 and D2."""
    shown = seat if seat is None or goals is None else replace(seat, goals=goals)
    return await draw(render.render_draft, list(offer), config, seat=shown,
                                   labels=labels(tr))


def rules_png_name(topic: str) -> str:
    return f"rules-{topic}.png"


async def rules_image(tr: Text, topic: str) -> bytes:
    """The picture of a ``/calico rules`` topic in the reader's language. It never changes,
    so each (topic, language) is drawn once and kept."""
    key = (topic, tr.lang)
    png = _rules_cache.get(key)
    if png is None:
        png = await draw(render.render_rules, topic, labels=labels(tr))
        _rules_cache[key] = png
    return png
