"""The console backend seam end to end: adding a console is adding one package.

A third console, ``tinyconsole``, is written by this test as one package (its backend, a tiny real
HTTP console served with the standard library's http.server, an audit list, one task file and its
document) into a folder the registry searches. Nothing else of consoleagent changes, yet
``consoleagent bench`` runs it in real Chromium and judges the episode from its audit records. The
same console described by a YAML file (``--console console.yaml``) runs too. And ``--console
pgadmin`` is accepted by run, bench, verify and tasks (these checks need no PostgreSQL).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import consoleagent.consoles as consoles
from consoleagent.bench.harness import BenchConfig, BenchConfigError, run_bench
from consoleagent.cli import app
from consoleagent.consoles import backend_names, get_backend, resolve_backend
from consoleagent.consoles.configured import ConsoleFileError, load_console_file
from consoleagent.suite.catalog import load_suite

# The whole third console: a page with a form, a POST that creates a widget and appends an audit
# record in our format, and the backend that starts it, signs in (no sign-in) and reads the records.
CONSOLE_PACKAGE = '''
"""tinyconsole: a widget console, to show that a console is one package."""

import json
import threading
from datetime import datetime, timezone
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

from consoleagent.adapters.base import Credentials
from consoleagent.consoles.base import EpisodeHandle, GroundTruth, utc_now
from consoleagent.provisioning.templates import TemplateLibrary

HERE = Path(__file__).parent


def serve():
    """Start the console on a free loopback port; returns (server, its records list)."""
    records, widgets = [], []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status, body, kind="text/html"):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.startswith("/audit.json"):
                return self._send(200, json.dumps(records), "application/json")
            items = "".join(f"<li>{escape(w)}</li>" for w in widgets)
            self._send(200, "<!doctype html><html><head><title>Widgets</title></head><body><main><h1>Widgets</h1>"
                            '<form method="post" action="/widgets"><label for="n">Widget name</label>'
                            '<input id="n" name="name"><button type="submit">Create widget</button></form>'
                            f"<ul>{items}</ul></main></body></html>")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            name = parse_qs(self.rfile.read(length).decode()).get("name", [""])[0]
            widgets.append(name)
            now = datetime.now(timezone.utc)
            records.append({"eventId": f"e{len(records)}", "eventType": "ApiCall", "actor": "console",
                            "eventName": "CreateWidget", "serviceName": "widgets",
                            "eventTime": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
                            "userIdentity": {"accountId": "tiny"}, "requestParameters": {"Name": name}})
            self.send_response(303)
            self.send_header("Location", "/")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, records


class TinyBackend:
    name = "tinyconsole"
    release = "1"

    def __init__(self):
        self.server = None
        self.records = []

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self):
        if self.server is None:
            self.server, self.records = serve()

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def wait_ready(self, page, timeout_s=60.0):
        page.wait_for_load_state("load")

    def credentials(self):
        return Credentials("", "", extra={"account_id": "tiny", "since": utc_now()})

    def login(self, page, credentials):
        page.goto(self.base_url + "/")

    def is_signed_out(self, url):
        return False

    def begin_episode(self, task_id, requirements):
        credentials = self.credentials()
        return EpisodeHandle(credentials, since=credentials.extra["since"])

    def end_episode(self, episode):
        pass

    def audit_records(self, since=None, until=None, principal=None):
        return [r for r in self.records if (not since or r["eventTime"] >= since) and (not until or r["eventTime"] <= until)]

    def read_state(self, credentials):
        return None

    @classmethod
    def template_library(cls):
        return TemplateLibrary()

    def provisioner(self):
        return None

    def ground_truth(self):
        return None

    @property
    def tasks_root(self):
        return HERE / "tasks"

    @property
    def documents_root(self):
        return HERE / "documents"


BACKEND = TinyBackend
'''

DOCUMENT = """\
---
id: tiny-create-widget
product: widgets
release: "1"
---
# Create a widget

## Procedure

1. In **Widget name**, enter the widget's name.
2. Click **Create widget**.
"""

TASK = """\
id: tiny-widget-create-01
console: {console}
product: widgets
difficulty: standard
split: test
document: create-widget.md
release: "1"
goal: Create a widget named sprocket.
start_url: /
reward:
  expect:
    - event: CreateWidget
      service: widgets
      params:
        Name: sprocket
