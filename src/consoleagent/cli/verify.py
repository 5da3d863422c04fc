"""``consoleagent verify`` (documents → verdicts and reports) and ``consoleagent review`` (a person
confirms or rejects each reported defect)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from consoleagent.cli.console_choice import CONSOLE_HELP, console_options
from consoleagent.policies.registry import policy_help
from consoleagent.terminal import error, is_terminal, out, print_table, warn

VERDICT_COLOURS = {"PASS": "green", "DRIFT": "yellow", "FAIL": "red", "INCONCLUSIVE": "blue", "ERROR": "magenta"}


VERIFY_EXIT_CODES = """Exit status: 0 nothing --fail-on counts; 1 a procedure --fail-on counts (DRIFT and/or FAIL)
or an invalid document; 2 bad input (nothing is written); 3 environment errors and nothing else decided; 4
nothing was verified (no procedure in the documents, or every one INCONCLUSIVE); 130 interrupted (rerun the
same command to resume)."""


class FailOn(str, Enum):
    drift = "drift"
    fail = "fail"
    never = "never"


def verify(
    documents: list[Path] = typer.Argument(..., help="Documents (.md, .rst, .html), or folders searched for them."),
    console: str = typer.Option("stratus", help=CONSOLE_HELP + " stratus starts in this process unless --url names "
                                                "a running one (a URL here still means a running stratus)."),
    url: Optional[str] = typer.Option(None, help="--console stratus: a running stratus (with --admin-token)."),
    admin_token: Optional[str] = typer.Option(None, envvar="STRATUS_ADMIN_TOKEN", help="The running stratus's admin token."),
    release: Optional[str] = typer.Option(None, help="Console release to verify against (default: the latest)."),
    policy: str = typer.Option("docfollower", "--policy", "-p", help=policy_help()),
    policy_option: list[str] = typer.Option([], "--policy-option", "-O", help="key=value for the policy, repeatable."),
    runs: int = typer.Option(1, min=1, help="Runs per procedure; verdicts are combined and their agreement reported."),
    workers: int = typer.Option(1, min=1, help="Worker processes, each with its own Chromium."),
    out_dir: Path = typer.Option(Path("verify-report"), "--out", "-o",
                                 help="Report directory. Run the same command again to resume an interrupted run."),
    junit: Optional[Path] = typer.Option(None, help="Also write JUnit XML here (default: <out>/junit.xml)."),
    fail_on: FailOn = typer.Option(FailOn.fail, help="Exit 1 when a procedure is DRIFT or FAIL (drift), FAIL (fail), "
                                                     "or never. ERROR procedures exit 3 when nothing else failed."),
    tasks: Optional[str] = typer.Option(None, help="Only these suite tasks may supply goals, resources and reward rules "
                                                   "(a task selector, see `consoleagent tasks list --help`)."),
    tasks_root: Optional[Path] = typer.Option(None, exists=True, file_okay=False,
                                              help="A folder of your own task files (docs/formats.md, \"Task file\") "
                                                   "instead of the shipped suite."),
    evaluate: bool = typer.Option(False, "--evaluate", help="Score the detected discrepancies and verdicts against the "
                                                            "changelog ground truth; writes evaluation.json/.md."),
    max_steps: Optional[int] = typer.Option(None, min=1, help="Step limit per episode (default: the task's)."),
    retries: int = typer.Option(2, min=0, help="Times an episode lost to the environment is run again."),
    attempt_policy: Optional[str] = typer.Option(None, "--attempt-policy", help="A goal-directed agent that tries, "
                                                 "without the document, each procedure the documented path did not "
                                                 "complete: reached → DRIFT (its path is the fix), else INCONCLUSIVE. "
                                                 "Default: none (such procedures are INCONCLUSIVE)."),
    attempt_option: list[str] = typer.Option([], "--attempt-option", "-A", help="key=value for the attempt policy."),
    restart: bool = typer.Option(False, "--restart", help="Start over in --out: forget its episodes and reports "
                                                         "(a person's reviews are kept)."),
) -> None:
    """Verify documented procedures in the console: PASS, DRIFT (works, but the document is wrong), FAIL
    (the documented outcome is impossible here, with evidence), INCONCLUSIVE (the agent could not reach the
    goal, so nothing is blamed on the document) or ERROR (the environment failed). Each verdict but PASS
    says why, at which step, with its evidence; each discrepancy is classified, located at its step and
    given a proposed fix.

    Writes report.json (canonical), report.html (screenshots, expected vs observed, fixes), junit.xml and
    summary.md to --out, and prints where the HTML report is (the last line). Resumable: rerun the same
    command; --restart starts over.
    """
    from consoleagent.bench.harness import BenchConfigError, command_line
    from consoleagent.bench.parallel import BenchError
    from consoleagent.cli.bench import policy_options_of
    from consoleagent.suite.catalog import SelectorError
    from consoleagent.tasks.spec import TaskFileError
    from consoleagent.verify.runner import VerifyConfig, VerifyConfigError, run_verify
    from consoleagent.verify.targets import VerifyInputError

    try:
        options = policy_options_of(policy, policy_option)
        attempt_options = policy_options_of(attempt_policy, attempt_option) if attempt_policy else {}
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(2) from None
    if console.startswith(("http://", "https://")):  # the older spelling of a running stratus
        console, url = "stratus", url or console
    try:
        console_opts = console_options(console, url=url, admin_token=admin_token)
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(2) from None
    config = VerifyConfig(documents=list(documents), out_dir=out_dir, release=release, policy=policy, policy_options=options,
                          runs=runs, workers=workers, tasks=tasks, tasks_root=tasks_root, console=console,
                          console_options=console_opts,
                          env_error_retries=retries, max_steps=max_steps, junit=junit, command=command_line(),
                          attempt_policy=attempt_policy, attempt_options=attempt_options)
    if restart:
        from consoleagent.verify.runner import restart as forget

        removed = forget(out_dir)
        if removed:
            out.print(escape(f"starting over in {out_dir} (removed {', '.join(removed)}; reviews kept)"))
    with _progress(policy) as seen:
        try:
            report = run_verify(config, on_record=seen)
        except (VerifyInputError, VerifyConfigError, BenchConfigError, SelectorError, TaskFileError) as exc:
            error(str(exc))
            raise typer.Exit(2) from None
        except BenchError as exc:
            error(f"the episodes could not run: {exc}")
            raise typer.Exit(3) from None
        except KeyboardInterrupt:
            error("interrupted; run the same command to resume")
            raise typer.Exit(130) from None
    if evaluate:
        print_evaluation(out_dir)
    print_summary(report, out_dir, junit)
    raise typer.Exit(exit_code(report, fail_on))


@contextmanager
def _progress(policy: str) -> Iterator[Callable[[dict], None]]:
    """A progress bar on a terminal (plain lines in a log); yields the callback that sees each episode."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from consoleagent.bench.results import is_env_error

    def line(record: dict) -> str:
        if is_env_error(record):
            return f"  {record['key']}: environment error ({record.get('cause') or 'no cause recorded'})"
        reached = (record.get("reward") or 0) >= 1.0
        return f"  {record['key']}: {'goal reached' if reached else 'goal not reached'} ({record.get('status')})"

    if not is_terminal():
        yield lambda record: out.print(escape(line(record)))
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=out, transient=True) as progress:
        bar = progress.add_task(f"verifying with {policy}", total=None)

        def seen(record: dict) -> None:
            progress.update(bar, advance=1)
            progress.console.print(escape(line(record)))

        yield seen


