"""Resource META templates for the pgAdmin console, written in SQL.

Each template creates, verifies and destroys one kind of PostgreSQL object that a documented
pgAdmin procedure needs to exist first (a function for a cast, a table for an exclusion
constraint or a rule, a foreign-data wrapper for a foreign server...). They run through
:class:`SqlClient`, whose connections say ``application_name = consoleagent-provisioner``: their
pgaudit records carry actor ``provisioner`` and never count as the agent's work.

Names are checked against a strict identifier pattern before they reach SQL, so a task cannot
smuggle SQL through a name; column lists and function bodies are SQL by nature and come only
from the repository's task files.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

from consoleagent.consoles.pgadmin.cluster import PROVISIONER_APPLICATION, PostgresCluster, bin_dir
from consoleagent.provisioning.templates import Attribute, Template, TemplateContext, TemplateLibrary
from consoleagent.provisioning.types import ProvisioningError

WORK_DATABASE = "demo"  # the database tasks act in; recreated from its template for every episode
IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
TYPE_NAME = re.compile(r"^[a-z_][a-z0-9_ ]{0,62}(\[\])?$")


class SqlClient:
    """What a pgAdmin template's context calls: SQL on the cluster as the provisioner."""

    region = "local"  # TemplateContext wants one; a cluster has no regions

    def __init__(self, cluster: PostgresCluster, files_dir: Path | None = None) -> None:
        self.cluster = cluster
        self.files_dir = files_dir  # where file templates put files pgAdmin's dialogs read (its storage folder)

    def execute(self, sql: str, params: Any = None, *, database: str = WORK_DATABASE) -> list[tuple[Any, ...]]:
        return self.cluster.execute(sql, params, dbname=database, application_name=PROVISIONER_APPLICATION)

    def exists(self, sql: str, params: Any = None, *, database: str = WORK_DATABASE) -> bool:
        return bool(self.execute(sql, params, database=database))

    def call(self, product: str, action: str, **params: Any) -> dict[str, Any]:
        raise ProvisioningError(f"the pgAdmin console has no API action {product}.{action}; its templates speak SQL")

    def close(self) -> None:
        pass


def _identifier(value: Any) -> None:
    if not IDENTIFIER.match(str(value)):
        raise ValueError(f"{value!r} is not a plain lower-case identifier (a-z, 0-9, _; at most 63)")


def _type_name(value: Any) -> None:
    for part in str(value).split(","):
        if part.strip() and not TYPE_NAME.match(part.strip()):
            raise ValueError(f"{part.strip()!r} is not a type name")


def _sql(ctx: TemplateContext) -> SqlClient:
    client = ctx.client
    if not isinstance(client, SqlClient):
        raise ProvisioningError("pgAdmin templates run through the pgAdmin backend's SqlClient")
    return client


def _missing(template: str, what: str) -> ProvisioningError:
    return ProvisioningError(f"{what} does not exist after create", template=template, phase="verify")


def _name(required: bool = True, description: str = "the object's name") -> Attribute:
    return Attribute("str", required=required, description=description, check=_identifier)


def _database() -> Attribute:
    return Attribute("str", WORK_DATABASE, description="the database it lives in", check=_identifier)


# --- database and role (cluster-wide objects) --------------------------------------------------


