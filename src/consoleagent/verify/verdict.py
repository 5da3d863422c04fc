"""Verdicts: one per run from the audit-log outcome and the discrepancies, then one per procedure.

PASS: the goal was reached and the run met no discrepancy. DRIFT: the goal was reached, but the
document is inaccurate somewhere. FAIL: the goal was not reached (the procedure is broken, or the
agent could not get through it: the report's evidence tells which). ERROR: the environment failed
(a crashed browser, a provisioning failure), which says nothing about the document.

A task that expects the goal to be unreachable (a feature removed from the console) is rewarded
for recognising that; its procedure is still FAIL, because a reader cannot do what it describes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from consoleagent.bench.results import is_env_error
from consoleagent.verify.model import Consistency, Discrepancy, Evidence

# The worse verdict wins a tie between runs: a report should not hide a failure it saw half the time.
SEVERITY = {"PASS": 0, "DRIFT": 1, "FAIL": 2, "ERROR": -1}


def goal_reached(record: dict[str, Any], expected: str) -> bool:
    """The audit log shows the goal's effect (the reward rule gives 1) on a task meant to be completed."""
    return expected == "complete" and (record.get("reward") or 0.0) >= 1.0


def run_verdict(record: dict[str, Any], expected: str, discrepancies: list[Discrepancy]) -> str:
    if is_env_error(record):
        return "ERROR"
    if not goal_reached(record, expected):
        return "FAIL"
    return "DRIFT" if any(d.kind != "env_error" for d in discrepancies) else "PASS"


def outcome_discrepancy(record: dict[str, Any], expected: str, procedure_id: str, run: int) -> Discrepancy | None:
    """``outcome_mismatch`` when the agent said it was done but the audit log lacks the effect;
    ``env_error`` when the environment failed."""
    checks = (record.get("verdict") or {}).get("checks") or []
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
