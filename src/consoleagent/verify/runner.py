"""``consoleagent verify`` as a function: documents in, a :class:`VerifyReport` and its renderings out.

The episodes run on the benchmark harness (worker processes, account pool, snapshot reset, the
rule judge, environment-error retries, a ledger that makes an interrupted run resumable) under
``<out>/episodes``. Everything after the episodes (alignment, verdicts, the reports) is recomputed
from the ledger and the trajectories each time, so a resumed run and a fresh one give the same report.

The output directory::

    verify.json          what was asked (documents, release, policy): a resumed run must ask the same
    episodes/            the harness's results directory (ledger, trajectories, viewer pages, world)
    report.json          the canonical report (docs/formats.md, "Verification report")
    report.html, junit.xml, summary.md   rendered from report.json
    reviews.jsonl        a person's confirmations and rejections (the review page)
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from consoleagent.consoles.base import GroundTruth
from consoleagent.verify.review import REPORT_FILE, load_report
from consoleagent.bench.harness import EpisodeSettings
from consoleagent.bench.results import is_env_error
from consoleagent.verify.model import (VERDICTS, Attempt, Consistency, DocumentReport, ProcedureReport, Reason, RunInfo,
                                       RunReport, StepReport, Summary, VerifyReport)
from consoleagent.verify.targets import Plan, Target, plan
from consoleagent.verify.verdict import (combine, goal_reached, merge_discrepancies, outcome_discrepancy, run_verdict,
                                         with_attempt)

REQUEST_FILE = "verify.json"
EPISODES_DIR = "episodes"
ATTEMPTS_DIR = "attempts"  # goal-directed attempts without the document (--attempt-policy)


class VerifyConfigError(ValueError):
    pass


@dataclass(kw_only=True)
class VerifyConfig(EpisodeSettings):
    """What to verify and where the report goes; how the episodes are played is ``EpisodeSettings``
    (policy, runs, workers, console, retries), shared with the benchmark."""

    documents: list[Path]
    out_dir: Path = Path("verify-report")
    release: str | None = None  # default: the console's latest release
    policy: str = "docfollower"
    runs: int = 1
    tasks: str | None = None  # a task selector restricting which suite tasks may supply goals
    tasks_root: Path | None = None  # a folder of task files (default: the shipped suite)
    max_steps: int | None = None
    junit: Path | None = None
    # A goal-directed agent that tries, without the document, each procedure the documented path did not
    # complete: reached, the document is wrong (DRIFT, its path the fix); not reached, INCONCLUSIVE.
    attempt_policy: str | None = None
    attempt_options: dict[str, Any] = field(default_factory=dict)


def console_of(config: VerifyConfig) -> Any:
    """The console backend (not started) the verification runs on."""
    from consoleagent.consoles import UnknownConsole, resolve_backend

    try:
        return resolve_backend(config.console, **config.console_options)
    except (UnknownConsole, ValueError, OSError) as exc:
        raise VerifyConfigError(str(exc)) from exc


def resolve_release(release: str | None, console: Any = None) -> str:
    """The release to verify: the console's own pin by default; one of its releases (stratus has several)."""
    from consoleagent.consoles import DEFAULT_CONSOLE, backend_class

    console = console if console is not None else backend_class(DEFAULT_CONSOLE)()
    releases = console.releases() if hasattr(console, "releases") else [console.release]
    if release is None:
        return console.release
    if release not in releases:
        raise VerifyConfigError(f"unknown release {release!r}; {console.name} has {', '.join(releases)}")
    return release


def check_request(out_dir: Path, config: VerifyConfig, release: str) -> None:
    """An output directory holds one verification: refuse to resume it with other documents or settings."""
    wanted = {"documents": sorted(str(p.resolve()) for p in config.documents), "release": release,
              "policy": config.policy, "runs": config.runs, "tasks": config.tasks, "max_steps": config.max_steps,
              "attempt_policy": config.attempt_policy,
              "tasks_root": str(Path(config.tasks_root).resolve()) if config.tasks_root else None}
    path = out_dir / REQUEST_FILE
    if path.exists():
        held = json.loads(path.read_text(encoding="utf-8"))
        held = {k: held.get(k) for k in wanted}
        if held != wanted:
            changed = ", ".join(k for k in wanted if held.get(k) != wanted[k])
            raise VerifyConfigError(f"{out_dir} holds a verification with other {changed}; choose another --out, "
                                    "or pass --restart to start over in it")
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**wanted, "console": str(config.console), "run_id": uuid.uuid4().hex[:12], "created_at": _now(), "elapsed_s": 0.0},
                               indent=1), encoding="utf-8")


