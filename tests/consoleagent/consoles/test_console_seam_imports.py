"""The console seam's rule, checked on the source: only the stratus backend reaches stratus.

"Adding a console means adding one package under consoleagent/consoles/ and nothing else" holds
only if the core never reaches into a console itself. For stratus (the console this project ships)
that is checkable: every module of ``src/consoleagent`` is parsed with ``ast`` and any import of
``stratus`` outside ``consoles/stratus/`` (and ``adapters/stratus.py``, the adapter that backend
wraps) fails the test, naming the module and the line. Imports inside functions count, and so do
``importlib.import_module("stratus...")`` and ``__import__("stratus...")`` with a literal name.
"""

from __future__ import annotations

from tests import ROOT
import ast
from pathlib import Path

import pytest

SOURCE = ROOT / "src" / "consoleagent"
ALLOWED = (SOURCE / "consoles" / "stratus", SOURCE / "adapters" / "stratus.py")


def _is_stratus(module: str | None) -> bool:
    return module is not None and (module == "stratus" or module.startswith("stratus."))


def stratus_imports(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """Every (line, statement) of ``source`` that imports stratus, wherever it sits in the module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if _is_stratus(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and _is_stratus(node.module):
                found.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str) \
                    and _is_stratus(node.args[0].value):
                found.append((node.lineno, f"{name}({node.args[0].value!r})"))
    return sorted(found)


def _allowed(path: Path) -> bool:
    return any(path == allowed or allowed in path.parents for allowed in ALLOWED)


def test_the_scanner_finds_every_form_of_import() -> None:
    source = """
import os, stratus.sdk
from stratus.releases import changelog
from consoleagent.stratusish import x
from . import stratus

def later():
    from stratus import app
    import importlib
    importlib.import_module("stratus.cli")
    __import__("stratus")
"""
    assert [line for line, _ in stratus_imports(source)] == [2, 3, 8, 10, 11]


def test_only_the_stratus_backend_imports_stratus() -> None:
    modules = sorted(SOURCE.rglob("*.py"))
    assert len(modules) > 100, f"found only {len(modules)} modules under {SOURCE}"
    offenders = [f"{path.relative_to(SOURCE.parent)}:{line}: {statement}"
                 for path in modules if not _allowed(path)
                 for line, statement in stratus_imports(path.read_text(encoding="utf-8"), str(path))]
    if offenders:
        pytest.fail("stratus is imported outside consoles/stratus/ (move the stratus-specific piece behind the "
                    "stratus backend):\n" + "\n".join(offenders))
