"""Whether a validation split ranks trained heads as the held-out test split does.

Usage:
  python bench/validation_agreement.py NAME=VAL_RESULTS:HELD_OUT_RESULTS [...] \
      [--subset RESULTS] [--output FILE.md]

Each pair names one head's `consoleagent bench` results on the validation tasks and on the held-out tasks (results
directories or ``results.json`` files). The report gives every head's validation and held-out pass@1 and Spearman's
rank correlation between them over the heads: a validation split that chooses GRPO's checkpoint is only worth as
much as it orders heads the way held-out tasks do. ``--subset`` (another validation result, e.g. one run before the
split grew) also scores every head on that result's tasks only, so an old split and a new one are compared on the
same runs.

Session 48 added 25 validation tasks after the 19 it had scored eight of nine heads the same (BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.bench.results import load_results, task_pass1  # noqa: E402
from consoleagent.bench.stats import mean  # noqa: E402


def _pair(text: str) -> tuple[str, Path, Path]:
    name, sep, paths = text.partition("=")
    val, sep2, held_out = paths.partition(":")
    if not (sep and sep2 and name and val and held_out):
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VAL_RESULTS:HELD_OUT_RESULTS")
    return name, Path(val), Path(held_out)


def agreement(pairs: list[tuple[str, Path, Path]], subset: set[str] | None) -> tuple[list[dict], dict[str, float]]:
    """Each head's pass@1 on validation (all tasks, and the subset's) and held-out; the rank correlations."""
    rows = []
    for name, val_path, held_path in pairs:
        val, held = task_pass1(load_results(val_path)), task_pass1(load_results(held_path))
        row = {"head": name, "val": mean(list(val.values())), "val_tasks": len(val),
               "held_out": mean(list(held.values())), "held_out_tasks": len(held)}
        if subset is not None:
            row["subset"] = mean([v for task, v in val.items() if task in subset])
        rows.append(row)
    held_out = [r["held_out"] for r in rows]
    columns = ["val"] + (["subset"] if subset is not None else [])
    rho = {column: float(spearmanr([r[column] for r in rows], held_out).statistic) for column in columns}
    return rows, rho


def markdown(rows: list[dict], rho: dict[str, float], subset_size: int | None) -> str:
    subset_header = f" | validation, the subset's {subset_size} tasks" if subset_size is not None else ""
    lines = [f"| head | validation, all {rows[0]['val_tasks']} tasks{subset_header} | held-out ({rows[0]['held_out_tasks']} tasks) |",
             "|---|---:|" + ("---:|" if subset_size is not None else "") + "---:|"]
    for r in rows:
        subset_cell = f" | {r['subset']:.1%}" if subset_size is not None else ""
        lines.append(f"| {r['head']} | {r['val']:.1%}{subset_cell} | {r['held_out']:.1%} |")
    lines.append("")
    lines += [f"Spearman's rho, {'all validation tasks' if column == 'val' else 'the subset'} vs held-out, "
              f"{len(rows)} heads: {value:+.2f}" for column, value in rho.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", nargs="+", type=_pair, help="NAME=VAL_RESULTS:HELD_OUT_RESULTS, one per head")
    parser.add_argument("--subset", type=Path, help="a validation result whose tasks are also scored on their own")
    parser.add_argument("--output", type=Path, help="write the table here as well (Markdown)")
    args = parser.parse_args()
    subset = set(task_pass1(load_results(args.subset))) if args.subset else None
    rows, rho = agreement(args.pairs, subset)
    report = markdown(rows, rho, len(subset) if subset is not None else None)
    print(report, end="")
    if args.output:
        args.output.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
