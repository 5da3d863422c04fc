"""``consoleagent bench`` and ``consoleagent compare``: a policy over the task suite, and two results side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from consoleagent.cli.tasks import DOCUMENT_STYLE_HELP, SELECTOR_HELP
from consoleagent.documents.restyle import AS_WRITTEN
from consoleagent.cli.console_choice import CONSOLE_HELP, console_options, tasks_root
from consoleagent.policies.registry import policy_help
from consoleagent.terminal import err, error, out, warn


def policy_options_of(policy: str, pairs: list[str]) -> dict:
    """The ``-O key=value`` options of a bench-able policy, checked against its constructor (ValueError names the problem)."""
    from consoleagent.policies.registry import entry_of, parse_option_pairs, policy_options, preflight

    options = parse_option_pairs(pairs)
    if entry_of(policy).from_task:
        if options:
            raise ValueError(f"the {policy} policy takes no options (it is built from the task it plays)")
        return options
    accepted = policy_options(policy)
    unknown = [k for k in options if k.replace("-", "_") not in accepted and policy != "replay"]
    if unknown:
        raise ValueError(f"policy {policy!r} has no option {unknown[0]!r}; its options: {', '.join(accepted)}")
    preflight(policy, **options)  # PolicyConfigError is a ValueError: the same clear message, exit 2
    return options


def bench(
    policy: str = typer.Option(..., "--policy", "-p", help=policy_help()),
    tasks: Optional[str] = typer.Option(None, "--tasks", "-t", help=SELECTOR_HELP),
    runs: int = typer.Option(3, min=1, help="Episodes per task; pass@1 is reported as mean ± std over runs, pass@k up to k=runs."),
    workers: int = typer.Option(1, min=1, help="Worker processes, each with its own Chromium, sharing one console "
                                               "(stratus: one account pool and one snapshot index)."),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="The results directory. Rerun the same command "
                                           "with it to resume: finished episodes are skipped. Default: bench-results/<policy>."),
    policy_option: list[str] = typer.Option([], "--policy-option", "-O",
                                            help="key=value for the policy's constructor, repeatable (e.g. -O model=gpt-4o)."),
    url: Optional[str] = typer.Option(None, help="--console stratus: a running stratus (default: start one in this "
                                                 "process for the run)."),
    admin_token: Optional[str] = typer.Option(None, envvar="STRATUS_ADMIN_TOKEN", help="Its admin token (with --url)."),
    episode_timeout: Optional[float] = typer.Option(None, help="Seconds before the supervisor stops an episode "
                                                    "(an environment error). Default: the longest task limit + 120."),
    retries: int = typer.Option(2, min=0, help="Times an episode lost to the environment is run again; lost "
                                               "attempts are counted apart, never as failures."),
    provisioning: bool = typer.Option(True, help="--no-provisioning drops every task's requires: (empty accounts): "
                                                 "the provisioning ablation."),
    price_table: Optional[Path] = typer.Option(None, exists=True, dir_okay=False,
                                               help="JSON/YAML {model: {input_per_mtok, output_per_mtok}} in US$ per "
                                                    "million tokens, over the built-in table. Unpriced (local) "
                                                    "policies are costed in policy seconds."),
    plots: bool = typer.Option(True, help="Write the PNG plots (needs matplotlib: pip install 'consoleagent\\[bench]')."),
    limit: Optional[int] = typer.Option(None, min=0, help="Run at most this many new episodes now, then report "
                                                          "(resume later)."),
    time_scale: float = typer.Option(50.0, help="In-process stratus: virtual seconds per real second."),
    root: Optional[Path] = typer.Option(None, help="Folder of task files (default: the console's own tasks)."),
    document_style: str = typer.Option(AS_WRITTEN, help=DOCUMENT_STYLE_HELP),
) -> None:
    """Benchmark a policy on the task suite through the rollout lifecycle, in parallel and resumably.

    Writes results.json (docs/formats.md, "Benchmark results"), results.md and two PNG plots (success by product, success against cost) to the results directory: pass@1 (mean ± std over runs) and pass@k overall, per product and per difficulty; environment errors (retried, counted apart); steps, time and cost per task; and each failure's class (provisioning gap, UI interaction failure, agent decision error).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from consoleagent.bench.parallel import BenchError
    from consoleagent.bench.harness import BenchConfig, BenchConfigError, check_run, command_line, run_bench
    from consoleagent.bench.pricing import PriceTable, PriceTableError
    from consoleagent.bench.report import PlottingUnavailable
    from consoleagent.bench.results import is_env_error
    from consoleagent.cli.tasks import load_selected
    from consoleagent.documents.restyle import check_style

    try:
        options = policy_options_of(policy, policy_option)
        prices = PriceTable.load(price_table)
        console_opts = console_options(console, url=url, admin_token=admin_token,
                                       time_scale=time_scale if console == "stratus" else None)
        root = tasks_root(console, root)
        check_style(document_style)
    except (ValueError, PriceTableError) as exc:  # UnknownStyle is a ValueError
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    if plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            error("the plots need matplotlib: pip install 'consoleagent[bench]' (or pass --no-plots)")
            raise typer.Exit(2) from None
    specs = load_selected(tasks, root)
    directory = out_dir or Path("bench-results") / policy
    config = BenchConfig(results_dir=directory, policy=policy, policy_options=options, runs=runs, workers=workers,
                         selector=tasks, console=console, console_options=console_opts, episode_timeout_s=episode_timeout,
                         env_error_retries=retries, provisioning=provisioning, price_table=prices,
                         plots=plots, command=command_line(), document_style=document_style)
    try:
        check_run(directory, config)  # before the progress bar: a results directory of another run is refused
    except BenchConfigError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    counts = {"passed": 0, "failed": 0, "env": 0}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=out) as progress:
        bar = progress.add_task(policy, total=None)

        def describe() -> str:
            return (f"{policy}: [green]{counts['passed']} passed[/green] [red]{counts['failed']} failed[/red] "
                    f"[yellow]{counts['env']} env errors[/yellow]")

        def seen(record: dict) -> None:
            env_error = is_env_error(record)
            passed = not env_error and (record.get("reward") or 0) >= 1.0
            counts["env" if env_error else "passed" if passed else "failed"] += 1
            progress.update(bar, advance=1, description=describe())
            lost = len(record.get("env_error_attempts") or [])
            note = f" ({lost} attempt(s) lost to the environment)" if lost else ""
            mark = "[yellow]env_error[/yellow]" if env_error else "[green]pass[/green]" if passed else "[red]fail[/red]"
            progress.console.print(f"{mark} {record['key']} status={record.get('status')} reward={record.get('reward')}{note}"
                                   + (f" cause={record.get('cause')}" if record.get("cause") and not passed else ""))

        from consoleagent.rollout.ledger import RunLedger

        done = RunLedger(directory / "ledger.jsonl")
        remaining = sum(1 for s in specs for r in range(runs) if not done.done(f"{s.id}#{r}"))
        progress.update(bar, total=min(remaining, limit) if limit is not None else remaining, description=describe())
        if remaining < len(specs) * runs:
            progress.console.print(f"resuming: {len(specs) * runs - remaining} of {len(specs) * runs} episodes already "
                                   f"in {directory / 'ledger.jsonl'}")
        try:
            results = run_bench(config, specs, on_record=seen, limit=limit)
        except (BenchConfigError, PlottingUnavailable) as exc:
            err.print(f"[red]{exc}[/red]")
            raise typer.Exit(2) from None
        except BenchError as exc:
            progress.stop()
            err.print(f"[red]{exc}[/red]")
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            progress.stop()
            err.print(f"[yellow]interrupted: {sum(counts.values())} episode(s) recorded in this session; rerun the same "
                      "command to resume[/yellow]")
            raise typer.Exit(130) from None
    print_results(results, directory)


