"""Parse a documented console procedure (Markdown in the style of cloud documentation) into steps.

A document is a tree: document → procedures (one per Procedure/Steps section) → numbered steps →
lettered sub-steps, each step with the UI labels it names (bold), its navigation paths, its
field/value pairs (sentences and parameter tables), its expected results and its source line.

Real documentation is written for people, so the parser is tolerant: numbered lists with ``1.``
or ``1)``, lists broken up by unindented tables or notes, nested sub-steps, parameter tables
inside steps, ``> Note:`` blocks and YAML front matter. It is strict about the one thing an agent
cannot do without: a Procedure section with numbered steps; without it, it raises
:class:`ProcedureError` naming the file and line.

Markdown is tokenised by markdown-it-py (CommonMark plus tables), never by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

_PROCEDURE = re.compile(r"^(procedures?|steps)\b", re.I)
_PREREQUISITES = re.compile(r"^(prerequisites?|before you (begin|start)|requirements)\b", re.I)
_RESULT = re.compile(r"^(results?|expected results?|verification)\b", re.I)
_CONTEXT = re.compile(r"^(background|context|overview|scenarios?)\b", re.I)

_BOLD = re.compile(r"\*\*(.+?)\*\*")
# ``choose **A** > **B** > **C**``: a menu path (also written with an arrow).
_NAV_PATH = re.compile(r"\*\*[^*]+\*\*(?:\s*(?:>|→|&gt;)\s*\*\*[^*]+\*\*)+")
_VALUE_COLUMN = re.compile(r"example|value|setting|configuration|enter|input", re.I)
_EMPTY_VALUE = {"", "-", "—", "n/a", "none", "optional"}
# A sentence that says what the reader should see: "The **Instances** page appears.", "... changes to **Running**".
_EXPECTED = re.compile(r"\b(appears?|opens|is (?:displayed|shown|created|deleted|released|listed)|are (?:displayed|shown|listed)|"
                       r"you (?:are|will be) (?:taken|redirected)|(?:changes?|turns?) to|becomes?|(?:is|are) now|"
                       r"shows?|you can see|is added|are added|is removed)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*])")

# Sentence patterns that name a field and the value to give it (shared with the doc follower).
FIELD_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("fill", re.compile(r"\b(?:enter|type|input|specify)\s+\*\*(?P<value>[^*]+)\*\*\s+in(?:to)?\s+the\s+"
                        r"\*\*(?P<field>[^*]+)\*\*(?:\s+(?:field|box|text box|parameter))?", re.I)),
    ("fill", re.compile(r"\bin\s+the\s+\*\*(?P<field>[^*]+)\*\*(?:\s+(?:field|box|text box|section|parameter))?"
                        r"\s*,?\s*(?:enter|type|input|specify|select|choose)\s+\*\*(?P<value>[^*]+)\*\*", re.I)),
    ("fill", re.compile(r"\bset\s+(?:the\s+)?\*\*(?P<field>[^*]+)\*\*(?:\s+(?:field|parameter|option))?"
                        r"\s+to\s+\*\*(?P<value>[^*]+)\*\*", re.I)),
    ("select", re.compile(r"\b(?:select|choose)\s+\*\*(?P<value>[^*]+)\*\*\s+from\s+the\s+\*\*(?P<field>[^*]+)\*\*"
                          r"(?:\s+(?:drop-down list|drop-down menu|list|menu|field))?", re.I)),
]


class ProcedureError(ValueError):
    """The document is not a procedure an agent could follow; says which file and line."""

    def __init__(self, message: str, source: str, line: int) -> None:
        super().__init__(f"{source}:{line}: {message}")
        self.source = source
        self.line = line


@dataclass
class Table:
    """A Markdown table; cells keep bold as ``**X**``."""

    header: list[str]
    rows: list[list[str]]

    def fields(self) -> list[tuple[str, str]]:
        """(field, value) pairs of a parameter table: first column, and the Example/Value column."""
        column = value_column(self.header)
        if column is None:
            return []
        pairs = []
        for row in self.rows:
            if len(row) <= column:
                continue
            name, value = strip_markup(row[0]), cell_value(row[column])
            if name and value.casefold() not in _EMPTY_VALUE:
                pairs.append((name, value))
        return pairs

    def to_markdown(self) -> str:
        lines = ["| " + " | ".join(self.header) + " |", "| " + " | ".join("---" for _ in self.header) + " |"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in self.rows]
        return "\n".join(lines)


@dataclass
class Step:
    number: int
    text: str  # plain text, bold kept as **X**
    line: int  # 1-based line in the source
    substeps: list[Step] = field(default_factory=list)
    ui_labels: list[str] = field(default_factory=list)
    navigation: list[list[str]] = field(default_factory=list)  # ["VPC", "VPCs"] from "choose **VPC** > **VPCs**"
    fields: list[tuple[str, str]] = field(default_factory=list)  # (field, value)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)  # sentences saying what the reader should then see

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

    def step_texts(self) -> list[str]:
        """One string per numbered step: what goes into ``Task.document``."""
        return [step.full_text() for step in self.steps]


# --- inline text --------------------------------------------------------------------------------


def strip_markup(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("**", "").replace("`", "")).strip()


def cell_value(cell: str) -> str:
    """The value in a table cell: its bold or code span if it has one, else the whole cell."""
    match = _BOLD.search(cell) or re.search(r"`([^`]+)`", cell)
    return (match.group(1) if match else strip_markup(cell)).strip()


def value_column(header: list[str]) -> int | None:
    """Which column of a parameter table holds the value to enter."""
    for i, name in enumerate(header[1:], 1):
        if _VALUE_COLUMN.search(strip_markup(name)):
            return i
    return None


def bold_labels(text: str) -> list[str]:
    return list(dict.fromkeys(label.strip() for label in _BOLD.findall(text)))


def navigation_paths(text: str) -> list[list[str]]:
    return [[label.strip() for label in _BOLD.findall(m.group(0))] for m in _NAV_PATH.finditer(text)]


def sentence_fields(text: str) -> list[tuple[str, str]]:
    found: list[tuple[int, str, str]] = []
    for _kind, pattern in FIELD_PATTERNS:
        found += [(m.start(), m.group("field").strip(), m.group("value").strip()) for m in pattern.finditer(text)]
    return [(f, v) for _, f, v in sorted(found)]


def parse_pipe_table(lines: list[str]) -> Table | None:
    """A table written as ``| a | b |`` lines (how :meth:`Step.full_text` renders one)."""
    rows = [split_row(line) for line in lines if line.strip().startswith("|")]
    rows = [row for row in rows if not all(re.fullmatch(r":?-{2,}:?", c.strip()) for c in row if c.strip())]
    if len(rows) < 2:
        return None
    return Table(rows[0], rows[1:])


def split_row(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _inline(node: SyntaxTreeNode) -> str:
    """Plain text of an inline node, keeping bold as ``**X**`` and code as ``X``."""
    out: list[str] = []
    for child in node.children:
        if child.type == "text":
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "code_inline":
            out.append(f"`{child.content}`")
        elif child.type == "strong":
            out.append("**" + _inline(child).replace("**", "") + "**")
        elif child.type == "html_inline":
            continue
        else:  # em, link, image, ...: their text
            out.append(_inline(child) if child.children else child.content)
    return re.sub(r"[ \t]+", " ", "".join(out)).strip()


def _block_text(node: SyntaxTreeNode) -> str:
    """Text of a block (paragraph, heading, blockquote, list) as one string."""
    if node.type == "inline":
        return _inline(node)
    return " ".join(t for t in (_block_text(c) for c in node.children) if t)


# --- blocks -------------------------------------------------------------------------------------


def _table(node: SyntaxTreeNode) -> Table:
    rows = [[_block_text(cell) for cell in tr.children] for section in node.children for tr in section.children]
    return Table(rows[0], rows[1:]) if rows else Table([], [])


def _note(node: SyntaxTreeNode) -> str:
    """A ``> **Note:** ...`` block as ``Note: ...``."""
    text = _block_text(node)
    return re.sub(r"^\*\*(note|notice|important|warning|tip)\s*:?\s*\*\*\s*:?\s*", lambda m: m.group(1) + ": ",
                  text, flags=re.I)


def _line(node: SyntaxTreeNode) -> int:
    return (node.map[0] + 1) if node.map else 0


def _step(item: SyntaxTreeNode, number: int) -> Step:
    step = Step(number=number, text="", line=_line(item))
    paragraphs: list[str] = []
    for child in item.children:
        _attach(step, child, paragraphs)
    step.text = "\n".join(paragraphs)
    _annotate(step)
    return step


def _attach(step: Step, child: SyntaxTreeNode, paragraphs: list[str]) -> None:
    """Add one block of a list item (or one stray block after it) to the step."""
    if child.type in ("paragraph", "heading"):
        paragraphs.append(_block_text(child))
    elif child.type == "table":
        step.tables.append(_table(child))
    elif child.type == "blockquote":
        step.notes.append(_note(child))
    elif child.type in ("ordered_list", "bullet_list"):
        start = len(step.substeps)
        step.substeps += [_step(item, start + i) for i, item in enumerate(child.children, 1)]
    elif child.type in ("fence", "code_block"):
        paragraphs.append(child.content.rstrip())


def _annotate(step: Step) -> None:
    own = "\n".join([step.text] + [t.to_markdown() for t in step.tables])
    step.ui_labels = bold_labels(own)
    step.navigation = navigation_paths(step.text)
    step.fields = sentence_fields(step.text) + [pair for table in step.tables for pair in table.fields()]
    step.expected = expected_results(step.text)


def expected_results(text: str) -> list[str]:
    """The sentences of a step that describe what should appear, not what to do."""
    sentences = [s.strip() for line in text.split("\n") for s in _SENTENCE.split(line) if s.strip()]
    return [s for s in sentences if _EXPECTED.search(s) and not re.match(r"(click|choose|select|enter|type|set)\b", s, re.I)]


def _strip_front_matter(markdown: str) -> str:
    """Blank out YAML front matter, keeping line numbers."""
    lines = markdown.split("\n")
    if lines and lines[0].strip() == "---":
        for end in range(1, len(lines)):
            if lines[end].strip() in ("---", "..."):
                return "\n" * end + "\n" + "\n".join(lines[end + 1:])
    return markdown


@dataclass
class _Section:
    heading: str
    level: int
    line: int
    blocks: list[SyntaxTreeNode] = field(default_factory=list)


def _sections(root: SyntaxTreeNode) -> tuple[str, list[SyntaxTreeNode], list[_Section]]:
    """The title, the blocks before the first section, and the sections (by heading)."""
    title, preamble, sections = "", [], []
    for block in root.children:
        if block.type == "heading":
            level = int(block.tag[1])
            if not title and level == 1 and not sections:
                title = _block_text(block)
                continue
            # A deeper heading inside the Procedure section stays part of it (grouped steps).
            if sections and _PROCEDURE.match(sections[-1].heading) and level > sections[-1].level:
                sections[-1].blocks.append(block)
                continue
            sections.append(_Section(_block_text(block), level, _line(block)))
        elif sections:
            sections[-1].blocks.append(block)
        else:
            preamble.append(block)
    return title, preamble, sections


def _list_items_text(blocks: list[SyntaxTreeNode]) -> list[str]:
    items = []
    for block in blocks:
        if block.type in ("bullet_list", "ordered_list"):
            items += [_block_text(item) for item in block.children]
        elif block.type == "paragraph":
            items.append(_block_text(block))
    return [i for i in items if i]


def _prose(blocks: list[SyntaxTreeNode]) -> str:
    return "\n".join(t for t in (_block_text(b) for b in blocks if b.type != "heading") if t)


def _procedure_steps(section: _Section, source: str) -> list[Step]:
    steps: list[Step] = []
    for block in section.blocks:
        if block.type == "ordered_list":
            steps += [_step(item, len(steps) + i) for i, item in enumerate(block.children, 1)]
        elif steps and block.type != "heading":
            # A table, note or paragraph that broke the list (not indented): it belongs to the step above.
            last, extra = steps[-1], []
            _attach(last, block, extra)
            if extra:
                last.text = "\n".join([last.text, *extra])
            _annotate(last)
    if not steps:
        raise ProcedureError(f"the {section.heading!r} section has no numbered steps", source, section.line)
    return steps


@dataclass
class Document:
    """A documentation file: its front matter, title and procedures (none: nothing to verify)."""

    id: str
    title: str
    source: str
    front_matter: dict[str, Any] = field(default_factory=dict)
    procedures: list[Procedure] = field(default_factory=list)
    skipped: str | None = None  # why there is nothing to verify

    @property
    def release(self) -> str | None:
        value = self.front_matter.get("release")
        return str(value) if value is not None else None


def read_front_matter(markdown: str, source: str = "<doc>") -> dict[str, Any]:
    """The YAML between leading ``---`` lines ({} when there is none); bad YAML names file and line."""
    lines = markdown.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise ProcedureError("front matter opened with '---' is never closed", source, 1)
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        raise ProcedureError(f"front matter is not valid YAML: {getattr(exc, 'problem', exc)}", source, line) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ProcedureError(f"front matter must be a mapping, not {type(data).__name__}", source, 2)
    return data


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", strip_markup(text).casefold()).strip("-") or "procedure"


def parse_document(markdown: str, source: str = "<doc>") -> Document:
    """Every procedure of a document. A document without a Procedure section is returned with
    ``skipped`` set (it is not an error: many pages are concepts, not procedures); a Procedure
    section without numbered steps, or broken front matter, raises :class:`ProcedureError`."""
    front_matter = read_front_matter(markdown, source)
    tokens = MarkdownIt("commonmark").enable("table").parse(_strip_front_matter(markdown))
    title, preamble, sections = _sections(SyntaxTreeNode(tokens))
    doc_id = str(front_matter.get("id") or Path(source).stem)
    document = Document(id=doc_id, title=title or doc_id, source=source, front_matter=front_matter)
    procedure_sections = [s for s in sections if _PROCEDURE.match(s.heading)]
    if not procedure_sections:
        found = ", ".join(repr(s.heading) for s in sections) or "none"
        document.skipped = f"no 'Procedure' section (section headings found: {found})"
        return document
    context = [_prose(preamble)] + [_prose(s.blocks) for s in sections if _CONTEXT.match(s.heading)]
    prerequisites = [i for s in sections if _PREREQUISITES.match(s.heading) for i in _list_items_text(s.blocks)]
    result = "\n".join(_prose(s.blocks) for s in sections if _RESULT.match(s.heading))
    seen: dict[str, int] = {}
    for section in procedure_sections:
        parent = _parent_heading(sections, section)
        name = parent if parent and len(procedure_sections) > 1 else ""
        ident = slug(name or section.heading)
        seen[ident] = seen.get(ident, 0) + 1
        if seen[ident] > 1:
            ident = f"{ident}-{seen[ident]}"
        document.procedures.append(Procedure(
            title=name or document.title, context="\n".join(c for c in context if c), prerequisites=prerequisites,
            steps=_procedure_steps(section, source), result=result, source=source, id=ident, line=section.line))
    return document


def _parent_heading(sections: list[_Section], section: _Section) -> str:
    """The nearest heading above ``section`` of a higher level (a procedure's own title in a many-procedure page)."""
    index = sections.index(section)
    for earlier in reversed(sections[:index]):
        if earlier.level < section.level:
            return earlier.heading
    return ""


def parse_procedure(markdown: str, source: str = "<doc>") -> Procedure:
    """The first procedure of a document; raises :class:`ProcedureError` when it has none."""
    document = parse_document(markdown, source)
    if not document.procedures:
        tokens = MarkdownIt("commonmark").enable("table").parse(_strip_front_matter(markdown))
        _, _, sections = _sections(SyntaxTreeNode(tokens))
        raise ProcedureError(document.skipped or "no procedure", source, sections[0].line if sections else 1)
    return document.procedures[0]


def load_document(path: str | Path) -> Document:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ProcedureError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path), 1) from None
    return parse_document(text, source=str(path))


def load_procedure(path: str) -> Procedure:
    with open(path, encoding="utf-8") as handle:
        return parse_procedure(handle.read(), source=str(path))
