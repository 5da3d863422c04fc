"""Turn what the agent reported, and what the alignment makes certain, into classified discrepancies.

The agent's own ``report_discrepancy`` calls are the primary source. Their kinds are normalised to
the changelog's (an LLM writes "renamed" or "Label changed"), they are deduplicated per (step,
kind), and each carries its evidence: the marked screenshot of the agent step where it was found,
the run, the elements observed. Precision matters more than recall (a documentation team stops
reading a report that cries wolf), so the alignment corrects and adds only what the evidence makes
certain:

- a *not found* report (element_removed, navigation_changed) while an element carrying the label's
  words with a few more was on the page is a rename: ``label_changed`` to that element's name;
- a *not found* report right after another one, with nothing done in between, is a consequence of
  the first (the dialog never opened), not a second defect: it is dropped;
- an ``element_removed`` report while an element of exactly that name was on the page is contradicted
  by the page and dropped;
- a click on an element carrying a step's label with a few more words, when no element had the label
  itself, is an unreported ``label_changed``;
- input into a field the console marks required and the document never names (or calls optional) is
  ``field_added_required``;
- a form field whose first observed value differs from the default the document states is
  ``default_changed``.

``outcome_mismatch`` and ``env_error`` are decided by the lead from the reward verdict and the
episode status; the agent's reports of them are returned apart.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from consoleagent.documents.procedure import bold_labels, strip_markup
from consoleagent.documents.labels import normalize
from consoleagent.observation.roles import FIELD_ROLES, TEXT_ROLES, TOGGLE_ROLES
from consoleagent.verify.align import (
    PAGE_CHANGING,
    AgentAction,
    AlignmentContext,
    clean_name,
    label_in,
    describe,
    mentioned,
    relation,
    relative,
    screenshot_of,
)
from consoleagent.verify.model import DISCREPANCY_KINDS, Discrepancy, Evidence

NOT_FOUND = ("element_removed", "navigation_changed")
OUTCOME_KINDS = ("outcome_mismatch", "env_error")
MAX_ELEMENTS = 5

# What agents write instead of the changelog kinds (compared after lower-casing, spaces to '_').
KIND_SYNONYMS: dict[str, str] = {
    "renamed": "label_changed", "label_renamed": "label_changed", "label_change": "label_changed",
    "text_changed": "label_changed", "label": "label_changed", "wording_changed": "label_changed",
    "removed": "element_removed", "missing": "element_removed", "element_missing": "element_removed",
    "element_not_found": "element_removed", "not_found": "element_removed", "missing_element": "element_removed",
    "moved": "navigation_changed", "navigation": "navigation_changed", "nav_changed": "navigation_changed",
    "menu_changed": "navigation_changed", "path_changed": "navigation_changed", "location_changed": "navigation_changed",
    "order_changed": "step_order_changed", "step_order": "step_order_changed", "reordered": "step_order_changed",
    "new_required_field": "field_added_required", "required_field_added": "field_added_required",
    "field_required": "field_added_required", "required_field": "field_added_required",
    "missing_required_field": "field_added_required", "field_added": "field_added_required",
    "default": "default_changed", "default_value_changed": "default_changed", "defaults_changed": "default_changed",
    "feature_missing": "feature_removed", "feature_unavailable": "feature_removed", "unsupported": "feature_removed",
    "outcome": "outcome_mismatch", "result_mismatch": "outcome_mismatch", "unexpected_result": "outcome_mismatch",
    "environment_error": "env_error", "error": "env_error",
}
_DEFAULT = [re.compile(r"\bdefault(?:\s+(?:value|category|setting|option))?\s*(?:is|:)\s*\**(?P<value>[^*.]+?)\**\s*(?:\.|$)",
                       re.I),
            re.compile(r"\*\*(?P<value>[^*]+)\*\*\s*\([^)]*\bselected by default\)", re.I)]


def normalize_kind(raw: Any) -> str | None:
    """The changelog kind an agent meant, or None when it names none."""
    text = re.sub(r"[\s\-]+", "_", str(raw or "").strip().casefold())
    if text in DISCREPANCY_KINDS:
        return text
    if text in KIND_SYNONYMS:
        return KIND_SYNONYMS[text]
    close = difflib.get_close_matches(text, list(DISCREPANCY_KINDS) + list(KIND_SYNONYMS), n=1, cutoff=0.75)
    return (close[0] if close[0] in DISCREPANCY_KINDS else KIND_SYNONYMS[close[0]]) if close else None


@dataclass
class Finding:
    """A discrepancy before it becomes a report entry."""

    step: int | None
    kind: str
    expected: str
    observed: str
    source: str  # agent | alignment
    action: AgentAction | None = None  # the agent step where it was found
    elements: list[str] = field(default_factory=list)
    raw_kind: str = ""  # what the agent wrote


# --- the agent's reports --------------------------------------------------------------------------


def agent_findings(ctx: AlignmentContext) -> list[Finding]:
    """Every report_discrepancy of the run: from the step records, plus footer entries no record holds."""
    found: list[Finding] = []
    held: list[tuple[Any, ...]] = []
    for action in ctx.actions:
        if action.name != "report_discrepancy":
            continue
        data = action.record.get("discrepancy") or action.args
        found.append(_finding(ctx, data, action))
        held.append(_key(data))
    for data in (ctx.trajectory.footer or {}).get("discrepancies") or []:
        if _key(data) in held:
            held.remove(_key(data))
        else:
            found.append(_finding(ctx, data, None))
    return found


def _key(data: dict[str, Any]) -> tuple[Any, ...]:
    return (data.get("step"), data.get("kind"), data.get("expected"), data.get("observed"))


def _finding(ctx: AlignmentContext, data: dict[str, Any], action: AgentAction | None) -> Finding:
    step = data.get("step")
    if not isinstance(step, int) or not 1 <= step <= len(ctx.plans):
        step = action.doc_step if action is not None else None
    kind = normalize_kind(data.get("kind"))
    return Finding(step=step, kind=kind or "", expected=str(data.get("expected") or ""),
                   observed=str(data.get("observed") or ""), source="agent", action=action,
                   raw_kind=str(data.get("kind") or ""))


# --- corrections from the evidence ------------------------------------------------------------------


def renamed_candidates(label: str, marks: list[dict[str, Any]]) -> list[str]:
    """Names of clickable elements that carry ``label`` renamed, when none carries it exactly."""
    clickable = [m for m in marks if m.get("role") not in TEXT_ROLES]
    if not label or any(relation(label, m.get("name") or "") == "exact" for m in clickable):
        return []
    names = [clean_name(m.get("name") or "") for m in clickable if relation(label, m.get("name") or "") == "renamed"
             and _superset(label, m.get("name") or "")]
    return list(dict.fromkeys(names))


def _superset(label: str, name: str) -> bool:
    """The name keeps every word of the label and adds no more words than the label has (a rename:
    "Inbound" → "Inbound Rules", "Add Rule" → "Add Security Group Rule"; not "Create" → "Create ECS Instance",
    a different button that starts the same)."""
    want, have = set(normalize(label).split()), set(normalize(clean_name(name)).split())
    return bool(want) and want <= have and len(have - want) <= len(want)


def _observations(ctx: AlignmentContext, action: AgentAction | None) -> list[AgentAction]:
    """The observation the agent reported from, and the one before it (before a scroll)."""
    if action is None:
        return []
    index = ctx.actions.index(action)
    return ctx.actions[max(0, index - 1):index + 1]


def relabel(ctx: AlignmentContext, finding: Finding) -> Finding:
    """A not-found report while a renamed element was on the page: label_changed, observed = that name."""
    if finding.source != "agent" or finding.kind not in NOT_FOUND:
        return finding
    label = label_in(finding.expected).split(" > ")[-1].strip()
    names: list[str] = []
    for action in _observations(ctx, finding.action):
        names += [n for n in renamed_candidates(label, action.marks) if n not in names]
    fewest = sorted({len(normalize(n).split()) for n in names})
    closest = [n for n in names if len(normalize(n).split()) == fewest[0]] if fewest else []
    if len(closest) != 1:
        return finding
    elements = [describe(m) for a in _observations(ctx, finding.action) for m in a.marks
                if clean_name(m.get("name") or "") == closest[0]]
    return Finding(step=finding.step, kind="label_changed", expected=label, observed=closest[0], source="alignment",
                   action=finding.action, elements=list(dict.fromkeys(elements))[:MAX_ELEMENTS], raw_kind=finding.raw_kind)


def dead_end(ctx: AlignmentContext, finding: Finding) -> Finding:
    """An element reported gone, after which the agent got nothing more done and gave up at that same step:
    the capability, not just a button, is gone (feature_removed)."""
    if finding.source != "agent" or finding.kind != "element_removed" or finding.action is None \
            or ctx.status != "unachievable" or not ctx.actions or ctx.actions[-1].doc_step != finding.step:
        return finding
    if any(a.number > finding.action.number and a.ok and a.name in PAGE_CHANGING for a in ctx.actions):
        return finding
    return Finding(step=finding.step, kind="feature_removed", expected=finding.expected,
                   observed=f"{finding.observed}; the agent found no other way and gave up: "
                            f"{(ctx.trajectory.footer or {}).get('answer') or ''}".rstrip(": "),
                   source="alignment", action=finding.action, elements=finding.elements, raw_kind=finding.raw_kind)


def suppress_cascades(ctx: AlignmentContext, findings: list[Finding]) -> list[Finding]:
    """Drop a not-found report that follows another with no successful page-changing action between them."""
    kept = []
    previous: int | None = None
    for finding in findings:
        number = finding.action.number if finding.action is not None else None
        if finding.source == "agent" and normalize_kind(finding.raw_kind) in NOT_FOUND and number is not None:
            if previous is not None and not any(previous < a.number < number and a.ok and a.name in PAGE_CHANGING
                                                for a in ctx.actions):
                previous = number
                continue
            previous = number
        kept.append(finding)
    return kept


def _alternatives(label: str) -> list[str]:
    """"NAT gateway or ECS instance" → the label and each alternative it names."""
    return [label] + [part.strip() for part in re.split(r"\s+(?:or|and)\s+", label) if part.strip() != label]


def contradicted(finding: Finding) -> bool:
    """A report the page it was made on refutes: element_removed while an enabled element of exactly that
    name (or of one of the alternatives the label names) was there; label_changed whose "new" label is one
    of the alternatives the document already names."""
    if finding.source != "agent" or finding.action is None:
        return False
    label = label_in(finding.expected)
    if finding.kind == "label_changed":
        observed = normalize(label_in(finding.observed))
        return len(_alternatives(label)) > 1 and any(normalize(a) == observed for a in _alternatives(label)[1:])
    if finding.kind != "element_removed":
        return False
    return any(relation(name, m.get("name") or "") == "exact" and "disabled" not in (m.get("states") or [])
               for name in _alternatives(label) for m in finding.action.marks)


def stranded(ctx: AlignmentContext) -> list[tuple[int, str]]:
    """Where the agent never arrived: (agent step, URL) after each documented menu path it did not complete
    (no click at the step, or its last click left the URL unchanged). Reports made later on that same URL
    describe a page the document does not lead to."""
    out = []
    for number, step_plan in enumerate(ctx.plans, 1):
        mine = ctx.of_step(number)
        if not step_plan.paths or not mine:
            continue
        clicks = [a for a in mine if a.name == "click" and a.ok and a.element is not None]
        if not clicks:
            out.append((mine[-1].number, str(mine[-1].record.get("url") or "")))
            continue
        on_path = [a for a in clicks if any(relation(label, a.element.get("name") or "") for path in step_plan.paths
                                            for label in path)]  # type: ignore[union-attr]
        if not on_path:
            continue  # it went another way; nothing says where it arrived
        after = next((a for a in ctx.actions if a.number > on_path[-1].number), None)
        url = str(on_path[-1].record.get("url") or "")
        if after is not None and url and str(after.record.get("url") or "") == url:
            out.append((clicks[-1].number, url))
    return out


def off_the_path(ctx: AlignmentContext, finding: Finding, stuck: list[tuple[int, str]]) -> bool:
    """A report made on a page the documented navigation never left, at a later step: absence from a page
    the document does not lead to proves nothing, and a rename seen there counts only when the new name
    keeps every word of the label ("Create Instance" → "Create ECS Instance", not "2. Create vSwitches")."""
    kind = normalize_kind(finding.raw_kind)
    if finding.source != "agent" or finding.action is None or kind not in (*NOT_FOUND, "label_changed"):
        return False
    if kind == "label_changed" and _superset(label_in(finding.expected), label_in(finding.observed)):
        return False
    url = str(finding.action.record.get("url") or "")
    for number, where in stuck:
        if finding.action.number > number and url == where:
            moved = any(number < a.number < finding.action.number and str(a.record.get("url") or "") != where
                        for a in ctx.actions)
            start = next((a for a in ctx.actions if a.number == number), None)
            if not moved and (start is None or start.doc_step != finding.step):
                return True
    return False


# --- what the alignment adds -----------------------------------------------------------------------


def inferred_renames(ctx: AlignmentContext) -> list[Finding]:
    """A click on an element carrying a step's label with more words, when no element had the label."""
    known = [label for p in ctx.plans for label in p.labels + p.values + p.others]
    found = []
    for action in ctx.actions:
        mark = action.element
        if action.name != "click" or mark is None or action.doc_step is None or mark.get("role") in TEXT_ROLES:
            continue
        name = mark.get("name") or ""
        if any(relation(label, name) == "exact" for label in known):
            continue
        step_plan = ctx.plans[action.doc_step - 1]
        for label in step_plan.targets + step_plan.others:
            if relation(label, name) == "renamed" and _superset(label, name) and renamed_candidates(label, action.marks):
                found.append(Finding(step=action.doc_step, kind="label_changed", expected=label,
                                     observed=clean_name(name), source="alignment", action=action,
                                     elements=[describe(mark)]))
                break
    return found


