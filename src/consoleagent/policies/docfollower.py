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

import itertools
import re
from collections import deque
from dataclasses import replace
from urllib.parse import urlparse

from consoleagent.actions.spec import Action
from consoleagent.documents.labels import bold_labels, mark_unmarked_labels, normalize, terms
from consoleagent.observation.roles import CHOICE_ROLES, FIELD_ROLES, TEXT_ROLES, TOGGLE_ROLES
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision
from consoleagent.policies.docfollower_choices import (FALSE_WORDS, TRUE_WORDS, Choices, _MARK_LINE, _PLACEHOLDER, _radio_for_goal,
                                                     radio_group, radio_groups, toggle_wanted)
from consoleagent.policies.docfollow.detours import Detours, whole_path, wizard_submit
from consoleagent.policies.docfollow.editors import editor_mark
from consoleagent.policies.docfollow.enablers import enabler
from consoleagent.policies.docfollow.explore import Explorer
from consoleagent.policies.docfollow.marks import Match, editable, empty_field, find_mark, names_in
from consoleagent.policies.docfollow.more_rows import further_items, listed_from, next_listed
from consoleagent.policies.docfollow.optional_rows import empty_row_add, optional_add
from consoleagent.policies.docfollow.goal_code import code_from_goal
from consoleagent.policies.docfollow.goal_fields import names as holds_name, switch_from_goal, value_from_goal
from consoleagent.policies.docfollow.further import further_procedures
from consoleagent.policies.docfollow.goal_tail import command_mark, tail_instruction
from consoleagent.policies.docfollow.grids import grid_add_button, new_row_field
from consoleagent.documents.instructions import Instruction, instructions_from
from consoleagent.documents.procedure import is_separator_row
from consoleagent.policies.docfollow.semantic import find_rename, opposed
from consoleagent.policies.goal_values import (GoalValues, choose_by_meaning, choose_option, goal_identifiers, left_empty,
                                              left_unchanged, named_by_goal, option_in_goal, purpose_stated, related_values,
                                              resource_hints, row_hints, with_goal_values)

__all__ = ["DocFollowerPolicy", "Instruction", "find_mark", "instructions_from", "normalize"]

CLICK_PREFERRED = ["button", "link", "tab", "menuitem", "treeitem", "option"]
# The end of a menu path is a place to go: a link before a same-named group button (which would only fold the menu).
NAVIGATION_PREFERRED = ["link", "menuitem", "treeitem", "tab", "option", "button"]
_SAYS_BUTTON = re.compile(r"\bbuttons?\b", re.I)  # the document says the element is a button
_IN_NAVIGATION = re.compile(r"\b(?:navigation (?:pane|menu|bar)|left-side (?:pane|menu)|side ?bar|side menu)\b", re.I)

MAX_WAITS = 10  # wait(3) at most this often for a "wait until" instruction
DISABLED_WAITS = 2  # wait(3) at most this often for a disabled element before the retry that may give up
_DISABLED = re.compile(r"\bis disabled\b")
_DISABLED_WHY = re.compile(r'\bis disabled \("(?P<why>[^"]*)')
WAIT_SECONDS = 3
SEARCH_HOPS = 3  # clicks spent looking elsewhere for a label missing from its page
# "Enter a custom CIDR block", "Custom", "Other...": the entry of a list that opens a text field for any value
_CUSTOM_ENTRY = re.compile(r"^\s*(?:enter\b|custom\b|other\b|specify\b|manual\w*\b)", re.I)
_NO_OPTION = re.compile(r'has no option "(?P<wanted>[^"]*)"; its options are: (?P<offered>.*)$', re.S)
# a message that a field is wanted: "Target type must be selected.", "Name cannot be empty", "Please specify ..."
_DEMAND = re.compile(r"\b(must|cannot|can not|required|please|empty)\b", re.I)
# A command whose label ends in an ellipsis opens a dialog (a menu entry such as "Backup...")
_OPENS_DIALOG = re.compile(r"(?:\.\.\.|…)\s*$")


# --- the policy ---------------------------------------------------------------------------------


