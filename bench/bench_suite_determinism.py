"""Determinism of the rollout system: the oracle on every selected task, 3 runs each; every episode
must pass with zero environment failures (not even a retried attempt). Prints the counts and exits 1
otherwise.

Run: python bench/bench_suite_determinism.py [--tasks SELECTOR] [--runs 3] [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from common import machine

from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.suite.catalog import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=None, help="task selector (default: every task)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="the results directory (resumable)")
    args = parser.parse_args()
    tasks = load_suite(args.tasks)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-determinism-"))
    print(f"machine: {machine()}")
    started = time.monotonic()
    results = run_bench(BenchConfig(out, policy="oracle", runs=args.runs, workers=args.workers, selector=args.tasks,
                                    plots=False, command="bench/bench_suite_determinism.py"), tasks)
    wall = time.monotonic() - started
    s = results["summary"]
    retried = s["env_errors"]["retried_attempts"]
    print(f"tasks {s['tasks']}, runs {args.runs}, workers {args.workers}, wall {wall:.0f} s, results in {out}")
    print(f"episodes {s['episodes']}: passed {s['passed']}, failed {s['scored'] - s['passed']}, "
          f"env errors {s['env_errors']['episodes']} (retried attempts {retried}; by phase {s['env_errors']['by_phase'] or 'none'})")
    failing = [t for t in results["tasks"] if t["passed"] != t["episodes"]]
    for row in failing:
        print(f"  {row['id']}: {row['passed']}/{row['episodes']} passed, env errors {row['env_errors']}")
    for episode in results["episodes"]:
        if episode["env_error_attempts"]:
            print(f"  {episode['key']}: lost attempts {episode['env_error_attempts']}")
    ok = not failing and retried == 0 and s["env_errors"]["episodes"] == 0 and results["complete"]
    print("deterministic: every oracle episode passed with zero environment failures" if ok else "NOT deterministic")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
