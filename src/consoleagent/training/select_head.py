"""Choosing a trained head by validation episodes, not by the loss on teacher steps.

A plain-document SFT run's step-level validation loss does not follow how the head acts: the epoch it picks is
erratic (35 to 42, then 9, 21 and 33 on another collection), within one run the held-out pass rate moved by up to 16
points with the epoch kept, and no step-level selection found the short-trained heads that act best (BENCHMARKS.md,
sessions 53, 55 and 56). What GRPO already does, this does for any set of heads: play each on the validation split's
tasks through the benchmark harness and keep the one that passes most.

Each candidate's episodes are an ordinary benchmark run in ``out/<candidate>/`` (resumable, with results.json), and
the choice is written to ``out/selection.json`` with a copy of the chosen head in ``out/selected/``. A candidate stops
once it could no longer pass more than the best before it even if every episode it has left passed (``prune``): the
choice is the same, and on session 56's three selections 341 of 924 episodes (37%) would not have been played.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from consoleagent.bench.harness import LEDGER_FILE, BenchConfig, check_run, run_bench
from consoleagent.bench.results import is_env_error, record_passed, split_key
from consoleagent.policies.ranker import CONFIG_FILE
from consoleagent.rollout.ledger import RunLedger
from consoleagent.training.ranker_sft import EPOCHS_DIR

SELECTION_FILE = "selection.json"
SELECTED_DIR = "selected"


class SelectionError(ValueError):
    pass


def candidate_heads(paths: list[Path]) -> list[Path]:
    """The heads to choose among, in the order given: an SFT output directory stands for the heads of its
    ``keep_epochs`` (``epochs/epoch-NNN/``, earliest first), a head directory for itself."""
    heads: list[Path] = []
    for path in paths:
        kept = sorted((path / EPOCHS_DIR).glob("epoch-*")) if (path / EPOCHS_DIR).is_dir() else []
        if kept:
            heads.extend(kept)
        elif (path / CONFIG_FILE).is_file():
            heads.append(path)
        else:
            raise SelectionError(f"{path}: neither a head (no {CONFIG_FILE}) nor an SFT run with kept epochs "
                                 f"(no {EPOCHS_DIR}/epoch-*; train with keep_epochs)")
    names = [run_name(head) for head in heads]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise SelectionError(f"two candidates share the name {repeated[0]}: give heads of one run, or copy them to "
                             "differently named directories")
    return heads


def check_not_held_out(tasks: list[Any]) -> None:
    """A model chosen on the held-out split would make its held-out figure a choice, not a measurement."""
    held_out = [spec.id for spec in tasks if spec.split == "test"]
    if held_out:
        raise SelectionError(f"{len(held_out)} of the tasks are held out (split test, e.g. {held_out[0]}): choose on "
                             "the validation split (--tasks split=val)")
    if not tasks:
        raise SelectionError("no tasks to validate on")


def run_name(head: Path) -> str:
    """A candidate's results directory: its SFT run and epoch (``run-epoch-012``), or a head's own name."""
    return f"{head.parent.parent.name}-{head.name}" if head.parent.name == EPOCHS_DIR else head.name


def reachable_pass1(records: list[dict[str, Any]], runs: int, tasks: int) -> float:
    """The highest pass@1 a candidate could still reach were every episode it has not played to pass: per run,
    (passed + unplayed) / (scored + unplayed), averaged over the runs as the benchmark's pass@1 is. An unplayed
    episode lost to the environment would lower a run's rate rather than raise it, and a run with nothing scored
    yet may still reach 1, so this bounds every way the remaining episodes can end."""
    rates = []
    for run in range(runs):
        mine = [record for record in records if split_key(record["key"])[1] == run]
        unplayed = tasks - len(mine)
        scored = sum(not is_env_error(record) for record in mine) + unplayed
        if scored:
            rates.append((sum(record_passed(record) for record in mine) + unplayed) / scored)
    return sum(rates) / len(rates) if rates else 0.0


def beaten(records: list[dict[str, Any]], runs: int, tasks: int, best: float | None) -> bool:
    """Whether a candidate with these played episodes can no longer pass more than ``best`` (None: no finished
    candidate yet), so pruning stops it: a tie loses to the earlier candidate too."""
    return best is not None and reachable_pass1(records, runs, tasks) <= best + 1e-9


def episodes_to_play(played: list[list[dict[str, Any]]], runs: int, tasks: int, prune: bool = True) -> int:
    """At most how many episodes a selection will still play, from each candidate's ledger records (in the order
    given): every unplayed episode, less those of candidates that a finished candidate before them already beats,
    since they stop before their first episode (a rerun of a selection that stopped some). Once a candidate has
    episodes to play, what it will pass is unknown, so every later candidate counts in full."""
    total, best, known = 0, None, True
    for records in played:
        unplayed = tasks * runs - len(records)
        if prune and known and beaten(records, runs, tasks, best):
            continue
        total += unplayed
        known = known and not unplayed
        if known and any(not is_env_error(record) for record in records):  # finished, with something scored
            rate = reachable_pass1(records, runs, tasks)  # nothing unplayed: its pass@1
            best = rate if best is None else max(best, rate)
    return total


def _finished(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates that can be chosen: played to the end, with episodes the environment did not lose."""
    return [row for row in rows if row["pass1"] is not None and not row["stopped_early"]]