def _words(text: str) -> set[str]:
    return set(normalize(clean_name(text)).split())


def group_of(marks: list[dict[str, Any]], target: dict[str, Any]) -> dict[str, Any] | None:
    """The expandable group (a navigation section) a link sits in: the nearest expanded mark before it,
    above it, in the same column of the page."""
    index = next((i for i, m in enumerate(marks) if m is target), -1)
    x, y = (target.get("bbox") or (0, 0, 0, 0))[:2]
    for mark in reversed(marks[:max(index, 0)]):
        if "expanded" not in (mark.get("states") or []) or mark.get("frame", "") != target.get("frame", ""):
            continue
        gx, gy, gw = (mark.get("bbox") or (0, 0, 0, 0))[:3]
        if gx - 4 <= x <= gx + max(gw, 1) and gy < y:
            return mark
        return None
    return None


def inferred_navigation(ctx: AlignmentContext) -> list[Finding]:
    """A menu path ``**P** > **L**`` whose link L the console shows under another group G: the group was
    renamed (G's words within P's, or P's within G's, and no P anywhere) or L moved (navigation_changed)."""
    found = []
    for number, step_plan in enumerate(ctx.plans, 1):
        for path in step_plan.paths:
            # the first page of the step that shows the path's link ("Open the ECS console and go to A > B" starts
            # on the console's home, where no menu is)
            seen = next((a for a in ctx.of_step(number) if _links(a.marks, path[-1])), None) if len(path) >= 2 else None
            finding = _path_finding(number, path[-2], path[-1], seen) if seen is not None else None
            if finding is not None:
                found.append(finding)
    return found


