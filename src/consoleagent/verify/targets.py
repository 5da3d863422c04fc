"""What to verify: documents on the command line → procedures → the task that exercises each.

A procedure needs three things the document alone cannot give: a concrete goal (the document's
examples are only examples), the resources its prerequisites assume, and a rule that says from the
audit log whether the goal was reached. A task file of the suite gives all three, so a procedure
with one uses it (the one on the release being verified first, a completable one first). A
procedure without one gets its title as the goal, its Prerequisites provisioned by ResourceCoder's
offline matcher, and an outcome check from its goal (``verify.outcome``): a successful console
write whose event is one of the write actions matching the goal's verb and resource, never a read.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from consoleagent.documents import Document, Procedure, ProcedureError, document_paths, load_document
from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.suite.validation import front_matter
from consoleagent.documents.labels import bold_labels
from consoleagent.verify.outcome import goal_outcome_regex
from consoleagent.tasks.spec import TaskSpec

# The verbs of state-changing console calls (stratus's API names; a backend may name its own as
# ``write_event``): a procedure without a reward rule must cause one of these.
WRITE_EVENT = (r"(Create|Delete|Modify|Allocate|Release|Associate|Unassociate|Attach|Detach|Start|Stop|Reboot|Run|Add|"
               r"Remove|Authorize|Revoke|Reset|Import|Set|Update|Resize|Replace|Copy|Rollback|Join|Leave|Bind|Unbind|"
               r"Renew|Enable|Disable|Apply|Reinit|Change|Convert|Tag|Untag)[A-Za-z]*")


class VerifyInputError(ValueError):
    """A path on the command line that is not a document or a folder of documents."""


@dataclass
class Target:
    """One procedure to verify and the task spec the rollout system runs for it."""

    key: str  # the task id the episodes run under (unique within a run)
    document: Document
    path: str  # the document's path as given
    procedure: Procedure
    spec: TaskSpec
    task: str | None  # the suite task it came from, if any
    origin: TaskSpec | None  # that task as the suite has it (its release and discrepancies: the ground truth)
    outcome_source: Literal["rule", "agent"]

    @property
    def procedure_id(self) -> str:
        return f"{self.document.id}#{self.procedure.id}"


@dataclass
class Plan:
    targets: list[Target]
    documents: list[tuple[str, Document | None, str | None]]  # (path, parsed document or None, error)


def document_files(paths: list[Path]) -> list[Path]:
    """The documents named, folders searched recursively (Markdown, reStructuredText, HTML); sorted, each once."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += document_paths(path)
        elif path.is_file():
            found.append(path)
        else:
            raise VerifyInputError(f"{path}: no such file or folder")
    seen: set[Path] = set()
    unique = []
    for path in found:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            unique.append(path)
    if not unique:
        raise VerifyInputError(f"no documents (.md, .rst, .html) under {', '.join(map(str, paths))}")
    return unique


def shipped_document_ids(root: Path = DOCUMENTS_ROOT) -> dict[str, str]:
    """Front-matter id → path under the suite's documents root (how a copied document finds its tasks)."""
    ids = {}
    for path in document_paths(root):
        doc_id = front_matter(path).get("id")
        if doc_id:
            ids[str(doc_id)] = path.relative_to(root).as_posix()
    return ids


