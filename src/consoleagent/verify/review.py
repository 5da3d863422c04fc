"""Review of reported defects: a person confirms or rejects each discrepancy, and we count how many hold.

The reference system's one production quality number was "91% of reported defects confirmed"; this
module is how we measure ours. Judgements are appended to ``<report dir>/reviews.jsonl`` (one JSON
object a line: discrepancy_id, procedure_id, decision, note, reviewer, at), never rewritten, so the
file is its own audit trail; the last judgement of a discrepancy id wins. Discrepancy ids are stable
across runs of the same documents, so a judgement made on last night's report applies to tonight's.

Two ways in: ``record_review`` (offline, ``consoleagent verify review DIR --confirm ID``) and the
review page (``review_server.review_app(report_dir)``).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from consoleagent.verify.model import Discrepancy, ProcedureReport, VerifyReport

logger = logging.getLogger(__name__)

REVIEWS_FILE = "reviews.jsonl"
REPORT_FILE = "report.json"
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
            raise KeyError(f"{discrepancy_id!r} is not a discrepancy of this report{closest_id_hint(discrepancy_id, list(known))}")
        procedure_id = known[discrepancy_id]
    who = reviewer if reviewer is not None else os.environ.get("USER", "")
    review = Review(discrepancy_id=discrepancy_id, procedure_id=procedure_id, decision=decision, note=note, reviewer=who)
    return ReviewStore(store_path).append(review)


def closest_id_hint(wanted: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(wanted, known, n=3, cutoff=0.5)
    return f"; did you mean {', '.join(close)}?" if close else f" ({len(known)} discrepancies in it)"


# --- the review page ---------------------------------------------------------------------------