def _links(marks: list[dict[str, Any]], last: str) -> list[dict[str, Any]]:
    """The marks named like a path's last label that are not a group themselves."""
    return [m for m in marks if relation(last, m.get("name") or "") == "exact" and "expanded" not in (m.get("states") or [])]


def _path_finding(number: int, parent: str, last: str, action: AgentAction) -> Finding | None:
    marks = action.marks
    links = _links(marks, last)
    groups = [g for g in (group_of(marks, link) for link in links) if g is not None]
    if not groups or any(relation(parent, g.get("name") or "") == "exact" for g in groups):
        return None
    group = clean_name(groups[0].get("name") or "")
    parent_exists = any(relation(parent, m.get("name") or "") == "exact" for m in marks)
    related = _words(group) < _words(parent) or _words(parent) < _words(group)
    if related and not parent_exists:
        return Finding(step=number, kind="label_changed", expected=parent, observed=group, source="alignment",
                       action=action, elements=[describe(groups[0])])
    return Finding(step=number, kind="navigation_changed", expected=f"{parent} > {last}", observed=f"{group} > {last}",
                   source="alignment", action=action, elements=[describe(groups[0]), describe(links[0])])


_PAGE = re.compile(r"\bon the \*\*(?P<label>[^*]+)\*\* page\b", re.I)


