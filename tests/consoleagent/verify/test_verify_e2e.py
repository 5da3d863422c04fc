"""``consoleagent verify`` end to end on stratus, with the documentation-following agent in real
Chromium: a procedure correct on the base release passes; on the later release it drifts with
``label_changed`` at the right step and a fix naming the console's new label; a removed feature
fails it; a provisioning failure is an ERROR; bad documents are reported, not crashed on; an
interrupted run resumes; the evaluation scores the findings against the changelog."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from consoleagent import encoder
from consoleagent.suite import DOCUMENTS_ROOT, TASKS_ROOT
from consoleagent.verify.evaluate import evaluate
from consoleagent.verify.review import load_report
from consoleagent.verify.runner import VerifyConfig, evaluate_dir, run_verify

CREATE_VPC = DOCUMENTS_ROOT / "stratus/vpc/create-vpc.md"
WITH_VSWITCH = DOCUMENTS_ROOT / "stratus/vpc/create-vpc-with-vswitch.md"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def console(stratus_console: Any) -> Any:
    return stratus_console


def verify(console: Any, playwright_instance: Any, out: Path, documents: list[Path], **options: Any):  # noqa: ANN201
    config = VerifyConfig(documents=documents, out_dir=out, **options,
                          console_options={"url": console.base_url, "admin_token": console.admin_token, "delivery_delay_s": 0.0})
    return run_verify(config, playwright=playwright_instance)


def test_correct_procedure_passes_on_the_base_release(console: Any, playwright_instance: Any, tmp_path: Path) -> None:
    report = verify(console, playwright_instance, tmp_path, [CREATE_VPC], release="2026.03")
    [procedure] = report.procedures()
    assert procedure.id == "vpc-create-vpc#procedure"
    assert procedure.verdict == "PASS", [(r.status, r.reward, r.cause) for r in procedure.runs]
    assert procedure.discrepancies == []
    assert procedure.runs[0].reward == 1.0 and procedure.task == "vpc-create-vpc-01"
    assert (tmp_path / "report.json").exists() and (tmp_path / "report.html").exists()
    assert procedure.runs[0].viewer and (tmp_path / procedure.runs[0].viewer).exists()


def test_renamed_button_is_drift_at_its_step_with_a_fix(console: Any, playwright_instance: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(encoder.BACKEND_ENV, "lexical")
    encoder.reset_shared()
    try:
        encoder.similarity("Create VPC", "Create a VPC")  # used, as the follower uses it for a label worded otherwise
        report = verify(console, playwright_instance, tmp_path, [CREATE_VPC], release="2026.09")
    finally:
        encoder.reset_shared()
    [procedure] = report.procedures()
    assert procedure.verdict == "DRIFT", [(r.status, r.reward, r.cause) for r in procedure.runs]
    renamed = [d for d in procedure.discrepancies if d.kind == "label_changed"]
    assert [d.step for d in renamed] == [4], procedure.discrepancies
    assert renamed[0].fix is not None and "Create a VPC" in renamed[0].fix.proposed
    assert "Create VPC" in renamed[0].fix.original
    # what matched labels is in the report: here the lexical fallback of a light install (forced), which finds this
    # rename too (the labels share words)
    assert report.run.encoders == ["lexical"] and "encoder lexical" in (tmp_path / "report.html").read_text()
    from consoleagent.cli.verify import print_summary

    capsys.readouterr()
    print_summary(report, tmp_path, None)
    assert "lexical fallback" in " ".join(capsys.readouterr().err.split())  # and the command says so
    assert renamed[0].evidence.screenshot and (tmp_path / renamed[0].evidence.screenshot).exists()
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert "<failure" in junit and "label_changed" in junit
    scores = evaluate_dir(tmp_path)
    assert scores["procedures"]["scored"] == 1
    assert scores["discrepancies"]["tp"] == 1 and scores["verdicts"]["accuracy"] == 1.0


def test_removed_feature_fails_the_procedure(console: Any, playwright_instance: Any, tmp_path: Path) -> None:
    report = verify(console, playwright_instance, tmp_path, [WITH_VSWITCH], release="2026.09",
                    tasks="vpc-create-vpc-with-vswitch-03")
    [procedure] = report.procedures()
    assert procedure.verdict == "FAIL", [(r.status, r.reward, r.cause) for r in procedure.runs]
    assert procedure.task == "vpc-create-vpc-with-vswitch-03"


def test_provisioning_failure_is_an_error_not_a_failure(console: Any, playwright_instance: Any, tmp_path: Path) -> None:
    """A task whose prerequisite cannot be created (a vSwitch in a VPC that does not exist)."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    spec = yaml.safe_load((TASKS_ROOT / "vpc/vpc-create-vpc-01.yaml").read_text(encoding="utf-8"))
    spec["requires"] = [{"name": "vsw", "template": "vswitch", "params": {"vpc_id": "vpc-doesnotexist0000"}}]
    (tasks / "vpc-create-vpc-01.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    out = tmp_path / "out"
    report = verify(console, playwright_instance, out, [CREATE_VPC], release="2026.03", tasks_root=tasks,
                    env_error_retries=0)
    [procedure] = report.procedures()
    assert procedure.verdict == "ERROR"
    [error] = procedure.discrepancies
    assert error.kind == "env_error" and error.source == "environment" and "prepare" in error.observed
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert "<error" in junit


def test_bad_documents_are_reported_and_interrupted_runs_resume(console: Any, playwright_instance: Any,
                                                                  tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(CREATE_VPC, docs / "create-vpc.md")  # a copy outside the suite finds its tasks by front-matter id
    (docs / "concepts.md").write_text("# What is a VPC\n\nA private network.\n", encoding="utf-8")
    (docs / "broken.md").write_text("---\nid: [unclosed\n---\n# Broken\n\n## Procedure\n\n1. Click **A**.\n", encoding="utf-8")
    out = tmp_path / "out"
    seen: list[str] = []

    class Stop(Exception):
        pass

    def interrupt(record: dict[str, Any]) -> None:
        seen.append(record["key"])
        raise Stop  # after the ledger has the record, as a Ctrl+C between episodes would leave it

    config = VerifyConfig(documents=[docs], out_dir=out, runs=2, release="2026.03",
                          console_options={"url": console.base_url, "admin_token": console.admin_token, "delivery_delay_s": 0.0})
    with pytest.raises(Stop):
        run_verify(config, playwright=playwright_instance, on_record=interrupt)
    assert seen == ["vpc-create-vpc-01#0"]
    report = run_verify(config, playwright=playwright_instance, on_record=lambda r: seen.append(r["key"]))
    assert seen == ["vpc-create-vpc-01#0", "vpc-create-vpc-01#1"]  # only the missing run ran again
    statuses = {Path(d.path).name: (d.status, d.reason) for d in report.documents}
    assert statuses["concepts.md"][0] == "skipped" and "Procedure" in statuses["concepts.md"][1]
    assert statuses["broken.md"][0] == "invalid" and "broken.md:2" in statuses["broken.md"][1]
    [procedure] = report.procedures()
    assert procedure.consistency.runs == 2 and procedure.verdict == "PASS"
    assert load_report(out) == report
    with pytest.raises(ValueError, match="other release"):
        run_verify(VerifyConfig(documents=[docs], out_dir=out, runs=2, release="2026.09"), playwright=playwright_instance)


def test_cli_exit_codes_and_evaluation(console: Any, tmp_path: Path) -> None:
    """The command a CI job runs (in a subprocess, as CI would): exits non-zero on drift when asked,
    prints where the HTML report is, resumes without running anything again."""
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "consoleagent", *args], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLUMNS": "200"})

    args = ["verify", str(CREATE_VPC), "--console", console.base_url, "--admin-token", console.admin_token,
            "--release", "2026.09", "--out", str(tmp_path), "--evaluate"]
    result = cli(*args, "--fail-on", "drift")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "report.html" in result.stdout and "DRIFT" in result.stdout
    evaluation = json.loads((tmp_path / "evaluation.json").read_text(encoding="utf-8"))
    assert evaluation["discrepancies"]["precision"] is not None
    ledger = (tmp_path / "episodes" / "ledger.jsonl").read_text(encoding="utf-8")
    again = cli(*args, "--fail-on", "fail")  # resumed: nothing runs again, same report
    assert again.returncode == 0, again.stdout + again.stderr
    assert (tmp_path / "episodes" / "ledger.jsonl").read_text(encoding="utf-8") == ledger
    bad = cli("verify", str(tmp_path / "missing.md"), "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "no such file" in bad.stderr


def test_evaluation_counts_misses_and_false_alarms() -> None:
    """The scorer on a hand-made report: one right finding, one wrong kind, one missed step."""
    from consoleagent.suite.catalog import load_suite
    from consoleagent.verify.model import (Consistency, Discrepancy, DocumentReport, ProcedureReport, RunInfo, Summary,
                                           VerifyReport)
    from consoleagent.verify.targets import plan

    work = plan([CREATE_VPC, WITH_VSWITCH], "2026.09", load_suite("vpc-create-vpc-03 vpc-create-vpc-with-vswitch-03"))

    def finding(pid: str, step: int, kind: str) -> Discrepancy:
        return Discrepancy(id=f"{pid}/{step}/{kind}", step=step, kind=kind, expected="e", observed="o", source="agent")

    procedures = [
        ProcedureReport(id="vpc-create-vpc#procedure", title="t", line=1, goal="g", verdict="DRIFT",
                        consistency=Consistency(runs=1, verdicts={"DRIFT": 1}, agreement=1.0),
                        discrepancies=[finding("vpc-create-vpc#procedure", 4, "label_changed"),
                                       finding("vpc-create-vpc#procedure", 5, "default_changed")]),
        ProcedureReport(id="vpc-create-vpc-with-vswitch#procedure", title="t", line=1, goal="g", verdict="DRIFT",
                        consistency=Consistency(runs=1, verdicts={"DRIFT": 1}, agreement=1.0),
                        discrepancies=[finding("vpc-create-vpc-with-vswitch#procedure", 4, "label_changed")]),
    ]
    report = VerifyReport(run=RunInfo(id="x", created_at="now", console="c", release="2026.09", policy="p", runs=1, workers=1),
                          summary=Summary(documents=2, procedures=2, verdicts={}),
                          documents=[DocumentReport(id="d", path="p", procedures=procedures)])
    scores = evaluate(report, work.targets)
    assert scores["discrepancies"] == {"tp": 2, "fp": 1, "fn": 1, "precision": 0.6667, "recall": 0.6667, "f1": 0.6667}
    assert scores["by_kind"]["feature_removed"]["fn"] == 1 and scores["by_kind"]["default_changed"]["fp"] == 1
    assert scores["confusion"] == {"DRIFT": {"DRIFT": 1}, "FAIL": {"DRIFT": 1}}
    assert scores["verdicts"]["accuracy"] == 0.5
