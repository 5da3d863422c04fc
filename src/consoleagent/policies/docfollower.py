"""The documentation-following baseline: no learning, no console knowledge, just the document.

It reads the current step of the procedure, turns each sentence it recognises ("click **X**",
"choose **A** > **B**", "enter **Y** in the **Z** field", parameter tables, "select the **X**
check box", "wait until ... **Running**") into instructions, and executes them one per turn by
finding the named element among the observation's marks by accessible name. Example values of
the document give way to the goal's values of the same kind (``goal_values``). When the console
disagrees with the document it does what a careful person would: a close-but-different label is
reported as ``label_changed`` and used anyway; a missing element is looked for once more after a
scroll and then reported as ``element_removed`` (``navigation_changed`` for menu paths), and the
follower carries on. It gives up (``task_unachievable``) only when the same instruction fails twice.

It is the floor every learned policy must beat, and a check that documents are followable at all.
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Literal
from urllib.parse import urlparse

from consoleagent.actions.spec import Action
from consoleagent.documents.procedure import FIELD_PATTERNS, parse_pipe_table
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision
from consoleagent.policies.goal_values import GoalValues, choose_option, goal_identifiers

Kind = Literal["click", "navigate", "fill", "select", "check", "uncheck", "wait_for", "open_resource"]

TEXT_ROLES = {"textbox", "searchbox", "spinbutton", "textarea"}
CHOICE_ROLES = {"combobox", "listbox"}
TOGGLE_ROLES = {"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"}
FIELD_ROLES = TEXT_ROLES | CHOICE_ROLES | TOGGLE_ROLES | {"slider"}
CLICK_PREFERRED = ["button", "link", "tab", "menuitem", "treeitem", "option"]
# The end of a menu path is a place to go: a link before a same-named group button (which would only fold the menu).
NAVIGATION_PREFERRED = ["link", "menuitem", "treeitem", "tab", "option", "button"]
MAX_ADDED_WORDS = 3  # "Add Rule" → "Add Security Group Rule" is still the same control, renamed
TRUE_WORDS = {"yes", "on", "true", "enabled", "enable", "selected", "select", "checked", "check"}
FALSE_WORDS = {"no", "off", "false", "disabled", "disable", "cleared", "clear", "unchecked", "uncheck"}

MAX_WAITS = 10  # wait(3) at most this often for a "wait until" instruction
WAIT_SECONDS = 3
FUZZY_RATIO = 0.8
FUZZY_OVERLAP = 0.6

_BOLD = r"\*\*(?P<{0}>[^*]+)\*\*"
_NAV = re.compile(r"(?P<path>\*\*[^*]+\*\*(?:\s*(?:>|→|&gt;)\s*\*\*[^*]+\*\*)+)")
_CHECK = re.compile(r"\b(?P<verb>select|check|turn on|enable|clear|uncheck|deselect|turn off|disable)\s+(?:the\s+)?"
                    + _BOLD.format("label") + r"\s+(?:check ?box|switch|option|radio button|toggle)", re.I)
_WAIT = re.compile(r"\bwait\s+(?:until|for|till)\b[^*\n]*?" + _BOLD.format("text"), re.I)
_CLICK = re.compile(r"\b(?:click|choose|select|tap|press|open)\s+(?:the\s+)?" + _BOLD.format("label"), re.I)
_SUBSTEP = re.compile(r"^\s*(?:[a-z]|\d+)[.)]\s+")
# "click the name of the instance to open its details page": the goal's resource, by its name link
_OPEN_BY_NAME = re.compile(r"\bclick (?:the|its) (?:name|id|name or id)\b(?: of the [\w -]+?)?(?= to |[.,;]|$)", re.I)
_NO_OPTION = re.compile(r'has no option "(?P<wanted>[^"]*)"; its options are: (?P<offered>.*)$', re.S)


@dataclass
class Instruction:
    """One thing the document asks for, in the order it asks."""

    kind: Kind
    target: str  # the element's label (the field's, for fill/select)
    value: str = ""
    path: list[str] = field(default_factory=list)  # navigate: the labels still to click
    text: str = ""  # the sentence or table row it came from
    alias: str | None = None  # the close-but-different name we accepted after reporting label_changed
    scrolled: bool = False
    retry_path: list[str] = field(default_factory=list)  # navigate: the path before the last click, for a retry
    waits: int = 0
    errors: int = 0


def instructions_from(step_text: str) -> list[Instruction]:
    """The instructions of one document step, in document order (notes, lines starting ``>``, skipped)."""
    found: list[Instruction] = []
    lines = step_text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i])
                i += 1
            table = parse_pipe_table(block)
            found += [Instruction("fill", f, v, text=f"{f}: {v}") for f, v in (table.fields() if table else [])]
            continue
        if line and not line.startswith(">"):
            found += _sentence_instructions(_SUBSTEP.sub("", line))
        i += 1
    return found


def _sentence_instructions(line: str) -> list[Instruction]:
    """Match the patterns in priority order; a span claimed by one pattern is not matched again."""
    claimed: list[tuple[int, int]] = []
    hits: list[tuple[int, Instruction]] = []

    def claim(match: re.Match[str], instruction: Instruction) -> None:
        if any(match.start() < end and start < match.end() for start, end in claimed):
            return
        claimed.append((match.start(), match.end()))
        hits.append((match.start(), instruction))

    for m in _NAV.finditer(line):
        labels = [s.strip() for s in re.findall(r"\*\*([^*]+)\*\*", m.group("path"))]
        claim(m, Instruction("navigate", labels[-1], path=labels, text=m.group(0)))
    for kind, pattern in FIELD_PATTERNS:
        for m in pattern.finditer(line):
            claim(m, Instruction(kind, m.group("field").strip(), m.group("value").strip(), text=m.group(0)))  # type: ignore[arg-type]
    for m in _CHECK.finditer(line):
        verb = m.group("verb").casefold()
        kind = "check" if verb in ("select", "check", "turn on", "enable") else "uncheck"
        claim(m, Instruction(kind, m.group("label").strip(), text=m.group(0)))  # type: ignore[arg-type]
    for m in _WAIT.finditer(line):
        claim(m, Instruction("wait_for", m.group("text").strip(), text=m.group(0)))
    for m in _CLICK.finditer(line):
        claim(m, Instruction("click", m.group("label").strip(), text=m.group(0)))
    for m in _OPEN_BY_NAME.finditer(line):
        claim(m, Instruction("open_resource", "", text=m.group(0)))
    return [instruction for _, instruction in sorted(hits, key=lambda hit: hit[0])]


# --- finding an element by its name -------------------------------------------------------------


def normalize(text: str) -> str:
    """Casefold, punctuation to spaces, whitespace collapsed: how labels are compared."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


