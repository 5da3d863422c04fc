"""``consoleagent tasks``: list, validate and generate the task suite, and prove tasks solvable with the oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from consoleagent.cli.console_choice import CONSOLE_HELP
from consoleagent.suite import FAMILIES_ROOT, TASKS_ROOT

tasks_app = typer.Typer(help="The task suite: list, validate, generate from families, check with the oracle.",
                        no_args_is_help=True)
out = Console()
err = Console(stderr=True)

SELECTOR_HELP = ("Which tasks: id globs (vpc-create-*) and/or field=value filters (product=ecs difficulty=hard "
                 "split=test release=2026.09), separated by spaces or commas. Default: all.")
DOCUMENT_STYLE_HELP = ("How the tasks' documents are written for the agent: as_written (the files), or plain (the same "
                       "steps with no bold or code markup around labels and values, as many runbooks are written).")


def console_root(console: str, root: Path | None) -> Path:
    """The task folder: ``--root`` if given, else the console backend's own tasks."""
    from consoleagent.cli.console_choice import tasks_root

    try:
        return tasks_root(console, root)
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None


def load_selected(selector: str | None, root: Path) -> list:
    from consoleagent.suite.catalog import SelectorError, load_suite
    from consoleagent.tasks.spec import TaskFileError

    try:
        return load_suite(selector, root)
    except (TaskFileError, SelectorError) as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None


@tasks_app.command("list")
def tasks_list(
    selector: Optional[str] = typer.Argument(None, help=SELECTOR_HELP),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    root: Optional[Path] = typer.Option(None, help="Folder of task files (default: the console's own)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per task instead of a table."),
) -> None:
    """The selected tasks with product, difficulty, split and release, and counts per group."""
    from rich.table import Table

    specs = load_selected(selector, console_root(console, root))
    if as_json:
        for spec in specs:
            typer.echo(json.dumps(spec.model_dump(mode="json", by_alias=True, exclude={"oracle", "reward"})))
        return
    table = Table(title=f"{len(specs)} tasks")
    for column in ("id", "product", "difficulty", "split", "release", "goal"):
        table.add_column(column, overflow="fold")
    for spec in specs:
        hard = f" ({', '.join(spec.hard_kinds)})" if spec.hard_kinds else ""
        table.add_row(spec.id, spec.product, spec.difficulty + hard, spec.split, spec.release, spec.goal)
    out.print(table)
    for field in ("product", "difficulty", "split"):
        counts: dict[str, int] = {}
        for spec in specs:
            counts[getattr(spec, field)] = counts.get(getattr(spec, field), 0) + 1
        out.print(f"{field}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


@tasks_app.command("validate")
def tasks_validate(root: Optional[Path] = typer.Option(None, help="Folder of task files (default: the console's own)."),
                   families: Path = typer.Option(FAMILIES_ROOT, help="Folder of task families (stratus)."),
                   console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP)) -> None:
    """Check every task file and family (schema, documents, the console's templates and ground truth:
    stratus's changelog ids); exit 1 on any problem."""
    from consoleagent.suite.families import generate
    from consoleagent.suite.validation import suite_problems
    from consoleagent.tasks.spec import TaskFileError

    if console != "stratus":
        validate_backend_tasks(console, root)
        return
    root = console_root(console, root)
    try:
        stale = generate(families, root, check=True)
        problems = suite_problems(root)
    except TaskFileError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(1) from None
    problems += [f"out of date (run `consoleagent tasks generate`): {change}" for change in stale]
    for problem in problems:
        err.print(f"[red]{problem}[/red]")
    if problems:
        raise typer.Exit(1)
    out.print(f"[green]{len(list(root.rglob('*.yaml')))} task files valid[/green]")


def validate_backend_tasks(console: str, root: Path | None = None) -> None:
    """Another console's task files, checked against its backend (no families, no changelog); exit 1 on any
    problem (`tasks validate --console NAME` and `console validate NAME`)."""
    from consoleagent.consoles import UnknownConsole, resolve_class
    from consoleagent.suite.backend_tasks import suite_problems

    try:
        backend = resolve_class(console)
    except (UnknownConsole, ValueError) as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    if root is not None:
        err.print("[red]--root: another console's tasks are its backend's own (its tasks_root)[/red]")
        raise typer.Exit(2)
    problems, count = suite_problems(backend)
    for problem in problems:
        err.print(f"[red]{problem}[/red]")
    if problems:
        raise typer.Exit(1)
    out.print(f"[green]{count} task files valid[/green]")


@tasks_app.command("generate")
def tasks_generate(root: Path = typer.Option(TASKS_ROOT, help="Folder of task files to write."),
                   families: Path = typer.Option(FAMILIES_ROOT, help="Folder of task families."),
                   check: bool = typer.Option(False, help="Only report files that would change (exit 1 if any).")) -> None:
    """Write one task file per variant of every family (and remove generated files whose variant is gone)."""
    from consoleagent.suite.families import generate
    from consoleagent.tasks.spec import TaskFileError

    try:
        changes = generate(families, root, check=check)
    except TaskFileError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    for change in changes:
        out.print(change)
    out.print(f"{len(changes)} file(s) {'would change' if check else 'changed'}")
    if check and changes:
        raise typer.Exit(1)


@tasks_app.command("check")
def tasks_check(
    selector: Optional[str] = typer.Argument(None, help=SELECTOR_HELP),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    root: Optional[Path] = typer.Option(None, help="Folder of task files (default: the console's own)."),
    runs: int = typer.Option(1, min=1, help="Oracle runs per task."),
    workdir: Optional[Path] = typer.Option(None, help="A results directory as `consoleagent bench` writes it (pool, "
                                           "snapshots, ledger, trajectories); run again with it to resume. "
                                           "Default: a fresh temporary directory."),
    verbose: bool = typer.Option(False, "-v", help="Print every verdict's explanation, not only failures'."),
) -> None:
    """Run the oracle on the selected tasks on the console (default: an in-process stratus); exit 1 unless every reward is 1.

    The same harness as `consoleagent bench --policy oracle`, without the plots."""
    import tempfile

    from consoleagent.bench.harness import BenchConfig, run_bench
    from consoleagent.rewards.engine import Verdict

    from consoleagent.cli.console_choice import console_options

    specs = load_selected(selector, console_root(console, root))
    directory = workdir or Path(tempfile.mkdtemp(prefix="consoleagent-check-"))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=out) as progress:
        bar = progress.add_task("oracle", total=len(specs) * runs)

        def report(record: dict) -> None:
            ok = record["status"] != "env_error" and record["reward"] == 1.0
            progress.advance(bar)
            mark = "[green]ok[/green]" if ok else "[red]FAIL[/red]"
            progress.console.print(f"{mark} {record['key']} status={record['status']} reward={record['reward']}"
                                   + (f" cause={record['cause']}" if record.get("cause") and not ok else "")
                                   + (f" answer={(record.get('episode') or {}).get('answer')}" if not ok else ""))
            if (verbose or not ok) and record.get("verdict"):
                progress.console.print(Verdict.from_dict(record["verdict"]).explain(), markup=False, highlight=False)

        results = run_bench(BenchConfig(results_dir=directory, policy="oracle", runs=runs, plots=False, console=console,
                                        console_options=console_options(console)), specs, on_record=report)
    summary = results["summary"]
    out.print(f"{summary['passed']}/{summary['episodes']} oracle episodes earned reward 1 (results: {directory})")
    if summary["passed"] != summary["episodes"]:
        raise typer.Exit(1)
