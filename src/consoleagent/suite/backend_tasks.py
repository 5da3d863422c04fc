"""Checks of a console backend's own task files (those under its package's ``tasks/``).

A third-party console has no release changelog, so these are the checks that remain from the
stratus suite's (``consoleagent.suite.validation``): every file validates (schema, reward rule,
oracle, ``requires`` against the backend's templates), names the backend as its console and its
release pin as its release, follows a document that exists and parses, and no document feeds two
splits.
"""

from __future__ import annotations

from typing import Any

from consoleagent.suite.validation import load_all
from consoleagent.tasks.spec import LoadedTask, TaskFileError


def load_backend_tasks(backend: Any) -> list[LoadedTask]:
    """The backend's task files, validated one by one (all problems raised together)."""
    root = backend.tasks_root
    if root is None or not root.exists():
        return []
    return load_all(root)


def suite_problems(backend: Any) -> tuple[list[str], int]:
    """(problems, number of tasks) for a backend class or instance."""
    try:
        loaded = load_backend_tasks(_instance(backend))
    except TaskFileError as exc:
        return str(exc).splitlines(), 0
    documents_root = _instance(backend).documents_root
    problems: list[str] = []
    split_of_document: dict[str, tuple[str, str]] = {}
    for item in loaded:
        spec, where = item.spec, str(item.path)
        if spec.console != backend.name:
            problems.append(f"{where}:{item.lines.get('console', 1)}: console: {spec.console!r}, but the file is one of "
                            f"the {backend.name!r} console's tasks")
        if spec.release != backend.release:
            problems.append(f"{where}:{item.lines.get('release', 1)}: release: {spec.release!r}, but the {backend.name} "
                            f"backend runs release {backend.release!r}")
        document = spec.document.split("#", 1)[0]
        if not (documents_root / document).is_file():
            problems.append(f"{where}:{item.lines.get('document', 1)}: document: {spec.document!r} is not a file under "
                            f"{documents_root}")
        else:
            problems += _procedure_problem(item, documents_root)
        previous = split_of_document.setdefault(document, (spec.split, spec.id))
        if previous[0] != spec.split:
            problems.append(f"{where}: split: {spec.split!r}, but {previous[1]} puts the same document in {previous[0]!r}")
    return problems, len(loaded)


def _procedure_problem(item: LoadedTask, documents_root: Any) -> list[str]:
    from consoleagent.documents import ProcedureError

    try:
        item.spec.procedure(documents_root)
    except (ProcedureError, ValueError) as exc:
        return [f"{item.path}:{item.lines.get('document', 1)}: document: {exc}"]
    return []


def _instance(backend: Any) -> Any:
    """Task roots are properties; a class is instantiated without starting anything."""
    return backend() if isinstance(backend, type) else backend
