"""The words package stays pure: every module of ``bot.words`` imports without discord.py."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import bot.words

ROOT = Path(__file__).resolve().parents[2]


def test_the_words_never_load_discord() -> None:
    names = sorted(m.name for m in pkgutil.walk_packages(bot.words.__path__, "bot.words."))
    assert "bot.words.describe.pictures" in names and "bot.words.catalogue" in names
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n"
            "    importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m == 'discord' or m.startswith('discord.')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_words_module_is_over_600_lines() -> None:
    for path in Path(bot.words.__path__[0]).rglob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 600, path