# What `--restart` removes: everything a verification wrote except a person's reviews (they carry over by id).
RESTART_REMOVES = (REQUEST_FILE, EPISODES_DIR, ATTEMPTS_DIR, REPORT_FILE, "report.html", "junit.xml", "summary.md", "evaluation.json",
                   "evaluation.md")


def restart(out_dir: Path) -> list[str]:
    """Forget the verification in ``out_dir`` so the next run starts over; returns what was removed.
    Only a directory that holds a verification is touched, and only the files a verification writes."""
    import shutil

    out_dir = Path(out_dir)
    if not (out_dir / REQUEST_FILE).exists():
        return []
    removed = []
    for name in RESTART_REMOVES:
        path = out_dir / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        else:
            continue
        removed.append(name)
    return removed


def run_verify(config: VerifyConfig, *, playwright: Any = None,
               on_record: Callable[[dict[str, Any]], None] | None = None) -> VerifyReport:
    """Run what is not yet in the ledger, then build, store and render the report.

    The inputs (release, documents, task files) are checked before anything is written, so a typo
    leaves no output directory behind to block the corrected command."""
    started = time.monotonic()
    console = console_of(config)
    release = resolve_release(config.release, console)
    work = plan(list(config.documents), release, _tasks(config.tasks, config.tasks_root or console.tasks_root),
                max_steps=config.max_steps, console=console)
    out_dir = Path(config.out_dir)
    check_request(out_dir, config, release)
    records: dict[str, dict[str, Any]] = {}
    attempts: dict[str, dict[str, Any]] = {}
    try:
        if work.targets:
            records = _run_episodes(config, work.targets, out_dir / EPISODES_DIR, playwright, on_record)
        stuck = [t for t in work.targets if needs_attempt(t, records, config.runs)]
        if config.attempt_policy and stuck:
            attempts = _run_episodes(config, stuck, out_dir / ATTEMPTS_DIR, playwright, on_record, attempt=True)
    finally:  # an interrupted session's time counts too: the report's run time is the sum over sessions
        elapsed = _add_elapsed(out_dir, time.monotonic() - started)
    report = build_report(config, work, records, out_dir, release, elapsed, attempts)
    return write_outputs(report, out_dir, junit=config.junit)


def _add_elapsed(out_dir: Path, seconds: float) -> float:
    path = out_dir / REQUEST_FILE
    request = json.loads(path.read_text(encoding="utf-8"))
    request["elapsed_s"] = round(float(request.get("elapsed_s") or 0.0) + seconds, 1)
    path.write_text(json.dumps(request, indent=1), encoding="utf-8")
    return request["elapsed_s"]


def _tasks(selector: str | None, root: Path | str | None) -> list[Any]:
    from consoleagent.suite import TASKS_ROOT
    from consoleagent.suite.catalog import load_suite

    return load_suite(selector, Path(root) if root else TASKS_ROOT)


def _run_episodes(config: VerifyConfig, targets: list[Target], directory: Path, playwright: Any,
                  on_record: Callable[[dict[str, Any]], None] | None, attempt: bool = False) -> dict[str, dict[str, Any]]:
    """The targets' episodes on the benchmark harness, by key; ``attempt``: one goal-directed run each
    with the attempt policy and no document."""
    from consoleagent.bench.harness import BenchConfig, episode_settings, run_missing

    settings = episode_settings(config)
    if attempt:
        settings.update(policy=config.attempt_policy, policy_options=config.attempt_options, runs=1)
    bench = BenchConfig(results_dir=directory, **settings, plots=False, screenshots=True, with_documents=not attempt)
    records, _ = run_missing(bench, [t.spec for t in targets], playwright=playwright, on_record=on_record)
    return {r["key"]: r for r in records}  # the raw records: rule checks, trajectories


def needs_attempt(target: Target, records: dict[str, dict[str, Any]], runs: int) -> bool:
    """A procedure meant to be completed whose judged runs all stopped short of the goal."""
    judged = [r for i in range(runs) if (r := records.get(f"{target.key}#{i}")) is not None and not is_env_error(r)]
    return target.spec.expected == "complete" and bool(judged) and not any(goal_reached(r, "complete") for r in judged)


