"""Align one run's trajectory with the documented procedure, step by step.

A verification report has to say, for every numbered step of a document, what the agent did
there: which of its actions belong to the step, which elements it used and whether they carried
the labels the step names, what it typed that the step never mentions, and where it left the
documented path. That evidence is what makes a reported defect checkable by a person, and what the
conservative inferences of :mod:`consoleagent.verify.classify` are drawn from.

Which document step an action belongs to: the step the agent declared (the step record's
``document_step``, or the step of a ``report_discrepancy``); when absent (the oracle, replays),
the step whose labels the acted-on element carries, searched forward from the step in progress,
then backward (a reordered wizard), else the step in progress.
"""

from __future__ import annotations

import difflib
import os
import re
from functools import cached_property
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from consoleagent.documents.procedure import Procedure, Step, strip_markup
from consoleagent.documents.instructions import instructions_from
from consoleagent.documents.labels import FUZZY_RATIO, MAX_ADDED_WORDS, normalize
from consoleagent.observation.roles import FIELD_ROLES
from consoleagent.observation.types import rendered_sections
from consoleagent.policies.candidates import resource_values
from consoleagent.trajectory.reader import Trajectory
from consoleagent.verify.model import Discrepancy, Input, LabelUse, StepReport

ELEMENT_ACTIONS = {"click", "dblclick", "type", "select", "check", "uncheck", "hover", "upload"}
INPUT_ACTIONS = {"type", "select", "check", "uncheck", "upload"}
PAGE_CHANGING = ELEMENT_ACTIONS - {"hover"} | {"goto", "back", "press"}
_QUOTED = re.compile(r"""['"“”‘’]([^'"“”‘’]{1,120})['"“”‘’]""")
_COUNT = re.compile(r"\s*[(\[]?\d+[)\]]?$")  # "Inbound Rules 1", "Key Pairs (0)": a count badge, not the label


# --- comparing labels ---------------------------------------------------------------------------


def clean_name(name: str) -> str:
    """An element's accessible name without a trailing count badge."""
    stripped = _COUNT.sub("", name or "").strip()
    return stripped or (name or "").strip()


def label_in(text: str) -> str:
    """The element name inside a report's free text: ``an element named 'X'`` → X."""
    quoted = _QUOTED.findall(text or "")
    return quoted[0].strip() if quoted else (text or "").strip()


def _subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(word in it for word in short)


def relation(label: str, name: str) -> Literal["exact", "renamed"] | None:
    """How an element's name relates to a label the document writes: the same label (case, spacing,
    punctuation and count badges aside), a close-but-different one (the label's words in order with at
    most three more, or a near spelling), or none."""
    want, have = normalize(label), normalize(clean_name(name))
    if not want or not have:
        return None
    if want == have:
        return "exact"
    a, b = want.split(), have.split()
    if _subsequence(a, b) and len(b) - len(a) <= MAX_ADDED_WORDS:
        return "renamed"
    if min(len(want), len(have)) >= 4 and difflib.SequenceMatcher(None, want, have).ratio() >= FUZZY_RATIO:
        return "renamed"
    return None


def describe(mark: dict[str, Any]) -> str:
    """``button "Create ECS Instance"``: how a report names an element."""
    return f'{mark.get("role", "")} "{mark.get("name") or ""}"'.strip()


# --- what the agent did -------------------------------------------------------------------------


@dataclass(eq=False)  # compared by identity: one object per trajectory step
class AgentAction:
    """One trajectory step, digested: the action, the element it acted on, the step it belongs to."""

    number: int  # the trajectory step number (1-based)
    name: str  # the parsed action's name ("" when it did not parse)
    args: dict[str, Any]
    element: dict[str, Any] | None  # the mark acted on (role, name, value, states, ...)
    result: str
    record: dict[str, Any]
    declared: int | None = None  # the document step the agent said it was on
    doc_step: int | None = None  # the document step it is aligned to
    backward: bool = False  # aligned to an earlier step than the one in progress (by a label the agent went back to)

    @property
    def ok(self) -> bool:
        return self.result == "ok"

    @property
    def marks(self) -> list[dict[str, Any]]:
        return self.record.get("marks") or []

    def text(self) -> str:
        return str(self.record.get("action") or self.name)


