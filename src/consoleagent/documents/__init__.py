"""Documents: console documentation as people write it (Markdown, reStructuredText, HTML), read into
one model of procedures and steps an agent can follow (see ``model`` and ``docs/formats.md``)."""

from consoleagent.documents.loader import (SUFFIXES, document_paths, format_of, load_document, load_procedure,
                                           parse_document, parse_procedure, read_metadata)
from consoleagent.documents.model import Document, FieldSpec, Procedure, ProcedureError, Step, Table, Value

__all__ = ["Document", "FieldSpec", "Procedure", "ProcedureError", "Step", "SUFFIXES", "Table", "Value", "document_paths",
           "format_of", "load_document", "load_procedure", "parse_document", "parse_procedure", "read_metadata"]