def suite_document(path: Path, document: Document, shipped: dict[str, str], root: Path = DOCUMENTS_ROOT) -> str | None:
    """The suite's name for this document (``stratus/vpc/create-vpc.md``), by location or by front-matter id."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return shipped.get(document.id)


def choose_task(candidates: list[TaskSpec], release: str) -> TaskSpec | None:
    """The task on the verified release first (its discrepancies are the ground truth), a completable one first."""
    ranked = sorted(candidates, key=lambda t: (t.release != release, t.expected != "complete", t.id))
    return ranked[0] if ranked else None


def plan(paths: list[Path], release: str, tasks: list[TaskSpec], *, max_steps: int | None = None,
         console: Any = None) -> Plan:
    """Parse every document and pair each procedure with the task spec that will run it.

    ``console`` is the console backend (default: stratus's): its documents root names the suite's
    documents, and a procedure without a task is provisioned from its templates and starts at its
    ``start_url``."""
    console = console if console is not None else _default_console()
    root = console.documents_root or DOCUMENTS_ROOT
    shipped = shipped_document_ids(root) if root.is_dir() else {}
    by_document: dict[str, list[TaskSpec]] = {}
    for task in tasks:
        by_document.setdefault(task.document.split("#", 1)[0], []).append(task)
    targets: list[Target] = []
    documents: list[tuple[str, Document | None, str | None]] = []
    used: set[str] = set()
    for path in document_files(paths):
        try:
            document = load_document(path)
        except ProcedureError as exc:
            documents.append((str(path), None, str(exc)))
            continue
        documents.append((str(path), document, None))
        name = suite_document(path, document, shipped, root)
        for procedure in document.procedures:
            task = choose_task(by_document.get(name or "", []), release) if len(document.procedures) == 1 else None
            spec = _spec_from_task(task, path, document, procedure, release) if task else \
                _spec_without_task(path, document, procedure, release, console)
            key = _unique(spec.id, used)
            spec = spec.model_copy(update={"id": key} | ({"max_steps": max_steps} if max_steps else {}))
            targets.append(Target(key=key, document=document, path=str(path), procedure=procedure, spec=spec,
                                  task=task.id if task else None, origin=task, outcome_source="rule" if task else "agent"))
    return Plan(targets, documents)


def _document_ref(path: Path, document: Document, procedure: Procedure) -> str:
    ref = str(path.resolve())
    return f"{ref}#{procedure.id}" if len(document.procedures) > 1 else ref


def _spec_from_task(task: TaskSpec, path: Path, document: Document, procedure: Procedure, release: str) -> TaskSpec:
    """The task as it is, run on ``release`` with the document under test as its instructions."""
    return task.model_copy(update={"release": release, "document": _document_ref(path, document, procedure)})


def _default_console() -> Any:
    from consoleagent.consoles import DEFAULT_CONSOLE, backend_class

    return backend_class(DEFAULT_CONSOLE)()


@functools.cache
def _matcher(backend_class: type) -> Any:
    """ResourceCoder's offline matcher over a console backend's templates, built once per process."""
    from consoleagent.provisioning.request_matcher import RequestMatcher

    return RequestMatcher(backend_class.template_library())


def _spec_without_task(path: Path, document: Document, procedure: Procedure, release: str, console: Any) -> TaskSpec:
    matcher = _matcher(type(console))
    requires: list[dict[str, Any]] = []
    for line in procedure.prerequisites:
        for requirement in matcher.match(line) or []:
            if all(r["name"] != requirement.name for r in requires):
                requires.append({"name": requirement.name, "template": requirement.template, "params": dict(requirement.params)})
    product = str(document.front_matter.get("product") or "console")
    ident = re.sub(r"[^a-z0-9-]+", "-", f"verify-{document.id}-{procedure.id}".casefold()).strip("-")[:80]
    return TaskSpec.model_validate({
        "id": ident, "console": console.name, "product": product, "difficulty": "standard", "split": "test",
        "document": _document_ref(path, document, procedure), "release": release,
        "goal": f"{procedure.title}, following the document.", "start_url": _start_url(console, product, procedure),
        "requires": requires, "reward": {"expect": [{"event": {"regex": goal_outcome_regex(
            procedure.title, console, WRITE_EVENT, bold_labels("\n".join(procedure.step_texts())))}}]},
        "oracle": [{"task_unachievable": "no known solution: the document is not part of the task suite"}],
    })


def _start_url(console: Any, product: str, procedure: Procedure) -> str:
    """The console's home, or, when no step names the console to start in ("Log on to the ECS console") but the
    document's metadata names its product, that product's console (a backend's optional ``product_start_url``)."""
    home = str(getattr(console, "start_url", "/console"))
    by_product = getattr(console, "product_start_url", None)
    if procedure.console is None and callable(by_product):
        return by_product(product) or home
    return home


def _unique(key: str, used: set[str]) -> str:
    candidate, n = key, 2
    while candidate in used:
        candidate = f"{key[:75]}-{n}"
        n += 1
    used.add(candidate)
    return candidate
