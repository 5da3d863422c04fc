"""A newcomer's first commands, run as from a shell: clear messages and exit codes, no traceback, no
file left behind by a command that failed, and output a CI log can be read and grepped from."""

from __future__ import annotations

from tests import ROOT, sigint_as_default
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = ROOT
SUITE_DOCS = ROOT / "src" / "consoleagent" / "consoles" / "stratus" / "suite" / "documents" / "stratus"
NO_KEY = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "CONSOLEAGENT_API_KEY")}


def cli(*args: str, cwd: Path, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``consoleagent ARGS`` in a subprocess with pipes (not a terminal), as in a CI log."""
    return subprocess.run([sys.executable, "-m", "consoleagent", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env or {**os.environ, "COLUMNS": "80"})


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert "Error:" not in result.stderr.replace("LLMError", ""), result.stderr  # no exception class names


def stratus_temp_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith("stratus")}


def test_run_with_an_unknown_release_says_so_and_leaves_nothing(tmp_path: Path) -> None:
    before = stratus_temp_dirs()
    result = cli("run", "--goal", "Create a VPC", "--release", "1999.01", cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown release '1999.01'" in result.stderr and "2026.03" in result.stderr
    no_traceback(result)
    assert stratus_temp_dirs() <= before
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_document_style_says_so_for_bench_and_collect_and_leaves_nothing(tmp_path: Path) -> None:
    for command in (["bench", "--policy", "oracle", "--no-plots"], ["collect", "--out", "c"]):
        result = cli(*command, "--tasks", "vpc-create-vpc-01", "--document-style", "bold", cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert "unknown document style 'bold'" in result.stderr and "as_written, plain" in result.stderr
        no_traceback(result)
    assert list(tmp_path.iterdir()) == []


def test_llm_without_an_api_key_is_a_message_for_run_and_verify(tmp_path: Path) -> None:
    run = cli("run", "--goal", "x", "--policy", "llm", "--model", "gpt-4o", cwd=tmp_path, env=NO_KEY)
    assert run.returncode == 2 and "no API key" in run.stderr
    no_traceback(run)
    document = tmp_path / "doc.md"
    document.write_text("# Create a VPC\n\n## Procedure\n\n1. Click **Create VPC**.\n")
    verify = cli("verify", str(document), "--policy", "llm", "-O", "model=gpt-4o", "--out", "report", cwd=tmp_path,
                 env=NO_KEY)
    assert verify.returncode == 2 and "no API key" in verify.stderr
    no_traceback(verify)
    assert not (tmp_path / "report").exists()


def test_run_without_a_document_refuses_the_docfollower(tmp_path: Path) -> None:
    result = cli("run", "--goal", "Create a VPC named foo", cwd=tmp_path)
    assert result.returncode == 2 and "--doc" in result.stderr
    no_traceback(result)


def test_a_typo_writes_nothing_and_the_corrected_command_runs(tmp_path: Path) -> None:
    typo = cli("verify", "does-not-exist.md", "--out", "report", cwd=tmp_path)
    assert typo.returncode == 2 and "does-not-exist.md: no such file or folder" in typo.stderr
    assert not (tmp_path / "report").exists()
    notes = tmp_path / "notes.md"
    notes.write_text("# Release notes\n\nWe fixed several things this month.\n")
    corrected = cli("verify", str(notes), "--out", "report", cwd=tmp_path)
    # nothing in the document can be verified: never a pass, and said plainly
    assert corrected.returncode == 4, corrected.stdout + corrected.stderr
    assert "nothing was verified" in corrected.stderr
    assert "Review the defects" not in corrected.stdout  # there are none
    no_traceback(corrected)


def test_restart_starts_over_in_a_directory_of_another_verification(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Release notes\n\nNothing to do.\n")
    other = tmp_path / "other.md"
    other.write_text("# Other notes\n\nNothing either.\n")
    assert cli("verify", str(notes), "--out", "report", cwd=tmp_path).returncode == 4
    (tmp_path / "report" / "reviews.jsonl").write_text('{"discrepancy_id": "x", "decision": "confirmed"}\n')
    refused = cli("verify", str(other), "--out", "report", cwd=tmp_path)
    assert refused.returncode == 2 and "--restart" in refused.stderr
    restarted = cli("verify", str(other), "--out", "report", "--restart", cwd=tmp_path)
    assert restarted.returncode == 4, restarted.stdout + restarted.stderr
    request = json.loads((tmp_path / "report" / "verify.json").read_text())
    assert request["documents"] == [str(other.resolve())]
    assert (tmp_path / "report" / "reviews.jsonl").exists()  # a person's work is kept


def test_resume_adds_to_the_run_time_instead_of_resetting_it(tmp_path: Path) -> None:
    from consoleagent.verify.runner import REQUEST_FILE, _add_elapsed

    (tmp_path / REQUEST_FILE).write_text(json.dumps({"run_id": "r", "created_at": "t", "elapsed_s": 253.0}))
    assert _add_elapsed(tmp_path, 5.0) == 258.0
    assert json.loads((tmp_path / REQUEST_FILE).read_text())["elapsed_s"] == 258.0


def test_output_in_a_log_is_plain_unwrapped_and_ends_with_the_report_path(tmp_path: Path) -> None:
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "inner"
    deep.mkdir(parents=True)
    bad = deep / "bad1.md"
    bad.write_text("---\nid: [broken\n---\n# Title\n\nText.\n")
    result = cli("verify", str(bad), "--out", str(deep / "report"), cwd=tmp_path)
    assert result.returncode == 1  # an invalid document
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == f"HTML report: {(deep / 'report' / 'report.html').resolve()}"  # one line, never wrapped
    invalid = next(line for line in lines if "invalid:" in line)
    assert invalid.count("bad1.md") == 1, invalid  # the file is named once
    assert "\x1b[" not in result.stdout  # no colour codes in a log


def test_demo_names_a_taken_port_before_printing_any_url(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = cli("demo", "--port", str(port), "--database", f"sqlite:///{tmp_path / 'demo.db'}", cwd=tmp_path)
    assert result.returncode == 2 and f"port {port}" in result.stderr and "taken" in result.stderr
    assert "Console:" not in result.stdout and "http://" not in result.stdout
    assert not (tmp_path / "demo.db").exists()


def test_help_shows_the_extra_to_install_and_the_exit_codes(tmp_path: Path) -> None:
    bench = cli("bench", "--help", cwd=tmp_path, env={**os.environ, "COLUMNS": "300"})
    assert "consoleagent[bench]" in bench.stdout
    verify = " ".join(cli("verify", "--help", cwd=tmp_path, env={**os.environ, "COLUMNS": "300"}).stdout.split())
    assert "4 nothing was verified" in verify and "130 interrupted" in verify
    run = " ".join(cli("run", "--help", cwd=tmp_path, env={**os.environ, "COLUMNS": "300"}).stdout.split())
    assert "not verified" in run


def test_bootstrap_installs_nothing_for_extras_an_earlier_install_covers(tmp_path: Path) -> None:
    script = (ROOT / "scripts" / "bootstrap.sh").read_text()
    covered = script[script.index("covered() {"):script.index("\n}\n", script.index("covered() {")) + 3]
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / ".installed-abc-test,train").touch()
    probe = covered + 'for e in "" test train test,train bench test,bench; do EXTRAS=$e; covered && echo "$e:yes" || echo "$e:no"; done'
    result = subprocess.run(["bash", "-c", f"pins=abc; VENV={tmp_path / 'v'}; {probe}"], capture_output=True, text=True)
    assert result.stdout.split() == [":yes", "test:yes", "train:yes", "test,train:yes", "bench:no", "test,bench:no"]


@pytest.mark.browser
def test_ctrl_c_stops_verify_promptly_with_one_line(tmp_path: Path, browser: object) -> None:  # browser: skip without Chromium
    process = subprocess.Popen([sys.executable, "-m", "consoleagent", "verify", str(SUITE_DOCS / "vpc"), "--workers", "2",
                                "--out", "report"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_default)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (tmp_path / "report" / "episodes" / "run.json").exists():
        time.sleep(0.5)
    time.sleep(8)  # the workers are in their first episodes
    process.send_signal(signal.SIGINT)  # to the parent alone, as `kill -INT` does
    sent = time.monotonic()
    stdout, stderr = process.communicate(timeout=60)
    assert time.monotonic() - sent < 20
    assert process.returncode == 130, stdout + stderr
    assert "interrupted; run the same command to resume" in stderr
    assert "Traceback" not in stderr and "never retrieved" not in stderr
