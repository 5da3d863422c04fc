"""What the ranker's head sees of one candidate: encoder similarities and a few exact signals.

The encoder (all-MiniLM-L6-v2, frozen) embeds each candidate's text, the goal, every line of the
document and the texts of the actions already taken. From those, each candidate gets a fixed-size
feature row: how close it is to the goal, to the best-matching document line, and to what was
already done; where that document line lies relative to the document progress made so far (the
step after the last one acted on is the likeliest next one); and exact signals an embedding blurs
(the element's name is a bold label of the document, the value to type is the goal's, the field
already holds it, the element's table row names the goal's resource, the action would repeat an
earlier one). Keeping the encoder frozen makes every
embedding cacheable between steps (a page's labels barely change), and a row of features is all
GRPO needs to re-score a past choice exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from consoleagent.observation.types import Observation
from consoleagent.policies.candidates import (Candidate, ParameterRow, document_labels, goal_values, marked_document,
                                              match_action, parameter_rows)
from consoleagent.policies.goal_values import SHAPES, GoalValues, goal_identifiers, with_goal_values

KINDS = ("click", "type", "select", "check", "uncheck", "scroll", "back", "wait", "task_complete", "task_unachievable")
# Kinds only the follower's proposal brings (``candidates.with_proposal``), counted as the kind they act like:
# a goto returns to a page as back does, a hover opens a menu entry as a click does, a key press waits on the page,
# and a report of a discrepancy leaves the page as a wait does.
KIND_ALIASES = {"goto": "back", "hover": "click", "press": "wait", "report_discrepancy": "wait"}
ROLE_GROUPS = {"button": 0, "link": 1, "textbox": 2, "searchbox": 2, "spinbutton": 2, "textarea": 2, "combobox": 3,
               "listbox": 3, "checkbox": 4, "radio": 4, "switch": 4, "tab": 5, "menuitem": 5, "treeitem": 5, "option": 5}
N_ROLES = 7  # the groups above and "other or none"
SCALAR_FEATURES = ("cos_goal", "cos_doc", "cos_last", "cos_history", "repeat", "doc_delta", "doc_next", "doc_same",
                   "doc_behind", "bold_label", "name_in_goal", "value_in_goal", "value_in_doc", "value_already",
                   "in_viewport", "in_dialog", "dialog_open", "checked", "step", "goal_on_page", "last_error",
                   "last_was_type", "dice_doc", "dice_goal", "value_expected", "value_shape",
                   "context_goal", "context_doc", "plan_next", "plan_near", "plan_done", "plan_value", "plan_any",
                   "follower_pick", "follower_none")
N_FEATURES = len(SCALAR_FEATURES) + len(KINDS) + N_ROLES
# Raised whenever the candidates or the rows of a step change without changing their width (2: the follower's
# reports became candidates; 3: the tables of documents that mark no label give values; 4: a table's listed choices
# give the value the goal names; 5: the document's plan is the follower's reading of the goal, ``with_goal_values``;
# 6: a drop-down's listed options are its only choices, read by the value they stand for, ``Candidate.meaning``;
# 7: an option with a status after its brackets, "shop-02 (i-7x) · Running", is read as shop-02 too),
# so features cached by an earlier version are computed anew.
FEATURES_VERSION = 7
COS_GOAL, COS_DOC = 0, 1
FOLLOWER_PICK = SCALAR_FEATURES.index("follower_pick")
MAX_DOC_LINES = 48
MAX_LINE_WORDS = 40  # a long table row says what it needs in its first words; longer costs encoder time
_WORD = re.compile(r"[a-z0-9]+")
_MARKUP = re.compile(r"[*|`#>]+")


def document_lines(document: list[str]) -> list[tuple[int, str]]:
    """``(step index, text)`` for each non-empty line of each step (a table row is its own line)."""
    out = []
    for index, step in enumerate(document):
        for line in step.splitlines():
            text = " ".join(_MARKUP.sub(" ", line).split()[:MAX_LINE_WORDS])
            if text and not set(text) <= set("- "):
                out.append((index, text))
    return out[:MAX_DOC_LINES]


def table_rows(document: list[str]) -> dict[str, ParameterRow]:
    """Each parameter-table row (its example and listed choices), by its label (casefolded)."""
    return {row.label.casefold(): row for row in parameter_rows(document)}


def expected_value(context: "EpisodeContext", field_name: str) -> str:
    """The value a person following the document would enter in this field: the goal's value of the
    kind of the document's example, or the choice of those the table lists that the goal names (``GoalValues``,
    the documentation follower's rule)."""
    if field_name not in context.expected:
        row = context.rows.get(" ".join(field_name.split()).casefold(), ParameterRow(field_name, ""))
        context.expected[field_name] = (GoalValues(context.goal).value_for(field_name, row.example, row.options)
                                        if field_name else "")
    return context.expected[field_name]


