"""A size-capped Markdown summary of a verification report, for CI job pages.

GitHub's step summary (``$GITHUB_STEP_SUMMARY``) and GitLab's job pages show Markdown, with limits
(GitHub: 1 MiB per step, and long pages are unreadable well before that). So the summary is small
by construction: the verdict counts, then one table row per discrepancy of each procedure that did
not pass, worst verdicts first, and when the cap is reached whole procedures are left out with a
closing line that says how many and where the full report is. The cap is never exceeded.
"""

from __future__ import annotations

from pathlib import Path

from consoleagent.verify.fixdiff import changed_text
from consoleagent.verify.model import VERDICTS, DocumentReport, ProcedureReport, VerifyReport

DEFAULT_LIMIT = 60_000
CELL_LIMIT = 240  # characters per table cell: a row is a pointer to the full report, not the report
SEVERITY = ("FAIL", "DRIFT", "INCONCLUSIVE", "ERROR")  # what a documentation team looks at first
ICONS = {"PASS": "✅", "DRIFT": "⚠️", "FAIL": "❌", "INCONCLUSIVE": "❔", "ERROR": "💥"}
TABLE_HEAD = ("| Verdict | Procedure | Document | Step | Kind | Expected | Observed | Proposed fix |\n"
              "| --- | --- | --- | ---: | --- | --- | --- | --- |\n")


def render_markdown(report: VerifyReport, *, limit: int = DEFAULT_LIMIT, full_report: str = "report.html") -> str:
    """The summary, at most ``limit`` characters; ``full_report`` is named where procedures are left out."""
    head = _head(report) + _not_verified(report.documents)
    attention = _attention(report)
    if not attention:
        return _cap(head + ("All verified procedures passed.\n" if report.summary.procedures else "No procedure was verified.\n"), limit)
    docs = {p.id: d for d in report.documents for p in d.procedures}
    blocks = [_rows(p, docs[p.id]) for p in attention]
    section = f"### Procedures that need attention ({len(attention)})\n\n" + TABLE_HEAD
    body, kept = head + section, 0
    for block in blocks:
        footer = _left_out(len(blocks) - kept - 1, limit, full_report) if kept + 1 < len(blocks) else ""
        if len(body) + len(block) + len(footer) > limit:
            break
        body += block
        kept += 1
    if kept < len(blocks):
        body += _left_out(len(blocks) - kept, limit, full_report)
    return _cap(body, limit)


def write_markdown(report: VerifyReport, path: Path, *, limit: int = DEFAULT_LIMIT, full_report: str = "report.html") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(report, limit=limit, full_report=full_report), encoding="utf-8")
    return path


def _head(report: VerifyReport) -> str:
    s, run = report.summary, report.run
    needing = sum(s.verdicts.get(v, 0) for v in SEVERITY)
    lines = [f"## Documentation verification: {needing} of {s.procedures} procedure(s) need attention", "",
             f"Run `{cell(run.id)}` · console {cell(run.console)}" + (f" (release {cell(run.release)})" if run.release else "")
             + f" · policy {cell(run.policy)} · {run.runs} run(s) per procedure · {run.duration_s:.0f} s", "",
             "| Verdict | Procedures |", "| --- | ---: |"]
    lines += [f"| {ICONS[v]} {v} | {s.verdicts.get(v, 0)} |" for v in VERDICTS]
    lines += [f"| skipped documents | {s.skipped} |", f"| invalid documents | {s.invalid} |", ""]
    if s.discrepancies:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(s.by_kind.items(), key=lambda kv: (-kv[1], kv[0])))
        lines += [f"Discrepancies: {s.discrepancies}" + (f" ({kinds})" if kinds else "") + ".", ""]
    if s.reviewed:
        share = f" ({s.precision_confirmed:.0%})" if s.precision_confirmed is not None else ""
        lines += [f"Reviewed: {s.reviewed}, confirmed {s.confirmed}{share}.", ""]
    return "\n".join(lines) + "\n"


def _not_verified(documents: list[DocumentReport]) -> str:
    rows = [d for d in documents if d.status != "verified"]
    if not rows:
        return ""
    lines = ["### Documents not verified", "", "| Document | Status | Reason |", "| --- | --- | --- |"]
    lines += [f"| {cell(d.path)} | {d.status} | {cell(d.reason or '')} |" for d in rows[:50]]
    if len(rows) > 50:
        lines.append(f"| … {len(rows) - 50} more | | |")
    return "\n".join(lines) + "\n\n"


def _attention(report: VerifyReport) -> list[ProcedureReport]:
    procedures = [p for p in report.procedures() if p.verdict != "PASS"]
    return sorted(procedures, key=lambda p: SEVERITY.index(p.verdict))  # stable: report order within a verdict


def _rows(proc: ProcedureReport, doc: DocumentReport) -> str:
    c = proc.consistency
    name = f"{cell(proc.title)} ({c.verdicts.get(proc.verdict, 0)}/{c.runs} runs)"
    where = f"{cell(doc.path)}:{proc.line}"
    verdict = f"{ICONS[proc.verdict]} {proc.verdict}"
    reason = proc.reason.text if proc.reason else ""
    if not proc.discrepancies:
        cause = reason or "; ".join(sorted({r.cause for r in proc.runs if r.cause})) or "no discrepancy reported"
        step = str(proc.reason.step) if proc.reason and proc.reason.step is not None else ""
        return f"| {verdict} | {name} | {where} | {step} | | | {cell(cause)} | |\n"
    rows = []
    for d in proc.discrepancies:
        fix = cell(changed_text(d.fix.original, d.fix.proposed)) if d.fix else ""
        step = str(d.step) if d.step is not None else ""
        rows.append(f"| {verdict} | {name} | {where} | {step} | `{d.kind}` | {cell(d.expected)} | {cell(d.observed)} | {fix} |\n")
    return "".join(rows)


def _left_out(count: int, limit: int, full_report: str) -> str:
    return (f"\n_{count} more procedure(s) that need attention were left out to keep this summary under {limit:,} "
            f"characters; the full report is {cell(full_report)}._\n")


def cell(text: object, limit: int = CELL_LIMIT) -> str:
    """``text`` as one Markdown table cell: one line, pipes escaped, HTML inert, cut to about ``limit`` characters."""
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _cap(text: str, limit: int) -> str:
    """A last guard for tiny limits: cut at a line break so no table row is broken mid-way."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, max(0, limit - 2))
    return text[: cut + 1] if cut >= 0 else text[:limit]
