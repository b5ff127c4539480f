"""The core's shape (issues 19 and 27): the kernel, the flow and the hooks name no service and
no feature (features plug in through :mod:`bot.core.hooks`, registered by the composition
root), every module of the bot stays under 450 lines, and the composition root stays small.
No import circle anywhere is :mod:`tests.test_import_graph`'s test; which parts of the core the
adapter and the words may use is :mod:`tests.test_boundaries`'."""

from __future__ import annotations

from pathlib import Path

from tests.test_import_graph import import_graph

BOT = Path(__file__).resolve().parents[2] / "bot"
CORE = BOT / "core"
SERVICES = {"bot.core.lobby", "bot.core.turns", "bot.core.leaving", "bot.core.sweep",
            "bot.core.queries", "bot.core.replays", "bot.core.manager"}
FEATURES = ("bot.core.challenge", "bot.core.progress", "bot.core.review",
            "bot.core.tournament", "bot.core.site")
PLUMBING = ("bot.core.kernel", "bot.core.flow", "bot.core.hooks", "bot.core.game",
            "bot.core.cache", "bot.core.notices", "bot.core.outbox", "bot.core.storage")


def test_every_feature_is_a_package_with_its_hooks() -> None:
    graph = import_graph()
    for feature in FEATURES:
        assert (CORE / feature.rsplit(".", 1)[1] / "__init__.py").exists(), feature
    assert {f"{f}.feature" for f in FEATURES if f != "bot.core.review"} <= set(graph)
    # The composition root is the one place that lists them.
    listed = {m for m in graph["bot.core.manager"] if m.endswith(".feature")}
    assert listed == {"bot.core.challenge.feature", "bot.core.progress.feature",
                      "bot.core.tournament.feature", "bot.core.site.feature"}


def test_the_plumbing_names_no_service_and_no_feature() -> None:
    graph = import_graph()
    assert "bot.core.flow" in graph["bot.core.lobby"]  # the graph sees `from bot.core import x`
    for name, edges in graph.items():
        if not name.startswith(PLUMBING):
            continue
        wrong = {m for m in edges if m in SERVICES or m.startswith(FEATURES)}
        assert not wrong, (name, sorted(wrong))


def test_modules_stay_small() -> None:
    for path in BOT.rglob("*.py"):
        lines = len(path.read_text().splitlines())
        assert lines < 450, (str(path.relative_to(BOT.parent)), lines)
    assert len((CORE / "manager.py").read_text().splitlines()) < 160
