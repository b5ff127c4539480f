"""The docs stay true (issue #27): every file path and every dotted module name that
``README.md`` and ``docs/*.md`` give exists, and every module of ``bot/core`` is named in
``docs/architecture.md`` or ``docs/core-api.md``, so that a new module cannot go undocumented.

What counts as a path: text starting with one of the project's folders (``bot/``, ``engine/``,
``tests/``, ``benchmarks/``, ``docs/``...), such as ``bot/core/kernel.py`` or ``tests/e2e/``;
``*`` is a glob, ``{a,b}`` lists alternatives, a trailing ``...`` means "in this folder", and
text with ``<placeholder>`` is skipped. A file a worked example creates is written with
``(new)`` right after it: its nearest existing folder must still be at least two levels deep
(``bot/core``), so a misspelt folder is caught. What counts as a module: a dotted name in
backticks starting with a package of the project (``bot.core.lobby``,
``bot.core.notices.GameOver``, ``bot.core.kernel.Kernel.wait_for``): its longest importable
prefix is imported and the rest looked up as attributes (a dataclass's or a pydantic model's
fields count); a name ending in ``*`` stands for a family and is skipped. Code that uses a
variable named like a package (``bot.kernel``, the adapter's ``bot``) reads as a module here:
say it in words instead. URLs are never read.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
FOLDERS = ("bot", "engine", "render", "data", "tests", "benchmarks", "docs", ".ci")
PACKAGES = ("bot", "engine", "render", "data", "tests", "benchmarks")
MAPS = (ROOT / "docs" / "architecture.md", ROOT / "docs" / "core-api.md")

_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")
_FOLDER = "|".join(re.escape(f) for f in FOLDERS)
_PATH = re.compile(r"(?<![\w./{-])(?:" + _FOLDER + r")/[\w./*{},<>-]*")
_NEW = re.compile(r"`?\s*\(new\)")
_CODE = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"(?<![\w./-])(?:" + "|".join(PACKAGES) + r")(?:\.[A-Za-z_]\w*)+(?![\w*])")


def _expand(text: str) -> list[str]:
    """``a/{b,c}.py`` -> ``a/b.py``, ``a/c.py`` (every brace group)."""
    parts = re.split(r"\{([^{}]*)\}", text)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def paths_in(text: str) -> Iterator[tuple[str, bool]]:
    """(path, marked new) of every path the text names."""
    text = _URL.sub(" ", text)
    for m in _PATH.finditer(text):
        raw = m.group(0).rstrip(",;:")
        if raw.endswith("...") and not raw.endswith("/..."):
            raw = raw[:-3]  # "tests/e2e/..." is the folder; "a sentence ends here." too
        raw = raw.removesuffix("/...").rstrip(".")
        if "<" in raw or ">" in raw:
            continue
        new = bool(_NEW.match(text, m.end()))
        for path in _expand(raw):
            yield path, new


def modules_in(text: str) -> Iterator[str]:
    """Every dotted name of the project's packages written in backticks."""
    for code in _CODE.finditer(_URL.sub(" ", text)):
        for m in _DOTTED.finditer(code.group(1)):
            name = m.group(0)
            if not re.search(r"\.(py|json|md|sql|png|txt|toml)$", name):
                yield name


def path_exists(path: str) -> bool:
    if "*" in path:
        return any(ROOT.glob(path.rstrip("/")))
    return (ROOT / path).exists()


def new_path_placed(path: str) -> bool:
    """A file to be created: its nearest existing folder is at least two levels deep."""
    parent = (ROOT / path).parent
    while not parent.exists():
        parent = parent.parent
    return len(parent.relative_to(ROOT).parts) >= 2


def _has(obj: object, name: str) -> bool:
    if hasattr(obj, name):
        return True
    if isinstance(obj, type):
        if dataclasses.is_dataclass(obj) and name in {f.name for f in dataclasses.fields(obj)}:
            return True
        if name in getattr(obj, "model_fields", {}):
            return True
        return any(name in getattr(c, "__annotations__", {}) for c in obj.__mro__)
    return False


def resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            obj: object = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is not None and module.startswith(e.name):
                continue  # this prefix is not a module: try a shorter one
            raise
        for attr in parts[i:]:
            if not _has(obj, attr):
                return False
            obj = getattr(obj, attr, None)
        return True
    return False


def problems(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    wrong = []
    for path, new in sorted(set(paths_in(text))):
        ok = new_path_placed(path) if new else path_exists(path)
        if not ok:
            wrong.append(f"path {path}" + (" (new: its folder does not exist)" if new else ""))
    for name in sorted(set(modules_in(text))):
        if not resolves(name):
            wrong.append(f"module {name}")
    return wrong


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_and_module_named_exists(doc: Path) -> None:
    assert problems(doc) == []


def test_wrong_names_are_caught(tmp_path: Path) -> None:
    """The checker itself: a wrong path, module or attribute fails; right ones, globs,
    placeholders, new files in real folders and URLs pass."""
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `bot/core/kernel.py`, bot/core/{lobby,turns}.py, `tests/e2e/...`, data/*.json,\n"
        "`bot/core/<feature>/store.py`, https://example.org/bot/nothing.py, `docs/`,\n"
        "`bot/core/hall/store.py` (new), `bot.core.lobby.join`, `bot.core.notices.GameOver`,\n"
        "`bot.core.game.Tx.steps`, `python -m benchmarks.bench_bot`, `render.review_*` keys.\n"
        "Wrong: bot/core/kernal.py, `bot/cor/hall/x.py` (new), `bot.core.lobbies`,\n"
        "`bot.core.notices.GameOvr`, `bot.core.lobby.join.nothing`.\n", encoding="utf-8")
    assert problems(doc) == [
        "path bot/cor/hall/x.py (new: its folder does not exist)",
        "path bot/core/kernal.py",
        "module bot.core.lobbies",
        "module bot.core.lobby.join.nothing",
        "module bot.core.notices.GameOvr",
    ]


def _core_modules() -> list[str]:
    found = []
    for path in sorted((ROOT / "bot" / "core").rglob("*.py")):
        rel = path.relative_to(ROOT)
        if path.name == "__init__.py":
            continue
        found.append(".".join(rel.with_suffix("").parts))
    return found


def test_every_core_module_is_on_the_map() -> None:
    """Each module of ``bot/core`` is named (as ``bot.core.x`` or ``bot/core/x.py``) in
    ``docs/architecture.md`` or ``docs/core-api.md``."""
    named: set[str] = set()
    for doc in MAPS:
        text = doc.read_text(encoding="utf-8")
        named |= {".".join(Path(p).with_suffix("").parts) for p, _ in paths_in(text)
                  if p.endswith(".py")}
        for name in modules_in(text):
            parts = name.split(".")
            named |= {".".join(parts[:i]) for i in range(2, len(parts) + 1)}
    missing = [m for m in _core_modules() if m not in named]
    assert missing == [], "name these in docs/architecture.md or docs/core-api.md"
