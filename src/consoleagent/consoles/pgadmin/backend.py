"""The pgAdmin 4 console backend: PostgreSQL 15 + pgaudit in a scratch cluster, pgAdmin in desktop mode.

``start()`` makes everything in a fresh scratch folder (or attaches to what ``consoleagent console
up pgadmin`` left running, given its state file); ``stop()`` stops exactly what it started. Every
episode works in the database ``demo``, which ``begin_episode`` drops and clones again from
``template1`` (where pgaudit is installed), after removing the roles, databases and pgAdmin
server registrations an earlier episode added; then the task's requirements are provisioned with
SQL. The agent's work is read back from pgaudit's CSV log.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from consoleagent.adapters.base import Credentials
from consoleagent.consoles.base import EpisodeHandle, GroundTruth, ReadState, Record, utc_now
from consoleagent.consoles.pgadmin.audit import PgAuditSource, database_refused, pgadmin_error, read_rows
from consoleagent.consoles.pgadmin.cluster import PostgresCluster
from consoleagent.consoles.pgadmin.install import PGADMIN_VERSION, ensure_installed, venv_dir
from consoleagent.consoles.pgadmin.server import SERVER_NAME, PgAdminServer
from consoleagent.consoles.pgadmin.templates import WORK_DATABASE, SqlClient, pgadmin_library
from consoleagent.provisioning.types import PooledAccount, Requirement

PACKAGE_DIR = Path(__file__).parent
# The splash is gone and the Object Explorer shows its root ("Servers", the server group).
READY_SCRIPT = ("() => !!document.body && !document.body.innerText.includes('Loading pgAdmin') "
                "&& document.body.innerText.includes('Servers')")
REFUSAL_LOOKS, REFUSAL_WAIT_S = 10, 0.1  # how long a refusal's ERROR line may take to reach the log


class PgAdminBackend:
    """pgAdmin 4 (release pin ``9.18``) in front of a private PostgreSQL 15 cluster with pgaudit."""

    name = "pgadmin"
    release = PGADMIN_VERSION

    def __init__(self, *, scratch: Path | None = None, state: Path | None = None, install: bool = True,
                 server_name: str = SERVER_NAME) -> None:
        self._scratch_arg = Path(scratch) if scratch else None
        self._state_path = Path(state) if state else None  # attach to a console started by `console up`
        self.install = install
        self.server_name = server_name
        self.scratch: Path | None = None
        self.cluster: PostgresCluster | None = None
        self.server: PgAdminServer | None = None
        self._owned = False
        self._baseline: dict[str, list[Any]] = {}

    # --- reach the console ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self.server is None:
            raise RuntimeError("the pgAdmin backend is not started")
        return self.server.base_url

    @property
    def account_id(self) -> str:
        return f"pgadmin@{self.cluster.port}" if self.cluster else "pgadmin"

    def start(self) -> None:
        if self.server is not None:
            return
        if self._state_path is not None:
            self._attach(json.loads(self._state_path.read_text(encoding="utf-8")))
            return
        venv = ensure_installed(self.release) if self.install else venv_dir(self.release)
        self.scratch = self._scratch_arg or Path(tempfile.mkdtemp(prefix="consoleagent-pgadmin-"))
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.scratch.chmod(0o711)  # the postgres user must reach its own subfolder
        self._owned = True
        try:
            self.cluster = PostgresCluster(self.scratch / "pg")
            self.cluster.init()
            self.cluster.start()
            for database in ("template1", "postgres"):  # new databases inherit pgaudit's DDL event triggers
                self.cluster.execute("CREATE EXTENSION IF NOT EXISTS pgaudit", dbname=database)
            self.cluster.execute(f'CREATE DATABASE "{WORK_DATABASE}"')
            self.server = PgAdminServer(self.scratch / "pgadmin", venv)
            self.server.configure(self.cluster.info(), server_name=self.server_name)
            self.server.start()
            self.server.wait_http()
            self._baseline = self._snapshot_globals()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop what ``start`` started (through PID files) and delete the scratch folder; attached: nothing."""
        if not self._owned:
            self.server = self.cluster = None
            return
        errors = []
        if self.server is not None:
            try:
                self.server.stop()
            except Exception as exc:  # keep going: the cluster must still be stopped
                errors.append(f"pgAdmin: {exc}")
        if self.cluster is not None:
            try:
                self.cluster.stop()
            except Exception as exc:
                errors.append(f"PostgreSQL: {exc}")
        if self.scratch is not None and not errors:
            shutil.rmtree(self.scratch, ignore_errors=True)
        self.server = self.cluster = None
        self._owned = False
        if errors:
            raise RuntimeError(f"stopping pgAdmin left processes behind ({'; '.join(errors)}); scratch kept: {self.scratch}")

    def wait_ready(self, page: Any, timeout_s: float = 60.0) -> None:
        """pgAdmin shows a "Loading pgAdmin 4..." splash over the page until its app has started."""
        page.wait_for_function(READY_SCRIPT, timeout=timeout_s * 1000)

    def credentials(self) -> Credentials:
        """Desktop mode has no sign-in; the desktop key keeps other local users out."""
        return Credentials("", "", extra={"account_id": self.account_id, "since": utc_now()})

    def login(self, page: Any, credentials: Credentials) -> None:
        """Hand the browser the desktop key as pgAdmin's own cookie (never in a URL, so it stays out of
        observations and trajectories), open the Object Explorer and wait out the splash.

        pgAdmin's first page load parses megabytes of script: on a loaded machine it takes a minute,
        so the timeouts are generous. Tasks start at ``/browser/#tree``: the same document, so the
        environment's navigation to the start page does not load pgAdmin a second time."""
        page.context.add_cookies([{"name": "PGADMIN_INT_KEY", "value": self.server.key, "url": self.base_url}])
        page.goto(f"{self.base_url}/browser/", timeout=180_000, wait_until="load")
        self.wait_ready(page, timeout_s=180.0)

    def is_signed_out(self, url: str) -> bool:
        return False  # nothing to sign out of in desktop mode

    # --- episodes ------------------------------------------------------------------------------------
    def begin_episode(self, task_id: str, requirements: list[Requirement]) -> EpisodeHandle:
        started = time.monotonic()
        self.reset()
        provisioned = self.provisioner().provision(self._account(), requirements)
        seconds = time.monotonic() - started
        since = utc_now()  # after set-up: only what happens from here on is the agent's
        credentials = Credentials("", "", extra={"account_id": self.account_id, "since": since, "task_id": task_id})
        return EpisodeHandle(credentials, provisioned.outputs, provisioned.report(), since, "template-clone",
                             seconds, provisioned)

    def end_episode(self, episode: EpisodeHandle) -> None:
        """Nothing to undo now: the next ``begin_episode`` resets the database and the globals."""

    def reset(self) -> float:
        """Back to the starting state; returns the seconds it took.

        pgAdmin's connections are closed, the work database is dropped and cloned from
        ``template1``; roles, databases and replication slots that appeared since ``start`` are
        removed, and so are pgAdmin server groups and servers registered since then; pgAdmin's per-user
        settings are put back as they were at ``start``.
        """
        started = time.monotonic()
        cluster = self._require_cluster()
        # pgAdmin keeps each browser session's connections (the maintenance database's among them) until
        # the session expires, and every episode is a new session: close the last episode's, or about a
        # hundred episodes in the cluster refuses everyone ("too many clients already").
        cluster.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                        "WHERE application_name LIKE 'pgAdmin 4%' AND pid <> pg_backend_pid()")
        self._drop_subscriptions()
        cluster.execute(f'DROP DATABASE IF EXISTS "{WORK_DATABASE}" WITH (FORCE)')
        now = self._snapshot_globals()
        for database in set(now["databases"]) - set(self._baseline["databases"]):
            self._drop_subscriptions(database)
            cluster.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        for slot in set(now["slots"]) - set(self._baseline["slots"]):
            cluster.execute("SELECT pg_drop_replication_slot(%s) WHERE EXISTS (SELECT 1 FROM pg_replication_slots "
                            "WHERE slot_name = %s AND NOT active)", (slot, slot))
        for role in set(now["roles"]) - set(self._baseline["roles"]):
            cluster.execute(f'DROP OWNED BY "{role}"')
            cluster.execute(f'DROP ROLE IF EXISTS "{role}"')
        cluster.execute(f'CREATE DATABASE "{WORK_DATABASE}" TEMPLATE template1')
        self._reset_registrations()
        self._reset_settings()
        self._disconnect_servers()
        if self.server is not None:  # files an episode wrote or was given (backups, CSVs) go too
            for item in self.server.storage_dir.iterdir():
                if item.is_file():
                    item.unlink()
        return time.monotonic() - started

    def _disconnect_servers(self) -> None:
        """Every episode starts with the registered servers disconnected and the tree collapsed, as
        pgAdmin starts: its connections and its saved tree state are shared by every browser session of
        the desktop user, so otherwise the tree would open differently after an episode that connected."""
        if self.server is None:
            return
        from consoleagent.consoles.pgadmin.rest import PgAdminRest, PgAdminRestError

        rest = PgAdminRest(self.base_url, self.server.key)
        rest.call("DELETE", "/settings/reset_tree_state")  # pgAdmin reopens the nodes a session left expanded
        for server in self.server.servers():
            try:
                rest.call("DELETE", f"/browser/server/connect/1/{server.id}")
            except PgAdminRestError:
                pass  # not connected (or a group other than the first): nothing to undo

    def _drop_subscriptions(self, database: str = WORK_DATABASE) -> None:
        """DROP DATABASE refuses while subscriptions exist; detach each from its slot and drop it."""
        cluster = self._require_cluster()
        rows = cluster.execute("SELECT s.subname, d.datname FROM pg_subscription s JOIN pg_database d ON d.oid = s.subdbid "
                               "WHERE d.datname = %s", (database,))
        for subscription, db in rows:
            for statement in (f'ALTER SUBSCRIPTION "{subscription}" DISABLE',
                              f'ALTER SUBSCRIPTION "{subscription}" SET (slot_name = NONE)',
                              f'DROP SUBSCRIPTION "{subscription}"'):
                cluster.execute(statement, dbname=db)

    def _snapshot_globals(self) -> dict[str, list[Any]]:
        cluster = self._require_cluster()
        return {"roles": [r[0] for r in cluster.execute("SELECT rolname FROM pg_roles")],
                "databases": [r[0] for r in cluster.execute("SELECT datname FROM pg_database")] + [WORK_DATABASE],
                "slots": [r[0] for r in cluster.execute("SELECT slot_name FROM pg_replication_slots")],
                "servers": [s.id for s in self.server.servers()] if self.server else [],
                "groups": self.server.server_groups() if self.server else [],
                "settings": self.server.settings() if self.server else []}

    def _reset_registrations(self) -> None:
        """Remove the server groups and servers registered during an episode from pgAdmin's database."""
        if self.server is None or not self._baseline.get("servers"):
            return
        servers = ",".join(str(int(i)) for i in self._baseline["servers"])
        with sqlite3.connect(self.server.sqlite_path, timeout=30) as db:
            db.execute(f"DELETE FROM server WHERE id NOT IN ({servers})")
            placeholders = ",".join("?" for _ in self._baseline["groups"])
            db.execute(f"DELETE FROM servergroup WHERE name NOT IN ({placeholders})", self._baseline["groups"])

    def _reset_settings(self) -> None:
        """pgAdmin's per-user settings back to the start's: a dialog opens with the last episode's choices
        otherwise (an export's leaves the next Import/Export dialog on Export)."""
        if self.server is None or "settings" not in self._baseline:  # a state file written before settings were kept
            return
        with sqlite3.connect(self.server.sqlite_path, timeout=30) as db:
            db.execute("DELETE FROM setting")
            db.executemany("INSERT INTO setting (user_id, setting, value) VALUES (?, ?, ?)", self._baseline["settings"])

    # --- judging -------------------------------------------------------------------------------------
    def audit_records(self, since: str | None = None, until: str | None = None,
                      principal: str | None = None) -> list[Record]:
        cluster = self._require_cluster()
        pgadmin_db = self.server.sqlite_path if self.server else None
        return PgAuditSource(cluster.log_path, self.account_id, pgadmin_db).records(since, until, principal)

    def refusal(self, status: int, body: str) -> str | None:
        """pgAdmin answers a statement that PostgreSQL refused ("rules on SELECT must have action INSTEAD
        SELECT") with HTTP 500 and the error, which the dialog shows: the agent's input was wrong, so the
        episode goes on and is judged. Only an error the database's own log holds counts (read a few times:
        the log collector writes it a moment later); any other 500 stays a fault of the environment."""
        message = pgadmin_error(body) if status >= 500 else None
        if message is None or self.cluster is None:
            return None
        for _ in range(REFUSAL_LOOKS):
            text = self.cluster.log_path.read_text(encoding="utf-8", errors="replace") \
                if self.cluster.log_path.exists() else ""
            if database_refused(read_rows(text), message):
                return message
            time.sleep(REFUSAL_WAIT_S)
        return None

    def collect_audit(self, credentials: Any, console: str | None = None) -> list[Record]:
        """The episode's records (``Rollout.collect_audit`` / ``RuleJudge.collect`` signature)."""
        extra = getattr(credentials, "extra", None) or {}
        return self.audit_records(since=extra.get("since"))

    def read_state(self, credentials: Credentials | None = None) -> ReadState:
        """State checks: ``pgadmin.DescribeServers``/``DescribeServerGroups`` read pgAdmin's registrations,
        ``postgresql.Query`` runs one read-only query (``params: {sql, database}``) and returns its rows."""

        def read(product: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
            if (product, action) == ("pgadmin", "DescribeServers"):
                servers = [asdict(s) for s in self.server.servers()]
                wanted = {k.lower(): v for k, v in params.items()}
                servers = [s for s in servers if all(str(s.get(k)) == str(v) for k, v in wanted.items())]
                return {"Servers": servers, "TotalCount": len(servers)}
            if (product, action) == ("pgadmin", "DescribeServerGroups"):
                groups = self.server.server_groups()
                return {"ServerGroups": [{"name": g} for g in groups if params.get("Name", g) == g],
                        "Names": groups}
            if (product, action) == ("postgresql", "Query"):
                return {"Rows": self._read_only(str(params["sql"]), str(params.get("database", WORK_DATABASE)))}
            raise ValueError(f"the pgAdmin console has no state call {product}.{action} "
                             "(pgadmin.DescribeServers, pgadmin.DescribeServerGroups, postgresql.Query)")

        return read

    def _read_only(self, sql: str, database: str) -> list[list[Any]]:
        with self._require_cluster().connect(database, autocommit=False) as conn, conn.cursor() as cursor:
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(sql)
            rows = [list(row) for row in cursor.fetchall()] if cursor.description else []
            conn.rollback()
        return rows

    # --- provisioning, release, ground truth ---------------------------------------------------------
    @classmethod
    def template_library(cls) -> Any:
        return pgadmin_library()

    def provisioner(self) -> Any:
        from consoleagent.provisioning.engine import ProvisioningEngine

        cluster = self._require_cluster()
        files_dir = self.server.storage_dir if self.server else None
        return ProvisioningEngine(pgadmin_library(), lambda account: SqlClient(cluster, files_dir))

    def ground_truth(self) -> GroundTruth | None:
        return None  # pgAdmin publishes no machine-readable changelog of its dialogs

    @property
    def tasks_root(self) -> Path:
        return PACKAGE_DIR / "tasks"

    @property
    def documents_root(self) -> Path:
        return PACKAGE_DIR / "documents"

    # --- the `console up` state file ------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        cluster, server = self._require_cluster(), self.server
        return {"console": self.name, "release": self.release, "scratch": str(self.scratch), "base_url": self.base_url,
                "url_with_key": f"{self.base_url}/?key={server.key}",
                "cluster": {"root": str(cluster.root), "host": cluster.host, "port": cluster.port,
                            "password": cluster.password, "pid": cluster.pid()},
                "pgadmin": {"root": str(server.root), "venv": str(server.venv), "port": server.port, "key": server.key,
                            "pid": server.pid()},
                "baseline": self._baseline}

    def _attach(self, state: dict[str, Any]) -> None:
        if state.get("console") != self.name:
            raise ValueError(f"the state file is for console {state.get('console')!r}, not {self.name!r}")
        self.scratch = Path(state["scratch"])
        c, p = state["cluster"], state["pgadmin"]
        self.cluster = PostgresCluster(Path(c["root"]), port=c["port"], host=c["host"], password=c["password"])
        self.server = PgAdminServer(Path(p["root"]), Path(p["venv"]), port=p["port"], key=p["key"])
        self._baseline = state["baseline"]
        if not (self.cluster.running() and self.server.running()):
            raise RuntimeError(f"the pgAdmin console of {self.scratch} is not running (start it: consoleagent console up pgadmin)")

    def detach(self) -> None:
        """Leave the console running when this object goes (``console up``); ``stop`` then stops nothing."""
        self._owned = False

    def take_ownership(self) -> None:
        """After attaching (``console down``): make ``stop`` stop it."""
        self._owned = True

    # --- helpers ---------------------------------------------------------------------------------------
    def _require_cluster(self) -> PostgresCluster:
        if self.cluster is None:
            raise RuntimeError("the pgAdmin backend is not started")
        return self.cluster

    def _account(self) -> PooledAccount:
        return PooledAccount(self.account_id, "", "", self.base_url)

