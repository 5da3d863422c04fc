"""One step: its blocks gathered, and what it names annotated (labels, paths, console, fields with
interpreted values, expected results). Also what makes a sentence an instruction, which decides
whether a paragraph of prose is a step.
"""

from __future__ import annotations

import re

from consoleagent.documents.blocks import Block, Item
from consoleagent.documents.cells import interpret_cell, table_fields, table_parameters
from consoleagent.documents.fields import described_field, sentence_fields, sentence_inputs
from consoleagent.documents.labels import bold_labels, console_named, is_label_like, navigation_paths, strip_markup
from consoleagent.documents.model import FieldSpec, Step

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
_LABELLED = re.compile(r"^\s*\*\*(?P<label>[^*]+)\*\*\s*[:：—–]\s*(?P<value>\S.*)$|^\s*\*\*(?P<label2>[^*]+?):\*\*\s*(?P<value2>\S.*)$",
                       re.S)


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
        inputs += [_sourced(spec, step.source) for spec in table_parameters(table)]
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
    step.fields = sentence_fields(step.text) + [pair for table in step.tables for pair in table_fields(table)]
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

def attach_stray(last: Step, block: Block, source: str) -> None:
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
