"""Documents: console procedures written for people, parsed into steps an agent can follow."""

from consoleagent.documents.procedure import Procedure, ProcedureError, Step, Table, load_procedure, parse_procedure

__all__ = ["Procedure", "ProcedureError", "Step", "Table", "load_procedure", "parse_procedure"]
