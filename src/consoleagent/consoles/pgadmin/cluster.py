"""A private PostgreSQL 15 cluster with pgaudit, in a scratch directory, on loopback.

The cluster is the ground pgAdmin stands on and the audit source: every DDL, role and write
statement is logged by pgaudit into a CSV log (``log_destination = csvlog``), one line per
statement with the client's ``application_name``, which tells pgAdmin's own connections from psql.

PostgreSQL refuses to run as root, so when this process is root the server runs as the
``postgres`` system user (through ``runuser``); the cluster's folder is handed to that user and
nothing else of the scratch directory is. The server is stopped through its own PID file
(``postmaster.pid``, read by ``pg_ctl stop``), never by process name.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consoleagent.consoles.pgadmin.pidfile import file_process_alive, read_pid

PG_VERSION = "15"
SUPERUSER = "postgres"
PROVISIONER_APPLICATION = "consoleagent-provisioner"  # the application_name of set-up work: never the agent's
AUDIT_CLASSES = "ddl,role,write"


class ClusterError(RuntimeError):
    """The cluster could not be made, started or reached; the message says which step and why."""


def bin_dir(version: str = PG_VERSION) -> Path:
    """Debian's layout: /usr/lib/postgresql/<major>/bin (the server binaries are not on PATH)."""
    return Path(os.environ.get("CONSOLEAGENT_PG_BIN", f"/usr/lib/postgresql/{version}/bin"))


def pgaudit_installed(version: str = PG_VERSION) -> bool:
    """Whether the server and the pgaudit extension (Debian postgresql-<major>-pgaudit) are installed."""
    lib = Path(f"/usr/lib/postgresql/{version}/lib/pgaudit.so")
    return (bin_dir(version) / "postgres").exists() and lib.exists()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class ClusterInfo:
    """What a client needs to reach the cluster (written to the console's state file)."""

    host: str
    port: int
    superuser: str
    password: str
    root: str


