"""Pages without a Procedure section: numbered instructions anywhere, tutorials whose paragraphs
are the steps, and reference pages that describe a dialog field by field.

A reference page rarely says how to open its dialog or which button saves it. Its procedure is
synthesised: "Open the **X** dialog." (marked ``find``: the agent must search for it), one fill
step per tab or group with one sub-step per described field, then the save button of the page's
button legend ("Click the *Save* button to save work."), or "Save the dialog." when it has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from consoleagent.documents.blocks import Block, Item
from consoleagent.documents.cells import table_parameters
from consoleagent.documents.fields import CHOICE_INTRO, described_field, group_label
from consoleagent.documents.labels import bold, bold_labels, strip_markup
from consoleagent.documents.model import FieldSpec, Step, Table, Value
from consoleagent.documents.sections import Section, special
from consoleagent.documents.steps import annotate, attach_stray, is_action, item_step, labelled_value, reannotate

_SAVE = re.compile(r"^(save|ok|create|apply|submit|confirm|finish|done|add|import|export|backup|restore|run|start|"
                   r"register|connect|next)\b", re.I)
_BUTTON_ITEM = re.compile(r"^\s*(?:click|press|tap|select)\s+(?:on\s+)?the\s+\*\*(?P<label>[^*]+)\*\*\s+(?:button|icon)\b", re.I)
_TAB_CLICK = re.compile(r"^\s*(?:click|select|open)\s+(?:on\s+)?the\s+\*\*[^*]+\*\*\s+tab\b", re.I)
_CLICKED = re.compile(r"\bclick\s+(?:on\s+)?(?:the\s+)?\*\*([^*]+)\*\*", re.I)
_TAB_NAMED = re.compile(r"^\s*(?:click|select|open)\s+(?:on\s+)?the\s+\*\*(?P<label>[^*]+)\*\*\s+tab\b", re.I)
_DIALOG = re.compile(r"\b(?:[Uu]se|[Oo]pen)\s+the\s+(?:\*\*(?P<bold>[^*]+)\*\*|(?P<plain>[A-Z][\w -]{0,40}?))\s+dialog\b")
# "Select *PUBLIC* if ...", "Click *VACUUM* to ...", "Select a pre-defined role name to ...": one choice of such a field
_OPTION_ITEM = re.compile(r"^\s*(?:select|choose|click|pick)\s+(?:\*\*[^*]+\*\*|an?\s|the\s)", re.I)
_TITLE_DIALOG = re.compile(r"^(?P<name>.+?)\s+(?:dialog(?: box)?|window|wizard|page)$", re.I)
def _body(preamble: list[Block], sections: list[Section]) -> list[Block]:
    """The blocks that may hold steps: the preamble and every section that is not context, result or aside."""
    body = list(preamble)
    for section in sections:
        if not special(section.heading):
            body.append(Block("heading", section.line, text=section.heading, level=section.level))
            body += section.blocks
    return body


def list_steps(body: list[Block], source: str) -> list[Step]:
    """Numbered lists of instructions anywhere in the body, as steps (stray blocks attach to the step above)."""
    steps: list[Step] = []
    for block in body:
        if block.kind == "list" and block.ordered and _mostly_actions(block):
            steps += [item_step(item, len(steps) + i, source) for i, item in enumerate(block.items, 1)]
        elif steps and block.kind in ("table", "note"):
            attach_stray(steps[-1], block, source)
    return steps


def _mostly_actions(block: Block) -> bool:
    texts = block.plain_items()
    return bool(texts) and 2 * sum(is_action(t) for t in texts) >= len(texts)


@dataclass
class _Walk:
    """The state of reading a page of prose or reference text block by block."""

    source: str
    steps: list[Step] = field(default_factory=list)
    intro: Block | None = None  # "Use the fields in the *General* tab to ...:" waiting for its list
    intro_used: bool = False  # the intro was itself an action step ("Click the *X* tab to continue. Use the fields ...")
    group: str | None = None
    save: Step | None = None  # the save button of a button legend ("Click the *Save* button to save work.")
    fills: int = 0
    described: int = 0  # fields the page describes without giving a value ("Use the *Name* field to ...")
    notes: list[str] = field(default_factory=list)
    choice: FieldSpec | None = None  # the field whose choices the lists being read name ("Maintenance operation")
    choice_step: Step | None = None  # the step of a field of buttons, whose text lists its choices (``_list_choices``)
    choices_read: list[str] = field(default_factory=list)  # those choices so far, each with what it is for


def prose_steps(body: list[Block], source: str) -> tuple[list[Step], bool, list[str]]:
    """Steps of a tutorial or a reference page, whether any field was described, and loose notes."""
    walk = _Walk(source)
    for block in body:
        if walk.save is not None:  # after the dialog's button legend the page talks about something else
            break
        if block.kind == "heading":  # a new section: its fields are not the previous tab's
            walk.group, walk.intro, walk.choice = None, None, None
        elif block.kind == "paragraph":
            walk.choice = None
            _paragraph(walk, block)
        elif block.kind == "list":
            _list(walk, block)
        elif block.kind == "table" and block.table is not None:
            _table(walk, block.table, block.line)
        elif block.kind == "note":
            (walk.steps[-1].notes if walk.steps else walk.notes).append(block.text)
    if walk.save is not None and (not walk.steps or walk.save.ui_labels[0] not in walk.steps[-1].ui_labels):
        walk.steps.append(walk.save)
    return walk.steps, walk.described > 0, walk.notes


def _step(walk: _Walk, text: str, line: int, synthesized: bool = False) -> Step:
    step = Step(number=len(walk.steps) + 1, text=text, line=line, synthesized=synthesized, source=walk.source)
    annotate(step)
    walk.steps.append(step)
    return step


def _paragraph(walk: _Walk, block: Block) -> None:
    text = block.text
    walk.intro, walk.intro_used = None, False
    introduces = text.rstrip().endswith(":") or bool(re.search(r"\buse the (?:following )?fields\b", text, re.I))
    if introduces:
        walk.intro, walk.group = block, group_label(text) or walk.group
    spec = described_field(text, block.line, walk.source, walk.group)
    if spec is not None and not introduces:
        step = _step(walk, text, block.line)
        if all(s.label != spec.label for s in step.inputs):
            step.inputs.append(spec)
        walk.fills += 1
        walk.described += 1
    elif is_action(text):
        _step(walk, text, block.line)
        walk.intro_used = introduces
        tab = _TAB_NAMED.match(text)
        walk.group = tab.group("label").strip() if tab else walk.group


def _list(walk: _Walk, block: Block) -> None:
    items = [" ".join(b.text for b in item.blocks if b.kind == "paragraph") for item in block.items]
    buttons = [_BUTTON_ITEM.match(t) for t in items]
    if items and all(buttons):
        labels = [m.group("label").strip() for m in buttons if m]
        saving = next((i for i, label in enumerate(labels) if _SAVE.match(label)), None)
        if saving is not None:
            walk.save = Step(number=0, text=f"Click **{labels[saving]}**.", line=block.items[saving].line,
                             synthesized=True, source=walk.source)
            annotate(walk.save)
        walk.intro = None
        return
    if _choices(walk, block, items):
        walk.intro = None
        return
    specs = [_item_field(walk, item) for item in block.items]
    if any(specs):
        _fill_step(walk, block, specs)
    elif block.ordered or all(is_action(t) for t in items if t):
        for item in block.items:
            if is_action(" ".join(b.text for b in item.blocks if b.kind == "paragraph")):
                step = item_step(item, len(walk.steps) + 1, walk.source)
                walk.steps.append(step)
    walk.intro = None


def _intro_field(walk: _Walk) -> FieldSpec | None:
    """The field an introducing paragraph is about ("Use the drop-down listbox in the *User* field ... to
    identify the connecting role:", "Select a button next to *Maintenance operation* ...:")."""
    if walk.intro is None:
        return None
    text = walk.intro.text
    choice = CHOICE_INTRO.match(text)
    if choice:
        return FieldSpec(label=choice.group("label").strip(), value=Value("instruction", text.strip()), description=text,
                         control="buttons", group=walk.group, line=walk.intro.line, source=walk.source)
    spec = described_field(text, walk.intro.line, walk.source, walk.group)
    return spec if spec is not None and spec.control is not None else None


def _choices(walk: _Walk, block: Block, items: list[str]) -> bool:
    """A list of the choices of the field its introduction names ("Select *PUBLIC* if ...", "Click *VACUUM* to
    ..."): one step for that field with the choices as its options, and the fields each choice shows (nested
    lists) as fill steps of their own. False when the list is not that."""
    if not items or not all(_OPTION_ITEM.match(t) for t in items):
        return False
    options = [labels[0] for t in items if (labels := bold_labels(t))]
    spec = walk.choice
    if spec is not None and spec.value is not None:  # the same field's choices, continued after a nested list
        spec.value.options = list(dict.fromkeys(spec.value.options + options))
    else:
        spec = _intro_field(walk)
        if spec is None:
            return False
        spec.value = Value("instruction", spec.value.text if spec.value else walk.intro.text, options=options)  # type: ignore[union-attr]
        intro = walk.intro
        previous = walk.steps[-1] if walk.steps else None
        step = previous if previous is not None and intro is not None and previous.line == intro.line else \
            _step(walk, intro.text, intro.line)  # type: ignore[union-attr]
        step.inputs = [spec] + [s for s in step.inputs if s.label.casefold() != spec.label.casefold()]
        walk.fills += 1
        walk.described += 1
        walk.choice = spec
        walk.choice_step, walk.choices_read = (step if spec.control == "buttons" else None), []
    if walk.choice_step is not None:
        _list_choices(walk.choice_step, walk.choices_read, spec, items)
    for item, text in zip(block.items, items):
        labels = bold_labels(text)
        for nested in (b for b in item.blocks if b.kind == "list"):
            nested_specs = [_item_field(walk, sub) for sub in nested.items]
            if any(nested_specs):
                walk.intro, walk.group = None, labels[0] if labels else walk.group
                _fill_step(walk, nested, nested_specs)
    walk.choice = spec
    return True


_PURPOSE = re.compile(r"^\s*to\s+(?P<purpose>[^.;:]+)")


def _list_choices(step: Step, read: list[str], spec: FieldSpec, items: list[str]) -> None:
    """A field of buttons ("Select a button next to **Maintenance operation** ...:") whose choices a list explains
    ("Click **REINDEX** to rebuild any index ..."): its step says, in one sentence, each choice and what it is for
    ("...: **VACUUM** to scan ..., **REINDEX** to rebuild any index ..., or **CLUSTER** to ..."). The reader of the
    step (the follower) re-reads its text: it takes the choice the goal names, or the one whose purpose the goal
    states ("Rebuild the indexes of the table"). Lists continued after a nested list or an image add theirs."""
    for text in items:
        labels = bold_labels(text)
        if labels:
            purpose = _PURPOSE.match(text.split(bold(labels[0]), 1)[-1])
            read.append(bold(labels[0]) + (f" to {purpose.group('purpose').strip()}" if purpose else ""))
    step.text = f"{(spec.description or step.text).rstrip().removesuffix(':').removesuffix('.')}: {_series(read)}."
    reannotate(step)


def _item_field(walk: _Walk, item: Item) -> FieldSpec | None:
    text = " ".join(b.text for b in item.blocks if b.kind == "paragraph")
    spec = labelled_value(text, item.line, walk.source) or described_field(text, item.line, walk.source, walk.group)
    if spec is None:
        return None
    for nested in (b for b in item.blocks if b.kind == "list"):  # "Select *Custom* to ...": the field's options
        options = [label for t in nested.plain_items() for label in bold_labels(t)[:1]]
        if spec.value is not None:
            spec.value.options = list(dict.fromkeys(spec.value.options + options))
    return spec


def _with_nested_choices(item: Item) -> str:
    """An item's text, and the field's choices listed under it ("Use the drop-down listbox next to *Access method*
    to specify the type of index:" over "Select *gist* to specify a GiST index." ...) written into its sentence:
    "...: **gist**, **spgist**, **btree**, or **hash**." The reader of the step (the follower) re-reads its text,
    so the choices must be in it (the nested items that select a bold label; ``_item_field`` gives the field
    model the same options); their explanations are not."""
    text = "\n".join(b.text for b in item.blocks if b.kind == "paragraph")
    labels = [bold_labels(t)[0] for nested in item.blocks if nested.kind == "list"
              for t in nested.plain_items() if _OPTION_ITEM.match(t) and bold_labels(t)]
    if not labels or not text:
        return text
    named = [bold(label) for label in dict.fromkeys(labels)]
    return f"{text.rstrip().removesuffix('.').removesuffix(':')}: {_series(named)}."


def _series(items: list[str]) -> str:
    """Items as a sentence lists them: "A", "A or B", "A, B, or C"."""
    return " or ".join(items) if len(items) <= 2 else f"{', '.join(items[:-1])}, or {items[-1]}"


def _fill_step(walk: _Walk, block: Block, specs: list[FieldSpec | None]) -> None:
    """One step for a group of described fields, one sub-step per field (actions among them stay sub-steps)."""
    if walk.intro is not None and not walk.intro_used:
        text, line, synthesized = walk.intro.text, walk.intro.line, False
    else:
        where = f" of {bold(walk.group)}" if walk.group else ""
        text, line, synthesized = f"Fill in the fields{where}.", block.line, True
    previous = walk.steps[-1] if walk.steps else None
    if synthesized and previous is not None and previous.synthesized and previous.text == text:
        step = previous  # the same tab's fields, split by an image or a paragraph: one step
    else:
        step = Step(number=len(walk.steps) + 1, text=text, line=line, synthesized=synthesized, source=walk.source)
        annotate(step)
        walk.steps.append(step)
    for item, spec in zip(block.items, specs):
        sub = Step(number=len(step.substeps) + 1, text=_with_nested_choices(item), line=item.line, source=walk.source)
        annotate(sub)
        if spec is not None:
            sub.expected = []  # "... called when a function is created": what the field is for, not a result
            sub.inputs = [spec] + [s for s in sub.inputs if s.label.casefold() != spec.label.casefold()]
            if spec.value is not None and spec.value.typed and (spec.label, spec.value.text) not in sub.fields:
                sub.fields.append((spec.label, spec.value.text))
        sub.notes += [b.text for b in item.blocks if b.kind == "note"]
        if spec is not None or is_action(sub.text):
            sub.number = len(step.substeps) + 1
            step.substeps.append(sub)
    walk.fills += sum(1 for s in specs if s)
    walk.described += sum(1 for s in specs if s is not None and (s.value is None or s.value.kind == "instruction")
                          and s.control is not None)


def _table(walk: _Walk, table: Table, line: int) -> None:
    """A parameter table belongs to the step that introduced it, or is a fill step of its own."""
    if walk.steps and not walk.steps[-1].synthesized and (walk.intro is None or walk.intro_used):
        walk.steps[-1].tables.append(table)
        reannotate(walk.steps[-1])
    elif table_parameters(table):
        text = walk.intro.text if walk.intro is not None else "Configure the parameters."
        step = _step(walk, text, walk.intro.line if walk.intro is not None else line, synthesized=walk.intro is None)
        step.tables.append(table)
        annotate(step)
    walk.fills += len(table_parameters(table))
    walk.intro = None


def dialog_name(title: str, blocks: list[Block]) -> str | None:
    """The dialog a reference page describes: "Use the *Cast* dialog to ..." or a title "Cast Dialog"."""
    found = [m for m in (_DIALOG.search(b.text) for b in blocks if b.kind == "paragraph") if m]
    marked = next((m.group("bold") for m in found if m.group("bold")), None)
    titled = _TITLE_DIALOG.match(strip_markup(title))
    plain = next((m.group("plain") for m in found if m.group("plain")), None)
    name = marked or (titled.group("name") if titled else None) or plain
    return name.strip() if name else None


def _opens(steps: list[Step]) -> bool:
    """Whether the page says how to get where its fields are: a console, a path, or an action before the first field."""
    for step in steps:
        if step.inputs or any(sub.inputs for sub in step.substeps):
            return False
        if step.console or step.navigation or (is_action(step.text) and not _TAB_CLICK.match(step.text)):
            return True
    return False


def _saves(step: Step) -> bool:
    """Whether a step ends the dialog: it clicks a save-like button ("Click **Save**", "click the *OK* button")."""
    return any(_SAVE.match(m.group(1)) for m in _CLICKED.finditer(step.text))


def _save_step(blocks: list[Block], line: int, source: str) -> Step:
    """The save button of the page's button legend wherever it is (a page may keep it under "Example"), else a
    step that says to save without knowing the button (``find``)."""
    walk = _Walk(source)
    for block in blocks:
        if block.kind == "list":
            _list(walk, block)
    if walk.save is not None:
        return walk.save
    step = Step(number=0, text="Save the dialog.", line=line, synthesized=True, find="the dialog's save button",
                source=source)
    annotate(step)
    return step


def _open_step(name: str | None, line: int, source: str) -> Step:
    target = f"{name} dialog" if name else "the page the fields are on"
    text = f"Open the {bold(name)} dialog." if name else "Open the page that shows these fields."
    step = Step(number=1, text=text, line=line, synthesized=True, find=target, source=source)
    annotate(step)
    return step


def implicit_procedure(title: str, title_line: int, preamble: list[Block], sections: list[Section],
                       source: str) -> tuple[list[Step], str, list[str]]:
    """Steps of a page with no Procedure section, its shape, and its loose notes ([] steps: nothing to do)."""
    body = _body(preamble, sections)
    steps = list_steps(body, source)
    if steps:
        return steps, "steps", []
    steps, described, notes = prose_steps(body, source)
    if not steps:
        return [], "prose", notes
    if described and not _opens(steps):
        steps.insert(0, _open_step(dialog_name(title, body), title_line or steps[0].line, source))
    if described and not _saves(steps[-1]):
        steps.append(_save_step(preamble + [b for s in sections for b in s.blocks], steps[-1].line, source))
    for number, step in enumerate(steps, 1):
        step.number = number
    return steps, "reference" if described else "prose", notes
