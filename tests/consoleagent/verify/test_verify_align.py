"""Aligning runs with documents, classifying discrepancies and proposing fixes (``consoleagent.verify``).

Real trajectories first: the doc follower and the oracle play tasks of the drifted release (and one of
the base release) through the bench harness, with marked screenshots, in one stratus; their runs are
aligned with the tasks' documents and the discrepancies compared with the tasks' ground truth (the
release changelog's kinds at the documented steps). With the oracle's own reports removed, what the
alignment infers alone must still be inside the ground truth: precision first. Then the edge cases on
hand-built step records: kinds agents misspell, duplicates, reports at impossible steps, footer-only
reports, interrupted runs, contradicted reports, sub-steps, and one proposed fix per kind.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.documents.procedure import parse_procedure
from consoleagent.suite import DOCUMENTS_ROOT
from consoleagent.suite.catalog import load_suite
from consoleagent.trajectory.reader import Trajectory, read_trajectory
from consoleagent.verify.align import relation
from consoleagent.verify.aligner import align_run
from consoleagent.verify.classify import normalize_kind
from consoleagent.verify.fixes import Observed, propose_fix
from consoleagent.verify.model import Discrepancy, Evidence, ProcedureReport, StepReport
from stratus.releases import changelog

KINDS = {change.id: change.kind for change in changelog()}
DOCFOLLOWER_TASKS = ["vpc-create-vpc-03", "ecs-sg-inbound-rule-03", "vpc-create-vpc-01"]
ORACLE_TASKS = ["ecs-instance-create-03", "vpc-create-vswitch-02"]


# --- real runs ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(playwright_instance: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """task id -> bench results directory, for the doc follower's and the oracle's tasks, in one stratus."""
    from consoleagent.adapters.stratus import StratusAdapter

    adapter = StratusAdapter(time_scale=50.0)
    adapter.start()
    try:
        out: dict[str, Path] = {}
        for policy, ids in (("docfollower", DOCFOLLOWER_TASKS), ("oracle", ORACLE_TASKS)):
            results = tmp_path_factory.mktemp(policy)
            config = BenchConfig(results_dir=results, policy=policy, runs=1, console="stratus",
                                 console_options={"url": adapter.base_url, "admin_token": adapter.admin_token,
                                                  "delivery_delay_s": 0.0},
                                 plots=False, screenshots=True)
            run_bench(config, [t for t in load_suite() if t.id in ids], playwright=playwright_instance)
            out.update({task_id: results for task_id in ids})
        yield out
    finally:
        adapter.stop()


def aligned(runs: dict[str, Path], task_id: str, strip_reports: bool = False) -> tuple[Any, set[tuple[int, str]]]:
    """The alignment of a task's run 0, and the task's ground truth as (step, kind)."""
    task = load_suite(task_id)[0]
    procedure = task.procedure(DOCUMENTS_ROOT)
    trajectory = read_trajectory(runs[task_id] / "trajectories" / f"{task_id}-run0.jsonl")
    if strip_reports:
        trajectory = without_reports(trajectory)
    result = align_run(procedure, trajectory, procedure_id=f"{task.document}#procedure", run=0, report_dir=runs[task_id])
    return result, {(d.step, KINDS[d.change]) for d in task.discrepancies}


def without_reports(trajectory: Trajectory) -> Trajectory:
    """The same run as if the agent had reported nothing: what the alignment finds on its own."""
    bare = copy.deepcopy(trajectory)
    bare.steps = [s for s in bare.steps if (s.get("parsed") or {}).get("name") != "report_discrepancy"]
    if bare.footer is not None:
        bare.footer["discrepancies"] = []
    return bare


def found(result: Any) -> set[tuple[int | None, str]]:
    return {(d.step, d.kind) for d in result.discrepancies}


@pytest.mark.browser
def test_a_renamed_button_is_drift_at_its_step_with_a_fix_and_a_screenshot(runs: dict[str, Path]) -> None:
    result, truth = aligned(runs, "vpc-create-vpc-03")
    [renamed] = result.discrepancies
    assert (renamed.step, renamed.kind) in truth and renamed.source == "agent"
    assert renamed.id == "stratus/vpc/create-vpc.md#procedure/4/label_changed" and renamed.line is not None
    assert renamed.fix is not None and "**Create a VPC**" in renamed.fix.proposed
    assert "**Create VPC**" in renamed.fix.original and "**Create VPC**" not in renamed.fix.proposed
    screenshot = runs["vpc-create-vpc-03"] / renamed.evidence.screenshot
    assert screenshot.is_file() and screenshot.suffix == ".png" and not Path(renamed.evidence.screenshot).is_absolute()
    assert renamed.evidence.run == 0 and renamed.evidence.trajectory.endswith("vpc-create-vpc-03-run0.jsonl")
    assert any('"Create a VPC"' in e for e in renamed.evidence.observed_elements)

    step4 = result.steps[3]
    assert step4.id == "stratus/vpc/create-vpc.md#procedure/4" and step4.status == "drift" and step4.agent_steps
    assert [(u.label, u.match, u.observed) for u in step4.labels] == [("Create VPC", "renamed", "Create a VPC")]
    assert step4.screenshot and (runs["vpc-create-vpc-03"] / step4.screenshot).is_file()
    assert [s.status for s in result.steps[4:6]] == ["ok", "ok"]  # the form and OK, as documented
    ProcedureReport(id="p", title="t", line=1, goal="g", verdict="DRIFT",
                    consistency={"runs": 1, "verdicts": {"DRIFT": 1}, "agreement": 1.0},
                    steps=result.steps, discrepancies=result.discrepancies)  # fits the canonical model


@pytest.mark.browser
def test_the_same_procedure_on_the_base_release_has_no_discrepancy(runs: dict[str, Path]) -> None:
    result, truth = aligned(runs, "vpc-create-vpc-01")
    assert truth == set() and result.discrepancies == [] and result.outcome_reports == []
    assert {s.status for s in result.steps} <= {"ok", "skipped"}
    assert all(u.match == "exact" for s in result.steps for u in s.labels)
    assert all(not s.undocumented_inputs and not s.off_path for s in result.steps)


@pytest.mark.browser
def test_renames_are_found_and_nothing_outside_the_ground_truth(runs: dict[str, Path]) -> None:
    """The doc follower recognises "Add Rule" in "Add Security Group Rule" and reports it; the tab rename it
    does not report ("Inbound" → "Inbound Rules") is inferred by the alignment."""
    result, truth = aligned(runs, "ecs-sg-inbound-rule-03")
    assert found(result) <= truth, found(result) - truth  # nothing outside the ground truth
    by_step = {d.step: d for d in result.discrepancies}
    assert by_step[6].kind == "label_changed" and by_step[6].observed == "Add Security Group Rule"
    assert "**Add Security Group Rule**" in by_step[6].fix.proposed
    assert by_step[5].kind == "label_changed" and by_step[5].observed == "Inbound Rules"
    assert by_step[5].source == "alignment"
    assert by_step[7].kind == "field_added_required"  # the dialog opened: its new required field is met


@pytest.mark.browser
def test_the_oracle_reports_are_classified_against_the_ground_truth(runs: dict[str, Path]) -> None:
    result, truth = aligned(runs, "ecs-instance-create-03")
    assert found(result) == truth
    assert all(d.source == "agent" and d.evidence.screenshot for d in result.discrepancies)
    assert all(d.fix is not None for d in result.discrepancies)
    fixes = {(d.step, d.kind): d.fix for d in result.discrepancies}
    assert "choose **Instances** > **Instances**" in fixes[(2, "label_changed")].proposed
    assert "**Create Instance**" in fixes[(8, "label_changed")].proposed
    assert "blog-db-01" in fixes[(6, "field_added_required")].proposed
    # No document_step in the oracle's records: the steps are inferred from the labels acted on.
    steps = {s.number: s for s in result.steps}
    network = [a for a in steps[5].agent_steps]
    assert network and steps[7].agent_steps, [(s.number, s.agent_steps) for s in result.steps]
    assert steps[4].status == "drift" and steps[9].status in ("ok", "skipped")


@pytest.mark.browser
@pytest.mark.parametrize("task_id", ORACLE_TASKS)
def test_what_the_alignment_infers_alone_is_inside_the_ground_truth(runs: dict[str, Path], task_id: str) -> None:
    result, truth = aligned(runs, task_id, strip_reports=True)
    assert found(result) <= truth, found(result) - truth
    assert all(d.source == "alignment" for d in result.discrepancies)
    if task_id == "ecs-instance-create-03":  # group rename, page title, new default, required name
        assert {(2, "label_changed"), (4, "label_changed"), (4, "default_changed"), (6, "field_added_required")} <= found(result)
    else:  # "vSwitches" -> "Subnets (vSwitches)", and the Description the console now requires
        assert found(result) == truth
        [required] = [d for d in result.discrepancies if d.kind == "field_added_required"]
        assert "Description" in required.observed and "**Description**" in required.fix.proposed


# --- hand-built runs ------------------------------------------------------------------------------

DOC = """# Create a widget

