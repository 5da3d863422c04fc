"""No known admin token (issue 13, item 5): without STRATUS_ADMIN_TOKEN a server generates one on its
first start, keeps it with the database, prints it once, and refuses to listen beyond loopback."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from typer.testing import CliRunner

from stratus.app import create_app
from stratus.cli import app as cli
from stratus.config import Settings
from stratus.runtime import Runtime
from stratus.server import free_port

OLD_DEFAULT = "stratus-admin"  # the token every server used to accept when none was configured


@pytest.fixture(autouse=True)
def _no_token_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STRATUS_ADMIN_TOKEN", raising=False)


def _admin_status(http: TestClient, token: str) -> int:
    return http.get("/admin/accounts", headers={"Authorization": f"Bearer {token}"}).status_code


def test_a_token_is_generated_once_and_kept_with_the_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    first = Runtime(Settings(database_url=url))
    token = first.admin_token
    assert first.admin_token_origin == "generated" and len(token) >= 40 and token != OLD_DEFAULT
    first.close()
    assert (tmp_path / "a.db").stat().st_mode & 0o777 == 0o600  # secrets inside: owner only
    again = Runtime(Settings(database_url=url))
    assert (again.admin_token, again.admin_token_origin) == (token, "stored")
    again.close()


def test_in_memory_servers_each_get_their_own_token() -> None:
    tokens = set()
    for _ in range(2):
        app = create_app(Settings(database_url="sqlite://"))
        runtime = app.state.runtime
        with TestClient(app) as http:
            assert _admin_status(http, OLD_DEFAULT) == 403
            assert _admin_status(http, runtime.admin_token) == 200
        tokens.add(runtime.admin_token)
        runtime.close()
    assert len(tokens) == 2


def test_a_configured_token_replaces_the_stored_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    generated = Runtime(Settings(database_url=url))
    stored = generated.admin_token
    generated.close()
    app = create_app(Settings(database_url=url, admin_token="operator-chosen-token-0123"))
    with TestClient(app) as http:
        assert app.state.runtime.admin_token_origin == "configured"
        assert _admin_status(http, "operator-chosen-token-0123") == 200
        assert _admin_status(http, stored) == 403
    app.state.runtime.close()


def test_short_tokens_are_refused() -> None:
    with pytest.raises(ValidationError, match="admin_token"):
        Settings(database_url="sqlite://", admin_token="short-token")


def test_serve_refuses_a_public_address_without_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for host in ("0.0.0.0", "192.0.2.10", "stratus.example"):
        result = CliRunner().invoke(cli, ["serve", "--host", host, "--port", "1"])
        assert result.exit_code == 2, result.output
        assert "Refusing to listen on" in result.output and "STRATUS_ADMIN_TOKEN" in result.output
    assert list(tmp_path.iterdir()) == []  # refused before any database was created


def test_commands_on_a_missing_database_leave_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17, item 7: `stratus restore snap-bogus` failed correctly but created ./stratus.db."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STRATUS_DATABASE_URL", raising=False)
    for args in (["restore", "snap-bogus"], ["snapshot", "acme"], ["admin-token"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, result.output
        assert "No stratus database at stratus.db" in result.output
    assert list(tmp_path.iterdir()) == []


def _start_serve(db: Path, port: int) -> tuple[subprocess.Popen[str], list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATUS_")}
    proc = subprocess.Popen([str(Path(sys.executable).parent / "stratus"), "serve", "--port", str(port), "--database", f"sqlite:///{db}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**env, "COLUMNS": "200"})
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if "Admin token" in line:
            break
    for _ in range(200):  # the banner comes just before Uvicorn binds
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc, lines
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"stratus serve did not start: {lines}")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def test_serve_prints_the_generated_token_once(tmp_path: Path) -> None:
    db, port = tmp_path / "serve.db", free_port()
    proc, lines = _start_serve(db, port)
    try:
        match = re.search(r"Admin token \(generated; shown this once.*\): (\S+)$", lines[-1])
        assert match, lines
        token = match.group(1)
        base = f"http://127.0.0.1:{port}/admin/accounts"
        assert httpx.get(base, headers={"Authorization": f"Bearer {token}"}).status_code == 200
        assert httpx.get(base, headers={"Authorization": f"Bearer {OLD_DEFAULT}"}).status_code == 403
    finally:
        _stop(proc)

    proc, lines = _start_serve(db, port)
    try:
        assert "the one generated on first start" in lines[-1] and token not in "\n".join(lines)
        assert httpx.get(f"http://127.0.0.1:{port}/admin/accounts", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    finally:
        _stop(proc)
    printed = CliRunner().invoke(cli, ["admin-token", "--database", f"sqlite:///{db}"])
    assert printed.exit_code == 0 and printed.output.strip() == token


def test_in_process_adapter_uses_the_token_stratus_generated() -> None:
    from consoleagent.adapters.stratus import StratusAdapter

    adapter = StratusAdapter(time_scale=50.0)
    adapter.start()
    try:
        assert adapter.admin_token == adapter.runtime.admin_token
        assert adapter.runtime.admin_token_origin == "generated"
        assert adapter.credentials().extra["account_id"]  # the admin API accepted it: an account was made
    finally:
        adapter.stop()
