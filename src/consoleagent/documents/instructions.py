"""What one document step asks for, as instructions in the order a person carries them out.

A step's text is the document model's canonical form (labels as ``**X**``, tables as ``| a | b |``
lines, sub-steps as lettered lines). Sentences give clicks, menu paths, checks, waits and fills;
parameter tables and field descriptions give fields with an *interpreted* value (the document
model's :class:`Value`): a literal or example to type, "leave empty" (nothing to do), a default
to keep, or an instruction to interpret ("Select the VPC of the application servers") which is
never typed. Two orderings differ from the text's: "configure the following parameters and click
**Next**" followed by its table fills first and clicks after, and "Log on to the X console" starts
the step by going to that console.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from consoleagent.documents.cells import table_parameters
from consoleagent.documents.fields import CHOICE_INTRO, FIELD_PATTERNS, described_field
from consoleagent.documents.labels import BOLD, CONFIRM_WITH, console_named, described_choices, strip_markup
from consoleagent.documents.model import FieldSpec
from consoleagent.documents.procedure import parse_pipe_table

Kind = Literal["click", "navigate", "fill", "select", "check", "uncheck", "wait_for", "open_resource", "console",
               "find", "choose", "pick", "offered", "confirm", "goto", "rows", "type_in", "tail", "editor", "row_action",
               "tick"]

_BOLD = r"\*\*(?P<{0}>[^*]+)\*\*"
_NAV = re.compile(r"(?P<path>\*\*[^*]+\*\*(?:\s*(?:>|→|&gt;)\s*\*\*[^*]+\*\*)+)")
_CHECK = re.compile(r"\b(?P<verb>select|check|turn on|enable|clear|uncheck|deselect|turn off|disable)\s+(?:the\s+)?"
                    + _BOLD.format("label") + r"\s+(?:check ?box|switch|option|radio button|toggle)", re.I)
# "change the **A** and the **B**", "select the **Zone** and the **Instance Type**", "optionally enter a **Tag Key**
# and **Tag Value**": several fields, no values (the same article before each)
_CHANGE_FIELDS = re.compile(r"\b(?P<verb>change|modify|update|edit|specify|enter|fill in|select|choose)\s+(?:the|an?)\s+"
                            r"\*\*[^*]+\*\*(?:\s*,\s*(?:(?:the|an?)\s+)?\*\*[^*]+\*\*)*\s*,?\s*and\s+(?:(?:the|an?)\s+)?"
                            r"\*\*[^*]+\*\*"
                            # "optionally enter the **Instance Name**": one field, its value the goal's
                            r"|\b(?P<verb2>change|modify|update|edit|enter|specify|fill in)\s+the\s+\*\*[^*]+\*\*", re.I)
_POSITION = re.compile(r"\s+to\s+(?:the\s+)?" + _BOLD.format("label"), re.I)
_ON_OFF = {"yes", "no", "on", "off", "true", "false", "enabled", "disabled"}
# "wait until the status changes from **Creating** to **Available**": the state it settles in, or the brief one before
# it, shows the change happened (a busy machine's first look can come after the brief one is over)
_WAIT = re.compile(r"\bwait\s+(?:until|for|till)\b[^*\n]*?" + _BOLD.format("text")
                   + r"(?:\s+to\s+" + _BOLD.format("settled") + ")?", re.I)
_CLICK = re.compile(rf"\b(?:click|choose|select|tap|press|hit|open|{CONFIRM_WITH})\s+(?:the\s+)?" + _BOLD.format("label"), re.I)
# "click **Start**, **Stop** or **Restart**", "click the same button (**Start**, **Stop** or **Restart**)", "click
# the button of the service: **SSH (22)**, ... or **RDP (3389)**": one of them, the one the goal asks for
_CLICK_ONE_OF = re.compile(r"\b(?:click|choose|select|press|tap)\s+(?:the\s+)?(?:same\s+button\s+\(\s*|[\w ]{1,40}:\s*)?"
                           r"(?P<labels>\*\*[^*]+\*\*(?:\s*,\s*\*\*[^*]+\*\*)*\s*,?\s+or\s+\*\*[^*]+\*\*)", re.I)
# "click the **Inbound** tab or the **Outbound** tab, depending on the direction of the rule"
_CLICK_EITHER = re.compile(r"\b(?:click|choose|select|open)\s+the\s+\*\*(?P<a>[^*]+)\*\*\s+(?P<kind>tab|button|option|link)"
                           r"\s*,?\s+or\s+the\s+\*\*(?P<b>[^*]+)\*\*(?:\s+(?P=kind))?", re.I)
# "select the check boxes of the instances", "select the check box in front of each VPC that you want to delete":
# the rows of the goal's resources
_SELECT_ROWS = re.compile(r"\b(?:select|check|tick)\s+the\s+check ?box(?:es)?\s+(?:of|in front of|next to|beside|for)\s+"
                          r"(?:each|every|all|the)\b[^.;]*", re.I)
# "In the **Modify Rule** dialog box, change the parameters.": its table lists what may change, not what to type
_CHANGE_TABLE = re.compile(r"\b(?:change|modify|edit|update)\s+(?:the\s+)?(?:parameters|settings|fields|values|"
                           r"properties|configuration)\b", re.I)
_SUBSTEP = re.compile(r"^\s*(?:[a-z]|\d+)[.)]\s+")
# "click the name of the instance", "click the instance ID", "click its ID": the goal's resource, by its link
_OPEN_BY_NAME = re.compile(r"\bclick (?:the|its) (?:[\w-]+ )?(?:name|id|name or id)\b(?: of the [\w -]+?)?(?= to |[.,;]|$)",
                           re.I)
# A place to open that the document names but never says how to reach: "Open the **Cast** dialog."
_OPEN_PLACE = re.compile(r"\b(?:open|go to|display|bring up)\s+the\s+\*\*(?P<label>[^*]+)\*\*\s+"
                         r"(?:dialog(?: box)?|page|wizard|panel|window|tab)\b", re.I)
_OPEN_UNNAMED = re.compile(r"^open the page that shows these fields\.?$", re.I)
_SAVE_UNNAMED = re.compile(r"^save the dialog\.?$", re.I)
# "configure the following parameters and click **Next**", "configure the network of the instance and click
# **Next**" (its table after it): the fields come before the click
_FOLLOWING = re.compile(r"\b(?:the following|as follows|below|these (?:parameters|settings|fields))\b|"
                        r"\b(?:configure|set|specify|fill in|complete|enter)\b.*\band (?:then )?(?:click|press|tap)\b", re.I)
# "Specify the option name in the **Option** field and provide a corresponding value in the **Value** field": two
# fields in one sentence, each described by its own clause
_TWO_CLAUSES = re.compile(r"^(?P<first>.*?\*\*[^*]+\*\*\s+field)\s*,?\s+and\s+(?P<second>[a-z][^*]*\*\*[^*]+\*\*\s+field\b.*)$")
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z*`\"])")
# "Only for ESSDs: ...", "Available only when Type is Advanced": a field that applies to some choices only
_CONDITION = re.compile(r"^(?:\w+\.\s+)?(?:only|available only|applies only|used only|required only)\s+"
                        r"(?:for|to|with|when|if|in)\s+(?P<what>[^.;:,]+)"
                        # "Subscription only. One of 1, 3 or 6 months": the choice first
                        r"|^(?:\w+\.\s+)?(?P<first>[A-Z][\w -]{2,40}?)\s+only\s*[.:;]"
                        # "The key pair to bind when Key Pair is selected."
                        r"|\b(?:when|if)\s+(?P<selected>[^.;,]{2,40}?)\s+is\s+(?:selected|chosen|enabled|turned on)\b", re.I)
# "set the **Peak Bandwidth** in Mbps", "enter the **Tag Value**": a field a description says to set, and its unit
_SET_FIELD = re.compile(r"\b(?:set|enter|specify|type)\s+(?:the\s+|a\s+)?" + _BOLD.format("label")
                        + r"(?:\s+in\s+(?P<unit>[A-Za-z]{2,8})\b)?", re.I)
# "Provide a command in the editor that defines the action", "Specify a SQL conditional expression that returns a
# boolean value in the editor": a code editor, which has no label, described by what goes into it
_IN_EDITOR = re.compile(r"\b(?:provide|enter|specify|write|type|add)\s+(?:an?|the|your)\s+(?P<what>[\w -]{2,60}?)\s+"
                        r"(?:(?:that|which)\s[^.;]*?\s)?in\s+the\s+(?:[\w-]+\s+)?editor\b", re.I)
# "Move the switch next to **INSERT**, **UPDATE**, **DELETE**, or **TRUNCATE** to **No** ...": one sentence, a switch each
_SWITCH_LIST = re.compile(r"\b(?:switch|toggle|check ?box)(?:es)?\s+(?:next to|beside|for|labelled|labeled)\s+"
                          r"(?P<labels>\*\*[^*]+\*\*(?:\s*,\s*\*\*[^*]+\*\*)*\s*,?\s+(?:or|and)\s+\*\*[^*]+\*\*)", re.I)
SAVE_LABELS = ["Save", "OK", "Create", "Submit", "Confirm", "Apply", "Done", "Finish"]


@dataclass
class Instruction:
    """One thing the document asks for, in the order it asks."""

    kind: Kind
    target: str  # the element's label (the field's, for fill/select/choose; the console's, for console)
    value: str = ""  # fill/select: the text; choose: the document's instruction ("select the VPC of ..."); find: what for
    path: list[str] = field(default_factory=list)  # navigate: the labels still to click
    text: str = ""  # the sentence or table row it came from
    alias: str | None = None  # the close-but-different name we accepted after reporting label_changed
    scrolled: bool = False
    retry_path: list[str] = field(default_factory=list)  # navigate: the path before the last click, for a retry
    waits: int = 0
    errors: int = 0
    unit: str | None = None  # "Mbps" of "5 Mbps"
    amount: str | None = None  # "5" of "5 Mbps": what a numeric field takes
    options: list[str] = field(default_factory=list)  # choose: the labels its instruction names; fill: the listed
    # choices; click: the labels of "click A, B or C", one of which the goal asks for; wait_for: the state before
    # the one waited for ("changes from **Creating** to **Available**"), which shows the change as well
    candidates: list[str] = field(default_factory=list)  # find: labels that would do (a dialog's save buttons)
    searched: bool = False  # a missing label was looked for beyond this page already
    sentence: str = ""  # the whole sentence it came from (what the action is for: "to add an option/value pair")
    condition: str = ""  # "ESSDs" of a field described "Only for ESSDs": when the field applies at all
    guarded: bool = False  # find: click only where the goal's resource is named (its row, or the page)
    changes_only: bool = False  # fill: a row of a "change the parameters" table: set only when the goal changes it
    row: str = ""  # click: only in the row of this resource (a batch operation done one row at a time)
    per_row: bool = False  # part of a batch operation redone one row at a time: its dialogs are the row's own
    elsewhere: str = ""  # find: never in this context (the row whose disabled button asked for what is found)
    # fill of a switch: the fields its description says to set once it is on ("Select it to assign a public IP
    # address, and set the **Peak Bandwidth** in Mbps"), each with no value yet and the unit the description gives
    reveals: list[Instruction] = field(default_factory=list)
    row_added: bool = False  # fill/choose of a field that is a grid on the page: its row was added for the value;
    # click: an Add queued for one further item of a list (never expanded into the list's rows again)
    # choose of a switch listed with others ("the switch next to **INSERT**, **UPDATE**, **DELETE**, or **TRUNCATE**"):
    # all their labels, so that a goal's "only the inserts" turns the others off
    siblings: list[str] = field(default_factory=list)
    empty_only: bool = False  # fill/choose: the empty field of that name (a row just added below rows already set)
    tried: list[str] = field(default_factory=list)  # row_action (value: the list's URL): entries opened already


def instructions_from(step_text: str) -> list[Instruction]:
    """The instructions of one document step, in the order a person performs them (notes, ``>`` lines, skipped).
    A table under "change the parameters" lists what *can* change: its rows are marked ``changes_only``."""
    changing = any(_CHANGE_TABLE.search(line) for line in step_text.split("\n") if not line.strip().startswith("|"))
    found: list[Instruction] = []
    deferred: list[Instruction] = []  # clicks of a "... the following ... and click X" sentence
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
            rows = [part for spec in (table_parameters(table) if table else []) if (ins := field_instruction(spec))
                    for part in _each_field(ins)]
            found += [replace(ins, changes_only=changing) for ins in rows]
            continue
        if line and not line.startswith(">"):
            for sentence in _SENTENCE_END.split(_SUBSTEP.sub("", line)):
                got = line_instructions(sentence)
                for ins in got:
                    ins.sentence = ins.sentence or sentence
                if _FOLLOWING.search(sentence):
                    deferred += [ins for ins in got if ins.kind == "click"]
                    got = [ins for ins in got if ins.kind != "click"]
                found += got
        i += 1
    return found + deferred


_TWO_FIELDS = re.compile(r"^(?P<a>[A-Z][\w-]*(?: [\w-]+){0,3}) and (?P<b>[A-Z][\w-]*(?: [\w-]+){0,3})$")


def _each_field(ins: Instruction) -> list[Instruction]:
    """"**Logon Password** and **Confirm Password**" in one table row: two fields, one value."""
    two = _TWO_FIELDS.match(ins.target) if ins.kind == "fill" else None
    return [replace(ins, target=two.group("a")), replace(ins, target=two.group("b"))] if two else [ins]


def line_instructions(line: str) -> list[Instruction]:
    """One sentence (or sub-step line): a console to start in, a place to find, or its actions and fields."""
    lead: list[Instruction] = []
    console = console_named(line)
    if console:
        lead.append(Instruction("console", console, text=line))
    if _OPEN_UNNAMED.match(line.strip()):
        return lead + [Instruction("find", "", text=line)]
    if _SAVE_UNNAMED.match(line.strip()):
        return lead + [Instruction("find", SAVE_LABELS[0], text=line, candidates=list(SAVE_LABELS))]
    place = _OPEN_PLACE.search(line)
    if place:
        return lead + [Instruction("find", place.group("label").strip(), text=line)]
    buttons = _one_of_buttons(line)
    if buttons is not None:
        return lead + [buttons]
    clauses = _TWO_CLAUSES.match(line.strip())
    if clauses:
        return lead + line_instructions(clauses.group("first")) + line_instructions(clauses.group("second"))
    actions = sentence_instructions(line)
    described = described_field(line)
    # a field description names its control ("the **Name** field") or starts with its label ("**VPC**: any");
    # "In the **Networking** step, ... click **Next**" is an action in a wizard step, not a field
    if described is not None and described.control is None and not line.lstrip().startswith("**"):
        described = None
    if described is not None and not any(a.kind in ("fill", "select", "check", "uncheck", "navigate", "choose")
                                         for a in actions):
        # "Select **Basic** or **Advanced** in the **Type** field": those "clicks" are the field's values;
        # "... and click **OK**" stays a click
        named = {described.label.casefold()} | {o.casefold() for o in (described.value.options if described.value else [])}
        chosen = [a for a in actions if a.kind == "click" and a.target.casefold() in named
                  and re.match(r"(?:select|choose)\b", a.text, re.I)]
        if all(a.target.casefold() in named for a in actions if a.kind == "click" and a not in chosen) or not [
                a for a in actions if a.kind == "click" and a not in chosen]:
            ins = field_instruction(described)
            return lead + (_each_switch(ins, line) if ins else []) + [a for a in actions if a not in chosen]
    return lead + actions


def _one_of_buttons(line: str) -> Instruction | None:
    """"Select a button next to **Maintenance operation** ...: **VACUUM** to ..., **REINDEX** to ..., or **CLUSTER**
    to ...": a click on one of the listed buttons, the one the goal names or whose purpose it states."""
    intro = CHOICE_INTRO.match(line)
    listed = intro.group("rest").partition(":")[2] if intro else ""
    labels = [label.strip() for label in BOLD.findall(listed)]
    return Instruction("click", labels[0], text=line, options=labels) if len(labels) >= 2 else None


