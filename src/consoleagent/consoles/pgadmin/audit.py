"""pgaudit's CSV log lines as our audit records (docs/formats.md, "Audit record").

PostgreSQL's csvlog writes one CSV row per message; pgaudit's rows carry a message
``AUDIT: SESSION,<statement id>,<substatement id>,<class>,<command tag>,<object type>,<object
name>,<statement>,<parameter>`` (itself CSV). Each such row becomes one record:

- ``eventName`` is the command tag (``CREATE CAST``), ``eventRW`` Write (pgaudit logs DDL, role and
  write classes here), ``serviceName`` ``postgresql``;
- ``requestParameters`` holds the statement, class, object type and name and the database;
- ``userAgent`` is the connection's ``application_name``: pgAdmin's Object Explorer connects as
  ``pgAdmin 4 - DB:<database>``, its Query Tool as ``pgAdmin 4 - CONN:<id>``, psql as ``psql``;
- ``actor`` is ``console`` for any pgAdmin connection, ``provisioner`` for consoleagent's set-up
  connection, ``sdk`` for every other client (psql, scripts) — so only work done in pgAdmin counts,
  and a rule's ``user_agent`` can narrow that to the Object Explorer;
- ``errorCode`` is the SQLSTATE of an ERROR in the same transaction after the statement: the
  transaction rolled back, so the statement did not take effect (an explicit ROLLBACK without an
  error is not visible in the log and is not detected).

pgAdmin's utilities (Backup, Restore, Maintenance, Import/Export) run as background processes
(pg_dump, pg_restore, psql) that pgAdmin records in its own configuration database (table
``process``, exit status in the job's ``status`` file): each becomes a record ``RUN <utility>``
(``RUN pg_dump``) with the arguments in ``requestParameters``, actor ``console``, user agent
``pgAdmin 4 - utility`` and ``errorCode`` ``exit <n>`` for a non-zero exit (``running`` while it
runs, so a rule waits for it). Backups only read, so pgaudit alone would never see them.

The log is read from the start each time (it is one scratch cluster's log, small), and parsing is
pure: rows in, records out, so it is tested on real log text.
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from consoleagent.consoles.pgadmin.cluster import PROVISIONER_APPLICATION
from consoleagent.consoles.pgadmin.server import read_only_rows

PGADMIN_APPLICATION_PREFIX = "pgAdmin 4"
OBJECT_BROWSER_PATTERN = r"pgAdmin 4 - DB:.*"  # the rule constraint that admits only the Object Explorer
RECORD_NAMESPACE = uuid.UUID("5d0c6f8e-3c1a-4d8b-9a57-0a1f3c2b7e11")
# PostgreSQL 15's csvlog columns, in order (https://www.postgresql.org/docs/15/runtime-config-logging.html).
CSV_COLUMNS = ("log_time", "user_name", "database_name", "process_id", "connection_from", "session_id",
               "session_line_num", "command_tag", "session_start_time", "virtual_transaction_id", "transaction_id",
               "error_severity", "sql_state_code", "message", "detail", "hint", "internal_query",
               "internal_query_pos", "context", "query", "query_pos", "location", "application_name",
               "backend_type", "leader_pid", "query_id")
AUDIT_FIELDS = ("audit_type", "statement_id", "substatement_id", "audit_class", "command", "object_type",
                "object_name", "statement", "parameter")
FAILED_SEVERITIES = {"ERROR", "FATAL", "PANIC"}


@dataclass(frozen=True)
class LogRow:
    """One csvlog row by column name (missing trailing columns are empty)."""

    values: dict[str, str]

    def __getitem__(self, key: str) -> str:
        return self.values.get(key, "")


def read_rows(text: str) -> Iterator[LogRow]:
    """csvlog text → rows; a row cut off by a write in progress (the last one) is skipped."""
    reader = csv.reader(io.StringIO(text))
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error:  # a half-written last line
            return
        if len(fields) < 14:
            continue
        yield LogRow(dict(zip(CSV_COLUMNS, fields)))


def pgadmin_error(body: str) -> str | None:
    """The message of pgAdmin's JSON error answer (``{"success": 0, "errormsg": "..."}``), or None."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    message = answer.get("errormsg") if isinstance(answer, dict) and answer.get("success") == 0 else None
    return message.strip() if isinstance(message, str) and message.strip() else None


