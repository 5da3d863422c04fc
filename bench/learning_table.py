"""Issue 16's learning table from benchmark results: one row per policy or recipe, in the order given.

Usage:
  python bench/learning_table.py "LABEL=RESULTS[,RESULTS...]" [...] [--output TABLE.md]

Each RESULTS is a `consoleagent bench` results directory (or its ``results.json``) on the same tasks. Several results
in one row are one recipe's seeds (an SFT run per seed, the GRPO run from each): the row gives their mean, and ± is
the standard deviation over the seeds; with one result ± is its own spread over runs. pass@k is the largest k every
result reports (a greedy head's runs agree, so its pass@3 is its pass@1). The columns follow the issue: pass@1 ± std,
pass@k, per product and difficulty, average steps, CPU seconds and US$ per task (the bench's price table). Training
wall time is not in a results file; BENCHMARKS.md gives it beside the table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.bench.results import load_results  # noqa: E402


def _row_spec(text: str) -> tuple[str, list[Path]]:
    label, sep, paths = text.rpartition("=")  # a label may hold "=" (`model=base`), a path seldom does
    if not (sep and label.strip() and paths.strip()):
        raise argparse.ArgumentTypeError(f"{text!r}: expected LABEL=RESULTS[,RESULTS...]")
    return label.strip(), [Path(path) for path in paths.split(",") if path]


def _percent(values: list[float]) -> str:
    return f"{100 * statistics.fmean(values):.1f}%"


def _groups(results: list[dict[str, Any]], key: str) -> list[str]:
    """The groups (products, difficulties) every result reports, sorted."""
    return sorted(set.intersection(*(set(one[key]) for one in results)))


def row(label: str, results: list[dict[str, Any]], products: list[str], difficulties: list[str]) -> list[str]:
    pass1 = [one["summary"]["pass1"]["mean"] for one in results]
    spread = statistics.stdev(pass1) if len(pass1) > 1 else results[0]["summary"]["pass1"]["std"] or 0.0
    k = max(set.intersection(*(set(map(int, one["summary"]["pass_at_k"])) for one in results)))
    cost = [one["summary"]["cost"] for one in results]
    return [label, str(len(results)), f"{100 * statistics.fmean(pass1):.1f} ± {100 * spread:.1f}%",
            f"{k}: {_percent([one['summary']['pass_at_k'][str(k)] for one in results])}",
            *(_percent([one["by_product"][p]["pass1"]["mean"] for one in results]) for p in products),
            *(_percent([one["by_difficulty"][d]["pass1"]["mean"] for one in results]) for d in difficulties),
            f"{statistics.fmean(one['summary']['avg_steps'] for one in results):.1f}",
            f"{statistics.fmean(c['policy_cpu_seconds_per_task'] for c in cost):.2f}",
            f"${statistics.fmean(c['usd_per_task'] for c in cost):.2e}"]


def table(rows: list[tuple[str, list[dict[str, Any]]]]) -> str:
    every = [one for _, results in rows for one in results]
    tasks = {one["summary"]["tasks"] for one in every}
    if len(tasks) != 1:
        raise ValueError(f"the results hold different numbers of tasks ({sorted(tasks)}): not one table")
    products, difficulties = _groups(every, "by_product"), _groups(every, "by_difficulty")
    first = every[0]
    header = (["policy", "results", "pass@1 ± std", "pass@k"] + [f"{p} ({first['by_product'][p]['tasks']})" for p in products]
              + [f"{d} ({first['by_difficulty'][d]['tasks']})" for d in difficulties]
              + ["avg steps", "CPU-s / task", "US$ / task"])
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(row(label, results, products, difficulties)) + " |" for label, results in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="+", type=_row_spec, help="LABEL=RESULTS[,RESULTS...], one row each")
    parser.add_argument("--output", type=Path, help="also write the table to this Markdown file")
    args = parser.parse_args()
    text = table([(label, [load_results(path) for path in paths]) for label, paths in args.rows])
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