def digest(trajectory: Trajectory) -> list[AgentAction]:
    actions = []
    for record in trajectory.steps:
        parsed = record.get("parsed") or {}
        args = dict(parsed.get("args") or {})
        element = None
        if "id" in args:
            element = next((m for m in record.get("marks") or [] if m.get("id") == args["id"]), None)
        declared = record.get("document_step")
        if parsed.get("name") == "report_discrepancy" and isinstance(args.get("step"), int):
            declared = args["step"]
        actions.append(AgentAction(number=int(record.get("step") or len(actions) + 1), name=parsed.get("name") or "",
                                   args=args, element=element, result=str(record.get("result") or "ok"),
                                   record=record, declared=declared if isinstance(declared, int) else None))
    return actions


def action_value(action: AgentAction) -> str:
    if action.name == "type":
        return str(action.args.get("text", ""))
    if action.name == "select":
        return str(action.args.get("option", ""))
    if action.name == "upload":
        return str(action.args.get("path", ""))
    return "checked" if action.name == "check" else "cleared"


# --- what the document asks ---------------------------------------------------------------------


@dataclass
class StepPlan:
    """A document step's actionable labels, read the way the doc follower reads them."""

    step: Step
    targets: list[str] = field(default_factory=list)  # click / navigate / check labels, in order
    fields: list[str] = field(default_factory=list)  # fill / select field names
    values: list[str] = field(default_factory=list)  # values for those fields (radio options are named by them)
    paths: list[list[str]] = field(default_factory=list)  # navigation paths
    others: list[str] = field(default_factory=list)  # other bold labels ("... or the **Outbound** tab")

    @property
    def labels(self) -> list[str]:
        return list(dict.fromkeys(self.targets + self.fields))

    def matches(self, name: str, kinds: tuple[str, ...] = ("exact",)) -> str | None:
        """The label of this step an element named ``name`` carries (by the given relations)."""
        for label in self.labels + self.values + self.others:
            if relation(label, name) in kinds:
                return label
        return None


def plan(step: Step) -> StepPlan:
    result = StepPlan(step)
    for ins in instructions_from(step.full_text()):
        if ins.kind == "navigate":
            result.paths.append(list(ins.path))
            result.targets += ins.path
        elif ins.kind in ("fill", "select"):
            result.fields.append(ins.target)
            if ins.value:
                result.values.append(ins.value)
        elif ins.kind != "wait_for":
            result.targets.append(ins.target)
    result.targets = list(dict.fromkeys(result.targets))
    named = {normalize(x) for x in result.targets + result.fields + result.values}
    result.others = [label for label in step.ui_labels if normalize(label) not in named]
    return result


def step_words(step: Step) -> list[str]:
    """A step's own words: its text, its parameter tables' rows (not their headers), notes and sub-steps."""
    parts = [step.text] + [" ".join(row) for table in step.tables for row in table.rows] + step.notes
    return parts + [w for sub in step.substeps for w in step_words(sub)]


def procedure_words(procedure: Procedure, goal: str = "") -> str:
    """The whole procedure (and the task's goal) as normalised text: what "the document mentions it" is
    checked against. Table headers ("Parameter | Description | Example") are not mentions."""
    parts = [strip_markup(w) for step in procedure.steps for w in step_words(step)] + [goal]
    return " " + normalize(" ".join(parts)) + " "


def mentioned(name: str, words: str) -> bool:
    have = normalize(clean_name(name))
    return bool(have) and f" {have} " in words


# --- assigning actions to steps -----------------------------------------------------------------


