"""The blocks every format reader produces: headings, paragraphs, lists, tables, notes, code.

Markdown, reStructuredText and HTML differ in syntax but a documentation page is the same few
blocks in all three. Each reader turns its parse tree into these (inline text already in canonical
form, see ``labels``), and one builder turns blocks into procedures, so a page reads the same
whichever format it was saved in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from consoleagent.documents.model import Table

BlockKind = Literal["heading", "paragraph", "list", "table", "note", "code"]


@dataclass
class Item:
    """One list item: its blocks (the first is usually its paragraph) and its line."""

    blocks: list[Block]
    line: int


@dataclass
class Block:
    kind: BlockKind
    line: int  # 1-based line in the source (0 when the format does not say)
    text: str = ""  # heading, paragraph, note and code: canonical inline text
    level: int = 0  # heading level (1 = the page title)
    ordered: bool = False  # list: numbered
    items: list[Item] = field(default_factory=list)  # list
    table: Table | None = None  # table
    label: str = ""  # note: "Note", "Warning", ...

    def plain_items(self) -> list[str]:
        """A list's items as text (their paragraphs joined)."""
        return [" ".join(b.text for b in item.blocks if b.kind == "paragraph" and b.text) for item in self.items]


def note_text(label: str, body: str) -> str:
    """``Note: ...`` as a step's note reads (the label once, capitalised)."""
    label = label.strip().rstrip(":").strip()
    if not label:
        return body
    prefix = f"{label[0].upper()}{label[1:]}: "
    body = body.strip()
    lowered = body.casefold()
    for form in (f"**{label.casefold()}:**", f"**{label.casefold()}**:", f"{label.casefold()}:"):
        if lowered.startswith(form):
            body = body[len(form):].strip()
            break
    return prefix + body
