"""Blocks into procedures: the shapes documentation takes, read into one model.

- **steps**: a Procedure/Steps section with a numbered list (cloud task topics), or, without such a
  section, numbered lists of instructions anywhere in the body (``prose``);
- **prose**: tutorials whose paragraphs are the steps ("First, log on to the VPC console. ...");
- **reference**: pages that describe a dialog field by field ("Use the *Name* field to ...");
  see ``prose`` for how their steps are synthesised.

A section named Procedure is strict: without numbered steps it is an error, since the author
meant steps and the agent would silently get none. Everything else is tolerant.
"""

from __future__ import annotations

import re

from typing import Any

from consoleagent.documents.blocks import Block
from consoleagent.documents.model import Document, Procedure, ProcedureError, Step, slug
from consoleagent.documents.prose import implicit_procedure
from consoleagent.documents.sections import (CONTEXT, PREREQUISITES, PROCEDURE, RESULT, Section, list_items_text, prose_text,
                                             split_sections)
from consoleagent.documents.steps import attach_stray, expected_results, item_step

__all__ = ["build_document", "expected_results", "first_section_line"]

def section_steps(section: Section, source: str) -> list[Step]:
    """The numbered steps of a Procedure section; stray blocks belong to the step above them."""
    steps: list[Step] = []
    for block in section.blocks:
        if block.kind == "list" and block.ordered:
            steps += [item_step(item, len(steps) + i, source) for i, item in enumerate(block.items, 1)]
        elif steps and block.kind != "heading":
            attach_stray(steps[-1], block, source)
    if not steps:
        raise ProcedureError(f"the {section.heading!r} section has no numbered steps", source, section.line)
    return steps



def _parent_heading(sections: list[Section], section: Section) -> str:
    """The nearest heading above ``section`` of a higher level (a procedure's own title in a many-procedure page)."""
    index = sections.index(section)
    for earlier in reversed(sections[:index]):
        if earlier.level < section.level:
            return earlier.heading
    return ""


def build_document(blocks: list[Block], *, source: str, doc_id: str, front_matter: dict[str, Any],
                   fmt: str = "markdown", warnings: list[str] | None = None) -> Document:
    """Every procedure of a page. A page without steps is returned with ``skipped`` set (many pages are
    concepts, not procedures); a Procedure section without numbered steps raises :class:`ProcedureError`."""
    title, title_line, preamble, sections = split_sections(blocks)
    document = Document(id=doc_id, title=title or doc_id, source=source, front_matter=front_matter,
                        format=fmt, warnings=list(warnings or []))  # type: ignore[arg-type]
    context = "\n".join(c for c in [prose_text(preamble)] + [prose_text(s.blocks) for s in sections if CONTEXT.match(s.heading)] if c)
    prerequisites = [i for s in sections if PREREQUISITES.match(s.heading) for i in list_items_text(s.blocks)]
    prerequisites += lead_in_prerequisites(preamble)
    result = "\n".join(prose_text(s.blocks) for s in sections if RESULT.match(s.heading))
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


_LEAD_IN = re.compile(r"^\*\*(?P<label>[^*]+?)\s*:?\s*\*\*\s*:?\s*(?P<text>\S.*)$", re.S)


def lead_in_prerequisites(blocks: list[Block]) -> list[str]:
    """Prerequisites a short page states in a paragraph of its own instead of a section: "**Requirements:** a
    running ECS instance named web-01 exists." (READMEs, runbooks, knowledge-base answers)."""
    found = []
    for block in blocks:
        lead = _LEAD_IN.match(block.text.strip()) if block.kind == "paragraph" else None
        if lead and PREREQUISITES.match(lead.group("label").strip()):
            found.append(" ".join(lead.group("text").split()))
    return found


def first_section_line(blocks: list[Block]) -> int:
    """The line of the first section heading (where "no procedure" points), 1 when there is none."""
    _, _, _, sections = split_sections(blocks)
    return sections[0].line if sections else 1