def assign(actions: list[AgentAction], plans: list[StepPlan]) -> None:
    """Set each action's ``doc_step``: declared, else inferred from the labels of the element it used."""
    count = len(plans)
    current = 1
    observed_of: dict[str, int] = {}  # a reported new label -> the step it was reported at
    clicked: set[tuple[int, str]] = set()  # (step, label) already clicked: a second "Next" belongs to a later step
    for action in actions:
        if action.declared is not None and 1 <= action.declared <= count:
            action.doc_step = action.declared
        else:
            action.doc_step = _infer(action, plans, current, observed_of, clicked)
            action.backward = action.doc_step < current
        current = action.doc_step
        if action.name == "report_discrepancy":
            observed_of[normalize(str(action.args.get("observed", "")))] = action.doc_step
        if action.name == "click" and action.element is not None and action.ok:
            label = plans[current - 1].matches(action.element.get("name") or "", ("exact", "renamed"))
            if label is not None:
                clicked.add((current, normalize(label)))


def _infer(action: AgentAction, plans: list[StepPlan], current: int, observed_of: dict[str, int],
           clicked: set[tuple[int, str]]) -> int:
    if action.element is None:
        return current
    name = action.element.get("name") or ""
    if normalize(clean_name(name)) in observed_of:
        return observed_of[normalize(clean_name(name))]
    numbered = list(enumerate(plans, 1))
    forward = numbered[current - 1:]
    backward = list(reversed(numbered[:current - 1]))
    for candidates, kinds in ((forward, ("exact",)), (forward, ("renamed",)), (backward, ("exact",))):
        for number, step_plan in candidates:
            label = step_plan.matches(name, kinds)  # type: ignore[arg-type]
            if label is None:
                continue
            if action.name == "click" and (number, normalize(label)) in clicked and number != len(plans) \
                    and any(p.matches(name, kinds) for _, p in numbered[number:]):  # type: ignore[arg-type]
                continue
            return number
    return current


# --- the evidence of one step --------------------------------------------------------------------


@dataclass
class RunAlignment:
    """What one run did at each document step, and the discrepancies found in it."""

    steps: list[StepReport]
    discrepancies: list[Discrepancy]
    # What the agent reported as outcome_mismatch / env_error: the lead decides those from the reward verdict.
    outcome_reports: list[Discrepancy] = field(default_factory=list)


def relative(path: Path | None, report_dir: Path) -> str | None:
    """A path relative to the report directory (forward slashes), or None when the file is not there."""
    if path is None or not path.exists():
        return None
    return Path(os.path.relpath(path.resolve(), report_dir.resolve())).as_posix()


def screenshot_of(trajectory: Trajectory, action: AgentAction | None, report_dir: Path) -> str | None:
    return relative(trajectory.screenshot_path(action.record), report_dir) if action is not None else None


def label_uses(step_plan: StepPlan, mine: list[AgentAction], found: list[Discrepancy]) -> list[LabelUse]:
    """For each label the step acts on: exact, renamed, missing or moved, with the element met in its place.
    The step's classified discrepancies speak first, then the elements the agent used, then those it saw."""
    uses = []
    for label in step_plan.labels:
        use = _classified(label, found) or _used(label, mine) or _seen(label, mine)
        if use is not None:
            uses.append(use)
        elif mine and (label in step_plan.targets or _reported_missing(label, mine)):
            uses.append(LabelUse(label=label, match="missing", agent_step=_reported_missing(label, mine)))
    return uses


def _classified(label: str, found: list[Discrepancy]) -> LabelUse | None:
    """What a discrepancy of the step says about the label: renamed to, moved, or gone."""
    want = normalize(label)
    for d in found:
        parts = [normalize(p) for p in label_in(d.expected).split(">")]
        if not want or want not in (parts[-1:] if d.kind == "navigation_changed" else parts):
            continue
        if d.kind == "label_changed":
            return LabelUse(label=label, match="renamed", observed=label_in(d.observed), agent_step=d.evidence.agent_step)
        if d.kind == "navigation_changed":
            return LabelUse(label=label, match="moved", observed=label_in(d.observed), agent_step=d.evidence.agent_step)
        if d.kind in ("element_removed", "feature_removed"):
            return LabelUse(label=label, match="missing", agent_step=d.evidence.agent_step)
    return None


