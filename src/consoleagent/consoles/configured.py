"""A console described by a YAML file instead of a package: URL, sign-in, audit source, tasks.

For a console we neither start nor reset (a staging site, a vendor's sandbox) this is enough to run
``run``, ``bench`` and ``verify`` against it: the episodes run one at a time on the one account
given, nothing is provisioned (tasks must have no ``requires:``), and the reward rules read the
audit records the file's ``audit`` names. Everything else the seam offers (reset, templates, a
changelog) needs a backend package. The format (docs/formats.md, "Console file")::

    name: intranet-admin            # required: tasks name it as their console
    url: http://127.0.0.1:8080      # required: the console's address
    release: "4.2"                  # optional (default "unversioned"): tasks name it as their release
    login: none                     # or a form found by its labels:
    #   path: /login                #   the sign-in page (default /login)
    #   username_label: Login name  #   the labels of its fields and the submit button's name
    #   password_label: Password
    #   submit: Sign in
    #   username: alice
    #   password_env: CONSOLE_PASSWORD   # the password is read from this environment variable
    audit:
      kind: http-json               # GET url -> a JSON list (or {"records": [...]}) of audit records
      url: http://127.0.0.1:8080/audit.json
    # audit: {kind: jsonl, path: audit.jsonl}  # a file of records, one JSON object a line
    # audit: {kind: none}                      # no audit: episodes are run but never judged
    account: "1234"                 # with an audit source: the userIdentity.accountId of the login's
                                    #   records (only those count towards a reward)
    ready_text: Dashboard           # optional: a page is usable once its text contains this
    tasks_root: tasks               # optional: task files, relative to this YAML file
    documents_root: documents       # optional: the documents those tasks follow

Records are in our audit format (docs/formats.md, "Audit record"); a record's ``eventTime``
(``YYYY-MM-DDTHH:MM:SS[.mmm]Z``) places it in an episode's window.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from consoleagent.adapters.base import Credentials, FormLogin
from consoleagent.consoles.base import EpisodeHandle, GroundTruth, ReadState, Record, utc_now
from consoleagent.provisioning.types import Requirement

AUDIT_KINDS = ("http-json", "jsonl", "none")
KEYS = {"name", "url", "release", "login", "audit", "account", "ready_text", "tasks_root", "documents_root"}
LOGIN_KEYS = {"path", "username_label", "password_label", "submit", "username", "password_env"}


class ConsoleFileError(ValueError):
    """The console file is not usable; the message names the file and the key."""


@dataclass
class ConsoleFile:
    path: Path
    name: str
    url: str
    release: str = "unversioned"
    login: dict[str, str] | None = None
    audit: dict[str, str] = field(default_factory=lambda: {"kind": "none"})
    ready_text: str | None = None
    account: str | None = None
    tasks_root: Path | None = None
    documents_root: Path | None = None


def load_console_file(path: str | Path) -> ConsoleFile:
    """Read and check a console file (every problem names the file and the key)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConsoleFileError(f"{path}: cannot read the console file ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise ConsoleFileError(f"{path}: not YAML ({exc})") from exc
    if not isinstance(data, dict):
        raise ConsoleFileError(f"{path}: a console file is a mapping (name, url, login, audit, ...)")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ConsoleFileError(f"{path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(KEYS))}")
    for key in ("name", "url"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ConsoleFileError(f"{path}: {key}: required, a non-empty string")
    if not data["url"].startswith(("http://", "https://")):
        raise ConsoleFileError(f"{path}: url: {data['url']!r} is not an http(s) URL")
    here = path.parent
    audit = _audit(path, data.get("audit"), here)
    if audit["kind"] != "none" and data.get("account") is None:
        raise ConsoleFileError(f"{path}: account: required with an audit source (the accountId of the login's "
                               "records: only those count towards a reward)")
    return ConsoleFile(path, data["name"], data["url"].rstrip("/"), str(data.get("release", "unversioned")),
                       _login(path, data.get("login")), audit, data.get("ready_text"),
                       str(data["account"]) if data.get("account") is not None else None,
                       _folder(here, data.get("tasks_root")), _folder(here, data.get("documents_root")))


def _login(path: Path, value: Any) -> dict[str, str] | None:
    if value in (None, "none"):
        return None
    if not isinstance(value, dict):
        raise ConsoleFileError(f"{path}: login: 'none' or a mapping of {', '.join(sorted(LOGIN_KEYS))}")
    unknown = sorted(set(value) - LOGIN_KEYS)
    if unknown:
        raise ConsoleFileError(f"{path}: login: unknown key(s) {', '.join(unknown)}")
    if not value.get("username"):
        raise ConsoleFileError(f"{path}: login: username is required for a form login")
    if value.get("password_env") and value["password_env"] not in os.environ:
        raise ConsoleFileError(f"{path}: login: password_env names {value['password_env']!r}, which is not set")
    return {k: str(v) for k, v in value.items()}


def _audit(path: Path, value: Any, here: Path) -> dict[str, str]:
    if value is None:
        return {"kind": "none"}
    if not isinstance(value, dict) or value.get("kind") not in AUDIT_KINDS:
        raise ConsoleFileError(f"{path}: audit: kind must be one of {', '.join(AUDIT_KINDS)}")
    if value["kind"] == "http-json" and not str(value.get("url", "")).startswith(("http://", "https://")):
        raise ConsoleFileError(f"{path}: audit: kind http-json needs url (an http(s) URL)")
    if value["kind"] == "jsonl":
        if not value.get("path"):
            raise ConsoleFileError(f"{path}: audit: kind jsonl needs path")
        value = {**value, "path": str(here / value["path"])}
    return {k: str(v) for k, v in value.items()}


def _folder(here: Path, value: Any) -> Path | None:
    return (here / str(value)).resolve() if value else None


class ConfiguredBackend:
    """The seam over a :class:`ConsoleFile`: connect only, one account, no reset, no provisioning."""

    def __init__(self, console: ConsoleFile) -> None:
        self.file = console
        self.name = console.name
        self.release = console.release

    @classmethod
    def from_file(cls, path: str | Path) -> "ConfiguredBackend":
        return cls(load_console_file(path))

    @property
    def base_url(self) -> str:
        return self.file.url

    def start(self) -> None:
        """Connect: the console must answer at its URL."""
        import httpx2

        try:
            httpx2.get(self.file.url, timeout=10.0, follow_redirects=True)
        except httpx2.HTTPError as exc:
            raise ConnectionError(f"{self.file.path}: url {self.file.url} does not answer ({exc})") from exc

    def stop(self) -> None:
        """Nothing was started."""

    def describe(self) -> str:
        return f"{self.name} at {self.base_url} ({self.file.path.name})"

    def wait_ready(self, page: Any, timeout_s: float = 60.0) -> None:
        page.wait_for_load_state("load", timeout=timeout_s * 1000)
        if self.file.ready_text:
            page.get_by_text(self.file.ready_text).first.wait_for(timeout=timeout_s * 1000)

    def credentials(self) -> Credentials:
        login = self.file.login or {}
        password = os.environ.get(login.get("password_env", ""), "") if login else ""
        extra: dict[str, Any] = {"since": utc_now()}
        if self.file.account is not None:  # the judge counts only this account's records
            extra["account_id"] = self.file.account
        return Credentials(login.get("username", ""), password, extra=extra)

    def login(self, page: Any, credentials: Credentials) -> None:
        login = self.file.login
        if login is None:
            page.goto(self.base_url + "/")
        else:
            FormLogin(path=login.get("path", "/login"), username_label=login.get("username_label", "Login name"),
                      password_label=login.get("password_label", "Password"), submit_name=login.get("submit", "Sign in"),
                      success_url_excludes=login.get("path", "/login"))(page, self.base_url, credentials)
        self.wait_ready(page)

    def is_signed_out(self, url: str) -> bool:
        login = self.file.login
        return login is not None and login.get("path", "/login") in url.split("?", 1)[0]

    def begin_episode(self, task_id: str, requirements: list[Requirement]) -> EpisodeHandle:
        if requirements:
            raise ValueError(f"{self.file.path}: console {self.name} provisions nothing, but task {task_id} requires "
                             f"{', '.join(r.name for r in requirements)}")
        credentials = self.credentials()
        credentials.extra["task_id"] = task_id
        return EpisodeHandle(credentials, since=credentials.extra["since"], reset_source="none")

    def end_episode(self, episode: EpisodeHandle) -> None:
        """No reset: the console is as the episode left it."""

    def audit_records(self, since: str | None = None, until: str | None = None,
                      principal: str | None = None) -> list[Record]:
        records = self._read_audit()
        return [r for r in records if (not since or str(r.get("eventTime", "")) >= since)
                and (not until or str(r.get("eventTime", "")) <= until)]

    def _read_audit(self) -> list[Record]:
        audit = self.file.audit
        if audit["kind"] == "none":
            return []
        if audit["kind"] == "jsonl":
            lines = Path(audit["path"]).read_text(encoding="utf-8").splitlines() if Path(audit["path"]).exists() else []
            return [json.loads(line) for line in lines if line.strip()]
        import httpx2

        data = httpx2.get(audit["url"], timeout=10.0).json()
        records = data.get("records", []) if isinstance(data, dict) else data
        if not isinstance(records, list):
            raise ValueError(f"{self.file.path}: audit url {audit['url']} returned no list of records")
        return sorted(records, key=lambda r: str(r.get("eventTime", "")))

    def read_state(self, credentials: Credentials | None) -> ReadState | None:
        return None

    @classmethod
    def template_library(cls) -> Any:
        from consoleagent.provisioning.templates import TemplateLibrary

        return TemplateLibrary()

    def provisioner(self) -> Any:
        from consoleagent.provisioning.engine import ProvisioningEngine

        return ProvisioningEngine(self.template_library())

    def ground_truth(self) -> GroundTruth | None:
        return None

    @property
    def tasks_root(self) -> Path | None:
        return self.file.tasks_root

    @property
    def documents_root(self) -> Path | None:
        return self.file.documents_root
