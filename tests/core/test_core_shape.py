"""The core's shape (issue 19): the kernel and the flow import no service, no module of the bot
over 600 lines, and the manager a thin facade (under 450 lines). No import circle anywhere is
:mod:`tests.test_import_graph`'s test."""

from __future__ import annotations

from pathlib import Path

from tests.test_import_graph import import_graph

CORE = Path(__file__).resolve().parents[2] / "bot" / "core"
SERVICES = {"lobby", "turns", "leaving", "sweep", "queries", "challenge", "progress",
            "replays", "review", "manager"}


def test_the_kernel_and_the_flow_import_no_service() -> None:
    graph = import_graph()
    assert "bot.core.flow" in graph["bot.core.lobby"]  # the graph sees `from bot.core import x`
    for name in ("bot.core.kernel", "bot.core.flow"):
        core = {m.removeprefix("bot.core.") for m in graph[name] if m.startswith("bot.core.")}
        assert not core & SERVICES, name


def test_modules_stay_small() -> None:
    for path in CORE.parent.rglob("*.py"):
        lines = len(path.read_text().splitlines())
        assert lines <= 600, (str(path.relative_to(CORE.parent)), lines)
    assert len((CORE / "manager.py").read_text().splitlines()) < 450
