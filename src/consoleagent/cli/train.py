"""``consoleagent train sft | grpo | select | ensemble``: sft and grpo each read a YAML config (the dataclass's fields),
then flags override it; select chooses among trained ranker heads by validation episodes; ensemble joins heads into one.

Common fields have their own flags; any other field is set with ``--set key=value`` (the value read as
YAML, so ``--set lora='{r: 8}'`` works). ``--resume last`` (or a checkpoint directory) continues a run; ``--resume auto`` continues one if there is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

from consoleagent.cli.console_choice import CONSOLE_HELP
from consoleagent.cli.tasks import DOCUMENT_STYLE_HELP
from consoleagent.documents.restyle import AS_WRITTEN

train_app = typer.Typer(help="Train the local policy: SFT on samples (TRL), then step-level GRPO in the live console.",
                        no_args_is_help=True)
out = Console()
err = Console(stderr=True)

CONFIG_HELP = "YAML file whose keys are the run config's fields (see configs/train/)."
SET_HELP = "key=value for any config field, repeatable; the value is read as YAML (e.g. --set lora='{r: 8, alpha: 16}')."
RESUME_HELP = ("Continue from a checkpoint directory, 'last' for the newest one under the output directory, or 'auto': "
               "the newest if there is one, else start afresh (for a script that is simply run again).")
POLICY_HELP = "hf (a causal LM that writes its actions) or ranker (scores candidate actions with the packaged encoder)."


def parse_sets(pairs: list[str]) -> dict[str, Any]:
    import yaml

    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {pair!r} must look like key=value")
        try:
            values[key.strip().replace("-", "_")] = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError as exc:
            raise ValueError(f"--set {pair!r}: the value is not YAML ({exc})") from None
    return values


def _load(cls: type, config: Optional[Path], flags: dict[str, Any], sets: list[str]) -> Any:
    from consoleagent.training.config import ConfigError, load_config

    try:
        return load_config(cls, config, {**parse_sets(sets), **{k: v for k, v in flags.items() if v is not None}})
    except (ConfigError, ValueError) as exc:
        err.print(f"[red]{exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None


@train_app.command("sft")
def sft(
    config: Optional[Path] = typer.Option(None, "--config", "-c", help=CONFIG_HELP),
    model: Optional[str] = typer.Option(None, help="Model directory or Hub id."),
    train_file: Optional[Path] = typer.Option(None, "--train", help="Training samples JSONL (consoleagent samples)."),
    val_file: Optional[Path] = typer.Option(None, "--val", help="Held-out samples JSONL: validation loss, action accuracy."),
    output_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="Output directory (checkpoints, final/, metrics.json)."),
    epochs: Optional[float] = typer.Option(None, help="Epochs."),
    max_steps: Optional[int] = typer.Option(None, help="Optimiser steps (overrides epochs when > 0)."),
    learning_rate: Optional[float] = typer.Option(None, "--lr", help="Learning rate."),
    batch_size: Optional[int] = typer.Option(None, help="Samples per device step."),
    resume: Optional[str] = typer.Option(None, help=RESUME_HELP),
    set_: list[str] = typer.Option([], "--set", help=SET_HELP),
    policy: str = typer.Option("hf", "--policy", help=POLICY_HELP),
) -> None:
    """Supervised fine-tuning: TRL's SFTTrainer for hf (loss on the completion only; LoRA optional); a
    listwise loss over each step's candidates for the ranker (--train is then a collection directory)."""
    from consoleagent.training.config import SFTRunConfig
    from consoleagent.training.sft import run_sft

    if policy == "ranker":
        _ranker_sft(config, model, train_file, output_dir, epochs, max_steps, learning_rate, batch_size, resume, set_)
        return
    if policy != "hf":
        err.print(f"[red]--policy {policy!r}: train sft knows hf and ranker[/red]")
        raise typer.Exit(2)

    flags = {"model": model, "train_file": str(train_file) if train_file else None, "val_file": str(val_file) if val_file else None,
             "output_dir": str(output_dir) if output_dir else None, "epochs": epochs, "max_steps": max_steps,
             "learning_rate": learning_rate, "batch_size": batch_size, "resume_from": resume}
    run_config = _load(SFTRunConfig, config, flags, set_)
    try:
        run_config.validate()
        metrics = run_sft(run_config)
    except ValueError as exc:
        err.print(f"[red]{exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    accuracy = metrics.get("action_accuracy") or {}
    out.print(f"SFT done: {metrics['steps']} steps in {metrics['train_seconds']} s; loss {metrics.get('first_loss', 0):.3f} → "
              f"{metrics.get('last_loss', 0):.3f}; eval loss {metrics.get('eval_loss')}")
    if accuracy:
        out.print(f"action accuracy on {accuracy['samples']} {accuracy['on']} samples: exact {accuracy['exact']:.1%}, "
                  f"same action {accuracy['same_name']:.1%}")
    out.print(f"model: {metrics['final_model']}; metrics: {Path(run_config.output_dir) / 'metrics.json'}")


def _ranker_sft(config: Optional[Path], model: Optional[str], train_file: Optional[Path], output_dir: Optional[Path],
                epochs: Optional[float], max_steps: Optional[int], learning_rate: Optional[float],
                batch_size: Optional[int], resume: Optional[str], set_: list[str]) -> None:
    from consoleagent.training.ranker_sft import RankerSFTConfig, run_ranker_sft

    if max_steps or resume:
        err.print("[red]train sft --policy ranker: --max-steps and --resume do not apply (a run takes minutes; use --epochs)[/red]")
        raise typer.Exit(2)
    flags = {"model": model, "collection": str(train_file) if train_file else None,
             "output_dir": str(output_dir) if output_dir else None, "epochs": int(epochs) if epochs else None,
             "learning_rate": learning_rate, "batch_size": batch_size}
    run_config = _load(RankerSFTConfig, config, flags, set_)
    try:
        metrics = run_ranker_sft(run_config)
    except (ValueError, FileNotFoundError) as exc:
        err.print(f"[red]{exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    final, base = metrics["final"], metrics["base"]
    out.print(f"ranker SFT done: {metrics['examples'].get('train', 0)} train / {metrics['examples'].get('val', 0)} val steps "
              f"(val documents: {', '.join(metrics['val_documents']) or 'none'}); features {metrics['features_seconds']} s, "
              f"training {metrics['train_seconds']} s")
    for split in ("train", "val"):
        if final[split]:
            out.print(f"top-1 accuracy on {split}: {base[split]['accuracy']:.1%} (base encoder) → {final[split]['accuracy']:.1%}; "
                      f"loss {base[split]['loss']} → {final[split]['loss']}")
    out.print(f"model: {metrics['final_model']}; metrics: {Path(run_config.output_dir) / 'metrics.json'}")


@train_app.command("grpo")
def grpo(
    config: Optional[Path] = typer.Option(None, "--config", "-c", help=CONFIG_HELP),
    model: Optional[str] = typer.Option(None, help="The SFT model directory (final/ of train sft)."),
    output_dir: Optional[Path] = typer.Option(None, "--out", "-o", help="Output directory (log.jsonl, curves.png, checkpoints, best/, final/)."),
    tasks: Optional[str] = typer.Option(None, "--tasks", "-t", help="Training task selector (consoleagent tasks list)."),
    val_tasks: Optional[str] = typer.Option(None, "--val-tasks", help="Validation task selector."),
    steps: Optional[int] = typer.Option(None, help="Training steps."),
    tasks_per_step: Optional[int] = typer.Option(None, "--tasks-per-step", "-B", help="Tasks per step (B)."),
    group_size: Optional[int] = typer.Option(None, "--group-size", "-G", help="Rollouts per task (G)."),
    temperature: Optional[float] = typer.Option(None, help="Sampling temperature of the rollouts."),
    beta: Optional[float] = typer.Option(None, help="KL coefficient to the reference policy."),
    learning_rate: Optional[float] = typer.Option(None, "--lr", help="Learning rate."),
    resume: Optional[str] = typer.Option(None, help=RESUME_HELP),
    set_: list[str] = typer.Option([], "--set", help=SET_HELP),
    policy: Optional[str] = typer.Option(None, "--policy", help=POLICY_HELP),
) -> None:
    """Step-level GRPO against an in-process stratus in Chromium, with audit-log rewards (hf or ranker)."""
    from consoleagent.suite.catalog import SelectorError
    from consoleagent.training.config import GRPORunConfig
    from consoleagent.training.grpo import StepGRPOTrainer

    flags = {"model": model, "output_dir": str(output_dir) if output_dir else None, "tasks": tasks, "val_tasks": val_tasks,
             "steps": steps, "tasks_per_step": tasks_per_step, "group_size": group_size, "temperature": temperature,
             "beta": beta, "learning_rate": learning_rate, "resume_from": resume, "policy": policy}
    run_config = _load(GRPORunConfig, config, flags, set_)
    try:
        trainer = StepGRPOTrainer(run_config)
        trainer.setup_model()
    except (ValueError, SelectorError) as exc:
        err.print(f"[red]{exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    if trainer.step:
        out.print(f"resuming at step {trainer.step} of {run_config.steps}")
    summary = trainer.train()
    out.print(f"GRPO done: {summary['steps']} steps ({summary['steps_this_run']} this run) in {summary['seconds']} s; "
              f"best validation {summary['best_val']} at step {summary['best_step']}"
              + (f" (sampled {summary['best_val_sampled']}, pooled {summary['best_val_pooled']}; chosen by "
                 f"{summary['val_select']})" if summary.get("best_val_sampled") is not None else ""))
    out.print(f"log: {Path(run_config.output_dir) / 'log.jsonl'}; curves: {summary['curves']}; model: {summary['final_model']}")


@train_app.command("select")
def select(
    candidates: list[Path] = typer.Argument(..., exists=True, file_okay=False,
                                            help="Heads to choose among: an SFT run's directory (the heads of its "
                                                 "keep_epochs) or head directories, in order of preference for ties."),
    tasks: str = typer.Option("split=val", "--tasks", "-t", help="The validation tasks (never the held-out split)."),
    output_dir: Path = typer.Option(..., "--out", "-o", help="Where each candidate's benchmark run, selection.json "
                                                             "and selected/ (a copy of the chosen head) go. Rerun to resume."),
    runs: int = typer.Option(1, min=1, help="Episodes per task and candidate (a greedy ranker repeats itself: 1)."),
    workers: int = typer.Option(1, min=1, help="Worker processes, each with its own Chromium."),
    console: str = typer.Option("stratus", "--console", help=CONSOLE_HELP),
    policy_option: list[str] = typer.Option([], "--policy-option", "-O",
                                            help="key=value for the ranker beside its model, repeatable (e.g. -O max_steps=30)."),
    document_style: str = typer.Option(AS_WRITTEN, help=DOCUMENT_STYLE_HELP),
    prune: bool = typer.Option(True, "--prune/--no-prune",
                               help="Stop a candidate once it cannot pass more than the best before it even if all its "
                                    "remaining episodes passed (the choice is the same); --no-prune plays every "
                                    "episode, for a complete table of the candidates."),
) -> None:
    """Choose a ranker head by validation episodes: play each candidate on the validation tasks and keep the one that passes most.

    The step-level loss `train sft` keeps its head by does not follow how a head acts on documents written without
    markup (BENCHMARKS.md, session 56); train with `--set keep_epochs='[6, 12, 18]'` and choose here. Of heads that
    pass as many episodes, the first given wins (an SFT run's earliest epoch).
    """
    from consoleagent.bench.harness import LEDGER_FILE, BenchConfig, BenchConfigError, command_line
    from consoleagent.bench.parallel import BenchError
    from consoleagent.cli.bench import policy_options_of
    from consoleagent.cli.console_choice import console_options, tasks_root
    from consoleagent.cli.tasks import load_selected
    from consoleagent.training.select_head import (SelectionError, candidate_heads, check_not_held_out,
                                                   episodes_to_play, run_name, select_head)

    try:
        if any(pair.split("=", 1)[0].strip() == "model" for pair in policy_option):
            raise SelectionError("-O model: the candidates are the models (give them as arguments)")
        heads = candidate_heads(candidates)
        options = policy_options_of("ranker", [*policy_option, f"model={heads[0]}"])
        template = BenchConfig(results_dir=output_dir, policy="ranker", policy_options=options, runs=runs,
                               workers=workers, selector=tasks, console=console,
                               console_options=console_options(console),
                               plots=False, command=command_line(), document_style=document_style)
        specs = load_selected(tasks, tasks_root(console, None))
        check_not_held_out(specs)
    except ValueError as exc:  # SelectionError, a policy option, a console choice or a style
        err.print(f"[red]{exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from consoleagent.rollout.ledger import RunLedger

    keys = {f"{spec.id}#{r}" for spec in specs for r in range(runs)}
    played = [[record for record in RunLedger(output_dir / run_name(head) / LEDGER_FILE).results() if record["key"] in keys]
              for head in heads]
    remaining = episodes_to_play(played, runs, len(specs), prune)
    out.print(f"{len(heads)} candidate(s) × {len(specs)} task(s) × {runs} run(s); {remaining} episode(s) to run"
              + (" at most (a candidate that can no longer win stops)" if prune else ""))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=out) as progress:
        bar = progress.add_task("validation episodes", total=remaining)

        def candidate_done(row: dict[str, Any]) -> None:
            lost = f", {row['env_errors']} lost to the environment" if row["env_errors"] else ""
            stopped = f"; stopped with {row['unplayed']} unplayed: it can no longer pass more than the best" if row["stopped_early"] else ""
            progress.console.print(f"{row['head']}: {row['passed']} of {row['episodes']} passed{lost}{stopped}")
            progress.advance(bar, row["unplayed"])  # never to be played by this command

        try:
            selection = select_head(heads, template, specs, output_dir, on_candidate=candidate_done,
                                    on_record=lambda record: progress.advance(bar), prune=prune)
        except (SelectionError, BenchConfigError, BenchError) as exc:  # BenchError: the environment, not the input
            progress.stop()
            err.print(f"[red]{exc}[/red]", soft_wrap=True)
            raise typer.Exit(1 if isinstance(exc, BenchError) else 2) from None
    out.print(f"chosen: {selection['chosen']}; copied to {selection['selected']}; "
              f"{Path(output_dir) / 'selection.json'}")


@train_app.command("ensemble")
def ensemble(
    heads: list[Path] = typer.Argument(..., exists=True, file_okay=False,
                                       help="Two or more ranker heads (directories with ranker.json), e.g. the heads "
                                            "`train select` chose for SFT runs with different seeds."),
    output_dir: Path = typer.Option(..., "--out", "-o", help="Where the ensemble head goes (ranker.json + head.safetensors)."),
) -> None:
    """Join ranker heads into one head that scores each candidate by the mean of their scores.

    The mean of scores is the mean of log-probabilities up to a constant per step, so the ensemble acts as the product
    of its members' policies. It loads wherever a head does (`-O model=DIR`, `train select`, `train grpo`'s model;
    GRPO trains its members together). On the plain held-out split it did not beat its members, whose seeds fail the
    same tasks (BENCHMARKS.md, session 59).
    """
    from consoleagent.policies.ranker import save_ensemble

    try:
        path = save_ensemble([str(head) for head in heads], output_dir)
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        err.print(f"[red]{exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    out.print(f"ensemble of {len(heads)} heads: {path}")
