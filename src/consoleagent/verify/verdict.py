"""Verdicts: one per run from the audit-log outcome and the discrepancies, then one per procedure.

A documentation owner acts on a verdict only if it blames the document with evidence, so:

- PASS: the goal was reached and the run met no discrepancy.
- DRIFT: the goal was reached, but the document is inaccurate somewhere; or the documented path did
  not reach the goal and a goal-directed attempt without the document did (its path is the fix).
- FAIL: the documented outcome is impossible in this console, with evidence: the task says the
  feature is gone on this release and the audit log confirms nothing achieved it.
- INCONCLUSIVE: the agent could not reach the goal, with the document or without it; or it acted on
  another resource than the goal's. That is the agent's limit, not the document's fault: the reason
  says where it stopped and why, and nothing is blamed on the document.
- ERROR: the environment failed (a crashed browser, a provisioning failure).

Every verdict but PASS carries a :class:`~consoleagent.verify.model.Reason`: the step, the reason in
words, and the evidence (audit records or their absence, the screenshot, what the page showed).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from consoleagent.bench.results import is_env_error
from consoleagent.verify.model import Attempt, Consistency, Discrepancy, Evidence, Reason, StepReport

# The worse verdict wins a tie between runs: a report should not hide a failure it saw half the time.
SEVERITY = {"PASS": 0, "DRIFT": 1, "INCONCLUSIVE": 2, "FAIL": 3, "ERROR": -1}


@dataclass
class RunVerdict:
    verdict: str
    reason: Reason | None


def goal_reached(record: dict[str, Any], expected: str) -> bool:
    """The audit log shows the goal's effect (the reward rule gives 1) on a task meant to be completed."""
    return expected == "complete" and (record.get("reward") or 0.0) >= 1.0


def audit_checks(record: dict[str, Any]) -> list[dict[str, Any]]:
    return list((record.get("verdict") or {}).get("checks") or [])


def wrong_target(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The failed checks that show the agent did the goal's action to something else (another
    resource, another value), or a destructive write the task did not ask for."""
    return [c for c in audit_checks(record) if not c.get("ok")
            and (c.get("wrong_target") or c.get("kind") in ("collateral", "forbid"))]


def run_verdict(record: dict[str, Any], expected: str, discrepancies: list[Discrepancy],
                steps: list[StepReport] | None = None, run: int | None = None) -> RunVerdict:
    """One run's verdict and its reason (before any goal-directed attempt: see :func:`with_attempt`)."""
    steps = steps or []
    if is_env_error(record):
        phase = record.get("failure_phase") or "episode"
        return RunVerdict("ERROR", Reason(text=f"the environment failed ({phase}): {record.get('cause') or 'no cause'}",
                                          evidence=Evidence(run=run)))
    if goal_reached(record, expected):
        found = [d for d in discrepancies if d.kind != "env_error"]
        if not found:
            return RunVerdict("PASS", None)
        first = found[0]
        return RunVerdict("DRIFT", Reason(text=f"the goal was reached, but the document differs from the console: "
                                               f"{first.kind} at {_where(first.step)} ({first.expected!r} → {first.observed!r})"
                                          + (f" and {len(found) - 1} more" if len(found) > 1 else ""),
                                          step=first.step, evidence=first.evidence))
    if expected != "complete":
        return _impossible(record, run)
    return RunVerdict("INCONCLUSIVE", _not_reached(record, steps, run))


def _impossible(record: dict[str, Any], run: int | None) -> RunVerdict:
    """A task that expects the goal to be unreachable on this release (a feature removed)."""
    checks = audit_checks(record)
    events = [e for c in checks for e in (c.get("records") or [])]
    if (record.get("reward") or 0.0) >= 1.0:
        return RunVerdict("FAIL", Reason(text="the documented outcome is impossible in this console release: the agent "
                                              "found the feature gone and the audit log shows no call that achieves it",
                                         evidence=Evidence(run=run, audit_event_ids=events[:20])))
    failed = "; ".join(str(c.get("detail")) for c in checks if not c.get("ok"))[:300]
    return RunVerdict("INCONCLUSIVE", Reason(text="the agent neither reached the goal nor established that it is "
                                                  f"impossible ({failed or record.get('status')})",
                                             evidence=Evidence(run=run, audit_event_ids=events[:20])))


