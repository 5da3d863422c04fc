"""The mean gain of a recipe over its baseline when each seed has its own baseline, paired by task and by seed.

Usage:
  python bench/paired_seeds.py BASELINE:CANDIDATE [...] [--resamples N] [--seed S]

Each pair is one seed's baseline and candidate (`consoleagent bench` results directories or ``results.json`` files):
an SFT head and the GRPO head trained from it, or one SFT run's head kept by two selection rules. The estimate is the
mean over seeds and tasks of candidate − baseline; the interval resamples the tasks and the seeds, as
`consoleagent compare A B1 B2 ...` does for several candidates over one baseline. Pairing each candidate with its own
baseline keeps the seeds' different starting points out of the difference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from consoleagent.bench.results import load_results, task_pass1  # noqa: E402
from consoleagent.bench.stats import Interval, paired_bootstrap_over_results  # noqa: E402


def _pair(text: str) -> tuple[Path, Path]:
    baseline, sep, candidate = text.partition(":")
    if not (sep and baseline and candidate):
        raise argparse.ArgumentTypeError(f"{text!r}: expected BASELINE_RESULTS:CANDIDATE_RESULTS")
    return Path(baseline), Path(candidate)


def paired_gain(pairs: list[tuple[Path, Path]], *, resamples: int = 10_000, seed: int = 0) -> Interval | None:
    """Mean of candidate − baseline over the tasks every pair scored, bootstrapped over tasks and seeds."""
    differences = []
    for baseline, candidate in pairs:
        a, b = task_pass1(load_results(baseline)), task_pass1(load_results(candidate))
        differences.append({task: b[task] - a[task] for task in a.keys() & b.keys()})
    tasks = set.intersection(*(set(d) for d in differences)) if differences else set()
    return paired_bootstrap_over_results(dict.fromkeys(tasks, 0.0), differences, resamples=resamples, seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", type=_pair, help="BASELINE:CANDIDATE results, one pair per seed")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    interval = paired_gain(args.pairs, resamples=args.resamples, seed=args.seed)
    if interval is None:
        raise SystemExit("no task is scored in every result")
    print(f"mean gain {100 * interval.estimate:+.1f} pt, 95% CI [{100 * interval.low:+.1f}, {100 * interval.high:+.1f}] "
          f"over {interval.n} tasks and {len(args.pairs)} seeds")


if __name__ == "__main__":
    main()
