"""Ground truth for documents that have no task: what verifying each one on each release must find.

A suite task carries its own truth (``discrepancies:`` on its release), so a document that belongs to
a task is scored from it. A document written without a task (a team's own page, the suite's other
writing styles) has nothing to be scored against unless someone writes down, by hand, which changes
of the console's changelog break which of its steps on which release. That is this file: one YAML
mapping ``documents: {document id: {release: {discrepancies: [{change, step}], expected}}}``, read
by the console backend into ``GroundTruth.documents``. Every change id must be in the changelog and
on the release it is listed under, so a typo cannot quietly turn a DRIFT into a PASS.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from consoleagent.tasks.spec import ExpectedDiscrepancy


class TruthFileError(ValueError):
    """A ground-truth file that cannot be used; the message names the file and the entry."""


class DocumentTruth(BaseModel):
    """What one document's verification on one release must find."""

    model_config = ConfigDict(extra="forbid")
    expected: Literal["complete", "unachievable"] = "complete"
    discrepancies: list[ExpectedDiscrepancy] = Field(default_factory=list)


def load_document_truth(path: Path, changes: list[Any]) -> dict[str, dict[str, DocumentTruth]]:
    """``{document id: {release: DocumentTruth}}`` from ``path`` (none there: empty), checked against the
    changelog entries ``changes`` (objects with ``id`` and ``release``)."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise TruthFileError(f"{path}: not YAML ({exc})") from None
    documents = data.get("documents") if isinstance(data, dict) else None
    if not isinstance(documents, dict):
        raise TruthFileError(f"{path}: needs a mapping 'documents: {{document id: {{release: ...}}}}'")
    releases_of = {c.id: c.release for c in changes}
    out: dict[str, dict[str, DocumentTruth]] = {}
    for document_id, by_release in documents.items():
        if not isinstance(by_release, dict):
            raise TruthFileError(f"{path}: documents.{document_id}: needs a mapping of release to truth")
        out[str(document_id)] = {}
        for release, entry in by_release.items():
            where = f"{path}: documents.{document_id}.{release}"
            try:
                truth = DocumentTruth.model_validate(entry or {})
            except ValidationError as exc:
                error = exc.errors()[0]
                field_path = ".".join(str(part) for part in error["loc"])
                raise TruthFileError(f"{where}: {field_path}: {error['msg']}") from None
            for d in truth.discrepancies:
                if d.change not in releases_of:
                    raise TruthFileError(f"{where}: change {d.change!r} is not in the console's changelog")
                if str(releases_of[d.change]) != str(release):
                    raise TruthFileError(f"{where}: change {d.change!r} belongs to release {releases_of[d.change]}")
            out[str(document_id)][str(release)] = truth
    return out
