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
           "parse_procedure", "split_row", "strip_markup"]


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