def print_summary(report, out_dir: Path, junit: Optional[Path]) -> None:  # noqa: ANN001
    """The verdict table, the counts, where the outputs are; the HTML report's path is the last line."""
    from consoleagent.encoder import LEXICAL, LEXICAL_WARNING

    rows = []
    for procedure in report.procedures():
        colour = VERDICT_COLOURS.get(procedure.verdict, "white")
        kinds = ", ".join(f"{d.kind}@{d.step or '-'}" for d in procedure.discrepancies) or "-"
        rows.append([escape(procedure.id), f"[{colour}]{procedure.verdict}[/{colour}]", kinds,
                     f"{procedure.consistency.agreement:.0%}"])
    print_table(f"Verification on release {report.run.release} ({report.run.policy}, {report.run.runs} run(s))",
                ("procedure", "verdict", "discrepancies", "agreement"), rows)
    s = report.summary
    out.print(" ".join(f"[{VERDICT_COLOURS.get(v, 'white')}]{v} {n}[/{VERDICT_COLOURS.get(v, 'white')}]"
                       for v, n in s.verdicts.items()) + f"  skipped {s.skipped}  invalid {s.invalid}")
    for document in report.documents:
        if document.status != "verified":
            reason = document.reason or ""
            where = "" if reason.startswith(document.path) else f"{document.path}: "  # a parse error names its file
            out.print(f"  [dim]{document.status}: {escape(where + reason)}[/dim]")
    if LEXICAL in report.run.encoders:
        warn(LEXICAL_WARNING)
    if not s.procedures:
        warn("nothing was verified: no procedure was found in the documents given")
    elif s.verdicts.get("INCONCLUSIVE"):
        warn(f"{s.verdicts['INCONCLUSIVE']} procedure(s) INCONCLUSIVE: the agent could not reach the goal, so nothing "
             "is blamed on those documents (see each one's reason in the report)")
    out.print(escape(f"JSON: {out_dir / 'report.json'}   JUnit: {junit or out_dir / 'junit.xml'}   "
                     f"Markdown: {out_dir / 'summary.md'}"))
    if s.discrepancies:
        out.print(escape(f"Review the defects: consoleagent review {out_dir}"))
    out.print(escape(f"HTML report: {(out_dir / 'report.html').resolve()}"))


