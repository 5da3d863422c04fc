"""Review of reported defects: a person confirms or rejects each discrepancy, and we count how many hold.

The reference system's one production quality number was "91% of reported defects confirmed"; this
module is how we measure ours. Judgements are appended to ``<report dir>/reviews.jsonl`` (one JSON
object a line: discrepancy_id, procedure_id, decision, note, reviewer, at), never rewritten, so the
file is its own audit trail; the last judgement of a discrepancy id wins. Discrepancy ids are stable
across runs of the same documents, so a judgement made on last night's report applies to tonight's.

Two ways in: ``record_review`` (offline, ``consoleagent verify review DIR --confirm ID``) and the
review page, a small FastAPI app (``review_app(report_dir)``) that lists every discrepancy with its
screenshot, expected and observed text and proposed fix, with Confirm / Reject buttons.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Literal

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from consoleagent.verify.model import Discrepancy, ProcedureReport, VerifyReport

logger = logging.getLogger(__name__)

REVIEWS_FILE = "reviews.jsonl"
REPORT_FILE = "report.json"
SERVED_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".html", ".jsonl"}
REFERENCE_PRECISION = 0.91  # the reference system's share of reported defects that people confirmed

Decision = Literal["confirmed", "rejected"]


class Review(BaseModel):
    """One person's judgement of one discrepancy, as stored (one line of reviews.jsonl)."""

    model_config = ConfigDict(extra="forbid")

    discrepancy_id: str = Field(min_length=1)
    procedure_id: str = ""
    decision: Decision
    note: str = ""
    reviewer: str = ""
    at: str = ""  # ISO 8601 UTC, set when recorded