def _shape(value: str) -> int:
    """Which of the goal-value shapes (CIDR, address, instance type, size, number) a value has; -1: none."""
    return next((i for i, shape in enumerate(SHAPES) if shape.fullmatch(value.strip())), -1)


def _words(text: str) -> set[str]:
    return set(_WORD.findall((text or "").casefold()))


def _dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


@dataclass
class EpisodeContext:
    """What stays fixed over an episode, embedded once: goal, document lines, labels, goal values. A document that
    marks no label is read, with ``read_unmarked``, with the labels its wording shows (``mark_unmarked_labels``), for
    the labels and the plan, as a head trained so reads it (``policies.ranker.build_head``)."""

    goal: str
    document: list[str]
    lines: list[tuple[int, str]] = field(default_factory=list)
    labels: set[str] = field(default_factory=set)
    values: set[str] = field(default_factory=set)
    identifiers: list[str] = field(default_factory=list)
    doc_text: str = ""
    line_words: list[set[str]] = field(default_factory=list)
    rows: dict[str, ParameterRow] = field(default_factory=dict)  # parameter-table label -> its row
    expected: dict[str, str] = field(default_factory=dict)  # field name -> expected_value (memo)
    plan: list[PlanItem] = field(default_factory=list)  # the document's instructions, in order

    @classmethod
    def build(cls, goal: str, document: list[str], read_unmarked: bool = False) -> "EpisodeContext":
        lines = document_lines(document)
        marked = list(marked_document(document)) if read_unmarked else document
        return cls(goal=goal, document=list(document), lines=lines, line_words=[_words(text) for _, text in lines],
                   rows=table_rows(document),
                   labels={label.casefold() for label in document_labels(marked, read_unmarked=False)},
                   values={v.casefold() for v in goal_values(goal)},
                   identifiers=[i.casefold() for i in goal_identifiers(goal)],
                   doc_text=" ".join(document).casefold(), plan=document_plan(goal, marked))


def features(encoder: Any, context: EpisodeContext, observation: Observation, candidates: list[Candidate],
             history: list[str], step: int, proposal: str | None = None) -> Any:
    """The (candidates, N_FEATURES) float tensor of one step. ``history``: the texts of the actions
    taken so far (candidate texts), oldest first. ``proposal``: the action the documentation follower,
    run alongside, would take here (``follower_pick`` marks it; ``follower_none`` says it proposes none
    of the candidates: a report, giving up, or no follower)."""
    import torch

    texts = [c.text for c in candidates]
    doc_texts = [text for _, text in context.lines]
    vectors = encoder.encode([context.goal or "-", *doc_texts, *history[-6:], *texts])
    goal_v = vectors[0]
    doc_v = vectors[1:1 + len(doc_texts)]
    hist_v = vectors[1 + len(doc_texts):1 + len(doc_texts) + len(history[-6:])]
    cand_v = vectors[1 + len(doc_texts) + len(history[-6:]):]
    n = len(candidates)
    cos_goal = cand_v @ goal_v
    if len(doc_texts):
        doc_sim = cand_v @ doc_v.T
        cos_doc, best_line = doc_sim.max(dim=1)
        progress = _progress(encoder, context, doc_v, history)
        best_step = torch.tensor([context.lines[i][0] for i in best_line.tolist()], dtype=torch.float32)
    else:
        cos_doc, best_step, progress = torch.zeros(n), torch.zeros(n), -1
    if len(hist_v):
        hist_sim = cand_v @ hist_v.T
        cos_last, cos_hist = hist_sim[:, -1], hist_sim.max(dim=1).values
    else:
        cos_last = cos_hist = torch.zeros(n)
    delta = best_step - progress
    rows = torch.zeros((n, N_FEATURES), dtype=torch.float32)
    rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = cos_goal, cos_doc, cos_last, cos_hist
    rows[:, 5] = (delta / 5).clamp(-1, 1)
    rows[:, 6], rows[:, 7], rows[:, 8] = (delta == 1).float(), (delta == 0).float(), (delta < 0).float()
    page = _page_signals(context, observation, history, step)
    history_set = set(history)
    done, pointer = plan_progress(context.plan, history)
    proposed = proposed_index(candidates, proposal)
    for i, candidate in enumerate(candidates):
        rows[i, 4] = min(sum(1 for h in history if h == candidate.text), 2) / 2 if candidate.text in history_set else 0.0
        rows[i, 9:28] = torch.tensor(_exact(context, candidate, page))
        rows[i, 28:33] = torch.tensor(_plan_features(context.plan, done, pointer, candidate))
        rows[i, 33] = float(i == proposed)
        kind = KIND_ALIASES.get(candidate.kind, candidate.kind)
        if kind in KINDS:
            rows[i, len(SCALAR_FEATURES) + KINDS.index(kind)] = 1.0
        role = ROLE_GROUPS.get(candidate.mark.role, N_ROLES - 1) if candidate.mark is not None else N_ROLES - 1
        rows[i, len(SCALAR_FEATURES) + len(KINDS) + role] = 1.0
    rows[:, 34] = float(not bool(rows[:, 33].any()))
    return rows