def _reported_missing(label: str, mine: list[AgentAction]) -> int | None:
    """The agent step where the agent said it could not find this label (kept as evidence even when the
    report itself is not a defect, e.g. a consequence of an earlier miss)."""
    want = normalize(label)
    for action in mine:
        if action.name == "report_discrepancy" and want == normalize(label_in(str(action.args.get("expected", "")))):
            return action.number
    return None


def _used(label: str, mine: list[AgentAction]) -> LabelUse | None:
    best: LabelUse | None = None
    for action in mine:
        if action.element is None or action.name not in ELEMENT_ACTIONS:
            continue
        kind = relation(label, action.element.get("name") or "")
        if kind == "exact":
            return LabelUse(label=label, match="exact", observed=action.element.get("name"),
                            role=action.element.get("role"), agent_step=action.number)
        if kind == "renamed" and best is None:
            best = LabelUse(label=label, match="renamed", observed=action.element.get("name"),
                            role=action.element.get("role"), agent_step=action.number)
    return best


def _seen(label: str, seen: list[AgentAction]) -> LabelUse | None:
    for action in seen:
        for mark in action.marks:
            if relation(label, mark.get("name") or "") == "exact":
                return LabelUse(label=label, match="exact", observed=mark.get("name"), role=mark.get("role"),
                                agent_step=action.number)
    return None


def undocumented_inputs(mine: list[AgentAction], words: str) -> list[Input]:
    """Input into a field the procedure never mentions (by name, anywhere in its text)."""
    found = []
    for action in mine:
        mark = action.element
        if action.name not in INPUT_ACTIONS or mark is None or not action.ok:
            continue
        if mark.get("role") not in FIELD_ROLES and action.name not in ("type", "select"):
            continue
        if not mentioned(mark.get("name") or "", words):
            found.append(Input(field=mark.get("name") or "", value=action_value(action), agent_step=action.number))
    return found


def documented(name: str, words: str, labels: list[str]) -> bool:
    """The procedure (or goal) names this element: its whole name, or a label or value it starts with
    (a radio "ecs.g7.large 2 vCPU · 8 GiB" for the value ecs.g7.large)."""
    if mentioned(name, words):
        return True
    have = normalize(clean_name(name))
    return any(have.startswith(normalize(label) + " ") for label in labels if normalize(label))


def off_path(mine: list[AgentAction], words: str, labels: list[str], reported_names: set[str]) -> list[str]:
    """Actions outside the documented path: goto/back, and clicks on elements the procedure never names."""
    out = []
    for action in mine:
        if action.name in ("goto", "back"):
            out.append(action.text())
        elif action.name == "click" and action.element is not None and action.ok:
            name = action.element.get("name") or ""
            if not documented(name, words, labels) and normalize(clean_name(name)) not in reported_names:
                out.append(f"click {describe(action.element)}")
    return out


@dataclass
class AlignmentContext:
    """Everything about one run that classification and fixes read."""

    procedure: Procedure
    trajectory: Trajectory
    plans: list[StepPlan]
    actions: list[AgentAction]
    words: str
    procedure_id: str
    run: int
    report_dir: Path
    goal_words: str = ""  # the procedure's words and the goal's: a click on a resource the goal names is on the path

    def of_step(self, number: int) -> list[AgentAction]:
        return [a for a in self.actions if a.doc_step == number]

    @cached_property
    def provisioned_names(self) -> frozenset[str]:
        """Names and ids of the resources provisioned for this run (the observation's "Resources prepared
        for you" section: ``- web (vpc): VpcId=vpc-1, VpcName=meta-warehouse``): a document never names them."""
        first = str(self.trajectory.steps[0].get("observation") or "") if self.trajectory.steps else ""
        report = rendered_sections(first).get("Resources prepared for you")
        return frozenset(value.casefold() for value in resource_values(report) if len(value) >= 3)

    @cached_property
    def reported_names(self) -> set[str]:
        """What the agent's reports say the console shows, over the whole run (the same for every step)."""
        return {normalize(str(a.args.get("observed", ""))) for a in self.actions if a.name == "report_discrepancy"}

    @cached_property
    def documented_labels(self) -> list[str]:
        """Every label and value the procedure's steps name."""
        return [x for p in self.plans for x in p.labels + p.values]

    @property
    def status(self) -> str:
        """The episode status; "interrupted" when the run stopped without a footer (nobody's verdict)."""
        return str((self.trajectory.footer or {}).get("status") or "interrupted")

    def last_step(self) -> int | None:
        steps = [a.doc_step for a in self.actions if a.doc_step is not None]
        return steps[-1] if steps else None

    def step_id(self, number: int) -> str:
        return f"{self.procedure_id}/{number}"


