"""The actions a ranking policy chooses among, built from one Set-of-Mark observation.

A generative policy has to write ``click(57)`` and copy the right id out of the outline; a ranker
only has to pick, so every action it may take must be listed here, each with a short text an
encoder can read: the verb, the element's role, its accessible name and the value, e.g. ``type
textbox "Disk name" value archive-data`` (where it sits, its dialog or table row, is a separate
feature). Values to type or select come from the goal (names, numbers, sizes, CIDR blocks,
quoted phrases), the document (bold labels, the example column of parameter tables, swapped for the
goal's value of the same kind or the listed choice the goal names, as the documentation follower does) and the
resources prepared for the task; a native drop-down's choices are the options its mark lists, each read by the value it
stands for (or, on a step recorded before marks listed them, those values and the options an earlier error named).
Page actions (scroll, back, wait) and the terminal ``task_complete`` and ``task_unachievable`` are always there.
Nothing here knows a particular console.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from consoleagent.actions.spec import Action
from consoleagent.documents.labels import described_choices, mark_unmarked_labels
from consoleagent.documents.procedure import is_separator_row, split_row
from consoleagent.observation.roles import CHOICE_ROLES, TEXT_ROLES, TOGGLE_ROLES
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.docfollow.goal_fields import IDENTIFIER
from consoleagent.policies.goal_values import SHAPES, GoalValues, prepared_resources

PAGE_ACTIONS = ('scroll("down")', 'scroll("up")', "back()", "wait(2)")
COMPLETE_ACTION = 'task_complete("done")'
UNACHIEVABLE_ACTION = 'task_unachievable("the goal cannot be reached in this console")'
ANSWER_KINDS = ("task_complete", "task_unachievable")  # the actions that end an episode with an answer
MAX_VALUES = 24
MAX_LABEL_WORDS = 4  # a bold phrase this short may be a drop-down option ("Instance ID")
MAX_NAME_CHARS = 60

_BOLD = re.compile(r"\*\*([^*]{1,60})\*\*")
_QUOTED = re.compile(r"[\"“']([^\"”']{2,60})[\"”']")
# A parameter table's label cell: the whole cell bold, or plain in a document that marks nothing.
_LABEL_CELL = re.compile(r"(?P<bold>\*\*)?(?P<label>[^*|]+?)(?(bold)\*\*)")
_OPTIONS_ERROR = re.compile(r'\[(?P<id>\d+)\] has no option "[^"]*"; its options are: (?P<offered>.*)$', re.S)
_OFFERED = re.compile(r'"([^"]*)"')


@dataclass(frozen=True)
class Candidate:
    """One action the ranker may choose: its DSL text, what the encoder reads, and what it targets."""

    action: str  # DSL text, e.g. type(65, "archive-data")
    text: str  # the encoder's text
    kind: str  # the action's name
    mark: Mark | None = None
    value: str | None = None
    meaning: str | None = None  # the goal's or document's value a drop-down option stands for ("media-01" for
    # the option "media-01 (i-97jp…)"), which the ranker's value features read; None where the value is itself


def element_key(mark: Mark) -> tuple[str, str, str]:
    """What identifies an element across steps (ids are renumbered every step)."""
    return (mark.role, " ".join(mark.name.split()), mark.context)


def _short(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def describe(kind: str, mark: Mark | None = None, value: str | None = None) -> str:
    """The candidate's text: verb, role, name and value (kept short: candidates are many). The
    element's context (its dialog or table row) is left out on purpose: a row's "Delete" is then one
    string on every page and every step, encoded once, and whether the row is the goal's resource
    is a feature of its own (``ranker_features``)."""
    if mark is None:
        words = {"scroll": f"scroll the page {value or 'down'}", "back": "go back to the previous page",
                 "wait": "wait for the page to change", "task_complete": "finish: the goal is reached",
                 "task_unachievable": "give up: the goal cannot be reached in this console",
                 "report_discrepancy": f"report that the console differs from the document: {value or 'a change'}"}
        return words.get(kind, kind)
    parts = [kind, mark.role, f'"{_short(mark.name, MAX_NAME_CHARS)}"' if mark.name else "(unnamed)"]
    if value is not None:
        parts.append(f"value {_short(value, MAX_NAME_CHARS)}")
    return " ".join(parts)


# --- values ---------------------------------------------------------------------------------------


def goal_values(goal: str) -> list[str]:
    """Values a goal states: CIDR blocks, addresses, instance types, sizes (and their numbers), names
    and ids, quoted phrases."""
    found: list[str] = []
    for shape in SHAPES:
        for match in shape.finditer(goal or ""):
            found.append(match.group(0))
            number = re.match(r"\d+", match.group(0))
            if number and number.group(0) != match.group(0):
                found.append(number.group(0))
    found += [m.group(1).rstrip(".") for m in IDENTIFIER.finditer(goal or "")]
    found += [m.group(1) for m in _QUOTED.finditer(goal or "")]
    return found


def marked_document(document: list[str]) -> tuple[str, ...]:
    """``mark_unmarked_labels`` of the document, computed once per document: candidates are built at every step of an
    episode over the same document, and marking a plain one costs about a millisecond."""
    return _marked(tuple(document))


@lru_cache(maxsize=32)
def _marked(document: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(mark_unmarked_labels(list(document)))


class ParameterRow(NamedTuple):
    """One row of a parameter table: the field, the document's example, and the choices its description lists
    ("**Allow** accepts the matching traffic; **Deny** drops it."; none for a free-text field)."""

    label: str
    example: str
    options: tuple[str, ...] = ()


def parameter_rows(document: list[str]) -> list[ParameterRow]:
    """The rows of the document's parameter tables that have an example, header rows left out.

    A document written without markup ("plain", as many are) has the same tables with plain labels; reading only
    bold ones left a head on such documents with no candidate for a value that only the table gives ("25/25" for
    Port Range). Of the 974 teacher steps of session 49's plain collection, 47 typed or selected a value no candidate
    offered; 27 still do with the tables read and 24 values (BENCHMARKS.md, session 52).

    The options are read as the documentation follower reads them (``documents.instructions.field_instruction``),
    from the document with its unmarked labels marked, so that the goal's word picks one ("denies" → Deny, "UDP" →
    Custom UDP) where the example names another (session 53)."""
    rows: list[ParameterRow] = []
    for step in marked_document(document):
        lines = [line.strip() for line in step.splitlines()]
        for index, line in enumerate(lines):
            header = index + 1 < len(lines) and is_separator_row(lines[index + 1])
            row = None if header or is_separator_row(line) else _parameter_row(line)
            if row is not None:
                rows.append(row)
    return rows


def _parameter_row(line: str) -> ParameterRow | None:
    """A body row of three or more cells: the label first, the example last, the description between."""
    cells = split_row(line) if line.startswith("|") and line.endswith("|") else []
    label = _LABEL_CELL.fullmatch(cells[0]) if len(cells) >= 3 else None
    example = cells[-1].strip("* ") if label else ""
    if not label or not example or example.casefold() == "example":
        return None
    options = tuple(described_choices(" | ".join(cells[1:-1])))
    return ParameterRow(" ".join(label.group("label").split()), example, options)


def document_values(goal: str, document: list[str]) -> list[str]:
    """Parameter-table examples, each swapped for the goal's value of the same kind or the listed choice the goal
    names (``GoalValues``)."""
    values = GoalValues(goal)
    return [values.value_for(row.label, row.example, row.options) for row in parameter_rows(document)]


def resource_values(report: str | None) -> list[str]:
    """The ids and names of the resources prepared for the task (the values of the report's ``key=value`` pairs)."""
    return [value for _, pairs in prepared_resources(report) for _, value in pairs]


def candidate_values(goal: str, document: list[str], report: str | None = None) -> list[str]:
    """Distinct values, goal's first (they are what the task is about), at most ``MAX_VALUES``."""
    ordered = goal_values(goal) + document_values(goal, document) + resource_values(report)
    cleaned = [" ".join(v.split()) for v in ordered]
    return list(dict.fromkeys(v for v in cleaned if v))[:MAX_VALUES]


def document_labels(document: list[str], read_unmarked: bool = False) -> list[str]:
    """The labels of what the document tells a reader to click or choose: its bold phrases, or in a document that
    marks none, the phrases its wording shows to be labels (``mark_unmarked_labels``, which the documentation
    follower reads too: "select NAT gateway from the Instance type drop-down list") with ``read_unmarked``, as a
    head trained so reads them (``policies.ranker.build_head``)."""
    marked = marked_document(document) if read_unmarked else document
    return list(dict.fromkeys(" ".join(m.group(1).split()) for step in marked for m in _BOLD.finditer(step)))


def offered_options(error: str | None) -> tuple[int, list[str]] | None:
    """``(element id, options)`` from a select error naming the options a drop-down has."""
    match = _OPTIONS_ERROR.search(error or "")
    if not match:
        return None
    return int(match.group("id")), _OFFERED.findall(match.group("offered"))


# --- candidates -----------------------------------------------------------------------------------


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _for_mark(mark: Mark, values: list[str], options: list[str], labels: list[str]) -> list[Candidate]:
    if "disabled" in mark.states:
        return []
    role = mark.role
    if role in TEXT_ROLES:
        return [Candidate(f"type({mark.id}, {_quote(v)})", describe("type", mark, v), "type", mark, v) for v in values]
    if role in CHOICE_ROLES and mark.tag == "select":
        return [Candidate(f"select({mark.id}, {_quote(v)})", describe("select", mark, v), "select", mark, v, meaning)
                for v, meaning in _select_choices(mark, values, options, labels)]
    if role in TOGGLE_ROLES:
        out = [Candidate(f"click({mark.id})", describe("click", mark), "click", mark)]
        if role != "radio":
            verb = "uncheck" if "checked" in mark.states else "check"
            out.append(Candidate(f"{verb}({mark.id})", describe(verb, mark), verb, mark))
        return out
    return [Candidate(f"click({mark.id})", describe("click", mark), "click", mark)]


def _select_choices(mark: Mark, values: list[str], learnt: list[str], labels: list[str]) -> list[tuple[str, str | None]]:
    """``(option, meaning)`` pairs to select in a native drop-down. Where the page lists its options (``Mark.options``)
    only they are offered, since any other value is refused (an empty list offers nothing); before, values were guessed
    from the goal and document, and a refusal's list of options (``learnt``) added the real ones (session 61: 29 of a
    GRPO head's 40 selects on the held-out split were refused so)."""
    wanted = list(dict.fromkeys(values + labels))
    if mark.options is None:
        return [(v, option_meaning(v, wanted) if v in learnt else None) for v in dict.fromkeys(learnt + wanted)]
    first: dict[str, str | None] = {}  # each label once, in page order, with its first option's value
    for option, value in mark.listed():
        first.setdefault(option, value)
    return [(option, option_meaning(option, wanted, value or None)) for option, value in first.items()]


# "name (id)", with any status after a middle dot ("shop-02 (i-7x) · Running", stratus's instance lists)
_OPTION_PARTS = re.compile(r"(?P<head>.+?)\s*\((?P<inner>[^()]+)\)(?:\s*·.*)?")


def option_meaning(option: str, wanted: list[str], value: str | None = None) -> str | None:
    """The wanted value an option stands for without being it: its text before its brackets, its value, or a single
    word in its brackets (an id: "media-01 (i-97jp…)" stands for media-01 and for i-97jp…, "before-upgrade (60 GiB)"
    not for 60 GiB, which only describes it); None when it stands for none, or is one itself."""
    by_name = {v.casefold(): v for v in reversed(wanted)}  # the first wanted of each spelling
    if option.casefold() in by_name:
        return None
    parts = _OPTION_PARTS.fullmatch(" ".join(option.split()))
    inner = parts.group("inner").strip() if parts else ""
    names = [parts.group("head") if parts else "", value or "", inner if inner and " " not in inner else ""]
    return next((by_name[n.casefold()] for n in names if n and n.casefold() in by_name), None)


def build_candidates(observation: Observation, values: list[str] | None = None,
                     options: dict[tuple[str, str, str], list[str]] | None = None,
                     read_unmarked: bool = False) -> list[Candidate]:
    """Every candidate action for this observation (element actions in mark order, then page ones).

    ``values`` default to ``candidate_values`` of the observation's goal, document and resources
    (drop-downs also get the document's short bold labels);
    ``options`` are drop-down options learnt from earlier errors, keyed by ``element_key``; ``read_unmarked``:
    see ``document_labels``."""
    if values is None:
        values = candidate_values(observation.goal, observation.document, observation.resource_report)
    learnt = dict(options or {})
    offered = offered_options(observation.last_error)
    if offered:
        mark = observation.mark(offered[0])
        if mark is not None:
            learnt[element_key(mark)] = offered[1]
    labels = [label for label in document_labels(observation.document, read_unmarked)
              if len(label.split()) <= MAX_LABEL_WORDS]
    out: list[Candidate] = []
    for mark in observation.marks:
        out += _for_mark(mark, values, learnt.get(element_key(mark), []), labels)
    for action in PAGE_ACTIONS:
        kind = action.split("(")[0]
        value = action.split('"')[1] if '"' in action else None
        out.append(Candidate(action, describe(kind, None, value), kind, None, value))
    out.append(Candidate(COMPLETE_ACTION, describe("task_complete"), "task_complete"))
    # a feature removed from the console is answered by saying so (tasks expect it), never by a wrong write
    out.append(Candidate(UNACHIEVABLE_ACTION, describe("task_unachievable"), "task_unachievable"))
    return out


def with_proposal(candidates: list[Candidate], observation: Observation,
                  proposal: str | None) -> tuple[list[Candidate], int | None]:
    """The candidates with the documentation follower's proposal among them, and its index (None without
    one): a click on a disabled button (its reason is what the follower reads next), a value the follower
    derived ("9443/9443", the goal's password), a ``goto`` back, a report of a discrepancy. Without it the
    ranker could never do what the follower would. Where the proposal is an answer, the listed answer
    candidate carries the follower's words (its text, what the head reads, stays the same)."""
    from consoleagent.actions.parser import ActionParseError, parse_action

    if not proposal:
        return candidates, None
    try:
        action = parse_action(proposal)
    except ActionParseError:
        return candidates, None
    index = match_action(candidates, action)
    if index is not None and candidates[index].kind in ANSWER_KINDS:
        # the same answer in the follower's own words, which say why ("step 6: fill ... failed twice")
        answered = replace(candidates[index], action=proposal)
        return [*candidates[:index], answered, *candidates[index + 1:]], index
    mark = observation.mark(action.element_id) if action.element_id is not None else None
    if index is not None or (action.element_id is not None and mark is None):
        return candidates, index
    raw = action.arg("text", action.arg("option", action.arg("url", action.arg("kind"))))
    value = None if raw is None else str(raw)
    return [*candidates, Candidate(proposal, describe(action.name, mark, value), action.name, mark, value)], len(candidates)


# --- which candidate a recorded action was --------------------------------------------------------


def _norm(value: Any) -> str:
    return " ".join(str(value).split()).casefold()


def _names_of(candidate: Candidate) -> set[str]:
    """What a candidate's value may be called in an action: itself, and for a listed option its value as well
    (a recorded ``select(12, "cn-hangzhou-h")`` chose the option "Zone H (cn-hangzhou-h)")."""
    option_value = candidate.mark.option_value(candidate.value or "") if candidate.kind == "select" and candidate.mark else None
    return {_norm(candidate.value)} | ({_norm(option_value)} if option_value else set())


def match_action(candidates: list[Candidate], action: Action) -> int | None:
    """The index of the candidate that does what ``action`` did (for supervised labels), or None.

    The same action on the same element with the same value; ``click`` on a toggle also matches a
    ``check`` of it and the reverse; any answer of ``task_complete`` or ``task_unachievable`` and any wait
    length match, and so does any report of a discrepancy (the follower's proposal is the only report listed)."""
    target = action.element_id
    value = action.arg("text", action.arg("option"))
    for index, candidate in enumerate(candidates):
        if candidate.kind in (*ANSWER_KINDS, "report_discrepancy") and action.name == candidate.kind:
            return index
        if candidate.kind == "wait" and action.name == "wait":
            return index
        if candidate.kind == "scroll" and action.name == "scroll" and target is None:
            if _norm(candidate.value) == _norm(action.arg("direction")):
                return index
        if candidate.mark is None and target is None and candidate.kind == action.name and \
                _norm(candidate.action) == _norm(str(action)):
            return index  # a page action proposed as it is (goto a URL, press a key)
        if candidate.mark is None or candidate.mark.id != target:
            continue
        if candidate.kind == action.name and (value is None or _norm(value) in _names_of(candidate)):
            return index
    for index, candidate in enumerate(candidates):  # a toggle clicked where a check was listed, or the reverse
        if candidate.mark is not None and candidate.mark.id == target and {candidate.kind, action.name} <= {"click", "check", "uncheck"}:
            return index
    if action.name == "back":
        return next((i for i, c in enumerate(candidates) if c.kind == "back"), None)
    return None
