"""Blocks into procedures: the shapes documentation takes, read into one model.

- **steps**: a Procedure/Steps section with a numbered list (cloud task topics), or, without such a
  section, numbered lists of instructions anywhere in the body;
- **prose**: tutorials whose paragraphs are the steps ("First, log on to the VPC console. ...");
- **reference**: pages that describe a dialog field by field ("Use the *Name* field to ..."). Their
  steps are synthesised: open the dialog (the page rarely says how: the step is marked ``find``,
  the agent must search for it), fill the described fields (one step per group of fields, one
  sub-step per field), save.

A section named Procedure is strict: without numbered steps it is an error, since the author
meant steps and the agent would silently get none. Everything else is tolerant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from consoleagent.documents.blocks import Block, Item
from consoleagent.documents.cells import interpret_cell
from consoleagent.documents.fields import described_field, group_label, sentence_fields, sentence_inputs
from consoleagent.documents.labels import bold, bold_labels, console_named, is_label_like, navigation_paths, strip_markup
from consoleagent.documents.model import Document, FieldSpec, Procedure, ProcedureError, Step, Table, slug

PROCEDURE = re.compile(r"^(procedures?|steps)\b", re.I)
PREREQUISITES = re.compile(r"^(prerequisites?|before you (begin|start)|requirements|what you need)\b", re.I)
RESULT = re.compile(r"^(results?|expected results?|verification|verify the result)\b", re.I)
CONTEXT = re.compile(r"^(background|context|overview|scenarios?|introduction|about)\b", re.I)
ASIDE = re.compile(r"^(what to do next|next steps?|what's next|references?|see also|related|examples?|faq|"
                   r"limits|limitations|billing|more information|additional information|clean ?up)\b", re.I)

# A sentence that says what the reader should see: "The **Instances** page appears.", "... changes to **Running**".
_EXPECTED = re.compile(r"\b(appears?|opens|is (?:displayed|shown|created|deleted|released|listed)|are (?:displayed|shown|listed)|"
                       r"you (?:are|will be) (?:taken|redirected)|(?:changes?|turns?) to|becomes?|(?:is|are) now|"
                       r"shows?|you can see|is added|are added|is removed)\b", re.I)
_DOING = re.compile(r"(click|choose|select|enter|type|set)\b", re.I)
_EXPECTED_LEAD = re.compile(r"^\**(expected results?|result)\s*:?\**\s*:?\s*", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*\"“])")
_CONNECTIVE = re.compile(r"^(?:first|next|then|finally|now|after that|afterwards|to do so|to do this|lastly|last)\s*,?\s*", re.I)
_LEAD_PHRASE = re.compile(r"^(?:in|on|from|at|under|within|inside|back on|back in|when|once|after|as soon as)\b[^,]{0,120},\s*",
                         re.I)
VERBS = {"click", "double-click", "right-click", "choose", "select", "enter", "type", "fill", "specify", "set", "open",
         "go", "navigate", "log", "sign", "wait", "expand", "find", "locate", "return", "switch", "press", "tap",
         "check", "clear", "configure", "turn", "enable", "disable", "confirm", "scroll", "search", "hover", "add",
         "release", "delete", "change", "modify", "save", "submit", "keep", "leave", "move", "store", "provide",
         "drag", "toggle", "refresh", "copy", "paste", "close", "stop", "start", "restart"}
_SAVE = re.compile(r"^(save|ok|create|apply|submit|confirm|finish|done|add|import|export|backup|restore|run|start|"
                   r"register|connect|next)\b", re.I)
_BUTTON_ITEM = re.compile(r"^\s*(?:click|press|tap|select)\s+(?:on\s+)?the\s+\*\*(?P<label>[^*]+)\*\*\s+(?:button|icon)\b", re.I)
_TAB_CLICK = re.compile(r"^\s*(?:click|select|open)\s+(?:on\s+)?the\s+\*\*[^*]+\*\*\s+tab\b", re.I)
_CLICKED = re.compile(r"\bclick\s+(?:on\s+)?(?:the\s+)?\*\*([^*]+)\*\*", re.I)
_TAB_NAMED = re.compile(r"^\s*(?:click|select|open)\s+(?:on\s+)?the\s+\*\*(?P<label>[^*]+)\*\*\s+tab\b", re.I)
_DIALOG = re.compile(r"\b(?:[Uu]se|[Oo]pen)\s+the\s+(?:\*\*(?P<bold>[^*]+)\*\*|(?P<plain>[A-Z][\w -]{0,40}?))\s+dialog\b")
_TITLE_DIALOG = re.compile(r"^(?P<name>.+?)\s+(?:dialog(?: box)?|window|wizard|page)$", re.I)
_LABELLED = re.compile(r"^\s*\*\*(?P<label>[^*]+)\*\*\s*[:：—–]\s*(?P<value>\S.*)$|^\s*\*\*(?P<label2>[^*]+?):\*\*\s*(?P<value2>\S.*)$",
                       re.S)


@dataclass
class Section:
    heading: str
    level: int
    line: int
    blocks: list[Block] = field(default_factory=list)


# --- sections -----------------------------------------------------------------------------------


def split_sections(blocks: list[Block]) -> tuple[str, int, list[Block], list[Section]]:
    """The title and its line, the blocks before the first section, and the sections (by heading)."""
    title, title_line, preamble, sections = "", 0, [], []
    for block in blocks:
        if block.kind == "heading":
            if not title and block.level == 1 and not sections:
                title, title_line = block.text, block.line
                continue
            # A deeper heading inside a Procedure section stays part of it (grouped steps), unless it is the result.
            owner = sections[-1] if sections else None
            if owner and PROCEDURE.match(owner.heading) and block.level > owner.level \
                    and not (RESULT.match(block.text) or ASIDE.match(block.text)):
                owner.blocks.append(block)
                continue
            sections.append(Section(block.text, block.level, block.line))
        elif sections:
            sections[-1].blocks.append(block)
        else:
            preamble.append(block)
    return title, title_line, preamble, sections


def _prose(blocks: list[Block]) -> str:
    return "\n".join(b.text for b in blocks if b.kind in ("paragraph", "note") and b.text)


def _list_items_text(blocks: list[Block]) -> list[str]:
    items: list[str] = []
    for block in blocks:
        if block.kind == "list":
            items += block.plain_items()
        elif block.kind == "paragraph":
            items.append(block.text)
    return [i for i in items if i]


def _special(heading: str) -> bool:
    return bool(PREREQUISITES.match(heading) or RESULT.match(heading) or CONTEXT.match(heading) or ASIDE.match(heading))


# --- one step -----------------------------------------------------------------------------------


def item_step(item: Item, number: int, source: str) -> Step:
    """A numbered (or bulleted) list item as a step."""
    step = Step(number=number, text="", line=item.line, source=source)
    paragraphs: list[str] = []
    for block in item.blocks:
        attach(step, block, paragraphs, source)
    step.text = "\n".join(paragraphs)
    annotate(step)
    return step


def attach(step: Step, block: Block, paragraphs: list[str], source: str) -> None:
    """Add one block of a list item (or one stray block after it) to the step."""
    if block.kind in ("paragraph", "heading", "code"):
        if block.text:
            paragraphs.append(block.text)
    elif block.kind == "table" and block.table is not None:
        step.tables.append(block.table)
    elif block.kind == "note":
        step.notes.append(block.text)
    elif block.kind == "list":
        start = len(step.substeps)
        step.substeps += [item_step(item, start + i, source) for i, item in enumerate(block.items, 1)]


def annotate(step: Step) -> None:
    """What the step names: labels, paths, fields with interpreted values, expected results, console."""
    own = "\n".join([step.text] + [t.to_markdown() for t in step.tables])
    step.ui_labels = bold_labels(own)
    step.navigation = navigation_paths(step.text)
    step.console = console_named(step.text)
    step.expected = expected_results(step.text)
    inputs = sentence_inputs(step.text, step.line, step.source)
    for table in step.tables:
        inputs += [_sourced(spec, step.source) for spec in table.parameters()]
    named = {spec.label.casefold() for spec in inputs}
    labelled = labelled_value(step.text, step.line, step.source)
    if labelled is not None and labelled.label.casefold() not in named:
        inputs.append(labelled)
        named.add(labelled.label.casefold())
    for sentence in sentences(step.text):
        spec = described_field(sentence, step.line, step.source)
        if spec is not None and spec.control and spec.label.casefold() not in named:
            named.add(spec.label.casefold())
            inputs.append(spec)
    step.inputs = inputs
    step.fields = sentence_fields(step.text) + [pair for table in step.tables for pair in table.fields()]
    if labelled is not None and labelled.value is not None and labelled.value.typed \
            and all(f.casefold() != labelled.label.casefold() for f, _ in step.fields):
        step.fields.append((labelled.label, labelled.value.text))


def _sourced(spec: FieldSpec, source: str) -> FieldSpec:
    spec.source = source
    return spec


def labelled_value(text: str, line: int, source: str) -> FieldSpec | None:
    """A "**Name**: value" line (a field list, a bullet of a settings list) as a field and its value."""
    match = _LABELLED.match(text.strip())
    if not match:
        return None
    label = (match.group("label") or match.group("label2") or "").strip()
    value = (match.group("value") or match.group("value2") or "").strip()
    if not is_label_like(label) or "\n" in value:
        return None
    return FieldSpec(label=label, value=interpret_cell(value), description=text, line=line, source=source)


def sentences(text: str) -> list[str]:
    return [s.strip() for line in text.split("\n") for s in _SENTENCE.split(line) if s.strip()]


def expected_results(text: str) -> list[str]:
    """The sentences of a step that describe what should appear, not what to do."""
    found = []
    for line in text.split("\n"):
        lead = _EXPECTED_LEAD.match(line)
        if lead and lead.end() < len(line):
            found.append(line[lead.end():].strip())
            continue
        found += [s for s in sentences(line) if _EXPECTED.search(s) and not _DOING.match(s)]
    return found


def is_instruction(sentence: str) -> bool:
    """Whether a sentence tells the reader to do something (imperative, maybe after "First," or "On the X page,")."""
    plain = strip_markup(sentence)
    plain = _CONNECTIVE.sub("", plain)
    plain = _LEAD_PHRASE.sub("", plain)
    plain = _CONNECTIVE.sub("", plain)
    first = re.match(r"[A-Za-z-]+", plain)
    return bool(first) and first.group(0).casefold() in VERBS


def is_action(text: str) -> bool:
    return any(is_instruction(s) for s in sentences(text))


# --- procedure sections ---------------------------------------------------------------------------


def section_steps(section: Section, source: str) -> list[Step]:
    """The numbered steps of a Procedure section; stray blocks belong to the step above them."""
    steps: list[Step] = []
    for block in section.blocks:
        if block.kind == "list" and block.ordered:
            steps += [item_step(item, len(steps) + i, source) for i, item in enumerate(block.items, 1)]
        elif steps and block.kind != "heading":
            _attach_stray(steps[-1], block, source)
    if not steps:
        raise ProcedureError(f"the {section.heading!r} section has no numbered steps", source, section.line)
    return steps


def _attach_stray(last: Step, block: Block, source: str) -> None:
    """A table, note or paragraph that broke the list (not indented): it belongs to the step above."""
    extra: list[str] = []
    attach(last, block, extra, source)
    if extra:
        last.text = "\n".join([last.text, *extra])
    reannotate(last)


def reannotate(step: Step) -> None:
    """Annotate again after the step grew, keeping the fields a reference paragraph described."""
    before = step.inputs
    annotate(step)
    labels = {spec.label.casefold() for spec in step.inputs}
    step.inputs += [spec for spec in before if spec.label.casefold() not in labels]


def _parent_heading(sections: list[Section], section: Section) -> str:
    """The nearest heading above ``section`` of a higher level (a procedure's own title in a many-procedure page)."""
    index = sections.index(section)
    for earlier in reversed(sections[:index]):
        if earlier.level < section.level:
            return earlier.heading
    return ""


# --- documents without a Procedure section --------------------------------------------------------


def _body(preamble: list[Block], sections: list[Section]) -> list[Block]:
    """The blocks that may hold steps: the preamble and every section that is not context, result or aside."""
    body = list(preamble)
    for section in sections:
        if not _special(section.heading):
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
            _attach_stray(steps[-1], block, source)
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


def prose_steps(body: list[Block], source: str) -> tuple[list[Step], bool, list[str]]:
    """Steps of a tutorial or a reference page, whether any field was described, and loose notes."""
    walk = _Walk(source)
    for block in body:
        if walk.save is not None:  # after the dialog's button legend the page talks about something else
            break
        if block.kind == "heading":  # a new section: its fields are not the previous tab's
            walk.group, walk.intro = None, None
        elif block.kind == "paragraph":
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
    specs = [_item_field(walk, item) for item in block.items]
    if any(specs):
        _fill_step(walk, block, specs)
    elif block.ordered or all(is_action(t) for t in items if t):
        for item in block.items:
            if is_action(" ".join(b.text for b in item.blocks if b.kind == "paragraph")):
                step = item_step(item, len(walk.steps) + 1, walk.source)
                walk.steps.append(step)
    walk.intro = None


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
        paragraphs = [b.text for b in item.blocks if b.kind == "paragraph"]
        sub = Step(number=len(step.substeps) + 1, text="\n".join(paragraphs), line=item.line, source=walk.source)
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
    elif table.parameters():
        text = walk.intro.text if walk.intro is not None else "Configure the parameters."
        step = _step(walk, text, walk.intro.line if walk.intro is not None else line, synthesized=walk.intro is None)
        step.tables.append(table)
        annotate(step)
    walk.fills += len(table.parameters())
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
    """The save button of the page's button legend wherever it is (pgAdmin keeps it under "Example"), else a
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


# --- the document ---------------------------------------------------------------------------------


def build_document(blocks: list[Block], *, source: str, doc_id: str, front_matter: dict[str, Any],
                   fmt: str = "markdown", warnings: list[str] | None = None) -> Document:
    """Every procedure of a page. A page without steps is returned with ``skipped`` set (many pages are
    concepts, not procedures); a Procedure section without numbered steps raises :class:`ProcedureError`."""
    title, title_line, preamble, sections = split_sections(blocks)
    document = Document(id=doc_id, title=title or doc_id, source=source, front_matter=front_matter,
                        format=fmt, warnings=list(warnings or []))  # type: ignore[arg-type]
    context = "\n".join(c for c in [_prose(preamble)] + [_prose(s.blocks) for s in sections if CONTEXT.match(s.heading)] if c)
    prerequisites = [i for s in sections if PREREQUISITES.match(s.heading) for i in _list_items_text(s.blocks)]
    result = "\n".join(_prose(s.blocks) for s in sections if RESULT.match(s.heading))
    procedure_sections = [s for s in sections if PROCEDURE.match(s.heading)]
    if not procedure_sections:
        steps, shape, notes = implicit_procedure(title, title_line, preamble, sections, source)
        if not steps:
            found = ", ".join(repr(s.heading) for s in sections) or "none"
            document.skipped = (f"no 'Procedure' section (section headings found: {found}), and no numbered steps, "
                                "instructions or field descriptions")
            return document
        document.procedures.append(Procedure(
            title=document.title, context=context, prerequisites=prerequisites, steps=steps, result=result,
            source=source, id=slug(document.title), line=title_line or steps[0].line, shape=shape, notes=notes))  # type: ignore[arg-type]
        return document
    seen: dict[str, int] = {}
    for section in procedure_sections:
        parent = _parent_heading(sections, section)
        name = parent if parent and len(procedure_sections) > 1 else ""
        ident = slug(name or section.heading)
        seen[ident] = seen.get(ident, 0) + 1
        if seen[ident] > 1:
            ident = f"{ident}-{seen[ident]}"
        document.procedures.append(Procedure(
            title=name or document.title, context=context, prerequisites=prerequisites,
            steps=section_steps(section, source), result=result, source=source, id=ident, line=section.line))
    return document


def first_section_line(blocks: list[Block]) -> int:
    """The line of the first section heading (where "no procedure" points), 1 when there is none."""
    _, _, _, sections = split_sections(blocks)
    return sections[0].line if sections else 1