def build_report(config: VerifyConfig, work: Plan, records: dict[str, dict[str, Any]], out_dir: Path, release: str,
                 duration_s: float, attempts: dict[str, dict[str, Any]] | None = None) -> VerifyReport:
    from consoleagent.bench.harness import git_revision, machine, redact

    by_path: dict[str, list[Target]] = {}
    for target in work.targets:
        by_path.setdefault(target.path, []).append(target)
    documents = []
    for path, document, error in work.documents:
        if document is None:
            documents.append(DocumentReport(id=Path(path).stem, path=path, status="invalid", reason=error))
            continue
        report = DocumentReport(id=document.id, path=path, title=document.title, release=document.release,
                                format=document.format, status="skipped" if document.skipped else "verified", reason=document.skipped)
        report.procedures = [procedure_report(t, records, config.runs, out_dir, attempts, config.attempt_policy)
                             for t in by_path.get(path, [])]
        documents.append(report)
    request = json.loads((out_dir / REQUEST_FILE).read_text(encoding="utf-8"))
    run = RunInfo(id=request["run_id"], created_at=request["created_at"], command=config.command,
                  console=_console_name(config), release=release, policy=config.policy,
                  policy_options=redact(config.policy_options), runs=config.runs, workers=config.workers,
                  machine=machine(), revision=git_revision(), duration_s=round(duration_s, 1),
                  encoders=_encoders([*records.values(), *(attempts or {}).values()]))
    return VerifyReport(run=run, summary=summarise(documents), documents=documents)


def _encoders(records: list[dict[str, Any]]) -> list[str]:
    """The sentence encoders the episodes' workers and this process's judging used (``encoder.in_use``)."""
    from consoleagent.bench.results import encoders_of
    from consoleagent.encoder import in_use

    return sorted(set(encoders_of(records)) | ({in_use()} - {None}))


def _console_name(config: VerifyConfig) -> str:
    """How the report names the console: the URL of a running one, else the backend (started in this process)."""
    url = config.console_options.get("url")
    return url or ("in-process stratus" if config.console == "stratus" else str(config.console))


def procedure_report(target: Target, records: dict[str, dict[str, Any]], runs: int, out_dir: Path,
                     attempts: dict[str, dict[str, Any]] | None = None, attempt_policy: str | None = None) -> ProcedureReport:
    """Align each run with the document, judge it, combine the runs, then weigh a goal-directed
    attempt without the document (``attempts``, by key) for a procedure the agent could not finish."""
    run_reports: list[RunReport] = []
    alignments: list[tuple[list[StepReport], list[Any]]] = []
    for index in range(runs):
        record = records.get(f"{target.key}#{index}")
        if record is None:  # not run yet (a run stopped with --limit, or interrupted): nothing to judge
            continue
        steps, found = _align(target, record, index, out_dir)
        found = authored(found, steps)
        outcome = outcome_discrepancy(record, target.spec.expected, target.procedure_id, index)
        if outcome is not None:
            found.append(outcome)
        judged = run_verdict(record, target.spec.expected, found, steps, index)
        alignments.append((steps, found))
        run_reports.append(_run_report(record, index, judged.verdict, out_dir, judged.reason))
    verdicts = [r.verdict for r in run_reports]
    combined, consistency = combine(verdicts) if verdicts else ("ERROR", None)
    first = next((i for i, r in enumerate(run_reports) if r.verdict == combined), None)
    # The steps shown are those of the first run that agrees with the combined verdict.
    shown = alignments[first][0] if first is not None else []
    reason = run_reports[first].reason if first is not None else Reason(text="no run of this procedure finished yet")
    attempt = (_attempt(target, (attempts or {}).get(f"{target.key}#0"), out_dir, attempt_policy or "goal-directed")
               if combined == "INCONCLUSIVE" else None)
    combined, reason = with_attempt(combined, reason, attempt)
    discrepancies = _blamed(combined, alignments)
    durations = [r.duration_s for r in run_reports]
    return ProcedureReport(
        id=target.procedure_id, title=target.procedure.title, line=target.procedure.line, goal=target.spec.goal,
        task=target.task, outcome_source=target.outcome_source, verdict=combined, reason=reason,
        consistency=consistency or Consistency(runs=0, verdicts={}, agreement=0.0),
        duration_s=round(sum(durations) / len(durations), 2) if durations else 0.0,
        steps=shown or _unaligned_steps(target), discrepancies=discrepancies, runs=run_reports,
        attempts=[attempt] if attempt is not None else [])