def _not_reached(record: dict[str, Any], steps: list[StepReport], run: int | None) -> Reason:
    """Where the agent stopped and why, with the evidence: the step it failed on (or the last it
    reached), the audit checks that failed, the episode's own words."""
    stuck = next((s for s in steps if s.status == "failed"), None) or next(
        (s for s in reversed(steps) if s.status not in ("not_reached", "skipped")), None)
    checks = audit_checks(record)
    failed = [c for c in checks if not c.get("ok") and c.get("kind") != "outcome"]
    misdirected = wrong_target(record)
    if misdirected:
        detail = str(misdirected[0].get("detail"))[:300]
        text = f"the agent acted on something other than the goal's resource ({detail}): the agent's failure, not the document's"
        events = [e for c in misdirected for e in (c.get("wrong_target") or c.get("records") or [])]
    else:
        said = record.get("cause") or (record.get("episode") or {}).get("answer") or record.get("status") or "it stopped"
        where = f"at {_where(stuck.number)}" if stuck is not None else "before the first step"
        evidence = "; ".join(str(c.get("detail")) for c in failed[:2])[:300] or "no audit record of the goal"
        text = f"the agent did not reach the goal: it stopped {where} ({said}); audit log: {evidence}"
        events = [e for c in failed for e in (c.get("records") or [])]
    return Reason(text=text, step=stuck.number if stuck is not None else None,
                  evidence=Evidence(run=run, screenshot=stuck.screenshot if stuck is not None else None,
                                    audit_event_ids=events[:20],
                                    observed_elements=[f"{u.role or 'element'} {u.observed!r}" for u in
                                                       (stuck.labels if stuck is not None else []) if u.observed][:10]))


def with_attempt(verdict: str, reason: Reason | None, attempt: Attempt | None) -> tuple[str, Reason | None]:
    """An INCONCLUSIVE procedure after a goal-directed attempt without the document: reached, the
    document is wrong (DRIFT, the attempt's path is the fix); not reached, still INCONCLUSIVE."""
    if verdict != "INCONCLUSIVE" or attempt is None:
        return verdict, reason
    stopped = reason.text if reason else "the documented procedure did not reach the goal"
    if attempt.reached:
        path = "; ".join(attempt.path[:12]) or "(no recorded actions)"
        return "DRIFT", Reason(text=f"the documented procedure did not reach the goal ({stopped}), but the {attempt.policy} "
                                    f"agent reached it without the document, this way: {path}",
                               step=reason.step if reason else None,
                               evidence=(reason.evidence if reason else Evidence()).model_copy(
                                   update={"trajectory": attempt.trajectory}))
    return "INCONCLUSIVE", Reason(text=f"{stopped}; a goal-directed attempt without the document ({attempt.policy}) did "
                                       f"not reach it either ({attempt.status})",
                                  step=reason.step if reason else None, evidence=reason.evidence if reason else Evidence())


def _where(step: int | None) -> str:
    return f"step {step}" if step is not None else "the procedure's end"


def outcome_discrepancy(record: dict[str, Any], expected: str, procedure_id: str, run: int) -> Discrepancy | None:
    """``outcome_mismatch`` when the agent said it was done but the audit log lacks the effect;
    ``env_error`` when the environment failed."""
    checks = audit_checks(record)
    failed = [c for c in checks if not c.get("ok")]
    if is_env_error(record):
        phase = record.get("failure_phase") or "episode"
        return Discrepancy(id=f"{procedure_id}/env_error", step=None, kind="env_error", expected="the environment works",
                           observed=f"{phase}: {record.get('cause') or 'environment error'}", source="environment",
                           evidence=Evidence(run=run))
    if expected == "complete" and record.get("status") == "completed" and not goal_reached(record, expected):
        detail = "; ".join(str(c.get("detail") or c.get("kind")) for c in failed[:3]) or "the expected effect is missing"
        ids = [r for c in checks for r in (c.get("records") or [])]
        return Discrepancy(id=f"{procedure_id}/outcome_mismatch", step=None, kind="outcome_mismatch",
                           expected="the procedure's result, as the document's goal describes it",
                           observed=f"the audit log does not show it: {detail}", source="outcome",
                           evidence=Evidence(run=run, audit_event_ids=ids[:20]))
    return None


def combine(verdicts: list[str]) -> tuple[str, Consistency]:
    """The procedure's verdict over k runs: the most frequent verdict among runs the environment did
    not spoil (ERROR only when every run was spoiled); a tie goes to the worse verdict."""
    counts = Counter(verdicts)
    judged = {v: n for v, n in counts.items() if v != "ERROR"}
    if not judged:
        combined = "ERROR"
    else:
        combined = max(judged, key=lambda v: (judged[v], SEVERITY[v]))
    agreement = counts[combined] / len(verdicts) if verdicts else 0.0
    return combined, Consistency(runs=len(verdicts), verdicts=dict(counts), agreement=round(agreement, 3))


def merge_discrepancies(per_run: list[list[Discrepancy]]) -> list[Discrepancy]:
    """One entry per id across runs, counting the runs it was found in; the first run's evidence is kept."""
    merged: dict[str, Discrepancy] = {}
    for found in per_run:
        for item in {d.id: d for d in found}.values():
            if item.id in merged:
                merged[item.id].runs += 1
            else:
                merged[item.id] = item.model_copy(update={"runs": 1})
    return sorted(merged.values(), key=lambda d: (d.step is None, d.step or 0, d.kind))
