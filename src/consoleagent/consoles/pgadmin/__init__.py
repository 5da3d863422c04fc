"""pgAdmin 4 over PostgreSQL 15 with pgaudit: the second console backend (the first one we did not write)."""

from consoleagent.consoles.pgadmin.backend import PgAdminBackend

BACKEND = PgAdminBackend

__all__ = ["BACKEND", "PgAdminBackend"]
