"""Write every derived output of a verification report, and fold people's reviews into it.

The canonical ``report.json`` is written by the verify runner; this module renders the three files a
documentation team and its CI read from it (``report.html``, ``junit.xml``, ``summary.md``) and
applies the judgements of the review page, so that the numbers in all of them agree.
"""

from __future__ import annotations

from pathlib import Path

from consoleagent.verify.model import ProcedureReport, VerifyReport
from consoleagent.verify.report_html import write_html
from consoleagent.verify.report_junit import write_junit
from consoleagent.verify.report_markdown import DEFAULT_LIMIT, write_markdown
from consoleagent.verify.review import Review, ReviewStore, discrepancies, precision

HTML_FILE = "report.html"
JUNIT_FILE = "junit.xml"
MARKDOWN_FILE = "summary.md"


def write_reports(report: VerifyReport, out_dir: Path, *, junit: Path | None = None,
                  markdown_limit: int = DEFAULT_LIMIT) -> dict[str, Path]:
    """Write report.html, junit.xml (or ``junit``) and summary.md for ``report``; returns {"html", "junit", "markdown"}.

    Paths inside the report are relative to ``out_dir``, which is where the HTML goes, so its images
    and links resolve when the directory is copied or published as a CI artifact.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    html = write_html(report, out_dir / HTML_FILE)
    junit_path = write_junit(report, Path(junit) if junit is not None else out_dir / JUNIT_FILE, report_html=html)
    markdown = write_markdown(report, out_dir / MARKDOWN_FILE, limit=markdown_limit, full_report=str(html))
    return {"html": html, "junit": junit_path, "markdown": markdown}


def apply_reviews(report: VerifyReport, store: ReviewStore | Path | dict[str, Review]) -> VerifyReport:
    """A copy of ``report`` with each discrepancy's review (the last judgement of its id) and the summary's
    reviewed / confirmed / precision_confirmed counted over this report's discrepancies only.

    A discrepancy without a judgement keeps ``review = None``; judgements of ids that are no longer in
    the report (the defect was fixed, or the procedure renamed) are kept in the store but not counted.
    """
    latest = store if isinstance(store, dict) else (store if isinstance(store, ReviewStore) else ReviewStore(store)).latest()
    counted = precision([d.id for _, d in discrepancies(report)], latest)
    # Copy only the path down to each discrepancy (a deep copy of a nightly report takes seconds); steps
    # and runs are shared with the input, which is left unchanged.
    documents = [doc.model_copy(update={"procedures": [_reviewed(p, latest) for p in doc.procedures]}) for doc in report.documents]
    summary = report.summary.model_copy(update={"reviewed": counted.reviewed, "confirmed": counted.confirmed,
                                                "precision_confirmed": counted.value})
    return report.model_copy(update={"documents": documents, "summary": summary})


def _reviewed(procedure: ProcedureReport, latest: dict[str, Review]) -> ProcedureReport:
    items = [d.model_copy(update={"review": latest[d.id].decision if d.id in latest else None}) for d in procedure.discrepancies]
    return procedure.model_copy(update={"discrepancies": items})