## Procedure

1. In the left-side navigation pane, choose **Tools** > **Widgets**.
2. On the Widgets page, click **Create Widget**.
3. In the dialog box, configure the widget.

   | Parameter | Description | Example |
   | --- | --- | --- |
   | **Name** | The name of the widget. | w-01 |
   | **Size** | Optional. The size. The default value is 5. | 5 |

4. Click **OK**.
5. Open the widget:
   1. Click **Details**.
   2. Click **Refresh**.
"""


def mark(id_: int, role: str, name: str, **extra: Any) -> dict[str, Any]:
    return {"id": id_, "role": role, "name": name, "states": [], "bbox": [300, 100 + 10 * id_, 100, 20], **extra}


def record(n: int, action: str, name: str, args: dict[str, Any], marks: list[dict[str, Any]], *,
           step: int | None = None, result: str = "ok", discrepancy: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "step", "step": n, "url": f"http://c/{n}", "title": "Widgets", "observation": "", "action": action,
            "parsed": {"name": name, "args": args}, "result": result, "document_step": step, "screenshot": None,
            "marks": marks, "discrepancy": discrepancy}


def report(n: int, step: int, kind: str, expected: str, observed: str, marks: list[dict[str, Any]] | None = None,
           declared: int | None = None) -> dict[str, Any]:
    args = {"step": step, "kind": kind, "expected": expected, "observed": observed}
    return record(n, f"report_discrepancy({step}, ...)", "report_discrepancy", args, marks or [], step=declared,
                  discrepancy=args)


NAV = [mark(1, "button", "Tools", states=["expanded"], bbox=[0, 100, 200, 30]),
       mark(2, "link", "Widgets", bbox=[0, 130, 200, 30])]


def trajectory(tmp_path: Path, steps: list[dict[str, Any]], status: str | None = "completed",
               footer_discrepancies: list[dict[str, Any]] | None = None) -> Trajectory:
    footer = None
    if status is not None:
        reported = [s["discrepancy"] for s in steps if s.get("discrepancy")]
        footer = {"type": "footer", "status": status, "steps": len(steps), "duration_s": 1.0,
                  "discrepancies": reported + (footer_discrepancies or [])}
    header = {"type": "header", "task": {"id": "t", "goal": "Create the widget w-01."}}
    return Trajectory(tmp_path / "t-run0.jsonl", header, steps, footer, interrupted=footer is None)


def run_of(tmp_path: Path, steps: list[dict[str, Any]], **kwargs: Any) -> Any:
    return align_run(parse_procedure(DOC), trajectory(tmp_path, steps, **kwargs), procedure_id="doc#create",
                     run=1, report_dir=tmp_path)


def happy_steps() -> list[dict[str, Any]]:
    form = [mark(5, "textbox", "Name"), mark(6, "spinbutton", "Size", value="5"), mark(7, "button", "OK")]
    return [record(1, "click(2)", "click", {"id": 2}, NAV),
            record(2, "click(3)", "click", {"id": 3}, [mark(3, "button", "Create Widget")]),
            record(3, 'type(5, "w-01")', "type", {"id": 5, "text": "w-01"}, form),
            record(4, "click(7)", "click", {"id": 7}, form),
            record(5, "click(8)", "click", {"id": 8}, [mark(8, "link", "Details"), mark(9, "button", "Refresh")]),
            record(6, "click(9)", "click", {"id": 9}, [mark(9, "button", "Refresh")])]


def test_a_documented_run_aligns_by_labels_alone(tmp_path: Path) -> None:
    result = run_of(tmp_path, happy_steps())
    assert result.discrepancies == []
    assert [(s.number, s.status, s.agent_steps) for s in result.steps] == [
        (1, "ok", [1]), (2, "ok", [2]), (3, "ok", [3]), (4, "ok", [4]), (5, "ok", [5, 6])]
    assert [(s.id, s.status, s.agent_steps) for s in result.steps[4].substeps] == [
        ("doc#create/5.1", "ok", [5]), ("doc#create/5.2", "ok", [6])]


def test_agent_kinds_are_normalised_deduplicated_and_placed(tmp_path: Path) -> None:
    steps = happy_steps()
    marks = [mark(3, "button", "Make Widget")]
    steps[1:2] = [report(2, 2, "Label Changed", "Create Widget", "Make Widget", marks),
                  report(3, 2, "renamed", "'Create Widget'", "'Make Widget'", marks),
                  report(4, 99, "moved", "Tools > Widgets", "Admin > Widgets", marks, declared=2),
                  record(5, "click(3)", "click", {"id": 3}, marks)]
    result = run_of(tmp_path, steps, footer_discrepancies=[{"step": 4, "kind": "default", "expected": "5",
                                                            "observed": "1"}])
    kinds = [(d.id, d.source, d.evidence.agent_step) for d in result.discrepancies]
    assert kinds == [("doc#create/2/label_changed", "agent", 2), ("doc#create/2/navigation_changed", "agent", 4),
                     ("doc#create/4/default_changed", "agent", None)]
    assert result.discrepancies[0].evidence.observed_elements == ['button "Make Widget"']
    assert result.steps[1].status == "drift"
    assert normalize_kind("Element-Removed") == "element_removed" and normalize_kind("whatever") is None
    assert normalize_kind("lable_changed") == "label_changed"


def test_outcome_reports_are_kept_apart_for_the_verdict(tmp_path: Path) -> None:
    steps = happy_steps() + [report(7, 4, "outcome_mismatch", "the page shows 'Ready'", "not shown")]
    result = run_of(tmp_path, steps)
    assert result.discrepancies == []
    assert [d.id for d in result.outcome_reports] == ["doc#create/4/outcome_mismatch"]


def test_a_report_the_page_contradicts_is_dropped_and_cascades_too(tmp_path: Path) -> None:
    page = [mark(3, "button", "Create Widget")]
    steps = [record(1, "click(2)", "click", {"id": 2}, NAV),
             report(2, 2, "element_removed", "an element named 'Create Widget'", "not found", page, declared=2),
             record(3, "click(3)", "click", {"id": 3}, page, step=2),
             record(4, "scroll", "scroll", {"direction": "down"}, [], step=3),
             report(5, 3, "element_removed", "an element named 'Name'", "not found", [], declared=3),
             record(6, "scroll", "scroll", {"direction": "down"}, [], step=4),
             report(7, 4, "element_removed", "an element named 'OK'", "not found", [], declared=4)]
    result = run_of(tmp_path, steps)
    # "Create Widget" was on the page; "OK" is a consequence of the missing "Name" (nothing done in between).
    assert [d.id for d in result.discrepancies] == ["doc#create/3/element_removed"]
    # the agent saw nothing in its place: no fix removes the row (the field may have been renamed or moved)
    assert result.discrepancies[0].fix is None
    assert [s.status for s in result.steps[1:4]] == ["ok", "failed", "failed"]


def test_an_interrupted_run_leaves_later_steps_not_reached(tmp_path: Path) -> None:
    result = run_of(tmp_path, happy_steps()[:2], status=None)
    assert [s.status for s in result.steps] == ["ok", "ok", "not_reached", "not_reached", "not_reached"]
    truncated = run_of(tmp_path, happy_steps()[:3], status="truncated")
    assert [s.status for s in truncated.steps][2:] == ["failed", "not_reached", "not_reached"]


def test_alignment_infers_only_what_the_page_proves(tmp_path: Path) -> None:
    """A rename with added words, a required field the document calls optional, a changed default, a moved
    menu item; but not a near-miss name it cannot be sure of, nor an unnamed field it was not made to fill."""
    nav = [mark(1, "button", "Tools", states=["expanded"], bbox=[0, 100, 200, 30]),
           mark(2, "button", "Admin", states=["expanded"], bbox=[0, 140, 200, 30]),
           mark(3, "link", "Widgets", bbox=[0, 170, 200, 30])]
    form = [mark(5, "textbox", "Name"), mark(6, "spinbutton", "Size", value="1", states=["required"]),
            mark(8, "textbox", "Colour"), mark(7, "button", "OK")]
    steps = [record(1, "click(3)", "click", {"id": 3}, nav),
             record(2, "click(4)", "click", {"id": 4}, [mark(4, "button", "Create New Widget 3")]),
             record(3, 'type(5, "w-01")', "type", {"id": 5, "text": "w-01"}, form),
             record(4, 'type(6, "5")', "type", {"id": 6, "text": "5"}, form),
             record(5, 'type(8, "red")', "type", {"id": 8, "text": "red"}, form),
             record(6, "click(7)", "click", {"id": 7}, form)]
    result = run_of(tmp_path, steps)
    got = {(d.step, d.kind): d for d in result.discrepancies}
    assert set(got) == {(1, "navigation_changed"), (2, "label_changed"), (3, "field_added_required"),
                        (3, "default_changed")}
    assert all(d.source == "alignment" for d in got.values())
    assert got[(1, "navigation_changed")].observed == "Admin > Widgets"
    assert "choose **Admin** > **Widgets**" in got[(1, "navigation_changed")].fix.proposed
    assert got[(2, "label_changed")].observed == "Create New Widget" and got[(2, "label_changed")].evidence.agent_step == 2
    assert got[(3, "default_changed")].expected == "Size: 5" and got[(3, "default_changed")].observed == "Size: 1"
    assert "**Create New Widget**" in got[(2, "label_changed")].fix.proposed
    assert [(i.field, i.value) for i in result.steps[2].undocumented_inputs] == [("Colour", "red")]
    assert relation("Create Widget", "Create Widgets") == "renamed" and relation("Inbound", "Inbound 3") == "exact"
    assert relation("More", "More actions for the build cache instance") is None


def test_a_moved_menu_item_is_found_on_the_page_of_the_step_that_shows_the_menu(tmp_path: Path) -> None:
    """"Open the console and go to **Tools** > **Widgets**": the step's first page is the console's home,
    without the menu; the path is checked on the first page of the step that shows its link."""
    home = [mark(10, "link", "Widget Service")]
    nav = [mark(1, "button", "Admin", states=["expanded"], bbox=[0, 100, 200, 30]),
           mark(2, "link", "Widgets", bbox=[0, 130, 200, 30])]
    steps = [record(1, "click(10)", "click", {"id": 10}, home, step=1), record(2, "click(2)", "click", {"id": 2}, nav, step=1),
             *happy_steps()[1:]]
    result = run_of(tmp_path, steps)
    assert [(d.step, d.kind, d.observed) for d in result.discrepancies] == [(1, "navigation_changed", "Admin > Widgets")]


# --- proposed fixes ------------------------------------------------------------------------------


def discrepancy(kind: str, expected: str, observed: str, step: int = 1) -> Discrepancy:
    return Discrepancy(id=f"d/{step}/{kind}", step=step, kind=kind, expected=expected, observed=observed,  # type: ignore[arg-type]
                       source="agent", evidence=Evidence(agent_step=3))


def test_each_kind_gets_a_fix_grounded_in_what_was_observed() -> None:
    steps = parse_procedure(DOC).steps
    fix = propose_fix(steps[1], discrepancy("label_changed", "Create Widget", "Make Widget"), Observed())
    assert fix.proposed == "On the Widgets page, click **Make Widget**." and "Make Widget" in fix.rationale

    fix = propose_fix(steps[0], discrepancy("navigation_changed", "Tools > Widgets", "not in Tools"),
                      Observed(clicks=["Admin", "Widgets"]))
    assert "choose **Admin** > **Widgets**" in fix.proposed
    assert propose_fix(steps[0], discrepancy("navigation_changed", "x", "y"), Observed()) is None  # nothing observed

    fix = propose_fix(steps[1], discrepancy("element_removed", "an element named 'Create Widget'", "gone"),
                      Observed(clicks=["More", "New"]))
    assert fix.proposed == "Click **More** > **New**."
    # nothing seen in its place: not finding an element is no evidence the step should go (it may be renamed)
    assert propose_fix(steps[3], discrepancy("element_removed", "an element named 'OK'", "gone"), Observed()) is None
    # a fix never writes what the test provisioned into the document
    renamed = discrepancy("label_changed", "Create Widget", "More actions for meta-warehouse")
    assert propose_fix(steps[1], renamed, Observed(), run_names=frozenset({"meta-warehouse"})) is None
    assert propose_fix(steps[1], renamed, Observed()) is not None

    fix = propose_fix(steps[2], discrepancy("field_added_required", "no Colour field", "Colour (required)", 3),
                      Observed(inputs=[("Colour", "red")]))
    assert "**Colour** (required), for example **red**" in fix.proposed and "red" in fix.rationale

    fix = propose_fix(steps[2], discrepancy("default_changed", "5", "1", 3), Observed())
    assert "The default of **Size** is now **1** (it was 5)" in fix.proposed

    fix = propose_fix(steps[3], discrepancy("step_order_changed", "Summary", "Tags", 4), Observed())
    assert "**Tags**" in fix.proposed and "before **Summary**" in fix.proposed

    fix = propose_fix(steps[3], discrepancy("feature_removed", "OK", "widgets can no longer be created", 4), Observed())
    assert "can no longer be done" in fix.proposed and "widgets can no longer be created" in fix.proposed
    assert propose_fix(steps[3], discrepancy("outcome_mismatch", "a", "b", 4), Observed()) is None


def test_step_report_ids_are_stable(tmp_path: Path) -> None:
    first, second = run_of(tmp_path, happy_steps()), run_of(tmp_path, happy_steps())
    assert [s.id for s in first.steps] == [s.id for s in second.steps] == [f"doc#create/{n}" for n in range(1, 6)]
    assert all(isinstance(s, StepReport) for s in first.steps)


def test_not_found_reports_from_a_page_the_menu_path_never_left_are_dropped(tmp_path: Path) -> None:
    """The agent clicked the menu group instead of its link and stayed on the overview: that "Create Widget"
    is missing there proves nothing, nor does a "Title" in the place of "Name"; a rename that keeps the
    label's words ("OK Button") still counts."""
    group_only = [mark(1, "button", "Widgets", states=["expanded"], bbox=[0, 100, 200, 30]),
                  mark(4, "link", "Make Widget Now")]
    steps = [record(1, "click(1)", "click", {"id": 1}, group_only, step=1),
             report(2, 2, "element_removed", "an element named 'Create Widget'", "not on /overview", group_only,
                    declared=2),
             report(3, 3, "label_changed", "Name", "Title", group_only, declared=3),
             report(4, 4, "label_changed", "OK", "OK Button", group_only, declared=4)]
    for record_ in steps:
        record_["url"] = "http://c/overview"
    doc = DOC.replace("choose **Tools** > **Widgets**", "choose **Widgets** > **Widgets**")
    result = align_run(parse_procedure(doc), trajectory(tmp_path, steps), procedure_id="doc#create", run=0,
                       report_dir=tmp_path)
    assert [(d.step, d.kind) for d in result.discrepancies] == [(4, "label_changed")]


