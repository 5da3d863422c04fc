"""JUnit XML of a verification report, so any CI (Jenkins, GitLab, GitHub Actions, Azure) can gate on it.

The shape is the widely used Jenkins/Ant one (``junit.xsd`` next to this module is the schema we
promise): one ``<testsuite>`` per document (``name`` = document id, ``file`` = its path), one
``<testcase>`` per procedure (``name`` = title, ``classname`` = document id, ``file`` and ``line``
= where the procedure's heading is, ``time`` = mean seconds per run). DRIFT and FAIL are
``<failure type="DRIFT|FAIL">`` whose text lists each discrepancy (step, kind, expected, observed,
fix); ERROR is ``<error>``. A skipped document is a test case with ``<skipped>``, an invalid one a
test case with ``<error type="invalid">``, so neither disappears from the CI's view.

Only the standard library writes it: lxml is needed to validate it (in the tests), not to produce it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

from consoleagent.verify.fixdiff import line_diff
from consoleagent.verify.model import Discrepancy, DocumentReport, ProcedureReport, VerifyReport

XSD_PATH = Path(__file__).with_name("junit.xsd")
MESSAGE_LIMIT = 500  # a failure's message attribute is one line in most CI views; the text carries the rest

# XML 1.0 forbids most control characters even as references: agents' observations can contain them.
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: object) -> str:
    """``text`` as a string XML 1.0 can carry (illegal characters become U+FFFD)."""
    return _ILLEGAL_XML.sub("\ufffd", "" if text is None else str(text))


def render_junit(report: VerifyReport, report_html: Path | str | None = None) -> str:
    """The JUnit XML document (a string with its XML declaration). ``report_html`` is named in each case's output."""
    root = ET.Element("testsuites", name=clean(f"consoleagent verify {report.run.id}"))
    suites = [_suite(doc, report, report_html) for doc in report.documents]
    for suite in suites:
        root.append(suite)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    root.set("time", _seconds(sum(float(s.get("time", "0")) for s in suites)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(report: VerifyReport, path: Path, report_html: Path | str | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_junit(report, report_html), encoding="utf-8")
    return path


def _suite(doc: DocumentReport, report: VerifyReport, report_html: Path | str | None) -> ET.Element:
    suite = ET.Element("testsuite", name=clean(doc.id), id=clean(doc.id), file=clean(doc.path))
    if report.run.created_at:
        suite.set("timestamp", clean(report.run.created_at))
    if report.run.machine:
        suite.set("hostname", clean(report.run.machine))
    _properties(suite, doc, report)
    if doc.status == "verified" and doc.procedures:
        cases = [_case(p, doc, report_html) for p in doc.procedures]
    else:
        cases = [_document_case(doc)]
    counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
    for case in cases:
        suite.append(case)
        for child, key in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            counts[key] += case.find(child) is not None
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", _seconds(sum(p.duration_s for p in doc.procedures)))
    return suite


def _properties(suite: ET.Element, doc: DocumentReport, report: VerifyReport) -> None:
    values = {"console": report.run.console, "console_release": report.run.release, "document_release": doc.release,
              "policy": report.run.policy,
              "runs": report.run.runs, "title": doc.title, "status": doc.status, "revision": report.run.revision}
    present = {name: value for name, value in values.items() if value not in (None, "")}
    if present:  # the schema wants at least one property in a <properties>
        props = ET.SubElement(suite, "properties")
        for name, value in present.items():
            ET.SubElement(props, "property", name=name, value=clean(value))


def _document_case(doc: DocumentReport) -> ET.Element:
    """A skipped or invalid document (or one with no procedure) as one test case, so CI shows it."""
    case = ET.Element("testcase", name=clean(doc.title or doc.id), classname=clean(doc.id), file=clean(doc.path), time="0")
    reason = doc.reason or ("no procedure found" if doc.status == "verified" else doc.status)
    if doc.status == "invalid":
        _child(case, "error", reason, type="invalid", message=reason)
    else:
        ET.SubElement(case, "skipped", message=clean(reason))
    return case


def _case(proc: ProcedureReport, doc: DocumentReport, report_html: Path | str | None) -> ET.Element:
    case = ET.Element("testcase", name=clean(proc.title), classname=clean(doc.id), file=clean(doc.path),
                      line=str(proc.line), time=_seconds(proc.duration_s))
    if proc.verdict in ("DRIFT", "FAIL"):
        _child(case, "failure", failure_text(proc), type=proc.verdict, message=failure_message(proc))
    elif proc.verdict == "INCONCLUSIVE":  # nothing is blamed on the document: CI shows it as not decided, not failed
        ET.SubElement(case, "skipped", message=clean(_one_line(failure_message(proc), MESSAGE_LIMIT)))
    elif proc.verdict == "ERROR":
        causes = sorted({r.cause for r in proc.runs if r.cause})
        message = "; ".join(causes) or "environment error"
        _child(case, "error", failure_text(proc) or message, type="ERROR", message=message)
    out = ET.SubElement(case, "system-out")
    out.text = clean(_case_output(proc, report_html))
    return case


def _child(case: ET.Element, tag: str, text: str, **attrs: str) -> None:
    attrs["message"] = clean(_one_line(attrs.get("message", ""), MESSAGE_LIMIT))
    element = ET.SubElement(case, tag, {k: clean(v) for k, v in attrs.items()})
    element.text = clean(text)


def failure_message(proc: ProcedureReport) -> str:
    """One line: the verdict and the discrepancies by kind and step, or the verdict's reason (what a CI list shows)."""
    if not proc.discrepancies:
        if proc.reason:
            return f"{proc.verdict}: {proc.reason.text}"
        return f"{proc.verdict}: {proc.goal}" if proc.goal else proc.verdict
    parts = [f"{d.kind} at step {d.step}" if d.step is not None else d.kind for d in proc.discrepancies]
    return f"{proc.verdict}: " + ", ".join(parts)


def failure_text(proc: ProcedureReport) -> str:
    """The verdict's reason, then every discrepancy with its step, kind, expected, observed and proposed fix."""
    parts = [_reason_text(proc)] if proc.reason else []
    return "\n\n".join(parts + [_discrepancy_text(d) for d in proc.discrepancies])


def _reason_text(proc: ProcedureReport) -> str:
    reason = proc.reason
    assert reason is not None
    lines = [f"why {proc.verdict}" + (f" (step {reason.step})" if reason.step is not None else "") + f": {reason.text}"]
    if reason.evidence.screenshot:
        lines.append(f"  screenshot: {reason.evidence.screenshot}")
    if reason.evidence.audit_event_ids:
        lines.append(f"  audit events: {', '.join(reason.evidence.audit_event_ids)}")
    for attempt in proc.attempts:
        lines.append(f"  goal-directed attempt ({attempt.policy}): {'reached' if attempt.reached else 'not reached'}"
                     + (f"; path: {'; '.join(attempt.path[:12])}" if attempt.path else ""))
    return "\n".join(lines)


def _discrepancy_text(d: Discrepancy) -> str:
    where = f"step {d.step}" + (f" (line {d.line})" if d.line else "") if d.step is not None else "procedure"
    lines = [f"{where}: {d.kind} [{d.source}, found in {d.runs} run(s)] id={d.id}",
             f"  expected: {d.expected}", f"  observed: {d.observed}"]
    if d.fix:
        lines.append("  fix:")
        lines += [f"    {'  ' if line.op == '=' else line.op + ' '}{line.text}" for line in line_diff(d.fix.original, d.fix.proposed)]
        lines.append(f"  because:  {d.fix.rationale}")
    if d.evidence.screenshot:
        lines.append(f"  screenshot: {d.evidence.screenshot}")
    if d.evidence.audit_event_ids:
        lines.append(f"  audit events: {', '.join(d.evidence.audit_event_ids)}")
    return "\n".join(lines)


def _case_output(proc: ProcedureReport, report_html: Path | str | None) -> str:
    c = proc.consistency
    runs = ", ".join(f"{v} {n}" for v, n in sorted(c.verdicts.items()))
    lines = [f"verdict {proc.verdict}; {c.runs} run(s): {runs}; agreement {c.agreement:.0%}", f"procedure id: {proc.id}"]
    if proc.task:
        lines.append(f"task: {proc.task}")
    if report_html is not None:
        lines.append(f"report: {Path(report_html).name}#{quote(proc.id, safe='')}")
    return "\n".join(lines)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _seconds(value: float) -> str:
    return f"{max(0.0, float(value)):.3f}"
