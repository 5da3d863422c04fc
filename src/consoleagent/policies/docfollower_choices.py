"""Which value a field gets when the document says how to choose it rather than what to type: the follower's choices.

A person reads the field and the goal, and picks:

- a field whose document value is an instruction ("Select the VPC of the application servers", "provide a name
  for the group") gets the goal's value of its kind, or the option closest in meaning, never the words typed;
  one that already holds a real value keeps it;
- a radio group the document names gets the radio the goal names, else the one checked stands; a choice the
  document lists and the group no longer offers is reported (``element_removed``);
- a check box or switch is turned on or off as the goal or the document's value says (``toggle_wanted``);
- an editable drop-down gets the option the goal names once its list is open (typed, then picked, a qualified
  name also without its qualifier), and the check boxes a read-only field opens are ticked as the goal names them.

A mixin of :class:`~consoleagent.policies.docfollower.DocFollowerPolicy`: the methods use its state
(queue, goal values, fields set) and its ``_decide``/``_find``/``_toggle`` helpers. It sits beside
``goal_values``, not in ``docfollow``: it reads ``goal_values``, which reads ``docfollow``.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from dataclasses import replace
from typing import Any

from consoleagent.actions.spec import Action
from consoleagent.documents.instructions import Instruction
from consoleagent.documents.labels import normalize, terms
from consoleagent.observation.roles import CHOICE_ROLES, FIELD_ROLES, TEXT_ROLES, TOGGLE_ROLES
from consoleagent.observation.types import Mark, Observation
from consoleagent.policies.base import Decision
from consoleagent.policies.docfollow.goal_code import CODE_NOUNS, code_from_goal, outside_code
from consoleagent.policies.docfollow.goal_fields import names as holds_name, only_one_of, outside_others, purpose_in_goal, switch_from_goal, value_from_goal
from consoleagent.policies.docfollow.goal_lists import boxes_to_tick, description, listed_in_goal, opens_boxes, written_as
from consoleagent.policies.docfollow.marks import Match, find_mark
from consoleagent.policies.goal_values import SHAPES, made_name, named_by_goal, operator_in_goal, option_in_goal

_MARK_LINE = re.compile(r"\s*\[\d+\] ")  # a marked element's line of the observation text
_CHANGE = re.compile(r"(?:change|modify|update|edit)\b", re.I)
_PLACEHOLDER = re.compile(r"^\s*(select|choose|please|none|--|-)\b", re.I)
TRUE_WORDS = {"yes", "on", "true", "enabled", "enable", "selected", "select", "checked", "check"}
FALSE_WORDS = {"no", "off", "false", "disabled", "disable", "cleared", "clear", "unchecked", "uncheck", "unselected",
               "deselected", "deselect"}
_FREE_TEXT = re.compile(r"\b(?:name|description|remarks?|notes?|comments?)\b", re.I)  # fields any words may fill


class Choices:
    """The follower's choices (see the module docstring)."""

    goal: str
    step: int
    queue: deque[Instruction]
    values: Any
    stopped: str | None
    fields_set: dict[tuple[str, str], int]
    field_labels: list[str]
    _listed_field: tuple[str, str]
    _taken_options: set[str]
    _decide: Any
    _report: Any
    _find: Any
    _hint: Any
    _into_grid: Any
    _renamed_to: Any
    _field_named_plainly: Any
    _purpose_asked: Any
    _toggle: Any
    _enable_first: Any

    def _select_in_group(self, ins: Instruction, group: list[Mark]) -> Decision | None:
        """A radio group named by the document ("Select the **Instance Type**", and as a click "Select the **Logon
        Credential**", once measured as a false ``element_removed`` on a correct document): the radio the goal names
        is clicked; else the one already checked stands; else the first."""
        chosen = _radio_for_goal(group, self.goal) or next((r for r in group if "checked" in r.states), group[0])
        if "checked" in chosen.states:
            self.queue.popleft()
            return None
        return self._click_option(ins, chosen)

    def _listed_choice_gone(self, ins: Instruction) -> bool:
        """Whether the value is one of the choices the document lists for the field ("**Key Pair**, **Custom
        Password**, or **Set Later**"), and so a radio the group should have, rather than a value of another
        kind ("Alibaba Cloud Linux" for a group of image kinds)."""
        return any(normalize(o) == normalize(ins.value) for o in ins.options)

    def _choice_gone(self, ins: Instruction, group: list[Mark]) -> Decision:
        """A choice the document lists is gone from its radio group: reported as ``element_removed``. When it is
        the goal's own choice ("without setting any logon credential now (it will be set later)" for **Set
        Later**), no other radio does what the goal asks, so the follower stops there (measured as instances
        the follower created with the default credential)."""
        if option_in_goal(ins.options, self.goal) == ins.value:
            self.stopped = (f"step {self.step}: the goal asks for {ins.value!r} of {ins.target!r}, which the console "
                            f"no longer offers")
        offered = ", ".join(repr(r.name) for r in group)
        return self._report("element_removed", f"the choice {ins.value!r} of {ins.target!r}",
                            f"no such choice; the choices are {offered}", ins, done=True)

    def _click_option(self, ins: Instruction, mark: Mark) -> Decision | None:
        if mark.role in TOGGLE_ROLES:
            return self._toggle(ins, mark, True)
        if "selected" in mark.states:
            self.queue.popleft()
            return None
        return self._decide(Action("click", (mark.id,)),
                            f"Step {self.step}: set {ins.target!r} to {ins.value!r}: click [{mark.id}] {mark.name!r}.", ins)

    def _choose(self, ins: Instruction, obs: Observation) -> Decision | None:
        """A field whose document value is an instruction ("Select the VPC of the application servers",
        "provide a name for the group"): never typed as it is. A field that already holds a real value
        keeps it (the console's proposal is what a person accepts); an empty required text field gets the
        goal's value of its kind or a name made from the field; a drop-down is opened by a probe whose
        error lists the options, and the one closest in meaning is chosen (``_instead_of_example``)."""
        match = self._find(ins, obs, roles=FIELD_ROLES)
        if match is not None and match.quality == "fuzzy" and _plural_of(ins.target, match.mark.name):
            match = Match(match.mark, "exact", 1.0)  # "Events" describes the field "Event"
        if ins.empty_only:  # a field of a row just added below rows already set: the last blank one of its name
            blank = [m for m in obs.marks if normalize(m.name) == normalize(ins.target)
                     and m.role in FIELD_ROLES - TOGGLE_ROLES and not (m.value or "").strip()]
            if not blank:
                self.queue.popleft()  # the new row shows it already set, or has no such field
                return None
            match = Match(blank[-1], "exact", 1.0)
        grid = self._into_grid(ins, obs, match)
        if grid is not None:
            return grid
        if match is not None and match.quality == "fuzzy" and ins.alias is None and match.mark.role not in TOGGLE_ROLES \
                and value_from_goal(ins.target, self.goal) is not None:
            return self._renamed_to(ins, ins.target, match.mark)  # *LC_CTYPE* is "LC_TYPE", and the goal gives it a value
        if match is None or match.quality == "fuzzy":
            named = [o for o in ins.options if switch_from_goal(o, self.goal)]
            option = next((m for o in named for m in [find_mark(o, obs.marks, roles=TOGGLE_ROLES | {"button"})] if m), None)
            if option is not None and option.quality != "fuzzy":
                return self._click_option(ins, option.mark)
            group = radio_group(ins.target, obs)
            if group:  # "Select the **Instance Type**": a radio group, its options the radios
                return self._select_in_group(ins, group)
            plain = self._field_named_plainly(ins, obs)
            if plain is not None:  # "Use the field in the **Definition** tab to choose a template": **Template**
                self.queue[0] = replace(ins, target=plain.name)
                return self._choose(self.queue[0], obs)
            self.queue.popleft()  # a field the document only describes, not on this form: nothing to do
            return None
        mark = match.mark
        current = (mark.value or "").strip()
        if mark.role in TOGGLE_ROLES:
            # "all the tables in the schema public" is **Tables In Schema**'s, not the switch **All tables?**'s
            on = switch_from_goal(ins.target, outside_others(self.goal, ins.target, self.field_labels))
            if on is None and ins.siblings:  # "only the inserts" of INSERT, UPDATE, DELETE, TRUNCATE
                on = only_one_of(ins.target, ins.siblings, self.goal)
            if on is None and purpose_in_goal(ins.sentence, self.goal):  # "To exclude status messages, move ... No"
                on = toggle_wanted(ins.options[0]) if ins.options else True
            if on is None and self._purpose_asked(ins):  # "... to **Yes** to specify that VACUUM should not wait ..."
                on = toggle_wanted(ins.options[0]) if ins.options else True
            if on is None:
                self.queue.popleft()  # the goal does not say: the console's default stays
                return None
            return self._toggle(ins, mark, on)
        # the document's whole sentence about the field; for a row added by a later step, its own step's
        how = description(ins.target, self._hint()) or next(
            (said for step in self.document if (said := description(ins.target, step))), "")
        if "readonly" in mark.states and opens_boxes(how):  # "Click inside the **Privileges** field. Check the boxes"
            self.queue[0] = Instruction("tick", ins.target, text=ins.text)
            return self._decide(Action("click", (mark.id,)), f"Step {self.step}: {ins.target!r}: its boxes.", None)
        # "event may be **Select**, **Insert**, **Update**, or **Delete**" for a goal "instead of a DELETE"; into a
        # text box, a list written as the page says ("in single quotes separated by comma") first
        listed = written_as(listed_in_goal(ins.target, self.goal), how) if mark.role in TEXT_ROLES else None
        wanted = (listed or self.values.of_kind(ins.target) or value_from_goal(ins.target, self.goal, self.field_labels)
                  or option_in_goal(ins.options, self.goal) or self._code_for(ins, mark))
        if wanted is not None and normalize(wanted) != normalize(current):
            enabling = self._enable_first(mark)
            if enabling is not None:
                return enabling
            if mark.role in CHOICE_ROLES and not (mark.role == "combobox" and mark.tag == "input"):
                ins.kind, ins.value = "select", wanted  # an option the console lacks gives way (_instead_of_example)
                return self._decide(Action("select", (mark.id, wanted)),
                                    f"Step {self.step}: {ins.target!r}: the goal's {wanted!r}.", ins)
            decision = self._decide(Action("type", (mark.id, wanted)),
                                    f"Step {self.step}: {ins.target!r}: the goal's {wanted!r}.", ins)
            if mark.role == "combobox":
                self.queue.appendleft(Instruction("pick", ins.target, wanted, text=ins.text))
            return decision
        if current and not _PLACEHOLDER.match(current):
            if _CHANGE.match(ins.value) and mark.role in TEXT_ROLES and self.values.named(ins.target):
                value = self.values.for_instruction(ins.target, ins.value, mark.placeholder or "")
                if value and normalize(value) != normalize(current):  # "change the **Name**": the goal's new one
                    return self._decide(Action("type", (mark.id, value)),
                                        f"Step {self.step}: {ins.target!r}: from {current!r} to the goal's {value!r}.", ins)
            self.queue.popleft()
            return None
        if mark.role in CHOICE_ROLES and not (mark.role == "combobox" and mark.tag == "input"):
            return self._decide(Action("select", (mark.id, ins.value)),
                                f"Step {self.step}: {ins.target!r}: {ins.value!r}; asking the list for its options.",
                                ins, done=False)
        within, taken = address_ranges(obs, mark)
        value = self.values.for_instruction(ins.target, ins.value, mark.placeholder or "", within=within, taken=taken)
        if value is None and "required" in mark.states and mark.role in TEXT_ROLES and _FREE_TEXT.search(ins.target):
            value = made_name(ins.target)  # a required name or description the goal says nothing of: a person writes one
        if value is None and mark.role == "combobox" and mark.tag == "input" and "expanded" not in mark.states:
            return self._open_list(ins, mark)  # "select a column": the goal may name one of its options
        if value is None or ("required" not in mark.states and not self.values.named(ins.target)):
            self.queue.popleft()  # optional and nothing to put there: left as it is
            return None
        decision = self._decide(Action("type", (mark.id, value)),
                                f"Step {self.step}: {ins.target!r} ({ins.value}): [{mark.id}] {value!r}.", ins)
        if mark.role == "combobox":
            self.queue.appendleft(Instruction("pick", ins.target, value, text=ins.text))
        return decision

    def _code_for(self, ins: Instruction, mark: Mark) -> str | None:
        """A text field described by the code it takes ("Use the **Constraint** field to provide a condition that
        a row must satisfy"): the goal's code of that kind (``code_from_goal``: "only among the rows where
        room > 100"), else None."""
        if mark.role not in TEXT_ROLES:
            return None
        nouns = terms(ins.value) & CODE_NOUNS
        return next((code for noun in sorted(nouns) if (code := code_from_goal(noun, self.goal))), None)

    def _open_list(self, ins: Instruction, mark: Mark) -> Decision:
        """An empty editable drop-down the document asks to set and the goal gives no value of its own: its list
        is opened, as a person looks at the choices, and ``_offered`` takes the option the goal names ("no two
        rows have an equal room" names the column **room** and the operator **=**)."""
        self.queue[0] = Instruction("offered", ins.target, text=ins.text, sentence=ins.sentence)
        self._listed_field = (mark.name, mark.context)
        return self._decide(Action("click", (mark.id,)), f"Step {self.step}: the choices of {ins.target!r}.", None)

    def _tick(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The check boxes a field opened (``goal_lists.opens_boxes``): each one the goal names is ticked, one
        per turn; the boxes are given a moment to appear, once."""
        if not any(m.role == "checkbox" for m in obs.marks) and not ins.waits:
            ins.waits += 1
            return self._decide(Action("wait", (1,)), f"Step {self.step}: waiting for {ins.target!r}'s boxes.", ins,
                                done=False)
        boxes = boxes_to_tick(obs.marks, self.goal)
        if not boxes:
            self.queue.popleft()
            return None
        return self._decide(Action("check", (boxes[0].id,)), f"Step {self.step}: {ins.target!r}: the goal's "
                            f"{boxes[0].name!r}.", ins, done=len(boxes) == 1)

    def _offered(self, ins: Instruction, obs: Observation) -> Decision | None:
        """The option of the list just opened that the goal names, and no other field took already (a goal's
        "room" is one field's value): typed, then picked (``_pick``), since a long list shows it below the
        dialog's edge. None named: the list is closed and the field left as it is."""
        options = _listed_options(obs)
        loading = self._options_loading(ins, obs, options)
        if loading is not None:
            return loading
        self.queue.popleft()
        names = [m.name for m in options if normalize(m.name) not in self._taken_options]
        # the ">" of "where room > 100" is the condition's, and "includes the column guest" **Include columns**', not
        # this list's
        outside = outside_code(outside_others(self.goal, ins.target, self.field_labels))
        chosen = named_by_goal(names, outside) or operator_in_goal(names, outside)
        field = next((m for m in obs.marks if (m.name, m.context) == self._listed_field and m.role == "combobox"), None)
        if chosen is None or field is None:
            return self._decide(Action("press", ("Escape",)), f"Step {self.step}: the goal names none of the "
                                                             f"choices of {ins.target!r}; closing the list.", None)
        self._taken_options.add(normalize(chosen))
        self.fields_set[self._listed_field] = self.step
        self.queue.appendleft(Instruction("pick", ins.target, chosen, text=ins.text))
        return self._decide(Action("type", (field.id, chosen)), f"Step {self.step}: {ins.target!r}: the goal's {chosen!r}.",
                            None)

    def _options_loading(self, ins: Instruction, obs: Observation, options: list[Mark]) -> Decision | None:
        """An open list that shows no option yet is filled from the server: a moment for it, twice at most."""
        if options or ins.waits >= 2 or not _list_open(obs):
            return None
        ins.waits += 1
        return self._decide(Action("wait", (1,)), f"Step {self.step}: waiting for the options of {ins.target!r}.",
                            ins, done=False)

    def _pick(self, ins: Instruction, obs: Observation) -> Decision | None:
        """After typing into an editable drop-down: click the option it now offers for the typed text (the
        option named so, or the one that starts with it: "int_label(integer)" for "int_label", or one the goal
        writes in words); none shown: the typed text stays."""
        typed = ins.value.casefold()
        # an offer to create what was typed ('Create "x"') is not an option of the list
        options = [m for m in _listed_options(obs) if f'"{typed}"' not in m.name.casefold()]
        want = normalize(ins.value)
        spaced = normalize(ins.value.replace("_", " "))
        chosen = (next((m for m in options if m.name.strip().casefold() == typed.strip()), None)  # "=", never "<="
                  or next((m for m in options if want and normalize(m.name) in (want, spaced)), None)
                  or next((m for m in options if normalize(m.name).startswith(want + " ")), None)
                  # the same name qualified or not: "public.log_ddl" for "log_ddl", "orders" for "public.orders"
                  or next((m for m in options if m.name.casefold().endswith("." + typed)
                           or typed.endswith("." + m.name.casefold())), None)
                  # a name the goal writes as words: "for the current user" is CURRENT_USER
                  or next((m for m in options if "_" in m.name and holds_name(self.goal, m.name.replace("_", " "))), None))
        loading = self._options_loading(ins, obs, options)
        if loading is not None:
            return loading
        self.queue.popleft()
        if chosen is None and _list_open(obs) and not any(m.role == "option" for m in obs.marks):
            # nothing listed at all (no offer to create it either): a qualified name is tried without its qualifier,
            # else the list is closed, as it covers the fields below it (measured as the next field unclickable)
            return self._unqualified(ins, obs) or self._decide(
                Action("press", ("Escape",)), f"Step {self.step}: {ins.target!r} lists nothing for {ins.value!r}; "
                                              "closing the list.", None)
        if chosen is None:
            return None
        return self._decide(Action("click", (chosen.id,)),
                            f"Step {self.step}: {ins.target!r}: the option [{chosen.id}] {chosen.name!r}.", None)

    def _unqualified(self, ins: Instruction, obs: Observation) -> Decision | None:
        """A qualified name the list offers nothing for ("pg_catalog.english"), typed again without its qualifier,
        as the list may name its entries ("english"; measured as a configuration left uncopied)."""
        qualifier, _, short = ins.value.rpartition(".")
        field = next((m for m in obs.marks if m.role == "combobox" and "expanded" in m.states), None)
        if not qualifier or not short or field is None or ins.searched:
            return None
        self.queue.appendleft(Instruction("pick", ins.target, short, text=ins.text, searched=True))
        return self._decide(Action("type", (field.id, short)),
                            f"Step {self.step}: {ins.target!r}: nothing listed for {ins.value!r}; {short!r} instead.", None)


def _listed_options(obs: Observation) -> list[Mark]:
    """The options an open drop-down shows that can be chosen."""
    return [m for m in obs.marks if m.role == "option" and m.name.strip() and "disabled" not in m.states]


def _list_open(obs: Observation) -> bool:
    return any(m.role == "combobox" and "expanded" in m.states for m in obs.marks)


def _radio_for_goal(group: list[Mark], goal: str) -> Mark | None:
    """The radio whose first word the goal names ("ecs.g7.xlarge 4 vCPU ..." for a goal naming ecs.g7.xlarge)."""
    lowered = goal.casefold()
    return next((r for r in group if r.name.split() and re.search(rf"(?<![\w.-]){re.escape(r.name.split()[0].casefold())}"
                                                                  r"(?![\w-])", lowered)), None)


def radio_groups(obs: Observation) -> list[tuple[str, list[Mark]]]:
    """The page outline's radio groups in order: ``radiogroup "<label>":`` and the radios indented under it."""
    lines = obs.text.split("\n")
    groups = []
    for i, line in enumerate(lines):
        heading = re.match(r'(?P<indent>\s*)radiogroup "(?P<label>[^"]+)"', line)
        if heading is None:
            continue
        ids = []
        for inner in lines[i + 1:]:
            if len(inner) - len(inner.lstrip()) <= len(heading.group("indent")):
                break
            ids += [int(n) for n in re.findall(r"\[(\d+)\]", inner)]
        groups.append((heading.group("label"), [m for m in obs.marks if m.id in ids and m.role == "radio"]))
    return groups


def radio_group(label: str, obs: Observation) -> list[Mark]:
    """The radios of the group the page outline names ``label``; [] when none."""
    want = normalize(label)
    return next((radios for name, radios in radio_groups(obs) if normalize(name) == want), [])


def toggle_wanted(value: str) -> bool:
    """Whether a document's value for a check box or switch turns it on: "Selected", "Enabled", "Yes" do;
    "Not selected", "Do not enable", "Unchecked", "Off" do not."""
    words = normalize(value).split()
    if not words:
        return True
    if words[0] in ("not", "no", "never", "dont") or words[:2] in (["do", "not"], ["don", "t"]):
        return False
    return " ".join(words) not in FALSE_WORDS


def _plural_of(label: str, name: str) -> bool:
    """Whether two labels differ only by a plural ("Events" and "Event")."""
    a, b = normalize(label), normalize(name)
    return bool(a and b) and (a.rstrip("s") == b.rstrip("s"))


def address_ranges(obs: Observation, mark: Mark) -> tuple[list[str], list[str]]:
    """The address ranges a field must lie within, as its hint says ("Must be within the VPC CIDR block
    10.0.0.0/16": the lines from the field's own to the next element's), and those already on the page or
    prepared (the vSwitches listed behind the dialog), which a new block must not overlap."""
    lines = obs.text.splitlines()
    own = next((i for i, line in enumerate(lines) if line.lstrip().startswith(f"[{mark.id}] ")), None)
    hint: list[str] = []
    if own is not None:
        hint.append(lines[own].replace(mark.placeholder, "") if mark.placeholder else lines[own])  # not its example
        hint += list(itertools.takewhile(lambda line: not _MARK_LINE.match(line), lines[own + 1:own + 4]))
    within = list(dict.fromkeys(SHAPES[0].findall(" ".join(hint))))
    taken = SHAPES[0].findall(obs.text) + SHAPES[0].findall(obs.resource_report or "")
    return within, [t for t in dict.fromkeys(taken) if t not in within]