@dataclass
class Match:
    mark: Mark
    quality: Literal["exact", "prefix", "fuzzy"]
    score: float


def _name_quality(label: str, name: str) -> tuple[str, float] | None:
    want, have = normalize(label), normalize(name)
    if not want or not have:
        return None
    if want == have:
        return "exact", 1.0
    if have.startswith(want + " "):  # "Virtual Private Cloud Isolated private networks..." for "Virtual Private Cloud"
        return "prefix", 0.9
    ratio = difflib.SequenceMatcher(None, want, have).ratio()
    a, b = set(want.split()), set(have.split())
    overlap = len(a & b) / len(a | b)
    if ratio >= FUZZY_RATIO or (overlap >= FUZZY_OVERLAP and len(a & b) >= 1 and len(a) > 1):
        return "fuzzy", max(ratio, overlap) * 0.8
    if _words_kept_in_order(want.split(), have.split()):
        return "fuzzy", 0.6
    return None


def _words_kept_in_order(want: list[str], have: list[str]) -> bool:
    """``have`` is ``want`` with a few words added ("vSwitches" → "Subnets (vSwitches)"); a lone short word
    ("Delete") is too common to be recognised this way."""
    if not want or len(have) - len(want) > MAX_ADDED_WORDS or (len(want) == 1 and len(want[0]) < 6):
        return False
    position = 0
    for word in have:
        if position < len(want) and word == want[position]:
            position += 1
    return position == len(want)


