"""The review page: a small FastAPI app that lists every discrepancy of a report with its screenshot,
expected and observed text and proposed fix, with Confirm / Reject buttons; judgements go to the
report's ``reviews.jsonl`` through :mod:`consoleagent.verify.review`.

A module apart from the review store because it renders HTML (``report_html``), which itself shows
the store's precision: the store stays below both.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from consoleagent.verify.report_html import render_review_page
from consoleagent.verify.review import (
    REVIEWS_FILE, Decision, Review, ReviewStore, closest_id_hint, discrepancies, load_report, precision,
)

logger = logging.getLogger(__name__)
SERVED_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".html", ".jsonl"}


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
                                     f"{closest_id_hint(body.discrepancy_id, ids)}")
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
