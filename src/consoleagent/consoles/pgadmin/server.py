"""pgAdmin 4 in desktop mode, as a separate process on loopback, with one pre-registered server.

Desktop mode (``SERVER_MODE = False``) has no login: pgAdmin signs every request in as its desktop
user. To keep other local users out it is started with a desktop key (``PGADMIN_INT_KEY``), which
the browser presents once (``/?key=...``) and then carries as a cookie; requests without it get
401. Configuration goes through ``CONFIG_DISTRO_FILE_PATH`` into the scratch folder, so nothing in
the shared pgAdmin installation is written. The server is registered with ``setup.py
load-servers`` from a servers.json whose password comes from a pgpass file.

The process is started in its own session and stopped through its PID file: its process group
(pgAdmin and the utilities it spawns, such as pg_dump for a backup) is signalled, nothing by name.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from consoleagent.consoles.pgadmin.cluster import ClusterInfo, bin_dir, free_port
from consoleagent.consoles.pgadmin.install import package_dir, venv_python
from consoleagent.consoles.pgadmin.pidfile import file_process_alive, read_pid

SERVER_NAME = "PostgreSQL 15"
SERVER_GROUP = "Servers"


class PgAdminError(RuntimeError):
    """pgAdmin could not be configured, started or reached; the message says which and why."""


@dataclass
class RegisteredServer:
    """A server as pgAdmin's configuration database holds it."""

    id: int
    name: str
    group: str
    host: str
    port: int
    maintenance_db: str
    username: str
    comment: str | None