def _progress(encoder: Any, context: EpisodeContext, doc_v: Any, history: list[str]) -> int:
    """The furthest document step an earlier action matched (-1 before any)."""
    if not history:
        return -1
    sims = encoder.encode(history) @ doc_v.T
    return max(context.lines[int(i)][0] for i in sims.argmax(dim=1).tolist())


def _page_signals(context: EpisodeContext, observation: Observation, history: list[str], step: int) -> dict[str, float]:
    page = (observation.text or "").casefold() + " " + " ".join(m.name.casefold() + " " + m.context.casefold()
                                                                for m in observation.marks)
    found = [i for i in context.identifiers if i in page]
    return {"dialog_open": float(any("dialog" in m.context for m in observation.marks)),
            "step": min(step, 30) / 30,
            "goal_on_page": len(found) / len(context.identifiers) if context.identifiers else 0.0,
            "last_error": float(bool(observation.last_error)),
            "last_was_type": float(bool(history) and history[-1].startswith("type "))}


def _exact(context: EpisodeContext, candidate: Candidate, page: dict[str, float]) -> list[float]:
    """Features 9..27 (SCALAR_FEATURES from bold_label on) of one candidate."""
    mark = candidate.mark
    name = " ".join(mark.name.split()).casefold() if mark is not None else ""
    value = (candidate.value or "").casefold() if candidate.kind in ("type", "select") else ""
    meant = (candidate.meaning or value).casefold() if value else ""  # what the goal or document calls this value
    name_words = _words(name)
    expected = expected_value(context, mark.name).casefold() if value and mark is not None else ""
    example = context.rows[name].example if value and name in context.rows else ""
    where = mark.context.casefold() if mark is not None else ""
    where_words = _words(where)
    best_doc = max((_dice(name_words, words) for words in context.line_words), default=0.0) if name_words else 0.0
    return [
        float(bool(name) and name in context.labels),
        float(len(name) >= 3 and name in context.goal.casefold()),
        float(bool(meant) and (meant in context.values or meant in context.goal.casefold())),
        float(bool(meant) and meant in context.doc_text),
        float(bool(value) and mark is not None and (mark.value or "").casefold() == value),
        float(mark.in_viewport) if mark is not None else 1.0,
        float(mark is not None and "dialog" in mark.context),
        page["dialog_open"],
        float(mark is not None and "checked" in mark.states),
        page["step"],
        page["goal_on_page"],
        page["last_error"],
        page["last_was_type"],
        best_doc,
        _dice(_words(candidate.text), _words(context.goal)),
        float(bool(expected) and meant == expected),
        float(bool(example) and _shape(example) >= 0 and _shape(example) == _shape(meant)),
        float(bool(where) and any(i in where for i in context.identifiers)),
        max((_dice(where_words, words) for words in context.line_words), default=0.0) if where_words else 0.0,
    ]


# -- the document's plan: which instruction comes next --------------------------------------------------

_HISTORY_TEXT = re.compile(r'^(?P<kind>\w+) \S+ "(?P<name>.*?)"(?: value (?P<value>.*))?$')
_PLAN_KINDS = {"click": "click", "find": "click", "open_resource": "click", "fill": "set", "select": "set",
               "choose": "set", "pick": "set", "check": "toggle", "uncheck": "toggle"}
_CANDIDATE_KINDS = {"click": ("click",), "type": ("set",), "select": ("set",), "check": ("toggle", "set", "click"),
                    "uncheck": ("toggle", "set")}
PLAN_WINDOW = 6  # how far ahead of the next instruction a history action may have matched one


@dataclass(frozen=True)
class PlanItem:
    """One instruction of the document, as the documentation follower reads it: a kind group (click, set,
    toggle), the label it names and the value a person following it would enter (the goal's)."""

    kind: str
    target: str
    value: str = ""


