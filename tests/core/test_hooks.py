"""How features plug into the flow (:mod:`bot.core.hooks`): they run in the order they were
registered; one that fails at a game's end is logged, what it added is taken back and the game
still ends with the others' parts; a failing periodic job holds nobody; a name is registered
once; and the kernel and the flow reach no feature, however indirectly."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.core import flow
from bot.core.game import Tx, unborn
from bot.core.hooks import Ending, Feature, Hooks, Life, MemberLeft
from bot.core.manager import FEATURES, Manager
from bot.core.models import GameStatus, LobbyOptions
from bot.core.notices import Ended, GameOver, Part
from bot.core.progress.model import Progress
from bot.core.storage import SeatRow
from bot.core.storage.sql import SET_STATE
from bot.core.storage.steps import Plan, execute
from engine.events import GameOver as EngineOver
from engine.rules import legal_moves
from tests.core.conftest import ANN, BOB, new_game, to_last_move
from tests.test_import_graph import import_graph

ENDING = Ending((), EngineOver(totals=(1,), places=(1,), winners=(0,), decided_by="score"))


class Said(Part):
    def __init__(self, who: str) -> None:
        self.who = who


def write_state(key: str) -> Any:
    """A feature's step: one row of its own, in the game's transaction."""
    def step(game_id: int) -> Plan[None]:
        yield from execute(SET_STATE, key, str(game_id), 0)

    return step


def tx() -> Tx:
    g = unborn(guild_id=1, channel_id=2, host_id=ANN.id, options=LobbyOptions(players=1),
               seats=(SeatRow(0, ANN.id, ANN.name),), now=0)
    return Tx(old=g, g=g, now=0, dm_closed=lambda _: False)


def saying(name: str, calls: list[str], *, fail: bool = False, part: bool = True) -> Feature[Any]:
    async def game_over(_k: Any, t: Tx, _e: Ending) -> Part | None:
        calls.append(name)
        t.thread(Ended(reason=name))
        t.steps.append(write_state(name))
        if fail:
            raise RuntimeError(f"{name} broke")
        return Said(name) if part else None

    async def sweep(_k: Any, now: int) -> int:
        calls.append(name)
        if fail:
            raise RuntimeError(f"{name} broke")
        return now if part else 0

    return Feature(name, game_over=game_over, sweep=sweep)


async def test_features_run_in_the_order_they_were_registered(
        caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []
    hooks: Hooks[None] = Hooks()
    for f in (saying("b", calls), Feature("quiet"), saying("a", calls, part=False),
              saying("c", calls)):
        hooks.add(f)
    with caplog.at_level(logging.ERROR, "calico.hooks"):
        parts = await hooks.game_over(None, tx(), ENDING)
        assert calls == ["b", "a", "c"]
        assert [p.who for p in parts] == ["b", "c"]  # type: ignore[attr-defined]
        calls.clear()
        assert await hooks.sweep(None, 5) == {"b": 5, "c": 5}  # only those that did something
        assert calls == ["b", "a", "c"]
    assert caplog.records == []  # a feature without a hook is passed over, not called


async def test_a_failing_end_is_logged_and_what_it_added_taken_back(
        caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []
    hooks: Hooks[None] = Hooks()
    hooks.add(saying("first", calls))
    hooks.add(saying("broken", calls, fail=True))
    hooks.add(saying("last", calls))
    t = tx()
    t.thread(Ended(reason="the move's own"))
    with caplog.at_level(logging.ERROR, "calico.hooks"):
        parts = await hooks.game_over(None, t, ENDING)
    assert [p.who for p in parts] == ["first", "last"]  # type: ignore[attr-defined]
    assert [body.reason for body, _ in t.notices] == [  # type: ignore[attr-defined]
        "the move's own", "first", "last"]
    assert len(t.steps) == 2
    [record] = caplog.records
    assert "broken" in record.getMessage() and record.exc_info is not None


async def test_a_failing_periodic_job_holds_none_of_the_others(
        caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []
    hooks: Hooks[None] = Hooks()
    for f in (saying("broken", calls, fail=True), saying("after", calls)):
        hooks.add(f)
    with caplog.at_level(logging.ERROR, "calico.hooks"):
        assert await hooks.sweep(None, 3) == {"after": 3}
    assert calls == ["broken", "after"]
    assert "broken" in caplog.records[0].getMessage()


async def test_a_failing_life_hook_holds_none_of_the_others(
        caplog: pytest.LogCaptureFixture) -> None:
    """Discord's life (issue #28: a channel gone, a member leaving...) reaches every feature;
    one failing is logged and the others still hear of it."""
    heard: list[str] = []

    async def broken(_k: Any, event: Life) -> int:
        raise RuntimeError("broken")

    async def fine(_k: Any, event: Life) -> int:
        heard.append(type(event).__name__)
        return 2

    hooks: Hooks[None] = Hooks()
    hooks.add(Feature("broken", life=broken))
    hooks.add(Feature("fine", life=fine))
    with caplog.at_level(logging.ERROR, "calico.hooks"):
        assert await hooks.life(None, MemberLeft(1, 2)) == {"fine": 2}
    assert heard == ["MemberLeft"]
    assert "broken" in caplog.records[0].getMessage() or caplog.records[0].exc_info


def test_a_name_is_registered_once() -> None:
    hooks: Hooks[None] = Hooks()
    hooks.add(Feature("cup"))
    with pytest.raises(ValueError, match="cup"):
        hooks.add(Feature("cup", sweep=saying("x", []).sweep))
    assert [f.name for f in hooks.features] == ["cup"]


async def test_a_game_ends_whole_when_a_feature_fails_at_its_end(
        sqlite_manager: Manager, caplog: pytest.LogCaptureFixture) -> None:
    """Through the real flow and storage: the broken feature's step is not stored, the game
    ends with its results and the registered features' parts."""
    m, k = sqlite_manager, sqlite_manager.kernel
    k.hooks.add(saying("broken", [], fail=True))
    k.hooks.add(saying("fine", [], part=False))
    g = await to_last_move(m, await new_game(m, people=(BOB,), setup="beginner"))
    live = await k.load(g.id)
    assert live.state is not None and live.state.current_seat is not None
    seat = live.state.current_seat
    with caplog.at_level(logging.ERROR, "calico.hooks"):
        over, _ = await flow.apply_move(k, live, seat, legal_moves(live.state, seat)[0], "user")
    assert over.status is GameStatus.OVER
    assert len(await m.store.results(g.id)) == 2
    assert await m.store.get_state("broken") is None
    assert await m.store.get_state("fine") == str(g.id)
    [sheet] = [n.body for n in await m.store.notices(g.id) if isinstance(n.body, GameOver)]
    assert isinstance(sheet, GameOver) and sheet.part(Progress) is not None
    said = [n.body.reason for n in await m.store.notices(g.id) if isinstance(n.body, Ended)]
    assert said == ["fine"]
    assert any("broken" in r.getMessage() for r in caplog.records)


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_kernel_and_the_flow_reach_no_feature() -> None:
    """Not even through another module (``TYPE_CHECKING`` imports count too)."""
    graph = import_graph()
    packages = {f"bot.core.{f.name}" for f in FEATURES} | {"bot.core.review"}
    assert {"bot.core.progress", "bot.core.challenge", "bot.core.tournament"} <= packages
    assert all(p in graph for p in packages)
    for module in ("bot.core.kernel", "bot.core.flow", "bot.core.hooks"):
        reached = _reached(graph, module)
        assert "bot.core.storage" in reached  # the walk does go somewhere
        features = {r for r in reached if any(r == p or r.startswith(p + ".") for p in packages)}
        assert not features, (module, sorted(features))