def _play(config: BenchConfig, tasks: list[Any], best: float | None,
          on_record: Callable[[dict[str, Any]], None] | None) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
    """One candidate's benchmark run, stopped once it cannot pass more than ``best`` (None: played to the end).
    Returns its results, the ledger records of its played episodes and whether it stopped early."""
    played = list(RunLedger(Path(config.results_dir) / LEDGER_FILE).results())

    def stop() -> bool:
        return beaten(played, config.runs, len(tasks), best)

    def record(entry: dict[str, Any]) -> None:
        played.append(entry)
        if on_record is not None:
            on_record(entry)

    # beaten before any episode (a rerun): the ledger's episodes are aggregated and none is started
    results = run_bench(config, tasks, on_record=record, should_stop=stop, limit=0 if stop() else None)
    stopped = not results["complete"] and stop()
    if not results["complete"] and not stopped:
        raise SelectionError(f"{config.results_dir}: episodes are missing (rerun the same command to finish them)")
    return results, played, stopped


def select_head(heads: list[Path], template: BenchConfig, tasks: list[Any], out: Path,
                on_record: Callable[[dict[str, Any]], None] | None = None,
                on_candidate: Callable[[dict[str, Any]], None] | None = None, prune: bool = True) -> dict[str, Any]:
    """Benchmark every head with ``template`` (its ``model`` option set to the head) and keep the best.

    The best passes the most validation episodes; of equals, the first given (an SFT run's earliest epoch, the one
    trained least). A candidate with episodes lost to the environment is compared on those it kept, and the count
    lost is recorded, since a rate over fewer episodes is a weaker claim. With ``prune`` a candidate stops once
    ``reachable_pass1`` is no more than the best's (it would lose, or tie and lose to the earlier); its row says
    ``stopped_early`` and counts what it played. A rerun without ``prune`` plays the rest."""
    if not heads:
        raise SelectionError("no candidate heads")
    check_not_held_out(tasks)
    out.mkdir(parents=True, exist_ok=True)
    configs = [replace(template, results_dir=out / run_name(head), policy_options={**template.policy_options, "model": str(head)})
               for head in heads]
    for config in configs:  # every candidate's directory before any episode: one holding another run, or episodes
        check_run(config.results_dir, config)  # other weights played, refuses the selection, not its last candidate
    rows: list[dict[str, Any]] = []
    for head, config in zip(heads, configs):
        best = max((row["pass1"] for row in _finished(rows)), default=None)
        results, played, stopped = _play(config, tasks, best if prune else None, on_record)
        summary = results["summary"]
        row = {"head": str(head), "results": str(config.results_dir), "pass1": summary["pass1"]["mean"],
               "passed": summary["passed"], "episodes": summary["scored"],
               "env_errors": summary["env_errors"]["episodes"], "stopped_early": stopped,
               "unplayed": len(tasks) * template.runs - len(played)}
        rows.append(row)
        if on_candidate is not None:
            on_candidate(row)
    scored = _finished(rows)
    if not scored:
        raise SelectionError("every candidate's validation episodes were lost to the environment: nothing to choose by")
    chosen = max(scored, key=lambda row: row["pass1"])  # max keeps the first of equals
    shutil.rmtree(out / SELECTED_DIR, ignore_errors=True)
    shutil.copytree(chosen["head"], out / SELECTED_DIR)
    selection = {"tasks": template.selector, "document_style": template.document_style, "runs": template.runs,
                 "candidates": rows, "chosen": chosen["head"], "selected": str(out / SELECTED_DIR)}
    (out / SELECTION_FILE).write_text(json.dumps(selection, indent=1), encoding="utf-8")
    return selection