def test_a_rename_the_document_already_names_as_an_alternative_is_no_rename(tmp_path: Path) -> None:
    doc = DOC.replace("click **Create Widget**", "click **Create Widget** or **Make Widget**")
    steps = [record(1, "click(2)", "click", {"id": 2}, NAV),
             report(2, 2, "label_changed", "Create Widget or Make Widget", "Make Widget", [mark(3, "button", "Make Widget")])]
    result = align_run(parse_procedure(doc), trajectory(tmp_path, steps), procedure_id="doc#create", run=0,
                       report_dir=tmp_path)
    assert result.discrepancies == []


def test_a_removed_element_the_agent_cannot_get_past_is_a_removed_feature(tmp_path: Path) -> None:
    steps = [record(1, "click(2)", "click", {"id": 2}, NAV),
             report(2, 2, "element_removed", "an element named 'Create Widget'", "not on the page", [], declared=2),
             record(3, 'task_unachievable("no way to create a widget")', "task_unachievable",
                    {"reason": "no way to create a widget"}, [], step=2)]
    result = run_of(tmp_path, steps, status="unachievable")
    [gone] = result.discrepancies
    assert (gone.step, gone.kind, gone.source) == (2, "feature_removed", "alignment")
    assert "can no longer be done" in gone.fix.proposed and result.steps[1].status == "failed"
    carried_on = run_of(tmp_path, steps[:2] + [record(3, "click(9)", "click", {"id": 9}, [mark(9, "button", "New")], step=2)])
    assert [d.kind for d in carried_on.discrepancies] == ["element_removed"]