def inferred_page_titles(ctx: AlignmentContext) -> list[Finding]:
    """"On the **X** page" while the page the step starts on is titled X with a few more words."""
    found = []
    for number, step in enumerate(ctx.procedure.steps, 1):
        mine = ctx.of_step(number)
        match = _PAGE.search(step.text)
        if not mine or match is None:
            continue
        title = str(mine[0].record.get("title") or "").split(" · ")[0].strip()
        label = match.group("label").strip()
        if title and relation(label, title) == "renamed" and _superset(label, title):
            found.append(Finding(step=number, kind="label_changed", expected=label, observed=title, source="alignment",
                                 action=mine[0], elements=[f'page title "{title}"']))
    return found


_STEP_NAME = re.compile(r"\b(?:in|on) the \*\*(?P<name>[^*]+)\*\* (?:step|tab|page|section)\b", re.I)


def inferred_step_order(ctx: AlignmentContext) -> list[Finding]:
    """Two consecutive steps that each fill their own form fields, whose fields the console showed in the
    other order: the later step's fields appeared while none of the earlier step's were there yet."""
    fields = [{normalize(f) for f in p.fields} for p in ctx.plans]
    found = []
    for index in range(len(ctx.plans) - 1):
        mine = fields[index] - fields[index + 1]
        theirs = fields[index + 1] - fields[index]
        if len(mine) < 2 or len(theirs) < 2:
            continue
        first_mine, first_theirs = _first_seen(ctx, mine), _first_seen(ctx, theirs)
        if first_mine is None or first_theirs is None or first_theirs[0] >= first_mine[0]:
            continue
        number = index + 1
        found.append(Finding(step=number, kind="step_order_changed", expected=_step_name(ctx, number),
                             observed=_step_name(ctx, number + 1), source="alignment", action=first_theirs[1]))
    return found


