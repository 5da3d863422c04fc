"""How much heads' successes overlap: whether an ensemble (or any choice among them) has room to gain.

Usage:
  python bench/task_overlap.py RESULTS RESULTS [...] [--against RESULTS]

Each RESULTS is a `consoleagent bench` results directory (or its ``results.json``) on the same tasks, e.g. one head
per seed. A task counts as passed by a result where its pass@1 is at least one half (a greedy head's runs agree).
Printed: the tasks each passes, the union (what the best per-task choice among them could reach), the intersection
and the majority (what a vote would pass); with ``--against`` (e.g. their ensemble) the tasks it passes outside the
majority and the majority's tasks it fails. Few tasks beyond the intersection mean the heads fail together: their
mistakes are systematic, and averaging them (``consoleagent train ensemble``) cannot remove what they share.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.bench.results import load_results  # noqa: E402


def passed_tasks(results: dict[str, Any]) -> set[str]:
    return {task["id"] for task in results["tasks"] if task["pass1"] is not None and task["pass1"] >= 0.5}


def overlap(results: list[dict[str, Any]], against: dict[str, Any] | None = None) -> dict[str, Any]:
    """Counts and task lists; results on different task sets are refused (the union would mean nothing)."""
    task_sets = {frozenset(task["id"] for task in one["tasks"]) for one in results + ([against] if against else [])}
    if len(task_sets) != 1:
        raise ValueError(f"the results cover different tasks ({sorted(len(s) for s in task_sets)} tasks)")
    each = [passed_tasks(one) for one in results]
    union, both = set().union(*each), set.intersection(*each)
    majority = {task for task in union if 2 * sum(task in one for one in each) > len(each)}
    out: dict[str, Any] = {"tasks": len(next(iter(task_sets))), "each": [len(one) for one in each],
                           "union": len(union), "intersection": len(both), "majority": len(majority)}
    if against is not None:
        mine = passed_tasks(against)
        out |= {"against": len(mine), "outside_majority": sorted(mine - majority), "majority_failed": sorted(majority - mine)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--against", type=Path, help="A result to hold against the majority (e.g. their ensemble).")
    args = parser.parse_args(argv)
    found = overlap([load_results(path) for path in args.results], load_results(args.against) if args.against else None)
    tasks = found["tasks"]
    print(f"passed (of {tasks}): {', '.join(map(str, found['each']))}; union {found['union']}, "
          f"intersection {found['intersection']}, majority {found['majority']}")
    if args.against:
        print(f"--against passes {found['against']}; outside the majority: {', '.join(found['outside_majority']) or 'none'}; "
              f"the majority's tasks it fails: {', '.join(found['majority_failed']) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