def _blamed(verdict: str, alignments: list[tuple[list[StepReport], list[Any]]]) -> list[Any]:
    """The discrepancies a report may blame on the document. PASS: none. INCONCLUSIVE: only those at
    steps the agent got through (a renamed label it found and used is evidence; an element "missing"
    where the agent got stuck is not: it may simply not have found it)."""
    if verdict == "PASS":
        return []
    if verdict != "INCONCLUSIVE":
        return merge_discrepancies([found for _, found in alignments])
    kept = []
    for steps, found in alignments:
        done = {s.number for s in steps if s.status in ("ok", "drift")}
        kept.append([d for d in found if d.step in done and d.kind in EVIDENT_WHEN_STUCK])
    return merge_discrepancies(kept)


# What the author wrote at a step the parser synthesised (a reference page's "Use the *Name* field"
# becomes a fill step): the labels and values, not the step's place or order.
AUTHORED_AT_SYNTHESIZED = ("label_changed", "default_changed", "field_added_required")


def authored(found: list[Any], steps: list[StepReport]) -> list[Any]:
    """The discrepancies that concern words the document's author wrote: none at a step whose place the
    document never says (``find``: the agent searched for it), and at a step the parser synthesised only
    those about its labels and values (a synthesised "open the dialog" step is not the author's path)."""
    by_number = {s.number: s for s in steps}
    kept = []
    for item in found:
        step = by_number.get(item.step) if item.step is not None else None
        if step is not None and (step.find or (step.synthesized and item.kind not in AUTHORED_AT_SYNTHESIZED)):
            continue
        kept.append(item)
    return kept


# Kinds whose evidence is the agent's own successful use of what the console shows instead.
EVIDENT_WHEN_STUCK = ("label_changed", "navigation_changed", "default_changed", "field_added_required")


def _attempt(target: Target, record: dict[str, Any] | None, out_dir: Path, policy: str) -> Attempt | None:
    """The goal-directed attempt's outcome and path, in words (``click 'Create EIP'``)."""
    if record is None or is_env_error(record):
        return None
    from consoleagent.trajectory.reader import TrajectoryFormatError, read_trajectory

    trajectory = record.get("trajectory")
    path: list[str] = []
    if trajectory and Path(trajectory).exists():
        try:
            path = [_in_words(step) for step in read_trajectory(trajectory).steps if step.get("result") == "ok"]
        except TrajectoryFormatError:
            path = []
    viewer = _viewer(Path(trajectory)) if trajectory and Path(trajectory).exists() else None
    return Attempt(policy=policy, reached=goal_reached(record, target.spec.expected),
                   status=str(record.get("status") or "unknown"), path=[p for p in path if p],
                   trajectory=_relative(trajectory, out_dir), viewer=_relative(str(viewer) if viewer else None, out_dir))


def _in_words(step: dict[str, Any]) -> str:
    """A trajectory step as a person would write it: the action and the element's name, not its id."""
    parsed = step.get("parsed") or {}
    name, args = parsed.get("name"), dict(parsed.get("args") or {})
    if not name or name in ("task_complete", "task_unachievable", "report_discrepancy", "wait"):
        return ""
    element = {m.get("id"): m for m in step.get("marks") or []}.get(args.pop("id", None))
    if element is None:
        return str(step.get("action") or name)
    value = next(iter(args.values()), None)
    return (f"{name} {element.get('role') or 'element'} {element.get('name')!r}"
            + (f" = {value!r}" if value not in (None, "") else ""))


def _align(target: Target, record: dict[str, Any], index: int, out_dir: Path) -> tuple[list[StepReport], list[Any]]:
    from consoleagent.trajectory.reader import TrajectoryFormatError, read_trajectory
    from consoleagent.verify.aligner import align_run

    path = record.get("trajectory")
    if not path or not Path(path).exists():
        return _unaligned_steps(target), []
    try:
        trajectory = read_trajectory(path)
    except TrajectoryFormatError:
        return _unaligned_steps(target), []
    alignment = align_run(target.procedure, trajectory, procedure_id=target.procedure_id, run=index, report_dir=out_dir)
    return alignment.steps, list(alignment.discrepancies)


