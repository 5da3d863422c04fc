"""Rollout throughput: oracle episodes per hour with 1, 2 and 4 worker processes, each with its own
Chromium, sharing one in-process stratus, one account pool and one snapshot index.

Each setting runs the same episodes in a fresh results directory; the wall time covers the whole
run (stratus start, workers' browser launch, every episode through the lifecycle, the report).
Run: python bench/bench_suite_throughput.py [--tasks SELECTOR] [--runs 1] [--workers 1,2,4]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from common import machine

from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.suite.catalog import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=None, help="task selector (default: every task)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    tasks = load_suite(args.tasks)
    out = Path(tempfile.mkdtemp(prefix="bench-throughput-"))
    print(f"machine: {machine()}")
    print(f"tasks {len(tasks)}, runs {args.runs}: {len(tasks) * args.runs} oracle episodes per setting")
    print(f"{'workers':>7s} {'episodes':>8s} {'passed':>6s} {'env err':>7s} {'wall s':>7s} {'episodes/h':>10s} {'speed-up':>8s}")
    base = None
    for workers in (int(w) for w in args.workers.split(",")):
        started = time.monotonic()
        results = run_bench(BenchConfig(out / f"workers-{workers}", policy="oracle", runs=args.runs, workers=workers,
                                        selector=args.tasks, plots=False, command="bench/bench_suite_throughput.py"), tasks)
        wall = time.monotonic() - started
        s = results["summary"]
        rate = s["episodes"] / wall * 3600
        base = base or rate
        print(f"{workers:>7d} {s['episodes']:>8d} {s['passed']:>6d} {s['env_errors']['episodes']:>7d} {wall:>7.1f} "
              f"{rate:>10.0f} {rate / base:>7.2f}x", flush=True)


if __name__ == "__main__":
    main()
