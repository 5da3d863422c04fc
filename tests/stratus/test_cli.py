"""The ``stratus`` command line on a real SQLite file: seed, inspect, snapshot, restore, verify."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stratus.cli import app

runner = CliRunner(env={"COLUMNS": "250"})  # wide enough that Rich does not elide cells


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    db = tmp_path_factory.mktemp("cli") / "cli.db"
    url = f"sqlite:///{db}"
    output = run("seed", "--database", url, "--seed", "5")
    return url, json.loads(output)


def test_seed_creates_the_demo_estate(seeded: tuple[str, dict]) -> None:
    url, demo = seeded
    assert demo["credentials"]["login_name"] == "root@demo"
    assert demo["resources"]["instance"].startswith("i-")
    table = run("events", "--database", url, "--account", "demo", "--event-name", "RunInstances")
    assert "RunInstances" in table and "provisioner" in table
    again = runner.invoke(app, ["seed", "--database", url])
    assert again.exit_code == 1 and "already exists" in again.output


def test_events_export_and_verify_trail_detects_tampering(seeded: tuple[str, dict], tmp_path: Path) -> None:
    url, _ = seeded
    out = tmp_path / "trail.jsonl"
    assert "Wrote" in run("events", "--database", url, "-o", str(out))
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["eventName"] == "CreateVpc"
    assert "hash chain intact" in run("verify-trail", "--database", url)
    copy = tmp_path / "tampered.db"
    with sqlite3.connect(url.removeprefix("sqlite:///")) as source, sqlite3.connect(copy) as target:
        source.backup(target)  # the database is in WAL mode: copy through SQLite, not the file
    with sqlite3.connect(copy) as con:
        con.execute("UPDATE audit_events SET record = replace(record, 'CreateVpc', 'DeleteVpc') WHERE seq = 1")
    result = runner.invoke(app, ["verify-trail", "--database", f"sqlite:///{copy}"])
    assert result.exit_code == 1 and "record 1" in result.output


def test_snapshot_reset_restore_by_alias(seeded: tuple[str, dict], tmp_path: Path) -> None:
    url, demo = seeded
    snap = json.loads(run("snapshot", "demo", "--database", url, "--name", "before"))
    assert snap["rows"] > 5
    run("reset", "demo", "--database", url)
    empty = run("events", "--database", url, "--account", "demo", "--event-name", "RunInstances")
    assert "RunInstances" in empty  # history survives a reset
    restored = json.loads(run("restore", snap["snapshot_id"], "--database", url))
    assert restored["account_id"] == demo["credentials"]["account_id"]
    missing = runner.invoke(app, ["restore", "snap-nosuch", "--database", url])
    assert missing.exit_code == 1 and "NotFound" in missing.output


def test_create_account_and_bad_settings(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/new.db"
    created = json.loads(run("create-account", "acme", "--database", url, "--balance", "12.5"))
    assert created["login_name"] == "root@acme" and created["access_key_id"].startswith("LTAI")
    bad = runner.invoke(app, ["create-account", "Bad Alias!", "--database", url])
    assert bad.exit_code == 1 and "InvalidParameter.Alias" in bad.output
    unknown = runner.invoke(app, ["create-account", "x1x", "--database", url, "--release", "1999.01"])
    assert unknown.exit_code == 1 and "Unknown release" in unknown.output
    no_account = runner.invoke(app, ["snapshot", "ghost", "--database", url])
    assert no_account.exit_code == 1 and "No account" in no_account.output
