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
