"""The verification report's contract and the planning of what to verify: the published JSON schema is
current, documents become procedures with stable ids, and procedures find the suite task (or the
prerequisites) that give them a goal, resources and an outcome check."""

from __future__ import annotations

from tests import ROOT
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from consoleagent.documents import ProcedureError, parse_document
from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.suite.catalog import load_suite
from consoleagent.verify.model import VerifyReport
from consoleagent.verify.targets import VerifyInputError, choose_task, document_files, plan
from consoleagent.verify.verdict import combine, merge_discrepancies, outcome_discrepancy, run_verdict

SCHEMA = ROOT / "docs" / "verify-report.schema.json"

TWO_PROCEDURES = """---
id: vpc-basics
release: "2026.03"
---
# VPC basics

## Create a VPC

### Procedure

1. Click **VPCs**.
2. Click **Create VPC**. The **Create VPC** page appears.

## Delete a VPC

### Procedure

1. Click **VPCs**.
2. In the row of the VPC, click **Delete**.
   1. Click **OK**.
"""


def test_published_schema_is_current() -> None:
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == VerifyReport.model_json_schema(), \
        "docs/verify-report.schema.json is stale: regenerate it from VerifyReport.model_json_schema()"


def test_a_document_with_two_procedures_gets_stable_ids_lines_and_expected_results() -> None:
    document = parse_document(TWO_PROCEDURES, source="basics.md")
    assert document.id == "vpc-basics" and document.release == "2026.03"
    assert [(p.id, p.title, p.line) for p in document.procedures] == [
        ("create-a-vpc", "Create a VPC", 9), ("delete-a-vpc", "Delete a VPC", 16)]
    second = document.procedures[0].steps[1]
    assert second.expected == ["The **Create VPC** page appears."] and second.line == 12
    assert [s.text for s in document.procedures[1].steps[1].substeps] == ["Click **OK**."]


def test_documents_without_procedures_are_skipped_and_bad_front_matter_names_the_line() -> None:
    assert "no 'Procedure' section" in (parse_document("# Concepts\n\n## Overview\n\nText.\n", "c.md").skipped or "")
    with pytest.raises(ProcedureError, match=r"^b\.md:3: front matter is not valid YAML"):
        parse_document("---\nid: x\nbad: [unclosed\n---\n# T\n", "b.md")
    with pytest.raises(ProcedureError, match=r"^o\.md:1: front matter opened"):
        parse_document("---\nid: x\n# T\n", "o.md")


def test_every_shipped_procedure_finds_a_task_on_the_release_it_is_verified_on() -> None:
    work = plan([DOCUMENTS_ROOT], "2026.09", load_suite())
    with_task = [t for t in work.targets if t.task is not None]
    assert len(with_task) == 53 and all(t.outcome_source == "rule" for t in with_task)
    on_release = [t for t in work.targets if t.origin and t.origin.release == "2026.09"]
    assert len(on_release) == 38  # the documents with a task on 2026.09; the others run their 2026.03 task there
    assert all(t.spec.release == "2026.09" and t.spec.document.endswith(".md") for t in with_task)
    # the documents in other styles (a team's own documents: no suite task) are verified too, in every format
    styles = sorted(Path(t.path).name for t in work.targets if t.task is None)
    assert styles == ["alibaba-apply-eip.md", "alibaba-attach-data-disk.md", "alibaba-create-security-group.md",
                      "howto-delete-vswitch.md", "html-sphinx-create-vpc.html", "html-stop-instance.html",
                      "kb-release-eip.html", "readme-restart-instance.md", "reference-create-security-group-dialog.rst",
                      "reference-create-vswitch-dialog.rst", "runbook-create-key-pair.md",
                      "sphinx-guilabel-create-route-table.rst", "tutorial-first-vswitch.md"]
    assert all(t.outcome_source == "agent" for t in work.targets if t.task is None)
    assert len({t.key for t in work.targets}) == 66


def test_choose_task_prefers_the_release_then_a_completable_task() -> None:
    tasks = load_suite("vpc-create-vpc-with-vswitch-*")
    assert choose_task(tasks, "2026.09").id == "vpc-create-vpc-with-vswitch-02"
    assert choose_task(tasks, "2026.03").id == "vpc-create-vpc-with-vswitch-01"