def document_plan(goal: str, document: list[str]) -> list[PlanItem]:
    """The document's instructions in order (a menu path is a click per label), with the goal's values."""
    from consoleagent.documents.instructions import instructions_from

    values = GoalValues(goal)
    plan: list[PlanItem] = []
    for step in document:
        for ins in with_goal_values(instructions_from(step), values):
            if ins.kind == "navigate":
                plan += [PlanItem("click", _norm(label)) for label in ins.path or [ins.target]]
            elif ins.kind in _PLAN_KINDS and ins.target:
                value = ins.value if ins.kind in ("fill", "select") else ""
                plan.append(PlanItem(_PLAN_KINDS[ins.kind], _norm(ins.target), _norm(value)))
    return plan


def _norm(text: str) -> str:
    return " ".join(_WORD.findall((text or "").casefold()))


def _names(name: str, target: str, exact: bool = False) -> bool:
    """Whether an element's name is the instruction's label: equal, or (not ``exact``) one contains the other
    as whole words."""
    if not name or not target:
        return False
    if name == target or exact:
        return name == target
    return f" {target} " in f" {name} " or (len(name) >= 3 and f" {name} " in f" {target} ")


def _matches(item: PlanItem, kind: str, name: str, value: str, exact: bool = False) -> bool:
    if item.kind not in _CANDIDATE_KINDS.get(kind, ()):
        return False
    if item.kind == "set" and kind == "check":  # a radio option chosen for a field: the option is the value
        return bool(item.value) and _names(name, item.value, exact)
    return _names(name, item.target, exact)


def plan_progress(plan: list[PlanItem], history: list[str]) -> tuple[set[int], int]:
    """The instructions the actions so far performed, and where the next one starts (after the last one
    performed: an instruction the page did not need, a menu group already open, is passed over). Each
    action matches the first open instruction within ``PLAN_WINDOW`` ahead; actions off the plan match none."""
    done: set[int] = set()
    pointer = 0
    for text in history:
        parsed = _HISTORY_TEXT.match(text)
        if parsed is None:
            continue
        kind, name, value = parsed.group("kind"), _norm(parsed.group("name")), _norm(parsed.group("value") or "")
        window = [j for j in range(min(len(plan), pointer + PLAN_WINDOW)) if _open(plan, done, pointer, j)]
        hit = next((j for exact in (True, False) for j in window if _matches(plan[j], kind, name, value, exact)), None)
        if hit is not None:
            done.add(hit)
            pointer = max(pointer, hit + 1)
    return done, pointer


def _open(plan: list[PlanItem], done: set[int], pointer: int, j: int) -> bool:
    """Whether instruction ``j`` may still be performed: not done, and not behind the next one, except a
    field of the same form (a table's fields are filled in any order)."""
    if j in done:
        return False
    return j >= pointer or all(plan[k].kind == "set" for k in range(j, pointer))


def _plan_features(plan: list[PlanItem], done: set[int], pointer: int, candidate: Candidate) -> list[float]:
    """plan_next (the candidate performs the next instruction), plan_near (1 / (1 + how far ahead the first
    instruction it performs is)), plan_done (it repeats a performed one), plan_value (its value is the
    instruction's), plan_any (it performs some instruction of the document)."""
    mark = candidate.mark
    if mark is None or not plan:
        return [0.0] * 5
    name, value = _norm(mark.name), _norm(candidate.meaning or candidate.value or "")
    hits = ([j for j, item in enumerate(plan) if _matches(item, candidate.kind, name, value, exact=True)]
            or [j for j, item in enumerate(plan) if _matches(item, candidate.kind, name, value)])
    ahead = [j for j in hits if _open(plan, done, pointer, j)]
    first = ahead[0] if ahead else None
    distance = max(0, first - pointer) if first is not None else None
    return [
        float(distance == 0),
        1.0 / (1 + distance) if distance is not None else 0.0,
        float(bool(hits) and not ahead and any(j in done for j in hits)),
        float(first is not None and bool(plan[first].value) and bool(value) and plan[first].value == value),
        float(bool(hits)),
    ]


def proposed_index(candidates: list[Candidate], proposal: str | None) -> int | None:
    """Which candidate the follower's proposal is (``candidates.match_action``: any wait, any answer of
    ``task_complete`` or ``task_unachievable``, a click on a toggle as its check), or None."""
    from consoleagent.actions.parser import ActionParseError, parse_action

    if not proposal:
        return None
    try:
        return match_action(candidates, parse_action(proposal))
    except ActionParseError:
        return None