class DocFollowerPolicy(Choices, Detours):
    """Follow the document mechanically; see the module docstring."""

    name = "docfollower"
    def __init__(self, max_waits: int = MAX_WAITS, wait_seconds: int = WAIT_SECONDS) -> None:
        self.max_waits = max_waits
        self.wait_seconds = wait_seconds
        self.reset("")

    def reset(self, goal: str, document: list[str] | None = None) -> None:
        self.goal = goal
        self.document = mark_unmarked_labels(document or [])  # a document that marks no label: found by phrasing
        self._field_labels: tuple[int, list[str]] = (0, [])  # (steps read, labels): see field_labels
        self.step = 0  # the document step being executed, from 1
        self.pending = list(range(1, len(self.document) + 1))  # document steps still to do, in the order done
        self.queue: deque[Instruction] = deque()
        self._last: Instruction | None = None  # the instruction whose element action we emitted last
        self._performed: Instruction | None = None  # the same, kept past the next decision (see ``_end``)
        self.discrepancies = 0
        self.values = GoalValues(goal)
        self.names = goal_identifiers(goal)
        self.row_hints = self.names + [h for h in row_hints(goal) if h not in self.names]  # a row's names, then its ports
        self.explorer: Explorer | None = None  # the search under way for the instruction at the queue's head
        self.gaps_filled: set[tuple[str, str]] = set()  # (page, field) required fields filled before a disabled button
        self._clicked: Instruction | None = None  # the click instruction whose action was emitted last
        self._clicked_in = ""  # where its element was (its dialog, its row)
        self._form_step: int | None = None  # the document step of the last field set
        self.prerequisites: set[str] = set()  # the "do X first" reasons acted on
        self.cleared: dict[str, int] = {}  # rounds of deleting what the goal lets go, by reason
        self.stopped: str | None = None  # why the follower cannot go on (its next action gives up)
        self._resources_read = False  # the ids of the goal's prepared resources are in row_hints
        self.related: list[str] = []  # values of the goal's prepared resources (the zone of its vSwitch)
        self.fields_set: dict[tuple[str, str], int] = {}  # (name, context) of a field set → the document step
        self.batch = False  # rows of the goal's resources are selected: later buttons act on the selection
        self._opened_at = 1  # the document step of the last click on the page (not in a dialog)
        self.replaced = False  # the existing resource the goal replaces was deleted first
        self.tail_read = False  # the goal's command after the document's procedure ("then start it again") is queued
        self.listed: list[Instruction] = []  # the current step's fields with listed choices ("A, B, or C")
        self.referenced: dict[str, list[str]] = {}  # the procedures the document refers to, by title
        self.borrowed_at: int | None = None  # steps after this one are a referenced page's (``further``)
        self.hints_after: list[str] | None = None  # the goal's row hints, while an undoing page puts the old resource first
        self.alternatives: list[str] = []  # of the referenced procedures, those the document cites as another way
        self.gone = False  # a control a document step clicks is gone (reported element_removed)
        self._listed_field: tuple[str, str] = ("", "")  # (name, context) of the drop-down whose list was opened
        self._taken_options: set[str] = set()  # options ``_offered`` chose: a goal's word is one field's value
        self._page: Observation | None = None  # the observation being decided on
        self.enabled: set[tuple[str, str]] = set()  # (name, context) of disabled fields whose switch was turned on
        self.row_way: tuple[bool, str] | None = None  # a batch done row by row: (on the resource's page?, the entry)

    def act(self, observation: Observation) -> Decision:
        self._page = observation
        if observation.document and not self.document:
            self.document = list(observation.document)
            self.pending = list(range(1, len(self.document) + 1))
        self.referenced = self.referenced or dict(observation.related)
        self.alternatives = self.alternatives or list(observation.alternatives)
        if not self.document:
            return self._end("task_unachievable", "the doc follower needs a document to follow; the task has none")
        if self.stopped:
            return self._end("task_unachievable", self.stopped)
        if observation.resource_report and not self._resources_read:
            self._resources_read = True
            self.row_hints += [h for h in resource_hints(observation.resource_report, self.names, self.goal) if h not in self.row_hints]
            self.related = related_values(observation.resource_report, self.names)
        retry = self._after_error(observation) or self._unsubmitted(observation)
        if retry is not None:
            return retry
        self._replace_existing(observation)
        while True:
            if not self.queue:
                if not self.pending and not self.tail_read:
                    self.tail_read = True
                    tail = tail_instruction(self.goal, self.document)
                    if tail is not None:
                        self.queue.append(tail)
                    else:
                        self._borrow_further()
                    continue
                if not self.pending:
                    return self._end("task_complete", f"followed all {len(self.document)} steps")
                reordered = self._wizard_order(observation)
                self.step = self.pending.pop(0)
                self._back_to_document()
                found = instructions_from(self.document[self.step - 1])
                self.listed = [i for i in found if len(i.options) >= 2]
                self.queue.extend(self._with_goal_values(found))
                if reordered is not None:
                    return reordered
                continue
            decision = self._execute(self.queue[0], observation)
            if decision is not None:
                return decision

    def _borrow_further(self) -> None:
        """The goal goes on past the document ("..., and attach it to build-01"): the steps of the pages the
        document refers to for those operations (``further``) are followed next, in the goal's order. Before
        that, when a control the document clicks was gone, the page it cites as another way to do its operation
        (``_another_way``)."""
        another = self._another_way()
        found = [another] if another is not None else further_procedures(self.goal, self.referenced)
        if found:
            self.pending = self._borrow([step for _, steps in found for step in steps])

    def _another_way(self) -> tuple[str, list[str]] | None:
        """The document's own way is gone (a control it clicks was reported ``element_removed``: **Quick Add**)
        and it cites another ("To allow only some addresses, add the rule with the rule form instead. For more
        information, see Add an inbound security group rule."): that page, done as a person would, unless its
        title says the opposite of the goal (*inbound* for "allow outbound HTTP"); then the next alternative, its
        counterpart (*outbound*, ``references.counterpart``). Measured on the training split: goals to open a
        port ended at the removed button with the port still closed."""
        if not self.gone:
            return None
        title = next((t for t in self.alternatives if t in self.referenced and not opposed(t, self.goal)), None)
        return (title, list(self.referenced[title])) if title is not None else None

    def _document_step(self) -> int | None:
        """The document step a decision belongs to; None in a borrowed page, which is not the document."""
        return self.step if self.step and (self.borrowed_at is None or self.step <= self.borrowed_at) else None

    def _with_goal_values(self, instructions: list[Instruction]) -> list[Instruction]:
        """``goal_values.with_goal_values`` for the ``Detours`` mixin, which cannot import ``goal_values`` itself:
        ``goal_values`` imports from ``docfollow``, and the import contract forbids the cycle."""
        return with_goal_values(instructions, self.values)

    # -- bookkeeping ----------------------------------------------------------------------------

    def _after_error(self, observation: Observation) -> Decision | None:
        """Retry an instruction whose action failed once; give up when it fails a second time."""
        last, self._last = self._last, None
        if last is None or not observation.last_error:
            return None
        why = _DISABLED_WHY.search(observation.last_error)
        if why and self._prerequisite(last, why.group("why"), observation):
            return None
        # (a reason the follower acted on already is the console between states: waited for below)
        if why and re.match(r"only\b", why.group("why"), re.I) and why.group("why") not in self.prerequisites:
            # "Only running instances can be stopped": not for the resource as it is; so is the rest of the
            # sentence ("If it is Running, click Stop, click Confirm, and click Refresh until ...")
            self.queue = deque(i for i in self.queue if i is not last and not (last.sentence and i.sentence == last.sentence))
            return None
        if _DISABLED.search(observation.last_error) and last.waits < DISABLED_WAITS:
            last.waits += 1  # a console between states ("Stopping") enables the button a moment later
            if last.kind == "navigate":  # the menu closes while waiting: the whole path again
                last.path = whole_path(last)
            if not (self.queue and self.queue[0] is last):
                self.queue.appendleft(last)
            return self._decide(Action("wait", (self.wait_seconds,)),
                                f"Step {self.step}: {last.target!r} is disabled; waiting for the console.", None)
        last.errors += 1
        if last.errors >= 2:
            return self._end("task_unachievable", f"step {self.step}: {last.kind} {last.target!r} failed twice: "
                                                  f"{observation.last_error}")
        if last.kind == "navigate" and last.retry_path:
            last.path = list(last.retry_path)
        if self._instead_of_example(last, observation.last_error):
            return None
        if self.stopped:
            return self._end("task_unachievable", self.stopped)
        if not (self.queue and self.queue[0] is last):  # an action that left it queued (a probe, a menu click)
            self.queue.appendleft(last)
        return None

    def _instead_of_example(self, ins: Instruction, error: str) -> bool:
        """The drop-down does not offer the document's value: "5 Mbps" is the option "5"; an example
        ("doc-vpc-01") gives way to the option naming the goal's resource, or the only real one; an
        instruction ("Select the VPC of the application servers") picks the option closest in meaning.
        As a person would: not a discrepancy, and not a failure. True when the goal's resource is to be freed
        first (``_free_first``): the plan is new, and ``ins`` is not retried."""
        found = _NO_OPTION.search(error) if ins.kind in ("fill", "select", "choose") else None
        if found is None:
            return False
        offered = re.findall(r'"([^"]*)"', found.group("offered"))
        choice = None
        if ins.amount:
            choice = next((o for o in offered if normalize(o) in (normalize(ins.amount), normalize(ins.value))
                           or normalize(o).startswith(normalize(ins.amount) + " ")), None)
        if choice is None and ins.value:  # "game-02" is the option "game-02 (i-ariy...) · Running", whole:
            choice = next((o for o in offered if _starts_with_name(o, ins.value)), None)  # never "branch-vpc-old"
        if choice is None:
            choice = choose_option(offered, self.goal, self.related)
            missing = self._goals_resource_missing(ins, offered)
            if missing and self._free_first(missing):
                return True  # the goal's resource is bound elsewhere: undone first, then the document again
            if choice is not None and missing and not any(holds_name(choice, n) for n in self.names):
                # "Make the vSwitch erp-app-vsw ... use erp-new-rt" and the list offers only erp-vpc-web-vsw, another
                # vSwitch of the goal's VPC: never another resource for the goal's own (measured as the wrong
                # vSwitch associated)
                self.stopped = f"step {self.step}: {ins.target!r} does not offer the goal's {missing!r}"
                return False
        if choice is None and ins.value and ins.value.casefold() not in self.goal.casefold():
            # an instruction or the document's example, not the goal's own value: a goal's value the list lacks
            # is not swapped for another value the goal names (the VPC's block is no vSwitch's block)
            choice = named_by_goal(offered, self.goal)
        if choice is None and ins.kind == "choose":
            choice = choose_by_meaning(offered, ins.value, self.goal, self.related)
        if choice is None and ins.kind in ("fill", "select"):
            choice = self._custom_entry(ins, offered)
        if choice is not None and choice != ins.value:
            ins.kind = "select" if ins.kind == "choose" else ins.kind
            ins.value, ins.errors = choice, ins.errors - 1
        return False

    def _goals_resource_missing(self, ins: Instruction, offered: list[str]) -> str | None:
        """The resource the goal names for this field ("the vSwitch erp-app-vsw" for **vSwitch**) when no option
        names it; None when the goal names none for it, or an option does."""
        label = re.escape(ins.target.strip())
        found = re.search(rf"\b{label}s?\s+(?P<name>[\w.-]*\w)", self.goal, re.IGNORECASE) if label else None
        name = found.group("name") if found else None
        if name is None or name not in self.names or any(holds_name(o, name) for o in offered):
            return None
        return name

    def _custom_entry(self, ins: Instruction, offered: list[str]) -> str | None:
        """The list does not offer the goal's value but has an entry for any ("Enter a custom CIDR block"):
        that entry is chosen and the value typed into the text field it opens, as a person would. Measured as
        the follower giving up on "10.20.0.0/16"."""
        custom = next((o for o in offered if _CUSTOM_ENTRY.search(o)), None)
        if custom is None or not ins.value or ins.value.casefold() not in self.goal.casefold():
            return None  # only the goal's own value: never a document's example typed in
        if self._named_in_another_step(ins.target):
            return None  # the VPC's "IPv4 CIDR block" found for the vSwitch's: the list may be another step's
        typed = Instruction("type_in", ins.target, ins.value, text=ins.text, sentence=ins.sentence)
        position = next((k for k, queued in enumerate(self.queue) if queued is ins), -1)
        self.queue.insert(position + 1, typed)  # right after the list's own retry
        return custom

    def _into_grid(self, ins: Instruction, obs: Observation, match: Match | None) -> Decision | None:
        """The document's field (**Tables**) is a grid on this page (an **Add row** over a *Table Name* column),
        and what the label found is no field of it or a field another line names (*Tables In Schema*): a row is
        added and the goal's value goes into its first cell (``docfollow/grids.py``). None otherwise."""
        if match is not None and (match.quality == "exact" or not self._names_another_field(ins, match.mark)):
            return None
        add = grid_add_button(ins.target, obs.marks)
        value = ins.value if ins.kind in ("fill", "select") else (
            self.values.of_kind(ins.target) or value_from_goal(ins.target, self.goal))
        if add is None or not value:
            return None
        cell = new_row_field(ins.target, add, obs.marks)
        if cell is None and ins.row_added:
            return self._missing(ins, obs, "element_removed")
        if cell is None:
            ins.row_added = True
            return self._decide(Action("click", (add.id,)), f"Step {self.step}: {ins.target!r} is a grid here: a row "
                                f"for {value!r}: [{add.id}] {add.name!r}.", ins, done=False)
        ins.value = value  # a described field's value is its sentence: the cell takes the goal's
        following = next_listed(self.goal, value)
        if following is not None and self.queue and self.queue[0] is ins:
            # "the tables public.orders and public.customers": a row for each listed item, one after the other
            # (a fill: its value is the item, where a choose's would be read from the goal again)
            self.queue.insert(1, replace(ins, kind="fill", value=following, text=f"{ins.target}: {following}",
                                         row_added=False))
        return self._fill(ins, cell)

    def _names_another_field(self, ins: Instruction, mark: Mark) -> bool:
        """Whether another line of the document is about ``mark`` (*Tables In Schema*, found for **Tables**)."""
        return normalize(mark.name) != normalize(ins.target) and self._documents_field(mark.name)

    def _named_in_another_step(self, label: str) -> bool:
        """Whether another document step names a field of this label (a form with two "IPv4 CIDR block"s)."""
        return self._documents_field(label, but_step=self.step)

    def _documents_field(self, label: str, but_step: int | None = None) -> bool:
        """Whether an instruction of the document (of a step other than ``but_step``) is about this label."""
        want = normalize(label)
        return any(normalize(i.target) == want for number, text in enumerate(self.document, 1)
                   if number != but_step for i in instructions_from(text))

    def _type_in(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The value into the first editable text field after the list whose custom entry was chosen."""
        self.queue.popleft()
        at = next((k for k, m in enumerate(obs.marks) if m.role in CHOICE_ROLES and normalize(m.name) == normalize(ins.target)), None)
        after = obs.marks[at + 1:] if at is not None else []
        field = next((m for m in after if m.role in TEXT_ROLES and editable(m)), None)
        if field is None:
            return self._report("element_removed", f"a text field for {ins.target!r}'s custom entry",
                                "no editable text field after the list", ins, done=False)
        self.fields_set[(field.name, field.context)] = self.step
        return self._decide(Action("type", (field.id, ins.value)),
                            f"Step {self.step}: {ins.target!r}'s custom entry: [{field.id}] {field.name!r} = {ins.value!r}.", None)

    def _editor(self, ins: Instruction, obs: Observation) -> Decision | None:
        """"Provide a command in the editor": the goal's code for it (``code_from_goal``) typed into the page's code
        editor. A goal that gives none leaves the editor as the console shows it; an editor that already holds
        the code is done."""
        code = code_from_goal(ins.target, self.goal)
        if code is None:
            self.queue.popleft()
            return None
        editor = editor_mark(ins.target, obs.marks)
        if editor is None:
            return self._missing(ins, obs, "element_removed")
        if normalize(code) in normalize(editor.value or ""):
            self.queue.popleft()
            return None
        self.fields_set[(editor.name, editor.context)] = self.step
        return self._decide(Action("type", (editor.id, code)),
                            f"Step {self.step}: the {ins.target} in the editor [{editor.id}]: {code!r}.", ins)

    def _goal_tail(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The goal's command after the document's procedure (``goal_tail``): clicked in the resource's row once
        enabled, the list refreshed while it is not (the instance still "Stopping"), confirmed when a dialog asks.
        Not there, or never enabled: the document's procedure is done and the goal is no document to report
        against, so nothing is reported."""
        mark = command_mark(ins.target, obs, self.names)
        if mark is None or ("disabled" in mark.states and ins.waits >= self.max_waits):
            self.queue.popleft()
            return None
        if "disabled" in mark.states:
            ins.waits += 1
            refresh = find_mark("Refresh", obs.marks, roles={"button"})
            if ins.waits % 2 == 0 and refresh is not None and refresh.quality == "exact":
                return self._decide(Action("click", (refresh.mark.id,)), f"{ins.target!r} is disabled: refresh the list "
                                    f"[{refresh.mark.id}].", None)
            return self._decide(Action("wait", (self.wait_seconds,)), f"{ins.target!r} is disabled; waiting for the "
                                f"console.", None)
        self.queue.popleft()
        self.queue.appendleft(Instruction("confirm", ins.target, text=ins.text))  # its dialog, when one asks
        return self._decide(Action("click", (mark.id,)), f"The goal goes on after the document ({ins.text!r}): "
                            f"click [{mark.id}] {mark.role} {mark.name!r}.", None)

    def _decide(self, action: Action, thought: str, instruction: Instruction | None = None,
                done: bool = True) -> Decision:
        if instruction is not None and done and self.queue and self.queue[0] is instruction:
            self.queue.popleft()
        if instruction is not None and action.element_id is not None:
            self._last = self._performed = instruction
            if action.name in ("type", "select", "check", "uncheck"):
                self._form_step = self.step  # a field a form lacks belongs to the step that fills that form
        return Decision(action=str(action), thought=thought, raw=str(action), document_step=self._document_step(),
                        meta={"instruction": instruction.text if instruction else None})

    def _end(self, name: str, text: str) -> Decision:
        # An answer the console turns down (it refused the last action, and said so only after the page was seen)
        # is that action's error: retried once, as any action's, not answered again.
        self._last = self._performed
        return Decision(action=str(Action(name, (text,))), thought=text, raw="", document_step=self._document_step())

    def _report(self, kind: str, expected: str, observed: str, instruction: Instruction, done: bool,
                step: int | None = None) -> Decision:
        if self.borrowed_at is not None and self.step > self.borrowed_at:  # a referenced page's: not the document's
            return self._decide(Action("wait", (1,)), f"Step {self.step} (a referenced page): the console differs "
                                f"({kind}: {expected} / {observed}); not the document's to report.", instruction, done=done)
        self.discrepancies += 1
        action = Action("report_discrepancy", (step or self.step, kind, expected, observed))
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
        if ins.kind == "console":
            return self._console(ins, obs)
        if ins.kind == "find":
            return self._find_place(ins, obs)
        if ins.kind == "confirm":
            return self._confirm(ins, obs)
        if ins.kind == "goto":
            self.queue.popleft()
            return self._decide(Action("goto", (ins.target,)), f"Step {self.step}: back to {ins.target}.", None)
        if ins.kind == "choose":
            return self._choose(ins, obs)
        if ins.kind == "rows":
            return self._select_rows(ins, obs)
        if ins.kind == "row_action":
            return self._row_action(ins, obs)
        if ins.kind == "tick":
            return self._tick(ins, obs)
        if ins.kind == "pick":
            return self._pick(ins, obs)
        if ins.kind == "offered":
            return self._offered(ins, obs)
        if ins.kind == "type_in":
            return self._type_in(ins, obs)
        if ins.kind == "tail":
            return self._goal_tail(ins, obs)
        if ins.kind == "editor":
            return self._editor(ins, obs)
        if ins.kind in ("check", "uncheck"):
            match = self._find(ins, obs, roles=TOGGLE_ROLES)
            return self._with_match(ins, obs, match, lambda m: self._toggle(ins, m, ins.kind == "check"))
        if ins.kind in ("fill", "select", "choose") and self._not_applicable(ins):
            self.queue.popleft()  # "Only for ESSDs" and the goal is an Ultra Disk: a person leaves it alone
            return None
        if ins.kind == "fill" and ins.empty_only:
            return self._into_empty_field(ins, obs)
        if ins.kind in ("fill", "select"):
            match = self._find(ins, obs, roles=FIELD_ROLES)
            if match is not None and match.mark.role in TOGGLE_ROLES and not _a_switch_state(ins.value):
                # "Key Pair: pos-ops-key" is the list named like the radio that shows it, not that radio
                # (measured as the list left empty and Next disabled)
                listed = self._find(ins, obs, roles=FIELD_ROLES - TOGGLE_ROLES)
                match = listed if listed is not None and listed.quality != "fuzzy" else match
            grid = self._into_grid(ins, obs, match)
            if grid is not None:
                return grid
            if match is None or match.quality == "fuzzy":
                # Radio groups and segmented buttons: the options are the marks, not the field.
                option = find_mark(ins.value, obs.marks, roles=TOGGLE_ROLES | {"button", "tab"}, hint=self._hint())
                if option is not None and option.quality != "fuzzy":
                    return self._click_option(ins, option.mark)
                group = radio_group(ins.target, obs) if match is None else []
                if group and self._listed_choice_gone(ins):
                    return self._choice_gone(ins, group)
                if any("checked" in r.states for r in group):
                    # "Image: Alibaba Cloud Linux, 3.2104 LTS 64-bit" for a radio group "Image" whose radios are
                    # kinds (Public/Custom): the field is there and holds a choice; nothing missing to report
                    self.queue.popleft()
                    return None
            return self._with_match(ins, obs, match, lambda m: self._fill(ins, m))
        if self._more_rows(ins, obs):
            return None  # the rows for the goal's further items are queued in its place
        if (optional_add(ins, self.goal) or self._adds_row_for_nothing(ins)) and not self._adds_what_was_set(ins):
            self.queue.popleft()  # a row the goal has nothing for
            return None
        # "In the left-side navigation pane, click **Elastic IP addresses**": the page's link, not the same-named
        # group button that folds the menu
        in_menu = _IN_NAVIGATION.search(ins.sentence or ins.text or self._hint())
        match = self._find(ins, obs, exclude=TEXT_ROLES, prefer=NAVIGATION_PREFERRED if in_menu else CLICK_PREFERRED)
        if match is not None and match.mark.role in TOGGLE_ROLES and _SAYS_BUTTON.search(ins.sentence or ins.text or ""):
            # "Select a button next to **Operation**: ... **Check** ...": the button, not the same-named switch among
            # another operation's options (measured as the other operation run with that option on)
            button = self._find(ins, obs, roles={"button"})
            match = button if button is not None and button.quality == match.quality else match
        group = radio_group(ins.target, obs) if match is None and ins.kind == "click" else []
        if group:
            return self._select_in_group(ins, group)
        if match is not None and "disabled" in match.mark.states:
            gap = self._required_gap(ins, obs)
            if gap is not None:
                return gap
        self._clicked = ins if match is not None and match.quality == "exact" else None
        self._clicked_in = match.mark.context if match is not None else ""
        if match is not None and "dialog" not in match.mark.context:
            self._opened_at = self.step  # a click on the page itself: where a form it opens begins
        return self._with_match(ins, obs, match, lambda m: self._decide(
            Action("click", (m.id,)), f"Step {self.step}: click {ins.target!r}: [{m.id}] {m.role} {m.name!r}.", ins))

    def _hint(self) -> str:
        return self.document[self.step - 1] if 0 < self.step <= len(self.document) else ""

    @property
    def field_labels(self) -> list[str]:
        """The labels of the fields the document names anywhere (its borrowed pages' too, once read): a longer one
        claims the goal's words from a shorter one (``outside_others``)."""
        read, labels = self._field_labels
        if read != len(self.document):
            labels = list(dict.fromkeys(i.target for step in self.document for i in instructions_from(step)
                                        if i.kind in ("choose", "fill", "select")))
            self._field_labels = (len(self.document), labels)
        return labels

    def _purpose_asked(self, ins: Instruction) -> bool:
        """Whether the goal asks, in its own words, for what the step says this control is for, among the
        other controls the step lists ("without waiting for conflicting locks" for **SKIP LOCKED**)."""
        controls = list(dict.fromkeys(i.target for i in instructions_from(self._hint()) if i.kind == "choose"))
        return ins.target in controls and purpose_stated(ins.target, controls, self._hint(), self.goal)

    def _find(self, ins: Instruction, obs: Observation, roles: set[str] | None = None,
              exclude: set[str] | None = None, prefer: list[str] | None = None, label: str | None = None) -> Match | None:
        avoid = {field for field, step in self.fields_set.items() if step != self.step}
        if self.batch:  # rows selected: "Above the list, click **Stop**" is the list's button, never one row's
            avoid |= {(m.name, m.context) for m in obs.marks if m.context.startswith("row")}
        names = [] if self.batch else self.row_hints
        if ins.row:  # one resource's row, no other
            names = [ins.row]
            avoid |= {(m.name, m.context) for m in obs.marks if m.context.startswith("row") and ins.row not in m.context}
        return find_mark(ins.alias or label or ins.target, obs.marks, roles=roles, exclude=exclude, hint=self._hint(),
                         prefer=prefer, names=names, avoid=avoid)

    def _with_match(self, ins: Instruction, obs: Observation, match: Match | None, act) -> Decision | None:  # noqa: ANN001
        if match is None and ins.per_row and ins.kind == "click":
            # the row's own confirmation is not the batch dialog the document describes: its confirm button
            return self._confirm(ins, obs)  # (passed over when no dialog asks)
        if match is None:
            renamed = self._renamed(ins.target, obs, fields=ins.kind in ("fill", "select", "check", "uncheck"))
            if renamed is None and ins.kind == "click" and _OPENS_DIALOG.search(ins.target):
                # "select *Backup...* to open the dialog": a command of a menu the page does not show; look for it
                ins.kind, ins.candidates = "find", [ins.target]
                return self._find_place(ins, obs)
            if renamed is None and ins.kind == "click" and not self._clicks_after(ins):
                renamed = wizard_submit(obs)  # "click **Create Order**" on a wizard's last page: its one submit button
            if renamed is None:
                if ins.scrolled:
                    self._each_row_instead(ins, obs)  # a batch button gone: each row's own entry (queued after the report)
                return self._missing(ins, obs, "element_removed")
            match = Match(renamed, "fuzzy", 0.5)
        if match.quality == "fuzzy" and ins.alias is None:
            return self._renamed_to(ins, ins.target, match.mark)
        return act(match.mark)

    def _renamed_to(self, ins: Instruction, label: str, mark: Mark) -> Decision:
        """The document's ``label`` is ``mark`` renamed: reported once, then the instruction goes on under the new
        name (``ins.alias``)."""
        ins.alias = mark.name
        return self._report("label_changed", label, mark.name, ins, done=False)

    def _renamed(self, label: str, obs: Observation, fields: bool = False, roles_out: set[str] | None = None) -> Mark | None:
        """The mark that is ``label`` renamed with other words ("Apply for EIP" → "Create EIP"), by meaning."""
        marks = [m for m in obs.marks if (m.role in FIELD_ROLES) == fields and m.name.strip()
                 and not (roles_out and (m.role in roles_out or m.level > 0))]
        rename = find_rename(label, [m.name for m in marks]) if marks else None
        return marks[rename.index] if rename is not None else None

    def _missing(self, ins: Instruction, obs: Observation, kind: str) -> Decision:
        """Not on the page: scroll once and look again, then report it and move on."""
        if not ins.scrolled:
            ins.scrolled = True
            return self._decide(Action("scroll", ("down",)), f"Step {self.step}: {ins.target!r} not found; scrolling.",
                                ins, done=False)
        page = urlparse(obs.url).path or obs.url
        what = " > ".join(ins.path) if ins.kind == "navigate" and ins.path else ins.target
        self.gone = self.gone or (kind == "element_removed" and ins.kind == "click" and self._document_step() is not None)
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
            if match is None and ins.alias is None:
                renamed = self._renamed(ins.path[0], obs)
                match = Match(renamed, "fuzzy", 0.5) if renamed is not None else None
            if match is None:
                on_its_page = self._on_resource_page(ins, obs)
                return on_its_page if on_its_page is not None else self._missing(ins, obs, "navigation_changed")
            if match.quality == "fuzzy" and ins.alias is None:
                return self._renamed_to(ins, ins.path[0], match.mark)
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
            said = switch_from_goal(ins.target, self.goal)  # the goal first, as for every other field
            return self._toggle(ins, mark, toggle_wanted(ins.value) if said is None else said)
        value = ins.value
        if ins.amount and (mark.role in ("spinbutton", "slider") or re.fullmatch(r"\d+(?:[.,]\d+)?", (mark.value or "").strip())):
            value = ins.amount  # "5 Mbps" into a number field whose unit is beside it
        if normalize(mark.value or "") in (normalize(ins.value), normalize(value)):
            self.queue.popleft()  # already set, as a person would leave it
            return None
        enabling = self._enable_first(mark)
        if enabling is not None:
            return enabling
        self.fields_set[(mark.name, mark.context)] = self.step
        # A native <select> (or a listbox) takes select(); an editable combobox input takes typed text.
        use_select = mark.role == "listbox" or (mark.role == "combobox" and mark.tag != "input")
        action = Action("select", (mark.id, value)) if use_select else Action("type", (mark.id, value))
        decision = self._decide(action, f"Step {self.step}: set {ins.target!r} to {ins.value!r}: [{mark.id}] {mark.role}.",
                                ins)
        if mark.role == "combobox" and mark.tag == "input":
            self.queue.appendleft(Instruction("pick", ins.target, value, text=ins.text))
        return decision

    def _toggle(self, ins: Instruction, mark: Mark, on: bool) -> Decision | None:
        revealed = self._revealed(ins) if on else []
        if ("checked" in mark.states) == on:
            self.queue.popleft()
            self.queue.extendleft(reversed(revealed))
            return None
        enabling = self._enable_first(mark)
        if enabling is not None:
            return enabling
        action = Action("check" if on else "uncheck", (mark.id,))
        decision = self._decide(action, f"Step {self.step}: {action.name} {ins.target!r}: [{mark.id}] {mark.name!r}.", ins)
        self.queue.extendleft(reversed(revealed))
        return decision

    def _enable_first(self, mark: Mark) -> Decision | None:
        """A field to set that the form keeps disabled: the switch about the same thing (``enabler``) is turned on
        first, once, and the field is set on the next look."""
        key = (mark.name, mark.context)
        if "disabled" not in mark.states or key in self.enabled or self._page is None:
            return None
        switch = enabler(mark, self._page.marks)
        if switch is None:
            return None
        self.enabled.add(key)
        return self._decide(Action("check", (switch.id,)), f"Step {self.step}: {mark.name!r} is disabled; turning on "
                                                           f"[{switch.id}] {switch.name!r} first.", None)

    def _revealed(self, ins: Instruction) -> list[Instruction]:
        """The fields a switch shows once on, for which the goal has a value ("a public IPv4 address of 10 Mbps"
        for **Peak Bandwidth**, set "in Mbps"); those it has none for keep the console's default."""
        found = []
        for field in ins.reveals:
            amount = self.values.amount_in(field.unit) if field.unit else None
            value = f"{amount} {field.unit}" if amount else value_from_goal(field.target, self.goal)
            if value:
                found.append(replace(field, value=value, amount=amount, text=f"{field.target}: {value}"))
        return found

    def _wait_for(self, ins: Instruction, obs: Observation) -> Decision | None:
        shown = normalize(obs.text)
        if any(re.search(rf"\b{re.escape(normalize(state))}\b", shown) for state in [ins.target, *ins.options]):
            self.queue.popleft()
            return None
        if ins.waits >= self.max_waits:
            return self._report("outcome_mismatch", f"the page shows {ins.target!r}",
                                f"not shown after waiting {ins.waits * self.wait_seconds} s", ins, done=True)
        ins.waits += 1
        return self._decide(Action("wait", (self.wait_seconds,)),
                            f"Step {self.step}: waiting until the page shows {ins.target!r}.", ins, done=False)

    # -- where the document starts, places it does not say how to reach, values it describes --------

    def _console(self, ins: Instruction, obs: Observation) -> Decision | None:
        """"Log on to the ECS console": already there when the page's path starts with the console's name or
        its initials; else the link naming that product (by name, initials, or meaning); else nothing to do."""
        short = {normalize(ins.target).replace(" ", ""), _initials(ins.target)}
        first = (urlparse(obs.url).path.strip("/").split("/") or [""])[0].casefold()
        if first in short:
            self.queue.popleft()
            return None
        links = [m for m in obs.marks if m.role in ("link", "menuitem", "button", "treeitem") and m.name.strip()]
        named = [m for m in links if _names_product(ins.target, m.name)]
        if not named:
            rename = find_rename(f"{ins.target} console", [m.name for m in links], threshold=0.5) if links else None
            named = [links[rename.index]] if rename is not None else []
        if not named:
            self.queue.popleft()  # no such product on this page: the document's later steps will tell
            return None
        mark = min(named, key=lambda m: (m.role != "link", not m.in_viewport))
        return self._decide(Action("click", (mark.id,)), f"Step {self.step}: go to the {ins.target} console: "
                                                         f"[{mark.id}] {mark.name!r}.", ins)

    def _find_place(self, ins: Instruction, obs: Observation) -> Decision | None:
        """A dialog or page the document names without saying how to open it: click it when it is here
        (by name, or renamed), else look for it (:class:`Explorer`); found nowhere: the agent could not
        verify this, which is not the document's fault, so it says so and stops."""
        labels = ins.candidates or ([ins.target] if ins.target else [])
        page_names = any(n.casefold() in f"{obs.url} {obs.title}".casefold() for n in self.row_hints)
        guard, marks = self.row_hints, obs.marks
        if ins.elsewhere:  # what is *in* the blocked resource: rows naming it (its name and id, the row's first
            # cell), never the resource itself nor its siblings (a VPC's other vSwitches name the VPC too), and
            # never a button disabled for the same reason
            guard = [h for h in self.row_hints if names_in(ins.elsewhere.split("|")[0], [h])]
            page_names = False
            marks = [m for m in marks if m.context != ins.elsewhere and "disabled" not in m.states]
        for label in labels:
            match = find_mark(label, marks, exclude=TEXT_ROLES, hint=self._hint(), prefer=CLICK_PREFERRED,
                              names=guard if ins.elsewhere else self.names)
            if match is not None and ins.guarded and not page_names and not names_in(match.mark.context, guard):
                continue  # a prerequisite is done for the goal's resource only, never for another row's (whole names)
            # a disabled menu entry is for another selection: keep looking (a disabled button says why when clicked)
            if match is not None and match.quality != "fuzzy" and not (
                    match.mark.role == "menuitem" and "disabled" in match.mark.states):
                self.explorer = None
                return self._decide(Action("click", (match.mark.id,)),
                                    f"Step {self.step}: open {label!r}: [{match.mark.id}] {match.mark.name!r}.", ins)
        if ins.target and self._visible_heading(ins.target, obs):
            self.explorer = None
            self.queue.popleft()  # already open
            return None
        if ins.target and not ins.candidates and self.explorer is None:
            renamed = self._renamed(ins.target, obs, roles_out={"treeitem"})
            if renamed is not None:
                self.explorer = None
                return self._decide(Action("click", (renamed.id,)),
                                    f"Step {self.step}: open {ins.target!r} (now {renamed.name!r}): [{renamed.id}].", ins)
        if self.explorer is None or self.explorer.target != ins.target:
            self.explorer = Explorer(ins.target, goal=ins.value or self.goal, title=obs.title,  # value: what it is for
                                     rows=self.row_hints if ins.guarded else [])
        move = self.explorer.move(obs.url, obs.marks)
        if move is None:
            self.explorer = None
            return self._end("task_unachievable", f"step {self.step}: could not find {ins.target or 'the page'!r} "
                                                  "in the console (the document does not say how to reach it)")
        action, why = move
        return self._decide(action, f"Step {self.step}: {why}.", ins, done=False)

    def _unsubmitted(self, obs: Observation) -> Decision | None:
        """The button just clicked is still there, enabled, beside a required field left empty: the form was
        not sent (a field became required). Fill it and click again, as a person does."""
        clicked, self._clicked = self._clicked, None
        if clicked is None or obs.last_error:
            return None
        match = find_mark(clicked.target, obs.marks, exclude=TEXT_ROLES, prefer=CLICK_PREFERRED, hint=self._hint())
        if match is None or match.quality != "exact" or "disabled" in match.mark.states:
            return None
        gaps = _required_empty(obs)
        # the dialog whose button it was still open, or the browser marking a required field invalid: not a
        # wizard's next page, nor the dialog a row's button of the same name opened ("Attach" → "Attach Disk")
        same_dialog = "dialog" in self._clicked_in and match.mark.context == self._clicked_in
        if not gaps or not (same_dialog or any("invalid" in m.states for m, _ in gaps)):
            return None
        again = replace(clicked, errors=0, waits=0)
        self.queue.appendleft(again)
        gap = self._required_gap(again, obs)
        if gap is None:
            self.queue.popleft()
        return gap

    def _required_gap(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The button the step names is disabled and the form has a required field still empty (a zone left
        at "Select a zone", a radio group with nothing chosen): fill it first, as a person does, with the
        goal's value or the closest option. A field the document never names is reported first
        (``field_added_required``). Each field once per page; None when there is no such gap."""
        page = urlparse(obs.url).path or obs.url
        for mark, group in _required_empty(obs):
            if (page, mark.name) in self.gaps_filled:
                continue
            self.gaps_filled.add((page, mark.name))
            label = _group_label(group, obs) if group is not None else mark.name
            if left_empty(label, self.goal):  # the console now requires what the goal leaves empty: no way there
                self.stopped = f"the console requires {label!r}, which the goal leaves empty"
                return self._report("field_added_required", f"{label!r} optional (the goal leaves it empty)",
                                    f"a required field {label!r}", ins, done=False, step=self._form_step)
            if group is not None:
                chosen = _radio_for_goal(group, self.goal) or group[0]  # else the console's first
                fill = Instruction("check", chosen.name, text=f"{label}: {chosen.name}")
            else:
                fill = Instruction("choose", mark.name, f"select the {mark.name}", text=mark.name)
            self.queue.appendleft(fill)
            if label and not documented(label, self.document):
                return self._report("field_added_required", f"{ins.target!r} enabled by the fields the document names",
                                    f"a required field {label!r} is empty", fill, done=False, step=self._form_step)
            return self._execute(fill, obs)
        return None

    def _not_applicable(self, ins: Instruction) -> bool:
        """A field the document says applies only to some choices ("Only for ESSDs") when the goal names none
        of them and gives the field no value of its own: its example is not for this goal. Also a field the
        goal says to leave as it is ("without changing their names")."""
        if left_unchanged(ins.target, self.goal):
            return True  # "... without changing their names": the name field keeps what it has
        if self._for_another_choice(ins):
            return True
        if not ins.condition or value_from_goal(ins.target, self.goal) is not None:
            return False
        if option_in_goal(ins.options, self.goal) is not None:
            return False  # "renewed ... for 12 months" names **12 Months** of a field "only when auto-renewal is enabled"
        wanted = terms(ins.condition) - {"disk", "instance", "resource", "type", "one"}
        return bool(wanted) and not wanted & terms(self.goal)

    def _for_another_choice(self, ins: Instruction) -> bool:
        """A field named after one of the choices another field of the step lists, when the goal picks another:
        **Logon Password** belongs to **Custom Password** of "**Key Pair**, **Custom Password**, or **Set Later**",
        so a goal "without setting any logon credential now (it will be set later)" leaves it alone (measured as
        the follower taking the **Custom Password** radio for a renamed **Logon Password** and typing one)."""
        own = terms(ins.target)
        for other in self.listed:
            if normalize(other.target) == normalize(ins.target):
                continue
            chosen = option_in_goal(other.options, self.goal)
            owners = [o for o in other.options if terms(o) & own]
            if chosen is not None and len(owners) == 1 and normalize(owners[0]) != normalize(chosen):
                return True
        return False

    def _adds_what_was_set(self, ins: Instruction) -> bool:
        """"Once the **Column** is selected ... click the **Add** icon (+)": the row is for the field this step just
        set, so it is added whatever the goal says of the row's other cells."""
        named = {normalize(label) for label in bold_labels(ins.sentence or ins.text)} - {normalize(ins.target)}
        return any(normalize(name) in named for (name, _), step in self.fields_set.items() if step == self.step)

    def _more_rows(self, ins: Instruction, obs: Observation) -> bool:
        """"Click the **Add** icon (+) to specify each additional option/value pair" and a goal with a further option:
        an **Add** and the previous step's fields (the row the page described), valued from that item, for each
        item after the first (``more_rows``); or "Click **Add** to assign a new set of privileges" and a goal that
        lists further items for the row's first field ("to the roles reporting and auditors"): a row for each.
        True when it queued them in place of ``ins``."""
        if ins.kind != "click" or normalize(ins.target) != "add" or self.step < 2 or ins.row_added:
            return False  # (an Add queued here for one item is that item's, not a list's again)
        fields = [i for i in instructions_from(self.document[self.step - 2]) if i.kind in ("fill", "select", "choose")]
        rows = []
        for item in further_items(ins.sentence or ins.text, self.goal, fields[0].target if fields else ""):
            values = [value_from_goal(f.target, item) for f in fields]
            if fields and all(values):
                rows += [Instruction("click", ins.target, text=ins.text, row_added=True)] + [
                    Instruction("fill", f.target, value, text=f"{f.target}: {value}", empty_only=True)
                    for f, value in zip(fields, values)]
        if not rows and fields:
            rows = self._rows_for_listed(ins, obs, fields)
        if not rows:
            return False
        self.queue.popleft()
        self.queue.extendleft(reversed(rows))
        return True

    def _rows_for_listed(self, ins: Instruction, obs: Observation, fields: list[Instruction]) -> list[Instruction]:
        """The rows for the goal's items listed after the one the last row's first field holds ("reporting" in
        **Grantee**, of "the roles reporting and auditors"): an **Add**, that field set to the item, and the row's
        other fields as the first row's were, each in the new row's empty field. Measured as an object granted
        to the first role of the list only."""
        first = fields[0]
        held = [m.value.strip() for m in obs.marks if normalize(m.name) == normalize(first.target) and (m.value or "").strip()]
        if not held:
            return []
        rows = []
        for item in listed_from(self.goal, held[-1]):
            rows += [Instruction("click", ins.target, text=ins.text, row_added=True),
                     Instruction("fill", first.target, item, text=f"{first.target}: {item}", empty_only=True)]
            rows += [replace(f, empty_only=True) for f in fields[1:]]
        return rows

    def _into_empty_field(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The value into the empty field named ``ins.target`` (the last of them: a row just added)."""
        empty = [m for m in obs.marks if empty_field(m) and normalize(m.name) == normalize(ins.target)]
        if not empty:
            return self._missing(ins, obs, "element_removed")
        return self._fill(ins, empty[-1])

    def _adds_row_for_nothing(self, ins: Instruction) -> bool:
        """``empty_row_add`` over the instructions after the **Add**: the rest of its step, else the next step."""
        if ins.kind != "click":
            return False
        after = list(itertools.islice(self.queue, 1, None))
        if not after and self.pending:
            after = instructions_from(self.document[self.pending[0] - 1])
        return empty_row_add(ins, after, lambda field: value_from_goal(field.target, self.goal) is not None
                             or bool(self.values.of_kind(field.target)) or option_in_goal(field.options, self.goal) is not None)

    def _field_named_plainly(self, ins: Instruction, obs: Observation) -> Mark | None:
        """The one enabled field on the page that the instruction's sentence names in plain words and the goal
        gives a value ("Use the field in the **Definition** tab to choose a template from the drop-down listbox":
        the bold word is the tab, the field is **Template**; measured as a dialog left without its template).
        None when no field or several fit."""
        sentence = ins.sentence or ins.text
        fits = [m for m in obs.marks if m.role in FIELD_ROLES and m.name.strip() and "disabled" not in m.states
                and normalize(m.name) != normalize(ins.target) and len(m.name.split()) <= 3
                and holds_name(sentence, m.name) and value_from_goal(m.name, self.goal) is not None]
        return fits[0] if len({normalize(m.name) for m in fits}) == 1 else None

    def _visible_heading(self, label: str, obs: Observation) -> bool:
        want = normalize(label)
        return any(normalize(line) in (want, f"{want} dialog") for line in obs.text.split("\n")[:60] if line.strip())


_RETYPE = re.compile(r"^(?:confirm|re-?enter|re-?type|repeat)\s+", re.I)


def documented(label: str, document: list[str]) -> bool:
    """Whether the document names a field: every word of its label in one line of the document (a table's
    header row aside: "Description" there is a column, not a field); "Confirm Password" is the password."""
    words = set(normalize(_RETYPE.sub("", label)).split())
    if not words:
        return True
    lines = [line for step in document for line in step.split("\n")]
    headers = {i - 1 for i, line in enumerate(lines) if is_separator_row(line)}
    return any(words <= set(normalize(line).split()) for i, line in enumerate(lines) if i not in headers)


def demanded_fields(obs: Observation) -> set[str]:
    """The fields a message on the page asks for ("Target type must be selected.", "Please specify the Name"),
    normalized: a console that marks no field required says so in a line of text, which a person reads."""
    lines = [normalize(line) for line in obs.text.splitlines() if not _MARK_LINE.match(line) and _DEMAND.search(line)]
    names = {normalize(m.name) for m in obs.marks if m.role in FIELD_ROLES and m.name.strip()} if lines else set()
    return {name for name in names if any(holds_name(line, name) for line in lines)}


def _required_empty(obs: Observation) -> list[tuple[Mark, list[Mark] | None]]:
    """Required fields still empty, in page order: a drop-down at its placeholder, an empty text field, a
    run of required radios none of which is checked (the group, by its first radio). A field a message asks
    for (``demanded_fields``) is required though not marked so."""
    demanded = demanded_fields(obs)
    found: list[tuple[Mark, list[Mark] | None]] = []
    run: list[Mark] = []
    for mark in [*obs.marks, None]:
        if mark is not None and mark.role == "radio" and "required" in mark.states:
            run.append(mark)
            continue
        if run and not any("checked" in r.states for r in run):
            found.append((run[0], list(run)))
        run = []
        if mark is None or "disabled" in mark.states or ("required" not in mark.states and normalize(mark.name) not in demanded):
            continue
        value = (mark.value or "").strip()
        if mark.role in CHOICE_ROLES and (not value or _PLACEHOLDER.match(value)):
            found.append((mark, None))
        elif mark.role in TEXT_ROLES and not value:
            found.append((mark, None))
    return found


def _group_label(group: list[Mark], obs: Observation) -> str:
    """A radio group's label, as the page outline names it; "" when it names none."""
    return next((label for label, radios in radio_groups(obs) if radios and radios[0].id == group[0].id), "")


def _starts_with_name(option: str, name: str) -> bool:
    """Whether the option begins with the whole name: "game-02 (i-2) · Running" with "game-02", but not
    "branch-vpc-old (10.99.0.0/16)" with "branch-vpc" (measured as a verification run choosing the old VPC)."""
    return bool(name.strip()) and re.match(rf"\s*{re.escape(name.strip())}(?![\w.-])", option, re.I) is not None


def _a_switch_state(value: str) -> bool:
    """Whether a document's value says how a check box or switch stands ("Selected", "Do not enable", "Off")
    rather than what to type or choose; an empty value is a switch's too."""
    words = set(normalize(value).split())
    return not words or bool(words & (TRUE_WORDS | FALSE_WORDS | {"not", "never"}))


def _initials(name: str) -> str:
    words = re.findall(r"[A-Za-z][\w&-]*", name)
    return "".join(w[0] for w in words if w[0].isupper() or len(words) > 1).casefold()


def _names_product(console: str, name: str) -> bool:
    """Whether a link names the product whose console the document means: "VPC" for "Virtual Private Cloud
    (VPC) Isolated networks", "ECS" for "Elastic Compute Service ..." (the initials of its first words)."""
    want = normalize(console)
    have = normalize(name)
    if have == want or have.startswith(want + " ") or f"({want})" in name.casefold():
        return True
    words = [w for w in re.findall(r"[A-Za-z][\w&-]*", name)][:6]
    return any("".join(w[0] for w in words[:n]).casefold() == want.replace(" ", "") for n in range(2, len(words) + 1))