def _first_seen(ctx: AlignmentContext, names: set[str]) -> tuple[int, AgentAction] | None:
    """The first observation showing one of these fields, as (position in the run, action)."""
    for position, action in enumerate(ctx.actions):
        if any(m.get("role") in FIELD_ROLES and normalize(clean_name(m.get("name") or "")) in names for m in action.marks):
            return position, action
    return None


def _step_name(ctx: AlignmentContext, number: int) -> str:
    """How the document names a step's page or wizard step ("In the **Networking** step"), else its number."""
    match = _STEP_NAME.search(ctx.procedure.steps[number - 1].text)
    return match.group("name").strip() if match else f"step {number}"


def documented_optional(ctx: AlignmentContext, name: str) -> bool:
    """The document calls this field optional: its parameter-table row says "Optional", or a step says
    "optionally enter the **Field**"."""
    for step in ctx.procedure.steps:
        for table in step.tables:
            for row in table.rows:
                if row and relation(strip_markup(row[0]), name) == "exact" and len(row) > 1 \
                        and normalize(strip_markup(row[1])).startswith("optional"):
                    return True
        for match in _OPTIONAL.finditer(step.text):
            if relation(match.group("field"), name) == "exact":
                return True
    return False


_OPTIONAL = re.compile(r"\boptionally\s+(?:enter|select|specify|set|type)\s+(?:the\s+|a\s+|an\s+)?\*\*(?P<field>[^*]+)\*\*",
                       re.I)
