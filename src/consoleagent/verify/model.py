"""The canonical verification report: run → document → procedure → step, with discrepancies.

Every other output (HTML, JUnit XML, Markdown, the review page) is rendered from this model, so it
is the one place that says what a verification found. Ids are stable across runs of the same
documents: a procedure's id is built from the document's id and the procedure heading, a step's
from the procedure's id and the step's number, a discrepancy's from its step and kind. That is
what lets a person's review of a defect carry over to the next night's report.

The JSON schema (``VerifyReport.model_json_schema()``) is published in ``docs/verify-report.schema.json``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from consoleagent.actions.spec import DISCREPANCY_KINDS as REPORTED_KINDS
from consoleagent.actions.spec import ReportedKind

SCHEMA_VERSION = 2  # 2: INCONCLUSIVE, and every verdict's reason (ProcedureReport.reason) and goal-directed attempts

# PASS: the goal was reached as documented. DRIFT: reached, but the document is inaccurate. FAIL: the
# documented outcome is impossible in this console, with evidence. INCONCLUSIVE: the agent could not
# reach the goal, with the document or without it, so nothing is blamed on the document. ERROR: the
# environment failed.
Verdict = Literal["PASS", "DRIFT", "FAIL", "INCONCLUSIVE", "ERROR"]
VERDICTS: tuple[str, ...] = ("PASS", "DRIFT", "FAIL", "INCONCLUSIVE", "ERROR")

# What an agent can report (actions.spec holds the one list), plus what only the environment can show.
DiscrepancyKind = Literal[ReportedKind, "env_error"]
DISCREPANCY_KINDS: tuple[str, ...] = (*REPORTED_KINDS, "env_error")

# agent: the agent reported it (report_discrepancy); alignment: inferred from what the agent did
# against what the step says; outcome: the audit log lacks the expected effect; environment: env_error.
DiscrepancySource = Literal["agent", "alignment", "outcome", "environment"]

# ok: done as documented; drift: done, but not as documented; failed: the step could not be done;
# not_reached: the episode ended before it; skipped: the agent passed over it (nothing to do there).
StepStatus = Literal["ok", "drift", "failed", "not_reached", "skipped"]

# How a label the step names was met in the console.
LabelMatch = Literal["exact", "renamed", "missing", "moved"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Fix(_Model):
    """A proposed text fix: the step as the document has it, and rewritten to the console as observed."""

    original: str
    proposed: str
    rationale: str  # what the agent observed that grounds the fix


class Evidence(_Model):
    screenshot: str | None = None  # path relative to the report directory (a marked screenshot)
    agent_step: int | None = None  # trajectory step number (1-based)
    run: int | None = None  # which run (0-based) the evidence comes from
    trajectory: str | None = None  # path relative to the report directory
    audit_event_ids: list[str] = Field(default_factory=list)
    observed_elements: list[str] = Field(default_factory=list)  # e.g. 'button "Create ECS Instance"'


class Discrepancy(_Model):
    id: str  # "<step id>/<kind>", or "<procedure id>/<kind>" when it belongs to no step
    step: int | None  # document step number (1-based), None for a procedure-level finding
    line: int | None = None  # source line of that step
    kind: DiscrepancyKind
    expected: str  # what the document says
    observed: str  # what the console did or showed
    source: DiscrepancySource
    runs: int = 1  # in how many runs it was found
    fix: Fix | None = None
    evidence: Evidence = Field(default_factory=Evidence)
    review: Literal["confirmed", "rejected"] | None = None  # a person's judgement (the review page)


class LabelUse(_Model):
    """One label the step names, and what the agent met in its place."""

    label: str  # as the document writes it
    match: LabelMatch
    observed: str | None = None  # the element's accessible name the agent used, if any
    role: str | None = None
    agent_step: int | None = None


class Input(_Model):
    field: str
    value: str
    agent_step: int | None = None


class StepReport(_Model):
    id: str  # "<procedure id>/<number>"
    number: int  # 1-based, as the document numbers it
    line: int
    text: str  # the step as the document has it (bold kept as **X**)
    status: StepStatus
    agent_steps: list[int] = Field(default_factory=list)  # trajectory steps aligned to it
    labels: list[LabelUse] = Field(default_factory=list)
    undocumented_inputs: list[Input] = Field(default_factory=list)  # input the step never mentions
    off_path: list[str] = Field(default_factory=list)  # actions outside the documented path (e.g. goto("/ecs"))
    screenshot: str | None = None  # the marked screenshot at this step's last action (relative path)
    substeps: list[StepReport] = Field(default_factory=list)
    # written by the parser, not the author (a reference page's "open the dialog", "save"): no text of the document
    synthesized: bool = False
    find: str | None = None  # a place the document never says how to reach ("Cast dialog"): the agent searched for it


class Reason(_Model):
    """Why a procedure got its verdict: the step it concerns, the reason in words, and the evidence
    (a screenshot, what was on the page, the audit records or their absence). Every non-PASS verdict
    has one, in every report format."""

    text: str
    step: int | None = None  # the document step the reason concerns (None: the whole procedure)
    evidence: Evidence = Field(default_factory=Evidence)


class Attempt(_Model):
    """A goal-directed attempt without the document, made when the documented procedure did not reach
    the goal: if it reaches the goal the document is wrong (DRIFT) and its path is the proposed fix;
    if not, the verdict is INCONCLUSIVE."""

    policy: str
    reached: bool
    status: str
    path: list[str] = Field(default_factory=list)  # what the agent did, in words ("click 'Create EIP'")
    trajectory: str | None = None  # relative to the report directory
    viewer: str | None = None


class RunReport(_Model):
    index: int
    status: str  # the episode status: completed | unachievable | truncated | env_error
    verdict: Verdict
    reason: Reason | None = None
    reward: float | None = None
    steps: int = 0
    duration_s: float = 0.0
    cause: str | None = None
    trajectory: str | None = None  # relative to the report directory
    viewer: str | None = None  # the trajectory viewer HTML, relative to the report directory
    audit_checks: list[dict] = Field(default_factory=list)  # the reward verdict's checks (kind, ok, detail, records)


class Consistency(_Model):
    runs: int
    verdicts: dict[str, int]  # verdict -> number of runs
    agreement: float  # share of runs whose verdict equals the combined verdict


class ProcedureReport(_Model):
    id: str  # "<document id>#<heading slug>"
    title: str
    line: int  # line of the procedure heading
    goal: str
    task: str | None = None  # the task file whose goal, provisioning and reward rule were used
    outcome_source: Literal["rule", "agent"] = "rule"  # rule: the audit-log reward rule judged the outcome
    verdict: Verdict
    reason: Reason | None = None  # why the verdict (required for every verdict but PASS)
    consistency: Consistency
    duration_s: float = 0.0  # mean wall time per run
    steps: list[StepReport] = Field(default_factory=list)
    discrepancies: list[Discrepancy] = Field(default_factory=list)
    runs: list[RunReport] = Field(default_factory=list)
    attempts: list[Attempt] = Field(default_factory=list)  # goal-directed attempts without the document


class DocumentReport(_Model):
    id: str  # front matter id, else the file stem
    path: str  # as given on the command line
    title: str = ""
    release: str | None = None  # the release the document describes (front matter)
    format: Literal["markdown", "rst", "html"] = "markdown"  # the format it was read from
    status: Literal["verified", "skipped", "invalid"] = "verified"
    reason: str | None = None  # why skipped / invalid ("file:line: message")
    procedures: list[ProcedureReport] = Field(default_factory=list)


class RunInfo(_Model):
    id: str
    created_at: str
    command: str | None = None
    console: str
    release: str | None = None
    policy: str
    policy_options: dict = Field(default_factory=dict)
    runs: int
    workers: int
    machine: str = ""
    revision: str | None = None
    duration_s: float = 0.0
    encoders: list[str] = Field(default_factory=list)  # the sentence encoders the runs and the judging used


class Summary(_Model):
    documents: int
    procedures: int
    verdicts: dict[str, int]  # PASS / DRIFT / FAIL / INCONCLUSIVE / ERROR -> count
    skipped: int = 0
    invalid: int = 0
    discrepancies: int = 0
    by_kind: dict[str, int] = Field(default_factory=dict)
    reviewed: int = 0
    confirmed: int = 0
    precision_confirmed: float | None = None  # confirmed / reviewed, when something was reviewed


class VerifyReport(_Model):
    schema_version: int = SCHEMA_VERSION
    run: RunInfo
    summary: Summary
    documents: list[DocumentReport] = Field(default_factory=list)

    def procedures(self) -> list[ProcedureReport]:
        return [p for d in self.documents for p in d.procedures]
