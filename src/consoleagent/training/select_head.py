"""Choosing a trained head by validation episodes, not by the loss on teacher steps.

A plain-document SFT run's step-level validation loss keeps falling long after the head stops acting well: within
one run the held-out pass rate moved by up to 16 points with the epoch kept, and no step-level selection found the
short-trained heads that act best (BENCHMARKS.md, sessions 53 and 55). What GRPO already does, this does for any set
of heads: play each on the validation split's tasks through the benchmark harness and keep the one that passes most.

Each candidate's episodes are an ordinary benchmark run in ``out/<candidate>/`` (resumable, with results.json), and
the choice is written to ``out/selection.json`` with a copy of the chosen head in ``out/selected/``.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from consoleagent.bench.harness import BenchConfig, check_run, run_bench
from consoleagent.policies.ranker import CONFIG_FILE
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


def select_head(heads: list[Path], template: BenchConfig, tasks: list[Any], out: Path,
                on_record: Callable[[dict[str, Any]], None] | None = None,
                on_candidate: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Benchmark every head with ``template`` (its ``model`` option set to the head) and keep the best.

    The best passes the most validation episodes; of equals, the first given (an SFT run's earliest epoch, the one
    trained least). A candidate with episodes lost to the environment is compared on those it kept, and the count
    lost is recorded, since a rate over fewer episodes is a weaker claim."""
    if not heads:
        raise SelectionError("no candidate heads")
    check_not_held_out(tasks)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for head in heads:
        config = replace(template, results_dir=out / run_name(head),
                         policy_options={**template.policy_options, "model": str(head)})
        check_run(config.results_dir, config)
        results = run_bench(config, tasks, on_record=on_record)
        if not results["complete"]:
            raise SelectionError(f"{config.results_dir}: episodes are missing (rerun the same command to finish them)")
        summary = results["summary"]
        row = {"head": str(head), "results": str(config.results_dir), "pass1": summary["pass1"]["mean"],
               "passed": summary["passed"], "episodes": summary["scored"],
               "env_errors": summary["env_errors"]["episodes"]}
        rows.append(row)
        if on_candidate is not None:
            on_candidate(row)
    scored = [row for row in rows if row["pass1"] is not None]
    if not scored:
        raise SelectionError("every candidate's validation episodes were lost to the environment: nothing to choose by")
    chosen = max(scored, key=lambda row: row["pass1"])  # max keeps the first of equals
    shutil.rmtree(out / SELECTED_DIR, ignore_errors=True)
    shutil.copytree(chosen["head"], out / SELECTED_DIR)
    selection = {"tasks": template.selector, "document_style": template.document_style, "runs": template.runs,
                 "candidates": rows, "chosen": chosen["head"], "selected": str(out / SELECTED_DIR)}
    (out / SELECTION_FILE).write_text(json.dumps(selection, indent=1), encoding="utf-8")
    return selection