def _unaligned_steps(target: Target) -> list[StepReport]:
    return [StepReport(id=f"{target.procedure_id}/{s.number}", number=s.number, line=s.line, text=s.text,
                       status="not_reached", synthesized=s.synthesized, find=s.find) for s in target.procedure.steps]


def _run_report(record: dict[str, Any], index: int, verdict: str, out_dir: Path, reason: Reason | None = None) -> RunReport:
    trajectory = record.get("trajectory")
    viewer = None
    if trajectory and Path(trajectory).exists():
        viewer = _viewer(Path(trajectory))
    episode = record.get("episode") or {}
    return RunReport(index=index, status=record.get("status") or "unknown", verdict=verdict,  # type: ignore[arg-type]
                     reason=reason, reward=record.get("reward"), steps=int(episode.get("steps") or 0),
                     duration_s=round(float(episode.get("duration_s") or record.get("wall_s") or 0.0), 2),
                     cause=record.get("cause"), trajectory=_relative(trajectory, out_dir),
                     viewer=_relative(str(viewer) if viewer else None, out_dir),
                     audit_checks=list((record.get("verdict") or {}).get("checks") or []))


def _viewer(trajectory: Path) -> Path | None:
    from consoleagent.trajectory.viewer import write_viewer

    target = trajectory.with_suffix(".html")
    if not target.exists():
        try:
            write_viewer([trajectory], target)
        except (OSError, ValueError):
            return None
    return target


def _relative(path: str | None, out_dir: Path) -> str | None:
    if not path:
        return None
    try:
        return Path(path).resolve().relative_to(out_dir.resolve()).as_posix()
    except ValueError:
        return str(path)


def summarise(documents: list[DocumentReport]) -> Summary:
    procedures = [p for d in documents for p in d.procedures]
    verdicts = {v: sum(1 for p in procedures if p.verdict == v) for v in VERDICTS}
    by_kind: dict[str, int] = {}
    for procedure in procedures:
        for item in procedure.discrepancies:
            by_kind[item.kind] = by_kind.get(item.kind, 0) + 1
    return Summary(documents=len(documents), procedures=len(procedures), verdicts=verdicts,
                   skipped=sum(1 for d in documents if d.status == "skipped"),
                   invalid=sum(1 for d in documents if d.status == "invalid"),
                   discrepancies=sum(by_kind.values()), by_kind=by_kind)


def write_outputs(report: VerifyReport, out_dir: Path, *, junit: Path | None = None) -> VerifyReport:
    """Apply the stored reviews, then write report.json and everything rendered from it."""
    from consoleagent.verify.reports import apply_reviews, write_reports
    from consoleagent.verify.review import ReviewStore

    report = apply_reviews(report, ReviewStore(out_dir / "reviews.jsonl"))
    (out_dir / REPORT_FILE).write_text(report.model_dump_json(indent=1), encoding="utf-8")
    write_reports(report, out_dir, junit=junit)
    return report


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def evaluate_dir(out_dir: Path) -> dict[str, Any]:
    """Score the report in ``out_dir`` against the suite's ground truth (the targets are planned again
    from the request, which is cheap and gives the same pairing of procedures and tasks)."""
    from consoleagent.verify.evaluate import evaluate

    out_dir = Path(out_dir)
    from consoleagent.consoles import resolve_class

    request = json.loads((out_dir / REQUEST_FILE).read_text(encoding="utf-8"))
    backend = resolve_class(request.get("console") or "stratus")
    console = backend() if isinstance(backend, type) else backend  # read only: never started
    work = plan([Path(p) for p in request["documents"]], request["release"],
                _tasks(request.get("tasks"), request.get("tasks_root") or console.tasks_root),
                max_steps=request.get("max_steps"), console=console)
    return evaluate(load_report(out_dir), work.targets, console.ground_truth() or GroundTruth([], []))


def write_evaluation(out_dir: Path) -> tuple[dict[str, Any], str]:
    """``evaluate_dir`` written beside the report as ``evaluation.json`` and ``evaluation.md``; returns
    the evaluation and its Markdown."""
    from consoleagent.verify.evaluate import render

    out_dir = Path(out_dir)
    evaluation = evaluate_dir(out_dir)
    text = render(evaluation)
    (out_dir / "evaluation.json").write_text(json.dumps(evaluation, indent=1), encoding="utf-8")
    (out_dir / "evaluation.md").write_text(text, encoding="utf-8")
    return evaluation, text
