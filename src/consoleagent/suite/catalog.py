"""Finding and selecting tasks: ``load_suite("product=vpc difficulty=hard")``, ``load_suite("vpc-create-*")``.

A selector is a list of terms separated by spaces or commas. ``field=value`` terms filter on a task
field (id, product, difficulty, split, release, expected, family; ``value`` may be a glob and may
list alternatives with ``|``) and must all hold; other terms are globs over task ids, of which one
must match. An empty selector selects every task.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from consoleagent.suite import TASKS_ROOT
from consoleagent.suite.validation import load_all, task_files
from consoleagent.tasks.spec import TaskSpec

__all__ = ["FILTER_FIELDS", "SelectorError", "load_all", "load_suite", "select", "shipped_tasks", "task_files"]

FILTER_FIELDS = ("id", "product", "difficulty", "split", "release", "expected", "family")


class SelectorError(ValueError):
    pass


def select(specs: list[TaskSpec], selector: str | None) -> list[TaskSpec]:
    terms = [t for t in re.split(r"[\s,]+", selector or "") if t]
    filters: list[tuple[str, list[str]]] = []
    globs: list[str] = []
    for term in terms:
        if "=" in term:
            key, _, value = term.partition("=")
            if key not in FILTER_FIELDS:
                raise SelectorError(f"task selector {term!r}: unknown field {key!r}; use one of {', '.join(FILTER_FIELDS)}")
            filters.append((key, value.split("|")))
        else:
            globs.append(term)

    def chosen(spec: TaskSpec) -> bool:
        if globs and not any(fnmatch.fnmatchcase(spec.id, g) for g in globs):
            return False
        return all(any(fnmatch.fnmatchcase(str(getattr(spec, key) or ""), v) for v in values) for key, values in filters)

    return [spec for spec in specs if chosen(spec)]


def load_suite(selector: str | None = None, root: Path = TASKS_ROOT) -> list[TaskSpec]:
    """The selected tasks, sorted by id; a selector that selects nothing is an error."""
    specs = sorted((item.spec for item in load_all(root)), key=lambda s: s.id)
    picked = select(specs, selector)
    if selector and not picked:
        raise SelectorError(f"task selector {selector!r} selects none of the {len(specs)} tasks under {root}")
    return picked


def shipped_tasks() -> dict[str, TaskSpec]:
    """Every task file that any console backend ships (stratus's suite, pgAdmin's tasks, ...), by id.

    A teacher collection may come from any console (``collect --console pgadmin``), and training checks each
    episode's task, its split above all, against its spec; ids are unique across consoles, so one map serves
    them all, and a clash is refused rather than letting one console's task shadow another's."""
    from consoleagent.consoles import backend_names, tasks_root_of

    specs: dict[str, TaskSpec] = {}
    owners: dict[str, str] = {}
    for console in backend_names():
        root = tasks_root_of(console)
        if root is None or not root.is_dir():
            continue
        for spec in load_suite(None, root):
            if spec.id in owners:
                raise ValueError(f"task id {spec.id!r} is shipped by two consoles ({owners[spec.id]}, {console})")
            specs[spec.id], owners[spec.id] = spec, console
    return specs