def print_evaluation(out_dir: Path) -> None:
    from consoleagent.verify.runner import write_evaluation

    evaluation, text = write_evaluation(out_dir)
    out.print(escape(text))
    counted = evaluation.get("procedures", {})
    if not counted.get("scored"):
        warn(f"no procedure had ground truth to score against ({counted.get('unscored', 0)} without): the numbers above "
             "measure nothing; --evaluate needs documents whose suite task lists its expected discrepancies")
    out.print(escape(f"Evaluation: {out_dir / 'evaluation.json'}"))


NOTHING_VERIFIED = 4


def exit_code(report, fail_on: FailOn) -> int:  # noqa: ANN001
    """0 as wanted; 1 a verdict that --fail-on counts (or an invalid document); 3 environment errors;
    4 nothing was verified (no procedure, or none decided): a run that checked nothing never passes."""
    verdicts = report.summary.verdicts
    broken = verdicts.get("FAIL", 0) + report.summary.invalid
    if fail_on is FailOn.drift and broken + verdicts.get("DRIFT", 0):
        return 1
    if fail_on is FailOn.fail and broken:
        return 1
    decided = sum(verdicts.get(v, 0) for v in ("PASS", "DRIFT", "FAIL"))
    if fail_on is not FailOn.never and verdicts.get("ERROR", 0):
        return 3
    return NOTHING_VERIFIED if not decided else 0


def review(
    report_dir: Path = typer.Argument(..., exists=True, file_okay=False, help="A `consoleagent verify` output directory."),
    confirm: list[str] = typer.Option([], help="Discrepancy id to confirm as a real defect (repeatable); no server."),
    reject: list[str] = typer.Option([], help="Discrepancy id to reject as a false report (repeatable); no server."),
    note: str = typer.Option("", help="A note stored with --confirm/--reject."),
    reviewer: str = typer.Option("", help="Who reviews (stored with each judgement)."),
    host: str = typer.Option("127.0.0.1", help="Review page: interface."),
    port: int = typer.Option(8765, help="Review page: TCP port."),
) -> None:
    """Confirm or reject each reported defect, in a web page (default) or from the command line.

    Judgements go to <dir>/reviews.jsonl and carry over to later reports of the same documents (the ids are
    stable); the reports then show the precision of confirmed defects."""
    from consoleagent.verify.review import load_report, record_review
    from consoleagent.verify.review_server import review_app
    from consoleagent.verify.runner import write_outputs

    report = load_report(report_dir)
    known = {d.id: p.id for p in report.procedures() for d in p.discrepancies}
    if confirm or reject:
        for ident, decision in [(i, "confirmed") for i in confirm] + [(i, "rejected") for i in reject]:
            if ident not in known:
                error(f"no discrepancy {ident!r} in {report_dir / 'report.json'}")
                raise typer.Exit(2)
            record_review(report_dir / "reviews.jsonl", discrepancy_id=ident, procedure_id=known[ident],
                          decision=decision, note=note, reviewer=reviewer)
        report = write_outputs(report, report_dir)
        s = report.summary
        out.print(f"{s.reviewed} reviewed, {s.confirmed} confirmed"
                  + (f": precision of confirmed defects {s.precision_confirmed:.1%}" if s.precision_confirmed is not None else ""))
        return
    import uvicorn

    out.print(f"Review page: http://{host}:{port}/  (Ctrl+C to stop)")
    # each judgement re-renders the reports, so report.html and summary.md show it at once
    app = review_app(report_dir, on_review=lambda: write_outputs(load_report(report_dir), report_dir))
    uvicorn.run(app, host=host, port=port, log_level="warning")
