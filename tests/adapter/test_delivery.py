"""Every notice the core may queue has one way to Discord: a message builder (a notice about a
game, :data:`bot.adapter.ui.notices.BUILDERS`), a channel poster (a notice about no game,
:data:`bot.adapter.delivery.CHANNEL`), or the delivery's own handling (opening the thread; a
payload that no longer reads is skipped). A new kind without one fails here. And what cannot
or should no longer be shown is skipped without reaching Discord."""

from __future__ import annotations

import importlib
import pkgutil
from datetime import UTC, datetime
from typing import Any

import pytest

import bot.adapter
import bot.core
from bot.adapter.delivery import CHANNEL, DiscordDelivery
from bot.adapter.locales import LocaleSource
from bot.adapter.pacing import Pacer
from bot.adapter.ui.notices import BUILDERS, PARTS
from bot.core import lobby, queries, turns
from bot.core.manager import Manager
from bot.core.notices import Notice, NoticeKind, OpenThread, Part, Unreadable, kinds
from bot.core.outbox import SKIPPED
from tests.core.conftest import BOB, any_move, new_game

for _package in (bot.core, bot.adapter):  # every kind and route declared anywhere
    for _module in pkgutil.walk_packages(_package.__path__, f"{_package.__name__}."):
        importlib.import_module(_module.name)

#: Handled by the delivery itself: the thread is opened, not posted to; an unreadable payload
#: is skipped.
OWN = {OpenThread, Unreadable}


def declared_parts() -> set[type[Part]]:
    found: set[type[Part]] = set()
    todo = list(Part.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if "key" in vars(cls):  # declared with declare_part (a test's stand-in is not)
            found.add(cls)
    return found


@pytest.mark.parametrize("kind", sorted(kinds()))
def test_every_kind_has_exactly_one_route(kind: str) -> None:
    cls = kinds()[kind]
    routes = [cls in BUILDERS, cls in CHANNEL, cls in OWN]
    assert routes.count(True) == 1, (kind, routes)


def test_no_route_is_left_for_a_kind_that_is_not_declared() -> None:
    declared = set(kinds().values())
    assert set(BUILDERS) <= declared and set(CHANNEL) <= declared
    assert Unreadable not in declared  # never written, only read
    assert declared_parts() == set(PARTS)  # each score-sheet part is drawn too


class NoDiscord:
    """The delivery's app: the core, the locales, and no Discord at all."""

    def __init__(self, m: Manager) -> None:
        self.kernel = m.kernel
        self.locales = LocaleSource(m.kernel)
        self.pacer = Pacer()  # the rate limits as heard: nothing yet (no request made)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the delivery reached Discord ({name})")


def notice(game_id: int, kind: str, payload: str, user_id: int | None = None,
           ply: int = 0) -> Notice:
    return Notice(id=1, game_id=game_id, kind=kind, user_id=user_id, ply=ply, payload=payload,
                  key=f"{game_id}.1.0", attempts=0, created_at=datetime(2026, 1, 1, tzinfo=UTC),
                  guild_id=500, channel_id=600, thread_id=700)


async def test_what_cannot_or_should_no_longer_be_shown_is_skipped(manager: Manager) -> None:
    g = await new_game(manager, people=(BOB,), setup="beginner", first="pet", start=False)
    await lobby.claim_first(manager.kernel, g.id, BOB.id)
    g = await lobby.start(manager.kernel, g.id, g.host_id)  # Bob's turn prompt is queued
    delivery = DiscordDelivery(NoDiscord(manager))  # type: ignore[arg-type]
    [prompt] = [n for n in await manager.store.notices(g.id)
                if n.kind == NoticeKind.TURN_PROMPT]
    assert prompt.user_id == BOB.id
    await turns.play_turn(manager.kernel, g.id, BOB.id, g.ply, any_move(g, BOB.id))
    assert (await queries.game(manager.kernel, g.id)).ply > prompt.ply
    for skipped in (
        prompt,  # its turn was played meanwhile: an old prompt would only mislead
        notice(g.id, "no_such_kind", "{}"),
        notice(g.id, NoticeKind.TURN_PROMPT, '{"seat":"first"}', user_id=BOB.id),
        notice(0, "no_such_kind", "{}"),  # about no game, unreadable
        notice(g.id + 100, NoticeKind.ENDED, "{}"),  # the game is gone
    ):
        assert await delivery.deliver(skipped) == SKIPPED, skipped.kind
