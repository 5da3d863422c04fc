"""The one document model every format (Markdown, reStructuredText, HTML) is read into.

A document is a tree: document → procedures → steps → sub-steps. A step keeps its text in one
canonical inline form whatever the source format (UI labels as ``**X**``, menu paths as
``**A** > **B**``, code as ```X```), so everything downstream (the doc follower, alignment, fixes)
reads one shape. Beside the text a step carries what was understood of it: the UI labels it names,
its navigation paths and the console it starts from, the fields it fills with an *interpreted* value
(a literal, an example, "leave empty", an instruction to choose), its tables, notes and expected
results, and where it came from (file and line) so that every message can point at the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

# literal: type/select this value. example: the document's example (a goal's value of the same kind wins).
# empty: leave the field empty. default: keep what the console proposes. unspecified: the document gives no
# value ("-", "N/A"). instruction: a sentence to interpret ("Select the security group of the app servers.").
ValueKind = Literal["literal", "example", "empty", "default", "unspecified", "instruction"]

# How the document shaped its steps: numbered steps, prose paragraphs, or a reference page that only
# describes a dialog (its steps are synthesised: open it, fill the fields, save).
Shape = Literal["steps", "prose", "reference"]


class ProcedureError(ValueError):
    """The document is not a procedure an agent could follow; says which file and line."""

    def __init__(self, message: str, source: str, line: int) -> None:
        super().__init__(f"{source}:{line}: {message}")
        self.source = source
        self.line = line


@dataclass
class Value:
    """What a document says to put in a field, interpreted (a table cell or a sentence)."""

    kind: ValueKind
    text: str  # the value as written (literal, example, default: "5 Mbps", "3 Months"; "" for "keep the default"),
    # or the instruction as written
    unit: str | None = None  # "Mbps" of "5 Mbps"
    options: list[str] = field(default_factory=list)  # UI labels the cell names (choices among them)
    amount: str | None = None  # "5" of "5 Mbps": what a numeric field takes, and what to compare with a default

    @property
    def bare(self) -> str:
        """The value without its unit ("5" of "5 Mbps"; the text itself when it has no unit)."""
        return self.amount if self.amount is not None else self.text

    @property
    def typed(self) -> bool:
        """Whether ``text`` is something to type or select as it is (not an instruction, not "no value")."""
        return self.kind in ("literal", "example", "default") and bool(self.text)


@dataclass
class FieldSpec:
    """One field a step (or a reference page) tells the reader to fill or leave alone."""

    label: str  # the field's UI label
    value: Value | None = None  # None: the document describes the field but gives no value
    description: str = ""  # what the document says about the field (canonical text)
    required: bool | None = None  # "Optional." → False, "Required" → True, otherwise unknown
    control: str | None = None  # "drop-down list", "check box", "switch", "field", ... when the text says
    group: str | None = None  # the tab or section of a dialog it is on ("General")
    line: int = 0
    source: str = "<doc>"


@dataclass
class Table:
    """A table; cells keep UI labels as ``**X**``. Its rows read as fields: ``cells.table_parameters``."""

    header: list[str]
    rows: list[list[str]]
    line: int = 0

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.header) + " |", "| " + " | ".join("---" for _ in self.header) + " |"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in self.rows]
        return "\n".join(lines)


@dataclass
class Step:
    """One step as a person reads it, and what the parser understood of it."""

    number: int
    text: str  # canonical text: labels as **X**, code as `X`
    line: int  # 1-based line in the source
    substeps: list[Step] = field(default_factory=list)
    ui_labels: list[str] = field(default_factory=list)
    navigation: list[list[str]] = field(default_factory=list)  # ["VPC", "VPCs"] from "choose **VPC** > **VPCs**"
    fields: list[tuple[str, str]] = field(default_factory=list)  # (field, value) to type/select (see FieldSpec)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)  # sentences saying what the reader should then see
    inputs: list[FieldSpec] = field(default_factory=list)  # every field named, with its interpreted value
    console: str | None = None  # "ECS" from "Log on to the ECS console": where the step starts
    find: str | None = None  # a place the step needs but the document does not say how to reach ("Cast dialog")
    synthesized: bool = False  # written by the parser (a reference page's open/fill/save), not by the author
    source: str = "<doc>"

    def full_text(self, indent: str = "") -> str:
        """The step as an agent reads it: text, tables, notes (as ``>`` lines) and lettered sub-steps."""
        parts = [self.text]
        parts += [table.to_markdown() for table in self.tables]
        parts += ["> " + note for note in self.notes]
        for i, sub in enumerate(self.substeps):
            letter = chr(ord("a") + i) if i < 26 else str(i + 1)
            body = sub.full_text(indent + "   ").replace("\n", "\n" + indent + "   ")
            parts.append(f"{indent}{letter}. {body}")
        return "\n".join(p for p in parts if p)

    def all_inputs(self) -> list[FieldSpec]:
        """The step's fields and its sub-steps', in document order."""
        return self.inputs + [spec for sub in self.substeps for spec in sub.all_inputs()]


@dataclass
class Procedure:
    title: str
    context: str
    prerequisites: list[str]
    steps: list[Step]
    result: str
    source: str = "<doc>"
    id: str = "procedure"  # the heading's slug, unique within the document
    line: int = 0  # line of the procedure heading
    shape: Shape = "steps"
    notes: list[str] = field(default_factory=list)  # notes and warnings outside any step

    def step_texts(self) -> list[str]:
        """One string per step: what goes into ``Task.document``."""
        return [step.full_text() for step in self.steps]

    @property
    def console(self) -> str | None:
        """The product console the procedure starts in ("Log on to the ECS console"), if a step says."""
        return next((s.console for s in self.steps if s.console), None)

    @property
    def navigation_known(self) -> bool:
        """False when some step needs a place the document never says how to reach (the agent must find it)."""
        return not any(s.find for s in self.steps)


@dataclass
class Document:
    """A documentation file: its metadata, title and procedures (none: nothing to verify)."""

    id: str
    title: str
    source: str
    front_matter: dict[str, Any] = field(default_factory=dict)
    procedures: list[Procedure] = field(default_factory=list)
    skipped: str | None = None  # why there is nothing to verify
    format: Literal["markdown", "rst", "html"] = "markdown"
    warnings: list[str] = field(default_factory=list)  # "file:line: ..." tolerated problems (unknown rST roles)

    @property
    def release(self) -> str | None:
        value = self.front_matter.get("release")
        return str(value) if value is not None else None


def slug(text: str) -> str:
    plain = re.sub(r"\s+", " ", text.replace("**", "").replace("`", "")).strip()
    return re.sub(r"[^a-z0-9]+", "-", plain.casefold()).strip("-") or "procedure"