oracle:
  - type: {{role: textbox, name: Widget name}}
    text: sprocket
  - click: {{role: button, name: Create widget}}
  - wait_until: {{text: sprocket}}
  - task_complete: created the widget sprocket
"""


def _console_package(root: Path, console: str = "tinyconsole") -> Path:
    package = root / "tinyconsole"
    (package / "tasks").mkdir(parents=True)
    (package / "documents").mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(CONSOLE_PACKAGE), encoding="utf-8")
    (package / "documents" / "create-widget.md").write_text(DOCUMENT, encoding="utf-8")
    (package / "tasks" / "tiny-widget-create-01.yaml").write_text(TASK.format(console=console), encoding="utf-8")
    return package


@pytest.fixture
def tiny_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The third console's package, in a folder the registry searches (as if installed under consoles/)."""
    extra = tmp_path / "more-consoles"
    package = _console_package(extra)
    monkeypatch.setattr(consoles, "__path__", [*consoles.__path__, str(extra)])
    yield package
    import sys

    sys.modules.pop("consoleagent.consoles.tinyconsole", None)


def test_the_registry_finds_a_console_package_that_nothing_else_names(tiny_console: Path) -> None:
    assert {"stratus", "pgadmin", "tinyconsole"} <= set(backend_names())
    backend = get_backend("tinyconsole")
    assert backend.name == "tinyconsole" and backend.tasks_root == tiny_console / "tasks"


def test_bench_runs_and_judges_a_console_added_as_one_package(tiny_console: Path, tmp_path: Path,
                                                              playwright_instance: Any) -> None:
    tasks = load_suite(None, tiny_console / "tasks")
    results = run_bench(BenchConfig(tmp_path / "oracle", policy="oracle", runs=1, plots=False, console="tinyconsole"),
                        tasks, playwright=playwright_instance)
    assert results["summary"]["passed"] == 1, json.dumps(results["summary"], default=str)
    assert results["console"].startswith("tinyconsole at http://127.0.0.1:")


def test_a_scripted_policy_that_does_nothing_earns_no_reward(tiny_console: Path, tmp_path: Path,
                                                             playwright_instance: Any) -> None:
    """The judge reads the console's audit list: an agent that only claims success fails."""
    tasks = load_suite(None, tiny_console / "tasks")
    results = run_bench(BenchConfig(tmp_path / "idle", policy="scripted", runs=1, plots=False, console="tinyconsole",
                                    policy_options={"actions": []}), tasks, playwright=playwright_instance)
    assert results["summary"]["passed"] == 0
    assert results["summary"]["env_errors"]["episodes"] == 0


def test_tasks_of_another_console_are_refused(tiny_console: Path, tmp_path: Path) -> None:
    tasks = load_suite(None, tiny_console / "tasks")
    with pytest.raises(BenchConfigError, match="tasks are for console.*tinyconsole.*on stratus"):
        run_bench(BenchConfig(tmp_path / "wrong", policy="oracle", runs=1, plots=False), tasks)


def _console_file(tmp_path: Path, url: str) -> Path:
    package = _console_package(tmp_path / "described", console="widgets-yaml")
    path = tmp_path / "console.yaml"
    path.write_text(f"name: widgets-yaml\nurl: {url}\nrelease: '1'\nlogin: none\naccount: tiny\n"
                    f"audit: {{kind: http-json, url: {url}/audit.json}}\n"
                    f"tasks_root: {package.relative_to(tmp_path)}/tasks\n"
                    f"documents_root: {package.relative_to(tmp_path)}/documents\n", encoding="utf-8")
    return path


def test_bench_runs_a_console_described_by_a_yaml_file(tiny_console: Path, tmp_path: Path,
                                                       playwright_instance: Any) -> None:
    """The same console, served by the test and described by URL + login + audit source."""
    from consoleagent.consoles.tinyconsole import serve

    server, _records = serve()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        path = _console_file(tmp_path, url)
        backend = resolve_backend(str(path))
        tasks = load_suite(None, backend.tasks_root)
        results = run_bench(BenchConfig(tmp_path / "yaml", policy="oracle", runs=1, plots=False, console=str(path)),
                            tasks, playwright=playwright_instance)
    finally:
        server.shutdown()
        server.server_close()
    assert results["summary"]["passed"] == 1, json.dumps(results["summary"], default=str)


