"""The tables in ``tests/conftest.py`` that mark slow tests and give longer time limits name
files and tests that exist: a renamed file or test would otherwise drop silently out of
``slow`` and back into the fast selection."""

from __future__ import annotations

import ast

from tests.conftest import ROOT, SLOW, TIMEOUTS


def defined_names(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_file_in_the_tables_exists() -> None:
    missing = [path for path in [*SLOW, *TIMEOUTS] if not (ROOT / path).is_file()]
    assert not missing, f"tests/conftest.py names files that do not exist: {missing}"


def test_every_slow_name_is_a_test_or_fixture_of_its_file() -> None:
    unknown = {path: sorted(names - defined_names(path))
               for path, names in SLOW.items() if names is not None and (ROOT / path).is_file()}
    assert not any(unknown.values()), f"unknown names in SLOW (tests/conftest.py): {unknown}"