def _create_database(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    _sql(ctx).execute(f'CREATE DATABASE "{p["name"]}" OWNER "{p["owner"]}"', database="postgres")
    ctx.record(database=p["name"])
    return {"database": p["name"]}


def _verify_database(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    if not _sql(ctx).exists("SELECT 1 FROM pg_database WHERE datname = %s", (out["database"],), database="postgres"):
        raise _missing("database", f"database {out['database']}")


def _destroy_database(ctx: TemplateContext, out: dict[str, Any]) -> None:
    _sql(ctx).execute(f'DROP DATABASE IF EXISTS "{out["database"]}" WITH (FORCE)', database="postgres")


def _create_role(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    login = "LOGIN" if p["login"] else "NOLOGIN"
    _sql(ctx).execute(f'CREATE ROLE "{p["name"]}" {login}', database="postgres")
    ctx.record(role=p["name"])
    return {"role": p["name"]}


def _verify_role(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    if not _sql(ctx).exists("SELECT 1 FROM pg_roles WHERE rolname = %s", (out["role"],), database="postgres"):
        raise _missing("role", f"role {out['role']}")


def _destroy_role(ctx: TemplateContext, out: dict[str, Any]) -> None:
    """What the role owns in any database goes first (DROP ROLE refuses otherwise)."""
    sql = _sql(ctx)
    if not sql.exists("SELECT 1 FROM pg_roles WHERE rolname = %s", (out["role"],), database="postgres"):
        return
    for (database,) in sql.execute("SELECT datname FROM pg_database WHERE datallowconn", database="postgres"):
        sql.execute(f'DROP OWNED BY "{out["role"]}"', database=database)
    sql.execute(f'DROP ROLE IF EXISTS "{out["role"]}"', database="postgres")


def _create_connection(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    cluster = _sql(ctx).cluster
    return {"host": cluster.host, "port": cluster.port, "user": "postgres", "database": p["database"]}


def _verify_connection(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    _sql(ctx).execute("SELECT 1", database=out["database"])


def _destroy_nothing(ctx: TemplateContext, out: dict[str, Any]) -> None:
    """The connection details describe the cluster; there is nothing to remove."""


# --- files pgAdmin's utilities read --------------------------------------------------------------


def _file_path(ctx: TemplateContext, name: str) -> Path:
    files_dir = _sql(ctx).files_dir
    if files_dir is None:
        raise ProvisioningError("no folder for files: the backend gave the SQL client none")
    if "/" in name or name.startswith("."):
        raise ProvisioningError(f"file name {name!r} must be a plain name")
    return files_dir / name


def _create_backup_file(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    """pg_dump (custom format) of one table into the files folder; with ``drop_table`` the table is
    dropped afterwards, so restoring the file is what brings it back."""
    cluster = _sql(ctx).cluster
    path = _file_path(ctx, p["file"])
    env = {**os.environ, "PGPASSWORD": cluster.password, "PGAPPNAME": PROVISIONER_APPLICATION}
    done = subprocess.run([str(bin_dir() / "pg_dump"), "-h", cluster.host, "-p", str(cluster.port), "-U", "postgres",
                           "-Fc", "-t", p["table"], "-f", str(path), p["database"]],
                          env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise ProvisioningError(f"pg_dump failed: {done.stderr.strip()[-300:]}", template="backup_file", phase="create")
    ctx.record(path=str(path), file=p["file"], database=p["database"])
    if p["drop_table"]:
        _sql(ctx).execute(f"DROP TABLE {p['table']}", database=p["database"])
    return {"path": str(path), "file": p["file"], "database": p["database"]}


def _create_csv_file(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
    path = _file_path(ctx, p["file"])
    lines = [p["header"]] if p["header"] else []
    lines += [f"{i},item {i}" for i in range(1, p["rows"] + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ctx.record(path=str(path), file=p["file"])
    return {"path": str(path), "file": p["file"], "rows": p["rows"]}


def _verify_file(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
    if not Path(out["path"]).is_file():
        raise _missing("file", out["path"])


def _destroy_file(ctx: TemplateContext, out: dict[str, Any]) -> None:
    Path(out["path"]).unlink(missing_ok=True)


# --- objects inside the work database ---------------------------------------------------------


def _object_template(name: str, description: str, attributes: dict[str, Attribute], outputs: list[str],
                     create_sql: str, exists_sql: str, drop_sql: str, *, keywords: list[str],
                     depends: dict[str, str] | None = None) -> Template:
    """A template whose create, verify and destroy are one SQL statement each (``{param}`` filled in).

    ``exists_sql`` takes the outputs' values as ``%(output)s`` parameters; outputs are the params
    of the same name (``schema.name`` and similar are composed by ``create_sql``'s caller).
    """

    def create(ctx: TemplateContext, p: dict[str, Any]) -> dict[str, Any]:
        _sql(ctx).execute(create_sql.format(**p), database=p["database"])
        out = {key: p.get(key) for key in outputs}
        ctx.record(**out)
        return out

    def verify(ctx: TemplateContext, p: dict[str, Any], out: dict[str, Any]) -> None:
        if not _sql(ctx).exists(exists_sql, {**p, **out}, database=out["database"]):
            raise _missing(name, f"{name} {out.get('name')}")

    def destroy(ctx: TemplateContext, out: dict[str, Any]) -> None:
        sql = _sql(ctx)
        if sql.exists("SELECT 1 FROM pg_database WHERE datname = %s", (out["database"],), database="postgres"):
            sql.execute(drop_sql.format(**out), database=out["database"])

    return Template(name, description, attributes, outputs, create, verify, destroy, depends or {}, keywords)


def pgadmin_library() -> TemplateLibrary:
    """Every pgAdmin template (the registry ``consoleagent templates`` and task validation read)."""
    library = TemplateLibrary([
        Template("database", "A PostgreSQL database (owned by a role).",
                 {"name": _name(), "owner": Attribute("str", "postgres", description="owning role", check=_identifier)},
                 ["database"], _create_database, _verify_database, _destroy_database, keywords=["database", "db"]),
        Template("role", "A cluster role (a user when it may log in).",
                 {"name": _name(), "login": Attribute("bool", False, description="may log in")},
                 ["role"], _create_role, _verify_role, _destroy_role, keywords=["role", "user", "login"]),
        Template("connection", "How to reach this cluster (host, port, user): for tasks that register a server "
                 "or connect a subscription.", {"database": _database()}, ["host", "port", "user", "database"],
                 _create_connection, _verify_connection, _destroy_nothing, keywords=["connection", "host", "port"]),
        Template("backup_file", "A pg_dump (custom format) of one table, in pgAdmin's storage folder; "
                 "optionally the table is dropped after the dump (for a restore).",
                 {"database": _database(), "table": Attribute("str", required=True, description="schema.table to dump"),
                  "file": Attribute("str", "backup.dump", description="file name"),
                  "drop_table": Attribute("bool", True, description="drop the table after dumping it")},
                 ["path", "file", "database"], _create_backup_file, _verify_file, _destroy_file,
                 keywords=["backup", "dump", "restore", "file"]),
        Template("csv_file", "A CSV file (id,name rows) in pgAdmin's storage folder, for an import.",
                 {"file": Attribute("str", "data.csv", description="file name"),
                  "rows": Attribute("int", 3, description="data rows"),
                  "header": Attribute("str", "id,name", description="header line ('' for none)")},
                 ["path", "file", "rows"], _create_csv_file, _verify_file, _destroy_file,
                 keywords=["csv", "import", "file"]),
        _object_template(
            "schema", "A schema in a database.", {"database": _database(), "name": _name()}, ["database", "name"],
            'CREATE SCHEMA "{name}"', "SELECT 1 FROM pg_namespace WHERE nspname = %(name)s",
            'DROP SCHEMA IF EXISTS "{name}" CASCADE', keywords=["schema", "namespace"]),
        _object_template(
            "table", "A table with the given columns, optionally filled with rows 1..rows in its first column.",
            {"database": _database(), "schema": Attribute("str", "public", check=_identifier), "name": _name(),
             "columns": Attribute("str", "id integer PRIMARY KEY, name text", description="the column list, as SQL"),
             "rows": Attribute("int", 0, description="rows to insert (first column 1..rows)")},
            ["database", "schema", "name"],
            'CREATE TABLE "{schema}"."{name}" ({columns}); '
            'INSERT INTO "{schema}"."{name}" SELECT g FROM generate_series(1, {rows}) AS g',
            "SELECT 1 FROM pg_tables WHERE schemaname = %(schema)s AND tablename = %(name)s",
            'DROP TABLE IF EXISTS "{schema}"."{name}" CASCADE', keywords=["table", "relation"]),
        _object_template(
            "function", "A function (for a cast, an event trigger or a rule's needs).",
            {"database": _database(), "schema": Attribute("str", "public", check=_identifier), "name": _name(),
             "arguments": Attribute("str", "", description="argument types, comma-separated", check=_type_name),
             "returns": Attribute("str", "text", description="return type", check=_type_name),
             "language": Attribute("str", "sql", choices=("sql", "plpgsql")),
             "body": Attribute("str", "SELECT NULL::text", description="the function body")},
            ["database", "schema", "name", "arguments"],
            'CREATE FUNCTION "{schema}"."{name}"({arguments}) RETURNS {returns} LANGUAGE {language} AS $body${body}$body$',
            "SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = %(schema)s AND p.proname = %(name)s",
            'DROP FUNCTION IF EXISTS "{schema}"."{name}"({arguments}) CASCADE', keywords=["function", "procedure"]),
        _object_template(
            "extension", "An extension installed in a database.",
            {"database": _database(),
             "name": Attribute("str", required=True, choices=("btree_gist", "postgres_fdw", "file_fdw", "hstore",
                                                              "citext", "pg_trgm", "unaccent", "dict_int"))},
            ["database", "name"], 'CREATE EXTENSION IF NOT EXISTS "{name}"',
            "SELECT 1 FROM pg_extension WHERE extname = %(name)s", 'DROP EXTENSION IF EXISTS "{name}" CASCADE',
            keywords=["extension", "module"]),
        _object_template(
            "foreign_data_wrapper", "A foreign-data wrapper (without handler: enough to define servers).",
            {"database": _database(), "name": _name()}, ["database", "name"],
            'CREATE FOREIGN DATA WRAPPER "{name}"', "SELECT 1 FROM pg_foreign_data_wrapper WHERE fdwname = %(name)s",
            'DROP FOREIGN DATA WRAPPER IF EXISTS "{name}" CASCADE', keywords=["fdw", "foreign data wrapper"]),
        _object_template(
            "foreign_server", "A foreign server of a foreign-data wrapper.",
            {"database": _database(), "name": _name(),
             "fdw": Attribute("str", required=True, description="its foreign-data wrapper", check=_identifier)},
            ["database", "name", "fdw"], 'CREATE SERVER "{name}" FOREIGN DATA WRAPPER "{fdw}"',
            "SELECT 1 FROM pg_foreign_server WHERE srvname = %(name)s", 'DROP SERVER IF EXISTS "{name}" CASCADE',
            keywords=["foreign server", "server"]),
        _object_template(
            "publication", "A publication of one table (logical replication).",
            {"database": _database(), "name": _name(),
             "table": Attribute("str", required=True, description="schema-qualified table it publishes")},
            ["database", "name"], 'CREATE PUBLICATION "{name}" FOR TABLE {table}',
            "SELECT 1 FROM pg_publication WHERE pubname = %(name)s", 'DROP PUBLICATION IF EXISTS "{name}"',
            keywords=["publication", "replication"]),
    ])
    library.check()
    return library