def _each_switch(ins: Instruction, line: str) -> list[Instruction]:
    """A sentence that describes several switches at once ("the switch next to **A**, **B**, or **C**") is one
    instruction per switch, each knowing the others; any other description is the one instruction."""
    listed = _SWITCH_LIST.search(line) if ins.kind == "choose" else None
    if listed is None:
        return [ins]
    labels = [label.strip() for label in BOLD.findall(listed.group("labels"))]
    if ins.target not in labels:
        return [ins]
    others = [o for o in ins.options if o not in labels]
    return [replace(ins, target=label, options=list(others), siblings=list(labels)) for label in labels]


def field_instruction(spec: FieldSpec) -> Instruction | None:
    """What to do with a field the document names: type/select its value, interpret its instruction, or
    nothing ("Leave this field empty.", "-", a default the console proposes, a field only described)."""
    value = spec.value
    text = f"{spec.label}: {value.text if value else ''}"
    if value is None or value.kind in ("empty", "unspecified") or (value.kind == "default" and not value.text):
        return None
    condition = _CONDITION.search(strip_markup(spec.description or ""))
    when = next((g.strip() for g in condition.group("what", "first", "selected") if g), "") if condition else ""
    if value.kind == "instruction":
        return Instruction("choose", spec.label, value.text, text=text, options=list(value.options), condition=when)
    return Instruction("fill", spec.label, value.text, text=text, unit=value.unit, amount=value.amount, condition=when,
                       options=described_choices(spec.description or ""),
                       reveals=revealed_fields(spec.description or ""))