class PostgresCluster:
    """One private cluster under ``root`` (``root/data`` data directory, ``root/run`` socket folder)."""

    def __init__(self, root: Path, *, port: int | None = None, host: str = "127.0.0.1", password: str | None = None,
                 os_user: str = "postgres", version: str = PG_VERSION) -> None:
        self.root = Path(root)
        self.host = host
        self.port = port or free_port(host)
        self.password = password or secrets.token_urlsafe(18)
        self.version = version
        self.os_user = os_user if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name

    # --- layout ---------------------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "run"

    @property
    def log_path(self) -> Path:
        """The CSV log pgaudit writes into (a fixed name: no rotation during a run)."""
        return self.data_dir / "log" / "postgresql.csv"

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "postmaster.pid"

    def info(self) -> ClusterInfo:
        return ClusterInfo(self.host, self.port, SUPERUSER, self.password, str(self.root))

    # --- lifecycle ------------------------------------------------------------------------------
    def init(self) -> None:
        """initdb, then the settings pgaudit and the CSV log need; the folder must not hold a cluster yet."""
        if not pgaudit_installed(self.version):
            raise ClusterError(f"PostgreSQL {self.version} with pgaudit is not installed (Debian packages "
                               f"postgresql-{self.version}, postgresql-{self.version}-pgaudit, postgresql-contrib)")
        if self.data_dir.exists():
            raise ClusterError(f"{self.data_dir} already exists: a cluster is made in a fresh folder")
        self.root.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(exist_ok=True)
        password_file = self.root / "initdb.pw"
        password_file.write_text(self.password + "\n", encoding="utf-8")
        self._hand_over(self.root)
        try:
            self._run([str(bin_dir(self.version) / "initdb"), "-D", str(self.data_dir), "-U", SUPERUSER,
                       "--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={password_file}",
                       "--encoding=UTF8", "--locale=C.UTF-8"], "initdb")
        finally:
            password_file.unlink(missing_ok=True)
        with (self.data_dir / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(self.settings())

    def settings(self) -> str:
        """postgresql.conf additions: loopback only, pgaudit on DDL/role/write, one CSV log file."""
        return "\n".join([
            "# consoleagent: a private cluster for the pgAdmin console backend",
            f"listen_addresses = '{self.host}'",
            f"port = {self.port}",
            f"unix_socket_directories = '{self.socket_dir}'",
            "shared_preload_libraries = 'pgaudit'",
            f"pgaudit.log = '{AUDIT_CLASSES}'",
            "pgaudit.log_level = 'log'",
            "pgaudit.log_parameter = off",
            "log_destination = 'csvlog'",
            "logging_collector = on",
            "log_directory = 'log'",
            "log_filename = 'postgresql.log'",  # csvlog writes postgresql.csv beside it
            "log_rotation_age = 0",
            "log_rotation_size = 0",
            "log_timezone = 'UTC'",
            "log_min_error_statement = error",  # a failed statement's ERROR line names it: the record's errorCode
            "fsync = off",  # a scratch cluster: durability is not worth the time
            "synchronous_commit = off",
            "full_page_writes = off",
            "wal_level = logical",  # publications and subscriptions need it
            "max_replication_slots = 10",
            "max_wal_senders = 10",
            "",
        ])

    def start(self, timeout_s: float = 60) -> None:
        self._run([str(bin_dir(self.version) / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.root / "server.log"),
                   "-w", "-t", str(int(timeout_s)), "start"], "pg_ctl start")

    def stop(self, timeout_s: float = 60) -> None:
        """Stop the server of this data directory (pg_ctl reads its postmaster.pid); a stopped one is fine."""
        if not self.pid_file.exists():
            return
        self._run([str(bin_dir(self.version) / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w",
                   "-t", str(int(timeout_s)), "stop"], "pg_ctl stop")

    def pid(self) -> int | None:
        """The postmaster's PID from its PID file, or None when there is none (a stopped server removes it)."""
        return read_pid(self.pid_file)

    def running(self) -> bool:
        return file_process_alive(self.pid_file)

    def remove(self) -> None:
        """Delete the cluster's folder (stop it first)."""
        if self.running():
            raise ClusterError(f"the cluster in {self.root} is still running")
        shutil.rmtree(self.root, ignore_errors=True)

    # --- clients --------------------------------------------------------------------------------
    def connect(self, dbname: str = "postgres", *, application_name: str = PROVISIONER_APPLICATION,
                autocommit: bool = True) -> Any:
        """A psycopg connection as the superuser over loopback (what pgAdmin uses too)."""
        try:
            import psycopg
        except ImportError as exc:  # the `postgres` extra
            raise ClusterError("the pgAdmin backend needs psycopg: pip install 'consoleagent[postgres]'") from exc
        return psycopg.connect(host=self.host, port=self.port, user=SUPERUSER, password=self.password, dbname=dbname,
                               application_name=application_name, autocommit=autocommit, connect_timeout=10)

    def execute(self, sql: str, params: Any = None, *, dbname: str = "postgres",
                application_name: str = PROVISIONER_APPLICATION) -> list[tuple[Any, ...]]:
        """Run one statement (autocommit) and return its rows (empty for statements without any)."""
        with self.connect(dbname, application_name=application_name) as conn, conn.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

    def psql(self, sql: str, *, dbname: str = "postgres", application_name: str = "psql") -> subprocess.CompletedProcess:
        """Run SQL through the real psql client over loopback (a client other than pgAdmin)."""
        env = {**os.environ, "PGPASSWORD": self.password, "PGAPPNAME": application_name}
        return subprocess.run([str(bin_dir(self.version) / "psql"), "-X", "-v", "ON_ERROR_STOP=1", "-h", self.host,
                               "-p", str(self.port), "-U", SUPERUSER, "-d", dbname, "-c", sql],
                              env=env, capture_output=True, text=True, timeout=60)

    # --- helpers --------------------------------------------------------------------------------
    def _hand_over(self, path: Path) -> None:
        """Give the cluster's folder to the user the server runs as (only when we are root)."""
        if os.geteuid() != 0:
            return
        user = pwd.getpwnam(self.os_user)
        for item in [path, *path.rglob("*")]:
            os.chown(item, user.pw_uid, user.pw_gid)
        path.chmod(0o700)

    def _run(self, argv: list[str], what: str) -> None:
        if os.geteuid() == 0:
            argv = ["runuser", "-u", self.os_user, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd="/")
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise ClusterError(f"{what} failed in {self.root} (exit {done.returncode}): {' | '.join(detail)}")
