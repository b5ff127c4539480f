"""The line between the Discord-free core and the discord.py adapter: every module of
``bot.core`` (and the engine, data and pictures it uses) imports without discord.py ever being
loaded, and every adapter module imports on its own first (no import circle)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import bot.adapter
import bot.core

ROOT = Path(__file__).resolve().parents[1]


def modules(package: object) -> list[str]:
    path = package.__path__  # type: ignore[attr-defined]
    prefix = package.__name__ + "."  # type: ignore[attr-defined]
    return sorted(m.name for m in pkgutil.walk_packages(path, prefix))


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_core_never_loads_discord() -> None:
    names = modules(bot.core)
    assert "bot.core.manager" in names and "bot.core.storage.postgres.store" in names
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n"
            "    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m == 'discord' or m.startswith('discord.')))")
    assert run(code) == "[]"


@pytest.mark.parametrize("name", [n for n in modules(bot.adapter) if not n.endswith("__main__")])
def test_each_adapter_module_imports_first(name: str) -> None:
    """Imported first in a fresh interpreter: a circle would fail on a half-made module."""
    assert run(f"import importlib; print(importlib.import_module({name!r}).__name__)") == name


def test_no_package_binds_a_name_its_own_submodule_takes() -> None:
    """Importing a submodule sets it as an attribute of its package: a name the package's
    ``__init__`` binds to something else (``from bot.core.challenge import play as challenge``
    in ``bot.adapter.cogs``, beside the cog ``bot.adapter.cogs.challenge``) is then replaced,
    depending on import order. It happened once (a flaky "something went wrong")."""
    import ast

    clashes = []
    for init in sorted((ROOT / "bot").rglob("__init__.py")):
        package = init.parent
        submodules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"} | {
            p.name for p in package.iterdir() if (p / "__init__.py").exists()}
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom | ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    # ``from pkg.quilt import quilt`` loads the submodule first, then binds
                    # the name for good: no later import can replace it.
                    dotted = ".".join(package.relative_to(ROOT).parts)
                    loads_it_first = isinstance(node, ast.ImportFrom) and \
                        node.module == f"{dotted}.{bound}"
                    if bound in submodules and not loads_it_first:
                        clashes.append(f"{init.relative_to(ROOT)}: {bound}")
    assert clashes == []
