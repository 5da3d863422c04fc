"""``consoleagent verify --evaluate``: how well a verification found the drift that is really there.

The ground truth is the suite's, not the verifier's: the release changelog says what changed on
which console page, and each task on a later release lists the document steps those changes break
(``discrepancies: [{change, step}]``). A procedure verified on its task's release is scored against
that list; one whose task is on another release is scored only when no change between the
document's release and the verified one touches a page the document visits (then the truth is
"nothing drifted"). A document without a task, or one whose pages a change touches, is scored where
the console's ground truth has a hand-written entry for it on the verified release
(``GroundTruth.documents``, stratus: ``suite/documents/truth.yaml``). Anything else is left unscored
and counted as such.

A predicted discrepancy is a true positive when the truth has the same kind at the same step
(strict); the lenient figures accept the same kind anywhere in the procedure. ``outcome_mismatch``
and ``env_error`` describe a run, not the document, and have no ground truth: they are counted
apart. Verdicts are scored as a confusion matrix (truth: FAIL for a task expected to be
unachievable, DRIFT when it lists discrepancies, PASS otherwise; runs spoiled by the environment are
left out).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from consoleagent.verify.model import VERDICTS, VerifyReport
from consoleagent.consoles.base import GroundTruth
from consoleagent.verify.targets import Target

UNSCORED_KINDS = ("outcome_mismatch", "env_error")


@dataclass
class Truth:
    verdict: str
    discrepancies: set[tuple[int, str]]  # (document step, kind)


def ground_truth(target: Target, release: str, source: GroundTruth | None = None) -> Truth | None:
    """What the suite says the verification of this procedure on ``release`` must find, if it knows.

    ``source`` is the console backend's ground truth (stratus: its release changelog; default:
    stratus's). A console without one (``None`` from its backend, passed as ``GroundTruth([], [])``)
    is scored only where its task runs on the verified release."""
    if source is None:
        source = _stratus_truth()
    releases, changes = source.releases, source.changes
    task = target.origin
    written = (source.documents or {}).get(target.document.id, {}).get(release)
    hand_written = _truth(written, changes) if written is not None else None
    if task is None:  # a document without a task: scored only where its truth was written down by hand
        return hand_written
    if task.release == release:
        return _truth(task, changes)
    if not releases or release not in releases:
        return hand_written
    doc_release = target.document.release or releases[0]
    pages = set(target.document.front_matter.get("pages") or [])
    window = releases[releases.index(doc_release) + 1: releases.index(release) + 1] if doc_release in releases else []
    if not pages or any(c.release in window and c.page in pages for c in changes):
        return hand_written  # a change touches its pages: only someone who read them knows whether it breaks a step
    return Truth("PASS", set())


def _truth(entry: Any, changes: list[Any]) -> Truth:
    """A task's or a document's expectation (``expected``, ``discrepancies: [{change, step}]``) as a Truth."""
    kinds = {c.id: c.kind for c in changes}
    found = {(d.step, kinds[d.change]) for d in entry.discrepancies}
    verdict = "FAIL" if entry.expected == "unachievable" else "DRIFT" if found else "PASS"
    return Truth(verdict, found)


def _stratus_truth() -> GroundTruth:
    from consoleagent.consoles import DEFAULT_CONSOLE, backend_class

    return backend_class(DEFAULT_CONSOLE)().ground_truth()


def prf(tp: int, fp: int, fn: int) -> dict[str, float | int | None]:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if precision == 0 or recall == 0 else None)
    return {"tp": tp, "fp": fp, "fn": fn, "precision": _round(precision), "recall": _round(recall), "f1": _round(f1)}


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def evaluate(report: VerifyReport, targets: list[Target], truth_source: GroundTruth | None = None) -> dict[str, Any]:
    """Precision, recall and F1 of discrepancies (overall, lenient, per kind) and of verdicts, against
    the console backend's ground truth (``truth_source``; default: stratus's changelog)."""
    release = report.run.release or ""
    by_id = {t.procedure_id: t for t in targets}
    strict: Counter[str] = Counter()
    lenient: Counter[str] = Counter()
    per_kind: dict[str, Counter[str]] = {}
    confusion: dict[str, Counter[str]] = {v: Counter() for v in VERDICTS}
    unscored_kinds: Counter[str] = Counter()
    counts = Counter()
    misses: list[dict[str, Any]] = []
    durations = []
    for procedure in report.procedures():
        target = by_id.get(procedure.id)
        truth = ground_truth(target, release, truth_source) if target else None
        if truth is None:
            counts["unscored"] += 1
            continue
        if procedure.verdict == "ERROR":
            counts["error"] += 1
            continue
        counts["scored"] += 1
        durations.append(procedure.duration_s)
        confusion[truth.verdict][procedure.verdict] += 1
        predicted = {(d.step, d.kind) for d in procedure.discrepancies if d.kind not in UNSCORED_KINDS and d.step is not None}
        unscored_kinds.update(d.kind for d in procedure.discrepancies if d.kind in UNSCORED_KINDS)
        _score(predicted, truth.discrepancies, strict, per_kind)
        truth_kinds, predicted_kinds = Counter(k for _, k in truth.discrepancies), Counter(k for _, k in predicted)
        lenient["tp"] += sum((truth_kinds & predicted_kinds).values())
        lenient["fp"] += sum((predicted_kinds - truth_kinds).values())
        lenient["fn"] += sum((truth_kinds - predicted_kinds).values())
        if predicted != truth.discrepancies or procedure.verdict != truth.verdict:
            misses.append({"procedure": procedure.id, "truth_verdict": truth.verdict, "verdict": procedure.verdict,
                           "missed": sorted(truth.discrepancies - predicted), "extra": sorted(predicted - truth.discrepancies)})
    return {
        "release": release, "policy": report.run.policy, "runs": report.run.runs,
        "procedures": {"total": len(report.procedures()), **{k: counts[k] for k in ("scored", "unscored", "error")}},
        "discrepancies": prf(strict["tp"], strict["fp"], strict["fn"]),
        "discrepancies_lenient": prf(lenient["tp"], lenient["fp"], lenient["fn"]),
        "by_kind": {kind: prf(c["tp"], c["fp"], c["fn"]) for kind, c in sorted(per_kind.items())},
        "not_scored": dict(unscored_kinds),
        "verdicts": _verdict_scores(confusion),
        "confusion": {truth: dict(row) for truth, row in confusion.items() if row},
        "seconds_per_procedure": round(sum(durations) / len(durations), 2) if durations else None,
        "misses": misses,
    }


def _score(predicted: set[tuple[int, str]], truth: set[tuple[int, str]], total: Counter[str],
           per_kind: dict[str, Counter[str]]) -> None:
    for item in predicted | truth:
        outcome = "tp" if item in predicted and item in truth else "fp" if item in predicted else "fn"
        total[outcome] += 1
        per_kind.setdefault(item[1], Counter())[outcome] += 1


def _verdict_scores(confusion: dict[str, Counter[str]]) -> dict[str, Any]:
    scores: dict[str, Any] = {}
    total = sum(sum(row.values()) for row in confusion.values())
    correct = sum(confusion[v][v] for v in VERDICTS)
    for verdict in VERDICTS:
        tp = confusion[verdict][verdict]
        fp = sum(confusion[t][verdict] for t in VERDICTS if t != verdict)
        fn = sum(n for v, n in confusion[verdict].items() if v != verdict)
        if tp or fp or fn:
            scores[verdict] = prf(tp, fp, fn)
    scores["accuracy"] = _round(correct / total) if total else None
    # INCONCLUSIVE is never the truth: it is the share the agent could not decide, not an error of the report
    inconclusive = sum(row["INCONCLUSIVE"] for row in confusion.values())
    scores["inconclusive_rate"] = _round(inconclusive / total) if total else None
    # a false alarm blames a correct document (truth PASS) with DRIFT or FAIL
    scores["false_alarms"] = confusion["PASS"]["DRIFT"] + confusion["PASS"]["FAIL"]
    return scores


def render(evaluation: dict[str, Any]) -> str:
    """The evaluation as Markdown (printed by the CLI and stored beside evaluation.json)."""
    d, lenient = evaluation["discrepancies"], evaluation["discrepancies_lenient"]
    p = evaluation["procedures"]
    lines = [f"# Detection against the changelog ground truth ({evaluation['policy']}, release {evaluation['release']}, "
             f"{evaluation['runs']} run(s))", "",
             f"Procedures: {p['total']} ({p['scored']} scored, {p['unscored']} without ground truth, {p['error']} ERROR)", "",
             "| discrepancies | precision | recall | F1 | TP | FP | FN |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines.append(_row("all (kind and step)", d))
    lines.append(_row("all (kind only)", lenient))
    lines += [_row(kind, scores) for kind, scores in evaluation["by_kind"].items()]
    lines += ["", "| verdict | precision | recall | F1 | TP | FP | FN |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [_row(v, s) for v, s in evaluation["verdicts"].items() if isinstance(s, dict)]
    verdicts = evaluation["verdicts"]
    lines += ["", f"Verdict accuracy: {_pct(verdicts.get('accuracy'))}; INCONCLUSIVE: {_pct(verdicts.get('inconclusive_rate'))}; "
              f"false alarms on correct documents: {verdicts.get('false_alarms', 0)}; "
              f"seconds per procedure: {evaluation['seconds_per_procedure']}"]
    if evaluation["not_scored"]:
        lines.append("Not scored (no ground truth): " + ", ".join(f"{k} {n}" for k, n in evaluation["not_scored"].items()))
    return "\n".join(lines) + "\n"


def _row(name: str, s: dict[str, Any]) -> str:
    return f"| {name} | {_pct(s['precision'])} | {_pct(s['recall'])} | {_pct(s['f1'])} | {s['tp']} | {s['fp']} | {s['fn']} |"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
