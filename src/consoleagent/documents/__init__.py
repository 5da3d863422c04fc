"""Documents: console procedures written for people, parsed into steps an agent can follow."""

from consoleagent.documents.procedure import (Document, Procedure, ProcedureError, Step, Table, load_document, load_procedure,
                                              parse_document, parse_procedure)

__all__ = ["Document", "load_document", "parse_document", "Procedure", "ProcedureError", "Step", "Table", "load_procedure", "parse_procedure"]
