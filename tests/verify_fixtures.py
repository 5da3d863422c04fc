"""A realistic verification report for the report tests, built on disk like the runner leaves it.

``build_report_dir(tmp_path)`` writes a report directory: real PNG screenshots (marked boxes drawn
with the standard library's zlib, no image library), trajectory and viewer files, and report.json,
and returns the ``VerifyReport``. It has one procedure of each verdict (PASS, DRIFT, FAIL, ERROR),
a skipped and an invalid document, and text that must be escaped (``<script>``, quotes, pipes).
The content follows the shipped ECS/VPC documents against release 2026.09's changelog.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from consoleagent.verify.model import (
    Consistency,
    Discrepancy,
    DocumentReport,
    Evidence,
    Fix,
    Input,
    LabelUse,
    ProcedureReport,
    RunInfo,
    RunReport,
    StepReport,
    Summary,
    VerifyReport,
)

HOSTILE = 'Click <script>window.pwned=1</script> "OK" | then & wait'


def write_png(path: Path, width: int = 320, height: int = 200, box: tuple[int, int, int, int] = (40, 60, 160, 40),
              color: tuple[int, int, int] = (207, 34, 46)) -> Path:
    """A real RGB PNG: a light page with one marked (outlined) element box, like the marker draws."""
    x0, y0, w, h = box
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter type 0 per scanline
        for x in range(width):
            on_edge = (x0 <= x < x0 + w and y0 <= y < y0 + h) and (x < x0 + 3 or x >= x0 + w - 3 or y < y0 + 3 or y >= y0 + h - 3)
            row += bytes(color) if on_edge else (bytes((246, 248, 250)) if y > 30 else bytes((31, 35, 40)))
        rows.append(bytes(row))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    return path


def _runs(task: str, verdicts: list[str], status: str = "completed", cause: str | None = None,
          checks: list[dict] | None = None) -> list[RunReport]:
    return [RunReport(index=i, status=status, verdict=v, reward=1.0 if status == "completed" else 0.0, steps=9 + i,
                      duration_s=21.5 + i, cause=cause, trajectory=f"episodes/trajectories/{task}-run{i}.jsonl",
                      viewer=f"viewers/{task}-run{i}.html", audit_checks=checks or []) for i, v in enumerate(verdicts)]


def _consistency(verdicts: list[str], combined: str) -> Consistency:
    counts = {v: verdicts.count(v) for v in sorted(set(verdicts))}
    return Consistency(runs=len(verdicts), verdicts=counts, agreement=verdicts.count(combined) / len(verdicts))


def _pass_procedure() -> ProcedureReport:
    pid = "vpc-create#create-a-vpc"
    steps = [StepReport(id=f"{pid}/1", number=1, line=18, text="Log on to the VPC console.", status="ok", agent_steps=[1]),
             StepReport(id=f"{pid}/2", number=2, line=19, text="In the left-side navigation pane, click **VPCs**.", status="ok",
                        agent_steps=[2], labels=[LabelUse(label="VPCs", match="exact", observed="VPCs", role="link", agent_step=2)]),
             StepReport(id=f"{pid}/3", number=3, line=21, text="Click **Create VPC**.", status="ok", agent_steps=[3, 4])]
    checks = [{"kind": "expect", "ok": True, "detail": "CreateVpc by the console session", "label": "create",
               "records": ["7f3a9c2e-0001"]}]
    return ProcedureReport(id=pid, title="Create a VPC", line=14, goal="Create a VPC named edge-vpc.", task="vpc-create-vpc-03",
                           verdict="PASS", consistency=_consistency(["PASS", "PASS"], "PASS"), duration_s=18.25, steps=steps,
                           runs=_runs("vpc-create-vpc-03", ["PASS", "PASS"], checks=checks))


def _drift_procedure() -> ProcedureReport:
    pid = "ecs-instance-create#create-an-instance"
    step3 = StepReport(id=f"{pid}/3", number=3, line=27, text="On the Instances page, click **Create Instance**.", status="drift",
                       agent_steps=[3], labels=[LabelUse(label="Create Instance", match="renamed", observed="Create ECS Instance",
                                                         role="button", agent_step=3)],
                       screenshot="screenshots/ecs-create-step3.png")
    step4 = StepReport(id=f"{pid}/4", number=4, line=28, text="Configure the **Basic Configurations** step.", status="drift",
                       agent_steps=[4, 5, 6], undocumented_inputs=[Input(field="Deletion Protection", value="Off", agent_step=6)],
                       substeps=[StepReport(id=f"{pid}/4.1", number=1, line=30, text="Select **Pay-as-you-go**.", status="ok")])
    discrepancies = [
        Discrepancy(id=f"{pid}/3/label_changed", step=3, line=27, kind="label_changed", expected="click **Create Instance**",
                    observed='the button reads "Create ECS Instance"', source="agent", runs=2,
                    fix=Fix(original="On the Instances page, click **Create Instance**.",
                            proposed="On the Instances page, click **Create ECS Instance**.",
                            rationale='button "Create ECS Instance" at agent step 3; no "Create Instance" on the page'),
                    evidence=Evidence(screenshot="screenshots/ecs-create-step3.png", agent_step=3, run=0,
                                      trajectory="episodes/trajectories/ecs-instance-create-03-run0.jsonl",
                                      audit_event_ids=["b1c2d3e4-0003"], observed_elements=['button "Create ECS Instance"'])),
        Discrepancy(id=f"{pid}/4/field_added_required", step=4, line=28, kind="field_added_required",
                    expected="the Basic Configurations table lists every required field", observed=HOSTILE, source="alignment",
                    runs=1, fix=Fix(original="Configure the **Basic Configurations** step.",
                                    proposed="Configure the **Basic Configurations** step and set **Deletion Protection**.",
                                    rationale="the wizard refused Next until Deletion Protection was set"),
                    evidence=Evidence(screenshot="screenshots/ecs-create-step4.png", agent_step=6, run=1)),
    ]
    verdicts = ["DRIFT", "DRIFT"]
    return ProcedureReport(id=pid, title="Create an instance", line=12, goal="Create a pay-as-you-go instance named blog-db-01.",
                           task="ecs-instance-create-03", verdict="DRIFT", consistency=_consistency(verdicts, "DRIFT"),
                           duration_s=42.5, steps=[step3, step4], discrepancies=discrepancies,
                           runs=_runs("ecs-instance-create-03", verdicts, checks=[
                               {"kind": "expect", "ok": True, "detail": "RunInstances InstanceName=blog-db-01",
                                "label": "run", "records": ["b1c2d3e4-0007"]}]))


def _fail_procedure() -> ProcedureReport:
    pid = "ecs-instance-create#create-an-instance-from-a-template"
    d = Discrepancy(id=f"{pid}/2/feature_removed", step=2, line=61, kind="feature_removed",
                    expected="click **Create from Launch Template**", observed="the Launch Template entry is gone from the menu",
                    source="agent", runs=2, evidence=Evidence(screenshot="screenshots/ecs-template-step2.png", agent_step=2, run=0))
    outcome = Discrepancy(id=f"{pid}/outcome_mismatch", step=None, kind="outcome_mismatch",
                          expected="RunInstances from a launch template", observed="no RunInstances record in the audit log",
                          source="outcome", runs=2, evidence=Evidence(audit_event_ids=[]))
    verdicts = ["FAIL", "FAIL", "DRIFT"]
    return ProcedureReport(id=pid, title="Create an instance from a launch template", line=55, goal="Launch from template web.",
                           verdict="FAIL", outcome_source="agent", consistency=_consistency(verdicts, "FAIL"), duration_s=61.0,
                           steps=[StepReport(id=f"{pid}/2", number=2, line=61, text="Click **Create from Launch Template**.",
                                             status="failed", agent_steps=[2], off_path=['goto("/ecs/templates")'],
                                             labels=[LabelUse(label="Create from Launch Template", match="missing")])],
                           discrepancies=[d, outcome],
                           runs=_runs("ecs-template", verdicts, status="unachievable", checks=[
                               {"kind": "expect", "ok": False, "detail": "no RunInstances by the console session", "label": "run",
                                "records": []}]))


def _error_procedure() -> ProcedureReport:
    pid = "keypair-create#create-a-key-pair"
    verdicts = ["ERROR"]
    return ProcedureReport(id=pid, title="Create a key pair", line=9, goal="Create key pair ops-key.", task="keypair-create-02",
                           verdict="ERROR", consistency=_consistency(verdicts, "ERROR"), duration_s=3.0,
                           runs=_runs("keypair-create-02", verdicts, status="env_error",
                                      cause="provisioning: CreateVpc failed: QuotaExceeded.Vpc"))


def build_report(extra_drift: int = 0) -> VerifyReport:
    """The report (without files); ``extra_drift`` adds that many DRIFT procedures (for the Markdown cap)."""
    pass_p, drift_p, fail_p, error_p = _pass_procedure(), _drift_procedure(), _fail_procedure(), _error_procedure()
    extra = []
    for i in range(extra_drift):
        p = _drift_procedure()
        pid = f"bulk-{i:03d}#create-an-instance"
        p = p.model_copy(update={"id": pid, "title": f"Bulk procedure {i:03d}", "discrepancies": [
            d.model_copy(update={"id": d.id.replace(drift_p.id, pid)}) for d in p.discrepancies]})
        extra.append(p)
    documents = [
        DocumentReport(id="vpc-create", path="docs/stratus/vpc/vpc-create.md", title="Create and manage a VPC", release="2026.03",
                       procedures=[pass_p]),
        DocumentReport(id="ecs-instance-create", path="docs/stratus/ecs/instance-create.md", title="Create an ECS instance",
                       release="2026.03", procedures=[drift_p, fail_p, *extra]),
        DocumentReport(id="keypair-create", path="docs/stratus/ecs/keypair-create.md", title="Create a key pair",
                       procedures=[error_p]),
        DocumentReport(id="overview", path="docs/stratus/overview.md", title="Overview", status="skipped",
                       reason="docs/stratus/overview.md: no procedure (no numbered steps under a heading)"),
        DocumentReport(id="broken", path="docs/stratus/broken.md", status="invalid",
                       reason="docs/stratus/broken.md:7: front matter is not valid YAML"),
    ]
    procs = [p for d in documents for p in d.procedures]
    kinds: dict[str, int] = {}
    for p in procs:
        for d in p.discrepancies:
            kinds[d.kind] = kinds.get(d.kind, 0) + 1
    summary = Summary(documents=len(documents), procedures=len(procs),
                      verdicts={v: sum(p.verdict == v for p in procs) for v in ("PASS", "DRIFT", "FAIL", "ERROR")},
                      skipped=1, invalid=1, discrepancies=sum(kinds.values()), by_kind=kinds)
    run = RunInfo(id="20261121T144700Z-ab12", created_at="2026-11-21T14:47:00Z", command="consoleagent verify docs/ --runs 2",
                  console="stratus (in-process)", release="2026.09", policy="docfollower", runs=2, workers=2, machine="ci-runner-3",
                  revision="0123abcd", duration_s=187.0)
    return VerifyReport(run=run, summary=summary, documents=documents)


def build_report_dir(out: Path, extra_drift: int = 0) -> VerifyReport:
    """Write the report with its screenshots, trajectories and viewers under ``out``; returns the report."""
    report = build_report(extra_drift)
    write_png(out / "screenshots/ecs-create-step3.png", box=(60, 80, 180, 36))
    write_png(out / "screenshots/ecs-create-step4.png", box=(20, 120, 260, 30), color=(154, 103, 0))
    write_png(out / "screenshots/ecs-template-step2.png", box=(100, 40, 120, 60))
    for proc in report.procedures():
        for run in proc.runs:
            (out / run.trajectory).parent.mkdir(parents=True, exist_ok=True)
            (out / run.trajectory).write_text(json.dumps({"episode_id": f"{proc.id}-{run.index}"}) + "\n", encoding="utf-8")
            (out / run.viewer).parent.mkdir(parents=True, exist_ok=True)
            (out / run.viewer).write_text(f"<!DOCTYPE html><title>viewer {run.index}</title><h1>viewer</h1>", encoding="utf-8")
    (out / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    return report
