"""Provisioning ablation: the same tasks and policy with pre-provisioning off (every task's requires:
dropped, so episodes start in empty accounts) and on; the success rate of each, for the oracle and the
document follower.

Run: python bench/bench_suite_ablation.py [--tasks SELECTOR] [--runs 1] [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from common import machine

from consoleagent.bench.harness import BenchConfig, run_bench
from consoleagent.bench.taxonomy import CLASSES
from consoleagent.suite.catalog import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=None, help="task selector (default: every task)")
    parser.add_argument("--policies", default="oracle,docfollower")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="results directories go here (resumable)")
    args = parser.parse_args()
    tasks = load_suite(args.tasks)
    with_requires = [t for t in tasks if t.requires]
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-ablation-"))
    print(f"machine: {machine()}")
    print(f"tasks: {len(tasks)} ({len(with_requires)} with requires:), runs {args.runs}, workers {args.workers}, results in {out}")
    header = f"{'policy':12s} {'provisioning':12s} {'success':>9s} {'passed':>8s} {'env err':>7s} " + " ".join(
        f"{c:>16s}" for c in CLASSES) + f" {'wall s':>7s}"
    print(header)
    rates: dict[tuple[str, str], float] = {}
    for policy in args.policies.split(","):
        for provisioning in (False, True):
            label = "on" if provisioning else "off"
            started = time.monotonic()
            results = run_bench(BenchConfig(out / f"{policy}-provisioning-{label}", policy=policy, runs=args.runs,
                                            workers=args.workers, selector=args.tasks, provisioning=provisioning,
                                            plots=False, command="bench/bench_suite_ablation.py"), tasks)
            s = results["summary"]
            rate = s["passed"] / s["scored"] if s["scored"] else 0.0
            rates[policy, label] = rate
            print(f"{policy:12s} {label:12s} {100 * rate:8.1f}% {s['passed']:>4d}/{s['scored']:<3d} "
                  f"{s['env_errors']['episodes']:>7d} " + " ".join(f"{s['failures'][c]:>16d}" for c in CLASSES)
                  + f" {time.monotonic() - started:7.0f}", flush=True)
    for policy in args.policies.split(","):
        print(f"{policy}: provisioning adds {100 * (rates[policy, 'on'] - rates[policy, 'off']):+.1f} points of success")

if __name__ == "__main__":
    main()
