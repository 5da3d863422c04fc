"""Markdown pages into blocks. Tokenised by markdown-it-py (CommonMark plus tables), never by hand.

Inline marks become canonical text: **bold** stays a label, *italic* that reads as a label becomes
one (``*Name*`` but not "do *not*"), a code span that is a menu path (```Object > Create```)
becomes a path, and quoted labels after a UI verb (click "OK") become labels. YAML front matter is
the page's metadata; it is blanked out, keeping line numbers, before the body is parsed.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from consoleagent.documents.blocks import Block, Item
from consoleagent.documents.labels import bold, code_or_path, emphasised, mark_quoted_labels, tidy
from consoleagent.documents.model import ProcedureError, Table

_NOTE_LABEL = re.compile(r"^\*\*(note|notice|important|warning|tip|caution|danger)\s*:?\s*\*\*\s*:?\s*", re.I)


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


def strip_front_matter(markdown: str) -> str:
    """Blank out YAML front matter, keeping line numbers."""
    lines = markdown.split("\n")
    if lines and lines[0].strip() == "---":
        for end in range(1, len(lines)):
            if lines[end].strip() in ("---", "..."):
                return "\n" * end + "\n" + "\n".join(lines[end + 1:])
    return markdown


def read_markdown(text: str, source: str = "<doc>") -> tuple[dict[str, Any], list[Block]]:
    """The page's front matter and its blocks."""
    front_matter = read_front_matter(text, source)
    tokens = MarkdownIt("commonmark").enable("table").parse(strip_front_matter(text))
    return front_matter, [b for node in SyntaxTreeNode(tokens).children for b in _blocks(node)]


def _line(node: SyntaxTreeNode) -> int:
    return (node.map[0] + 1) if node.map else 0


def inline(node: SyntaxTreeNode) -> str:
    """Canonical text of an inline node."""
    return tidy(mark_quoted_labels(_inline(node)))


def _inline(node: SyntaxTreeNode) -> str:
    out: list[str] = []
    for child in node.children:
        if child.type == "text":
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "code_inline":
            out.append(code_or_path(child.content))
        elif child.type == "strong":
            out.append(bold(_inline(child)))
        elif child.type == "em":
            out.append(emphasised(_inline(child), "".join(out)))
        elif child.type == "html_inline":
            continue
        else:  # link, image, ...: their text
            out.append(_inline(child) if child.children else child.content)
    return "".join(out)


def _text(node: SyntaxTreeNode) -> str:
    """Text of a block (paragraph, heading, blockquote, list) as one string."""
    if node.type == "inline":
        return inline(node)
    return " ".join(t for t in (_text(c) for c in node.children) if t)


def _table(node: SyntaxTreeNode) -> Table:
    rows = [[_text(cell) for cell in tr.children] for section in node.children for tr in section.children]
    return Table(rows[0], rows[1:], line=_line(node)) if rows else Table([], [], line=_line(node))


def _note(node: SyntaxTreeNode) -> Block:
    """A ``> **Note:** ...`` block as ``Note: ...``."""
    text = _text(node)
    label = _NOTE_LABEL.match(text)
    body = _NOTE_LABEL.sub(lambda m: m.group(1) + ": ", text)
    return Block("note", _line(node), text=body, label=label.group(1).capitalize() if label else "")


def _blocks(node: SyntaxTreeNode) -> list[Block]:
    if node.type == "heading":
        return [Block("heading", _line(node), text=_text(node), level=int(node.tag[1]))]
    if node.type == "paragraph":
        return [Block("paragraph", _line(node), text=_text(node))]
    if node.type == "table":
        table = _table(node)
        return [Block("table", _line(node), table=table)]
    if node.type == "blockquote":
        return [_note(node)]
    if node.type in ("ordered_list", "bullet_list"):
        items = [Item([b for child in item.children for b in _blocks(child)], _line(item)) for item in node.children]
        return [Block("list", _line(node), ordered=node.type == "ordered_list", items=items)]
    if node.type in ("fence", "code_block"):
        return [Block("code", _line(node), text=node.content.rstrip())]
    return []