def find_mark(label: str, marks: list[Mark], roles: set[str] | None = None, exclude: set[str] | None = None,
              hint: str = "", prefer: list[str] | None = None, names: list[str] | None = None) -> Match | None:
    """The mark best named ``label``: exact, then prefix, then fuzzy; ties go to marks whose context
    (their table row, dialog or form) holds one of ``names`` (the goal's resources: the row of the
    disk the goal names, not the first row), then to enabled, visible marks whose context shares words
    with ``hint``, then to ``prefer``red roles, then to document order."""
    hint_words = set(normalize(hint).split())
    # Whole names only ("legacy-crm" is not in the row of "legacy-crm-b"); the goal's first name weighs most.
    wanted = [(re.compile(rf"(?<![\w.-]){re.escape(n.casefold())}(?![\w-])"), len(names or []) - i)
              for i, n in enumerate(names or [])]
    best: tuple[tuple[float, ...], Match] | None = None
    for order, mark in enumerate(marks):
        if (roles is not None and mark.role not in roles) or (exclude and mark.role in exclude):
            continue
        names = [mark.name] + ([mark.placeholder] if mark.placeholder and mark.role in FIELD_ROLES else [])
        graded = [g for g in (_name_quality(label, n) for n in names if n) if g]
        if not graded:
            continue
        quality, score = max(graded, key=lambda g: g[1])
        context = len(hint_words & set(normalize(mark.context).split())) if hint_words else 0
        role_rank = (len(prefer) - prefer.index(mark.role)) if prefer and mark.role in prefer else 0
        named = sum(weight for pattern, weight in wanted if pattern.search(mark.context.casefold())) if wanted else 0
        key = (score, named, "disabled" not in mark.states, mark.in_viewport, context, role_rank, -order)
        if best is None or key > best[0]:
            best = (key, Match(mark, quality, score))  # type: ignore[arg-type]
    return best[1] if best else None


# --- the policy ---------------------------------------------------------------------------------


