"""The HTML report of a verification, and the review page's HTML: one self-contained file each.

Documentation teams open the report from a CI artifact or a file share, often offline, so the page
needs no server and no network: CSS and the small filter script are inline, and screenshots and
trajectories are linked relative to the page (paths in the report are relative to its directory).
Every value is escaped by Jinja2's autoescape; the only markup we add to document text is the bold
of ``**Label**``, applied after escaping. Anchors are the report's stable ids (procedure, step,
discrepancy), so a link to ``report.html#<procedure id>`` stays valid from one night to the next.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from consoleagent.verify.fixdiff import line_diff
from consoleagent.verify.model import DISCREPANCY_KINDS, VERDICTS, DocumentReport, ProcedureReport, VerifyReport
from consoleagent.verify.review import REFERENCE_PRECISION, Review, discrepancies, precision

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _bold(text: str | None) -> Markup:
    """Document text with ``**X**`` shown bold (escaped first, so nothing else becomes markup)."""
    return Markup(_BOLD.sub(r"<strong>\1</strong>", str(escape(text or ""))))


def _href(path: str | None, prefix: str = "") -> str:
    """A report-relative path as a URL (spaces, '#' and '?' in file names must not break the link)."""
    return prefix + quote(str(path or "").replace("\\", "/"), safe="/")


def _fragment(identifier: str) -> str:
    """``#id`` for a stable id (ids hold '#' and '/'); the browser decodes it back to the element's id."""
    return "#" + quote(identifier, safe="")


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("consoleagent.verify", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(bold=_bold, href=_href, fragment=_fragment, pct=lambda v: "–" if v is None else f"{v:.0%}",
                       headline=lambda t: (t or "").split("\n", 1)[0],
                       details=lambda t: (t or "").split("\n", 1)[1].strip("\n") if "\n" in (t or "") else "")
    env.globals.update(line_diff=line_diff, VERDICTS=VERDICTS, KINDS=DISCREPANCY_KINDS, REFERENCE=REFERENCE_PRECISION)
    return env


_ENV = _environment()


def render_html(report: VerifyReport, base_dir: Path | None = None) -> str:
    """The report page. With ``base_dir`` (where the page will be), missing screenshots are shown as missing."""
    procs = [(doc, p) for doc in report.documents for p in doc.procedures]
    return _ENV.get_template("report.html").render(
        report=report, run=report.run, summary=report.summary, rows=[_row(doc, p) for doc, p in procs], procedures=procs,
        not_verified=[d for d in report.documents if d.status != "verified"], missing=_missing_files(report, base_dir),
        kinds_present=sorted({d.kind for _, p in procs for d in p.discrepancies}))


def write_html(report: VerifyReport, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report, base_dir=path.parent), encoding="utf-8")
    return path


def render_review_page(report: VerifyReport, latest: dict[str, Review], files_prefix: str = "files/") -> str:
    """The review page: every discrepancy with its evidence and Confirm / Reject buttons (served by review_server.review_app)."""
    items = discrepancies(report)
    docs = {p.id: d for d in report.documents for p in d.procedures}
    counted = precision([d.id for _, d in items], latest)
    return _ENV.get_template("review.html").render(
        report=report, run=report.run, items=[(docs[p.id], p, d) for p, d in items], latest=latest, counted=counted,
        files_prefix=files_prefix)


def _row(doc: DocumentReport, proc: ProcedureReport) -> dict[str, Any]:
    kinds = sorted({d.kind for d in proc.discrepancies})
    text = " ".join([doc.id, doc.path, doc.title, proc.id, proc.title, proc.goal, proc.task or ""]
                    + [f"{d.expected} {d.observed}" for d in proc.discrepancies])
    return {"doc": doc, "proc": proc, "kinds": kinds, "search": " ".join(text.lower().split())}


def _missing_files(report: VerifyReport, base_dir: Path | None) -> set[str]:
    """Report-relative files the page links to that are not there (a screenshot that was never written)."""
    if base_dir is None:
        return set()
    paths: set[str] = set()
    for proc in report.procedures():
        paths.update(d.evidence.screenshot for d in proc.discrepancies if d.evidence.screenshot)
        paths.update(_step_shots(proc.steps))
    return {p for p in paths if not (base_dir / p).is_file()}


def _step_shots(steps: list[Any]) -> set[str]:
    shots = {s.screenshot for s in steps if s.screenshot}
    for step in steps:
        shots |= _step_shots(step.substeps)
    return shots
