"""``consoleagent collect | samples | tiny-model``: teacher trajectories, training samples, a tiny model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from consoleagent.cli.tasks import DOCUMENT_STYLE_HELP, SELECTOR_HELP
from consoleagent.documents.restyle import AS_WRITTEN
from consoleagent.cli.console_choice import CONSOLE_HELP
from consoleagent.policies.registry import policy_help

out = Console()
err = Console(stderr=True)


def collect(
    policy: str = typer.Option("oracle", "--policy", "-p", help="The teacher. " + policy_help()),
    tasks: Optional[str] = typer.Option(None, "--tasks", "-t", help=SELECTOR_HELP),
    runs: int = typer.Option(1, min=1, help="Episodes per task."),
    out_dir: Path = typer.Option(..., "--out", "-o", help="The collection directory (ledger, trajectories). Rerun the "
                                                          "same command with it to resume."),
    workers: int = typer.Option(1, min=1, help="Worker processes, each with its own Chromium."),
    policy_option: list[str] = typer.Option([], "--policy-option", "-O", help="key=value for the policy, repeatable."),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    url: Optional[str] = typer.Option(None, help="--console stratus: a running stratus (default: one in this process)."),
    admin_token: Optional[str] = typer.Option(None, envvar="STRATUS_ADMIN_TOKEN", help="Its admin token (with --url)."),
    limit: Optional[int] = typer.Option(None, min=0, help="Run at most this many new episodes now (resume later)."),
    root: Optional[Path] = typer.Option(None, help="Folder of task files (default: the console's own)."),
    document_style: str = typer.Option(AS_WRITTEN, help=DOCUMENT_STYLE_HELP),
) -> None:
    """Collect teacher trajectories through the rollout lifecycle (the benchmark harness): the data for `consoleagent samples`."""
    from consoleagent.bench.harness import BenchConfigError, command_line
    from consoleagent.bench.parallel import BenchError
    from consoleagent.cli.tasks import console_root, load_selected
    from consoleagent.cli.console_choice import console_options
    from consoleagent.documents.restyle import check_style
    from consoleagent.policies.registry import parse_option_pairs
    from consoleagent.training.collect import collect as run_collect

    specs = load_selected(tasks, console_root(console, root))

    def seen(record: dict[str, Any]) -> None:
        from consoleagent.bench.results import is_env_error

        verdict = ("environment error" if is_env_error(record)
                   else "passed" if (record.get("reward") or 0) >= 1.0 else "failed")
        out.print(f"{record['key']}: {verdict} (status {record.get('status')}, reward {record.get('reward')})")

    try:
        results = run_collect(specs, out_dir, policy=policy, runs=runs, workers=workers,
                              policy_options=parse_option_pairs(policy_option), selector=tasks, console=console,
                              console_options=console_options(console, url=url, admin_token=admin_token), limit=limit,
                              on_record=seen, command=command_line(), document_style=check_style(document_style))
    except (ValueError, BenchConfigError, BenchError) as exc:  # UnknownStyle is a ValueError
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    summary = results["summary"]
    out.print(f"{summary.get('passed')} of {summary.get('episodes', len(results.get('episodes', [])))} episodes earned "
              f"reward 1; env errors {summary['env_errors']['episodes']}. Ledger: {out_dir / 'ledger.jsonl'}")
    out.print(f"Next: consoleagent samples --from {out_dir} --out samples.jsonl")


def print_reports(reports: list[dict[str, Any]]) -> None:
    table = Table(title="Filters")
    for column in ("filter", "in", "kept", "dropped", "reasons"):
        table.add_column(column)
    for r in reports:
        reasons = dict(r["reasons"])
        reasons.update({f"kept: {k}": v for k, v in (r.get("kept_by") or {}).items()})
        table.add_row(r["filter"], str(r["in"]), str(r["kept"]), str(r["dropped"]),
                      "; ".join(f"{k} {v}" for k, v in reasons.items()))
    out.print(table)


def val_path(train_path: Path) -> Path:
    """samples.jsonl → samples.val.jsonl (the validation split, next to the training file)."""
    return train_path.with_name(train_path.stem + ".val" + (train_path.suffix or ".jsonl"))


def samples(
    source: Path = typer.Option(..., "--from", exists=True, file_okay=False, help="A collection directory (consoleagent collect)."),
    out_path: Path = typer.Option(Path("samples.jsonl"), "--out", "-o", help="The training samples (JSONL); the validation "
                                  "split goes next to it as <name>.val.jsonl, the filter counts as <name>.report.json."),
    val_fraction: float = typer.Option(0.1, min=0.0, max=0.9, help="Fraction of the tasks held out for validation "
                                                                   "(their samples go to the val file only)."),
    seed: int = typer.Option(0, help="Seed of the task split."),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    root: Optional[Path] = typer.Option(None, help="Folder of task files (the discrepancy ground truth; default: the "
                                                   "console's own)."),
    system: str = typer.Option("full", help="The samples' system message: 'full' (the ReAct prompt chat models get, "
                               "~1,600 tokens) or 'compact' (~100 tokens, for small models trained from scratch). "
                               "SFT records it beside the model, and the hf policy prompts with it."),
) -> None:
    """Filter a collection (task and step filters, with counts) and write single-step chat samples for SFT and GRPO."""
    from consoleagent.cli.tasks import console_root, load_selected
    from consoleagent.training.dataset import build_samples
    from consoleagent.policies.prompts import SYSTEM_PROMPTS, system_text
    from consoleagent.training.samples import write_samples

    if system not in SYSTEM_PROMPTS:
        err.print(f"[red]--system {system!r}: expected one of {', '.join(SYSTEM_PROMPTS)}[/red]")
        raise typer.Exit(2)
    specs = {s.id: s for s in load_selected(None, console_root(console, root))}
    try:
        result = build_samples(source, specs=specs, val_fraction=val_fraction, seed=seed, system=system_text(system))
    except (FileNotFoundError, ValueError) as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    print_reports(result.reports)
    write_samples(result.train, out_path)
    write_samples(result.val, val_path(out_path))
    report_path = out_path.with_name(out_path.stem + ".report.json")
    report_path.write_text(json.dumps({"source": str(source), "train": len(result.train), "val": len(result.val),
                                       "val_tasks": result.val_tasks, "system": system, "filters": result.reports}, indent=1), encoding="utf-8")
    out.print(f"{len(result.train)} training samples → {out_path}; {len(result.val)} validation samples "
              f"({len(result.val_tasks)} held-out tasks) → {val_path(out_path)}; counts → {report_path}")


def tiny_model(
    out_dir: Path = typer.Option(..., "--out", "-o", help="Where to save the model and tokenizer (save_pretrained)."),
    source: Optional[Path] = typer.Option(None, "--from", exists=True, dir_okay=False,
                                          help="Samples JSONL whose observation texts join the tokenizer's corpus."),
    vocab_size: int = typer.Option(4096, min=300, help="The tokenizer's vocabulary size (at most)."),
    hidden_size: int = typer.Option(256, min=16),
    layers: int = typer.Option(4, min=1),
    heads: int = typer.Option(4, min=1),
    kv_heads: int = typer.Option(2, min=1),
    max_position: int = typer.Option(8192, min=128),
    seed: int = typer.Option(0),
) -> None:
    """Build a tiny Qwen2 causal LM from a config with a byte-level BPE tokenizer trained on the project corpus."""
    from consoleagent.training.samples import load_samples
    from consoleagent.training.tiny_model import BUILD_FILE, build_tiny_model

    texts = [m["content"] for s in load_samples(source) for m in s["prompt"][1:] + s["completion"]] if source else None
    path = build_tiny_model(out_dir, corpus_texts=texts, vocab_size=vocab_size, hidden_size=hidden_size, layers=layers,
                            heads=heads, kv_heads=kv_heads, max_position=max_position, seed=seed)
    build = json.loads((path / BUILD_FILE).read_text(encoding="utf-8"))
    out.print(f"{build['architecture']}: {build['parameters'] / 1e6:.2f} M parameters, vocabulary {build['vocab_size']} "
              f"→ {path}")
