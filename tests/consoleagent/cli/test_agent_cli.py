"""``consoleagent run`` and ``view`` as a user runs them: the doc follower on the embedded stratus,
then the HTML viewer of its trajectory. ``run`` goes through a subprocess, as from a shell (and
because one thread can hold only one Playwright, and the test session already has one)."""

from __future__ import annotations

from tests import FIXTURES
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from consoleagent.cli import app
from consoleagent.trajectory.reader import read_trajectory

pytestmark = pytest.mark.browser
DOC = FIXTURES / "docs" / "create_vpc.md"
runner = CliRunner(env={"COLUMNS": "200"})


def test_run_docfollower_then_view(tmp_path: Path, browser: object) -> None:  # browser: skip without Chromium
    result = subprocess.run([sys.executable, "-m", "consoleagent", "run", "--goal", "Create a VPC", "--doc", str(DOC),
                             "--start", "/vpc", "--out", str(tmp_path)], capture_output=True, text=True, timeout=240,
                            env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the agent says it reached the goal" in result.stdout and "not verified" in result.stdout
    trajectory = next(tmp_path.glob("*.jsonl"))
    episode = read_trajectory(trajectory)
    assert episode.footer["status"] == "completed" and episode.steps
    assert all(step["screenshot"] for step in episode.steps)
    viewer = runner.invoke(app, ["view", str(trajectory), "-o", str(tmp_path / "view.html")])
    assert viewer.exit_code == 0, viewer.output
    html = (tmp_path / "view.html").read_text()
    assert episode.steps[0]["action"] in html


def test_run_rejects_bad_input(tmp_path: Path) -> None:
    unknown = runner.invoke(app, ["run", "--goal", "x", "--policy", "telepathy", "--out", str(tmp_path)])
    assert unknown.exit_code == 2 and "telepathy" in unknown.output
    bad_doc = tmp_path / "empty.md"
    bad_doc.write_text("# Nothing here\n\nNo procedure at all.\n")
    malformed = runner.invoke(app, ["run", "--goal", "x", "--doc", str(bad_doc), "--out", str(tmp_path)])
    assert malformed.exit_code == 2 and "empty.md" in malformed.output


def test_templates_validate_and_list() -> None:
    result = runner.invoke(app, ["templates", "validate", "vpc", "vswitch", "key_pair"])
    assert result.exit_code == 0, result.output
    assert "3/3 ok" in result.output
    listing = runner.invoke(app, ["templates", "list"])
    assert listing.exit_code == 0 and "ecs_instance" in listing.output and "security_group" in listing.output
    unknown = runner.invoke(app, ["templates", "validate", "teleporter"])
    assert unknown.exit_code != 0


def test_a_suite_task_run_carries_the_pages_its_document_cites() -> None:
    """`run --task` hands the policy the referenced procedures and the ones cited as another way, as `bench` does."""
    from consoleagent.cli.run import _suite_task, _task_documents

    document, cited = _task_documents("stratus", _suite_task("stratus", "ecs-sg-quick-add-03"))
    assert document and "**Quick Add**" in document[-1]
    assert cited.alternatives == ["Add an inbound security group rule", "Add an outbound security group rule"]
    assert set(cited.alternatives) < set(cited.procedures)
