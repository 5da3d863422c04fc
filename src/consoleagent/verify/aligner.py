"""One run aligned with its procedure: the agent's actions assigned to document steps, the discrepancies
classified, a fix proposed for each, and a report per step.

It composes the others and none of them imports it: ``align`` holds the pieces (digest, plans,
``AlignmentContext``, step reports) that ``classify`` and ``fixes`` read.
"""

from __future__ import annotations

from pathlib import Path

from consoleagent.documents.procedure import Procedure
from consoleagent.trajectory.reader import Trajectory
from consoleagent.verify.align import (
    AlignmentContext, RunAlignment, assign, digest, plan, procedure_words, step_report,
)
from consoleagent.verify.classify import classify_run
from consoleagent.verify.fixes import observed_for, propose_fix


def align_run(procedure: Procedure, trajectory: Trajectory, *, procedure_id: str, run: int,
              report_dir: Path) -> RunAlignment:
    """Align one run with the procedure: a StepReport per document step and the run's discrepancies
    (the agent's reports, plus what the evidence makes certain), each with a proposed fix."""
    report_dir = Path(report_dir)
    plans = [plan(step) for step in procedure.steps]
    actions = digest(trajectory)
    assign(actions, plans)
    goal = str((trajectory.header.get("task") or {}).get("goal") or "")
    context = AlignmentContext(procedure, trajectory, plans, actions, procedure_words(procedure), procedure_id, run,
                               report_dir, goal_words=procedure_words(procedure, goal))
    found, outcome_reports = classify_run(context)
    steps = [step_report(context, i, found) for i in range(len(plans))]
    for discrepancy in found:
        if discrepancy.step is not None and discrepancy.kind not in ("outcome_mismatch", "env_error"):
            observed = observed_for(context, discrepancy.step)
            discrepancy.fix = propose_fix(procedure.steps[discrepancy.step - 1], discrepancy, observed,
                                          run_names=context.provisioned_names)
    return RunAlignment(steps=steps, discrepancies=found, outcome_reports=outcome_reports)