class DocFollowerPolicy:
    """Follow the document mechanically; see the module docstring."""

    name = "docfollower"

    def __init__(self, max_waits: int = MAX_WAITS, wait_seconds: int = WAIT_SECONDS) -> None:
        self.max_waits = max_waits
        self.wait_seconds = wait_seconds
        self.reset("")

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.goal = goal
        self.document = list(document or [])
        self.step = 0  # the document step being executed, from 1
        self.queue: deque[Instruction] = deque()
        self._last: Instruction | None = None  # the instruction whose element action we emitted last
        self.discrepancies = 0
        self.values = GoalValues(goal)
        self.names = goal_identifiers(goal)

    def act(self, observation: Observation) -> Decision:
        if observation.document and not self.document:
            self.document = list(observation.document)
        if not self.document:
            return self._end("task_unachievable", "the doc follower needs a document to follow; the task has none")
        retry = self._after_error(observation)
        if retry is not None:
            return retry
        while True:
            if not self.queue:
                if self.step >= len(self.document):
                    return self._end("task_complete", f"followed all {len(self.document)} steps")
                self.step += 1
                self.queue.extend(self._with_goal_values(instructions_from(self.document[self.step - 1])))
                continue
            decision = self._execute(self.queue[0], observation)
            if decision is not None:
                return decision

    def _with_goal_values(self, instructions: list[Instruction]) -> list[Instruction]:
        """Typed and chosen values come from the goal where it names one of the same kind."""
        return [replace(i, value=self.values.value_for(i.target, i.value)) if i.kind in ("fill", "select") and i.value
                else i for i in instructions]

    # -- bookkeeping ----------------------------------------------------------------------------

    def _after_error(self, observation: Observation) -> Decision | None:
        """Retry an instruction whose action failed once; give up when it fails a second time."""
        last, self._last = self._last, None
        if last is None or not observation.last_error:
            return None
        last.errors += 1
        if last.errors >= 2:
            return self._end("task_unachievable", f"step {self.step}: {last.kind} {last.target!r} failed twice: "
                                                  f"{observation.last_error}")
        if last.kind == "navigate" and last.retry_path:
            last.path = list(last.retry_path)
        self._instead_of_example(last, observation.last_error)
        self.queue.appendleft(last)
        return None

    def _instead_of_example(self, ins: Instruction, error: str) -> None:
        """The drop-down does not offer the document's example ("doc-vpc-01"): take the option naming the
        goal's resource, or the only real one, as a person would; not a discrepancy, and not a failure."""
        found = _NO_OPTION.search(error) if ins.kind in ("fill", "select") else None
        if found is None:
            return
        choice = choose_option(re.findall(r'"([^"]*)"', found.group("offered")), self.goal)
        if choice is not None and choice != ins.value:
            ins.value, ins.errors = choice, ins.errors - 1

    def _decide(self, action: Action, thought: str, instruction: Instruction | None = None,
                done: bool = True) -> Decision:
        if instruction is not None and done and self.queue and self.queue[0] is instruction:
            self.queue.popleft()
        if instruction is not None and action.element_id is not None:
            self._last = instruction
        return Decision(action=str(action), thought=thought, raw=str(action), document_step=self.step or None,
                        meta={"instruction": instruction.text if instruction else None})

    def _end(self, name: str, text: str) -> Decision:
        return Decision(action=str(Action(name, (text,))), thought=text, raw="", document_step=self.step or None)

    def _report(self, kind: str, expected: str, observed: str, instruction: Instruction, done: bool) -> Decision:
        self.discrepancies += 1
        action = Action("report_discrepancy", (self.step, kind, expected, observed))
        return self._decide(action, f"Step {self.step}: the console differs from the document ({kind}).",
                            instruction, done=done)

    # -- executing one instruction ----------------------------------------------------------------

    def _execute(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The action for ``ins`` now, or None when it needs none (already satisfied)."""
        if ins.kind == "wait_for":
            return self._wait_for(ins, obs)
        if ins.kind == "navigate":
            return self._navigate(ins, obs)
        if ins.kind == "open_resource":
            return self._open_resource(ins, obs)
        if ins.kind in ("check", "uncheck"):
            match = self._find(ins, obs, roles=TOGGLE_ROLES)
            return self._with_match(ins, obs, match, lambda m: self._toggle(ins, m, ins.kind == "check"))
        if ins.kind in ("fill", "select"):
            match = self._find(ins, obs, roles=FIELD_ROLES)
            if match is None or match.quality == "fuzzy":
                # Radio groups and segmented buttons: the options are the marks, not the field.
                option = find_mark(ins.value, obs.marks, roles=TOGGLE_ROLES | {"button", "tab"}, hint=self._hint())
                if option is not None and option.quality != "fuzzy":
                    return self._click_option(ins, option.mark)
            return self._with_match(ins, obs, match, lambda m: self._fill(ins, m))
        match = self._find(ins, obs, exclude=TEXT_ROLES, prefer=CLICK_PREFERRED)
        return self._with_match(ins, obs, match, lambda m: self._decide(
            Action("click", (m.id,)), f"Step {self.step}: click {ins.target!r}: [{m.id}] {m.role} {m.name!r}.", ins))

    def _hint(self) -> str:
        return self.document[self.step - 1] if 0 < self.step <= len(self.document) else ""

    def _find(self, ins: Instruction, obs: Observation, roles: set[str] | None = None,
              exclude: set[str] | None = None, prefer: list[str] | None = None, label: str | None = None) -> Match | None:
        return find_mark(ins.alias or label or ins.target, obs.marks, roles=roles, exclude=exclude, hint=self._hint(),
                         prefer=prefer, names=self.names)

    def _with_match(self, ins: Instruction, obs: Observation, match: Match | None, act) -> Decision | None:  # noqa: ANN001
        if match is None:
            return self._missing(ins, obs, "element_removed")
        if match.quality == "fuzzy" and ins.alias is None:
            ins.alias = match.mark.name
            return self._report("label_changed", ins.target, match.mark.name, ins, done=False)
        return act(match.mark)

    def _missing(self, ins: Instruction, obs: Observation, kind: str) -> Decision:
        """Not on the page: scroll once and look again, then report it and move on."""
        if not ins.scrolled:
            ins.scrolled = True
            return self._decide(Action("scroll", ("down",)), f"Step {self.step}: {ins.target!r} not found; scrolling.",
                                ins, done=False)
        page = urlparse(obs.url).path or obs.url
        what = " > ".join(ins.path) if ins.kind == "navigate" and ins.path else ins.target
        return self._report(kind, f"an element named {what!r}", f"no element with that name on {page} ({obs.title})",
                            ins, done=True)

    def _navigate(self, ins: Instruction, obs: Observation) -> Decision | None:
        """A menu path: click its last label when visible already, else open the path from the left."""
        last = find_mark(ins.path[-1], obs.marks, exclude=TEXT_ROLES, hint=self._hint(), prefer=NAVIGATION_PREFERRED)
        if last is not None and last.quality != "fuzzy":
            ins.path = ins.retry_path = ins.path[-1:]
            return self._decide(Action("click", (last.mark.id,)),
                                f"Step {self.step}: click {ins.path[-1]!r}: [{last.mark.id}] {last.mark.name!r}.", ins)
        while ins.path:
            prefer = NAVIGATION_PREFERRED if len(ins.path) == 1 else CLICK_PREFERRED  # the path's end: go there
            match = self._find(ins, obs, exclude=TEXT_ROLES, prefer=prefer, label=ins.path[0])
            if match is None:
                return self._missing(ins, obs, "navigation_changed")
            if match.quality == "fuzzy" and ins.alias is None:
                ins.alias = match.mark.name
                return self._report("label_changed", ins.path[0], match.mark.name, ins, done=False)
            ins.retry_path = list(ins.path)
            label, ins.path, ins.alias, ins.scrolled = ins.path[0], ins.path[1:], None, False
            if "expanded" in match.mark.states and ins.path:
                continue  # the menu group is open already; clicking it would close it
            done = not ins.path
            return self._decide(Action("click", (match.mark.id,)),
                                f"Step {self.step}: open {label!r}: [{match.mark.id}] {match.mark.name!r}.", ins, done=done)
        self.queue.popleft()
        return None

    def _open_resource(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The link named like the goal's resource; with none on the page there is nothing the document
        named to report (no bold label), so the step is passed over."""
        for name in self.names:
            match = find_mark(name, obs.marks, roles={"link"}, hint=self._hint(), names=self.names)
            if match is not None and match.quality == "exact":
                return self._decide(Action("click", (match.mark.id,)),
                                    f"Step {self.step}: open {name!r}: [{match.mark.id}] link {match.mark.name!r}.", ins)
        self.queue.popleft()
        return None

    def _fill(self, ins: Instruction, mark: Mark) -> Decision | None:
        if mark.role in TOGGLE_ROLES:
            want = normalize(ins.value)
            return self._toggle(ins, mark, want not in FALSE_WORDS)
        if normalize(mark.value or "") == normalize(ins.value):
            self.queue.popleft()  # already set, as a person would leave it
            return None
        # A native <select> (or a listbox) takes select(); an editable combobox input takes typed text.
        use_select = mark.role == "listbox" or (mark.role == "combobox" and mark.tag != "input")
        action = Action("select", (mark.id, ins.value)) if use_select else Action("type", (mark.id, ins.value))
        return self._decide(action, f"Step {self.step}: set {ins.target!r} to {ins.value!r}: [{mark.id}] {mark.role}.",
                            ins)

    def _toggle(self, ins: Instruction, mark: Mark, on: bool) -> Decision | None:
        if ("checked" in mark.states) == on:
            self.queue.popleft()
            return None
        action = Action("check" if on else "uncheck", (mark.id,))
        return self._decide(action, f"Step {self.step}: {action.name} {ins.target!r}: [{mark.id}] {mark.name!r}.", ins)

    def _click_option(self, ins: Instruction, mark: Mark) -> Decision | None:
        if mark.role in TOGGLE_ROLES:
            return self._toggle(ins, mark, True)
        if "selected" in mark.states:
            self.queue.popleft()
            return None
        return self._decide(Action("click", (mark.id,)),
                            f"Step {self.step}: set {ins.target!r} to {ins.value!r}: click [{mark.id}] {mark.name!r}.", ins)

    def _wait_for(self, ins: Instruction, obs: Observation) -> Decision | None:
        if re.search(rf"\b{re.escape(normalize(ins.target))}\b", normalize(obs.text)):
            self.queue.popleft()
            return None
        if ins.waits >= self.max_waits:
            return self._report("outcome_mismatch", f"the page shows {ins.target!r}",
                                f"not shown after waiting {ins.waits * self.wait_seconds} s", ins, done=True)
        ins.waits += 1
        return self._decide(Action("wait", (self.wait_seconds,)),
                            f"Step {self.step}: waiting until the page shows {ins.target!r}.", ins, done=False)