def test_a_document_outside_the_suite_is_provisioned_from_its_prerequisites(tmp_path: Path) -> None:
    (tmp_path / "stop.md").write_text("# Stop a server\n\n## Prerequisites\n\n- A running ECS instance named web-01.\n\n"
                                      "## Procedure\n\n1. Click **Instances**.\n2. Click **Stop**.\n", encoding="utf-8")
    shutil.copy(DOCUMENTS_ROOT / "stratus/vpc/create-vpc.md", tmp_path / "copy.md")
    work = plan([tmp_path], "2026.09", load_suite())
    by_name = {Path(t.path).name: t for t in work.targets}
    stop = by_name["stop.md"]
    assert stop.task is None and stop.outcome_source == "agent"
    assert stop.spec.requires == [{"name": "ecs_instance", "template": "ecs_instance",
                                   "params": {"name": "web-01", "state": "running"}}]
    task = stop.spec.to_task(Path("/"))  # a document named by its absolute path: its references only beside it,
    assert task.document == ["Click **Instances**.", "Click **Stop**."] and task.related == {}  # never all of "/"
    assert by_name["copy.md"].task == "vpc-create-vpc-03"  # found by the copy's front-matter id
    assert stop.spec.start_url == "/console"  # no product named anywhere: the console's home
    with pytest.raises(VerifyInputError, match="no such file"):
        document_files([tmp_path / "missing.md"])


def test_a_document_that_names_its_product_only_in_its_metadata_starts_in_that_products_console(tmp_path: Path) -> None:
    """Measured on 2026.03: a reference page about the ECS "Create Security Group" dialog started at the home page
    and its search wandered the VPC console for 26 steps."""
    (tmp_path / "sg.md").write_text("---\nproduct: ecs\n---\n# Create a group\n\n## Procedure\n\n"
                                    "1. Click **Create Security Group**.\n", encoding="utf-8")
    (tmp_path / "logon.md").write_text("---\nproduct: ecs\n---\n# Create a VPC\n\n## Procedure\n\n"
                                       "1. Log on to the VPC console.\n2. Click **Create VPC**.\n", encoding="utf-8")
    by_name = {Path(t.path).name: t for t in plan([tmp_path], "2026.09", load_suite()).targets}
    assert by_name["sg.md"].spec.start_url == "/ecs"
    assert by_name["logon.md"].spec.start_url == "/console"  # its first step says where to go


def test_verdicts_per_run_and_over_runs() -> None:
    reached = {"status": "completed", "reward": 1.0}
    finding = outcome_discrepancy({"status": "completed", "reward": 0.0, "verdict": {"checks": [
        {"kind": "expect", "ok": False, "detail": "no CreateVpc", "records": ["e1"]}]}}, "complete", "d#p", 0)
    assert finding is not None and finding.kind == "outcome_mismatch" and finding.evidence.audit_event_ids == ["e1"]
    assert run_verdict(reached, "complete", []).verdict == "PASS"
    drift = run_verdict(reached, "complete", [finding])
    assert drift.verdict == "DRIFT" and "outcome_mismatch" in drift.reason.text
    impossible = run_verdict({"status": "unachievable", "reward": 1.0}, "unachievable", [])
    assert impossible.verdict == "FAIL" and "impossible" in impossible.reason.text
    error = run_verdict({"status": "env_error", "reward": None, "cause": "browser crashed"}, "complete", [])
    assert error.verdict == "ERROR" and "browser crashed" in error.reason.text
    # the agent's own failure (here the oracle's solution did not fit) blames nothing on the document
    assert run_verdict({"status": "env_error", "policy_error": True}, "complete", []).verdict == "INCONCLUSIVE"
    verdict, consistency = combine(["PASS", "DRIFT", "ERROR"])
    assert verdict == "DRIFT" and consistency.agreement == pytest.approx(1 / 3, abs=1e-3)
    assert combine(["ERROR", "ERROR"])[0] == "ERROR" and combine(["PASS", "PASS", "FAIL"])[0] == "PASS"
    merged = merge_discrepancies([[finding], [finding], []])
    assert [(d.id, d.runs) for d in merged] == [("d#p/outcome_mismatch", 2)]


