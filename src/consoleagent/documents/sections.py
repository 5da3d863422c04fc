"""A page's sections by heading, and which of them are context, prerequisites, result or asides.

Steps are looked for only outside the special sections; the title is the first level-1 heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from consoleagent.documents.blocks import Block

PROCEDURE = re.compile(r"^(procedures?|steps)\b", re.I)
PREREQUISITES = re.compile(r"^(prerequisites?|before you (begin|start)|requirements|what you need)\b", re.I)
RESULT = re.compile(r"^(results?|expected results?|verification|verify the result)\b", re.I)
CONTEXT = re.compile(r"^(background|context|overview|scenarios?|introduction|about)\b", re.I)
ASIDE = re.compile(r"^(what to do next|next steps?|what's next|references?|see also|related|examples?|faq|"
                   r"limits|limitations|billing|more information|additional information|clean ?up)\b", re.I)

# A sentence that says what the reader should see: "The **Instances** page appears.", "... changes to **Running**".
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


def prose_text(blocks: list[Block]) -> str:
    return "\n".join(b.text for b in blocks if b.kind in ("paragraph", "note") and b.text)


def list_items_text(blocks: list[Block]) -> list[str]:
    items: list[str] = []
    for block in blocks:
        if block.kind == "list":
            items += block.plain_items()
        elif block.kind == "paragraph":
            items.append(block.text)
    return [i for i in items if i]


def special(heading: str) -> bool:
    return bool(PREREQUISITES.match(heading) or RESULT.match(heading) or CONTEXT.match(heading) or ASIDE.match(heading))