class PgAdminServer:
    """One pgAdmin process whose configuration, data and logs live under ``root``."""

    def __init__(self, root: Path, venv: Path, *, port: int | None = None, host: str = "127.0.0.1",
                 key: str | None = None) -> None:
        self.root = Path(root)
        self.venv = venv
        self.host = host
        self.port = port or free_port(host)
        self.key = key or secrets.token_urlsafe(24)

    # --- layout ---------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def storage_dir(self) -> Path:
        """pgAdmin's file storage: where backups are written and files to import or restore are read."""
        return self.data_dir / "storage"

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "pgadmin4.db"

    @property
    def pid_file(self) -> Path:
        return self.root / "pgadmin.pid"

    @property
    def log_path(self) -> Path:
        return self.root / "pgadmin.log"

    @property
    def config_path(self) -> Path:
        return self.root / "config_distro.py"

    # --- configuration --------------------------------------------------------------------------
    def configure(self, cluster: ClusterInfo, *, server_name: str = SERVER_NAME) -> None:
        """Write pgAdmin's configuration, create its database and register the cluster as one server."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o700)
        self.storage_dir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(self._config_text(), encoding="utf-8")
        pgpass = self.root / "pgpass"
        pgpass.write_text(f"{cluster.host}:{cluster.port}:*:{cluster.superuser}:{cluster.password}\n", encoding="utf-8")
        pgpass.chmod(0o600)
        servers = {"Servers": {"1": {"Name": server_name, "Group": SERVER_GROUP, "Host": cluster.host,
                                     "Port": cluster.port, "MaintenanceDB": "postgres", "Username": cluster.superuser,
                                     "PassFile": str(pgpass), "SSLMode": "disable"}}}
        servers_file = self.root / "servers.json"
        servers_file.write_text(json.dumps(servers, indent=2), encoding="utf-8")
        self._setup("setup-db")
        self._setup("load-servers", str(servers_file))
        registered = self.servers()
        if not any(s.name == server_name for s in registered):
            raise PgAdminError(f"setup.py load-servers did not register {server_name!r} in {self.sqlite_path} "
                               f"(registered: {[s.name for s in registered]}):\n{_tail(self.log_path)}")

    def _config_text(self) -> str:
        settings: dict[str, Any] = {
            "SERVER_MODE": False,
            "DATA_DIR": str(self.data_dir),
            "LOG_FILE": str(self.root / "pgadmin4.log"),
            "SQLITE_PATH": str(self.sqlite_path),
            "SESSION_DB_PATH": str(self.data_dir / "sessions"),
            "STORAGE_DIR": str(self.storage_dir),
            "MASTER_PASSWORD_REQUIRED": False,
            "UPGRADE_CHECK_ENABLED": False,
            "DEFAULT_SERVER": self.host,
            "DEFAULT_SERVER_PORT": self.port,
            "DEFAULT_BINARY_PATHS": {"pg": str(bin_dir()), "pg-15": str(bin_dir())},
            "HELP_PATH": "../../docs/en_US/_build/html/",
            "MINIFY_HTML": False,
            "CONSOLE_LOG_LEVEL": 40,
            "FILE_LOG_LEVEL": 30,
        }
        lines = ["# Written by consoleagent for one pgAdmin instance; see consoles/pgadmin/server.py"]
        lines += [f"{name} = {value!r}" for name, value in settings.items()]
        return "\n".join(lines) + "\n"

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PGADMIN_", "PYTHON", "VIRTUAL_ENV"))}
        # HOME: desktop mode resolves a bare file name (a backup's "demo.backup") against the home
        # folder; pointing it at the storage folder keeps every file an episode writes in the scratch.
        env.update(CONFIG_DISTRO_FILE_PATH=str(self.config_path), PGADMIN_SERVER_MODE="OFF",
                   PGADMIN_INT_PORT=str(self.port), PGADMIN_INT_KEY=self.key, HOME=str(self.storage_dir))
        return env

    def _setup(self, *args: str) -> None:
        argv = [str(venv_python(self.venv)), str(package_dir(self.venv) / "setup.py"), *args]
        with self.log_path.open("a", encoding="utf-8") as log:
            done = subprocess.run(argv, env=self.environment(), cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                                  timeout=300)
        if done.returncode != 0:
            raise PgAdminError(f"pgAdmin setup.py {args[0]} failed (exit {done.returncode}):\n{_tail(self.log_path)}")

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> int:
        """Start pgAdmin in its own session; returns its PID (also written to the PID file)."""
        if self.running():
            raise PgAdminError(f"pgAdmin of {self.root} is already running (pid {self.pid()})")
        argv = [str(venv_python(self.venv)), str(package_dir(self.venv) / "pgAdmin4.py")]
        with self.log_path.open("a", encoding="utf-8") as log:
            process = subprocess.Popen(argv, env=self.environment(), cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        self.pid_file.write_text(f"{process.pid}\n", encoding="utf-8")
        return process.pid

    def pid(self) -> int | None:
        return read_pid(self.pid_file)

    def running(self) -> bool:
        return file_process_alive(self.pid_file)

    def stop(self, timeout_s: float = 15) -> None:
        """Stop the process group the PID file names: SIGTERM, then SIGKILL after ``timeout_s``."""
        pid = self.pid()
        if pid is None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(pid, sig)  # started with start_new_session: its group id is its pid
            except ProcessLookupError:
                break
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and _group_alive(pid):
                time.sleep(0.1)
            if not _group_alive(pid):
                break
        _reap(pid)
        self.pid_file.unlink(missing_ok=True)

    def wait_http(self, timeout_s: float = 120) -> None:
        """Wait until pgAdmin answers its ping with the desktop key (the page itself needs the browser)."""
        deadline = time.monotonic() + timeout_s
        last = "no answer"
        while time.monotonic() < deadline:
            if not self.running():
                raise PgAdminError(f"pgAdmin exited while starting; see {self.log_path}:\n{_tail(self.log_path)}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/misc/ping?key={self.key}", timeout=5) as response:
                    if response.status == 200:
                        return
                    last = f"HTTP {response.status}"
            except (urllib.error.URLError, OSError) as exc:
                last = str(exc)
            time.sleep(0.3)
        raise PgAdminError(f"pgAdmin at {self.base_url} did not answer within {timeout_s:.0f} s ({last}); "
                           f"see {self.log_path}")

    # --- its configuration database -------------------------------------------------------------
    def servers(self) -> list[RegisteredServer]:
        """The registered servers with their groups (read straight from pgAdmin's SQLite database)."""
        rows = read_only_rows(self.sqlite_path, "SELECT s.id, s.name, g.name, s.host, s.port, s.maintenance_db, "
                              "s.username, s.comment FROM server s JOIN servergroup g ON g.id = s.servergroup_id ORDER BY s.id")
        return [RegisteredServer(*row) for row in rows]

    def settings(self) -> list[list[Any]]:
        """The per-user settings pgAdmin keeps between sessions ([user id, name, value] rows), such as the last
        Import/Export dialog's choices, which its next opening starts from."""
        return [list(row) for row in read_only_rows(self.sqlite_path,
                                                    "SELECT user_id, setting, value FROM setting ORDER BY user_id, setting")]

    def server_groups(self) -> list[str]:
        return [row[0] for row in read_only_rows(self.sqlite_path, "SELECT name FROM servergroup ORDER BY id")]


def read_only_rows(sqlite_path: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of a query on pgAdmin's configuration database, opened read-only (pgAdmin itself writes it);
    none when pgAdmin has not created it yet."""
    if not Path(sqlite_path).exists():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True, timeout=10)) as db:
        return db.execute(sql).fetchall()


def _group_alive(pgid: int) -> bool:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _reap(pid: int) -> None:
    """Collect the exit status when pgAdmin is our own child (otherwise it stays a zombie until we exit)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