def step_report(context: AlignmentContext, index: int, found: list[Discrepancy]) -> StepReport:
    step_plan = context.plans[index]
    number = index + 1
    mine = context.of_step(number)
    report = StepReport(
        id=context.step_id(number), number=number, line=step_plan.step.line, text=step_plan.step.full_text(),
        status="ok", agent_steps=[a.number for a in mine],
        labels=label_uses(step_plan, mine, [d for d in found if d.step == number]),
        undocumented_inputs=undocumented_inputs(mine, context.words),
        off_path=off_path(mine, context.goal_words or context.words, context.documented_labels, context.reported_names),
        screenshot=screenshot_of(context.trajectory, mine[-1] if mine else None, context.report_dir),
        synthesized=step_plan.step.synthesized, find=step_plan.step.find)
    report.status = step_status(context, number, report, [d for d in found if d.step == number])
    report.substeps = substep_reports(context, step_plan.step, report, mine)
    return report


def step_status(context: AlignmentContext, number: int, report: StepReport, found: list[Discrepancy]) -> str:
    """ok / drift / failed / not_reached / skipped, from the actions aligned to the step and its findings."""
    mine = context.of_step(number)
    last = context.last_step()
    if not mine:
        if (last is not None and last > number) or context.status == "completed":
            return "skipped" if plan_has_work(context.plans[number - 1]) else "ok"
        return "not_reached"
    ends_here = last == number and context.status in ("unachievable", "truncated")
    if ends_here or any(d.kind == "feature_removed" for d in found) or _unrecovered(mine):
        return "failed"
    drifted = (found or report.undocumented_inputs or report.off_path
               or any(use.match != "exact" for use in report.labels if use.match != "missing"))
    return "drift" if drifted else "ok"


def plan_has_work(step_plan: StepPlan) -> bool:
    return bool(step_plan.targets or step_plan.fields)


def _unrecovered(mine: list[AgentAction]) -> bool:
    """The agent reported an element gone and did nothing successful at the step afterwards."""
    gone = [a.number for a in mine if a.name == "report_discrepancy"
            and str(a.args.get("kind")) in ("element_removed", "feature_removed")]
    if not gone:
        return False
    return not any(a.number > gone[-1] and a.ok and a.name in PAGE_CHANGING for a in mine)


def substep_reports(context: AlignmentContext, step: Step, parent: StepReport, mine: list[AgentAction]) -> list[StepReport]:
    """Sub-steps: the parent's actions whose element carries a sub-step's labels."""
    out = []
    for sub in step.substeps:
        sub_plan = plan(sub)
        used = [a for a in mine if a.element is not None and sub_plan.matches(a.element.get("name") or "",
                                                                             ("exact", "renamed"))]
        if used:
            status = "drift" if any(relation(sub_plan.matches(a.element.get("name") or "", ("exact", "renamed")) or "",
                                             a.element.get("name") or "") == "renamed" for a in used if a.element) else "ok"
        else:
            status = parent.status if parent.status in ("not_reached", "failed") else (
                "skipped" if plan_has_work(sub_plan) else "ok")
        out.append(StepReport(
            id=f"{parent.id}.{sub.number}", number=sub.number, line=sub.line, text=sub.full_text(), status=status,  # type: ignore[arg-type]
            agent_steps=[a.number for a in used], labels=label_uses(sub_plan, used, []),
            screenshot=screenshot_of(context.trajectory, used[-1] if used else None, context.report_dir),
            synthesized=sub.synthesized, find=sub.find))
    return out


