"""Parse a documented console procedure (Markdown in the style of cloud documentation) into steps.

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


def parse_procedure(markdown: str, source: str = "<doc>") -> Procedure:
    """Parse a Markdown procedure; raises :class:`ProcedureError` when it has no numbered steps."""
    tokens = MarkdownIt("commonmark").enable("table").parse(_strip_front_matter(markdown))
    title, preamble, sections = _sections(SyntaxTreeNode(tokens))
    procedure = next((s for s in sections if _PROCEDURE.match(s.heading)), None)
    if procedure is None:
        found = ", ".join(repr(s.heading) for s in sections) or "none"
        line = sections[0].line if sections else 1
        raise ProcedureError(f"no 'Procedure' section (section headings found: {found})", source, line)
    context = [_prose(preamble)] + [_prose(s.blocks) for s in sections if _CONTEXT.match(s.heading)]
    prerequisites = [i for s in sections if _PREREQUISITES.match(s.heading) for i in _list_items_text(s.blocks)]
    result = "\n".join(_prose(s.blocks) for s in sections if _RESULT.match(s.heading))
    return Procedure(title=title, context="\n".join(c for c in context if c), prerequisites=prerequisites,
                     steps=_procedure_steps(procedure, source), result=result, source=source)


def load_procedure(path: str) -> Procedure:
    with open(path, encoding="utf-8") as handle:
        return parse_procedure(handle.read(), source=str(path))