def revealed_fields(description: str) -> list[Instruction]:
    """The fields a description tells the reader to set ("... and set the **Peak Bandwidth** in Mbps"): on a
    switch's row, those its being on shows. Their values are the goal's, so they carry none; the unit ("in
    Mbps") is what tells the goal's "10 Mbps" from its other numbers."""
    return [Instruction("fill", m.group("label").strip(), text=m.group(0), unit=m.group("unit"))
            for m in _SET_FIELD.finditer(description)]


def sentence_instructions(line: str) -> list[Instruction]:
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
    for m in _CHANGE_FIELDS.finditer(line):
        # "change the **Custom image name** and the **Description**": fields whose values the goal gives
        if any(m.start() < end and start < m.end() for start, end in claimed):
            continue
        verb = (m.group("verb") or m.group("verb2")).casefold()
        labels = [label.strip() for label in re.findall(r"\*\*([^*]+)\*\*", m.group(0))]
        hits += [(m.start() + k, Instruction("choose", label, f"{verb} the {label}", text=m.group(0)))
                 for k, label in enumerate(labels)]
        claimed.append((m.start(), m.end()))
    for m in _CHECK.finditer(line):
        verb = m.group("verb").casefold()
        kind = "check" if verb in ("select", "check", "turn on", "enable") else "uncheck"
        position = _POSITION.match(line, m.end())
        if position and position.group("label").strip().casefold() not in _ON_OFF:
            # "Select *Context* toggle to *Implicit* if ...": a position among several, chosen when the goal says so
            claim(m, Instruction("choose", m.group("label").strip(), line.strip(), text=m.group(0),
                                 options=[position.group("label").strip()]))
            continue
        claim(m, Instruction(kind, m.group("label").strip(), text=m.group(0)))  # type: ignore[arg-type]
    for m in _SELECT_ROWS.finditer(line):
        claim(m, Instruction("rows", "check boxes of the rows", text=m.group(0)))
    for m in _CLICK_EITHER.finditer(line):
        claim(m, Instruction("click", m.group("a").strip(), text=m.group(0), options=[m.group("a").strip(), m.group("b").strip()]))
    for m in _CLICK_ONE_OF.finditer(line):
        labels = [label.strip() for label in BOLD.findall(m.group("labels"))]
        claim(m, Instruction("click", labels[0], text=m.group(0), options=labels))
    for m in _WAIT.finditer(line):
        settled = m.group("settled")
        target, options = (settled.strip(), [m.group("text").strip()]) if settled else (m.group("text").strip(), [])
        claim(m, Instruction("wait_for", target, text=m.group(0), options=options))
    for m in _CLICK.finditer(line):
        claim(m, Instruction("click", m.group("label").strip(), text=m.group(0)))
    for m in _OPEN_BY_NAME.finditer(line):
        claim(m, Instruction("open_resource", "", text=m.group(0)))
    for m in _IN_EDITOR.finditer(line):
        claim(m, Instruction("editor", m.group("what").strip(), text=m.group(0)))
    return [instruction for _, instruction in sorted(hits, key=lambda hit: hit[0])]