def database_refused(rows: Iterable[LogRow], message: str) -> bool:
    """Whether the database logged ``message`` as an ERROR of a pgAdmin connection: the proof that a
    pgAdmin error answer is PostgreSQL refusing the statement, not pgAdmin failing."""
    return any(row["error_severity"] in FAILED_SEVERITIES and row["message"] and row["message"] in message
               and row["application_name"].startswith(PGADMIN_APPLICATION_PREFIX) for row in rows)


def parse_audit_message(message: str) -> dict[str, str] | None:
    """``AUDIT: SESSION,1,1,DDL,CREATE CAST,,,<statement>,<not logged>`` → its fields; None for other messages."""
    if not message.startswith("AUDIT: "):
        return None
    try:
        fields = next(csv.reader([message[len("AUDIT: "):]]))
    except (csv.Error, StopIteration):
        return None
    if len(fields) < len(AUDIT_FIELDS) - 1:
        return None
    return dict(zip(AUDIT_FIELDS, fields + [""] * (len(AUDIT_FIELDS) - len(fields))))


def actor_of(application: str) -> str:
    if application.startswith(PGADMIN_APPLICATION_PREFIX):
        return "console"
    if application == PROVISIONER_APPLICATION:
        return "provisioner"
    return "sdk"


def iso_time(log_time: str) -> str:
    """``2026-11-24 08:10:23.283 UTC`` → ``2026-11-24T08:10:23.283Z`` (the log's time zone is UTC)."""
    stamp = datetime.strptime(log_time.removesuffix(" UTC"), "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def records_from_rows(rows: Iterable[LogRow], *, account_id: str = "") -> list[dict[str, Any]]:
    """The audit records of every pgaudit row, oldest first, failures marked from later ERROR rows."""
    rows = list(rows)
    failures: dict[tuple[str, str], LogRow] = {}  # (session, virtual transaction) -> its first error
    for row in rows:
        if row["error_severity"] in FAILED_SEVERITIES and row["virtual_transaction_id"]:
            failures.setdefault((row["session_id"], row["virtual_transaction_id"]), row)
    records = []
    for row in rows:
        audit = parse_audit_message(row["message"])
        if audit is None:
            continue
        failure = failures.get((row["session_id"], row["virtual_transaction_id"]))
        if failure is not None and int(failure["session_line_num"] or 0) < int(row["session_line_num"] or 0):
            failure = None  # the error came before this statement (a new transaction reuses no vxid, but be safe)
        records.append(_record(row, audit, failure, account_id))
    return records


def _record(row: LogRow, audit: dict[str, str], failure: LogRow | None, account_id: str) -> dict[str, Any]:
    application = row["application_name"]
    key = f"{row['session_id']}:{row['session_line_num']}:{audit['statement_id']}:{audit['substatement_id']}"
    object_type, object_name = audit["object_type"], audit["object_name"]
    return {
        "eventId": str(uuid.uuid5(RECORD_NAMESPACE, f"{account_id}:{key}")),
        "eventVersion": "1",
        "eventTime": iso_time(row["log_time"]),
        "eventName": audit["command"],
        "eventType": "ApiCall",
        "eventRW": "Write",
        "eventSource": "postgresql",
        "serviceName": "postgresql",
        "acsRegion": None,
        "requestId": key,
        "requestParameters": {"statement": audit["statement"], "class": audit["audit_class"],
                              "objectType": object_type or None, "objectName": object_name or None,
                              "database": row["database_name"], "auditType": audit["audit_type"]},
        "responseElements": None,
        "errorCode": failure["sql_state_code"] if failure else None,
        "errorMessage": failure["message"] if failure else None,
        "referencedResources": {f"PG::{object_type}": [object_name]} if object_type and object_name else {},
        "sourceIpAddress": row["connection_from"] or "local",
        "userAgent": application,
        "userIdentity": {"type": "database-role", "accountId": account_id, "principalId": row["user_name"],
                         "userName": row["user_name"], "accessKeyId": None, "sessionId": row["session_id"]},
        "actor": actor_of(application),
    }


def in_window(record: dict[str, Any], since: str | None, until: str | None) -> bool:
    """Whether the record's eventTime lies in [since, until] (ISO strings of one format compare as text)."""
    stamp = record["eventTime"]
    return (since is None or stamp >= since) and (until is None or stamp <= until)


UTILITY_USER_AGENT = "pgAdmin 4 - utility"


def utility_records(sqlite_path: Path, *, account_id: str = "") -> list[dict[str, Any]]:
    """pgAdmin's background utility jobs as audit records, oldest first."""
    rows = read_only_rows(sqlite_path, "SELECT pid, command, arguments, logdir, start_time, end_time, exit_code, "
                          "server_id FROM process ORDER BY start_time")
    return sorted((_utility_record(row, account_id) for row in rows if row[4]), key=lambda r: r["eventTime"])


def _utility_record(row: tuple[Any, ...], account_id: str) -> dict[str, Any]:
    import json

    pid, command, arguments, logdir, start_time, end_time, exit_code, server_id = row
    status = _job_status(logdir)
    exit_code = exit_code if exit_code is not None else status.get("exit_code")
    try:  # pgAdmin 9.18 stores the argument list comma-separated; older releases stored JSON
        args = json.loads(arguments) if arguments else []
    except ValueError:
        args = str(arguments).split(",")
    utility = Path(str(command)).name
    error = None if exit_code == 0 else "running" if exit_code is None else f"exit {exit_code}"
    return {
        "eventId": str(uuid.uuid5(RECORD_NAMESPACE, f"{account_id}:process:{pid}")), "eventVersion": "1",
        "eventTime": _pgadmin_time(start_time), "eventName": f"RUN {utility}", "eventType": "ApiCall",
        "eventRW": "Write", "eventSource": "pgadmin", "serviceName": "pgadmin", "acsRegion": None, "requestId": str(pid),
        "requestParameters": {"utility": utility, "arguments": [str(a) for a in args],
                              "argumentsText": " ".join(str(a) for a in args), "serverId": server_id},
        "responseElements": {"exitCode": exit_code, "endTime": end_time} if exit_code is not None else None,
        "errorCode": error, "errorMessage": None, "referencedResources": {}, "sourceIpAddress": "local",
        "userAgent": UTILITY_USER_AGENT,
        "userIdentity": {"type": "desktop-user", "accountId": account_id, "principalId": "pgadmin",
                         "userName": "pgadmin", "accessKeyId": None, "sessionId": None},
        "actor": "console",
    }


def _job_status(logdir: str | None) -> dict[str, Any]:
    import json

    if not logdir:
        return {}
    try:
        return json.loads((Path(logdir) / "status").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _pgadmin_time(value: str) -> str:
    """pgAdmin's ``2026-11-24 08:40:00.123456 +0000`` → an audit eventTime in UTC."""
    for pattern in ("%Y-%m-%d %H:%M:%S.%f %z", "%Y-%m-%d %H:%M:%S %z", "%Y-%m-%d %H:%M:%S.%f"):
        try:
            stamp = datetime.strptime(value.strip(), pattern)
            break
        except ValueError:
            continue
    else:
        return value
    stamp = (stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


class PgAuditSource:
    """The audit records of one cluster's CSV log, for a time window and a database role."""

    def __init__(self, log_path: Path, account_id: str, pgadmin_db: Path | None = None) -> None:
        self.log_path = Path(log_path)
        self.account_id = account_id
        self.pgadmin_db = pgadmin_db  # pgAdmin's configuration database: its utility jobs

    def records(self, since: str | None = None, until: str | None = None,
                principal: str | None = None) -> list[dict[str, Any]]:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        records = records_from_rows(read_rows(text), account_id=self.account_id)
        if self.pgadmin_db is not None:
            records = sorted(records + utility_records(self.pgadmin_db, account_id=self.account_id),
                             key=lambda r: r["eventTime"])
        return [r for r in records if in_window(r, since, until)
                and (principal is None or r["userIdentity"]["userName"] == principal)]