_DEFAULT_SENTENCE = re.compile(r"\bdefault\s+\*\*(?P<field>[^*]+)\*\*(?:\s+\w+)?\s+is\s+\*\*(?P<value>[^*]+)\*\*", re.I)


def inferred_required(ctx: AlignmentContext) -> list[Finding]:
    """Input into a field the console marks required that the document never names, or calls optional."""
    found = []
    for action in ctx.actions:
        mark = action.element
        if action.name not in ("type", "select") or mark is None or action.doc_step is None or not action.ok \
                or action.backward:  # back at an earlier step's label: not the form the step documents
            continue
        if "required" not in (mark.get("states") or []) or mark.get("role") not in FIELD_ROLES:
            continue
        name = clean_name(mark.get("name") or "")
        if not documented_form(ctx, action, mark) or gone_before(ctx, action):
            continue
        optional = documented_optional(ctx, name)
        # "Not mentioned" means something only where the step lists its fields in a parameter table; prose
        # ("enter the password") names fields too loosely to tell.
        if not optional and (mentioned(name, ctx.words) or not ctx.procedure.steps[action.doc_step - 1].tables):
            continue
        expected = f"{name} (optional)" if optional else f"the step does not mention the {name} field"
        found.append(Finding(step=action.doc_step, kind="field_added_required", expected=expected,
                             observed=f"{name} (required)", source="alignment", action=action,
                             elements=[describe(mark)]))
    return found


def documented_form(ctx: AlignmentContext, action: AgentAction, mark: dict[str, Any]) -> bool:
    """Another field of the same observation is one the procedure fills: the form is the documented one,
    not an alternative the agent found after the documented way failed."""
    fields = [f for p in ctx.plans for f in p.fields + p.others]
    return any(m is not mark and m.get("role") in FIELD_ROLES and any(relation(f, m.get("name") or "") == "exact" for f in fields)
               for m in action.marks)


def gone_before(ctx: AlignmentContext, action: AgentAction) -> bool:
    """The agent reported something gone before this action: what follows is its own way around it."""
    return any(a.number < action.number and a.name == "report_discrepancy"
               and normalize_kind(a.args.get("kind")) in ("element_removed", "feature_removed", "navigation_changed")
               for a in ctx.actions)


def documented_defaults(ctx: AlignmentContext) -> list[tuple[int, str, str, list[str]]]:
    """(step, field, default, options) for each parameter-table row that states a default."""
    rows = []
    for number, step in enumerate(ctx.procedure.steps, 1):
        for table in step.tables:
            for row in table.rows:
                description = " ".join(row[1:2])
                for pattern in _DEFAULT:
                    match = pattern.search(description)
                    if match:
                        options = bold_labels(description)
                        rows.append((number, strip_markup(row[0]), strip_markup(match.group("value")), options))
                        break
        for text in [step.text, *step.notes]:  # "The default **System Disk** category is **Ultra Disk**."
            rows += [(number, m.group("field").strip(), m.group("value").strip(), []) for m in _DEFAULT_SENTENCE.finditer(text)]
    return rows


def first_value(ctx: AlignmentContext, name: str, options: list[str]) -> tuple[str, AgentAction] | None:
    """The value a field showed when it first appeared: its value, or which of its radio options was checked."""
    for action in ctx.actions:
        for mark in action.marks:
            role = mark.get("role")
            if role in FIELD_ROLES - TOGGLE_ROLES and relation(name, mark.get("name") or "") == "exact":
                value = str(mark.get("value") or "").strip()
                if value and not normalize(value).startswith("select"):
                    return value, action
                return None
        radios = [m for m in action.marks if m.get("role") == "radio"
                  and any(relation(o, m.get("name") or "") == "exact" for o in options)]
        if len(radios) == 1:  # the document names one choice ("the default is **Ultra Disk**"): its row of radios
            radios = _radio_row(radios[0], action.marks)
        if len(radios) >= 2:
            checked = [m for m in radios if "checked" in (m.get("states") or [])]
            return (checked[0].get("name") or "", action) if len(checked) == 1 else None
    return None