def test_a_goal_not_reached_is_inconclusive_with_the_step_and_the_audit_evidence() -> None:
    from consoleagent.verify.model import Attempt, LabelUse, StepReport
    from consoleagent.verify.verdict import with_attempt

    steps = [StepReport(id="d#p/1", number=1, line=5, text="Click **EIPs**.", status="ok"),
             StepReport(id="d#p/2", number=2, line=6, text="Choose **doc-vsw-01**.", status="failed", screenshot="shots/2.png",
                        labels=[LabelUse(label="doc-vsw-01", match="missing", observed="vsw-prod", role="option")]),
             StepReport(id="d#p/3", number=3, line=7, text="Click **OK**.", status="not_reached")]
    record = {"status": "truncated", "reward": 0.0, "cause": "step limit of 30 reached", "verdict": {"checks": [
        {"kind": "outcome", "ok": False, "detail": "the agent ended with truncated"},
        {"kind": "expect", "ok": False, "detail": "no CreateNatGateway record", "records": []}]}}
    judged = run_verdict(record, "complete", [], steps, 0)
    assert judged.verdict == "INCONCLUSIVE"
    assert judged.reason.step == 2 and "step 2" in judged.reason.text and "step limit" in judged.reason.text
    assert "no CreateNatGateway record" in judged.reason.text and judged.reason.evidence.screenshot == "shots/2.png"
    assert judged.reason.evidence.observed_elements == ["option 'vsw-prod'"]
    # a goal-directed attempt without the document: reached, the document is to blame, with the path as the fix
    reached = Attempt(policy="ranker", reached=True, status="completed", path=["click link 'NAT Gateways'"])
    verdict, reason = with_attempt(judged.verdict, judged.reason, reached)
    assert verdict == "DRIFT" and "NAT Gateways" in reason.text and reason.step == 2
    failed = Attempt(policy="ranker", reached=False, status="truncated")
    assert with_attempt(judged.verdict, judged.reason, failed)[0] == "INCONCLUSIVE"
    assert with_attempt("PASS", None, reached) == ("PASS", None)  # only an undecided procedure is retried


def test_acting_on_another_resource_is_the_agents_failure() -> None:
    record = {"status": "completed", "reward": 0.0, "verdict": {"checks": [
        {"kind": "expect", "ok": False, "detail": "no release record with AllocationId equals 'eip-a'; near misses: "
         "ReleaseEipAddress e9: AllocationId is 'eip-b', expected 'eip-a'", "records": [], "wrong_target": ["e9"]}]}}
    judged = run_verdict(record, "complete", [])
    assert judged.verdict == "INCONCLUSIVE" and "other than the goal's resource" in judged.reason.text
    assert judged.reason.evidence.audit_event_ids == ["e9"]
    # an unachievable task the agent did not recognise as such: not evidence that the feature is gone
    assert run_verdict({"status": "truncated", "reward": 0.0}, "unachievable", []).verdict == "INCONCLUSIVE"


def test_report_validates_against_the_schema() -> None:
    from consoleagent.verify.model import Consistency, DocumentReport, ProcedureReport, RunInfo, Summary

    report = VerifyReport(run=RunInfo(id="r", created_at="t", console="c", policy="p", runs=1, workers=1),
                          summary=Summary(documents=1, procedures=1, verdicts={"PASS": 1}),
                          documents=[DocumentReport(id="d", path="d.md", procedures=[ProcedureReport(
                              id="d#procedure", title="T", line=3, goal="g", verdict="PASS",
                              consistency=Consistency(runs=1, verdicts={"PASS": 1}, agreement=1.0))])])
    jsonschema.validate(json.loads(report.model_dump_json()), json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_a_step_the_author_never_wrote_is_not_blamed() -> None:
    from consoleagent.verify.model import Discrepancy, StepReport
    from consoleagent.verify.runner import authored

    steps = [StepReport(id="d#p/1", number=1, line=3, text="Open the Cast dialog.", status="failed", synthesized=True,
                        find="Cast dialog"),
             StepReport(id="d#p/2", number=2, line=9, text="Fill **Name**.", status="drift", synthesized=True),
             StepReport(id="d#p/3", number=3, line=12, text="Click **Save**.", status="ok")]

    def found(step: int, kind: str) -> Discrepancy:
        return Discrepancy(id=f"d#p/{step}/{kind}", step=step, kind=kind, expected="x", observed="y", source="alignment")

    items = [found(1, "element_removed"), found(2, "label_changed"), found(2, "navigation_changed"),
             found(3, "element_removed")]
    # the path to a dialog the page never describes is the agent's search, not the author's text; a
    # synthesised fill step keeps only what the author wrote there: its labels and values
    assert [d.id for d in authored(items, steps)] == ["d#p/2/label_changed", "d#p/3/element_removed"]
