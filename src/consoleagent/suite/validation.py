"""Loading every task file with the checks that need more than the file's schema, and the checks
across the suite that no single task file can make on its own.

- every task's ``requires:`` plans against its console's Resource META templates (templates,
  attributes, types, references; nothing is created): checked as the files load (``load_all``);
- every task's document exists, parses, and its discrepancies name real changelog entries of a
  release after the document's and up to the task's, at a step the document has;
- splits are disjoint by document (no document feeds two splits);
- every changelog entry that touches a page some document visits appears in some task: this is
  the ground truth documentation verification is scored against, so none may be missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from consoleagent.consoles import UnknownConsole, backend_class
from consoleagent.provisioning.engine import ProvisioningEngine
from consoleagent.provisioning.types import ProvisioningError
from consoleagent.suite import DOCUMENTS_ROOT, TASKS_ROOT
from consoleagent.tasks.spec import LoadedTask, TaskFileError, TaskSpec, load_task_file

DOCUMENT_FIELDS = {"id", "product", "release", "pages"}


def plan_requires(spec: TaskSpec) -> None:
    """Plan the task's ``requires:`` against its console backend's templates (read without starting the
    console); a ValueError names the entry and the field. A task without ``requires`` plans nothing, so
    its console need not be a backend package (a console described by a file has no templates)."""
    if not spec.requires:
        return
    try:
        library = backend_class(spec.console).template_library()
    except UnknownConsole as exc:
        raise ValueError(str(exc)) from None
    try:
        ProvisioningEngine(library).plan(spec.requirements)
    except ProvisioningError as exc:
        raise ValueError(str(exc)) from None


def task_files(root: Path = TASKS_ROOT) -> list[Path]:
    return sorted(Path(root).rglob("*.yaml"))


def load_all(root: Path = TASKS_ROOT) -> list[LoadedTask]:
    """Every task under ``root``, its ``requires`` planned; all broken files are reported together,
    and ids must be unique."""
    loaded, problems = [], []
    for path in task_files(root):
        try:
            item = load_task_file(path)
        except TaskFileError as exc:
            problems.append(str(exc))
            continue
        try:
            plan_requires(item.spec)
        except ValueError as exc:
            problems.append(f"{path}:{item.lines.get('requires', 1)}: requires: {exc}")
            continue
        loaded.append(item)
    seen: dict[str, Path] = {}
    for item in loaded:
        if item.spec.id in seen:
            problems.append(f"{item.path}: id: {item.spec.id!r} is also the id of {seen[item.spec.id]}")
        seen[item.spec.id] = item.path
    if problems:
        raise TaskFileError("\n".join(problems))
    return loaded


@dataclass
class DocumentInfo:
    path: Path
    id: str
    product: str
    release: str
    pages: list[str] = field(default_factory=list)
    steps: int = 0


def front_matter(path: Path) -> dict[str, Any]:
    """A suite document's metadata: YAML front matter, or the rST field list / HTML meta tags of other formats."""
    if path.suffix != ".md":
        from consoleagent.documents import read_metadata

        return read_metadata(path)
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---", 4)
    return yaml.safe_load(text[4:end]) or {} if end > 0 else {}


def load_documents(root: Path = DOCUMENTS_ROOT) -> tuple[dict[str, DocumentInfo], list[str]]:
    """Every suite document by its path under ``root``, and the problems found reading them."""
    from consoleagent.documents import document_paths, load_procedure
    from consoleagent.documents.procedure import ProcedureError

    documents, problems = {}, []
    for path in document_paths(root):
        key = path.relative_to(root).as_posix()
        try:
            meta = front_matter(path)
        except ProcedureError as exc:
            problems.append(str(exc))
            continue
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problems.append(f"{path}:{mark.line + 2 if mark else 1}: front matter is not valid YAML: {getattr(exc, 'problem', exc)}")
            continue
        missing = DOCUMENT_FIELDS - set(meta)
        if missing:
            problems.append(f"{path}:1: front matter lacks {', '.join(sorted(missing))}")
            continue
        try:
            steps = len(load_procedure(str(path)).steps)
        except ProcedureError as exc:
            problems.append(str(exc))
            continue
        documents[key] = DocumentInfo(path, str(meta["id"]), str(meta["product"]), str(meta["release"]),
                                      [str(p) for p in meta["pages"] or []], steps)
    return documents, problems


def suite_problems(tasks_root: Path = TASKS_ROOT, documents_root: Path = DOCUMENTS_ROOT,
                   truth: Any = None) -> list[str]:
    """Problems of the suite against its console's ground truth (``truth``, a ``GroundTruth``;
    default: the stratus backend's release changelog)."""
    if truth is None:
        from consoleagent.consoles import DEFAULT_CONSOLE

        truth = backend_class(DEFAULT_CONSOLE)().ground_truth()
    RELEASES = list(truth.releases)  # noqa: N806 (the releases, oldest first, as the changelog orders them)
    documents, problems = load_documents(documents_root)
    changes = {c.id: c for c in truth.changes}
    loaded = load_all(tasks_root)
    split_of_document: dict[str, tuple[str, str]] = {}
    covered: set[str] = set()
    for item in loaded:
        spec, where = item.spec, f"{item.path}"
        document_key = spec.document.split("#", 1)[0]
        document = documents.get(document_key)
        if document is None:
            problems.append(f"{where}:{item.lines.get('document', 1)}: document: {spec.document!r} is not a suite document")
            continue
        if spec.release not in RELEASES:
            problems.append(f"{where}:{item.lines.get('release', 1)}: release: {spec.release!r} is not one of {', '.join(RELEASES)}")
            continue
        previous = split_of_document.setdefault(document_key, (spec.split, spec.id))
        if previous[0] != spec.split:
            problems.append(f"{where}: split: {spec.split!r}, but {previous[1]} puts the same document in {previous[0]!r}")
        for index, expected in enumerate(spec.discrepancies):
            line = item.lines.get(f"discrepancies.{index}", 1)
            change = changes.get(expected.change)
            if change is None:
                problems.append(f"{where}:{line}: discrepancies[{index}].change: no changelog entry {expected.change!r}")
                continue
            covered.add(change.id)
            if not (RELEASES.index(document.release) < RELEASES.index(change.release) <= RELEASES.index(spec.release)):
                problems.append(f"{where}:{line}: discrepancies[{index}]: {change.id} ({change.release}) is not between the "
                                f"document's release {document.release} and the task's {spec.release}")
            if expected.step > document.steps:
                problems.append(f"{where}:{line}: discrepancies[{index}].step: {expected.step} but the document has "
                                f"{document.steps} steps")
        if spec.release != document.release and not spec.discrepancies and spec.expected == "complete":
            drift = [c.id for c in changes.values() if c.page in document.pages
                     and RELEASES.index(document.release) < RELEASES.index(c.release) <= RELEASES.index(spec.release)]
            if drift:
                problems.append(f"{where}: discrepancies: the task runs on {spec.release} and its document's pages changed "
                                f"({', '.join(drift)}); list the ones its steps meet")
    documented_pages = {page for d in documents.values() for page in d.pages}
    for change in changes.values():
        if change.page in documented_pages and change.id not in covered:
            problems.append(f"changelog {change.id} ({change.source}) changes {change.page}, a documented page, "
                            "but no task expects it as a discrepancy")
    return problems
