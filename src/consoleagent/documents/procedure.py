"""The names callers used when documents were Markdown only, kept in one place.

The document model lives in ``model``, the format readers in ``markdown``/``rst``/``html``, the
shapes in ``builder``; this module re-exports what the doc follower, alignment and fixes import,
plus the pipe-table reader they use on a step's text (:meth:`Step.full_text` renders tables as
``| a | b |`` lines).
"""

from __future__ import annotations

import re

from consoleagent.documents.fields import FIELD_PATTERNS
from consoleagent.documents.labels import bold_labels, navigation_paths, strip_markup
from consoleagent.documents.loader import load_document, load_procedure, parse_document, parse_procedure
from consoleagent.documents.model import Document, FieldSpec, Procedure, ProcedureError, Step, Table, Value

__all__ = ["FIELD_PATTERNS", "Document", "FieldSpec", "Procedure", "ProcedureError", "Step", "Table", "Value",
           "bold_labels", "load_document", "load_procedure", "navigation_paths", "parse_document", "parse_pipe_table",
           "is_separator_row", "parse_procedure", "split_row", "strip_markup"]


def parse_pipe_table(lines: list[str]) -> Table | None:
    """A table written as ``| a | b |`` lines (how :meth:`Step.full_text` renders one)."""
    rows = [split_row(line) for line in lines if line.strip().startswith("|") and not is_separator_row(line)]
    rows = [row for row in rows if any(row)]  # a row of empty cells says nothing
    if len(rows) < 2:
        return None
    return Table(rows[0], rows[1:])


def split_row(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def is_separator_row(line: str) -> bool:
    """Whether a line is the ``| --- | :-: |`` rule under a table's header row. Every reader of pipe tables asks
    this one function, so a rule written with single dashes or alignment colons is a rule to all of them."""
    if not line.strip().startswith("|"):
        return False
    filled = [cell for cell in split_row(line) if cell]
    return bool(filled) and all(re.fullmatch(r":?-+:?", cell) for cell in filled)