def print_results(results: dict, directory: Path) -> None:
    """The run's figures in one line, its failures, where its files are, and what makes them not comparable."""
    from consoleagent.bench.report import cost_label
    from consoleagent.encoder import LEXICAL, LEXICAL_WARNING

    summary = results["summary"]
    p1 = summary["pass1"]
    at_k = [f"pass@{k} {100 * v:.1f}%" for k, v in summary["pass_at_k"].items() if v is not None and k != "1"]
    out.print(f"pass@1 {100 * (p1['mean'] or 0):.1f} ± {100 * (p1['std'] or 0):.1f}% over {len(p1['per_run'])} run(s); "
              + "".join(f"{item}; " for item in at_k)
              + f"env errors {summary['env_errors']['episodes']} (+{summary['env_errors']['retried_attempts']} retried); "
              f"cost/task {cost_label(summary)}")
    out.print("failures: " + ", ".join(f"{k} {v}" for k, v in summary["failures"].items()))
    out.print(f"Results: {directory / 'results.json'}, {directory / 'results.md'}")
    if LEXICAL in results["encoders"]:
        warn(LEXICAL_WARNING)
    if not results["complete"]:
        out.print("[yellow]incomplete: rerun the same command to run the remaining episodes[/yellow]")


def compare(
    a: Path = typer.Argument(..., exists=True, help="Results A (a results directory or its results.json): the baseline."),
    b: list[Path] = typer.Argument(..., exists=True, help="Results B: the candidate. Differences are B − A. Several "
                                   "results of one recipe (say, models trained with different seeds) are averaged, "
                                   "and the bootstrap resamples them as well as the tasks."),
    resamples: int = typer.Option(10_000, min=100, help="Bootstrap resamples."),
    seed: int = typer.Option(0, help="Bootstrap seed (the same seed gives the same interval)."),
    pairs: bool = typer.Option(False, "--pairs", help="Read the results as pairs, one per seed: A0 B0 A1 B1 ...; each B is "
                               "compared with its own A (an SFT head and the GRPO head trained from it)."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON instead of a table."),
    output: Optional[Path] = typer.Option(None, "--output", help="Also write the comparison as Markdown (.md) or JSON (.json)."),
) -> None:
    """Compare benchmark results: the difference in pass@1 (B − A), paired by task, with a paired bootstrap 95% confidence interval, overall and per product.

    Each task's pass@1 is the mean of its scored runs; only tasks scored in every result count. The same seed gives the same interval.
    With several B results (`compare SFT GRPO_SEED0 GRPO_SEED1 GRPO_SEED2`), the question is whether the recipe helps, not one model:
    B's pass@1 is their mean, and an interval that excludes 0 needs the gain on every seed's evidence.
    When each seed has its own baseline, `compare --pairs SFT0 GRPO0 SFT1 GRPO1 ...` subtracts each A from its own B and
    resamples the pairs as well as the tasks.
    """
    from consoleagent.bench.compare import compare_pairs, markdown
    from consoleagent.bench.results import ResultsError, load_results

    paths = [a, *b]
    if pairs and len(paths) % 2:
        err.print(f"[red]--pairs takes results two by two (A B A B ...); {len(paths)} were given[/red]")
        raise typer.Exit(2)
    try:
        loaded = [load_results(path) for path in paths]
    except ResultsError as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    if pairs:
        matched = list(zip(loaded[0::2], loaded[1::2]))
        lefts, rights = paths[0::2], paths[1::2]
    else:
        matched, lefts, rights = [(loaded[0], right) for right in loaded[1:]], [a], b
    comparison = compare_pairs(matched, resamples=resamples, seed=seed)
    if not comparison["groups"][0]["tasks"]:
        err.print("[red]the results share no scored task[/red]")
        raise typer.Exit(1)

    def named(side: list[dict], where: list[Path]) -> str:
        names = sorted({one["policy"]["name"] for one in side})
        return f"{', '.join(names)} ({', '.join(str(path) for path in where)})"

    text = (f"A: {named([left for left, _ in matched], lefts)}  \nB: {named([right for _, right in matched], rights)}\n\n"
            + markdown(comparison))
    if output is not None:
        output.write_text(json.dumps(comparison, indent=1) if output.suffix == ".json" else text, encoding="utf-8")
    typer.echo(json.dumps(comparison, indent=1) if as_json else text, nl=False)


def cost(
    run: Path = typer.Argument(..., exists=True, file_okay=False,
                               help="A benchmark run's directory (its results.json and trajectories/)."),
    api: list[str] = typer.Option(["gpt-4o-mini"], "--api",
                                  help="API model to price the same decisions as (repeat for several)."),
    price_table: Optional[Path] = typer.Option(None, exists=True, dir_okay=False,
                                               help="Prices overriding the built-in table (JSON or YAML; see `bench --help`)."),
    output: Optional[Path] = typer.Option(None, "--output", help="Also write the report as Markdown (.md) or JSON (.json)."),
) -> None:
    """What the run's decisions would have cost an API chat model, beside what the run's policy cost.

    For every step of every episode, the tokens of the request the `llm` policy would send on that page (its system prompt and the recorded observation) and of a one-sentence answer, counted with the model's own tokenizer and priced at the price table. The run's own policy is priced by its measured CPU seconds at the table's `cpu_core_hour`. An API agent that writes longer thoughts costs more, one that needs fewer steps less: run it on the oracle's run for the fewest steps.
    """
    from consoleagent.bench.api_cost import ApiCostError, api_cost, markdown
    from consoleagent.bench.pricing import PriceTable, PriceTableError
    from consoleagent.bench.results import ResultsError, load_results

    try:
        results = load_results(run)
        prices = PriceTable.load(price_table)
        reports = [api_cost(results, run, model, prices) for model in api]
    except (ResultsError, PriceTableError, ApiCostError) as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    text = "\n".join(f"## {report['model']}\n\n{markdown(report)}" for report in reports)
    if output is not None:
        output.write_text(json.dumps(reports, indent=1) if output.suffix == ".json" else text, encoding="utf-8")
    typer.echo(text, nl=False)