@pytest.mark.parametrize("text, problem", [
    ("url: http://x\n", "name: required"),
    ("name: a\nurl: ftp://x\n", "url: 'ftp://x' is not an http"),
    ("name: a\nurl: http://x\naudit: {kind: syslog}\n", "audit: kind must be one of"),
    ("name: a\nurl: http://x\nlogin: {username_label: Name}\n", "login: username is required"),
    ("name: a\nurl: http://x\ncolour: red\n", "unknown key.*colour"),
    ("name: a\nurl: http://x\naudit: {kind: jsonl, path: a.jsonl}\n", "account: required with an audit source"),
])
def test_a_bad_console_file_names_the_file_and_the_key(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConsoleFileError, match=problem) as caught:
        load_console_file(path)
    assert str(path) in str(caught.value)


# --- --console pgadmin is accepted (no PostgreSQL needed: each stops before starting the console) -------

runner = CliRunner()


def test_tasks_list_reads_the_pgadmin_backends_own_tasks() -> None:
    result = runner.invoke(app, ["tasks", "list", "--console", "pgadmin", "--json"])
    assert result.exit_code == 0, result.output
    consoles_named = {json.loads(line)["console"] for line in result.output.splitlines() if line.startswith("{")}
    assert consoles_named == {"pgadmin"}


def test_tasks_validate_checks_the_pgadmin_tasks_against_their_backend() -> None:
    result = runner.invoke(app, ["tasks", "validate", "--console", "pgadmin"])
    assert result.exit_code == 0, result.output
    assert "task files valid" in result.output


@pytest.mark.parametrize("command", [["bench", "--policy", "oracle", "--no-plots"], ["verify", "README.md"],
                                     ["run", "--task", "pgadmin-cast-create-01"]])
def test_stratus_connection_flags_are_refused_for_pgadmin(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--console", "pgadmin", "--url", "http://127.0.0.1:9", "--admin-token", "t"])
    said = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "--console pgadmin" in said and "console up pgadmin" in said


def test_run_names_the_pgadmin_tasks_when_the_task_is_unknown() -> None:
    result = runner.invoke(app, ["run", "--console", "pgadmin", "--task", "no-such-task", "--policy", "oracle"])
    assert result.exit_code == 2, result.output
    assert "no such task of console pgadmin" in " ".join(result.output.split())


@pytest.mark.parametrize(("policy", "said"), [("nosuch", "unknown policy 'nosuch'"), ("llm", "needs option(s): model")])
def test_console_check_refuses_a_policy_it_cannot_build_before_starting_the_console(policy: str, said: str) -> None:
    result = runner.invoke(app, ["console", "check", "pgadmin", "--policy", policy])
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split())


def test_an_unknown_console_is_a_clear_error() -> None:
    result = runner.invoke(app, ["bench", "--console", "nosuch", "--policy", "oracle", "--no-plots"])
    assert result.exit_code == 2, result.output
    assert "unknown console 'nosuch'" in " ".join(result.output.split())


# --- run --task: the judge's verdict, never an unverified "completed" ------------------------------------


def test_run_with_a_task_prints_what_the_judge_decided(tmp_path: Path) -> None:
    """A stratus suite task played by its oracle in an in-process stratus, judged from the audit log."""
    import subprocess
    import sys

    # a subprocess, as from a shell: this test process may already hold a Playwright (one per thread)
    result = subprocess.run([sys.executable, "-m", "consoleagent", "run", "--task", "vpc-create-vpc-01", "--policy", "oracle",
                             "--no-screenshots", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    said = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "judged: goal reached" in said and "from the audit log" in said
    assert "not verified" not in said


def test_the_oracle_needs_a_task() -> None:
    result = runner.invoke(app, ["run", "--goal", "Create a VPC named x", "--policy", "oracle"])
    assert result.exit_code == 2
    assert "pass --task" in " ".join(result.output.split())
