"""Where the console no longer matches the document, or the goal needs more than it says: the follower's detours.

Each one is what a careful person does, and says what changed when the document is wrong:

- a button disabled with what to do first ("Disassociate the EIPs of this NAT gateway first") gets that
  done, for the goal's resource only and only when it undoes something (never a deletion);
- a wizard whose steps come in another order is followed in the console's order (``step_order_changed``);
- a batch selection whose check boxes are gone is done one row at a time (``element_removed``);
- a batch button gone once the goal's rows are selected ("Batch Modify") is done for each row from that row's own
  entry, the one whose dialog holds what the document sets next (``element_removed``);
- an action gone from the goal row's menu is looked for on the resource's own page (``element_removed``);
- a form that says the resource already exists, when the goal says to replace it, gets the old one
  deleted first and is filled again;
- a wizard's last page whose final button was renamed beyond recognition gets its one submit button;
- a button disabled because the resource is in use ("Only an available EIP can be associated"), when the goal
  moves the resource or replaces it, gets the row's undoing button pressed first (then the replacement's row);
- a list that does not offer the goal's resource, when the goal moves it away from another one ("use the route
  table erp-new-rt instead of erp-vpc-legacy-rt"), gets it freed first with the undoing page the document refers
  to (*Unassociate a route table from a vSwitch*), done for the old one, and the document is then done again.

A mixin of :class:`~consoleagent.policies.docfollower.DocFollowerPolicy`: the methods use its state
(queue, pending steps, goal values and names) and its ``_decide``/``_missing`` helpers.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from consoleagent.actions.spec import Action
from consoleagent.documents.instructions import SAVE_LABELS, Instruction, instructions_from
from consoleagent.documents.labels import BOLD, normalize
from consoleagent.observation.roles import FIELD_ROLES, TEXT_ROLES
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision
from consoleagent.policies.docfollow.explore import MORE, UNSAFE
from consoleagent.policies.docfollow.goal_fields import names
from consoleagent.policies.docfollow.marks import find_mark, names_in
from consoleagent.policies.docfollow.rows import acted_on, row_boxes
from consoleagent.policies.docfollow.semantic import canonical, scores

# "Disassociate the EIPs of this NAT gateway first", "Disassociate the EIP before releasing it": what to do
# before the disabled action; done only for verbs that undo something
UNDOING_VERBS = {"disassociate", "unassociate", "detach", "unbind", "unassign", "disable", "stop"}
_FIRST = re.compile(r"^(?P<verb>[A-Z][a-z]+)\s+(?:the|its|all)\s+(?P<what>.+?)(?:\s+(?:of|from|in|on|with)\s+(?:this|the)\s+.+?)?"
                    r"\s+(?:first|before\s+\w+ing\b[^.]*)\.?$")
# "alert: A key pair named 'bastion-key' already exists in this region.", and a goal that replaces it
_EXISTS = re.compile(r"^\s*alert:.*\balready exists\b", re.I)
_REPLACE = re.compile(r"\b(?:replac\w*|overwrit\w*|recreat\w*)\b", re.I)
# "In the **Networking** step, select ...": a document step about one step of a wizard
_WIZARD_STEP = re.compile(r"^\s*(?:in|on)\s+the\s+\*\*(?P<name>[^*]+)\*\*\s+step\b", re.I)
# "Delete the vSwitches, custom route tables and NAT gateways in this VPC first" is done only when the goal lets
# the resource's contents go: "together with everything that is still in it", "the NAT gateway deployed in it is
# no longer needed either" (measured as the follower giving up on such goals in the training split)
REMOVING_VERBS = {"delete", "release", "remove"}
_DEPENDENTS_TOO = re.compile(r"\b(?:together with|along with|with everything|everything (?:that is )?(?:still )?in it|"
                             r"no longer needed|including (?:its|the|all)|and all (?:its|of its))\b", re.I)
MAX_CLEARED = 4  # rounds of "delete what is in it first" for one reason (one resource each)
# "Only an available EIP can be associated", "Only available data disks can be attached.": the resource is in use
_ONLY_STATE = re.compile(r"^only\s+(?:an?\s+)?(?:available|detached|unattached|unassociated|unbound|idle|unused)\b", re.I)
# "Move the EIP game-eip from the ECS instance game-01 to the ECS instance game-02": the goal takes it from one to another
_MOVE = re.compile(r"\bfrom\s+(?:the\s+)?[\w .-]+?\s+to\s+(?:the\s+)?[\w .-]+", re.I)
# "use the custom route table erp-new-rt instead of erp-vpc-legacy-rt": what the goal's resource leaves
_INSTEAD_OF = re.compile(r"\binstead of\s+(?:the\s+)?(?:[a-z][\w ]*?\s+)?(?P<name>[\w.-]*\w)", re.I)
# "Batch Modify", "Delete in batches": what the batch button does, which each row's own entry does to that row
_BATCH_WORDS = re.compile(r"\b(?:batch|bulk|in batches|multiple|several)\b", re.I)
MAX_ROW_ENTRIES = 3  # entries of a row (then of its resource's page) opened, closest first, for the document's dialog
_SETS_A_FIELD = {"fill", "select", "choose", "check", "uncheck", "type_in", "editor"}
MIN_ENTRY_SCORE = 0.3  # an entry less close to the action is not worth opening
_NOT_SUBMIT = re.compile(r"^(?:previous|back|cancel|close|edit\b|dismiss)", re.I)


def let_go(goal: str) -> str:
    """What the goal lets go with the resource, in its words: "the NAT gateway deployed in it is no longer needed
    either" (the reason's "instances" says less), "everything that is still in it"; never the resource itself,
    which would draw a search back to it."""
    found = _DEPENDENTS_TOO.search(goal)
    if found is None:
        return ""
    start = max(goal.rfind(mark, 0, found.start()) for mark in ";,.")
    clause = goal[start + 1:] if re.match(r"no longer", found.group(0), re.I) else goal[found.end():]
    return re.split(r"[;,.]", clause)[0].strip()


def instead_of(goal: str, names: list[str]) -> str | None:
    """The resource the goal moves away from ("... instead of erp-vpc-legacy-rt"), when it is one the goal names."""
    found = _INSTEAD_OF.search(goal)
    return found.group("name") if found and found.group("name") in names else None


def for_one(action: str) -> str:
    """What a batch button does to each row: "Batch Modify" → "Modify"."""
    return " ".join(_BATCH_WORDS.sub(" ", action).split()) or action


def row_entries(action: str, marks: list[Mark], here: Callable[[Mark], bool], tried: list[str]) -> list[Mark]:
    """The entries that may do ``action`` to a resource: the buttons ``here`` (its row's, or its own page's) and the
    open menu's entries, closest in meaning first (``semantic.scores``: actions only), none tried yet and none that
    ends or removes something unless the action does ("Release" for "Modify" never; "Release" for "Delete", yes)."""
    undoing = bool(UNSAFE.search(canonical(action)))
    options = [m for m in marks if m.name.strip() and m.name not in tried and "disabled" not in m.states
               and (m.role == "menuitem" or (m.role == "button" and here(m)))
               and "dialog" not in m.context and not MORE.match(m.name)
               and (undoing or not UNSAFE.search(canonical(m.name)))]
    graded = zip(scores(action, [m.name for m in options]), range(len(options)), options)
    return [m for score, _, m in sorted(graded, key=lambda g: (-g[0], g[1])) if score >= MIN_ENTRY_SCORE]


def first_to_do(reason: str) -> re.Match[str] | None:
    """What a disabled control's reason says to do first. The instruction is often the reason's last sentence,
    after an explanation ("Only available (detached) disks can be released. Detach the disk first."), so each
    sentence is read, the last one first."""
    for sentence in reversed(re.split(r"(?<=[.!])\s+", reason.strip())):
        wanted = _FIRST.match(sentence.strip())
        if wanted is not None:
            return wanted
    return None


class Detours:
    """The follower's detours (see the module docstring)."""

    goal: str
    document: list[str]
    step: int
    pending: list[int]
    queue: deque[Instruction]
    names: list[str]
    row_hints: list[str]
    prerequisites: set[str]
    cleared: dict[str, int]
    discrepancies: int
    stopped: str | None
    batch: bool
    _clicked_in: str
    replaced: bool
    referenced: dict[str, list[str]]
    borrowed_at: int | None
    hints_after: list[str] | None
    _opened_at: int
    values: Any
    _decide: Any
    _missing: Any
    _end: Any
    _not_applicable: Any
    row_way: tuple[bool, str] | None
    _with_goal_values: Any

    def _wizard_order(self, obs: Observation) -> Decision | None:
        """The next document step is "In the **Networking** step, ..." but the wizard shows **System
        Configurations**, which a later document step is about: that step is done now, the other after
        it, and the changed order is reported (``step_order_changed`` at the step that expected the other)."""
        expected = _WIZARD_STEP.search(self.document[self.pending[0] - 1])
        if expected is None or _wizard_step_shown(expected.group("name"), obs):
            return None
        for position, later in enumerate(self.pending[1:], 1):
            named = _WIZARD_STEP.search(self.document[later - 1])
            if named is not None and _wizard_step_shown(named.group("name"), obs):
                waiting = self.pending[0]
                self.pending.insert(0, self.pending.pop(position))
                self.discrepancies += 1
                action = Action("report_discrepancy", (waiting, "step_order_changed", expected.group("name"), named.group("name")))
                return Decision(action=str(action), raw=str(action), document_step=waiting,
                                thought=f"Step {waiting}: the wizard shows {named.group('name')!r} before "
                                        f"{expected.group('name')!r}; doing step {later} first.")
        return None

    def _select_rows(self, ins: Instruction, obs: Observation) -> Decision | None:
        """Tick the rows of the goal's resources, one per turn. No such check box (after a scroll): the
        batch selection is gone; reported, then done one row at a time, or, with nothing to do to each row,
        the follower stops rather than press a batch button that would act on whatever rows are selected."""
        boxes = row_boxes(obs.marks, self.goal)
        if not boxes:
            if ins.scrolled and not self._one_row_at_a_time(ins):
                self.stopped = f"step {self.step}: the rows of the goal's resources cannot be selected (no check boxes)"
            return self._missing(ins, obs, "element_removed")
        todo = [m for m in boxes if "checked" not in m.states]
        if not todo:
            self.queue.popleft()
            self.batch = True  # the buttons pressed next act on the selection: the list's, not a row's
            return None
        mark = todo[0]
        self.batch = len(todo) == 1
        return self._decide(Action("check", (mark.id,)), f"Step {self.step}: select the row: [{mark.id}] {mark.name!r}.",
                            ins, done=len(todo) == 1)

    def _one_row_at_a_time(self, rows: Instruction) -> bool:
        """No check boxes to select the rows: do what the document does to the selection to each of the goal's
        resources in turn, its first click in that resource's row ("Delete" in each row), its dialogs the
        row's own. False when the rest of the document has no click to start from."""
        rest = self._ahead(rows, valued=True)
        first = next((k for k, i in enumerate(rest) if i.kind == "click"), None)
        names = acted_on(self.goal)
        if first is None or not names:
            return False
        plan = [replace(i, row=name if k == first else "", per_row=True) for name in names for k, i in enumerate(rest[first:])]
        self.queue = deque([rows, *plan])
        self.pending = []
        return True

    def _each_row_instead(self, ins: Instruction, obs: Observation) -> bool:
        """A batch button is gone after the goal's rows were selected ("Above the list, click **Batch Modify**"). A
        person does it to each resource from its own row, as a console's release notes say ("rename instances one
        at a time from the row's More menu"): that row's entry for the action (``row_action``), then the rest of
        the document in the dialog it opens, row after row. False when the goal names no row or nothing follows."""
        rest = self._ahead(ins, valued=True)
        rows = [n for n in acted_on(self.goal) if any(m.context.startswith("row") and names(m.context, n) for m in obs.marks)]
        if not self.batch or ins.per_row or ins.kind != "click" or not rest or not rows:
            return False
        plan = [step for row in rows for step in (Instruction("row_action", for_one(ins.target), obs.url, row=row, text=ins.text),
                                                  *(replace(i, per_row=True) for i in rest))]
        self.queue = deque([ins, *plan])  # the report of the gone button takes ``ins`` off
        self.pending = []
        self.batch = False
        return True

    def _row_action(self, ins: Instruction, obs: Observation) -> Decision | None:
        """Open the resource's own entry for the action (``_each_row_instead``): the row's buttons and its **More**
        menu's entries, the closest in meaning first; then, none left, the same on the resource's own page (its
        link in the row). The dialog opened must hold the field the document sets next; else it is closed (Escape)
        and the next entry opened, ``MAX_ROW_ENTRIES`` at most in each place. The next rows go where this one's
        entry was found (``row_way``). Nowhere: the follower stops."""
        dialog = [m for m in obs.marks if "dialog" in m.context]
        wanted = next((i.target for i in self.queue if i is not ins and i.kind in _SETS_A_FIELD
                       and not self._not_applicable(i)), "")
        if ins.tried and dialog:
            if not wanted or find_mark(wanted, dialog, roles=FIELD_ROLES) is not None:
                self.row_way = (ins.searched, ins.tried[-1])
                self.queue.popleft()  # the dialog the document describes: its steps come next
                return None
            return self._decide(Action("press", ("Escape",)), f"Step {self.step}: {ins.tried[-1]!r} opened no "
                                f"{wanted!r}; closing it.", ins, done=False)
        in_row = not ins.searched
        if in_row and ins.value and not ins.waits and not any(m.context.startswith("row") and names(m.context, ins.row)
                                                              for m in obs.marks):
            ins.waits += 1  # once: the previous row's own page is left for the list
            return self._decide(Action("goto", (ins.value,)), f"Step {self.step}: back to the list for {ins.row!r}.",
                                ins, done=False)
        return self._next_row_entry(ins, obs, in_row)

    def _next_row_entry(self, ins: Instruction, obs: Observation, in_row: bool) -> Decision:
        """The next place to look for the row's entry: the closest entry not tried, the menu that holds more, the
        resource's own page, in that order (``_row_action``)."""
        on_page_before = bool(self.row_way and self.row_way[0])  # the last row's entry was on its own page
        mine = (lambda m: names(m.context, ins.row)) if in_row else (lambda m: not m.context.startswith("row"))
        entries = [] if in_row and on_page_before else row_entries(ins.target, obs.marks, mine, ins.tried)
        entries.sort(key=lambda m: not self.row_way or m.name != self.row_way[1])  # the last row's entry first
        if entries and len(ins.tried) < MAX_ROW_ENTRIES:
            ins.tried.append(entries[0].name)
            return self._decide(Action("click", (entries[0].id,)), f"Step {self.step}: {ins.target!r} for "
                                f"{ins.row!r}: [{entries[0].id}] {entries[0].name!r}.", ins, done=False)
        more = next((m for m in obs.marks if m.role == "button" and MORE.match(m.name) and "disabled" not in m.states
                     and mine(m)), None)
        menu_open = any(m.role == "menuitem" for m in obs.marks)
        if more is not None and not menu_open and len(ins.tried) < MAX_ROW_ENTRIES and not (in_row and on_page_before):
            return self._decide(Action("click", (more.id,)), f"Step {self.step}: {ins.target!r} for {ins.row!r}: the "
                                f"menu [{more.id}].", ins, done=False)
        link = find_mark(ins.row, obs.marks, roles={"link"}, names=[ins.row]) if in_row else None
        if link is not None and link.quality == "exact":
            ins.searched, ins.tried = True, []  # the resource's own page has its own entries, named alike or not
            return self._decide(Action("click", (link.mark.id,)), f"Step {self.step}: {ins.target!r} for {ins.row!r}: "
                                f"its own page [{link.mark.id}].", ins, done=False)
        self.stopped = f"step {self.step}: neither {ins.row!r}'s row nor its page does {ins.target!r}"
        return self._end("task_unachievable", self.stopped)

    def _on_resource_page(self, ins: Instruction, obs: Observation) -> Decision | None:
        """"More > Resize" in the goal's row, and the menu opened has no Resize: a person looks on the
        resource's own page. Reported as removed from the row (``element_removed``), then the resource's
        link is opened and the action looked for there. Only when the path's menu did open (its first label
        was found and clicked) and the page links the goal's resource."""
        whole = whole_path(ins)
        if ins.searched or len(ins.path) >= len(whole) or not ins.path:
            return None
        link = next((m.mark for name in self.names
                     for m in [find_mark(name, obs.marks, roles={"link"}, names=self.names)]
                     if m is not None and m.quality == "exact"), None)
        if link is None:
            return None
        ins.searched = True
        wanted = ins.path[-1]
        self.queue = deque([Instruction("open_resource", "", text=ins.text),
                            Instruction("find", wanted, text=ins.text, candidates=[wanted]),
                            *(i for i in self.queue if i is not ins)])
        self.discrepancies += 1
        action = Action("report_discrepancy", (self.step, "element_removed", f"{' > '.join(whole)} in the resource's row",
                                               f"the menu has no {wanted!r}; looking on {link.name!r}'s own page"))
        return Decision(action=str(action), raw=str(action), document_step=self.step,
                        thought=f"Step {self.step}: {wanted!r} is not in the row's menu; opening {link.name!r}.")

    def _prerequisite(self, ins: Instruction, reason: str, obs: Observation) -> bool:
        """A button disabled with what to do first ("Disassociate the EIPs of this NAT gateway first"): do it
        as a person would: find where that action is (its button, by the goal's resources' rows), confirm it,
        come back and press the button again. Once per reason; False when the reason asks for nothing."""
        wanted = first_to_do(reason)
        if wanted is None and reason not in self.prerequisites:
            return self._undo_to_move(ins, reason, obs)
        if wanted is None:
            return False
        verb = wanted.group("verb").casefold()
        clearing = verb in REMOVING_VERBS and bool(_DEPENDENTS_TOO.search(self.goal))
        if verb not in UNDOING_VERBS and not clearing:
            return False  # never a destructive "Delete the vSwitches ... first" the goal did not ask for
        if reason in self.prerequisites and not (clearing and self.cleared.get(reason, 0) < MAX_CLEARED):
            return False  # an undoing reason once; what the goal lets go, one resource per round, a few rounds
        if verb in ("stop", "disable") and not reason.rstrip(". ").endswith("first"):
            return False  # "Stop the instance before changing its type": the document's own steps stop it; wait
        self.prerequisites.add(reason)
        self.cleared[reason] = self.cleared.get(reason, 0) + clearing
        verb = wanted.group("verb")
        again = replace(ins, errors=0, waits=0)
        if again.kind == "navigate":
            again.path = whole_path(again)
        what = f"{wanted.group('what')}: {let_go(self.goal)}" if clearing else wanted.group("what")
        found = Instruction("find", verb, what, text=reason, candidates=[verb], guarded=True,
                            elsewhere=self._clicked_in if clearing else "")  # what is in it, not the resource itself
        steps = [found, Instruction("confirm", verb, text=reason), Instruction("goto", obs.url, text=reason), again]
        self.queue = deque([*steps, *(i for i in self.queue if i is not ins)])
        return True

    def _undo_to_move(self, ins: Instruction, reason: str, obs: Observation) -> bool:
        """"Only an available EIP can be associated" when the goal moves the resource ("Move the EIP game-eip from
        game-01 to game-02"): the row's undoing button (**Disassociate**) first, confirmed, then the disabled one
        again, as a person moving it would. Only with the goal's "from ... to ...", only in the row of the button
        that said so, and only an undoing verb (measured on the training split: the follower had reported the
        Associate dialog's fields missing). When the goal replaces the resource instead ("Replace the EIP of vpn-01
        with the EIP vpn-new-eip"), the disabled button is pressed again in the row of the one other resource the
        goal names on the page (measured on the training split: a replacement had associated nothing)."""
        if not (_ONLY_STATE.match(reason) and self._clicked_in.startswith("row")):
            return False
        if _MOVE.search(self.goal):
            again = replace(ins, errors=0, waits=0)
        elif _REPLACE.search(self.goal) and (replacement := self._replacement(obs)) is not None:
            again = replace(ins, errors=0, waits=0, row=replacement)
        else:
            return False
        undo = next((m for m in obs.marks if m.context == self._clicked_in and "disabled" not in m.states
                     and m.role in ("button", "link", "menuitem") and m.name.split(" ")[0].casefold() in UNDOING_VERBS), None)
        if undo is None:
            return False
        holder = next((h for h in self.row_hints if names_in(self._clicked_in, [h])), None)
        if holder is None:
            return False
        self.prerequisites.add(reason)
        steps = [Instruction("click", undo.name, text=reason, row=holder),  # that row's, not the replacement's
                 Instruction("confirm", undo.name, text=reason), again]
        self.queue = deque([*steps, *(i for i in self.queue if i is not ins)])
        return True

    def _replacement(self, obs: Observation) -> str | None:
        """The goal's one resource with a row of its own on the page other than the row just clicked: what
        replaces the resource in that row ("vpn-new-eip" while "vpn-old-eip" is in use); None for none or several."""
        rows = {m.context for m in obs.marks if m.context.startswith("row") and m.context != self._clicked_in}
        found = [n for n in self.names if not names_in(self._clicked_in, [n]) and any(names_in(r, [n]) for r in rows)]
        return found[0] if len(found) == 1 else None

    def _replace_existing(self, obs: Observation) -> None:
        """"A key pair named 'bastion-key' already exists" when the goal says the old one "must be replaced": close
        the form, delete the existing one (its row's Delete, for the goal's names only), confirm, come back and
        do the document again from the step that opened the form. Once; never without the goal's word."""
        if self.replaced or not _REPLACE.search(self.goal):
            return
        alert = next((line.strip() for line in obs.text.splitlines() if _EXISTS.search(line)), None)
        if alert is None:
            return
        self.replaced = True
        self.queue = deque([Instruction("find", "Cancel", text=alert, candidates=["Cancel", "Close"]),
                            Instruction("find", "Delete", "delete the existing one", text=alert, candidates=["Delete"],
                                        guarded=True),
                            Instruction("confirm", "Delete", text=alert), Instruction("goto", obs.url, text=alert)])
        self.pending = [*range(self._opened_at, self.step + 1), *self.pending]
        self.values.reset()  # the goal's values go into the form again

    def _free_first(self, missing: str) -> bool:
        """The list has no place for the goal's resource (``missing``) because it is still bound where the goal
        takes it from ("Make the vSwitch erp-app-vsw use erp-new-rt instead of erp-vpc-legacy-rt"; the note says
        only vSwitches that still use the system route table are listed): a person undoes that binding first. The
        dialog is closed, the page the document refers to for undoing it (its title starts with an undoing verb:
        *Unassociate a route table from a vSwitch*) is followed with the old resource's rows first, and the
        document is done again from its first step. Once, and never without the goal's "instead of" naming a
        resource of the goal (measured on the training split: two such goals gave up there)."""
        old = instead_of(self.goal, self.names)
        if old is None or old == missing or self.borrowed_at is not None:
            return False
        undo = next((title for title in self.referenced if title.split()[0].casefold() in UNDOING_VERBS), None)
        if undo is None:
            return False
        own = range(1, len(self.document) + 1)
        self.pending = [*self._borrow(self.referenced[undo]), *own]
        why = f"{missing!r} is not offered while it uses {old!r}: {undo} first"
        self.queue = deque([Instruction("find", "Cancel", text=why, candidates=["Cancel", "Close"])])
        self.hints_after = self.row_hints
        self.row_hints = [old, *(h for h in self.row_hints if h != old)]  # the old resource's rows, not the new one's
        return True

    def _borrow(self, steps: list[str]) -> list[int]:
        """A referenced page's steps, added after the document's (after ``borrowed_at`` nothing is reported: it is
        not the document under test); their step numbers."""
        self.borrowed_at = len(self.document)
        self.document += steps
        return list(range(self.borrowed_at + 1, len(self.document) + 1))

    def _back_to_document(self) -> None:
        """The undoing page is done: the goal's rows in their own order, and its values for the form anew."""
        if self.hints_after is not None and self.borrowed_at is not None and self.step <= self.borrowed_at:
            self.row_hints, self.hints_after = self.hints_after, None
            self.values.reset()

    def _confirm(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The confirmation a prerequisite's action may open: its button when a dialog asks (a save button, or one
        named like the action: the **Delete** of a "Delete vSwitch" dialog); else nothing."""
        self.queue.popleft()
        for label in [*SAVE_LABELS, *([ins.target] if ins.target else [])]:
            match = find_mark(label, [m for m in obs.marks if "dialog" in m.context], exclude=TEXT_ROLES)
            if match is not None and match.quality == "exact" and "disabled" not in match.mark.states:
                return self._decide(Action("click", (match.mark.id,)), f"Step {self.step}: confirm: [{match.mark.id}] "
                                    f"{match.mark.name!r}.", None)
        return None

    def _clicks_after(self, ins: Instruction) -> bool:
        """Whether the document asks for another click after this one (then this one is no final submit)."""
        return any(i.kind in ("click", "navigate") for i in self._ahead(ins))

    def _ahead(self, ins: Instruction, valued: bool = False) -> list[Instruction]:
        """The instructions still to do after ``ins``: the queue's, then the pending steps' (with the goal's
        values when ``valued``)."""
        rest = [i for i in self.queue if i is not ins]
        for number in self.pending:
            found = instructions_from(self.document[number - 1])
            rest += self._with_goal_values(found) if valued else found
        return rest


def _wizard_step_shown(name: str, obs: Observation) -> bool:
    """Whether the page shows that wizard step (its region, or its heading)."""
    want = normalize(name)
    return any(normalize(line.strip().rstrip(":")) in (f"region {want}", want)
               for line in obs.text.splitlines() if line.strip().startswith(("region", "#")))


def wizard_submit(obs: Observation) -> Mark | None:
    """The one button that submits a wizard's last page (it has a **Previous** button; every other enabled
    button in the page's main region goes back or edits a step): the document's final click renamed
    ("Create Order" → "Create Instance", which no encoder calls the same: cosine 0.30)."""
    lines = obs.text.splitlines()
    start = next((k for k, line in enumerate(lines) if line.strip() == "main:"), None)
    if start is None:
        return None
    in_main = {int(i) for line in lines[start:] for i in re.findall(r"\[(\d+)\]", line)}
    buttons = [m for m in obs.marks if m.id in in_main and m.role == "button" and "disabled" not in m.states]
    if not any(re.match(r"previous\b", m.name, re.I) for m in buttons):
        return None
    submits = [m for m in buttons if not _NOT_SUBMIT.match(m.name.strip())]
    return submits[0] if len(submits) == 1 else None


def whole_path(ins: Instruction) -> list[str]:
    """A menu path from its first label again (``**More** > **Release**``): its menu closes on the way back."""
    return [label.strip() for label in BOLD.findall(ins.text)] or ins.path