def _radio_row(radio: dict[str, Any], marks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The radios laid out in one row with ``radio`` in the same dialog or form: its group, as a person sees it."""
    top = (radio.get("bbox") or [0, 0, 0, 0])[1]
    return [m for m in marks if m.get("role") == "radio" and m.get("context") == radio.get("context")
            and abs((m.get("bbox") or [0, 0, 0, 0])[1] - top) <= 4]


def inferred_defaults(ctx: AlignmentContext) -> list[Finding]:
    """A field whose first observed value differs from the default the document states."""
    found = []
    for number, name, default, options in documented_defaults(ctx):
        seen = first_value(ctx, name, options)
        if seen is None:
            continue
        value, action = seen
        if normalize(default) and normalize(default) != normalize(value) \
                and f" {normalize(default)} " not in f" {normalize(value)} ":
            found.append(Finding(step=number, kind="default_changed", expected=f"{name}: {default}",
                                 observed=f"{name}: {value}", source="alignment", action=action,
                                 elements=[f'{name} = "{value}"']))
    return found


# --- the result ----------------------------------------------------------------------------------


def classify_run(ctx: AlignmentContext) -> tuple[list[Discrepancy], list[Discrepancy]]:
    """The run's discrepancies (deduplicated per step and kind, agent reports first), and apart the
    agent's outcome_mismatch / env_error reports, which the lead weighs against the reward verdict."""
    reported = [f for f in agent_findings(ctx) if f.kind]
    reported = [dead_end(ctx, relabel(ctx, f)) for f in suppress_cascades(ctx, reported)]
    stuck = stranded(ctx)
    reported = [f for f in reported if not contradicted(f) and not off_the_path(ctx, f, stuck)]
    inferred = (inferred_navigation(ctx) + inferred_renames(ctx) + inferred_page_titles(ctx) + inferred_required(ctx)
                + inferred_defaults(ctx) + inferred_step_order(ctx))
    findings = sorted(reported, key=lambda f: f.source != "agent") + inferred
    kept: dict[tuple[int | None, str], Discrepancy] = {}
    for finding in findings:
        key = (finding.step, finding.kind)
        if key in kept:
            continue
        kept[key] = to_discrepancy(ctx, finding)
    ordered = sorted(kept.values(), key=lambda d: (d.step or 0, d.evidence.agent_step or 0))
    return ([d for d in ordered if d.kind not in OUTCOME_KINDS], [d for d in ordered if d.kind in OUTCOME_KINDS])


def to_discrepancy(ctx: AlignmentContext, finding: Finding) -> Discrepancy:
    step = finding.step
    where = f"{ctx.procedure_id}/{step}" if step is not None else ctx.procedure_id
    line = ctx.procedure.steps[step - 1].line if step is not None else None
    evidence = Evidence(screenshot=screenshot_of(ctx.trajectory, finding.action, ctx.report_dir),
                        agent_step=finding.action.number if finding.action is not None else None, run=ctx.run,
                        trajectory=relative(ctx.trajectory.path, ctx.report_dir),
                        observed_elements=finding.elements or observed_elements(ctx, finding))
    return Discrepancy(id=f"{where}/{finding.kind}", step=step, line=line, kind=finding.kind,  # type: ignore[arg-type]
                       expected=finding.expected, observed=finding.observed, source=finding.source,  # type: ignore[arg-type]
                       evidence=evidence)


def observed_elements(ctx: AlignmentContext, finding: Finding) -> list[str]:
    """The elements of the reporting observation that the report names (expected or observed label)."""
    if finding.action is None:
        return []
    labels = [label_in(finding.expected), label_in(finding.observed)]
    marks = [m for a in reversed(_observations(ctx, finding.action)) for m in a.marks]
    named = [describe(m) for m in marks
             if any(relation(label, m.get("name") or "") for label in labels if label)]
    if not named and finding.action.element is not None:
        named = [describe(finding.action.element)]
    return list(dict.fromkeys(named))[:MAX_ELEMENTS]
