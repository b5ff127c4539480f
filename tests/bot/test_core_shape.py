"""The core's shape (issue 19): no import circle inside ``bot.core`` (``TYPE_CHECKING`` and
function-local imports count too), the kernel imports no service, no module outside storage
over 600 lines, and the manager a thin facade (under 450 lines)."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "bot" / "core"
SERVICES = {"lobby", "turns", "leaving", "sweep", "queries", "challenge", "progress",
            "replays", "review", "manager"}


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every ``bot.core`` module and the ``bot.core`` modules it imports (anywhere in it)."""
    paths = {module_name(p): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in paths}
    for name, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    whole = f"{node.module}.{alias.name}"
                    target = whole if whole in paths else node.module
                    if target in paths and target != name:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names
                                   if a.name in paths and a.name != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_in_the_core() -> None:
    graph = import_graph()
    assert "bot.core.flow" in graph["bot.core.lobby"]  # the graph sees `from bot.core import x`
    assert circles(graph) == []


def test_the_kernel_and_the_flow_import_no_service() -> None:
    graph = import_graph()
    for name in ("bot.core.kernel", "bot.core.flow"):
        assert not {m.rsplit(".", 1)[1] for m in graph[name]} & SERVICES, name


def test_modules_stay_small() -> None:
    for path in CORE.glob("*.py"):
        lines = len(path.read_text().splitlines())
        assert lines <= 600, (path.name, lines)
    assert len((CORE / "manager.py").read_text().splitlines()) < 450