def test_a_changed_default_among_radios_the_document_names_one_of(tmp_path: Path) -> None:
    """Measured on 2026.09: "The default category is **Ultra Disk**" while the dialog opened on ESSD; with one
    choice named, its radios were not recognised as the field's and the change went unreported."""
    doc = ("# Create a disk\n\n## Procedure\n\n1. Configure the disk.\n\n   | Parameter | Description | Example |\n"
           "   | --- | --- | --- |\n   | **Disk category** | The category. The default category is **Ultra Disk**. | Ultra Disk |\n\n"
           "2. Click **Create**.\n")
    row = [mark(90, "radio", "ESSD", states=["checked"], bbox=[360, 222, 68, 32]),
           mark(91, "radio", "Standard SSD", bbox=[428, 222, 122, 32]), mark(92, "radio", "Ultra Disk", bbox=[551, 222, 96, 32]),
           mark(93, "radio", "Shared", bbox=[360, 300, 96, 32]), mark(94, "button", "Create")]
    steps = [record(1, "check(92)", "check", {"id": 92}, row), record(2, "click(94)", "click", {"id": 94}, row)]
    result = align_run(parse_procedure(doc), trajectory(tmp_path, steps), procedure_id="d#p", run=1, report_dir=tmp_path)
    [changed] = [d for d in result.discrepancies if d.kind == "default_changed"]
    assert changed.step == 1 and changed.expected == "Disk category: Ultra Disk" and changed.observed == "Disk category: ESSD"