def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class ReviewStore:
    """The append-only judgements file. Safe for the threads of one server process (one lock)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def append(self, review: Review) -> Review:
        """Append ``review`` (stamped now if it has no time) and fsync, so a crash loses at most the line being written."""
        if not review.at:
            review = review.model_copy(update={"at": now_utc()})
        line = json.dumps(review.model_dump(), ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        return review

    def all(self) -> list[Review]:
        """Every judgement in file order. A bad line raises ValueError naming file and line; a last line cut
        short by a crash (no newline at the end) is ignored, since its judgement was never acknowledged."""
        if not self.path.exists():
            return []
        text = self.path.read_text(encoding="utf-8")
        lines = text.split("\n")
        reviews: list[Review] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                reviews.append(Review.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError) as exc:
                if number == len(lines) and not text.endswith("\n"):
                    break  # the torn last write
                raise ValueError(f"{self.path}:{number}: not a review line: {_first_line(exc)}") from exc
        return reviews

    def latest(self) -> dict[str, Review]:
        """The judgement in force per discrepancy id: the last one recorded."""
        return {r.discrepancy_id: r for r in self.all()}


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@dataclass(frozen=True)
class Precision:
    """Confirmed defects over reviewed ones, among the discrepancies of one report."""

    reviewed: int
    confirmed: int

    @property
    def value(self) -> float | None:
        return self.confirmed / self.reviewed if self.reviewed else None

    def to_dict(self) -> dict[str, Any]:
        return {"reviewed": self.reviewed, "confirmed": self.confirmed, "precision": self.value,
                "reference": REFERENCE_PRECISION}


def precision(ids: list[str], latest: dict[str, Review]) -> Precision:
    """Precision over the discrepancies ``ids`` (judgements of ids not in the report do not count)."""
    judged = [latest[i].decision for i in ids if i in latest]
    return Precision(len(judged), judged.count("confirmed"))


def discrepancies(report: VerifyReport) -> list[tuple[ProcedureReport, Discrepancy]]:
    """Every discrepancy of the report with its procedure, in report order."""
    return [(p, d) for p in report.procedures() for d in p.discrepancies]


def load_report(report_dir: Path) -> VerifyReport:
    path = Path(report_dir) / REPORT_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no report here (run `consoleagent verify --out {report_dir}` first)")
    try:
        return VerifyReport.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise ValueError(f"{path}: not a verification report: {_first_line(exc)}") from exc


def record_review(store_path: Path, discrepancy_id: str, decision: Decision, *, note: str = "", reviewer: str | None = None,
                  procedure_id: str | None = None, report: VerifyReport | None = None) -> Review:
    """Record one judgement offline (``consoleagent verify review DIR --confirm ID --reject ID``).

    With a report (given, or ``report.json`` next to the store), an id it does not contain is refused
    with the closest ids, since a typo would otherwise be a judgement that never applies. Without
    one, ``procedure_id`` (or the id's part before its first '/') names the procedure.
    """
    store_path = Path(store_path)
    if decision not in ("confirmed", "rejected"):
        raise ValueError(f"decision must be 'confirmed' or 'rejected', not {decision!r}")
    if report is None and (store_path.parent / REPORT_FILE).is_file():
        report = load_report(store_path.parent)
    procedure_id = procedure_id or discrepancy_id.split("/", 1)[0]
    if report is not None:
        known = {d.id: p.id for p, d in discrepancies(report)}
        if discrepancy_id not in known:
            raise KeyError(f"{discrepancy_id!r} is not a discrepancy of this report{_suggest(discrepancy_id, list(known))}")
        procedure_id = known[discrepancy_id]
    who = reviewer if reviewer is not None else os.environ.get("USER", "")
    review = Review(discrepancy_id=discrepancy_id, procedure_id=procedure_id, decision=decision, note=note, reviewer=who)
    return ReviewStore(store_path).append(review)


def _suggest(wanted: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(wanted, known, n=3, cutoff=0.5)
    return f"; did you mean {', '.join(close)}?" if close else f" ({len(known)} discrepancies in it)"


# --- the review page ---------------------------------------------------------------------------


class ReviewIn(BaseModel):
    """What the page posts to /api/reviews."""

    model_config = ConfigDict(extra="forbid")

    discrepancy_id: str = Field(min_length=1)
    decision: Decision
    note: str = Field(default="", max_length=4000)
    reviewer: str = Field(default="", max_length=200)


def review_app(report_dir: Path, on_review: Callable[[], None] | None = None) -> FastAPI:
    """The review page for the report in ``report_dir`` (its report.json; judgements go to its reviews.jsonl).

    The report is read once at start (it does not change under a finished run); the judgements are
    re-read on every request, so an offline ``--confirm`` shows up on the next page load.
    ``on_review`` is called after each stored judgement (the CLI re-renders the reports with it, so
    report.html and summary.md show the new precision); its failure does not lose the judgement.
    """
    from consoleagent.verify.report_html import render_review_page

    report_dir = Path(report_dir)
    report = load_report(report_dir)
    store = ReviewStore(report_dir / REVIEWS_FILE)
    owners = {d.id: p.id for p, d in discrepancies(report)}
    ids = list(owners)
    app = FastAPI(title="consoleagent verify review", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/", response_class=HTMLResponse)
    def page() -> str:
        return render_review_page(report, store.latest(), files_prefix="files/")

    @app.get("/api/discrepancies")
    def listing() -> dict[str, Any]:
        latest = store.latest()
        items = [{"procedure_id": p.id, "procedure": p.title, "verdict": p.verdict, **d.model_dump(),
                  "review": latest[d.id].model_dump() if d.id in latest else None} for p, d in discrepancies(report)]
        return {"discrepancies": items, "precision": precision(ids, latest).to_dict()}

    @app.get("/api/precision")
    def current_precision() -> dict[str, Any]:
        return precision(ids, store.latest()).to_dict()

    @app.post("/api/reviews", dependencies=[Depends(_json_only)])
    def post_review(body: ReviewIn) -> dict[str, Any]:
        if body.discrepancy_id not in owners:
            raise HTTPException(404, f"{body.discrepancy_id!r} is not a discrepancy of this report"
                                     f"{_suggest(body.discrepancy_id, ids)}")
        stored = store.append(Review(discrepancy_id=body.discrepancy_id, procedure_id=owners[body.discrepancy_id],
                                     decision=body.decision, note=body.note, reviewer=body.reviewer))
        if on_review is not None:
            try:
                on_review()
            except Exception as exc:  # noqa: BLE001 - the judgement is stored; re-rendering is a convenience
                logger.warning("re-rendering the reports after a review failed: %s", exc)
        return {"review": stored.model_dump(), "precision": precision(ids, store.latest()).to_dict()}

    root = report_dir.resolve()

    @app.get("/files/{path:path}")
    def report_file(path: str) -> FileResponse:
        """Screenshots, trajectories and viewers of the report, and nothing else of its directory (the
        episodes' world holds account databases that a browser has no business reading)."""
        target = (root / path).resolve()
        if target.suffix.lower() not in SERVED_SUFFIXES or not target.is_relative_to(root) or not target.is_file():
            raise HTTPException(404, f"{path}: not a report file")
        return FileResponse(target)

    return app


def _json_only(request: Request) -> None:
    """Refuse a POST that is not JSON: a page of another site can send a form or text/plain to localhost
    without asking, but not application/json (that needs a CORS preflight, which this app never grants)."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise HTTPException(415, "POST application/json")
