"""Which parts of the core each outer layer may use (issue #27), read from the source's own
imports (``TYPE_CHECKING`` and function-level ones included):

- ``bot/words`` speaks about plain values only: it may import the core's value modules (the
  models, the notices, each feature's ``model``) and nothing else of ``bot.core``; importing any
  words module loads no kernel, flow, storage, outbox, worker or manager module (checked in a
  fresh interpreter, so that a value module that imports a service is caught too);
- ``bot/adapter`` calls each feature's service module with the kernel (the front door,
  ``docs/architecture.md``): it may import the service modules, the value modules, the
  composition root, the outbox's delivery contract and a few plain helpers, never the flow,
  the kernel's parts, the storage, the hooks or a feature's storage; and it treats the kernel as
  a handle it passes on: no adapter code reads a member of it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.test_import_graph import import_graph

ROOT = Path(__file__).resolve().parents[1]

VALUES = {
    "bot.core.models", "bot.core.notices", "bot.core.challenge.model",
    "bot.core.progress.model", "bot.core.review.model", "bot.core.tournament.model",
    "bot.core.tournament.pairing",  # tournament arithmetic: pure functions of values
    "bot.core.clock",  # times as stored (ms) and shown (datetimes)
    "bot.core.folding",  # which notices one post shows: pure functions of notices
    "bot.core.site.model",  # the web site's values: a game's public steps, rating points
}
SERVICES = {
    "bot.core.lobby", "bot.core.turns", "bot.core.leaving", "bot.core.queries",
    "bot.core.replays", "bot.core.servers", "bot.core.challenge.play",
    "bot.core.progress.achievements", "bot.core.progress.ratings", "bot.core.review.service",
    "bot.core.tournament.records", "bot.core.tournament.signup", "bot.core.site.service",
}
# What the adapter needs beside the services: the composition root and the kernel as a type,
# the outbox's contract with a delivery, crash points for the crash tests, the cooldowns'
# counting, time, the computers' pool and the sweep loop the client runs.
PLUMBING = {
    "bot.core.manager", "bot.core.kernel", "bot.core.outbox", "bot.core.faults",
    "bot.core.limits", "bot.core.clock", "bot.core.config", "bot.core.computers",
    "bot.core.timers",
}
ADAPTER_MAY = VALUES | SERVICES | PLUMBING
# Loaded by no words module, even indirectly.
CORE_INTERNALS = ("bot.core.kernel", "bot.core.flow", "bot.core.storage", "bot.core.outbox",
                  "bot.core.workers", "bot.core.manager", "bot.core.hooks", "bot.core.thinking")


def core_imports(prefix: str) -> dict[str, set[str]]:
    graph = import_graph()
    return {module: {m for m in edges if m.startswith("bot.core")}
            for module, edges in graph.items() if module.startswith(prefix)}


def test_the_words_import_only_plain_values_of_the_core() -> None:
    used = core_imports("bot.words")
    assert used, "the graph sees bot.words"
    wrong = {module: sorted(edges - VALUES - {"bot.core"}) for module, edges in used.items()
             if edges - VALUES - {"bot.core"}}
    assert wrong == {}


def test_importing_the_words_loads_no_core_internals() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        "import bot.words as w\n"
        "for m in pkgutil.walk_packages(w.__path__, 'bot.words.'):\n"
        "    importlib.import_module(m.name)\n"
        f"print(sorted(m for m in sys.modules if m.startswith({CORE_INTERNALS!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_value_modules_import_no_service() -> None:
    """What the words and pictures read stays plain: a value module imports only other value
    modules of the core (and the engine, data and pydantic)."""
    graph = import_graph()
    for module in VALUES:
        assert graph[module] & {m for m in graph if m.startswith("bot.core")} <= VALUES, module


def test_the_adapter_uses_the_core_through_its_front_door() -> None:
    used = core_imports("bot.adapter")
    assert used, "the graph sees bot.adapter"
    wrong = {module: sorted(edges - ADAPTER_MAY - {"bot.core"})
             for module, edges in used.items() if edges - ADAPTER_MAY - {"bot.core"}}
    assert wrong == {}
    # Every allowed module exists (a rename would make the list silently wider).
    graph = import_graph()
    assert set(graph) >= ADAPTER_MAY


def test_the_adapter_passes_the_kernel_on_and_reads_nothing_of_it() -> None:
    """The kernel is the core's handle: the adapter hands it to service functions and never
    reads a member of it (``kernel.store``, ``bot.kernel.now()``...). What it needs is a
    service's answer."""
    found = []
    for path in sorted((ROOT / "bot" / "adapter").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            inner = node.value
            named = (isinstance(inner, ast.Name) and inner.id == "kernel") or (
                isinstance(inner, ast.Attribute) and inner.attr == "kernel")
            if named:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert found == []


def test_only_the_kernel_type_comes_from_the_kernel_module() -> None:
    names = set()
    for path in (ROOT / "bot" / "adapter").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "bot.core.kernel":
                names |= {a.name for a in node.names}
    assert names == {"Kernel"}


def test_the_web_site_uses_the_core_as_the_adapter_does_and_never_discord() -> None:
    """``bot/web`` reads the core through the services with the kernel, like the adapter;
    it imports neither discord nor the adapter, and the adapter uses only its signed links and
    its listener (on the bot's loop, or the child process serving it)."""
    graph = import_graph()
    web = {m: e for m, e in graph.items() if m.startswith("bot.web")}
    assert "bot.web.pages" in web
    wrong = {m: sorted(e - ADAPTER_MAY - {"bot.core"}) for m, e in web.items()
             if {x for x in e if x.startswith("bot.core")} - ADAPTER_MAY - {"bot.core"}}
    assert wrong == {}
    outer = {m: sorted(x for x in e if x.startswith("bot.adapter")) for m, e in web.items()}
    assert all(not v for v in outer.values()), outer
    code = ("import importlib, pkgutil, sys\n"
            "import bot.web as w\n"
            "for m in pkgutil.walk_packages(w.__path__, 'bot.web.'):\n"
            "    importlib.import_module(m.name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'discord'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    used = {x for m, e in graph.items() if m.startswith("bot.adapter") for x in e
            if x.startswith("bot.web")}
    assert used <= {"bot.web", "bot.web.links", "bot.web.app", "bot.web.process"}
    found = []
    for path in sorted((ROOT / "bot" / "web").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "kernel" and node.attr != "kernel":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert found == []
