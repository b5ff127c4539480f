"""No import circles between the project's modules, ``TYPE_CHECKING`` imports included.

Every module under ``bot/``, ``engine/``, ``render/`` and ``data/`` is parsed with :mod:`ast`
(never imported): every ``import`` and ``from … import`` statement counts, wherever it is
(module level, ``if TYPE_CHECKING:``, inside a function). The edges of the graph:

- ``import a.b.c`` -> ``a.b.c``;
- ``from a.b import c`` -> ``a.b.c`` when that is a module, else ``a.b`` (a name defined or
  re-exported by the package's ``__init__``);
- relative imports are resolved against the importing module's package first.

Only the project's own modules are nodes. A circle is a strongly connected component of more
than one module (or a module importing itself); the test lists each one with one concrete path
round it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "engine", "render", "data")

Graph = dict[str, set[str]]


def find_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under the given top-level folders."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _base(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module a ``from`` statement names (``level`` dots, then ``name``)."""
    if level == 0:
        return name or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    anchor = package[: len(package) - (level - 1)] if level > 1 else package
    return ".".join([*anchor, *([name] if name else [])])


def imports_of(module: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The project modules ``module`` imports anywhere in its file (see the module docstring)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _deepest_known(alias.name, known)
                if target:
                    out.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                if sub in known:
                    out.add(sub)
                elif base in known:
                    out.add(base)
                else:
                    target = _deepest_known(base, known)
                    if target:
                        out.add(target)
    out.discard(module)
    return out


def _deepest_known(dotted: str, known: Mapping[str, Path]) -> str | None:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> Graph:
    known = find_modules(root, packages)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def strongly_connected(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): every component, each sorted, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = []
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work.append((start, iter(sorted(graph.get(start, ())))))
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return sorted(components, key=lambda c: (-len(c), c))


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The components that are circles: more than one module, or a module importing itself."""
    return [c for c in strongly_connected(graph)
            if len(c) > 1 or c[0] in graph.get(c[0], set())]


def path_round(graph: Mapping[str, set[str]], component: list[str]) -> list[str]:
    """One circle through the component's first module, as ``[a, b, …, a]`` (shortest, by BFS
    inside the component)."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    route = [start]
                    while node != start:
                        route.append(node)
                        node = previous[node]
                    return [start, *reversed(route[1:]), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return [start]


def describe(graph: Mapping[str, set[str]]) -> str:
    lines = []
    for component in cycles(graph):
        lines.append(f"{len(component)} modules: {', '.join(component)}")
        lines.append("    e.g. " + " -> ".join(path_round(graph, component)))
        members = set(component)
        lines.extend(f"    {m} imports {', '.join(sorted(graph[m] & members))}"
                     for m in component)
    return "\n".join(lines)


def test_the_graph_sees_the_project() -> None:
    """The parser finds the modules and resolves the three kinds of edge (a guard for the test
    below, which would pass vacuously on an empty graph)."""
    graph = import_graph()
    assert len(graph) > 100
    assert "bot.core.models" in graph["bot.core.lobby"]  # from bot.core.models import …
    assert any(m.startswith("engine.") for m in graph["bot.core.flow"])
    assert all(not m.startswith("discord") for edges in graph.values() for m in edges)


def test_edges_resolve_relative_package_and_type_checking_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "pkg/__init__.py": "from .a import thing\n",
        "pkg/a.py": "thing = 1\n"
                    "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from pkg.sub import b\n",
        "pkg/sub/__init__.py": "NAME = 1\n",
        "pkg/sub/b.py": "def f():\n    from .. import thing\n    from . import NAME\n"
                        "    import pkg.sub.c\n",
        "pkg/sub/c.py": "from ..sub import b as _b\nimport os\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path, ["pkg"])
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.sub.b"},  # from pkg.sub import b: the submodule, not the package
        "pkg.sub": set(),
        "pkg.sub.b": {"pkg", "pkg.sub", "pkg.sub.c"},  # a name of pkg, a name of pkg.sub
        "pkg.sub.c": {"pkg.sub.b"},
    }
    assert cycles(graph) == [["pkg", "pkg.a", "pkg.sub.b", "pkg.sub.c"]]
    assert path_round(graph, ["pkg", "pkg.a", "pkg.sub.b", "pkg.sub.c"]) == [
        "pkg", "pkg.a", "pkg.sub.b", "pkg"]
    assert path_round(graph, ["pkg.sub.b", "pkg.sub.c"]) == ["pkg.sub.b", "pkg.sub.c",
                                                             "pkg.sub.b"]


def test_no_import_circles() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import circles (TYPE_CHECKING imports included):\n" + describe(graph)
