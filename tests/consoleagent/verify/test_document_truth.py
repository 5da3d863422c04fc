"""Ground truth for documents without a task (``consoles/document_truth.py``): the shipped file loads and
names real documents and changes; a bad file is refused with the entry named; the evaluation scores a
document without a task against it, and leaves one without an entry unscored."""

from __future__ import annotations

from pathlib import Path

import pytest

from consoleagent.consoles import backend_class
from consoleagent.consoles.document_truth import TruthFileError, load_document_truth
from consoleagent.consoles.stratus.suite import DOCUMENTS_ROOT
from consoleagent.documents import load_document
from consoleagent.verify.evaluate import evaluate
from consoleagent.verify.model import Consistency, Discrepancy, DocumentReport, ProcedureReport, RunInfo, Summary, VerifyReport
from consoleagent.verify.targets import plan

STYLES = sorted(p for p in DOCUMENTS_ROOT.glob("stratus/*/styles/*") if p.suffix in {".md", ".rst", ".html"})


def test_the_shipped_truth_covers_every_style_document_on_both_releases() -> None:
    truth = backend_class("stratus")().ground_truth()
    ids = {load_document(path).id for path in STYLES}
    assert ids <= set(truth.documents)
    for document_id in ids:
        assert set(truth.documents[document_id]) == {"2026.03", "2026.09"}, document_id
        assert truth.documents[document_id]["2026.03"].discrepancies == []  # each followed by hand on its release
    suite_ids = {load_document(path).id for path in DOCUMENTS_ROOT.glob("stratus/*/*.md")}
    assert set(truth.documents) - ids <= suite_ids  # the rest are suite documents whose tasks say nothing of 2026.09
    kinds = {c.id: c.kind for c in truth.changes}
    drifted = {d: [kinds[x.change] for x in r["2026.09"].discrepancies] for d, r in truth.documents.items()}
    assert drifted["styles-tutorial-first-vswitch"] == ["label_changed", "field_added_required"]
    assert drifted["styles-alibaba-create-security-group"] == []


@pytest.mark.parametrize(("text", "message"), [
    ("documents: {d: {'2026.09': {discrepancies: [{change: no-such-change, step: 2}]}}}", "not in the console's changelog"),
    ("documents: {d: {'2026.03': {discrepancies: [{change: vpc-2026.09-create-vpc-label, step: 2}]}}}", "belongs to release 2026.09"),
    ("documents: {d: {'2026.09': {discrepancies: [{change: vpc-2026.09-create-vpc-label, step: 0}]}}}", "discrepancies.0.step"),
    ("documents: {d: {'2026.09': {verdict: PASS}}}", "verdict"),
    ("documents: [a, b]", "needs a mapping"),
    ("documents: {d: {'2026.09': [}", "not YAML"),
])
def test_a_bad_truth_file_names_the_entry_and_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "truth.yaml"
    path.write_text(text, encoding="utf-8")
    changes = backend_class("stratus")().ground_truth().changes
    with pytest.raises(TruthFileError, match=message) as error:
        load_document_truth(path, changes)
    assert str(path) in str(error.value)
    assert load_document_truth(tmp_path / "absent.yaml", changes) == {}


def _report(release: str, verdicts: dict[str, tuple[str, list[tuple[int, str]]]]) -> VerifyReport:
    procedures = [ProcedureReport(id=pid, title="t", line=1, goal="g", verdict=verdict,
                                  consistency=Consistency(runs=1, verdicts={verdict: 1}, agreement=1.0),
                                  discrepancies=[Discrepancy(id=f"{pid}/{s}", step=s, kind=k, expected="e", observed="o",
                                                             source="agent") for s, k in found])
                  for pid, (verdict, found) in verdicts.items()]
    return VerifyReport(run=RunInfo(id="x", created_at="now", console="stratus", release=release, policy="p", runs=1, workers=1),
                        summary=Summary(documents=len(procedures), procedures=len(procedures), verdicts={}),
                        documents=[DocumentReport(id="d", path="p", procedures=procedures)])


def test_a_document_without_a_task_is_scored_against_its_written_truth() -> None:
    tutorial = DOCUMENTS_ROOT / "stratus/vpc/styles/tutorial-first-vswitch.md"
    stop = DOCUMENTS_ROOT / "stratus/ecs/styles/html-stop-instance.html"
    work = plan([tutorial, stop], "2026.09", [])
    assert all(t.origin is None for t in work.targets)
    ids = {t.document.id: t.procedure_id for t in work.targets}
    report = _report("2026.09", {
        ids["styles-tutorial-first-vswitch"]: ("DRIFT", [(1, "label_changed")]),  # the required description missed
        ids["styles-html-stop-instance"]: ("PASS", []),  # the renamed menu group missed
    })
    scores = evaluate(report, work.targets)
    assert scores["procedures"]["scored"] == 2 and scores["procedures"]["unscored"] == 0
    assert scores["discrepancies"]["tp"] == 1 and scores["discrepancies"]["fn"] == 2
    assert scores["confusion"] == {"DRIFT": {"DRIFT": 1, "PASS": 1}}
    # a release the file says nothing about stays unscored, loudly counted as such
    unknown = evaluate(_report("2027.01", {ids["styles-html-stop-instance"]: ("PASS", [])}), work.targets)
    assert unknown["procedures"]["unscored"] == 1 and unknown["verdicts"]["accuracy"] is None


def test_written_truth_scores_a_document_whose_task_is_on_another_release_and_whose_pages_changed() -> None:
    """vpc-release-eip has a task on 2026.03 only, and 2026.09 changes the EIP page: the changelog alone cannot
    say whether the procedure broke, the hand-written entry does; without one it stays unscored."""
    from consoleagent.consoles.base import GroundTruth
    from consoleagent.suite.catalog import load_suite
    from consoleagent.verify.evaluate import ground_truth

    release_eip = DOCUMENTS_ROOT / "stratus/vpc/release-eip.md"
    [target] = plan([release_eip], "2026.09", load_suite("vpc-release-eip-*")).targets
    assert target.origin is not None and target.origin.release == "2026.03"
    truth = backend_class("stratus")().ground_truth()
    assert ground_truth(target, "2026.09", truth).verdict == "PASS"
    without = GroundTruth(truth.releases, truth.changes, {})
    assert ground_truth(target, "2026.09", without) is None
